"""The whole engine on the sample courses: real parsers, real embeddings, real indexes."""

import re
from dataclasses import replace

import pytest

from courserag.answers.focus import mentions
from courserag.answers.llm import ChatAnswerer
from courserag.config.settings import Limits
from courserag.engine.facade import RagEngine
from courserag.engine.retriever import Retriever
from courserag.errors import CourseRagError, UnknownCourseError
from courserag.retrieval.answer_items import answer_items
from courserag.retrieval.followup import ordinal_of
from tests.llm_server import start_fake_llm

UPLOAD_FACT = "The secret study group for data structures meets in room Q-77 every Saturday at 9 am."


@pytest.fixture
def notes(tmp_path):
    path = tmp_path / "my_notes.md"
    path.write_text(
        f"# My notes\n\n## Study group\n\n{UPLOAD_FACT}\n\n## Other\n\nRemember to sleep.\n", encoding="utf-8"
    )
    return path


def sources(answer):
    return [(c["source"], c["origin"], c["course_id"]) for c in answer.citations]


def test_english_course_answer_is_grounded_and_cited(engine):
    answer = engine.ask("csc3100", "What is the late policy for homework?")
    assert not answer.refused
    assert answer.citations and answer.citations[0]["source"] == "syllabus.md"
    # The policy itself (10% a day), each quote marked with the number of a listed citation.
    assert "10%" in answer.answer
    marks = {int(n) for n in re.findall(r"\[(\d+)\]", answer.answer)}
    assert marks and marks <= set(range(1, len(answer.citations) + 1))
    assert all(c["course_id"] == "csc3100" and c["origin"] == "course" for c in answer.citations)
    assert set(answer.timings_ms) == {"retrieval", "answer", "total"}


def test_chinese_course_answer_is_grounded_and_cited(engine):
    answer = engine.ask("ds2010", "作业迟交超过48小时会怎样？")
    assert not answer.refused
    assert answer.citations[0]["source"] == "课程大纲.md"
    assert "0 分" in answer.citations[0]["text"] or "0分" in answer.citations[0]["text"]
    assert answer.answer.startswith("根据资料")


@pytest.mark.parametrize(
    "course, question",
    [
        ("csc3100", "What is the capital of France?"),
        ("ds2010", "法国的首都是哪里？"),
        ("csc3100", "Who won the 1998 football world cup?"),
    ],
)
def test_unrelated_questions_are_refused(engine, course, question):
    answer = engine.ask(course, question)
    assert answer.refused and answer.citations == []
    assert "won't guess" in answer.answer or "不作猜测" in answer.answer


def test_course_isolation(engine):
    # A question about the Chinese course's content, asked in the English course.
    answer = engine.ask("csc3100", "DS2010 的学术诚信规定文件编号是什么？")
    assert all(c["course_id"] == "csc3100" for c in answer.citations)
    answer = engine.ask("ds2010", "DS2010 的学术诚信规定文件编号是什么？")
    assert answer.citations and all(c["course_id"] == "ds2010" for c in answer.citations)


def test_exact_identifier_ranks_first(engine):
    retrieval = engine.retrieve("csc3100", "Do I need MAT-2040 before this course?")
    assert "MAT-2040" in retrieval.items[0].text


def test_a_prerequisite_question_about_this_course_that_the_syllabus_answers_is_answered_from_it(engine):
    # The catalog's answer competed with the syllabus's rule for MAT-2040, which answers better
    # (a question only the catalog answers is the catalog's: tests/unit/engine/test_catalog_competes.py).
    answer = engine.ask("csc3100", "Do I need MAT-2040 before this course?")
    assert answer.mode != "catalog" and "MAT-2040" in answer.answer
    assert answer.citations[0]["source"] == "syllabus.md" and "MAT-2040" in answer.citations[0]["text"]


def test_answer_only_in_upload(engine, notes):
    result = engine.add_upload("s1", notes)
    assert result.ok and result.chunks_added >= 1, result
    answer = engine.ask("csc3100", "Where does the secret study group meet?", session_id="s1")
    assert not answer.refused
    assert answer.citations[0]["origin"] == "upload" and answer.citations[0]["source"] == "my_notes.md"
    assert answer.citations[0]["course_id"] is None
    assert "Q-77" in answer.answer


