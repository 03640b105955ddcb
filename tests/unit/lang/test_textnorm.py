import pytest

from courserag.lang.textnorm import cjk_ratio, is_chinese, normalize, script_of, word_tokens


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


@pytest.mark.parametrize(
    "text, chinese",
    [
        ("hello world", False),
        ("迟交政策是什么", True),
        ("DS2010 的梯度下降是什么", True),
        ("What is CSC3100 about, 简单说?", False),
        ("", False),
    ],
)
def test_is_chinese(text, chinese):
    assert is_chinese(text) is chinese
    assert script_of(text) == ("zh" if chinese else "en")


def test_normalize_folds_width_case_space():
    assert normalize("  ＨＷ３\t Due ") == "hw3 due"


def test_cjk_ratio_bounds():
    assert cjk_ratio("中文") == 1.0
    assert cjk_ratio("   ") == 0.0
