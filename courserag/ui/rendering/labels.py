"""One table of every translated label, used both to build the layout and to relabel it.

A component is created through `Labels.add(gr.Button, value="send", ...)`: the keys name
entries of courserag/i18n/ui_texts.py (or are functions of the language), the component is built
with the first language's words, and a language switch asks `updates(lang)` for one
`gr.update` per registered component, in the order of `components`. Each key is written once.
"""

from __future__ import annotations

from typing import Any, Callable

import gradio as gr

from courserag.i18n.ui_texts import t

Text = str | Callable[[str], Any]


class Labels:
    """Components whose words follow the UI language."""

    def __init__(self, lang: str):
        self.lang = lang
        self._entries: list[tuple[Any, dict[str, Text]]] = []

    @staticmethod
    def _say(spec: Text, lang: str) -> Any:
        return spec(lang) if callable(spec) else t(lang, spec)

    def add(self, factory: Callable[..., Any], /, *args, text: dict[str, Text], **kwargs) -> Any:
        """factory(*args, **kwargs, **{attr: words}) registered for relabelling.

        `text` maps a constructor argument ("label", "value", "placeholder", "choices"…)
        to a texts.py key or a function of the language.
        """
        words = {attr: self._say(spec, self.lang) for attr, spec in text.items()}
        component = factory(*args, **kwargs, **words)
        self._entries.append((component, text))
        return component

    @property
    def components(self) -> list[Any]:
        return [component for component, _ in self._entries]

    def updates(self, lang: str) -> list[Any]:
        """One update per registered component, in `components` order."""
        out = []
        for component, text in self._entries:
            words = {attr: self._say(spec, lang) for attr, spec in text.items()}
            if isinstance(component, (gr.Markdown, gr.HTML)) and set(words) == {"value"}:
                out.append(words["value"])
            else:
                out.append(gr.update(**words))
        return out