def test_sessions_never_see_each_others_uploads(engine, notes):
    engine.add_upload("alice", notes)
    other = engine.ask("csc3100", "Where does the secret study group meet?", session_id="bob")
    assert all(c["origin"] == "course" for c in other.citations)
    assert "Q-77" not in other.answer


def test_course_candidates_get_their_best_sentence_and_notes_keep_their_chunk_similarity(engine, notes):
    """Every course candidate of two or more sentences has its best sentence scored from
    stored vectors (sentences.py); one-sentence chunks and the notes (uploads embed no
    sentences: SessionPool.sentence_vectors) keep their own similarity."""
    from courserag.ingest.chunking import split_sentences

    engine.add_upload("s1", notes)
    pool = engine.sessions.peek("s1")
    vector = engine.embedder.embed_query_for("Where does the secret study group meet?", False)
    candidates = engine.store.vector_search("csc3100", vector, 20) + pool.vector_search(vector, 5)
    assert any(c.chunk.origin == "upload" for c in candidates)
    best = Retriever(engine.parts).best_sentences("csc3100", pool, candidates, vector)
    several = {c.chunk.id for c in candidates if c.chunk.origin == "course" and len(split_sentences(c.chunk.text)) > 1}
    assert several and set(best) == several
    assert all(-1.0 <= score <= 1.01 for score in best.values())


def test_session_index_is_cached_not_rebuilt_per_query(engine, notes, tmp_path):
    engine.add_upload("s1", notes)
    second = tmp_path / "more.txt"
    second.write_text("Binary heaps keep the smallest key at the root.\n" * 3, encoding="utf-8")
    engine.add_upload("s1", second)
    pool = engine.sessions.peek("s1")
    before = (pool.index.builds, pool.index.extends, pool.embedded_texts)
    for question in ["Where does the study group meet?", "What is a heap?", "late policy?"] * 3:
        engine.ask("csc3100", question, session_id="s1")
    assert (pool.index.builds, pool.index.extends, pool.embedded_texts) == before == (0, 2, before[2])


def test_reupload_of_identical_content_embeds_nothing(engine, notes, tmp_path):
    engine.add_upload("s1", notes)
    pool = engine.sessions.peek("s1")
    embedded = pool.embedded_texts
    again = engine.add_upload("s1", notes)
    assert again.ok and again.duplicate
    copy = tmp_path / "copy_of_notes.md"
    copy.write_bytes(notes.read_bytes())
    assert engine.add_upload("s1", copy).ok
    assert pool.embedded_texts == embedded


def test_remove_upload_removes_its_answers(engine, notes):
    engine.add_upload("s1", notes)
    assert engine.remove_upload("s1", "my_notes.md")
    answer = engine.ask("csc3100", "Where does the secret study group meet?", session_id="s1")
    assert all(c["origin"] == "course" for c in answer.citations)
    assert engine.uploads("s1") == []


def test_end_session_releases_pool(engine, notes):
    engine.add_upload("s1", notes)
    engine.end_session("s1")
    assert engine.sessions.peek("s1") is None


@pytest.mark.parametrize("scope, origins", [("notes", {"upload"}), ("course", {"course"})])
def test_scope(engine, notes, scope, origins):
    engine.add_upload("s1", notes)
    answer = engine.ask("csc3100", "study group room and late policy", session_id="s1", scope=scope)
    assert {c["origin"] for c in answer.citations} <= origins


def test_a_markdown_upload_is_counted_in_lines(engine, tmp_path):
    five_lines = tmp_path / "five.md"
    five_lines.write_text(
        "# Heaps\n\nA heap is a complete binary tree.\n\nIts root holds the minimum.\n", encoding="utf-8"
    )
    result = engine.add_upload("s1", five_lines)
    assert result.ok and (result.unit, result.units) == ("line", 5)
    assert "5 lines read" in result.say("en") and "读取 5 行" in result.say("zh")
    assert [(f.unit, f.units) for f in engine.uploads("s1")] == [("line", 5)]
    assert engine.add_upload("s1", five_lines).unit == "line"  # the duplicate says so too


