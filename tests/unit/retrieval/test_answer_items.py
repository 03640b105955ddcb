import pytest

from courserag.retrieval.answer_items import answer_items, strip_marks


@pytest.mark.parametrize(
    "answer, expected",
    [
        # The extractive composer's bullets, under its lead line, without their marks.
        ("From the materials:\n- Union by rank [1]\n- Path compression [1]", ["Union by rank", "Path compression"]),
        (
            "根据资料：\n- 期中考试 — 比例: 25% [2]\n- 期末考试 — 比例: 30% [2]",
            ["期中考试 — 比例: 25%", "期末考试 — 比例: 30%"],
        ),
        # Numbered lines as an LLM writes them, in both languages' styles.
        ("1. Heaps [2]\n2) Tries [3]\n3. Graphs", ["Heaps", "Tries", "Graphs"]),
        ("（1）选择题\n（2）编程题", ["选择题", "编程题"]),
        ("① 作业\n② 考试", ["作业", "考试"]),
        # A lead-in every item repeats is not part of the item.
        (
            "- Five properties: Every node is red or black. [1]\n- Five properties: The root is black. [1]",
            ["Every node is red or black", "The root is black"],
        ),
        # Lead-ins that differ are kept.
        ("- Four cases: LL case [1]\n- RR case [1]", ["Four cases: LL case", "RR case"]),
        # Enumerations in running text: after the colon, at semicolons, never inside brackets.
        (
            "Sections: L01 (lecture, Dr. Marsh and Dr. Okoye) [1]; T01 (tutorial) [2].",
            ["L01 (lecture, Dr. Marsh and Dr. Okoye)", "T01 (tutorial)"],
        ),
        (
            "逻辑回归、决策树、支持向量机和分类模型的评价指标。",
            ["逻辑回归", "决策树", "支持向量机", "分类模型的评价指标"],
        ),
        ("The four cases are LL, RR, LR and RL.", ["LL", "RR", "LR", "RL"]),
        ("Bring a pen, a calculator, or a ruler.", ["Bring a pen", "a calculator", "a ruler"]),
        # One quoted passage whose sentence lists its items after a colon.
        (
            "From the materials:\n- It satisfies five properties: Every node is red or black.; The root is black. [1]",
            ["Every node is red or black", "The root is black"],
        ),
        # Nothing listed.
        ("The midterm is in LH-1. [1]", []),
        ("From the materials:\n- The midterm is in LH-1. [1]", []),
        ("", []),
    ],
)
def test_answer_items(answer, expected):
    assert answer_items(answer) == expected


@pytest.mark.parametrize(
    "text, expected",
    [("Union by rank [1]", "Union by rank"), ("期中考试 [1][2]。", "期中考试"), ("plain", "plain")],
)
def test_strip_marks(text, expected):
    assert strip_marks(text) == expected
