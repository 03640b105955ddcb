"""Follow-up questions: "And Dr. Okoye's?", "Is it stable?", "那期末考试呢？", "the second one".

A follow-up leans on the conversation, so it is rewritten into a standalone retrieval
query (the original question is still the one answered, in its own language):
- a new name, code or term that takes the place of one in the previous question replaces
  it there ("What are Dr. Marsh's office hours?" + "And Dr. Okoye's?" -> "What are
  Dr. Okoye's office hours?"; "期中考试可以带什么？" + "那期末考试呢？" -> "期末考试可以带什么？");
- a person pronoun ("her", "她") becomes the person the previous question named
  ("What is her email?" -> "What is Dr. Marsh's email?"); another one ("it", "它") stands
  for the previous question's subject, whose words are added;
- an ordinal ("the second one", "第二个", "the last case") picks that item of the previous
  answer's list (answer_items.py), and `Resolution.item` tells the answerer to be about it.

The words (ordinals, pronouns, lead words, titles) are data: followup_words.yaml.

With an LLM configured the engine may ask it instead (`rewrite_messages`). Pure functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence

import yaml

from courserag.lang.script import IDEOGRAPHS, is_chinese
from courserag.lang.textnorm import well_formed, word_tokens
from courserag.retrieval.answer_items import answer_items

WORDS_FILE = Path(__file__).with_name("followup_words.yaml")


@lru_cache(maxsize=1)
def words() -> dict:
    """The follow-up word lists of `followup_words.yaml`, read once."""
    return yaml.safe_load(WORDS_FILE.read_text(encoding="utf-8"))


def _alternation(entries: Iterable[str]) -> str:
    """A regex alternation of literal entries, longest first (so "second to last" wins over "last")."""
    return "|".join(re.escape(e) for e in sorted(set(entries), key=len, reverse=True))


@lru_cache(maxsize=1)
def _patterns() -> dict[str, re.Pattern]:
    """The regexes built from the word lists, compiled once."""
    w = words()
    en_pron, zh_pron = w["pronouns"]["en"], w["pronouns"]["zh"]
    leads_en, leads_zh = _alternation(w["leads"]["en"]), _alternation(w["leads"]["zh"])
    counters = _alternation(w["zh_counters"])
    zh_ordinals = _alternation(w["ordinals"]["zh"])
    tail = re.escape(w["zh_tail"])
    all_en = _alternation(en_pron["person"] + en_pron["possessive"] + en_pron["other"])
    zh_start = _alternation(w["leads"]["zh"] + zh_pron["person"] + zh_pron["other"])
    # A person pronoun counts anywhere but inside 其他 ("other"), the one word that holds it.
    zh_person = _alternation(zh_pron["person"])
    return {
        "en_followup": re.compile(rf"^\s*({leads_en})\b|\b({all_en})\b", re.IGNORECASE),
        "zh_followup": re.compile(
            rf"^\s*({zh_start})|{tail}[？?]?\s*$|它|(?<!其)({zh_person})|{_alternation(w['zh_this_unit'])}"
            rf"|(?:{zh_ordinals}|第\s*\d+\s*)(?:{counters})"
        ),
        "en_ordinal": re.compile(rf"\b({_alternation(w['ordinals']['en'])})\b(?:\s+(\w+))?", re.IGNORECASE),
        "zh_ordinal": re.compile(rf"({zh_ordinals}|第\s*(\d+)\s*)(?:{counters})"),
        "en_person_pronoun": re.compile(rf"\b({_alternation(en_pron['person'])})\b(\s+\w)?", re.IGNORECASE),
        "zh_person_pronoun": re.compile(rf"(?<!其)({zh_person})"),
        "en_filler": re.compile(rf"^\s*({leads_en})\s+|[?？!！.。,，]+$|'s\b|’s\b", re.IGNORECASE),
        "zh_filler": re.compile(rf"^\s*({leads_zh})\s*|{tail}[？?]?\s*$|[？?！!。，,]+$"),
        "en_term": re.compile(
            rf"\b(?:{_alternation(w['titles']['en'])})\.?\s+[A-Z][\w'-]+|\b[A-Z]{{1,6}}-?\d{{1,5}}\b|\b[A-Z][a-zA-Z]+\b"
        ),
        "en_title": re.compile(rf"({_alternation(w['titles']['en'])})\.?\s"),
    }


@dataclass(frozen=True)
class Turn:
    """One message of the conversation."""

    role: str  # "user" or "assistant"
    content: str


def turns_of(history: Iterable[object]) -> list[Turn]:
    """Turns from what callers pass: {"role", "content"} dicts, Turns, or plain strings (earlier
    questions, the old form)."""
    out: list[Turn] = []
    for item in history or ():
        if isinstance(item, Turn):
            out.append(Turn(item.role, well_formed(item.content)))
        elif isinstance(item, dict) and isinstance(item.get("content"), str):
            out.append(Turn("assistant" if item.get("role") == "assistant" else "user", well_formed(item["content"])))
        elif isinstance(item, str):
            out.append(Turn("user", well_formed(item)))
    return out


def looks_like_followup(question: str) -> bool:
    """A short question that refers back instead of standing on its own."""
    zh = _patterns()["zh_followup"]
    if is_chinese(question) or zh.search(question):
        return len(question.strip()) <= 24 and bool(zh.search(question))
    return len(word_tokens(question)) <= 6 and bool(_patterns()["en_followup"].search(question))


@dataclass(frozen=True)
class Resolution:
    """A follow-up made standalone: the retrieval query and, when the question points at an
    item of an earlier answer ("the second one"), that item and its siblings, so the answer
    can be about it alone instead of repeating the list."""

    query: str
    item: str = ""
    others: tuple[str, ...] = ()


def ordinal_of(question: str, previous: str = "") -> int | None:
    """The position the question points at: 2 for "the second one" / "第二个", -1 for "the
    last one"; None when it names none. An English ordinal counts when "one", nothing, or a
    word of the previous question follows it ("the second case" after "the four cases"),
    so "the first exam" of a new question is not a list position."""
    table = words()["ordinals"]
    match = _patterns()["zh_ordinal"].search(question)
    if match:
        return int(match.group(2)) if match.group(2) else table["zh"][match.group(1)]
    for match in _patterns()["en_ordinal"].finditer(question):
        noun = (match.group(2) or "").lower()
        if noun in ("", "one", "ones") or _mentions_stem(previous, noun):
            return table["en"][re.sub(r"\s+", " ", match.group(1).lower())]
    return None


def _mentions_stem(text: str, word: str) -> bool:
    """`text` has `word` or its plural/singular ("case" in "the four cases")."""
    stem = word[:-1] if word.endswith("s") and len(word) > 3 else word
    return len(stem) > 2 and re.search(rf"\b{re.escape(stem)}", text, re.IGNORECASE) is not None


def _pick(items: Sequence[str], index: int) -> str:
    """The index-th item (1-based; negative from the end), or "" past the list."""
    if not items or index == 0 or abs(index) > len(items):
        return ""
    return items[index - 1 if index > 0 else index]


def _listed_answer(turns: Sequence[Turn], index: int, lookback: int = 3) -> list[str]:
    """Items of the latest of the last few answers that lists at least two and enough for
    `index`: "and the third one?" after "the second one" still means the list before."""
    answers = [t.content for t in reversed(turns) if t.role == "assistant"][:lookback]
    for answer in answers:
        items = answer_items(answer)
        if len(items) > 1 and _pick(items, index):
            return items
    return []


def _ordinal_resolution(question: str, turns: Sequence[Turn], previous: str) -> Resolution | None:
    """The query and item for "the second one": the question with that item added."""
    index = ordinal_of(question, previous)
    if index is None:
        return None
    items = _listed_answer(turns, index)
    item = _pick(items, index)
    if not item:
        return None
    others = tuple(other for other in items if other != item)
    return Resolution(f"{question.strip()} {item}", item, others)


def _kind(term: str) -> str:
    if _patterns()["en_title"].match(term):
        return "person"
    return "id" if re.search(r"\d", term) else "term"


def _terms(text: str) -> list[str]:
    """Names, ids and capitalised terms of a text, without a possessive 's."""
    terms = (re.sub(r"['’]s$", "", t) for t in _patterns()["en_term"].findall(text))
    asking = set(words()["question_words"]["en"])
    return [t for t in terms if t.lower() not in asking]


