"""Course facts from the course directory: who teaches a course.

`course_directory.yaml` names each course's instructors, but that field is no course file,
so no search could find it. Here they become small synthetic
passages ("course directory > instructors"), in English and in Chinese, offered to
retrieval beside the course's own candidates. They then compete like any passage (they
are added to the evidence when they rank among the best passages, never put in the place
of one), and the answer cites them like any source (`course_directory.yaml`, origin
"course"), so the learner can check them.

Pure functions, and `DirectoryFacts`, which keeps each passage's vector.
"""

from __future__ import annotations

import re
import threading
from dataclasses import replace
from typing import Callable, Sequence

from courserag.courses.directory import Course
from courserag.lang.matching import matched_tokens, stem
from courserag.lang.textnorm import token_weight, word_tokens
from courserag.records import Chunk, ScoredChunk

DIRECTORY_SOURCE = "course_directory.yaml"
DIRECTORY_DOC_TYPE = "directory"  # the doc type of the directory's passages (the composer reads it)
STORE_NAME = "directory"


# Titles written before or after a name ("Dr. Elena Marsh", "李明华 教授").
_TITLES = re.compile(r"^(?:dr|prof|professor|mr|mrs|ms|mx)\.?\s+|\s*(?:副教授|教授|讲师|老师|博士)$", re.IGNORECASE)


def _names(course: Course, lang: str) -> str:
    if lang == "zh":
        return "、".join(course.instructors)
    names = course.instructors
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]


def person_names(people: Sequence[str]) -> tuple[str, ...]:
    """The names as written and without their titles: a table row "李明华 — 职称: 教授" names
    "李明华 教授" too (extractive/entities.py marks a unit naming one as holding a person)."""
    out = []
    for person in people:
        bare = _TITLES.sub("", person.strip()).strip()
        out.extend(name for name in (person.strip(), bare) if name and name not in out)
    return tuple(out)


def directory_chunks(course: Course) -> tuple[Chunk, ...]:
    """The course's directory fields as citable passages (none for an empty field), two
    per field: in the course's own language, then in the other one, so that a question in
    either shares words with one of them, and a quote of it is in one language only.

    A passage's first line is its title, as a file's heading path would be; the locator
    says where the fact is written ("course directory > instructors")."""
    facts = []
    if course.instructors:
        # Plain sentences, the way a question asks ("Who teaches this course?", "这门课的老师是
        # 谁？"): measured, they sit nearer such questions than a "field: value" line does.
        facts.append(
            (
                "instructors",
                "Instructors",
                "授课教师",
                f"The instructors who teach this course ({course.name}) are {_names(course, 'en')}.",
                f"这门课（{course.name}）的授课教师是{_names(course, 'zh')}。",
            )
        )
    # The description is not offered: it names the course's topics, so it ranked among the
    # sources of ordinary content questions ("late policy for homework" cited it third)
    # without ever being the answer; the course card shows it.
    chunks = []
    for field, title_en, title_zh, en, zh in facts:
        for title, line in (
            ((title_zh, zh), (title_en, en)) if course.language == "zh" else ((title_en, en), (title_zh, zh))
        ):
            # A heading path on top, as chunking puts one (context, never quoted), without
            # the words "course directory": they would match any question about the course.
            text = f"{course.id} > {title}\n{line}"
            chunks.append(
                Chunk.make(
                    text, DIRECTORY_SOURCE, f"course directory > {field}", "course", course.id, DIRECTORY_DOC_TYPE
                )
            )
    return tuple(chunks)


def _word_share(tokens: Sequence[str], text: str) -> float:
    """Rarity-weighted share of the question's words in the text, English words up to a
    light stem ("teaches" finds "teach"): a BM25 stand-in for one short passage."""
    weights = {t: token_weight(t) for t in set(tokens)}
    total = sum(weights.values())
    stems = {stem(w) for w in word_tokens(text, drop_stopwords=False)}
    found = matched_tokens(set(tokens), text) | {t for t in weights if stem(t) in stems}
    return sum(weights[t] for t in found) / total if total > 0 else 0.0


