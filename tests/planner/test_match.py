"""play_game: a whole rack between two greedy planners, checked against the referee's rules;
spotting the 8; the planner config's error messages."""
from __future__ import annotations

import numpy as np
import pytest

from config.planner import load_planner_settings, parse_planner_settings
from config.reader import ConfigError, load_yaml
from planner.match import play_game, spot_ball
from planner.state import TableState

R = 0.028575


def test_greedy_game_finishes_with_a_referee_consistent_record(make):
    rec = play_game(make("greedy", 1), make("greedy", 2), seed=3, noise="high", max_shots=120)
    shots = rec.shots
    assert shots[0].kind == "break" and shots[0].player == 0 and shots[0].call is None
    assert all(s.call is not None for s in shots[1:])
    for prev, nxt in zip(shots, shots[1:]):     # the turn passes exactly when the referee says so
        assert nxt.player == (prev.player if prev.turn_continues else 1 - prev.player)
    assert rec.winner in (0, 1), "a rack between two greedy players ends well inside 120 shots"
    last = shots[-1]
    assert last.reason == "win" if rec.winner == last.player else last.reason.startswith("loss")
    assert rec.final_game.winner == rec.winner
    pocketed = [b for s in shots for b, _ in s.pocketed if b != 0]
    assert len(pocketed) == len(set(pocketed)) or 8 in pocketed   # only the 8 is ever spotted
    for p in (0, 1):
        st = rec.stats(p)
        assert 0 <= st["sis"][0] <= st["sis"][1] and 0 <= st["ss"][0] <= st["ss"][1]
        # SIS counts straight-in shots whose called ball dropped and kept the table or won
        made = [s for s in shots if s.player == p and s.kind == "straight" and s.called_made
                and (s.turn_continues or s.reason == "win")]
        assert st["sis"][0] == len(made)
    if last.reason == "win" and last.kind == "straight":
        assert rec.stats(rec.winner)["sis"][0] >= 1


def test_spot_ball_on_the_foot_spot_or_behind_it(table_config):
    t = table_config.table
    fx, fy = t.foot_spot
    st = spot_ball(TableState([0, 8], [[0.5, 0.5], [0.2, 0.2]]), 8, t, R)
    np.testing.assert_allclose(st.position(8), [fx, fy])
    taken = TableState([0, 3], [[0.5, 0.5], [fx, fy + 0.01]])
    st = spot_ball(taken, 8, t, R)
    p = st.position(8)
    assert p[0] == fx and p[1] > fy + 0.01 and np.linalg.norm(p - [fx, fy + 0.01]) >= 2 * R
    assert p[1] < fy + 0.01 + 2 * R + 2e-3        # as close behind as is free


def test_planner_config_loads_and_names_bad_keys(tmp_path):
    cfg = load_planner_settings()
    assert cfg.search.t0 == 0.65 and cfg.search.weights == (1.0, 0.33, 0.15) and cfg.movegen.v_max == 4.5
    bad = tmp_path / "planner.yaml"
    text = open(cfg.path).read().replace("t0: 0.65", "t0: 1.65")
    bad.write_text(text)
    with pytest.raises(ConfigError, match=r"planner.yaml: search.t0 must be a probability in \[0, 1\], got 1.65"):
        load_planner_settings(bad)
    bad.write_text(open(cfg.path).read().replace("spins: [[0.0, 0.0]", "spins: [[0.0, 0.95]"))
    with pytest.raises(ConfigError, match="movegen.spins"):
        parse_planner_settings(load_yaml(bad))
