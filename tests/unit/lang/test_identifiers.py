"""Identifiers: found and normalised across spellings, matched with typo tolerance only for long ones."""

import pytest

from courserag.lang.identifiers import extract_identifiers, identifier_match, identifier_words


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Take CSC3100 after MAT-2040.", {"CSC3100", "MAT2040"}),
        ("HW3 is due; see policy X-2023-001", {"HW3", "X2023001"}),
        ("CS 101 and cs-102", {"CS101", "CS102"}),
        ("no ids here", set()),
        ("abc1234567", set()),  # too many digits: not an id
    ],
)
def test_extract_identifiers(text, expected):
    assert extract_identifiers(text) == expected


@pytest.mark.parametrize(
    "query, chunk_ids, expected",
    [
        (["CSC3100"], {"CSC3100"}, 1.0),
        (["CSC3010"], {"CSC3100"}, 0.5),  # transposition
        (["CSC310"], {"CSC3100"}, 0.5),  # one missing character
        (["HW3"], {"HW4"}, 0.0),  # short ids get no typo tolerance
        (["MAT2040"], {"CSC3100"}, 0.0),
        ([], {"CSC3100"}, 0.0),
    ],
)
def test_identifier_match(query, chunk_ids, expected):
    assert identifier_match(query, frozenset(chunk_ids)) == expected


def test_identifiers_ignore_function_words_before_numbers():
    assert extract_identifiers("When did the 1973 oil crisis begin in 1973?") == frozenset()
    assert extract_identifiers("Take CSC3100 after MAT-2040 and CS 101") == {"CSC3100", "MAT2040", "CS101"}


@pytest.mark.parametrize(
    "identifiers, words",
    [
        ({"MAT2040"}, {"mat2040", "mat", "2040"}),
        ({"CSC3100", "HW3"}, {"csc3100", "csc", "3100", "hw3", "hw", "3"}),
        ({"X2023001"}, {"x2023001", "x", "2023001"}),
        (set(), set()),
    ],
)
def test_a_code_is_one_identifier_however_the_question_spells_it(identifiers, words):
    assert identifier_words(identifiers) == words
