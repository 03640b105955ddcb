"""Follow-up questions: "And Dr. Okoye's?", "Is it stable?", "那期末考试呢？", "the second one".

A follow-up leans on the conversation, so it is rewritten into a standalone retrieval
query (the original question is still the one answered, in its own language):
- a new name, code or term that takes the place of one in the previous question replaces
  it there ("What are Dr. Marsh's office hours?" + "And Dr. Okoye's?" -> "What are
  Dr. Okoye's office hours?"; "期中考试可以带什么？" + "那期末考试呢？" -> "期末考试可以带什么？");
- a pronoun ("it", "它") stands for the previous question's subject, which is added;
- an ordinal ("the second one", "第二个") picks that item of the previous answer's list.

With an LLM configured the engine may ask it instead (`rewrite_messages`). Pure functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from courserag.lang.textnorm import is_chinese, word_tokens

_EN_FOLLOWUP = re.compile(
    r"^\s*(what about|how about|and\b|what of|same for|also|then)|\b(it|its|that|this|they|them|those|these|her|his|their|one)\b",
    re.IGNORECASE,
)
_ZH_FOLLOWUP = re.compile(
    r"^\s*(那|那么|还有|另外|而|它|这个|那个|这一|该)|呢[？?]?\s*$|它|这一[讲章节周]|第[一二三四五六七八九十\d]+[个位项条]"
)
_ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "last": -1,
    "第一": 1,
    "第二": 2,
    "第三": 3,
    "第四": 4,
    "第五": 5,
    "最后": -1,
}
_ORDINAL = re.compile(
    r"\b(first|second|third|fourth|fifth|last)\b|(第一|第二|第三|第四|第五|最后)[个位项条种]", re.IGNORECASE
)
# A replacement term: a title and name, a course or assignment id, a capitalised term.
_EN_TERM = re.compile(r"\b(?:Dr|Prof|Professor|Mr|Mrs|Ms)\.?\s+[A-Z][\w'-]+|\b[A-Z]{1,6}-?\d{1,5}\b|\b[A-Z][a-zA-Z]+\b")
_FILLER = re.compile(
    r"^\s*(and|what about|how about|what of|same for|also|then)\s+|[?？!！.。,，]+$|'s\b|’s\b", re.IGNORECASE
)
_ZH_FILLER = re.compile(r"^\s*(那么|那|还有|另外|而)\s*|呢[？?]?\s*$|[？?！!。，,]+$")
_LIST_ITEM = re.compile(r"^\s*[-*•]\s+(.*?)\s*(\[\d+\])?\s*$")


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
            out.append(item)
        elif isinstance(item, dict) and isinstance(item.get("content"), str):
            out.append(Turn("assistant" if item.get("role") == "assistant" else "user", item["content"]))
        elif isinstance(item, str):
            out.append(Turn("user", item))
    return out


def looks_like_followup(question: str) -> bool:
    """A short question that refers back instead of standing on its own."""
    if is_chinese(question) or _ZH_FOLLOWUP.search(question):
        return len(question.strip()) <= 24 and bool(_ZH_FOLLOWUP.search(question))
    return len(word_tokens(question)) <= 6 and bool(_EN_FOLLOWUP.search(question))


def _last(turns: Sequence[Turn], role: str) -> str:
    return next((t.content for t in reversed(turns) if t.role == role), "")


def _ordinal_item(question: str, answer: str) -> str:
    """The n-th list item of the previous answer when the question names an ordinal."""
    match = _ORDINAL.search(question)
    if not match or not answer:
        return ""
    items = [m.group(1) for line in answer.splitlines() if (m := _LIST_ITEM.match(line))]
    if not items:
        items = [part.strip() for part in re.split(r"[,;，；、]| and |和", answer) if part.strip()]
    index = _ORDINALS[(match.group(1) or match.group(2)).lower()]
    if not items or abs(index) > len(items):
        return ""
    return items[index - 1 if index > 0 else index]


_QUESTION_WORDS = frozenset(
    "what when where who whom which why how is are was were do does did can could may will would should and or".split()
)


def _kind(term: str) -> str:
    if re.match(r"(Dr|Prof|Professor|Mr|Mrs|Ms)\.?\s", term):
        return "person"
    return "id" if re.search(r"\d", term) else "term"


def _terms(text: str) -> list[str]:
    """Names, ids and capitalised terms of a text, without a possessive 's."""
    terms = (re.sub(r"['’]s$", "", t) for t in _EN_TERM.findall(text))
    return [t for t in terms if t.lower() not in _QUESTION_WORDS]


def _replace_en(question: str, previous: str) -> str | None:
    """The previous question with its name, id or term of the same kind as the new one
    replaced by it ("Dr. Marsh" by "Dr. Okoye", "HW3" by "HW4")."""
    new = _terms(_FILLER.sub("", question))
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
    new = _ZH_FILLER.sub("", question).strip()
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
            match = re.search(r"[\u4e00-\u9fffA-Za-z0-9 ]+$", previous[start:index])
            if match:
                return previous[: start + match.start()] + new + previous[index + size :]
    return None


def _subject_words(previous: str, question: str) -> list[str]:
    own = set(word_tokens(question))
    # A number of the question's own replaces the previous ones: "what about week 5?" after
    # "week 3" must not search week 3.
    has_number = any(t.isdigit() for t in own)
    return [t for t in word_tokens(previous) if t not in own and not (has_number and t.isdigit())]


def rewrite_followup(question: str, history: Sequence[object]) -> str:
    """The retrieval query: the question itself, or, for a follow-up, the question made
    standalone from the conversation (see the module docstring)."""
    turns = turns_of(history)
    previous = _last(turns, "user")
    if not previous or not looks_like_followup(question):
        return question
    item = _ordinal_item(question, _last(turns, "assistant"))
    if item:
        return f"{question.strip()} {item}"
    chinese = is_chinese(question) or is_chinese(previous)
    replaced = _replace_zh(question, previous) if chinese else _replace_en(question, previous)
    if replaced:
        return replaced
    carried = _subject_words(previous, question)
    if not carried:
        return question
    return question.strip() + " " + " ".join(dict.fromkeys(carried))


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
