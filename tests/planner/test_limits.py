"""The planner within the robot's limits: ShotLimits, the check of planner settings against them
(errors name the planner file, the key and the limits' source), make_planner refusing settings
beyond given limits, every decision of greedy and mc inside config/robot.yaml's limits over
random racks and mid-game states (property), and the error model from the calibration."""
from __future__ import annotations

import dataclasses
import logging
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from config.planner import check_planner_within_limits, load_planner_settings
from config.reader import ConfigError
from planner.aim import aim_straight
from planner.decision import make_planner, place_cue
from planner.difficulty import GridSpec, StaleDifficultyError, load_difficulty
from planner.execution import executable
from planner.movegen import MoveGenerator
from planner.rack import rack_8ball
from planner.rules.game import GameState, InHand
from planner.safety import FAN_SPEEDS, KICK_SAFETY_SPEEDS, SafetySearch
from planner.shot import E_HIGH, E_LOW, PRESETS, ErrorModel, ShotLimits, ShotParams, error_label, error_model_for
from planner.speed import min_speed
from planner.state import CUE, EIGHT, TableState

R = 0.028575
# config/robot.yaml's limits (what the simulated robot declares in HELLO)
ROBOT = ShotLimits(theta=(0.0, 60.0), V=(0.1, 4.5), a=(-0.015, 0.015), b=(-0.015, 0.015))
HELLO = "the robot's HELLO (firmware sim-0.3)"


def too_fast(p):
    """The planner settings before the limits were respected: 6 m/s shots, a 7.5 m/s break and
    fine spins of 0.7 R (20 mm)."""
    mg = dataclasses.replace(p.movegen, v_max=6.0, fine_spins=p.movegen.fine_spins + ((0.0, 0.7), (0.0, -0.7)))
    return dataclasses.replace(p, movegen=mg, search=dataclasses.replace(p.search, v_break=7.5))


# ---- ShotLimits ------------------------------------------------------------------------------

def test_shot_limits_from_ranges_and_violations():
    rng = SimpleNamespace(lo=0.1, hi=4.5)              # as controller.protocol.Range
    lim = ShotLimits.from_ranges((0, 60), rng, (-0.015, 0.015), SimpleNamespace(lo=-0.015, hi=0.015))
    assert lim == ROBOT
    assert lim.contains(ShotParams(123.0, 60.0, 4.5, 0.015, -0.015))
    assert lim.violations(ShotParams(-20.0, 0.0, 0.1)) == []          # phi is not limited here
    bad = lim.violations(ShotParams(10.0, 61.0, 6.0, 0.0, -0.02))
    assert bad == ["theta=61.000 deg outside 0.000..60.000 deg", "V=6.000 m/s outside 0.100..4.500 m/s",
                   "b=-20.000 mm outside -15.000..15.000 mm"]
    with pytest.raises(ValueError, match="ShotLimits.V must be a range"):
        ShotLimits.from_ranges((0, 60), (4.5, 0.1), (-0.01, 0.01), (-0.01, 0.01))


# ---- the check of the settings -----------------------------------------------------------------

def test_the_default_planner_settings_fit_the_robot():
    check_planner_within_limits(load_planner_settings(), ROBOT, "config/robot.yaml", R)


def test_settings_beyond_the_limits_name_the_file_every_key_and_the_source():
    p = load_planner_settings()
    with pytest.raises(ConfigError) as e:
        check_planner_within_limits(too_fast(p), ROBOT, "/etc/cuerobot/robot.yaml", R)
    lines = str(e.value).splitlines()
    assert all(line.startswith(p.path) for line in lines)
    msg = str(e.value)
    assert "robot.v_max (6 m/s) is outside the robot's V limits 0.1 .. 4.5 m/s from /etc/cuerobot/robot.yaml" in msg
    assert "robot.v_break (7.5 m/s)" in msg
    assert ("movegen.fine_spins [0, 0.7] asks for a tip offset b = 0.7 R = 20.0 mm, outside the robot's b "
            "limits -15.0 .. 15.0 mm from /etc/cuerobot/robot.yaml") in msg
    assert "movegen.fine_spins [0, -0.7]" in msg and "movegen.spins" not in msg
    # elevations, and a robot too slow for the deliberate foul
    steep = dataclasses.replace(p, movegen=dataclasses.replace(p.movegen, theta_max=70.0))
    with pytest.raises(ConfigError, match=r"movegen.theta_min .. theta_max \(0 .. 70 deg\) must lie inside the "
                                          r"robot's theta limits 0 .. 60 deg from the robot's HELLO"):
        check_planner_within_limits(steep, ROBOT, HELLO, R)
    with pytest.raises(ConfigError, match="slowest shot, the deliberate foul at 0.2 m/s"):
        check_planner_within_limits(p, dataclasses.replace(ROBOT, V=(0.3, 4.5)), HELLO, R)


