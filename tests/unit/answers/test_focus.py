import pytest

from courserag.answers.focus import about_item, mentions, source_of
from courserag.records import Chunk, ScoredChunk
from courserag.retrieval.packing import ContextItem


def item(n, text):
    return ContextItem(n, ScoredChunk(Chunk.make(text, "notes.md", "", "course", "c1"), score=1.0), text, 9)


@pytest.mark.parametrize(
    "text, needle, expected",
    [
        ("RR case (right subtree): one left rotation at z.", "RR case (right subtree): one left rotation at z", True),
        ("Five properties: The root is black.", "The root is black", True),  # the unit keeps its lead-in
        ("LL case: one right rotation.", "Four cases: LL case: one right rotation", True),  # the item keeps it
        ("All keys are smaller.", "LL", False),  # a Latin item only as whole words
        ("期中考试 — 比例: 25%; 说明: 闭卷", "期中考试 — 比例: 25%", True),
        ("用决策树分类", "决策树", True),  # Chinese has no word boundaries to ask for
        ("Ｔｈｅ ROOT is black", "the root is black", True),  # NFKC and case
        ("", "x", False),
    ],
)
def test_mentions(text, needle, expected):
    assert mentions(text, needle) is expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("RR case: one left rotation at z.", True),
        ("Four cases: LL case: one right rotation; RR case: one left rotation at z.", False),  # the list again
        ("LR case: a double rotation.", False),
    ],
)
def test_about_item(text, expected):
    siblings = ("LL case: one right rotation", "LR case: a double rotation")
    assert about_item(text, "RR case: one left rotation at z", siblings) is expected


def test_source_of():
    sources = [item(1, "Heaps and tries."), item(2, "There are four cases. RR case: one left rotation at z.")]
    assert source_of("RR case: one left rotation at z", sources) == 2
    assert source_of("Splay trees", sources) is None


def test_an_item_listed_as_a_table_row_is_found_in_the_table_that_holds_it():
    table = (
        "| 项目 | 比例 | 说明 |\n|------|------|------|\n| 平时作业 | 25% | 共 4 次作业 |\n| 期中考试 | 25% | 闭卷 |"
    )
    sources = [item(1, "期末考试安排见通知。"), item(2, table)]
    # the earlier answer listed the row as its cells beside their headers
    assert source_of("期中考试 — 比例: 25%; 说明: 闭卷", sources) == 2