def _replace_en(question: str, previous: str) -> str | None:
    """The previous question with its name, id or term of the same kind as the new one
    replaced by it ("Dr. Marsh" by "Dr. Okoye", "HW3" by "HW4")."""
    new = _terms(_patterns()["en_filler"].sub("", question))
    if not new:
        return None
    term = new[0]
    for old in _terms(previous):
        if _kind(old) == _kind(term) and old != term:
            return previous.replace(old, term, 1)
    return None


def _replace_zh(question: str, previous: str) -> str | None:
    """ "那X呢": X replaces the word of the previous question that shares its last character
    (期末考试 for 期中考试, ECE 专业 for 计算机科学专业, 陈思远老师 for 李明华老师)."""
    new = _patterns()["zh_filler"].sub("", question).strip()
    if not new or len(new) > 12:
        return None
    for size in (2, 1):
        tail = new[-size:]
        for word in word_tokens(previous, drop_stopwords=False, whole_words=True):
            if len(word) > size and word.endswith(tail) and word != new:
                return previous.replace(word, new, 1)
        index = previous.find(tail)
        if size == 2 and index > 0:
            start = max(0, index - 6)
            match = re.search(rf"[{IDEOGRAPHS}A-Za-z0-9 ]+$", previous[start:index])
            if match:
                return previous[: start + match.start()] + new + previous[index + size :]
    return None


