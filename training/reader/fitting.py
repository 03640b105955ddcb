"""SyllabusQA's `train` split (the evaluation folder's fitting material) as a training set.

`../shared/eval/syllabusqa_dev` (SHARED_EVAL overrides the folder) holds real syllabi cut
into chunks and questions with a `split`: `train` is for fitting, `val` reports, and `val` is
never read here. A question becomes one example over one chunk:

- answerable, with a verbatim evidence span the annotators marked (`answer_spans`): the span
  found in its gold chunk, spaces and line breaks matched loosely (the chunks were re-flowed);
  the evidence is what SyllabusQA's scoring asks an answer to hold. Questions whose answers
  are only written (summaries, reasoning without a span found) are left out;
- "no answer": the chunk of the same syllabus that shares the most words with the question,
  as retrieval would offer it, unanswerable.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Sequence

from training.reader.sets import Answer, DataPinError, Example

FILES = ("queries.jsonl", "corpus.jsonl")
_WORD = re.compile(r"\w+")


def read_syllabusqa(name: str, folder: Path, pinned: dict[str, str]) -> list[Example]:
    """The `train` split's examples, after checking each file's pinned SHA-256."""
    rows: dict[str, list[dict]] = {}
    for file in FILES:
        path = folder / file
        if not path.is_file():
            raise DataPinError(f"{path}: the pinned set {name!r} is not there (set SHARED_EVAL to its folder)")
        raw = path.read_bytes()  # hashed and parsed from one read, as sets.read_set does
        found = hashlib.sha256(raw).hexdigest()
        if found != pinned[file]:
            raise DataPinError(f"{path}: SHA-256 is {found}, but the pins say {pinned[file]}; the set changed")
        rows[file] = [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]
    chunks = {row["doc_id"]: row for row in rows["corpus.jsonl"]}
    by_title: dict[str, list[dict]] = {}
    for row in rows["corpus.jsonl"]:
        by_title.setdefault(row["title"], []).append(row)
    out = []
    for q in rows["queries.jsonl"]:
        if q.get("split") != "train":
            continue
        if not q["answerable"]:
            chunk = closest_chunk(q["question"], by_title.get(q["title"], []))
            if chunk is not None:
                out.append(Example(name, q["qid"], q["question"], chunk["text"], (), "en", "en"))
            continue
        found = first_span(q.get("answer_spans", []), [chunks[d]["text"] for d in q["gold_doc_ids"] if d in chunks])
        if found is not None:
            context, answer = found
            out.append(Example(name, q["qid"], q["question"], context, (answer,), "en", "en"))
    return out


def find_loosely(span: str, text: str) -> Answer | None:
    """`span` in `text` with any run of spaces or line breaks matching any other (or none)."""
    words = span.split()
    if not words:
        return None
    found = re.search(r"\s*".join(re.escape(w) for w in words), text)
    return Answer(found.group(0), found.start()) if found else None


def first_span(spans: Sequence[str], texts: Sequence[str]) -> tuple[str, Answer] | None:
    """(the text, the span in it) of the first span found in the first text holding one."""
    for text in texts:
        for span in spans:
            answer = find_loosely(span, text)
            if answer is not None:
                return text, answer
    return None


def closest_chunk(question: str, chunks: Sequence[dict]) -> dict | None:
    """The chunk sharing the most distinct words with the question (the first of a tie)."""
    asked = set(_WORD.findall(question.lower()))
    return max(chunks, key=lambda c: len(asked & set(_WORD.findall(c["text"].lower()))), default=None)
