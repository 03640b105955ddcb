"""What the source panel shows of a cited passage: its paragraphs, and which sentences the
answer drew on (highlighted). Pure functions over text; rendering is in render.py.

A passage's sentences are matched to the answer's sentences that cite it ([n]): a sentence
the answer quotes (extractive answers) or restates (LLM answers) shares most of its words
with one of them. The passage is shown as paragraphs: a PDF's line breaks are where the page
wrapped, so its lines are joined; code keeps its lines.
"""

from __future__ import annotations

import re

from courserag.answers.cited import cited_numbers
from courserag.lang.abbreviations import ends_abbreviation
from courserag.lang.script import joins_without_space
from courserag.lang.textnorm import STOPWORDS, word_tokens

# A sentence ends after 。！？； or after . ! ? ; followed by white space, or at a line break.
_SENTENCE = re.compile(r".*?(?:[。！？；]+|[.!?;]+(?=\s)|\n|$)", re.DOTALL)
_MARKERS = re.compile(r"[\[【]\s*\d{1,3}(?:\s*[,，、]\s*\d{1,3})*\s*[\]】]")
_MARKER_RUN = re.compile(r"(?:\s*[\[【]\s*\d{1,3}(?:\s*[,，、]\s*\d{1,3})*\s*[\]】])+")
_BLOCK_START = re.compile(r"^\s*(?:[-*+•#]\s|\||\d{1,3}[.)]\s)")
_LINE_END = re.compile(r"[.!?。！？；:：]\s*$")
CODE_TYPES = frozenset({"py", "ipynb"})
WRAPPED_TYPES = frozenset({"pdf", "md", "txt"})  # line breaks there are mostly where text wrapped
MATCH_SHARE = 0.6  # a passage sentence with this share of its words in a citing sentence is marked
MIN_WORDS = 3  # shorter pieces (a heading such as "Late policy") are not marked


def sentences(text: str) -> list[str]:
    """`text` cut into sentences whose concatenation is `text` (white space kept); the period
    of an abbreviation ("Dr.", "e.g.": lang/abbreviations.yaml) ends none."""
    out: list[str] = []
    position = 0
    for piece in _SENTENCE.findall(text):
        if not piece:
            continue
        if out and ends_abbreviation(text, position - 1):
            out[-1] += piece
        else:
            out.append(piece)
        position += len(piece)
    return out


def _words(text: str) -> set[str]:
    return {w for w in word_tokens(text) if w not in STOPWORDS and (len(w) > 1 or not w.isascii())}


def claims(answer: str) -> list[tuple[str, list[int]]]:
    """(text, the source numbers it cites): each run of the answer's text with the markers
    that follow it ("A late submission loses 10% [1][2]" -> that text, [1, 2])."""
    out: list[tuple[str, list[int]]] = []
    for line in answer.split("\n"):
        position = 0
        for match in _MARKER_RUN.finditer(line):
            text = line[position : match.start()]
            if text.strip():
                out.append((text, cited_numbers(match.group(0))))
            position = match.end()
        if line[position:].strip():
            out.append((line[position:], []))
    return out


def citing_sentences(answer: str, n: int) -> list[str]:
    """The answer's text that cites source `n` (all of it when it cites nothing)."""
    if not cited_numbers(answer):
        return [s for s in sentences(answer) if s.strip()]
    return [text for text, numbers in claims(answer) if n in numbers]


def highlight(passage: str, answer: str, n: int) -> list[tuple[str, bool]]:
    """The passage as (piece, highlighted) pieces whose concatenation is the passage: the
    sentences that share most of their words with a sentence of the answer citing [n]."""
    wanted = [_words(_MARKERS.sub(" ", s)) for s in citing_sentences(answer, n)]
    wanted = [c for c in wanted if c]
    out: list[tuple[str, bool]] = []
    for piece in sentences(passage):
        words = _words(piece)
        marked = len(words) >= MIN_WORDS and any(len(words & claim) >= MATCH_SHARE * len(words) for claim in wanted)
        if out and out[-1][1] == marked:
            out[-1] = (out[-1][0] + piece, marked)
        else:
            out.append((piece, marked))
    return out


# A line of code: a keyword that starts a statement, a call or an assignment, a comment, an
# indented line, or a bracket left open at its end. Markdown's own "# Heading" is prose.
_CODE_LINE = re.compile(
    r"^\s*(?:def |class |import |from \S+ import |return\b|for .+:\s*$|if .+:\s*$|while .+:\s*$|print\(|@\w)"
    r"|^[\w.\[\]]+\s*[+\-*/]?=[^=]|^\w[\w.]*\(.*\)\s*$|^\s{2,}\S|[(\[{,]\s*$|^#(?!#* )"
)
PROSE_SHARE = 0.7  # a notebook passage with this share of prose lines is a Markdown cell's prose


def is_prose(text: str, doc_type: str) -> bool:
    """Whether a passage of a code file reads as prose: a notebook's Markdown cell (its
    chunks say only "cell 4"), shown as paragraphs, not as monospace code."""
    if doc_type != "ipynb" or "\nOutput:\n" in text or text.startswith("Output:"):
        return False
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines:
        return False
    prose = [line for line in lines if not _CODE_LINE.search(line)]
    return len(prose) >= PROSE_SHARE * len(lines)


def paragraphs(text: str, doc_type: str = "") -> list[str]:
    """The passage's paragraphs for display: lines of PDFs, Markdown and text joined where
    they only wrapped, list items and table rows kept apart; code, slides and documents line
    by line (their line breaks end a bullet or a paragraph)."""
    if doc_type not in WRAPPED_TYPES:
        return [line.rstrip() for line in text.split("\n")]
    lines: list[str] = []
    for raw in text.split("\n"):
        line = raw.strip()
        previous = lines[-1] if lines else ""
        if line and previous and not _BLOCK_START.match(line) and not _LINE_END.search(previous):
            glue = "" if joins_without_space(previous, line) else " "
            lines[-1] = previous + glue + line
        else:
            lines.append(line)
    return lines


# A Markdown table: lines between pipes, the second a rule ("|------|:---:|").
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|(?:\s*:?-+:?\s*\|)+\s*$")
_CELL_BORDER = re.compile(r"(?<!\\)\|")


def table_cells(line: str) -> list[str]:
    """The cells of one table line ("| a | b |" -> ["a", "b"]); an escaped pipe stays in its cell."""
    inner = line.strip()[1:-1]
    return [cell.strip().replace("\\|", "|") for cell in _CELL_BORDER.split(inner)]


def passage_blocks(lines: list[str]) -> list[str | list[list[str]]]:
    """The panel's lines with each Markdown table among them as one block: its rows of cells,
    the header row first (the rule line dropped). Other lines are kept as they are."""
    out: list[str | list[list[str]]] = []
    i = 0
    while i < len(lines):
        end = i
        while end < len(lines) and _TABLE_LINE.match(lines[end]):
            end += 1
        if end - i >= 2 and _TABLE_RULE.match(lines[i + 1]):
            out.append([table_cells(line) for n, line in enumerate(lines[i:end]) if n != 1])
            i = end
        else:
            out.append(lines[i])
            i += 1
    return out
