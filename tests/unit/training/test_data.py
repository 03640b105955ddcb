"""Windows over a passage and the answer's place in them (training/reader/data.py), as tables."""

from __future__ import annotations

import numpy as np
import pytest

from courserag.reader.tokens import Tokenized
from courserag.reader.windows import SPECIAL_TOKENS, Special, WindowConfig
from training.reader.data import (
    answer_token_span,
    batch_indices,
    featurize,
    keep_unanswerable,
    make_features,
    pad_batch,
)
from training.reader.sets import Answer, Example

SPECIAL = Special(bos=0, eos=2, query_prefix=(90, 91), passage_prefix=(80, 81))


# "The earthquake in Sichuan occurred in 2008." as E5 cuts it, and a Chinese sentence whose
# second token ("是中国") holds more than the answer "中国".
EN_SPANS = [(0, 3), (4, 14), (15, 17), (18, 25), (26, 34), (35, 37), (38, 42), (42, 43)]
ZH_SPANS = [(0, 0), (0, 2), (2, 5), (5, 6), (6, 8), (8, 9)]


@pytest.mark.parametrize(
    ("spans", "start", "end", "expected"),
    [
        (EN_SPANS, 38, 42, (6, 6)),  # "2008"
        (EN_SPANS, 18, 42, (3, 6)),  # "Sichuan occurred in 2008"
        (EN_SPANS, 38, 43, (6, 7)),  # "2008."
        (EN_SPANS, 39, 41, (6, 6)),  # inside one token
        (EN_SPANS, 25, 26, None),  # only a space
        (ZH_SPANS, 0, 2, (1, 1)),  # "北京"
        (ZH_SPANS, 3, 5, (2, 2)),  # "中国" inside "是中国"
        (ZH_SPANS, 3, 8, (2, 4)),  # "中国的首都"
        (ZH_SPANS, 0, 0, None),  # empty
    ],
)
def test_answer_token_span(spans, start, end, expected):
    assert answer_token_span(spans, start, end) == expected


def passage(n: int) -> Tokenized:
    """n tokens with ids 100.. , token k covering characters [2k, 2k + 1)."""
    return Tokenized(tuple(range(100, 100 + n)), tuple((2 * k, 2 * k + 1) for k in range(n)))


# room = 16 - 4 special - 4 question tokens (2 prefix + 2) - 2 passage prefix = 6
CONFIG = WindowConfig(max_tokens=16, stride=3, max_question_tokens=8)


@pytest.mark.parametrize(
    ("n", "answer_tokens", "expected"),
    [
        # (window start, window length, answer's first/last position in the row or None)
        (5, (1, 2), [(0, 5, (10, 11))]),
        (12, (1, 2), [(0, 6, (10, 11)), (3, 6, None), (6, 6, None)]),
        (12, (4, 5), [(0, 6, (13, 14)), (3, 6, (10, 11)), (6, 6, None)]),
        (12, (5, 7), [(0, 6, None), (3, 6, (11, 13)), (6, 6, None)]),  # starts before the last window
        (12, (10, 11), [(0, 6, None), (3, 6, None), (6, 6, (13, 14))]),
        (12, None, [(0, 6, None), (3, 6, None), (6, 6, None)]),
    ],
)
def test_make_features(n, answer_tokens, expected):
    chars = (2 * answer_tokens[0], 2 * answer_tokens[1] + 1) if answer_tokens else None
    features = make_features(7, [40, 41], passage(n), chars, SPECIAL, CONFIG)
    got = [(f.window_start, f.window_len, (f.start, f.end) if f.answerable else None) for f in features]
    assert got == expected
    for f in features:
        assert f.example_index == 7
        assert f.input_ids[: f.passage_at].tolist() == [0, 90, 91, 40, 41, 2, 2, 80, 81]
        assert f.input_ids[f.passage_at : f.passage_at + f.window_len].tolist() == list(
            range(100 + f.window_start, 100 + f.window_start + f.window_len)
        )
        assert f.input_ids[-1] == 2 and len(f.input_ids) <= CONFIG.max_tokens
        assert (f.start, f.end) == ((f.start, f.end) if f.answerable else (0, 0))


def test_a_long_question_is_cut_and_the_window_still_fits():
    features = make_features(0, list(range(40, 60)), passage(30), None, SPECIAL, CONFIG)
    assert all(len(f.input_ids) == CONFIG.max_tokens for f in features[:-1])
    assert features[0].input_ids[1:9].tolist() == [90, 91, 40, 41, 42, 43, 44, 45]
    assert features[0].window_len == CONFIG.max_tokens - SPECIAL_TOKENS - 8 - 2


