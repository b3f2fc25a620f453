"""Ghost-ball aiming geometry against analytic positions, and a noise-free simulation check."""
from __future__ import annotations

import numpy as np
import pytest

from planner.aim import aim_straight, ghost_ball, pocket_axes, pocket_targets, reflect_across_rail, segment_blocked
from planner.shot import ShotParams
from planner.state import TableState

R = 0.028575


def rot(v, deg):
    c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def test_ghost_ball_is_two_radii_behind_the_object_ball():
    np.testing.assert_allclose(ghost_ball([0.5, 1.0], [0.5, 2.0], R), [0.5, 1.0 - 2 * R])
    g = ghost_ball([1.0, 1.0], [0.0, 0.0], R)
    np.testing.assert_allclose(g, [1.0 + 2 * R / np.sqrt(2), 1.0 + 2 * R / np.sqrt(2)])


@pytest.mark.parametrize("cut", [0.0, 15.0, 30.0, 60.0])
@pytest.mark.parametrize("side", [1.0, -1.0])
def test_cut_angle_phi_and_distances_match_a_constructed_shot(cut, side):
    target = np.array([0.0, 0.0])
    obj = np.array([0.6, 0.8])                        # d1 = 1.0
    u = (target - obj) / 1.0                          # object ball's travel direction
    ghost = obj - 2 * R * u
    cue_dir = rot(u, side * cut)                      # the cue ball travels along this
    cue = ghost - 0.7 * cue_dir
    a = aim_straight(cue, obj, target, np.array([np.sqrt(0.5), np.sqrt(0.5)]), R)
    np.testing.assert_allclose(a.ghost, ghost, atol=1e-12)
    assert a.alpha == pytest.approx(cut, abs=1e-6)
    assert a.d1 == pytest.approx(1.0) and a.d2 == pytest.approx(0.7)
    assert a.phi == pytest.approx(np.degrees(np.arctan2(cue_dir[1], cue_dir[0])) % 360, abs=1e-6)
    # the object ball comes down the diagonal at 0.6/0.8 vs 45 deg
    assert a.beta == pytest.approx(np.degrees(np.arccos((0.6 + 0.8) / np.sqrt(2))), abs=1e-6)


def test_pocket_targets_and_axes(table_config):
    t = table_config.table
    tg, ax = pocket_targets(t), pocket_axes(t)
    lc, lb = t.pocket_index("lc"), t.pocket_index("lb")
    np.testing.assert_allclose(tg[lc], [0.0, t.length / 2])          # side: mouth centre on the rail line
    np.testing.assert_allclose(tg[lb], t.pocket_center[lb])          # corner: drop centre
    np.testing.assert_allclose(ax[lb], [np.sqrt(0.5), np.sqrt(0.5)])
    np.testing.assert_allclose(ax[t.pocket_index("rc")], [-1.0, 0.0])


def test_mirror_image_and_capsule_distance(table_config):
    t = table_config.table
    p = np.array([0.3, 0.9])
    np.testing.assert_allclose(reflect_across_rail(p, t, "left", R), [2 * R - 0.3, 0.9])
    np.testing.assert_allclose(reflect_across_rail(reflect_across_rail(p, t, "foot", R), t, "foot", R), p)
    # centres 0.2, 1.0 and sqrt(2) m from the segment (0, 0)-(1, 0): blocked when closer than 2R
    pts = np.array([[0.5, 0.2], [2.0, 0.0], [-1.0, -1.0]])
    assert segment_blocked(0.0, 0.0, 1.0, 0.0, pts, -1, -1, 0.105)
    assert not segment_blocked(0.0, 0.0, 1.0, 0.0, pts, -1, -1, 0.095)
    assert not segment_blocked(0.0, 0.0, 1.0, 0.0, pts, 0, -1, 0.45)       # row 0 skipped
    assert segment_blocked(0.0, 0.0, 1.0, 0.0, pts, 0, -1, 0.55)


@pytest.mark.parametrize("pocket,cut", [("lb", 0.0), ("lb", 20.0), ("rc", 0.0), ("rc", 15.0)])
def test_ghost_ball_aim_pockets_the_ball_without_noise(simulator, pocket, cut):
    t = simulator.table
    k = t.pocket_index(pocket)
    target, axis = pocket_targets(t)[k], pocket_axes(t)[k]
    obj = target + 0.4 * axis
    u = -axis
    cue = obj - 2 * R * u - 0.5 * rot(u, cut)
    a = aim_straight(cue, obj, target, axis, R)
    res = simulator.simulate(TableState([0, 1], [cue, obj]), ShotParams(a.phi, 0.0, 1.5))
    assert res.pocket[1] == k