def _person_en(previous: str) -> str:
    """The person the previous question named ("Dr. Marsh"), or ""."""
    return next((t for t in _terms(previous) if _kind(t) == "person"), "")


def _person_zh(previous: str) -> str:
    """The person the previous question named: a name before a title (李明华老师), or an
    English one ("Dr. Marsh")."""
    titles = set(words()["titles"]["zh"])
    tokens = word_tokens(previous, drop_stopwords=False, whole_words=True)
    for name, title in zip(tokens, tokens[1:]):
        if title in titles and is_chinese(name) and len(name) > 1:
            return name + title
    return _person_en(previous)


def _person_pronoun_en(question: str, previous: str) -> str | None:
    """ "What is her email?" after a question about Dr. Marsh: "What is Dr. Marsh's email?"."""
    person = _person_en(previous)
    if not person:
        return None
    possessive = set(words()["pronouns"]["en"]["possessive"])

    def name(match: re.Match) -> str:
        pronoun, following = match.group(1), match.group(2) or ""
        owns = pronoun.lower() in possessive and (following or pronoun.lower() != "her") or pronoun.lower() == "hers"
        return (person + "'s" if owns else person) + following

    replaced = _patterns()["en_person_pronoun"].sub(name, question, count=1)
    return replaced if replaced != question else None


def _person_pronoun_zh(question: str, previous: str) -> str | None:
    """ "她的邮箱是什么？" after a question about 李明华老师: "李明华老师的邮箱是什么？"."""
    person = _person_zh(previous)
    if not person or not _patterns()["zh_person_pronoun"].search(question):
        return None
    return _patterns()["zh_person_pronoun"].sub(person, question, count=1)


def _subject_words(previous: str, question: str) -> list[str]:
    own = set(word_tokens(question))
    # A number of the question's own replaces the previous ones: "what about week 5?" after
    # "week 3" must not search week 3.
    has_number = any(t.isdigit() for t in own)
    return [t for t in word_tokens(previous) if t not in own and not (has_number and t.isdigit())]