def test_a_window_config_past_e5_s_positions_is_refused():
    with pytest.raises(ValueError, match="512"):
        WindowConfig(max_tokens=600)


def test_keep_unanswerable_keeps_the_answer_and_a_seeded_few_others():
    features = make_features(3, [40], passage(40), (20, 21), SPECIAL, CONFIG)
    kept = keep_unanswerable(features, 2, seed=0)
    assert [f.answerable for f in kept].count(False) == 2
    assert [f for f in features if f.answerable] == [f for f in kept if f.answerable]
    assert [f.window_start for f in kept] == [f.window_start for f in keep_unanswerable(features, 2, seed=0)]
    assert keep_unanswerable(features, None, seed=0) == features


def test_batches_walk_a_seeded_permutation_per_epoch():
    steps = [batch_indices(10, 4, step, seed=1).tolist() for step in range(5)]
    first_epoch = steps[0] + steps[1] + steps[2][:2]
    assert sorted(first_epoch) == list(range(10))
    assert sorted(steps[2][2:] + steps[3] + steps[4]) == list(range(10))
    assert steps == [batch_indices(10, 4, step, seed=1).tolist() for step in range(5)]  # resumable
    assert steps != [batch_indices(10, 4, step, seed=2).tolist() for step in range(5)]


def test_pad_batch_marks_the_passage():
    features = make_features(0, [40], passage(3), (2, 3), SPECIAL, CONFIG)
    features += make_features(1, [40, 41, 42], passage(6), None, SPECIAL, CONFIG)[:1]
    batch = pad_batch(features, pad=1)
    assert batch["input_ids"].shape == (2, max(len(f.input_ids) for f in features))
    assert batch["attention_mask"][0].sum() == len(features[0].input_ids)
    assert batch["input_ids"][0, len(features[0].input_ids) :].tolist() == [1] * (
        batch["input_ids"].shape[1] - len(features[0].input_ids)
    )
    assert np.flatnonzero(batch["passage_mask"][0]).tolist() == [8, 9, 10]
    assert batch["start"].tolist() == [9, 0] and batch["answerable"].tolist() == [1.0, 0.0]


@pytest.mark.parametrize(
    ("question", "context", "answer"),
    [
        ("When did the earthquake occur?", "The earthquake in Sichuan occurred in 2008 and killed many.", "2008"),
        (
            "吉尔吉斯斯坦的主要宗教为什么是伊斯兰教？",
            "吉尔吉斯斯坦宪法保障宗教自由，伊斯兰教是主要宗教。",
            "宪法保障宗教自由",
        ),
        ("What makes Islam popular?", "吉尔吉斯斯坦宪法保障宗教自由，伊斯兰教是主要宗教。", "宪法保障宗教自由"),
    ],
)
def test_featurize_labels_the_answer_s_tokens(reader_tokenizer, question, context, answer):
    start = context.index(answer)
    example = Example("s", "q", question, context, (Answer(answer, start),), "en", "en")
    data = featurize([example], reader_tokenizer, WindowConfig(max_tokens=64, stride=16))
    (feature,) = [f for f in data.features if f.answerable]
    spans = data.passages[0].spans
    first = spans[feature.window_start + feature.start - feature.passage_at]
    last = spans[feature.window_start + feature.end - feature.passage_at]
    assert context[first[0] : last[1]] == answer
    assert feature.input_ids[0] == reader_tokenizer.bos


def test_a_token_that_holds_more_than_the_answer_is_labelled_whole(reader_tokenizer):
    """E5's vocabulary has "▁2008,": the label then takes the comma too (SQuAD's scoring drops
    punctuation, so the answer still matches)."""
    context = "The earthquake in Sichuan occurred in 2008, killing thousands."
    example = Example("s", "q", "When?", context, (Answer("2008", context.index("2008")),), "en", "en")
    data = featurize([example], reader_tokenizer, WindowConfig(max_tokens=64, stride=16))
    (feature,) = data.features
    span = data.passages[0].spans[feature.start - feature.passage_at]
    assert context[span[0] : span[1]] == "2008,"


def test_a_repeated_set_s_windows_are_drawn_that_many_times_a_pass():
    from training.reader.data import Featurized, repeat_sets

    examples = [Example("a", "1", "q", "p", (), "en", "en"), Example("b", "2", "q", "p", (), "en", "en")]
    windows = [
        make_features(i, [5], Tokenized((7, 8), ((0, 1), (2, 3))), None, SPECIAL, WindowConfig())[0] for i in (0, 1)
    ]
    data = Featurized(examples, [], windows)
    assert [f.example_index for f in repeat_sets(data, {"b": 3}).features] == [0, 1, 1, 1]
    assert repeat_sets(data, {}) is data
