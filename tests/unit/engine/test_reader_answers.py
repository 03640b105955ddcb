"""An engine given the reader's weights (READER_WEIGHTS) answers with the reader, and one given
a missing or altered file does not start. The reader here is a tiny training run (a few steps),
so what it quotes is not judged: that it quotes, cites and refuses through the engine is."""

from __future__ import annotations

import re

import pytest

from courserag.config.settings import Settings
from courserag.courses.directory import load_course_directory
from courserag.engine.facade import RagEngine
from courserag.reader.delta import ReaderWeightsError
from courserag.stores import LocalCourseStore
from tests.conftest import SAMPLE_DIRECTORY


@pytest.fixture(scope="module")
def tiny_reader(tmp_path_factory):
    pytest.importorskip("torch", reason="training the tiny reader needs torch (requirements-minilm.txt)")
    pytest.importorskip("transformers", reason="training the tiny reader needs transformers")
    from training.reader.export import export_delta
    from training.reader.sets import data_root
    from training.reader.train import TrainConfig, train

    if not (data_root() / "mlqa_dev_en" / "data.json").is_file():
        pytest.skip(f"the shared training sets are not at {data_root()} (set SHARED_TRAIN)")
    folder = tmp_path_factory.mktemp("tiny-reader")
    config = TrainConfig(sets=("mlqa_dev_en",), steps=2, batch_size=2, max_tokens=96, stride=48, trainable_layers=1)
    train(config, folder / "run", threads=1)
    target = folder / "reader.safetensors"
    export_delta(folder / "run", target, "int8")
    return target


def engine_with(data_dir, embedder, **settings) -> RagEngine:
    store = LocalCourseStore(data_dir / "index", embedder.dim)
    return RagEngine(Settings(data_dir=data_dir, **settings), load_course_directory(SAMPLE_DIRECTORY), store, embedder)


def test_an_engine_whose_reader_weights_are_missing_stops_at_start_naming_the_file(
    built_sample_data, embedder, tmp_path
):
    missing = tmp_path / "reader.safetensors"
    with pytest.raises(ReaderWeightsError, match=str(missing)):
        engine_with(built_sample_data, embedder, reader_weights=missing)


def test_an_engine_whose_reader_weights_were_altered_stops_at_start(built_sample_data, embedder, tiny_reader, tmp_path):
    altered = tmp_path / "reader.safetensors"
    altered.write_bytes(tiny_reader.read_bytes()[:-1] + b"\x01")
    altered.with_suffix(".json").write_text(tiny_reader.with_suffix(".json").read_text())
    with pytest.raises(ReaderWeightsError, match="not the file its manifest describes"):
        engine_with(built_sample_data, embedder, reader_weights=altered)


def test_the_reader_quotes_a_cited_source_when_it_answers(built_sample_data, embedder, tiny_reader, tmp_path):
    engine = engine_with(
        built_sample_data, embedder, reader_weights=tiny_reader, reader_threshold=1e-6, model_cache_dir=tmp_path
    )
    answer = engine.ask("csc3100", "When is the final exam?")
    assert not answer.refused and answer.mode == "extractive"
    quoted = [line[2:].rsplit(" [", 1) for line in answer.answer.splitlines() if line.startswith("- ")]
    assert quoted
    for text, cited in quoted:
        n = int(cited.rstrip("]"))
        source = next(item for item in answer.items if item.n == n)
        # a quoted unit is the source's own words (a table row says its cells beside their headers)
        assert set(re.findall(r"\w+", text)) <= set(re.findall(r"\w+", source.text))


def test_the_reader_refuses_below_its_threshold_and_points_at_a_source(
    built_sample_data, embedder, tiny_reader, tmp_path
):
    engine = engine_with(
        built_sample_data, embedder, reader_weights=tiny_reader, reader_threshold=1 - 1e-6, model_cache_dir=tmp_path
    )
    answer = engine.ask("csc3100", "When is the final exam?")
    assert answer.refused and answer.mode == "refusal"
    assert answer.suggestions and answer.suggestions[0]["source"]


def test_the_reader_s_session_gets_the_reader_s_thread_count(built_sample_data, embedder, tiny_reader, tmp_path):
    engine = engine_with(
        built_sample_data, embedder, reader_weights=tiny_reader, reader_threads=2, model_cache_dir=tmp_path
    )
    assert engine.parts.reading.reader.session.get_session_options().intra_op_num_threads == 2


def test_warming_up_converts_the_reader_before_the_first_question(built_sample_data, embedder, tiny_reader, tmp_path):
    engine = engine_with(built_sample_data, embedder, reader_weights=tiny_reader, model_cache_dir=tmp_path)
    assert not list(tmp_path.glob("reader-*/reader-int8.onnx"))
    engine.warm_up()
    assert (
        len(list(tmp_path.glob("reader-*/reader-int8.onnx"))) == 1 and engine.parts.reading.reader._session is not None
    )


def with_quotes(tiny_reader, folder, quotes: dict):
    """A copy of the tiny reader whose manifest carries fitted quotes (the weights' SHA-256
    does not cover the manifest)."""
    import json
    import shutil

    folder.mkdir()
    target = folder / "reader.safetensors"
    shutil.copy(tiny_reader, target)
    manifest = json.loads(tiny_reader.with_suffix(".json").read_text())
    manifest["calibration"] = {"threshold": 1e-6, "quotes": quotes}
    target.with_suffix(".json").write_text(json.dumps(manifest))
    return target


def test_the_quotes_fitted_with_the_weights_decide_how_many_spans_an_answer_quotes(
    built_sample_data, embedder, tiny_reader, tmp_path
):
    from courserag.answers.extractive.read_calibration import ReadParams

    lines = {}
    fitted = {
        "one": {"spans": 1, "margin": 0.0, "words": 0},
        "many": {"spans": 4, "margin": 1e9, "words": 10**6},
        "blended": {"spans": 1, "margin": 0.0, "words": 0, "similarity": 100.0},  # E5's cosines weighed in
    }
    for name, quotes in fitted.items():
        weights = with_quotes(tiny_reader, tmp_path / name, quotes)
        engine = engine_with(built_sample_data, embedder, reader_weights=weights, model_cache_dir=tmp_path / "models")
        assert engine.parts.reading.calibration.quotes == ReadParams(**quotes)
        answer = engine.ask("csc3100", "When is the final exam?")
        quoted = " ".join(line.rsplit(" [", 1)[0] for line in answer.answer.splitlines() if line.startswith("- "))
        lines[name] = re.findall(r"\w+", quoted)
    # the runner-ups are quoted after the best span's units
    assert len(lines["many"]) > len(lines["one"]) and set(lines["one"]) <= set(lines["many"])
    # ranked with E5's cosines, the one span quoted is still one of the spans the reader read
    assert lines["blended"] and set(lines["blended"]) <= set(lines["many"])


@pytest.mark.parametrize(
    ("question", "refused"),
    [
        ("ECE3050 和本课程有什么关系？", False),  # not in the catalog, named in the syllabus
        ("PHY2001 在哪个教室上课？", True),  # named nowhere
    ],
)
def test_the_reader_answers_about_a_code_only_from_the_sources_that_name_it(
    built_sample_data, embedder, tiny_reader, tmp_path, question, refused
):
    engine = engine_with(
        built_sample_data, embedder, reader_weights=tiny_reader, reader_threshold=1e-6, model_cache_dir=tmp_path
    )
    answer = engine.ask("ds2010", question)
    assert answer.refused == refused
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", answer.answer)}
    assert bool(cited) != refused
    assert all("ECE3050" in next(i.text for i in answer.items if i.n == n) for n in cited)