def _previous_question(turns: Sequence[Turn], depth: int = 2) -> str:
    """The last question asked, itself made standalone when it was a follow-up (so "his
    email?" after "And Dr. Okoye's?" asks about Dr. Okoye)."""
    index = next((i for i in range(len(turns) - 1, -1, -1) if turns[i].role == "user"), None)
    if index is None:
        return ""
    question, earlier = turns[index].content, turns[:index]
    if depth and any(t.role == "user" for t in earlier):
        return _resolve(question, earlier, depth - 1).query
    return question


# "The third?", "Second one": this short, an ordinal alone makes a follow-up.
BARE_ORDINAL_WORDS = 3


def resolve_followup(question: str, history: Sequence[object]) -> Resolution:
    """The question made standalone from the conversation (see the module docstring); the
    question itself when it stands on its own."""
    return _resolve(question, turns_of(history), 2)


def _resolve(question: str, turns: Sequence[Turn], depth: int) -> Resolution:
    previous = _previous_question(turns, depth)
    followup = looks_like_followup(question)
    if not previous or not (followup or len(word_tokens(question)) <= BARE_ORDINAL_WORDS):
        return Resolution(question)
    ordinal = _ordinal_resolution(question, turns, previous)
    if ordinal or not followup:  # a bare "the third?" is only ever a list position
        return ordinal or Resolution(question)
    named = _named_item(question, turns)
    if named:  # the item's own words search better than the previous question's
        return Resolution(f"{question.strip()} {named[0]}", *named)
    return Resolution(_rewritten(question, previous))


def _rewritten(question: str, previous: str) -> str:
    """The follow-up as a standalone query: a pronoun or a replaced name in the previous
    question, else the question with the previous one's subject words added."""
    chinese = is_chinese(question) or is_chinese(previous)
    if chinese:
        replaced = _person_pronoun_zh(question, previous) or _replace_zh(question, previous)
    else:
        replaced = _person_pronoun_en(question, previous) or _replace_en(question, previous)
    if replaced:
        return replaced
    carried = _subject_words(previous, question)
    if not carried:
        return question
    return question.strip() + " " + " ".join(dict.fromkeys(carried))


def _named_item(question: str, turns: Sequence[Turn]) -> tuple[str, tuple[str, ...]] | None:
    """ "What about the RR case?", "那课程项目呢？" right after a list: the one item of it that
    holds what the question names, and the others; None when none or several do."""
    items = _listed_answer(turns, 1, lookback=1)
    chinese = is_chinese(question)
    name = _patterns()["zh_filler" if chinese else "en_filler"].sub("", question).strip()
    wanted = set(word_tokens(name))
    if not items or not wanted:
        return None
    if chinese:
        held = [item for item in items if name.lower() in item.lower()]
    else:
        held = [item for item in items if wanted <= set(word_tokens(item))]
    if len(held) != 1:
        return None
    return held[0], tuple(item for item in items if item != held[0])


def rewrite_followup(question: str, history: Sequence[object]) -> str:
    """The retrieval query: the question itself, or, for a follow-up, the question made
    standalone from the conversation."""
    return resolve_followup(question, history).query


REWRITE_PROMPT = (
    "Rewrite the student's last question as one standalone search query, using the earlier "
    "turns only to fill in what the last one leaves out. Keep its language. Reply with the "
    "query only."
)


def rewrite_messages(question: str, history: Sequence[object]) -> list[dict]:
    """Chat messages asking an LLM for the standalone query (the last three turns only)."""
    turns = "\n".join(f"- {t.role}: {t.content[:500]}" for t in turns_of(history)[-6:])
    return [
        {"role": "system", "content": REWRITE_PROMPT},
        {"role": "user", "content": f"Earlier turns:\n{turns}\n\nLast question: {question}"},
    ]


def clean_rewrite(question: str, rewritten: str) -> str:
    """Accept the model's rewrite only if it looks like a query, else keep the question."""
    lines = rewritten.strip().splitlines()
    text = lines[0].strip().strip('"“”').strip() if lines else ""
    if not text or len(text) > 4 * max(len(question), 60):
        return question
    return text
