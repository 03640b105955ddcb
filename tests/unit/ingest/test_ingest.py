"""courserag.ingest.pipeline: the one parse -> chunk path of uploads, course builds and evaluation."""

from __future__ import annotations

import pytest

from courserag.config.settings import Limits, Settings
from courserag.errors import EmptyFileError, FileTooLargeError, IngestError
from courserag.ingest.parsers import ParsedDocument, parse_bytes
from courserag.ingest.pipeline import IngestConfig, file_size, ingest_file
from courserag.records import Section

FIVE_LINES = b"# Heaps\n\nA heap is a complete binary tree.\n\nIts root holds the minimum.\n"


def test_an_upload_becomes_chunks_with_its_provenance_and_unit():
    ingested = ingest_file(FIVE_LINES, "heaps.md", IngestConfig(), origin="upload", file_hash="h1")

    assert (ingested.name, ingested.doc_type, ingested.unit, ingested.units) == ("heaps.md", "md", "line", 5)
    assert ingested.warnings == ()
    assert [c.locator for c in ingested.chunks] == ["Heaps"]
    assert {(c.source, c.origin, c.course_id, c.doc_type, c.file_hash) for c in ingested.chunks} == {
        ("heaps.md", "upload", None, "md", "h1")
    }


def test_a_course_file_is_cited_by_its_path_in_the_course_folder(tmp_path):
    path = tmp_path / "week1" / "heaps.md"
    path.parent.mkdir()
    path.write_bytes(FIVE_LINES)

    ingested = ingest_file(path, "week1/heaps.md", IngestConfig(), origin="course", course_id="csc3100")

    assert ingested.name == "heaps.md"
    assert {(c.source, c.course_id) for c in ingested.chunks} == {("week1/heaps.md", "csc3100")}


def test_a_parsed_document_is_chunked_as_given():
    sections = [Section(text="First passage.", locator="p1"), Section(text="Second passage.", locator="p2")]
    document = ParsedDocument("title.txt", "txt", sections, 2, "paragraph")

    ingested = ingest_file(document, "title.txt", IngestConfig(), origin="course", course_id="c1", file_hash="f")

    assert [(c.locator, c.text) for c in ingested.chunks] == [("p1", "First passage."), ("p2", "Second passage.")]
    assert ingested.unit == "paragraph" and ingested.units == 2


def test_config_comes_from_settings():
    settings = Settings(chunk_tokens=300, chunk_overlap_tokens=30, limits=Limits(max_chunks_per_file=7))
    assert IngestConfig.of(settings) == IngestConfig(300, 30, Limits(max_chunks_per_file=7))


class _SmallWindow:
    window_tokens = 128

    @staticmethod
    def count_tokens(text: str) -> int:
        return len(text.split())


def test_chunks_fit_the_embedders_window_and_count_with_its_tokenizer():
    settings = Settings(chunk_tokens=300, chunk_overlap_tokens=80)
    config = IngestConfig.of(settings, _SmallWindow())
    assert config.chunk_tokens == 128 - 16 and config.overlap_tokens == (128 - 16) // 4
    assert config.count_tokens is _SmallWindow.count_tokens


def test_too_many_chunks_is_refused():
    data = ("\n\n".join(f"Paragraph {i} " + "word " * 60 for i in range(60))).encode()
    config = IngestConfig(chunk_tokens=100, overlap_tokens=0, limits=Limits(max_chunks_per_file=3))

    with pytest.raises(FileTooLargeError) as caught:
        ingest_file(data, "long.txt", config, origin="upload")

    assert caught.value.code == "ingest_failed" and caught.value.reason_notice.code == "too_many_chunks"
    assert str(caught.value).startswith("long.txt: it yields ") and str(caught.value).endswith(
        "passages; the limit is 3"
    )


def test_a_document_without_chunks_is_refused():
    document = ParsedDocument("blank.txt", "txt", [Section(text="  \n ", locator="lines 1-2")], 2, "line")

    with pytest.raises(IngestError) as caught:
        ingest_file(document, "blank.txt", IngestConfig(), origin="upload")

    assert str(caught.value) == "blank.txt: no text could be extracted from this file"


@pytest.mark.parametrize("size, expected", [(0, EmptyFileError), (3000, FileTooLargeError)])
def test_file_size_is_the_parsers_own_check_and_wording(tmp_path, size, expected):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"x" * size)
    limits = Limits(max_file_mb=0.001)

    with pytest.raises(expected) as before_reading:
        file_size(path, "notes.txt", limits)
    with pytest.raises(expected) as when_parsing:
        parse_bytes(path.read_bytes(), "notes.txt", limits)

    assert str(before_reading.value) == str(when_parsing.value)
    assert before_reading.value.say("zh") == when_parsing.value.say("zh")


def test_file_size_of_an_acceptable_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(FIVE_LINES)
    assert file_size(path, "notes.txt", Limits()) == len(FIVE_LINES)
