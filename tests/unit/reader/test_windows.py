"""Where the windows over a passage start (courserag/reader/windows.py), as tables."""

from __future__ import annotations

import pytest

from courserag.reader.windows import window_starts


@pytest.mark.parametrize(
    ("n_tokens", "room", "stride", "starts"),
    [
        (0, 10, 5, [0]),
        (10, 10, 5, [0]),  # fits exactly
        (11, 10, 5, [0, 5]),  # the second window reaches the end
        (25, 10, 5, [0, 5, 10, 15]),
        (25, 10, 10, [0, 10, 20]),
        (25, 10, 20, [0, 20]),  # a stride wider than the window leaves a gap
    ],
)
def test_window_starts(n_tokens, room, stride, starts):
    assert window_starts(n_tokens, room, stride) == starts


@pytest.mark.parametrize(("room", "stride"), [(0, 5), (10, 0)])
def test_window_starts_needs_room_and_stride(room, stride):
    with pytest.raises(ValueError):
        window_starts(20, room, stride)


def test_reading_windows_overlap_by_the_tokens_asked_not_by_half_a_window():
    from courserag.reader.tokens import Tokenized
    from courserag.reader.windows import Special, WindowConfig, windows

    special = Special(bos=0, eos=2, query_prefix=(90,), passage_prefix=(80,))
    passage = Tokenized(tuple(range(100, 400)), tuple((i, i + 1) for i in range(300)))
    # 64 tokens: <s>, the prefix and 3 question tokens, </s> </s>, the passage prefix, </s> leave 55
    halves = windows([5, 6, 7], passage, special, WindowConfig(max_tokens=64, stride=27))
    once = windows([5, 6, 7], passage, special, WindowConfig(max_tokens=64, stride=27, overlap=8))
    assert [w.window_start for w in once] == [0, 47, 94, 141, 188, 235, 282]
    assert len(halves) == 11 and all(w.window_len <= 55 for w in once)
    assert once[-1].window_start + once[-1].window_len == 300