def offer_directory(
    chunks: Sequence[Chunk],
    similarities: Sequence[float],
    tokens: Sequence[str],
    vector_hits: Sequence[ScoredChunk],
    lexical_hits: Sequence[ScoredChunk],
) -> tuple[list[ScoredChunk], list[ScoredChunk]]:
    """The course's candidate lists with the directory passages added (`offer_passages`)."""
    return offer_passages(chunks, similarities, tokens, vector_hits, lexical_hits, STORE_NAME)


def offer_passages(
    chunks: Sequence[Chunk],
    similarities: Sequence[float],
    tokens: Sequence[str],
    vector_hits: Sequence[ScoredChunk],
    lexical_hits: Sequence[ScoredChunk],
    store: str,
) -> tuple[list[ScoredChunk], list[ScoredChunk]]:
    """The course's candidate lists with passages that no file holds added (the directory's
    here, the catalog's answer from catalog/evidence.py), marked as coming from `store`.

    A passage's similarity is its cosine with the question; its lexical score is the share
    of the question's words it holds times the best BM25 score of the course's list, so
    that it is on that list's scale (ranking.merge_candidates divides by the list's best).
    When no file of the course holds a word of the question, neither does the directory:
    alone on the list it would get the full lexical score for a word like "course"."""
    top = max((h.lexical for h in lexical_hits), default=0.0)
    vectors, lexicals = list(vector_hits), list(lexical_hits)
    for chunk, similarity in zip(chunks, similarities):
        hit = ScoredChunk(chunk, vector=float(similarity), store=store)
        vectors.append(hit)
        share = _word_share(tokens, chunk.text)
        if share > 0 and top > 0:
            lexicals.append(replace(hit, lexical=share * top))
    return vectors, lexicals


def is_directory(hit: ScoredChunk) -> bool:
    return hit.chunk.source == DIRECTORY_SOURCE and hit.chunk.doc_type == DIRECTORY_DOC_TYPE


def keep_material(ranked: Sequence[ScoredChunk], top_k: int) -> list[ScoredChunk]:
    """The first `top_k` passages of the materials (and notes), with the directory facts
    that rank among them: a fact is added to the evidence, never put in the place of a
    passage of the materials; of a field's two passages (two languages) only the better
    one. `ranked` must be ranked to `top_k` plus the facts offered."""
    out, material, fields = [], 0, set()
    for hit in ranked:
        if material >= top_k:
            break
        if is_directory(hit):
            if hit.chunk.locator in fields:
                continue
            fields.add(hit.chunk.locator)
        out.append(hit)
        material += not is_directory(hit)
    return out


class EmbeddedOnce:
    """Vectors of passages that no store holds (the directory's, the catalog's answer), by
    passage id, each embedded on its first use: the same passages are offered again with
    every question about their course."""

    def __init__(self) -> None:
        self._vectors: dict[str, object] = {}  # passage id -> its vector
        self._lock = threading.Lock()

    def similarities(self, chunks: Sequence[Chunk], embed: Callable[[list[str]], object], vector) -> list[float]:
        """Each passage's inner product with the question's `vector`."""
        with self._lock:
            missing = list({c.id: c for c in chunks if c.id not in self._vectors}.values())
        if missing:
            embedded = embed([c.text for c in missing])
            with self._lock:
                self._vectors.update(zip((c.id for c in missing), embedded))
        with self._lock:
            return [float(self._vectors[c.id] @ vector) for c in chunks]


class DirectoryFacts:
    """The directory passages of the courses, each embedded once (on its first question)."""

    def __init__(self) -> None:
        self._vectors = EmbeddedOnce()

    def offer(
        self,
        course: Course,
        embed: Callable[[list[str]], object],
        vector,
        tokens: Sequence[str],
        vector_hits: Sequence[ScoredChunk],
        lexical_hits: Sequence[ScoredChunk],
    ) -> tuple[list[ScoredChunk], list[ScoredChunk]]:
        """`offer_directory` with the passages' similarity to the question's `vector`.

        Both passages of a field are as similar as the one in the course's language: the
        one in the other language would otherwise outscore every file of the course for
        a question in that language, only by sharing its language."""
        chunks = directory_chunks(course)
        own = [chunks[i - i % 2] for i in range(len(chunks))]  # (own, other) pairs, own first
        similarities = self._vectors.similarities(own, embed, vector)
        return offer_directory(chunks, similarities, tokens, vector_hits, lexical_hits)
