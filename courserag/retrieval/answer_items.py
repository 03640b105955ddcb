"""The items of an earlier answer, so "the second one" can mean its second item.

An answer lists things as bullets or numbered lines (the extractive composer's "- … [1]",
an LLM's "1. …"), or as an enumeration inside a sentence ("逻辑回归、决策树和支持向量机",
"…: section L01 …; section T01 …"). Citation marks and the lead line ("From the
materials:") are not part of any item. Pure functions.
"""

from __future__ import annotations

import re

_MARK = re.compile(r"\s*\[\d+\]")
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,2}[.)、]|[（(]\d{1,2}[)）]|[①-⑩])\s*(.+?)\s*$")
_LEAD_LINE = re.compile(r"[:：]\s*$")
_CLOSE = {"(": ")", "（": "）", "[": "]", "【": "】", "“": "”", '"': '"'}
# Where a sentence's enumeration splits, strongest first: "A; B" before "A, B and C".
_STRONG = re.compile(r"\s*[;；]\s*")
_WEAK = re.compile(r"\s*(?:[,，、]\s*(?:and|or)\s+|[,，、]|\s+(?:and|or)\s+|以及|和|及|或)\s*")


def strip_marks(text: str) -> str:
    """The text without its citation marks ([1]) and closing punctuation."""
    return _MARK.sub("", text).strip().rstrip("。.;；,，").strip()


def answer_items(answer: str) -> list[str]:
    """The listed items of an answer, in order; [] when it lists nothing."""
    lines = [line for line in answer.splitlines() if line.strip()]
    bullets = [m.group(1) for line in lines if (m := _BULLET.match(line))]
    if len(bullets) > 1:
        return _without_shared_lead([strip_marks(b) for b in bullets if strip_marks(b)])
    # One quote (a passage, or a sentence with its list after a colon) or running text: its
    # enumeration, if it has one.
    body = bullets[0] if bullets else " ".join(line for line in lines if not _LEAD_LINE.search(line))
    return _enumeration(strip_marks(body))


def _enumeration(text: str) -> list[str]:
    """The parts of an enumeration in running text: after its colon when it has one, split
    at semicolons when there are some, else at commas and "and"/"和" (never inside brackets)."""
    head, colon, tail = _split_once(text, ":：")
    body = tail if colon and any(len(_top_level_split(tail, s)) > 1 for s in (_STRONG, _WEAK)) else text
    for splitter in (_STRONG, _WEAK):
        parts = [strip_marks(p) for p in _top_level_split(body, splitter)]
        parts = [p for p in parts if p]
        if len(parts) > 1:
            return _without_sentence_head(parts) if splitter is _WEAK else parts
    return []


def _without_sentence_head(parts: list[str]) -> list[str]:
    """The first part without the words that open the sentence when the others are short
    names ("The four cases are LL, RR, LR and RL" lists LL, not "The four cases are LL")."""
    words = parts[0].split()
    longest = max(len(p.split()) for p in parts[1:])
    if longest <= 3 and len(words) > longest + 2:
        return [" ".join(words[-longest:])] + parts[1:]
    return parts


def _split_once(text: str, marks: str) -> tuple[str, str, str]:
    """`text` cut at its first top-level colon (one outside brackets)."""
    for i, (char, depth) in enumerate(_depths(text)):
        if char in marks and depth == 0:
            return text[:i], char, text[i + 1 :]
    return text, "", ""


def _depths(text: str):
    """Each character with how many brackets are open around it."""
    stack: list[str] = []
    for char in text:
        if stack and char == stack[-1]:
            stack.pop()
            yield char, len(stack) + 1
            continue
        yield char, len(stack)
        if char in _CLOSE and char != '"':
            stack.append(_CLOSE[char])


def _top_level_split(text: str, splitter: re.Pattern) -> list[str]:
    """`text` split where `splitter` matches outside brackets."""
    depth_at = [depth for _, depth in _depths(text)]
    parts, start = [], 0
    for match in splitter.finditer(text):
        if match.start() < len(depth_at) and depth_at[match.start()] == 0 and match.start() > start:
            parts.append(text[start : match.start()])
            start = match.end()
    parts.append(text[start:])
    return parts


def _without_shared_lead(items: list[str]) -> list[str]:
    """Items without the lead-in they all repeat ("…five properties: The root is black.")."""
    if len(items) < 2:
        return items
    leads = {_split_once(item, ":：")[0] for item in items}
    if len(leads) == 1 and all(_split_once(item, ":：")[1] for item in items):
        return [_split_once(item, ":：")[2].strip() for item in items]
    return items
