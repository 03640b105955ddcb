"""Course codes and titles as a learner types them, resolved against the catalog.

`csc3100`, `CSC 3100`, `CSC-3100` and full-width `ＣＳＣ３１００` are one code. A code
that is not in the catalog is "not in the catalog", never the nearest real one, with one
exception: a typing slip (one character added, dropped, changed or two swapped) that cannot
itself be a code of this catalog, because its letters are no prefix the catalog uses or
its digit count is one no code with those letters has, and that is one slip from exactly
one catalog code ("CSV3100", "CSC310" for CSC3100). "CSC3170" is well formed: it may be a
real course the catalog does not list, so it is never read as CSC3100. Every other code the
catalog lacks is refused, naming the catalog codes near it (one slip away, or the same number
under another of its prefixes): "CSC3170 is not in the catalog. Did you mean CSC3100, CSC3150
or CSC3180?" A near code is only ever suggested there, never answered for.

A code-shaped token counts as a code when it is written as one: its letters in capitals or
letters the catalog's codes use ("csc 3100"), or it resolves ("csv3150"); "year 2026" does not.

A slip is looked up, not searched for: `slip_index` (built once per catalog) files every
code under itself and each of its one-character deletions, and two codes one slip apart
always share such a key, so a typed code is compared only with the few codes it shares a
key with, never with the whole catalog (issue 40: 494,000 comparisons, over half a second of
CPU, for one 2,000-character question over 2,000 courses). And only the first
`MAX_SLIP_TOKENS` code-like tokens of a question that need the check get it.

Pure functions over a `Catalog`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from courserag.catalog.model import Catalog, CatalogCourse
from courserag.lang.course_codes import CODE_IN_TEXT, CODE_SHAPE


def normalize_code(text: str) -> str:
    """ "csc 3100", "CSC-3100", "ＣＳＣ３１００" -> "CSC3100" (no validation)."""
    if CODE_SHAPE.match(text):
        return text
    folded = unicodedata.normalize("NFKC", text).upper()
    return re.sub(r"[\s\-_.]+", "", folded)


def is_code(text: str) -> bool:
    return bool(CODE_SHAPE.match(normalize_code(text)))


def codes_in(text: str) -> list[tuple[str, int]]:
    """The code-shaped tokens of a text, normalised, with where each starts, in order."""
    folded = unicodedata.normalize("NFKC", text)
    return [((m.group(1) + m.group(2) + m.group(3)).upper(), m.start()) for m in CODE_IN_TEXT.finditer(folded)]


def one_slip(a: str, b: str) -> bool:
    """True when `a` and `b` differ by one inserted, deleted or changed character, or two
    neighbouring characters swapped (a typing slip)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
        if len(diff) == 1:
            return True
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def _could_be_real(code: str, catalog: Catalog) -> bool:
    """A well-formed code of this catalog's scheme: known letters, and a digit count (with a
    suffix letter or without) that codes with those letters have."""
    match = CODE_SHAPE.match(code)
    if not match:
        return False
    letters, digits, suffix = match.groups()
    return _shape(digits, suffix) in catalog.digit_counts.get(letters, ())


def _shape(digits: str, suffix: str) -> int:
    """A code's digit count, negative when a suffix letter follows (ECON2105A: -4)."""
    return -len(digits) if suffix else len(digits)


def digit_counts(codes) -> dict[str, frozenset[int]]:
    """Letters -> the digit counts codes with those letters have, negative for codes with a
    suffix letter (built once, load.py)."""
    counts: dict[str, set[int]] = {}
    for known in codes:
        m = CODE_SHAPE.match(known)
        if m:
            counts.setdefault(m.group(1), set()).add(_shape(m.group(2), m.group(3)))
    return {k: frozenset(v) for k, v in counts.items()}


# A learner's question names a course or a few; one with more than this many code-like tokens
# that are not catalog codes is a list, not a slip to correct. Later ones are "not in the
# catalog", as any unknown code, with no near codes named, and cost no look-up.
MAX_SLIP_TOKENS = 8


def _deletions(code: str) -> set[str]:
    return {code[:i] + code[i + 1 :] for i in range(len(code))}


