"""What a question asks for: the kinds of fact an answer must hold, in English and Chinese.

"When is the midterm?" needs a date or a time; "When and where…" needs both a date/time
and a place; "What is the TA's phone number?" needs a phone number, and a sentence that
only has her e-mail address does not answer it. Rules are about the wording of questions,
never about a particular course. The words are data, per language: intent_words.yaml.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

WORDS_FILE = Path(__file__).with_name("intent_words.yaml")
LANGUAGES = ("en", "zh")


def _pattern(by_language: dict) -> re.Pattern:
    """One case-insensitive regex of a kind's patterns in every language."""
    return re.compile("|".join(p for lang in LANGUAGES for p in by_language.get(lang, ())), re.IGNORECASE)


@lru_cache(maxsize=1)
def _words() -> tuple[tuple[tuple[str, re.Pattern, frozenset[str]], ...], dict[str, re.Pattern]]:
    """(kind of question, pattern, the fact kinds any one of which answers it), in the data
    file's order, and the patterns of the question's forms; read once."""
    data = yaml.safe_load(WORDS_FILE.read_text(encoding="utf-8"))
    rules = tuple((label, _pattern(d), frozenset(d["answered_by"])) for label, d in data["asks"].items())
    return rules, {name: _pattern(d) for name, d in data["forms"].items()}


# When one of these fired, a "how many / 多少" in the same question asks for it, not for any number.
_NARROWER = ("percent", "complexity", "when", "phone", "email", "messaging")  # ("deadline" gave way above)


@dataclass(frozen=True)
class Ask:
    """What a question wants: fact kinds it needs (each a set of acceptable kinds), and its form."""

    needs: tuple[frozenset[str], ...]  # every need must be met; any kind in a need meets it
    labels: tuple[str, ...]  # the rule names that fired ("when", "where"…), for reading and tests
    yes_no: bool = False
    wants_list: bool = False
    overview: bool = False  # a description is asked for ("details on…", "summarize…", "介绍一下…")
    explanation: bool = False  # "why" / "how": an explanation, not a fact
    procedure: bool = (
        False  # "how …" even with a fact asked for ("how are late days deducted?"): the rule, not one number
    )

    @property
    def factual(self) -> bool:
        return bool(self.needs)

    @property
    def long_answer(self) -> bool:
        """A list or a description: its passage may fill what a learner reads of an answer."""
        return self.wants_list or self.overview


def classify(question: str) -> Ask:
    """The needs and form of a question (pure, table-driven)."""
    rules, forms = _words()
    labels: list[str] = []
    needs: list[frozenset[str]] = []
    for label, pattern, kinds in rules:
        if pattern.search(question):
            labels.append(label)
            needs.append(kinds)
    if "email" in labels and "who" in labels:
        needs.remove(frozenset({"person", "email"}))  # "who … and what is their e-mail": the e-mail answers both
        labels.remove("who")
        needs.append(frozenset({"person"}))
        labels.append("who")
    if "deadline" in labels and (len(labels) > 1):
        index = labels.index("deadline")  # the date of a deadline is asked only when nothing else is
        labels.pop(index)
        needs.pop(index)
    if "quantity" in labels and any(label in labels for label in _NARROWER):
        index = labels.index("quantity")  # "what percentage…", "phone number 是多少": the narrower need wins
        labels.pop(index)
        needs.pop(index)
    how = bool(forms["why_how"].search(question))
    overview = bool(forms["overview"].search(question)) and not needs
    return Ask(
        needs=tuple(needs),
        labels=tuple(labels),
        # "Can you tell me about…" is a request, not a yes/no question.
        yes_no=bool(forms["yes_no"].search(question)) and not labels and not overview,
        wants_list=bool(forms["list"].search(question)),
        overview=overview,
        # "why", or "how" without a fact kind ("how is the LR case fixed?"); "…, and why?" too.
        explanation=how and (not needs or bool(forms["why"].search(question))),
        procedure=how,
    )
