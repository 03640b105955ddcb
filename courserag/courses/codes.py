"""Course codes in questions: this course, another listed course, or one the materials do not know.

"When is the DS2010 midterm?" asked in CSC3100 is about another course: the answer says
which course that is and how to switch, instead of quoting CSC3100's midterm. "When is the
CSC3170 midterm?" names no course the app knows: a plain "not found", never CSC3100's
answer by fuzzy matching. A code that the materials mention (a prerequisite such as
MAT-2040) may be asked about, but only the units that name it can answer.

Codes are letters then three to five digits ("CSC3100", "MAT-2040", "ds 2010"); assignment
and policy ids ("HW3", "AI-2026-01") are not course codes. In a question, a code no listed
course has counts only when it is written the way codes are: its letters in capitals, or the
letters of a listed course's code ("ds 2010"), and its number not a quantity ("gets 100%" is a
score, not the course GETS100). Pure functions.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Iterable

from courserag.courses.directory import Course, CourseDirectory
from courserag.lang.course_codes import CODE_IN_TEXT, code_letters
from courserag.lang.textnorm import normalize

# Letters that start common non-course tokens with 3-5 digits ("year 2026", "page 101").
_NOT_A_CODE = frozenset(
    {"year", "page", "room", "lab", "week", "hw", "no", "id", "isbn", "sci", "lh", "ai", "utf", "iso", "gb"}
)

# What follows a number that counts something rather than names a course.
_QUANTITY = frozenset("%")


def course_codes(text: str) -> list[str]:
    """Course-code-like tokens of a text, normalised ("mat 2040" -> "MAT2040"), in order."""
    found = []
    for match in CODE_IN_TEXT.finditer(normalize(text)):  # lower case: no suffix letter
        letters, digits = match.group(1), match.group(2)
        if letters not in _NOT_A_CODE:
            code = (letters + digits).upper()
            if code not in found:
                found.append(code)
    return found


def written_as_codes(text: str, prefixes: Iterable[str] = ()) -> list[str]:
    """The codes of `text` written the way course codes are (see the module docstring):
    capital letters or a known prefix (`prefixes`, lower case), no quantity sign after."""
    known = {p.lower() for p in prefixes}
    found = []
    folded = unicodedata.normalize("NFKC", text)
    for match in CODE_IN_TEXT.finditer(folded.lower()):
        letters, digits = match.group(1), match.group(2)
        written = folded[match.start(1) : match.end(1)]
        quantity = folded[match.end(2) : match.end(2) + 1] in _QUANTITY
        if letters in _NOT_A_CODE or quantity or not (written.isupper() or letters in known):
            continue
        code = (letters + digits).upper()
        if code not in found:
            found.append(code)
    return found


def code_prefixes(codes: Iterable[str]) -> frozenset[str]:
    """The letter parts of codes ("CSC3100" -> "csc")."""
    return frozenset(code_letters(code).lower() for code in codes)


def own_codes(course: Course) -> frozenset[str]:
    """The codes a course goes by: in its id and its name ("csc3100", "CSC3100 Data Structures")."""
    return frozenset(course_codes(f"{course.id} {course.name}"))


def directory_codes(directory: CourseDirectory) -> dict[str, Course]:
    """Every listed course by each of its codes."""
    return {code: course for course in directory.courses for code in own_codes(course)}


@dataclass(frozen=True)
class CodeCheck:
    """What the codes in a question mean for the selected course."""

    own: frozenset[str]  # this course's codes named in the question
    other_courses: tuple[tuple[str, Course], ...]  # codes of other listed courses
    foreign: tuple[str, ...]  # codes of no listed course (the materials may still mention them)

    @property
    def about_another_course(self) -> bool:
        return bool(self.other_courses) and not self.own


def typo_of(code: str, known: Iterable[str]) -> str | None:
    """The known code `code` is a typo of, when it cannot be a real code itself: one digit
    missing or added ("CSC310", "CSC31000" for CSC3100). A well-formed code that differs in
    one digit ("CSC3170") is another course, never a typo."""
    letters = code_letters(code)
    digits = code[len(letters) :]
    matches = []
    for candidate in known:
        c_letters = code_letters(candidate)
        c_digits = candidate[len(c_letters) :]
        if letters == c_letters and abs(len(digits) - len(c_digits)) == 1:
            short, long_ = sorted((digits, c_digits), key=len)
            if any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_))):
                matches.append(candidate)
    return matches[0] if len(matches) == 1 else None


def check_codes(question: str, course: Course, directory: CourseDirectory) -> CodeCheck:
    """Sort the course codes of a question into this course's, other listed courses', and
    unknown ones (typos of this course's code count as this course's)."""
    mine = own_codes(course)
    listed = directory_codes(directory)
    own: set[str] = set()
    others: list[tuple[str, Course]] = []
    foreign: list[str] = []
    known = set(listed) | set(mine)
    written = set(written_as_codes(question, code_prefixes(known)))
    for code in course_codes(question):
        if code not in known and code not in written and not typo_of(code, mine):
            continue  # an ordinary word and number ("gets 100%"), not a course code
        if code in mine or typo_of(code, mine):
            own.add(code)
        elif code in listed and listed[code].id != course.id:
            others.append((code, listed[code]))
        else:
            foreign.append(code)
    return CodeCheck(frozenset(own), tuple(others), tuple(foreign))