def slip_index(codes) -> dict[str, tuple[str, ...]]:
    """Every code and each of its one-character deletions -> the codes filed under it
    (built once per catalog, load.py). Codes one slip apart share a key: a changed
    character (both with it deleted), a dropped or added one (the shorter is a deletion of
    the longer), two swapped (each with one of the two deleted)."""
    index: dict[str, list[str]] = {}
    for code in codes:
        for key in _deletions(code) | {code}:
            index.setdefault(key, []).append(code)
    return {key: tuple(found) for key, found in index.items()}


def slip_candidates(code: str, catalog: Catalog) -> set[str]:
    """The catalog codes that share a key of `slip_index` with `code`: every code one slip
    from it is among them, and few others."""
    found: set[str] = set()
    for key in _deletions(code) | {code}:
        found.update(catalog.slip_index.get(key, ()))
    return found


# The most near codes a refusal names: a large catalog can have a dozen codes one digit
# from a typed one, and a list that long helps no one choose.
MAX_NEAR = 4


def slips_of(code: str, catalog: Catalog) -> set[str]:
    """The catalog courses (own codes) one of whose codes is one slip from `code`."""
    return {catalog.aliases[k] for k in slip_candidates(code, catalog) if one_slip(code, k)}


def same_number(code: str, catalog: Catalog) -> set[str]:
    """The catalog courses (own codes) with `code`'s number and suffix under another of the
    catalog's prefixes ("ECE3050" -> CSC3050): one dictionary look-up per prefix."""
    match = CODE_SHAPE.match(code)
    if not match:
        return set()
    letters, number = match.group(1), match.group(2) + match.group(3)
    codes = (prefix + number for prefix in catalog.digit_counts if prefix != letters)
    return {catalog.aliases[k] for k in codes if k in catalog.aliases}


@dataclass(frozen=True)
class Resolved:
    """What a typed code or title names."""

    typed: str  # as normalised
    course: CatalogCourse | None
    how: str  # "code", "alias" (cross-listed or former code), "typo", "title", "unknown"
    near: tuple[str, ...] = ()  # for an unknown code: catalog codes it may have meant, to name


def resolve_code(typed: str, catalog: Catalog, correct: bool = True) -> Resolved:
    """The catalog course a typed code names, or `how="unknown"` with the codes near it (see
    the module docstring); with `correct` False, near codes are not looked for.

    The one rule: a code is read as another only when it cannot be a code of this catalog
    and exactly one catalog course is one slip from it; otherwise it is unknown, and every
    course near it (by a slip or by its number) is only suggested."""
    code = normalize_code(typed)
    own = catalog.aliases.get(code)
    if own:
        return Resolved(code, catalog.courses[own], "code" if own == code else "alias")
    if not correct:
        return Resolved(code, None, "unknown")
    slips = slips_of(code, catalog)
    if len(slips) == 1 and not _could_be_real(code, catalog):
        return Resolved(code, catalog.courses[slips.pop()], "typo")
    near = sorted(slips) + sorted(same_number(code, catalog) - slips)
    return Resolved(code, None, "unknown", tuple(near[:MAX_NEAR]))


def fold_title(text: str) -> str:
    """Titles and questions compared alike: NFKC, case-folded, single spaces."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


_WORDS = re.compile(r"[a-z0-9]+")
MAX_TITLE_WORDS = 10
# Words a title may be typed with or without ("Design & Analysis of Algorithms").
_GLUE = frozenset({"a", "an", "and", "for", "in", "of", "on", "the", "to"})


def _stem(word: str) -> str:
    """A title word without its plural ending, so that "operating system" names Operating
    Systems; applied alike to titles and questions, so only the two sides need agree."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _title_words(folded: str) -> list[tuple[int, int, str]]:
    """(start, end, word as compared) of the words of a folded English text, without the
    words a title may be typed without."""
    return [(m.start(), m.end(), _stem(m.group(0))) for m in _WORDS.finditer(folded) if m.group(0) not in _GLUE]


def _word_key(folded: str) -> str:
    return " ".join(word for _, _, word in _title_words(folded))