def test_an_oversized_upload_is_refused_with_the_one_size_message(engine, tmp_path, monkeypatch):
    big = tmp_path / "big.txt"
    big.write_bytes(b"lecture notes\n" * 200)
    monkeypatch.setattr(engine, "settings", replace(engine.settings, limits=Limits(max_file_mb=0.001)))
    result = engine.add_upload("s1", big)
    assert not result.ok and result.error == "big.txt: the file is 3 KB, over the upload limit of 0.001 MB"
    assert engine.uploads("s1") == []


def test_bad_upload_keeps_session_working(engine, notes, tmp_path):
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 10)
    result = engine.add_upload("s1", bad)
    assert not result.ok and "broken.pdf" in result.error and "Traceback" not in result.error
    assert engine.add_upload("s1", notes).ok
    assert not engine.ask("csc3100", "Where does the secret study group meet?", session_id="s1").refused


def test_unknown_course_is_a_clear_error(engine):
    with pytest.raises(UnknownCourseError, match="unknown course id 'nope'"):
        engine.ask("nope", "anything")


def test_empty_question(engine):
    with pytest.raises(CourseRagError, match="type a question"):
        engine.ask("csc3100", "   ")


@pytest.mark.parametrize("catalog", [True, False])
def test_a_lone_surrogate_in_the_question_or_history_is_refused_or_answered_never_a_crash(engine, catalog):
    if not catalog:
        engine = RagEngine(replace(engine.settings, catalog=None), engine.directory, engine.store, engine.embedder)
    answer = engine.ask("csc3100", "\ud800")
    assert answer.refused and answer.answer
    answer = engine.ask(
        "csc3100", "What is the late policy?\ud800", history=["\ud800 hello", {"role": "user", "content": "\ud800"}]
    )
    assert not answer.refused and answer.citations


def test_followup_uses_history(engine):
    answer = engine.ask("ds2010", "那 ECE 专业呢？", history=["计算机科学专业的学生什么时候修这门课？"])
    assert "ECE" in answer.query and not answer.refused
    assert any("ECE" in c["text"] for c in answer.citations)


def _turn(answer, question):
    return [{"role": "user", "content": question}, {"role": "assistant", "content": answer.answer}]


@pytest.mark.parametrize(
    "course, listing, followup",
    [
        ("csc3100", "What are the four rotation cases?", "What about the second one?"),
        ("csc3100", "What are the five red-black properties?", "And the fourth one?"),
        ("ds2010", "课程的评分由哪几部分组成？", "第二个呢？"),
    ],
)
def test_followup_ordinal_answers_that_item_of_the_list(engine, course, listing, followup):
    """ "What about the second one?" after a list is about its second item, quoted from and
    citing the source that holds it, not the list again (issue 19, item 6)."""
    first = engine.ask(course, listing)
    items = answer_items(first.answer)
    assert len(items) >= 2, first.answer
    index = ordinal_of(followup)
    second = engine.ask(course, followup, history=_turn(first, listing))
    wanted, others = items[index - 1], [item for n, item in enumerate(items) if n != index - 1]
    assert second.focus == wanted and not second.refused
    assert mentions(second.answer, wanted), second.answer
    assert not any(mentions(second.answer, other) for other in others), second.answer
    # The cited source holds the item (a table row's first cell: rows are quoted "cell — header: value").
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", second.answer)}
    key = re.split(r" — |: ", wanted)[0]
    assert cited and any(mentions(c["text"], key) for c in second.citations if c["n"] in cited)


def test_followup_pronoun_stands_for_the_person_asked_about(engine):
    first = "李明华老师的答疑时间是什么时候？"
    answer = engine.ask("ds2010", "她的邮箱是什么？", history=[first])
    assert answer.query == "李明华老师的邮箱是什么？"
    assert "li.minghua@example.edu.cn" in answer.answer


