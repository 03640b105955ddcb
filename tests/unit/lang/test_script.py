import pytest

from courserag.lang.script import (
    asked_across,
    cjk_ratio,
    has_ideograph,
    is_chinese,
    joins_without_space,
    mostly_other_language,
    script_of,
)


@pytest.mark.parametrize(
    "text, chinese",
    [
        ("hello world", False),
        ("迟交政策是什么", True),
        ("DS2010 的梯度下降是什么", True),
        ("CSC3100 的期中考试是什么时候？", True),
        ("What is CSC3100 about, 简单说?", False),
        ("What does 栈 mean?", False),
        ("遲交政策是什麼", True),  # Traditional script
        ("ＣＳＣ３１００", False),  # full-width Latin is not Chinese
        ("。。。", False),  # punctuation alone is no language
        ("", False),
    ],
)
def test_a_text_is_chinese_when_a_fifth_of_it_is_ideographs(text, chinese):
    assert is_chinese(text) is chinese
    assert script_of(text) == ("zh" if chinese else "en")


@pytest.mark.parametrize(
    "text, ratio",
    [("中文", 1.0), ("   ", 0.0), ("", 0.0), ("ab中文", 0.5), ("a b 中", 1 / 3), ("豈", 1.0)],
)
def test_cjk_ratio_counts_ideographs_among_non_space_characters(text, ratio):
    assert cjk_ratio(text) == pytest.approx(ratio)


@pytest.mark.parametrize(
    "language, materials, across",
    [("zh", "en", True), ("en", "zh", True), ("en", "en", False), ("zh", "zh", False), ("zh", None, False)],
)
def test_a_question_is_asked_across_when_its_language_is_not_the_materials(language, materials, across):
    assert asked_across(language, materials) is across


@pytest.mark.parametrize(
    "texts, chinese, other",
    [
        (["the midterm", "the final", "期末考试"], True, True),
        (["the midterm", "期中考试", "期末考试"], True, False),
        (["the midterm", "期末考试"], False, False),  # a tie is not "most"
        ([], True, False),
    ],
)
def test_candidates_are_mostly_in_the_other_language_by_a_strict_majority(texts, chinese, other):
    assert mostly_other_language(texts, chinese) is other


@pytest.mark.parametrize(
    "left, right, joined",
    [
        ("数据", "结构", True),
        ("句子。", "下一句", True),
        ("全角（", "括号", True),
        ("data", "结构", False),
        ("数据", "structure", False),
        ("", "结构", False),
        ("数据", "", False),
    ],
)
def test_chinese_text_meets_without_a_space_only_where_both_sides_are_chinese(left, right, joined):
    assert joins_without_space(left, right) is joined


@pytest.mark.parametrize("text, found", [("What does 栈 mean?", True), ("ＣＳＣ３１００。", False), ("", False)])
def test_has_ideograph_finds_a_single_han_character(text, found):
    assert has_ideograph(text) is found
