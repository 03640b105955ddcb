import pytest

from courserag.lang.textnorm import normalize, word_tokens


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
