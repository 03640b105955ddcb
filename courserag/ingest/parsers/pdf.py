"""PDF (pypdf): one "page N" section per page with text.

The text layer is cleaned before chunking (parsers/cleanup.py): ligature characters become
letters, words hyphenated across line breaks are joined, and running headers and footers
are dropped, so citations read cleanly and retrieval matches whole words.
Pages without a text layer (scans) or that pypdf cannot read are skipped and named in a
warning; a PDF with no text at all is refused, since OCR is not supported.
"""

from __future__ import annotations

import io
import logging

from courserag.config.settings import Limits
from courserag.errors import CorruptFileError, EmptyFileError, EncryptedFileError, FileTooLargeError
from courserag.i18n.messages import Notice
from courserag.ingest.parsers.cleanup import clean_pages
from courserag.ingest.parsers.guard import check_pdf_content, page_drawing_key
from courserag.ingest.parsers.text import Extracted, TextBudget, clean, numbered, truncation_warning
from courserag.lang.script import CJK_CHARACTER, joins_without_space
from courserag.records import Section

logger = logging.getLogger(__name__)

# A line nearly as long as the page's longest line that ends in a Chinese character was
# wrapped by the page width; a shorter one (a title, a header, a list item) ended on purpose.
_WRAPPED_SHARE = 0.8


def _join_cjk_lines(text: str) -> str:
    """pypdf breaks lines where the page wrapped them, also between two Chinese characters;
    Chinese has no spaces, so such a break splits a word for the segmenter. Rejoin them."""
    lines = [line.strip() for line in text.split("\n")]

    def width(line: str) -> int:  # a Chinese character is about two Latin ones wide
        return len(line) + len(CJK_CHARACTER.findall(line))

    widest = max((width(line) for line in lines), default=0)
    out: list[str] = []
    previous_raw = ""
    for line in lines:
        if (
            out
            and line
            and previous_raw
            and width(previous_raw) >= _WRAPPED_SHARE * widest
            and previous_raw[-1] not in "。！？；：）」』"
            and joins_without_space(previous_raw, line)
        ):
            out[-1] += line
        else:
            out.append(line)
        previous_raw = line
    return "\n".join(out)


def _open(data: bytes, name: str, limits: Limits):
    """The reader and its page count, after the password and page-count checks."""
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
    except Exception:  # noqa: BLE001 - any parse failure means the same thing to a student
        logger.debug("pypdf could not open %s", name, exc_info=True)
        raise CorruptFileError(name, "pdf_damaged") from None

    if reader.is_encrypted:
        # Files with only an owner password ("no printing") open with the empty user password.
        try:
            opened = reader.decrypt("")
        except (DependencyError, NotImplementedError):
            raise EncryptedFileError(name, "pdf_encryption_unsupported") from None
        if not opened:
            raise EncryptedFileError(name, "pdf_locked")

    # The declared /Count is checked first: counting pages walks the whole page tree, and a
    # hostile 50 MB file can hold a million tiny pages.
    try:
        declared = int(reader.root_object["/Pages"].get_object().get("/Count", 0))
    except Exception:  # noqa: BLE001 - a broken or missing count is checked below, by walking
        declared = 0
    if declared > limits.max_pages:
        raise FileTooLargeError(name, "pdf_too_many_pages", pages=declared, limit=limits.max_pages)
    try:
        page_count = len(reader.pages)
    except FileNotDecryptedError:
        raise EncryptedFileError(name, "pdf_locked") from None
    if page_count > limits.max_pages:
        raise FileTooLargeError(name, "pdf_too_many_pages", pages=page_count, limit=limits.max_pages)
    if page_count == 0:
        raise EmptyFileError(name, "pdf_no_pages")
    check_pdf_content(reader, name, limits)
    return reader, page_count


def _page_texts(reader, page_count: int, name: str, limit: int) -> tuple[list[tuple[int, str]], list[int], int]:
    """((page number, raw text) of pages with text, unreadable page numbers, pages read);
    reading stops once `limit` characters were extracted."""
    pages: list[tuple[int, str]] = []
    broken: list[int] = []
    chars = 0
    pages_read = 0
    drawn: dict[tuple, str] = {}  # what a page draws -> its text: a shared stream is interpreted once
    for number in range(1, page_count + 1):
        pages_read = number
        try:
            page = reader.pages[number - 1]
            key = page_drawing_key(page)
            raw = drawn[key] if key in drawn else page.extract_text() or ""
            if key is not None:
                drawn[key] = raw
        except Exception:  # noqa: BLE001 - one bad page must not lose the others
            logger.debug("pypdf could not read page %d of %s", number, name, exc_info=True)
            broken.append(number)
            continue
        pages.append((number, raw))
        chars += len(raw)
        if chars > limit:
            break
    return pages, broken, pages_read


def parse_pdf(data: bytes, name: str, limits: Limits) -> Extracted:
    reader, page_count = _open(data, name, limits)
    budget = TextBudget(limits.max_text_chars)
    raw_pages, broken, pages_read = _page_texts(reader, page_count, name, limits.max_text_chars)
    # Ligatures, running headers/footers and hyphenation are fixed across the whole file
    # (cleanup.py): a running line is only recognisable by its repetition on other pages.
    cleaned = clean_pages([clean(raw) for _, raw in raw_pages])
    sections: list[Section] = []
    blank: list[int] = []
    for (number, _), page_text in zip(raw_pages, cleaned):
        text = _join_cjk_lines(page_text).strip()
        if not text:
            blank.append(number)
            continue
        sections.append(Section(text=budget.take(text), locator=f"page {number}"))
        if budget.exhausted:
            break

    if not sections:
        if broken and len(broken) == pages_read:
            raise CorruptFileError(name, "pdf_pages_unreadable")
        raise EmptyFileError(name, "pdf_no_text")
    warnings: list[Notice] = []
    if blank:
        warnings.append(numbered("page_no_text", "pages_no_text", blank))
    if broken:
        warnings.append(numbered("page_unreadable", "pages_unreadable", broken))
    if budget.exhausted:
        warnings.append(truncation_warning(limits.max_text_chars))
    return Extracted(sections, pages_read, warnings)
