"""Where the app writes and whether a Space keeps it (courserag/config/persistence.py)."""

from __future__ import annotations

import pytest

from courserag.config.persistence import lost_on_restart


@pytest.mark.parametrize(
    "env, persistent, places, lost",
    [
        ({}, False, ["data", "courses/csc3100"], []),  # not a Space: nothing is said
        ({"SPACE_ID": "u/app"}, False, ["data", "courses/csc3100"], ["data", "courses/csc3100"]),  # no storage
        ({"SPACE_ID": "u/app"}, True, ["store/data", "courses/csc3100"], ["courses/csc3100"]),  # one outside it
        ({"SPACE_ID": "u/app"}, True, ["store/data", "store/courses"], []),
    ],
)
def test_a_space_says_which_places_a_restart_wipes(tmp_path, env, persistent, places, lost):
    root = tmp_path / "store"
    if persistent:
        root.mkdir()
    paths = [tmp_path / p for p in places]
    assert lost_on_restart(paths, env, persistent_root=root) == [tmp_path / p for p in lost]
