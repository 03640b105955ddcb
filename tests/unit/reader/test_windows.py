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