def test_make_planner_refuses_settings_beyond_the_given_limits(table_config, small_pcfg, tiny_difficulty):
    with pytest.raises(ConfigError) as e:
        make_planner("greedy", "high", tcfg=table_config, pcfg=too_fast(small_pcfg), difficulty=tiny_difficulty,
                     limits=ROBOT, limits_source=HELLO)
    assert small_pcfg.path in str(e.value) and HELLO in str(e.value) and "robot.v_break" in str(e.value)
    slow_robot = dataclasses.replace(ROBOT, V=(0.1, 3.0))
    with pytest.raises(ConfigError, match=r"robot.v_max \(4.5 m/s\) is outside the robot's V limits 0.1 .. 3 m/s"):
        make_planner("mc", "high", tcfg=table_config, pcfg=small_pcfg, difficulty=tiny_difficulty,
                     limits=slow_robot, limits_source=HELLO)
    pl = make_planner("greedy", "high", tcfg=table_config, pcfg=small_pcfg, difficulty=tiny_difficulty,
                      limits=ROBOT, limits_source=HELLO)
    assert pl.cfg.movegen.v_max <= ROBOT.V[1]


# ---- every shot the planner emits stays inside -----------------------------------------------

def slow_settings(p, v_max: float):
    """Planner settings for a robot whose fastest cue speed is ``v_max`` [m/s]."""
    return dataclasses.replace(p, movegen=dataclasses.replace(p.movegen, v_max=v_max),
                               search=dataclasses.replace(p.search, v_break=v_max))


def test_straight_in_speeds_are_capped_and_unreachable_tip_heights_dropped(table_config, tiny_difficulty,
                                                                            coarse_movegen):
    cfg = dataclasses.replace(coarse_movegen, v_max=1.6, speed_increments=(0.25, 0.8, 1.8))
    mg = MoveGenerator(table_config.table, table_config.physics, tiny_difficulty, cfg)
    st_ = TableState([0, 1], [[0.3, 0.3], [0.6, 1.6]])
    game = GameState(frozenset({1, 8}), 0, ("solid", "stripe"))
    cands = mg.generate(st_, game)
    assert cands and max(c.shot.V for c in cands) == pytest.approx(1.6)
    for c in cands:
        k = mg.table.pocket_index(c.call.pocket)
        a = aim_straight(st_.position(CUE), st_.position(1), mg.targets[k], mg.axes[k], R)
        assert min_speed(mg.params, a.alpha, a.d1, a.d2, c.shot.b / R) <= 1.6     # only reachable tip heights
    # per call and tip height, one variant at v_max at most
    keys = [(c.call.pocket, c.shot.b) for c in cands if c.shot.V == pytest.approx(1.6)]
    assert len(keys) == len(set(keys))


def test_safety_speeds_and_the_fallback_keep_to_v_max_and_theta_max(table_config, small_pcfg, tiny_difficulty):
    pcfg = slow_settings(small_pcfg, 1.0)
    pl = make_planner("greedy", "high", tcfg=table_config, pcfg=pcfg, difficulty=tiny_difficulty)
    assert max(FAN_SPEEDS + KICK_SAFETY_SPEEDS) > 1.0
    # the cue ball can reach ball 1 only off a rail: kicks, then the fan
    st_ = TableState([0, 1, 9, 10, 11], [[0.56, 0.30], [0.56, 1.2], [0.56, 0.42], [0.44, 0.36], [0.68, 0.36]])
    game = GameState(frozenset({1, 8, 9, 10, 11}), 0, ("solid", "stripe"))
    safety = SafetySearch(pl.table, pl.params, pcfg.movegen, pl.ctx, sampled=False)
    shots = [c.shot for c in safety.kicks(st_, game, [1]) + safety.fan(st_, game) + safety.fouls(st_, game)]
    shots += [c.shot for c in safety.candidates(st_, game, kitchen=False)]
    assert shots and all(s.V <= 1.0 and s.theta <= pcfg.movegen.theta_max for s in shots)
    # the fallback roll: at most v_max, and no steeper than theta_max even when the stick must clear
    d = pl._fallback(st_, game, None)
    assert d.kind == "fallback" and d.shot.V == 1.0 and d.shot.theta <= pcfg.movegen.theta_max
    hemmed = TableState([0, 1, 9], [[0.56, 0.5], [0.56, 1.2], [0.56, 0.5 - 2.05 * R]])
    low = dataclasses.replace(pcfg, movegen=dataclasses.replace(pcfg.movegen, theta_max=5.0))
    pl_low = make_planner("greedy", "high", tcfg=table_config, pcfg=low, difficulty=tiny_difficulty)
    assert pl_low._fallback(hemmed, game, None).shot.theta == 5.0