def test_context_respects_token_budget(engine):
    answer = engine.ask("csc3100", "Explain hashing, trees, graphs and sorting")
    counts = [engine.embedder.count_tokens(c["text"]) for c in answer.citations]
    assert all(n <= engine.settings.retrieval.max_chunk_tokens + 2 for n in counts)
    assert sum(counts) <= engine.settings.retrieval.context_token_budget + 2 * len(counts)


def _with_llm(engine, url):
    return RagEngine(
        engine.settings,
        engine.directory,
        engine.store,
        engine.embedder,
        answerer=ChatAnswerer(url, "fake", "sk-hidden-key", timeout_s=2),
    )


def test_llm_answer_streams_and_cites(engine):
    server = start_fake_llm()
    try:
        llm_engine = _with_llm(engine, server.base_url)
        updates = list(llm_engine.answer_stream("csc3100", "What is the late policy for homework?"))
        partial, final = updates[:-1], updates[-1]
        assert partial and all(isinstance(u, str) for u in partial)
        assert final.mode == "llm" and "[1]" in final.answer and final.citations
        prompt = server.requests[0]["messages"][1]["content"]
        assert '<source n="1" file="syllabus.md"' in prompt
    finally:
        server.stop()


def test_a_question_below_the_relevance_gate_never_reaches_the_llm(engine):
    """Below the gate retrieval is not confident: the extractive decision may still weigh
    what it found, an LLM is not asked (courserag/engine/router.py)."""
    question = "What is the capital of France?"
    retrieval = engine.retrieve("csc3100", question)
    assert not retrieval.confident
    server = start_fake_llm()
    try:
        answer = _with_llm(engine, server.base_url).ask("csc3100", question)
        assert answer.refused and answer.citations == [] and server.requests == []
    finally:
        server.stop()


def test_llm_says_not_in_materials_becomes_refusal(engine):
    server = start_fake_llm("refuse")
    try:
        answer = _with_llm(engine, server.base_url).ask("csc3100", "What is the late policy for homework?")
        assert answer.refused and answer.citations == []
    finally:
        server.stop()


@pytest.mark.parametrize("mode", ["error500", "malformed", "truncated"])
def test_llm_failure_falls_back_to_extractive_with_warning(engine, mode):
    server = start_fake_llm(mode)
    try:
        answer = _with_llm(engine, server.base_url).ask("csc3100", "What is the late policy for homework?")
        assert answer.mode == "extractive" and answer.citations and not answer.refused
        assert any("language model" in w for w in answer.warnings)
        assert not any("sk-hidden-key" in w for w in answer.warnings)
    finally:
        server.stop()


def test_followup_is_rewritten_by_the_llm_when_configured(engine):
    server = start_fake_llm()
    try:
        answer = _with_llm(engine, server.base_url).ask(
            "csc3100", "and for exams?", history=["What is the late policy for homework?"]
        )
        assert answer.query == "rewritten: and for exams? (late policy)"
        rewrite_request = server.requests[0]
        assert rewrite_request.get("stream") in (None, False)
        assert "What is the late policy for homework?" in rewrite_request["messages"][1]["content"]
    finally:
        server.stop()


def test_overlong_question_is_refused_before_any_work(engine):
    with pytest.raises(CourseRagError, match="characters long"):
        engine.ask("csc3100", "why " * 1000)


def test_from_settings_wires_the_parts_without_loading_the_model(monkeypatch, tmp_path):
    """Sizing the stores needs the model's dim, which its folder's configuration gives."""
    import courserag.engine.facade as engine_module
    from courserag.config.settings import Settings
    from courserag.embedders import get_embedder

    # A fresh embedder: the process-wide one may already be loaded by other tests.
    monkeypatch.setattr(engine_module, "get_embedder", get_embedder.__wrapped__)
    engine = RagEngine.from_settings(Settings(data_dir=tmp_path / "data"))
    assert engine.embedder.dim == 384 + 512  # multilingual-e5-small beside USE multilingual v3
    e5, use = (model for model, _ in engine.embedder.inner.parts)
    assert not e5.loaded and use._model is None
    minilm = RagEngine.from_settings(Settings(data_dir=tmp_path / "data", embedding_model="all-MiniLM-L6-v2"))
    assert minilm.embedder.dim == 384 and minilm.embedder.inner._model is None


