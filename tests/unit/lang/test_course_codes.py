import pytest

from courserag.lang.course_codes import CODE_IN_TEXT, CODE_SHAPE, code_letters


def _found(text: str) -> list[str]:
    return [(m.group(1) + m.group(2) + m.group(3)).upper() for m in CODE_IN_TEXT.finditer(text)]


@pytest.mark.parametrize(
    "text, codes",
    [
        ("When is the CSC3100 midterm?", ["CSC3100"]),
        ("MAT-2040 and ds 2010", ["MAT2040", "DS2010"]),
        ("ECON2105A is the honours section", ["ECON2105A"]),
        ("CSC3100s are full", []),  # a lower-case letter after the digits: a plural, no code
        ("AI-2026-01 policy", []),  # a policy id: more digit groups after
        ("X-CSC3100", []),  # glued to a hyphen before it
        ("CSC31000000", []),  # too many digits
        ("课程CSC3100的期中", ["CSC3100"]),
        ("", []),
    ],
)
def test_codes_in_text_are_letters_digits_and_a_capital_suffix(text, codes):
    assert _found(text) == codes


@pytest.mark.parametrize(
    "code, whole",
    [("CSC3100", True), ("MATH101", True), ("ECON2105A", True), ("csc3100", False), ("C3100", False), ("HW3", False)],
)
def test_a_whole_normalised_code_has_the_shape(code, whole):
    assert bool(CODE_SHAPE.match(code)) is whole


@pytest.mark.parametrize("code, letters", [("CSC3100", "CSC"), ("ECON2105A", "ECON"), ("3100", "")])
def test_code_letters_is_the_prefix(code, letters):
    assert code_letters(code) == letters