def random_state(pl, seed: int, keep: int, scatter: bool, in_hand: InHand, groups, shooter: int):
    """A mid-game state: a rack broken at the planner's break under E_high (as
    planner.bench.mid_game_states), or with ``scatter`` its balls placed at random, then all
    but the 8 and ``keep`` other object balls removed (None when the break dropped the 8)."""
    t = pl.table
    rng = np.random.default_rng(seed)
    state = rack_8ball(t, R, rng)
    if scatter:
        pos = []
        while len(pos) < len(state.ids):
            p = rng.uniform([2 * R, 2 * R], [t.width - 2 * R, t.length - 2 * R])
            if all(np.linalg.norm(p - q) > 2.2 * R for q in pos):
                pos.append(p)
        state = TableState(state.ids, np.array(pos))
    else:
        d = pl.choose(state, GameState.new_rack(0))
        state = place_cue(state, d.cue_pos)
        shot = executable(E_HIGH.perturb(d.shot, rng, 1), R)[0]
        state = pl.ctx.sim.simulate(state, ShotParams.from_array(shot)).state_after()
    if not state.has(EIGHT):
        return None
    if not state.has(CUE):
        state = place_cue(state, t.head_spot)
    others = [int(b) for b in state.ids if b not in (CUE, EIGHT)]
    balls = set(rng.permutation(others)[:keep].tolist()) | {EIGHT}
    rows = [i for i, b in enumerate(state.ids) if b == CUE or b in balls]
    state = TableState(state.ids[rows], state.pos[rows])
    if in_hand is not InHand.NONE:
        state = TableState(state.ids[state.ids != CUE], state.pos[state.ids != CUE])
    return state, GameState(frozenset(balls), shooter, groups, in_hand=in_hand)


@pytest.fixture(scope="module")
def robot_limits():
    """config/robot.yaml's limits, read as the settings read them."""
    from config.robot import load_robot_settings
    from config.settings import robot_shot_limits

    lim = robot_shot_limits(load_robot_settings())
    assert lim == ROBOT
    return lim


@pytest.mark.parametrize("name, examples", [("greedy", 40), ("mc", 15)])
def test_every_decision_is_within_the_robots_limits(make, name, examples, robot_limits):
    pl = make(name)
    rack = rack_8ball(pl.table, R, np.random.default_rng(3))
    brk = pl.choose(rack, GameState.new_rack(0))
    assert brk.kind == "break" and robot_limits.violations(brk.shot) == []
    kinds = []

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
    @given(seed=st.integers(0, 10_000), keep=st.integers(0, 14), scatter=st.booleans(),
           in_hand=st.sampled_from(list(InHand)), groups=st.sampled_from([None, ("solid", "stripe")]),
           shooter=st.integers(0, 1))
    def check(seed, keep, scatter, in_hand, groups, shooter):
        drawn = random_state(pl, seed, keep, scatter, in_hand, groups, shooter)
        if drawn is None:
            return
        d = pl.choose(*drawn)
        kinds.append(d.kind)
        assert robot_limits.violations(d.shot) == [], (d.kind, d.shot)

    check()
    assert len(set(kinds)) >= 2          # more than one kind of decision was checked


# ---- the error model ---------------------------------------------------------------------------

def test_error_model_for_uses_the_calibration_or_warns_and_uses_the_preset(caplog):
    measured = ErrorModel(phi=0.12, theta=0.05, V=0.04, a=0.0005, b=0.0007)
    with caplog.at_level(logging.WARNING, logger="planner.shot"):
        err, label = error_model_for(measured, "high")
    assert err is measured and label == error_label(measured) and label.startswith("calibrated-")
    assert not caplog.records
    assert label not in PRESETS and len(label) == len("calibrated-") + 8
    assert error_label(dataclasses.replace(measured, V=0.05)) != label          # keyed by the sigmas
    assert error_label(ErrorModel(*measured.sigmas())) == label                 # deterministic
    with caplog.at_level(logging.WARNING, logger="planner.shot"):
        err, label = error_model_for(None, "low")
    assert err == E_LOW and label == "low"
    assert any("'low' preset" in r.getMessage() and "error_sigmas" in r.getMessage() for r in caplog.records)
    with pytest.raises(ValueError, match="noise preset must be one of"):
        error_model_for(measured, "medium")


def test_a_calibrated_grid_gets_its_own_cache_file(tmp_path, monkeypatch, table_config, small_pcfg):
    from planner.difficulty import DIFFICULTY_DIR_ENV

    monkeypatch.setenv(DIFFICULTY_DIR_ENV, str(tmp_path))
    grid = GridSpec(2, 4, small_pcfg.grid.speed_increment)
    t, phys = table_config.table, table_config.physics
    load_difficulty(t, phys, E_HIGH, grid, name="high")
    before = (tmp_path / "difficulty_high.npz").read_bytes()
    measured = ErrorModel(phi=0.12, theta=0.05, V=0.04, a=0.0005, b=0.0007)
    err, label = error_model_for(measured, "high")
    pl = make_planner("greedy", err, tcfg=table_config, pcfg=dataclasses.replace(small_pcfg, grid=grid))
    assert pl.ctx.error == measured
    assert (tmp_path / f"difficulty_{label}.npz").exists()
    assert (tmp_path / "difficulty_high.npz").read_bytes() == before     # the preset's grid is untouched
    assert sorted(p.name for p in tmp_path.glob("difficulty_*.npz")) == sorted(["difficulty_high.npz", f"difficulty_{label}.npz"])
    # a new calibration under an old label is stale; refused with how to rebuild it
    with pytest.raises(StaleDifficultyError, match="stale.*on_stale='rebuild'"):
        load_difficulty(t, phys, dataclasses.replace(measured, V=0.05), grid, name=label, on_stale="refuse")
