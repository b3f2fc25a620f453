"""Shot-difficulty grid: a tiny build, O(1) multilinear lookup, storage and staleness."""
from __future__ import annotations

import json

import numpy as np
import pytest

from planner.difficulty import (
    FORMAT_VERSION,
    DifficultyGrid,
    GridSpec,
    StaleDifficultyError,
    build_difficulty,
    cell_layout,
    load_difficulty,
)
from planner.shot import E_HIGH, E_LOW


def test_tiny_grid_is_a_probability_and_easy_beats_hard(tiny_difficulty):
    for kind in ("corner", "side"):
        p = tiny_difficulty.probs[kind]
        assert p.shape == (3, 3, 3, 3) and np.all((p >= 0) & (p <= 1))
    easy = tiny_difficulty.lookup(False, 0.0, 0.03, 0.03, 0.0)
    hard = tiny_difficulty.lookup(False, 85.0, 2.5, 2.5, 45.0)
    assert easy > 0.8 and hard < 0.3


def test_lookup_is_multilinear_between_grid_points(tiny_difficulty):
    ax = tiny_difficulty.axes["corner"]
    p = tiny_difficulty.probs["corner"]
    mid_alpha = (ax[0][0] + ax[0][1]) / 2
    got = tiny_difficulty.lookup(False, mid_alpha, ax[1][1], ax[2][2], ax[3][0])
    assert got == pytest.approx((p[0, 1, 2, 0] + p[1, 1, 2, 0]) / 2)
    # at grid points it returns the entries; outside the grid it clamps to the edge
    assert tiny_difficulty.lookup(True, ax[0][2], ax[1][0], ax[2][1], ax[3][1]) == pytest.approx(
        tiny_difficulty.probs["side"][2, 0, 1, 1])
    assert tiny_difficulty.lookup(False, 200.0, 9.0, 9.0, 90.0) == pytest.approx(p[-1, -1, -1, -1])
    many = tiny_difficulty.lookup(np.array([False, True]), [0.0, 0.0], [0.03, 0.03], [0.03, 0.03], [0.0, 0.0])
    assert many.shape == (2,)


def test_cell_layout_realises_the_features(table_config):
    from planner.aim import aim_straight, pocket_axes, pocket_targets

    t, R = table_config.table, table_config.physics.R
    k, cue, obj, ghost = cell_layout(t, R, "corner", 30.0, 0.8, 0.5, 20.0)
    a = aim_straight(cue, obj, pocket_targets(t)[k], pocket_axes(t)[k], R)
    assert (a.alpha, a.d1, a.d2, a.beta) == pytest.approx((30.0, 0.8, 0.5, 20.0))
    assert cell_layout(t, R, "side", 10.0, 2.4, 2.4, 60.0) is None    # does not fit on the table


def test_store_load_and_staleness(tmp_path, table_config, tiny_difficulty, tiny_grid):
    TINY = tiny_grid
    t, phys = table_config.table, table_config.physics
    tiny_difficulty.save(tmp_path, "high")
    back = DifficultyGrid.read(tmp_path, "high")
    np.testing.assert_array_equal(back.probs["side"], tiny_difficulty.probs["side"])
    meta = json.loads((tmp_path / "difficulty_high.json").read_text())
    assert meta["version"] == FORMAT_VERSION and meta["resolution"] == 3 and meta["sigmas"]["phi"] == E_HIGH.phi
    same = load_difficulty(t, phys, E_HIGH, TINY, name="high", directory=tmp_path, on_stale="refuse")
    np.testing.assert_array_equal(same.probs["corner"], tiny_difficulty.probs["corner"])
    with pytest.raises(StaleDifficultyError, match="stale.*sigmas"):
        load_difficulty(t, phys, E_LOW, TINY, name="high", directory=tmp_path, on_stale="refuse")
    with pytest.raises(StaleDifficultyError, match="no stored table"):
        load_difficulty(t, phys, E_LOW, TINY, name="low", directory=tmp_path, on_stale="refuse")
    rebuilt = load_difficulty(t, phys, E_LOW, GridSpec(2, 4, 0.25), name="high", directory=tmp_path)
    assert rebuilt.probs["corner"].shape == (2, 2, 2, 2)
    assert DifficultyGrid.read(tmp_path, "high").meta["hash"] == rebuilt.meta["hash"] != tiny_difficulty.meta["hash"]


def test_lower_noise_pockets_more(table_config, tiny_difficulty, tiny_grid):
    low = build_difficulty(table_config.table, table_config.physics, E_LOW, tiny_grid, seed=1)
    assert low.probs["corner"].mean() > tiny_difficulty.probs["corner"].mean()
