"""Move generation: blocked paths, cue-stick clearance, candidates aimed by the ghost ball,
banks when no straight-in shot exists, and minimum speeds checked against the engine."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from config.planner import load_planner_settings
from planner.aim import aim_straight, min_elevation, pocket_axes, pocket_targets
from planner.movegen import MoveGenerator
from planner.rules.game import GameState
from planner.shot import ShotParams
from planner.speed import min_speed
from planner.state import TableState
from planner.throw import is_right_cut

R = 0.028575


@pytest.fixture(scope="module")
def mg(table_config, tiny_difficulty, coarse_movegen):
    return MoveGenerator(table_config.table, table_config.physics, tiny_difficulty, coarse_movegen)


def test_blocker_on_the_object_path_removes_that_pocket(mg, table_config):
    t = table_config.table
    k = t.pocket_index("lb")
    target = pocket_targets(t)[k]
    obj = target + 0.6 * pocket_axes(t)[k]
    cue = obj + np.array([0.05, 0.35])
    free = TableState([0, 1], [cue, obj])
    assert (1, "lb") in mg.straight_probabilities(free, [1])
    mid = (obj + target) / 2 + np.array([0.01, -0.01])
    blocked = TableState([0, 1, 9], [cue, obj, mid])
    assert (1, "lb") not in mg.straight_probabilities(blocked, [1])
    # a ball 3R beside the path does not block it
    side = (obj + target) / 2 + 3 * R * np.array([np.sqrt(0.5), -np.sqrt(0.5)])
    assert (1, "lb") in mg.straight_probabilities(TableState([0, 1, 9], [cue, obj, side]), [1])


def test_cue_blocked_by_a_ball_before_the_ghost(mg):
    obj = np.array([0.56, 1.6])
    cue = np.array([0.56, 0.8])
    ghost_path_blocker = np.array([0.57, 1.2])
    st = TableState([0, 1, 9], [cue, obj, ghost_path_blocker])
    assert (1, "lt") not in mg.straight_probabilities(st, [1])
    # every straight-in shot offered keeps the cue ball's path 2R clear of the blocker
    for (b, pid), _ in mg.straight_probabilities(st, [1]).items():
        k = mg.table.pocket_index(pid)
        a = aim_straight(cue, obj, mg.targets[k], mg.axes[k], R)
        seg = a.ghost - cue
        t = np.clip((ghost_path_blocker - cue) @ seg / (seg @ seg), 0, 1)
        assert np.linalg.norm(cue + t * seg - ghost_path_blocker) >= 2 * R


def test_min_elevation_analytic(table_config):
    t, phys = table_config.table, table_config.physics
    r = phys.cue_tip_radius
    cue = np.array([0.55, 1.1])
    assert min_elevation(cue, 90.0, np.empty((0, 2)), t, phys, 0.0) == 0.0
    behind = cue - np.array([0.0, 3 * R])             # directly behind along the stick
    theta = min_elevation(cue, 90.0, behind[None], t, phys, 0.0)
    assert theta == pytest.approx(np.degrees(np.arctan2(R + r, 3 * R)))
    # frozen against the head rail, shooting up the table: clear the cushion nose
    at_rail = np.array([0.55, R])
    theta = min_elevation(at_rail, 90.0, np.empty((0, 2)), t, phys, 0.0)
    assert theta == pytest.approx(np.degrees(np.arctan2(t.cushion_height + r - R, R)))


def test_candidates_aim_at_the_ghost_ball_and_call_legal_balls(mg, table_config):
    st = TableState([0, 1, 2, 9, 8], [[0.5, 0.7], [0.3, 1.5], [0.8, 0.5], [0.2, 0.3], [0.9, 1.9]])
    game = GameState(frozenset({1, 2, 9, 8}), 0, ("solid", "stripe"))
    cands = mg.generate(st, game)
    assert cands and all(c.call.ball in (1, 2) for c in cands)
    assert [c.p for c in cands] == sorted((c.p for c in cands), reverse=True)
    for c in cands:
        k = mg.table.pocket_index(c.call.pocket)
        a = aim_straight(st.position(0), st.position(c.call.ball), mg.targets[k], mg.axes[k], R)
        right = is_right_cut(a.ghost - st.position(0), mg.targets[k] - st.position(c.call.ball))
        throw = mg.throw.correction(a.alpha, a.d2, c.shot.V, c.shot.b / R, right)
        assert c.shot.phi == pytest.approx(a.phi + throw)
        assert abs(throw) < 0.6      # throw corrections are fractions of a degree of aim
        assert c.kind == "straight" and 0.0 <= c.p <= 1.0 and c.shot.V <= mg.cfg.v_max


def test_banks_kicks_combos_only_when_no_straight_in(mg, table_config):
    # ball 1 near the left rail; an opponent ball 0.2 m along the line to each pocket blocks it
    t = table_config.table
    obj = np.array([0.25, 1.3])
    blockers = [obj + 0.2 * (p - obj) / np.linalg.norm(p - obj) for p in pocket_targets(t)]
    st = TableState([0, 1, 9, 10, 11, 12, 13, 14], [[0.1, 1.36], obj, *blockers])
    game = GameState(frozenset({1, 8, 9, 10, 11, 12, 13, 14}), 0, ("solid", "stripe"))
    assert mg.straight_in(st, game) == []
    cands = mg.generate(st, game)
    assert cands and {c.kind for c in cands} <= {"bank", "kick", "combo"}
    assert all(c.call.ball == 1 for c in cands)
    # opponent balls removed: straight-in shots exist and are preferred
    open_game = GameState(frozenset({1, 8}), 0, ("solid", "stripe"))
    open_state = TableState([0, 1], [[0.1, 1.36], obj])
    assert {c.kind for c in mg.generate(open_state, open_game)} == {"straight"}


def test_a_generated_bank_pockets_the_ball_without_noise(mg, simulator):
    st = TableState([0, 1], [[0.1, 1.36], [0.25, 1.3]])
    game = GameState(frozenset({1, 8}), 0, ("solid", "stripe"))
    banks = mg.banks(st, game)
    assert banks
    made = [c for c in banks if simulator.simulate(st, c.shot).pocket[1] == mg.table.pocket_index(c.call.pocket)]
    assert made


@pytest.mark.parametrize("d1,d2", [(0.4, 0.3), (1.0, 0.3), (0.6, 0.5)])
def test_min_speed_just_gets_the_ball_there(simulator, d1, d2):
    t = simulator.table
    k = t.pocket_index("lb")
    target, axis = pocket_targets(t)[k], pocket_axes(t)[k]
    obj = target + d1 * axis
    cue = obj + (2 * R + d2) * axis
    phi = float(np.degrees(np.arctan2(-axis[1], -axis[0])))
    v = float(min_speed(simulator.params, 0.0, d1, d2))
    st = TableState([0, 1], [cue, obj])
    assert simulator.simulate(st, ShotParams(phi, 0.0, v)).pocket[1] == k
    assert simulator.simulate(st, ShotParams(phi, 0.0, 0.6 * v)).pocket[1] == -1


@pytest.mark.parametrize("n", [1, 2, 5, 40])
def test_best_is_the_head_of_generate(mg, table_config, n):
    """``best(n)`` (the search's inner nodes) builds only the calls it needs but returns exactly
    the first n candidates of the full list, straight-in or (when none) banks/kicks/combos."""
    rng = np.random.default_rng(3)
    t = table_config.table
    for _ in range(6):
        xy = rng.uniform([0.1, 0.1], [t.width - 0.1, t.length - 0.1], size=(40, 2))
        keep = [0]
        for i in range(1, len(xy)):
            if len(keep) < 9 and np.min(np.linalg.norm(xy[keep] - xy[i], axis=1)) > 3 * R:
                keep.append(i)
        ids = [0, 1, 2, 3, 8, 9, 10, 11, 12][:len(keep)]
        st = TableState(ids, xy[keep])
        for game in (GameState(frozenset(ids[1:]), 0), GameState(frozenset(ids[1:]), 1, ("solid", "stripe"))):
            assert mg.best(st, game, n) == mg.generate(st, game)[:n]
    # the no-straight-in position of the test above
    obj = np.array([0.25, 1.3])
    blockers = [obj + 0.2 * (p - obj) / np.linalg.norm(p - obj) for p in pocket_targets(t)]
    st = TableState([0, 1, 9, 10, 11, 12, 13, 14], [[0.1, 1.36], obj, *blockers])
    game = GameState(frozenset({1, 8, 9, 10, 11, 12, 13, 14}), 0, ("solid", "stripe"))
    assert mg.best(st, game, n) == mg.generate(st, game)[:n] != []
    # no cue ball on the table, or no legal target: nothing, as generate
    no_cue = TableState(st.ids[1:], st.pos[1:])
    assert mg.best(no_cue, game, n) == mg.generate(no_cue, game) == []
    over = GameState(frozenset({1, 8}), 0, ("solid", "stripe"), winner=1)
    assert mg.best(st, over, n) == mg.generate(st, over) == []


FINE = dataclasses.replace(load_planner_settings().movegen, speed_increments=(0.25, 0.8), spins=((0.0, 0.0), (0.0, 0.4)),
                           fine_speed_increments=(0.25, 0.5, 0.8), fine_spins=((0.0, 0.0), (0.0, 0.4), (0.0, -0.7)))


@pytest.fixture(scope="module")
def fine_mg(table_config, tiny_difficulty):
    return MoveGenerator(table_config.table, table_config.physics, tiny_difficulty, FINE)


def _grid_pairs(cands, st, mg):
    """{(b/R, V - minimum speed)} of straight-in candidates, rounded to 1e-6."""
    out = set()
    for c in cands:
        k = mg.table.pocket_index(c.call.pocket)
        a = aim_straight(st.position(0), st.position(c.call.ball), mg.targets[k], mg.axes[k], R)
        v0 = float(min_speed(mg.params, a.alpha, a.d1, a.d2, c.shot.b / R))
        out.add((round(c.shot.b / R, 6), round(c.shot.V - v0, 6)))
    return out


def test_refinements_are_the_fine_grid_less_the_coarse_one(fine_mg, table_config, coarse_movegen):
    st = TableState([0, 1, 2, 9, 8], [[0.5, 0.7], [0.3, 1.5], [0.8, 0.5], [0.2, 0.3], [0.9, 1.9]])
    game = GameState(frozenset({1, 2, 9, 8}), 0, ("solid", "stripe"))
    cands = fine_mg.generate(st, game)
    best = cands[0]
    coarse = [c for c in cands if c.call == best.call]
    fine = fine_mg.refinements(st, best)
    assert _grid_pairs(coarse, st, fine_mg) == {(0.0, 0.25), (0.0, 0.8), (0.4, 0.25), (0.4, 0.8)}
    assert _grid_pairs(fine, st, fine_mg) == {(0.0, 0.5), (0.4, 0.5), (-0.7, 0.25), (-0.7, 0.5), (-0.7, 0.8)}
    assert len(fine) == 5 and all((c.call, c.kind, c.p) == (best.call, "straight", best.p) for c in fine)
    for c in fine:   # aimed like the coarse variants: ghost ball plus the throw correction for its spin
        k = fine_mg.table.pocket_index(c.call.pocket)
        a = aim_straight(st.position(0), st.position(c.call.ball), fine_mg.targets[k], fine_mg.axes[k], R)
        right = is_right_cut(a.ghost - st.position(0), fine_mg.targets[k] - st.position(c.call.ball))
        assert c.shot.phi == pytest.approx(a.phi + fine_mg.throw.correction(a.alpha, a.d2, c.shot.V, c.shot.b / R, right))
    assert -0.7 in fine_mg.throw.spins
    # no fine grid, or a kind other than straight-in: nothing to refine
    assert MoveGenerator(table_config.table, table_config.physics, fine_mg.difficulty, coarse_movegen,
                         throw=fine_mg.throw).refinements(st, best) == []
    bank = fine_mg.banks(TableState([0, 1], [[0.1, 1.36], [0.25, 1.3]]), GameState(frozenset({1, 8}), 0, ("solid", "stripe")))
    assert bank and fine_mg.refinements(st, bank[0]) == []
