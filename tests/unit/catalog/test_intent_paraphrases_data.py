"""The shape of eval/catalog_intents/paraphrases.jsonl, the set a catalog intent classifier is
fitted (split `fit`) and judged (split `heldout`) on: groups of paraphrases, one meaning and
one split a group, every intent in both languages on both sides of the split."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SET = ROOT / "eval" / "catalog_intents" / "paraphrases.jsonl"
INTENTS = {"credits", "prerequisites", "reverse", "sections", "program", "description", "none"}
FIELDS = {"id", "group", "question", "lang", "intents", "catalog", "course", "split"}
WORKSPACES = {"csc3100", "ds2010"}
CJK = re.compile(r"[\u4e00-\u9fff]")
# Catalog words a `none` question may carry ("In which room is the capstone showcase held?").
CATALOG_WORDS = re.compile(
    r"\b(?:rooms?|credits?|prerequisites?|sections?|instructors?|offered|programs?)\b|学分|教室|先修|老师|开课|专业",
    re.I,
)


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def groups(rows) -> dict[str, list[dict]]:
    by_group = defaultdict(list)
    for row in rows:
        by_group[row["group"]].append(row)
    return by_group


def group_language(members: list[dict]) -> str:
    """`en` when every wording is English, else `zh` (Chinese, some mixed with English)."""
    return "en" if all(m["lang"] == "en" for m in members) else "zh"


def test_rows_have_the_fields_and_known_values(rows):
    assert len(rows) >= 400
    for row in rows:
        assert set(row) == FIELDS, row
        assert row["intents"] and set(row["intents"]) <= INTENTS, row
        assert row["lang"] in {"en", "zh", "mixed"}, row
        assert row["split"] in {"fit", "heldout"}, row
        assert row["catalog"] in {"sample", "harbour"}, row
        assert row["course"] in (WORKSPACES | {None} if row["catalog"] == "sample" else {None}), row
        assert row["question"] == row["question"].strip() and row["question"], row
        assert bool(CJK.search(row["question"])) == (row["lang"] != "en"), row


def test_ids_are_unique_and_name_their_group(rows):
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids))
    for row in rows:
        assert re.fullmatch(r"g\d{3}", row["group"]), row
        assert re.fullmatch(re.escape(row["group"]) + r"-\d+", row["id"]), row


def test_no_question_appears_twice(rows):
    folded = Counter(" ".join(row["question"].casefold().split()) for row in rows)
    assert [q for q, n in folded.items() if n > 1] == []


def test_a_group_is_one_meaning_in_five_wordings_on_one_side_of_the_split(groups):
    for name, members in groups.items():
        assert len({m["question"] for m in members}) >= 5, name
        for field in ("split", "catalog", "course"):
            assert len({m[field] for m in members}) == 1, (name, field)
        assert len({tuple(m["intents"]) for m in members}) == 1, name
        expected = "fit" if int(name[1:]) % 2 else "heldout"
        assert members[0]["split"] == expected, name
        if group_language(members) == "zh":  # a Chinese group has no all-English wording
            assert all(m["lang"] != "en" for m in members), name


def test_every_intent_has_groups_in_both_languages_on_both_sides(groups):
    per_intent = Counter(members[0]["intents"][0] for members in groups.values())
    assert set(per_intent) == INTENTS
    assert all(n >= 5 for n in per_intent.values()), per_intent
    cells = Counter(
        (members[0]["intents"][0], group_language(members), members[0]["split"]) for members in groups.values()
    )
    missing = [
        (i, lang, split)
        for i in INTENTS
        for lang in ("en", "zh")
        for split in ("fit", "heldout")
        if cells[(i, lang, split)] < 2
    ]
    assert missing == []


def test_none_questions_often_use_catalog_words(rows):
    none = [row["question"] for row in rows if row["intents"][0] == "none"]
    with_words = [q for q in none if CATALOG_WORDS.search(q)]
    assert len(with_words) >= 0.4 * len(none), (len(with_words), len(none))
