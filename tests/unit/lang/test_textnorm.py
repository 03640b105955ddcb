import pytest

from courserag.lang.textnorm import normalize, well_formed, word_tokens


@pytest.mark.parametrize(
    "text, expected",
    [
        ("What is the late policy?", ["late", "policy"]),
        ("ＣＳＣ３１００ Final", ["csc3100", "final"]),
        ("ECE专业的学生可以选修吗？", ["ece", "专业", "学生", "可以", "选修"]),
        ("中华人民共和国", ["中华", "华人", "人民", "共和", "共和国", "中华人民共和国"]),
        ("", []),
    ],
)
def test_word_tokens(text, expected):
    assert word_tokens(text) == expected


def test_normalize_folds_width_case_space():
    assert normalize("  ＨＷ３\t Due ") == "hw3 due"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("\ud800", "\ufffd"),  # a lone surrogate: not text, replaced
        ("a\ud83d\ude00b", "a\U0001f600b"),  # an emoji passed as its two halves: joined
        ("\udfff\ud800x", "\ufffd\ufffdx"),  # halves in the wrong order: both replaced
        ("学分 CSC3100", "学分 CSC3100"),
    ],
)
def test_text_becomes_what_utf8_can_carry_losing_only_lone_surrogates(text, expected):
    assert well_formed(text) == expected