def title_tables(courses) -> tuple[dict[str, str], dict[str, str]]:
    """(English titles by their words, other titles without spaces) -> own code, for
    titles that name one course only; built once per catalog (load.py)."""
    seen: dict[tuple[bool, str], set[str]] = {}
    for course in courses:
        for title in (course.title_en, course.title_zh, *course.former_titles):
            folded = fold_title(title)
            if not folded:
                continue
            key = (True, _word_key(folded)) if folded.isascii() else (False, folded.replace(" ", ""))
            if key[1]:
                seen.setdefault(key, set()).add(course.code)
    ascii_titles = {k: c.pop() for (is_ascii, k), c in seen.items() if is_ascii and len(c) == 1}
    other = {k: c.pop() for (is_ascii, k), c in seen.items() if not is_ascii and len(c) == 1}
    return ascii_titles, other


# A title of one English word, or of two Chinese characters, is also a common word ("an
# algorithm", "演算法"): it names its course only as written (one word, exactly), and a
# two-character one not at all inside other text; longer titles name theirs loosely typed.
MIN_TITLE_CHARS = 3


def _written_as_title(word: str, course: CatalogCourse) -> bool:
    """Whether a single word is one of the course's one-word English titles, as written
    ("Algorithms", not "algorithm")."""
    return any(fold_title(title) == word for title in (course.title_en, *course.former_titles))


def titles_in(text: str, catalog: Catalog) -> list[tuple[CatalogCourse, int]]:
    """Courses whose title (English, Chinese or former) the text names, by dictionary
    look-ups of its word runs and character runs (no scan over every title); the longest
    match wins where titles overlap ("Calculus II" over "Calculus I"), in order of position.
    English titles match loosely typed: any case and punctuation, singular or plural, with
    or without "and", "of", "the" (`_title_words`), except titles that are one common word
    (MIN_TITLE_CHARS)."""
    folded = fold_title(text)
    found: list[tuple[int, int, str]] = []  # (start, end, own code) in `folded`
    words = _title_words(folded)
    for i in range(len(words)):
        for n in range(min(MAX_TITLE_WORDS, len(words) - i), 0, -1):
            key = " ".join(w for _, _, w in words[i : i + n])
            own = catalog.titles_en.get(key)
            if own and (n > 1 or _written_as_title(folded[words[i][0] : words[i][1]], catalog.courses[own])):
                found.append((words[i][0], words[i + n - 1][1], own))
                break
    if catalog.titles_other:
        longest = max(map(len, catalog.titles_other))
        chars = [(i, ch) for i, ch in enumerate(folded) if ch != " "]
        flat = "".join(ch for _, ch in chars)
        for i in range(len(flat)):
            for n in range(min(longest, len(flat) - i), MIN_TITLE_CHARS - 1, -1):
                own = catalog.titles_other.get(flat[i : i + n])
                if own:
                    found.append((chars[i][0], chars[i + n - 1][0] + 1, own))
                    break
    kept: list[tuple[int, int, str]] = []
    for start, end, own in sorted(found, key=lambda f: (-(f[1] - f[0]), f[0])):
        if all(end <= s or start >= e for s, e, _ in kept):
            kept.append((start, end, own))
    return [(catalog.courses[own], start) for start, _, own in sorted(kept)]


def written_as_code(folded: str, at: int, code: str, catalog: Catalog) -> bool:
    """Whether the code-shaped token at `at` of the NFKC text is written the way codes are:
    its letters in capitals, or letters the catalog's codes use ("csc 3100", not "year 2026")."""
    letters = CODE_SHAPE.match(code).group(1)
    return folded[at : at + len(letters)].isupper() or letters in catalog.digit_counts


def mentions(text: str, catalog: Catalog) -> list[tuple[Resolved, int]]:
    """Every course the text names, by code or by title, in order of position (a code
    inside a title match counts once); an unknown code only when written as one."""
    out: list[tuple[Resolved, int]] = []
    folded = unicodedata.normalize("NFKC", text)
    checks = 0  # tokens looked up for a slip or near codes: at most MAX_SLIP_TOKENS
    for code, at in codes_in(text):
        check = code not in catalog.aliases
        resolved = resolve_code(code, catalog, correct=check and checks < MAX_SLIP_TOKENS)
        checks += check
        if resolved.course is not None or written_as_code(folded, at, code, catalog):
            out.append((resolved, at))
    for course, at in titles_in(text, catalog):
        if not any(r.course is not None and r.course.code == course.code for r, _ in out):
            out.append((Resolved(fold_title(course.title_en), course, "title"), at))
    return sorted(out, key=lambda pair: pair[1])
