"""Score the extractive composer in seconds on retrievals asked once: the edit loop of issue 19.

    .venv/bin/python -m bench.replay collect            # ask every source's questions once
    .venv/bin/python -m bench.replay score              # the composer as it is now, every source
    .venv/bin/python -m bench.replay score --sets xquad_en2zh_dev:held

`collect` needs the indexes `python -m bench.answers` keeps in EVAL_CACHE (default
/tmp/evalcache). It runs the product's retrieval for each question and pickles what the
composer reads (the question, the Retrieval, the course-code check, the course) to
EVAL_CACHE/replay/<set>-<role>.pkl. `score` runs the composer on them (`compose_answer`,
`render`: what `ask` says in extractive mode), scored with answer_eval.py's definitions
(judge, window, words), and keeps the unit vectors it asks for in <set>-<role>.memo, so a
second run embeds nothing. Retrieval is frozen: a change to ranking needs a new `collect`.

Questions (never a test split): SyllabusQA `train` (fit, SOURCES' count spread evenly) and
the whole `val` split (held); of the XQuAD, SQuAD and CMRC 2018 dev sets, the even-place titles of the corpus (fit) and
the odd-place ones (held), as scripts/fit_units.py splits them. Choose on `fit`, report `held`.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from collections import defaultdict
from pathlib import Path

from bench.answers import CACHE, SHARED

ROOT = Path(__file__).resolve().parent.parent
OUT = CACHE / "replay"
# (set, scope, role, how many questions)
SOURCES = (
    ("syllabusqa_dev", "course", "fit", 200),
    ("syllabusqa_dev", "course", "held", 957),  # the whole val split
    ("xquad_zh2en_dev", "global", "fit", 60),
    ("xquad_zh2en_dev", "global", "held", 60),
    ("xquad_en2zh_dev", "global", "fit", 60),
    ("xquad_en2zh_dev", "global", "held", 60),
    ("squad_v1_dev", "course", "fit", 100),
    ("squad_v1_dev", "course", "held", 100),
    ("cmrc2018_dev", "global", "fit", 100),
    ("cmrc2018_dev", "global", "held", 100),
)


def answer_eval():
    sys.path.insert(0, str(ROOT / "scripts"))
    from fit_refusal import _answer_eval

    return _answer_eval()


def spread(items: list, n: int) -> list:
    """n items spread evenly over `items` (all of them when there are fewer)."""
    if n >= len(items):
        return list(items)
    return [items[int(i * len(items) / n)] for i in range(n)]


def questions(name: str, role: str, n: int) -> list[dict]:
    qs = [json.loads(line) for line in open(SHARED / name / "queries.jsonl", encoding="utf-8")]
    if name == "syllabusqa_dev":
        return spread([q for q in qs if q.get("split") == ("train" if role == "fit" else "val")], n)
    titles = list(dict.fromkeys(json.loads(line)["title"] for line in open(SHARED / name / "corpus.jsonl")))
    keep = set(titles[0::2] if role == "fit" else titles[1::2])
    return spread([q for q in qs if q["title"] in keep], n)


def engine_for(name: str, scope: str):
    work = CACHE / f"{name}-{scope}"
    os.environ.update(
        COURSE_DIRECTORY=str(work / "course_directory.yaml"), DATA_DIR=str(work / "data"), HF_HUB_OFFLINE="1"
    )
    os.environ.setdefault("MODEL_CACHE_DIR", str(CACHE / "models"))
    from courserag.config.logs import configure_logging
    from courserag.config.settings import Settings
    from courserag.engine.facade import RagEngine

    configure_logging(40, 40)
    settings = Settings.from_env()
    return RagEngine.from_settings(settings), settings


def collect(sources) -> None:
    from courserag.courses.codes import check_codes

    OUT.mkdir(parents=True, exist_ok=True)
    for name, scope, role, n in sources:
        engine, _ = engine_for(name, scope)
        titles = list(dict.fromkeys(json.loads(line)["title"] for line in open(SHARED / name / "corpus.jsonl")))
        course_of = {t: (f"c{i:03d}" if scope == "course" else "all") for i, t in enumerate(titles)}
        started, rows = time.time(), []
        for q in questions(name, role, n):
            course = engine.course(course_of[q["title"]])
            retrieval = engine.retrieve(course.id, q["question"])
            rows.append((q, retrieval, check_codes(retrieval.query.text, course, engine.directory), course))
        (OUT / f"{name}-{role}.pkl").write_bytes(pickle.dumps(rows))
        print(f"{name} {role}: {len(rows)} questions in {time.time() - started:.0f}s", file=sys.stderr)


class VectorMemo:
    """Unit vectors (and word vectors) already asked for, kept on disk between runs."""

    def __init__(self, path: Path):
        self.path = path
        self.known = pickle.loads(path.read_bytes()) if path.exists() else {}
        self.changed = False

    def get(self, key, compute):
        if key not in self.known:
            self.known[key], self.changed = compute(), True
        return self.known[key]

    def save(self) -> None:
        if self.changed:
            self.path.write_bytes(pickle.dumps(self.known))


def score(sources, ae, dump=None) -> dict[str, dict]:
    """Figures per source; `dump`, when given, receives one record per question (what was
    said, why it was refused, how it was judged) for reading the failures."""
    from courserag.answers.extractive import render
    from courserag.answers.wording import _lead, compose_answer
    from courserag.embedders.groups import unit_matches
    from courserag.engine.parts import PASSAGE_BATCH
    from courserag.lang.script import script_of

    results, engines = {}, {}
    for name, scope, role, _ in sources:
        rows = pickle.loads((OUT / f"{name}-{role}.pkl").read_bytes())
        memo = VectorMemo(OUT / f"{name}-{role}.memo")
        if (name, scope) not in engines:
            engines.clear()
            engines[(name, scope)] = engine_for(name, scope)
        engine, settings = engines[(name, scope)]
        tally = defaultdict(list)
        for q, retrieval, codes, course in rows:
            refused, text, said = codes.about_another_course or not retrieval.items, "", None
            if not refused:
                across = retrieval.query.across

                question_tokens = memo.get(
                    ("query tokens", retrieval.query.text), lambda: engine.embedder.query_tokens(retrieval.query.text)
                )

                def measured(kind, kept, batch, retrieval=retrieval, across=across, question_tokens=question_tokens):
                    # A group embedded together as the product does (embedders/groups.py): one
                    # source's units ("units"), or the likeliest passages read whole ("passages").
                    def measure(texts):
                        group = memo.get(
                            (kind, across, tuple(texts)),
                            lambda: kept.group(engine.embedder, texts, across, batch),
                        )
                        return unit_matches(group, retrieval.query.vector, question_tokens)

                    return measure

                similarity = measured("units", engine.parts.unit_vectors, settings.embedding_batch_size)
                whole = measured("passages", engine.parts.passage_vectors, PASSAGE_BATCH)

                def word_vectors(words):
                    return memo.get(("words", tuple(words)), lambda: engine.embedder.word_vectors(words))

                said = compose_answer(retrieval, codes, course, similarity, word_vectors, whole)
                refused = said.refused
                text = "" if refused else render(said, _lead(script_of(q["question"]), said))
            # Without a composition the question was refused before it: another course's code, or no source.
            reason = (
                said.reason if said is not None else "another_course" if codes.about_another_course else "no_sources"
            )
            record = dict(source=f"{name}:{role}", question=q, refused=refused, reason=reason, answer=text)
            if dump is not None:
                dump(record)  # filled in below as far as the question is scored
            if q.get("answerable") is False:
                tally["no_answer_refused"].append(refused)
                continue
            evidence = ae.judge(q, " ".join(ae.words(" ".join(item.text for item in retrieval.items))))
            if evidence is None:  # a reasoning question: not scored
                continue
            record["correct"] = bool(not refused and ae.judge(q, ae.window(text)))
            record["evidence"] = bool(evidence)
            record["top_chunk"] = bool(not refused and ae.judge(q, ae.window(retrieval.items[0].text)))
            tally["correct"].append(record["correct"])
            tally["top_chunk"].append(record["top_chunk"])
            tally["evidence"].append(bool(evidence))
            tally["false_refusals"].append(refused)
            if not refused:
                tally["words"].append(len(ae.words(text)))
        memo.save()
        figures = {k: round(sum(v) / len(v), 3) for k, v in tally.items() if k != "words" and v}
        words = sorted(tally["words"])
        figures.update(n=len(tally["correct"]), words=words[len(words) // 2] if words else 0)
        results[f"{name}:{role}"] = figures
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("collect", "score"))
    parser.add_argument("--sets", default="", help="set:role,... (default: every source)")
    parser.add_argument("--dump", type=Path, help="write one JSON line per question here (score)")
    args = parser.parse_args()
    wanted = set(filter(None, args.sets.split(",")))
    sources = [s for s in SOURCES if not wanted or f"{s[0]}:{s[2]}" in wanted or s[0] in wanted]
    if args.command == "collect":
        collect(sources)
        return 0
    started, records = time.time(), []
    for source, figures in score(sources, answer_eval(), records.append if args.dump else None).items():
        print(source, " ".join(f"{k}={v}" for k, v in figures.items()))
    if args.dump:
        args.dump.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    print(f"({time.time() - started:.0f}s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
