"""What the product says about errors and warnings, in English and Chinese, by code.

Domain errors (`courserag.errors`) and answer warnings (`Notice`) carry a code and its
parameters instead of a finished sentence, so that each layer can say them in its own
language: the CLI and the JSON contract in English, the UI in the learner's language.
The sentences are the `message` section of the text catalog (courserag/i18n/texts/,
read through catalog.py); an unknown code is a bug (KeyError).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from courserag.i18n.catalog import has, say


def render(code: str, params: Mapping[str, object] | None = None, lang: str = "en") -> str:
    """The sentence for `code` in `lang` (English when there is no translation).

    Parameters that are themselves `Notice`s (a nested reason) are rendered in the same
    language first.
    """
    values = {k: (v.text(lang) if isinstance(v, Notice) else v) for k, v in (params or {}).items()}
    return say(f"message.{code}", lang).format(**values)


def unit_word(unit: str, count: int, lang: str = "en") -> str:
    """'page' or 'pages' (by count) for a unit kind such as 'page', 'slide', 'line'."""
    code = f"unit_{unit}" if has(f"message.unit_{unit}") else "unit_section"
    singular, plural = render(code, None, lang).split("|")
    return singular if count == 1 else plural


@dataclass(frozen=True)
class Notice:
    """A warning shown beside an answer (or a nested part of one), said by code."""

    code: str
    params: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self):
        if not has(f"message.{self.code}"):
            raise KeyError(f"no message for code {self.code!r}")

    def text(self, lang: str = "en") -> str:
        return render(self.code, self.params, lang)

    def __str__(self) -> str:
        return self.text("en")