# -- course facts from the course directory, and newer notices first (issue 13) ----------


@pytest.mark.parametrize(
    "course, question, name",
    [
        ("csc3100", "Who teaches CSC3100?", "Marsh"),
        ("csc3100", "Who is the instructor?", "Marsh"),
        ("ds2010", "这门课的老师是谁？", "李明华"),
        ("ds2010", "谁教这门课", "李明华"),
    ],
)
def test_the_course_directory_says_who_teaches_the_course_with_a_checkable_citation(engine, course, question, name):
    import json
    from dataclasses import replace

    from courserag.ui.rendering.render import course_link, render_citations

    # Without a catalog (with one, the catalog's sections say who teaches: test_catalog_answers.py).
    engine = RagEngine(replace(engine.settings, catalog=None), engine.directory, engine.store, engine.embedder)
    answer = engine.ask(course, question)
    assert not answer.refused and name in answer.answer
    directory = [c for c in answer.citations if c["source"] == "course_directory.yaml"]
    assert directory and directory[0]["locator"] == "course directory > instructors"
    assert directory[0]["origin"] == "course" and directory[0]["course_id"] == course
    assert json.loads(json.dumps(answer.to_json()))["citations"] == answer.citations
    docs = {c.id: c.docs for c in engine.courses}
    assert course_link(docs, directory[0]) is None  # no course file to open
    assert "course_directory.yaml" in render_citations(answer.citations, "en", docs, answer.answer)


def test_directory_facts_never_take_a_material_passages_place(engine):
    # The directory's passages may join the evidence, but every passage of the materials stays.
    question = "What is the late policy for homework?"
    answer = engine.ask("csc3100", question)
    material = [c for c in answer.citations if c["source"] != "course_directory.yaml"]
    assert len(material) == min(len(answer.citations), engine.settings.retrieval.top_k)
    assert "course_directory.yaml" not in answer.answer


def test_a_dated_notice_of_a_change_is_quoted_before_the_older_syllabus(tmp_path, embedder):
    from courserag.config.settings import Settings
    from courserag.courses.directory import load_course_directory
    from courserag.courses.indexer import build_course
    from courserag.stores import LocalCourseStore

    folder = tmp_path / "courses" / "bio1010"
    folder.mkdir(parents=True)
    (folder / "syllabus.md").write_text(
        "# BIO1010 Cell Biology\n\n## Midterm exam\n\nThe midterm exam is held on 2026-10-21 in room A-101.\n\n"
        "## Grading\n\nHomework counts 30% and the final exam 70%.\n",
        encoding="utf-8",
    )
    (folder / "notices.txt").write_text(
        "BIO1010 notices\n\n[2026-10-02] Welcome\nLabs start in week 2.\n\n"
        "[2026-10-12] Midterm exam room changed\nThe midterm exam has moved to Lecture Hall LH-7.\n",
        encoding="utf-8",
    )
    (tmp_path / "course_directory.yaml").write_text(
        "courses:\n  - id: bio1010\n    name: BIO1010 Cell Biology\n    description: Cells.\n    language: en\n"
        '    docs: courses/bio1010\n    instructors: ["Dr. Mae Jemison"]\n',
        encoding="utf-8",
    )
    settings = Settings(data_dir=tmp_path / "data")
    store = LocalCourseStore(tmp_path / "data" / "index", embedder.dim)
    directory = load_course_directory(tmp_path / "course_directory.yaml")
    build_course(directory.get("bio1010"), store, embedder, settings)
    engine = RagEngine(settings, directory, store, embedder)
    answer = engine.ask("bio1010", "Which room is the midterm exam in?")
    assert not answer.refused
    quotes = [line for line in answer.answer.splitlines() if line.startswith("- ")]
    assert "LH-7" in quotes[0], answer.answer
    if any("A-101" in line for line in quotes):
        assert "2026-10-12" in answer.answer  # the answer says which statement is newer
    assert "Jemison" not in answer.answer
