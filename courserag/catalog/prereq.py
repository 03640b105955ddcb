"""Prerequisite expressions: `CSC1001 and (MAT1001 or MAT1002)`, parsed, checked, said.

Grammar (`and` binds tighter than `or`, parentheses group; also `&`, `|`, `,` for and):
    expr := all ("or" all)* ;  all := item ("and" item)* ;  item := CODE | "(" expr ")"
An empty cell means no prerequisite. Brackets may nest `MAX_DEPTH` deep, so that every
function here, which walks the tree by recursion, stays far inside Python's stack (a cell of
400 nested brackets once raised RecursionError and stopped the app, issue 40). Pure functions.
"""

from __future__ import annotations

import re
from typing import Callable, Collection

from courserag.catalog.codes import normalize_code
from courserag.catalog.model import AllOf, AnyOf, Expr, Need
from courserag.lang.course_codes import CODE_TOKEN

# Real prerequisites nest two or three brackets deep; 32 is far beyond any, and keeps the
# parser (three frames a bracket) and the tree walkers far from Python's recursion limit.
MAX_DEPTH = 32
_TOKEN = re.compile(rf"\s*(\(|\)|&|\||,|\band\b|\bor\b|{CODE_TOKEN})", re.IGNORECASE)


class PrereqSyntaxError(ValueError):
    """An expression that cannot be read; the message says where."""


def _tokens(text: str) -> list[str]:
    tokens, at = [], 0
    text = text.strip()
    while at < len(text):
        match = _TOKEN.match(text, at)
        if not match:
            raise PrereqSyntaxError(f"cannot read {text[at:].strip()[:20]!r} in {text!r}")
        word = match.group(1)
        low = word.lower()
        tokens.append(
            "and"
            if low in ("and", "&", ",")
            else "or"
            if low in ("or", "|")
            else word
            if word in "()"
            else normalize_code(word)
        )
        at = match.end()
        while at < len(text) and text[at].isspace():
            at += 1
    return tokens


def parse_prereq(text: str) -> Expr | None:
    """The expression tree, or None for an empty cell; PrereqSyntaxError when malformed."""
    tokens = _tokens(text or "")
    if not tokens:
        return None
    position = 0
    depth = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        if position >= len(tokens):
            raise PrereqSyntaxError(f"{text!r} ends too early")
        position += 1
        return tokens[position - 1]

    def item() -> Expr:
        nonlocal depth
        token = take()
        if token == "(":
            depth += 1
            if depth > MAX_DEPTH:
                raise PrereqSyntaxError(f"nested too deep (more than {MAX_DEPTH} brackets)")
            inner = expr()
            depth -= 1
            if take() != ")":
                raise PrereqSyntaxError(f"a '(' is not closed in {text!r}")
            return inner
        if token in ("and", "or", ")"):
            raise PrereqSyntaxError(f"a course code was expected before {token!r} in {text!r}")
        return Need(token)

    def all_of() -> Expr:
        parts = [item()]
        while peek() == "and":
            take()
            parts.append(item())
        return parts[0] if len(parts) == 1 else AllOf(tuple(parts))

    def expr() -> Expr:
        parts = [all_of()]
        while peek() == "or":
            take()
            parts.append(all_of())
        return parts[0] if len(parts) == 1 else AnyOf(tuple(parts))

    tree = expr()
    if position != len(tokens):
        raise PrereqSyntaxError(f"unexpected {tokens[position]!r} in {text!r}")
    return tree


def codes_of(expr: Expr | None) -> tuple[str, ...]:
    """Every code an expression names, in order, each once (a walk with its own stack, and
    a dict for "once": linear in the cell, however long or deep)."""
    out: dict[str, None] = {}
    stack = [expr] if expr is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, Need):
            out[node.code] = None
        else:
            stack.extend(reversed(node.parts))
    return tuple(out)


def satisfied(expr: Expr | None, done: Collection[str]) -> bool:
    """Whether the completed courses `done` (own codes) meet the expression."""
    if expr is None:
        return True
    if isinstance(expr, Need):
        return expr.code in done
    results = (satisfied(part, done) for part in expr.parts)
    return all(results) if isinstance(expr, AllOf) else any(results)


def missing(expr: Expr | None, done: Collection[str]) -> Expr | None:
    """What is still needed: the unmet part of the expression (None when it is met)."""
    if expr is None or satisfied(expr, done):
        return None
    if isinstance(expr, Need):
        return expr
    if isinstance(expr, AnyOf):
        return expr
    left = tuple(m for m in (missing(p, done) for p in expr.parts) if m is not None)
    return left[0] if len(left) == 1 else AllOf(left)


def say(expr: Expr | None, lang: str, name: Callable[[str], str] = lambda code: code) -> str:
    """The expression in plain words: "CSC1001 and either MAT1001 or MAT1002";
    "CSC1001，以及 MAT1001 或 MAT1002 中的一门". `name` turns a code into how to show it."""
    if expr is None:
        return "无" if lang == "zh" else "none"
    return _say(expr, lang, name, top=True)


def _say(expr: Expr, lang: str, name: Callable[[str], str], top: bool = False) -> str:
    """A compound part inside another is put in brackets, so "and" and "or" never blur."""
    if isinstance(expr, Need):
        return name(expr.code)
    parts = [_say(p, lang, name) for p in expr.parts]
    if isinstance(expr, AllOf):
        if lang == "zh":
            text = "、".join(parts[:-1]) + " 和 " + parts[-1]
        else:
            text = " and ".join(parts) if len(parts) == 2 else ", ".join(parts[:-1]) + " and " + parts[-1]
    elif lang == "zh":
        text = " 或 ".join(parts) + ("" if top else " 中的一门")
    else:
        text = ("either " + " or ".join(parts)) if len(parts) == 2 else "one of " + ", ".join(parts)
    if top:
        return text
    return f"（{text}）" if lang == "zh" else f"({text})"
