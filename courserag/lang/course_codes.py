"""Course codes, one pattern for every module that reads them: letters, digits, and an
optional capital suffix letter ("CSC3100", "MAT-2040", "ds 2010", "MATH101", "ECON2105A").

`courses/codes.py` decides what a code in a question means for the selected course,
`catalog/codes.py` resolves codes against the official catalog; both find them with
`CODE_IN_TEXT`. An *identifier* (lang/identifiers.py) is wider on purpose: any letters and
digits ("HW3", "AI-2026-01"), for ranking a chunk that names what the question names.
"""

from __future__ import annotations

import re

LETTERS = "{2,5}"  # how many letters a code starts with
DIGITS = r"\d{3,5}"  # and how many digits follow
# A whole code, normalised (upper case, no separator).
CODE_SHAPE = re.compile(rf"^([A-Z]{LETTERS})({DIGITS})([A-Z]?)$")
# A code inside free text (after NFKC): letters, an optional space or hyphen, digits, and a
# suffix letter only when written as a capital ("ECON2105A", never the "s" of "CSC3100s");
# not glued to a word or a hyphen before it, nor to more letters, digits or "-01" after it.
CODE_IN_TEXT = re.compile(rf"(?<![A-Za-z0-9-])([A-Za-z]{LETTERS})[ \-]?({DIGITS})([A-Z]?)(?![A-Za-z0-9]|-\d)")
# A code as a prerequisite expression writes it (catalog/prereq.py): any case, suffix included.
CODE_TOKEN = rf"[A-Za-z]{LETTERS}[ \-]?{DIGITS}(?:[A-Za-z]\b)?"


def code_letters(code: str) -> str:
    """The letter prefix of a code ("CSC3100" -> "CSC")."""
    return re.match(r"[A-Za-z]*", code).group(0)
