"""Closed loop: the observed referee, fed the frames a 60 fps camera would take of simulated shots,
against the facts the engine's event log gives (``read_shot``), the independent truth.

The frames are the engine's trajectories sampled at the camera's frame times
(``planner.physics.trajectory``) with the vision's 0.3 mm Gaussian noise, pocketed balls absent,
starting 5 frames before the strike.
"""
import math
from collections import Counter

import numpy as np
import pytest

from controller.observed_referee import FASTEST_BALL, Snapshot, observe_shot, observe_tracks
from planner.physics.trajectory import frame_times, positions_at
from planner.rack import rack_8ball
from planner.rules.facts import read_shot
from planner.shot import ShotParams
from planner.state import TableState

FPS = 60.0
NOISE = 3e-4     # vision accuracy per axis [m]


def camera(simulator, start, res, rng, noise=NOISE, fps=FPS, before=5):
    """(times, ids, pos) the camera sees: ``before`` frames of the table at rest, then frames from
    the strike until 0.2 s after the last event; NaN where a ball has dropped."""
    times = np.concatenate([np.arange(-before, 0) / fps, frame_times(res.t_end, fps, 0.2)])
    pos = positions_at(res, start, times, simulator.params)
    if noise:
        pos = pos + rng.normal(0.0, noise, pos.shape)
    return times, res.ids, pos


def truth(simulator, res):
    return read_shot(res.events, simulator.table.pocket_ids)


def compare(simulator, res, seen) -> list[str]:
    """The kinds of disagreement between the observed facts and the event log's (empty: agree)."""
    want, got = truth(simulator, res), seen.facts
    kinds = []
    if set(got.pocketed) != set(want.pocketed):
        kinds.append("pocketed")
    if (0 in got.pocketed_ids) != (0 in want.pocketed_ids):
        kinds.append("scratch")
    if got.first_contact != want.first_contact:
        kinds.append("first_contact")
    if got.rail_after_contact != want.rail_after_contact:
        kinds.append("rail_after_contact")
    if seen.vanished:
        kinds.append("vanished")
    return kinds


def observe(simulator, state, shot, rng, **kw):
    res = simulator.simulate(state, shot)
    return res, observe_tracks(*camera(simulator, state, res, rng, **kw), simulator.table, simulator.params.R,
                               aim_deg=shot.phi)


def scattered(simulator, rng, n):
    """A cue ball and n object balls at random, at least 1 mm apart and off the cushions."""
    t, R = simulator.table, simulator.params.R
    pos: list[tuple[float, float]] = []
    while len(pos) < n + 1:
        p = (rng.uniform(R + 1e-3, t.width - R - 1e-3), rng.uniform(R + 1e-3, t.length - R - 1e-3))
        if all(math.dist(p, q) > 2 * R + 1e-3 for q in pos):
            pos.append(p)
    ids = np.concatenate([[0], rng.choice(np.arange(1, 16), n, replace=False)])
    return TableState(ids, np.array(pos))


def random_shot(simulator, rng):
    """A start state and a shot: breaks, cuts aimed at a ball of a scattered layout, wild shots."""
    R = simulator.params.R
    kind = rng.choice(["break", "aimed", "aimed", "aimed", "wild"])
    if kind == "break":
        cue = (rng.uniform(0.3, 0.8), rng.uniform(0.3, simulator.table.head_string_y))
        state = rack_8ball(simulator.table, R, rng, cue_pos=cue)
        fx, fy = simulator.table.foot_spot
        phi = math.degrees(math.atan2(fy - cue[1], fx - cue[0])) + rng.normal(0, 0.3)
        return state, ShotParams(phi, rng.uniform(0, 5), rng.uniform(4, 8), 0.0, rng.uniform(-0.3, 0.3) * R)
    state = scattered(simulator, rng, int(rng.integers(1, 10)))
    if kind == "aimed":
        c, o = state.pos[0], state.pos[int(rng.integers(1, len(state.ids)))]
        cut = math.asin(rng.uniform(-0.95, 0.95))          # contact offset of the ghost ball
        phi = math.degrees(math.atan2(*(o - c)[::-1]) + cut * 2 * R / max(np.hypot(*(o - c)), 2 * R))
    else:
        phi = rng.uniform(0, 360)
    return state, ShotParams(phi, rng.uniform(0, 12), rng.uniform(0.3, 5.0),
                             rng.uniform(-0.5, 0.5) * R, rng.uniform(-0.5, 0.5) * R)


def test_random_shots_agree_with_the_event_log(simulator):
    """Pocketed balls and pockets, scratch, first contact and rail after contact agree with the
    event log on at least 98% of 200 random shots (breaks, cuts, wild shots on random layouts)."""
    n = 200
    rng = np.random.default_rng(2024)
    kinds: Counter = Counter()
    bad = []
    for k in range(n):
        state, shot = random_shot(simulator, rng)
        res, seen = observe(simulator, state, shot, rng)
        d = compare(simulator, res, seen)
        kinds.update(d)
        if d:
            bad.append((k, d, shot))
    print(f"\nobserved referee vs event log: {n - len(bad)}/{n} shots agree at {FPS:g} fps, "
          f"{NOISE * 1000:g} mm noise; disagreements by kind: {dict(kinds)}")
    for k, d, shot in bad:
        print(f"  shot {k}: {d} {shot}")
    assert len(bad) <= 0.02 * n


def on_line(p, q, dist):
    """The point ``dist`` [m] beyond p on the line from q through p."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    u = (p - q) / np.hypot(*(p - q))
    return tuple(p + dist * u)


def aim(a, b):
    return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))


def hand_built(simulator):
    """name -> (state, shot, what the event log must say): the cases the referee must get exactly."""
    t, R = simulator.table, simulator.params.R
    rt = simulator.table.pocket_center[t.pocket_index("rt")]
    obj = (0.85, 1.85)
    cue = on_line(obj, rt, 0.5)
    lb = simulator.table.pocket_center[t.pocket_index("lb")]
    kick_cue, kick_obj = (0.5, 0.6), (0.5, 1.4)
    return {
        "straight-in pot": (TableState.from_dict({0: cue, 1: obj, 9: (0.3, 0.5)}),
                            ShotParams(aim(cue, obj), 0.0, 2.0, 0.0, -0.3 * R),
                            dict(first_contact=1, pocketed=((1, "rt"),))),
        "pot and follow in (scratch)": (TableState.from_dict({0: cue, 1: obj}),
                                        ShotParams(aim(cue, obj), 0.0, 2.5, 0.0, 0.5 * R),
                                        dict(first_contact=1, pocketed=((1, "rt"), (0, "rt")))),
        "scratch touching nothing": (TableState.from_dict({0: (0.3, 0.3), 5: (0.8, 1.6)}),
                                     ShotParams(aim((0.3, 0.3), lb), 0.0, 1.5),
                                     dict(first_contact=None, pocketed=((0, "lb"),))),
        "cushion-first kick": (TableState.from_dict({0: kick_cue, 3: kick_obj}),
                               # 2 degrees inside the mirror image: the cushion throws the ball long
                               ShotParams(aim(kick_cue, (-kick_obj[0], kick_obj[1])) - 2.0, 0.0, 2.0),
                               dict(first_contact=3)),
        "miss touching nothing": (TableState.from_dict({0: (0.5, 0.5), 2: (0.9, 1.8), 11: (0.2, 1.9)}),
                                  ShotParams(80.0, 0.0, 0.6),
                                  dict(first_contact=None, pocketed=(), rail_after_contact=False)),
        "thin cut": (TableState.from_dict({0: (0.4, 0.6), 4: (0.45, 1.2), 12: (0.8, 1.7)}),
                     ShotParams(aim((0.4, 0.6), (0.45 + 1.9 * R, 1.2)), 0.0, 1.5),
                     dict(first_contact=4)),
    }


@pytest.mark.parametrize("name", ["straight-in pot", "pot and follow in (scratch)", "scratch touching nothing",
                                  "cushion-first kick", "miss touching nothing", "thin cut"])
def test_hand_built_shots_agree_exactly(simulator, name):
    state, shot, want = hand_built(simulator)[name]
    rng = np.random.default_rng(11)
    for rep in range(5):                     # five draws of the camera noise
        res, seen = observe(simulator, state, shot, rng)
        facts = truth(simulator, res)
        for key, value in want.items():      # the case is what its name says
            assert getattr(facts, key) == value, f"{name}: the engine gives {key} = {getattr(facts, key)}"
        assert compare(simulator, res, seen) == [], f"{name} (draw {rep}): {seen.facts} vs {facts}"
        assert seen.facts.pocketed == facts.pocketed
        assert seen.facts.balls_to_rail == facts.balls_to_rail


def test_breaks_agree_exactly(simulator):
    """Breaks from the head string: contacts, drops and the balls driven to a rail (WPA 3.3d)."""
    rng = np.random.default_rng(3)
    for _ in range(8):
        state = rack_8ball(simulator.table, simulator.params.R, rng)
        res, seen = observe(simulator, state, ShotParams(90.0 + rng.normal(0, 0.3), 0.0, rng.uniform(5, 8)), rng)
        assert compare(simulator, res, seen) == []
        assert seen.facts.first_contact == truth(simulator, res).first_contact == int(state.ids[1])   # the apex ball
        assert seen.facts.balls_to_rail == truth(simulator, res).balls_to_rail


def test_ball_lost_mid_table_is_vanished_not_pocketed(simulator):
    """A ball that disappears far from every pocket is reported, not given a pocket."""
    state = TableState.from_dict({0: (0.5, 0.5), 1: (0.55, 1.2), 5: (0.6, 1.6)})
    res = simulator.simulate(state, ShotParams(aim((0.5, 0.5), (0.55, 1.2)), 0.0, 1.0))
    times, ids, pos = camera(simulator, state, res, np.random.default_rng(1))
    assert 5 not in truth(simulator, res).pocketed_ids
    pos[len(times) // 2:, list(ids).index(5)] = np.nan        # the camera loses ball 5
    seen = observe_tracks(times, ids, pos, simulator.table, simulator.params.R)
    assert seen.vanished == {5}
    assert 5 not in seen.facts.pocketed_ids
    assert seen.facts.first_contact == 1


def test_ball_lost_while_rolling_mid_table_is_vanished(simulator):
    """Even a moving ball, lost where its flight reaches no pocket, is not pocketed."""
    state = TableState.from_dict({0: (0.5, 0.4), 1: (0.5, 0.9)})
    res = simulator.simulate(state, ShotParams(90.0, 0.0, 2.0))
    times, ids, pos = camera(simulator, state, res, np.random.default_rng(2))
    j = list(ids).index(1)
    moving = np.flatnonzero(np.hypot(*(pos[:, j] - pos[0, j]).T) > 0.1)[0]
    assert 0.3 < pos[moving, j, 1] < 1.9            # mid-table, far from any pocket
    pos[moving:, j] = np.nan
    seen = observe_tracks(times, ids, pos, simulator.table, simulator.params.R)
    assert seen.vanished == {1} and seen.facts.pocketed == ()


def test_cue_ball_unseen_around_contact_is_noted(simulator):
    """Frames without the cue ball around the first contact: the contact still comes out of its
    path, and the gap is noted for the service."""
    state, shot, _ = hand_built(simulator)["straight-in pot"]
    res = simulator.simulate(state, shot)
    times, ids, pos = camera(simulator, state, res, np.random.default_rng(4))
    hit = res.events.time[res.events.kind == 1][0]
    k = int(np.searchsorted(times, hit))
    pos[k - 1:k + 3, list(ids).index(0)] = np.nan
    seen = observe_tracks(times, ids, pos, simulator.table, simulator.params.R)
    assert seen.facts.first_contact == 1 and seen.facts.pocketed == ((1, "rt"),)
    assert any("not seen" in note for note in seen.undecided)


def test_snapshots_give_the_same_facts_as_arrays(simulator):
    state, shot, _ = hand_built(simulator)["pot and follow in (scratch)"]
    res = simulator.simulate(state, shot)
    times, ids, pos = camera(simulator, state, res, np.random.default_rng(5))
    frames = [Snapshot(float(t), {int(b): (float(x), float(y)) for b, (x, y) in zip(ids, p) if np.isfinite(x)})
              for t, p in zip(times, pos)]
    a = observe_shot(frames, simulator.table, simulator.params.R, aim_deg=shot.phi)
    b = observe_tracks(times, ids, pos, simulator.table, simulator.params.R, aim_deg=shot.phi)
    assert a == b
    assert a.facts.pocketed_ids == {0, 1}


def test_refuses_frames_it_cannot_read(simulator):
    with pytest.raises(ValueError, match="cue ball"):
        observe_shot([Snapshot(0.0, {1: (0.5, 0.5)}), Snapshot(0.1, {1: (0.5, 0.5)})], simulator.table,
                     simulator.params.R)
    with pytest.raises(ValueError, match="increasing times"):
        observe_shot([Snapshot(0.1, {0: (0.5, 0.5)}), Snapshot(0.1, {0: (0.5, 0.5)})], simulator.table,
                     simulator.params.R)


def test_another_ball_given_the_cue_balls_id_before_a_scratch_is_left_out(simulator):
    """The cue ball follows the object ball in; in its last two frames before it drops the camera
    names another ball (a rolling stripe showing its white face) the cue ball, mid-table. Those
    sightings are out of the cue ball's reach (FASTEST_BALL): left out and noted, and the scratch is
    ruled from its real flight (without the rule, the cue ball vanished away from any pocket)."""
    state, shot, _ = hand_built(simulator)["pot and follow in (scratch)"]
    res = simulator.simulate(state, shot)
    times, ids, pos = camera(simulator, state, res, np.random.default_rng(6))
    c = list(ids).index(0)
    last = int(np.flatnonzero(np.isfinite(pos[:, c, 0]))[-1])
    elsewhere = np.array([simulator.table.width / 2, simulator.table.length / 2])
    assert np.hypot(*(pos[last - 2, c] - elsewhere)) > 0.6                     # out of reach in 2 frames at 60 fps
    pos[last - 1:last + 1, c] = elsewhere
    seen = observe_tracks(times, ids, pos, simulator.table, simulator.params.R, aim_deg=shot.phi)
    assert seen.facts.pocketed_ids == {0, 1} and not seen.vanished
    assert any("could not have reached" in note for note in seen.undecided)


def test_unreachable_marks_only_the_runs_a_ball_cannot_have_made():
    """A ball rolling at 2 m/s, seen at 30 fps: unseen for 5 frames it is still in reach (nothing
    marked); a run of 3 frames 0.6 m off its path is marked, and the track after it stands."""
    from controller.observed_tracks import unreachable
    times = np.arange(20) / 30.0
    pos = np.zeros((20, 1, 2))
    pos[:, 0, 0] = 0.2 + 2.0 * times
    seen = np.ones((20, 1), bool)
    seen[5:10] = False
    assert not unreachable(times, pos, seen, 10.0, 0.01).any()
    pos[12:15, 0, 1] = 0.6
    wrong = unreachable(times, pos, seen, 10.0, 0.01)
    assert wrong[:, 0].tolist() == [k in (12, 13, 14) for k in range(20)]


def test_a_rolling_stripe_named_the_cue_ball_after_a_scratch_is_given_back(simulator):
    """The seed-0 game's shot 10, re-enacted: the cue ball drops slowly into rt while the 13 still
    rolls, and in 7 frames after the drop the camera names the rolling 13 (its white face up) the
    cue ball, the 13 itself missing from those frames (the offsets after the cue ball's last
    sighting are the game's). Those sightings are within FASTEST_BALL's reach of the cue ball's
    last one, so rule 0's reach test keeps them; without the continuity rule the cue ball's last
    sighting is the 13's place mid-table, and it vanished. Expected: the event log's facts (the
    scratch in rt), nothing vanished, the sightings given back to the 13."""
    state = TableState.from_dict({0: (1.0837, 1.0688), 13: (1.0043, 2.1675), 2: (0.6471, 0.9994)})
    shot = ShotParams(93.62, 1.53, 1.197, 0.0094, 0.0111)
    res = simulator.simulate(state, shot)
    want = truth(simulator, res)
    assert want.pocketed == ((0, "rt"),) and want.first_contact == 13      # the case is what its name says
    times, ids, pos = camera(simulator, state, res, np.random.default_rng(12), fps=30.0)
    c, s = list(ids).index(0), list(ids).index(13)
    last = int(np.flatnonzero(np.isfinite(pos[:, c, 0]))[-1])
    named = last + np.array([6, 17, 29, 30, 43, 58, 59])
    speed = np.hypot(*(pos[named + 1, s] - pos[named - 1, s]).T) * 15.0       # [m/s], over two frames
    assert named[-1] < len(times) and (speed > 0.1).all()                     # the 13 is still rolling
    far = np.hypot(*(pos[named, s] - pos[last, c]).T)
    assert (far > 0.25).all() and (far < FASTEST_BALL * (times[named] - times[last])).all()   # out of sight, in reach
    cue_last, stripe_last = pos[last, c].copy(), pos[np.flatnonzero(np.isfinite(pos[:, s, 0]))[-1], s].copy()
    pos[named, c], pos[named, s] = pos[named, s], np.nan
    seen = observe_tracks(times, ids, pos, simulator.table, simulator.params.R, aim_deg=shot.phi)
    assert not seen.vanished
    assert seen.facts.pocketed == want.pocketed and seen.facts.first_contact == want.first_contact
    assert any("ball 13 was named ball 0 in 7 frame(s)" in note for note in seen.undecided)
    assert seen.last_seen[0] == tuple(cue_last) and seen.last_seen[13] == tuple(stripe_last)   # the camera's own


def test_continued_gives_back_only_sightings_on_another_balls_track():
    """Two balls at 30 fps: ball 0 rests, then is lost (frame 10 on); ball 1 rolls at 1.5 m/s. The
    frames where ball 1 is missing and its sighting is named 0 are given back to ball 1; a
    sighting named 0 off ball 1's track (40 mm off: no ball's track goes there) stays 0's; and
    where ball 0's own track also lies within 2R (a collision), nothing is given back."""
    from controller.observed_tracks import continued
    times = np.arange(30) / 30.0
    pos = np.full((30, 2, 2), np.nan)
    pos[:10, 0] = (0.3, 0.3)
    pos[:, 1, 0], pos[:, 1, 1] = 0.2 + 1.5 * times, 1.0
    for k in (14, 20, 21):
        pos[k, 0], pos[k, 1] = pos[k, 1], np.nan
    pos[25, 0], pos[25, 1] = pos[25, 1] + (0.0, 0.04), np.nan
    seen = np.isfinite(pos).all(-1)
    out, moves = continued(times, pos, seen, 0.01, 2 * 0.0286, 3)
    assert moves == [(14, 0, 1), (20, 0, 1), (21, 0, 1)]
    assert np.isnan(out[[14, 20, 21], 0]).all() and np.allclose(out[[14, 20, 21], 1, 0], 0.2 + 1.5 * times[[14, 20, 21]])
    assert np.allclose(out[25, 0], pos[25, 0])
    pos[10:, 0] = pos[10:, 1] + (0.0, 0.05)              # ball 0 rolls alongside, 50 mm off (< 2R)
    pos[14, 0], pos[14, 1] = pos[14, 1], np.nan
    _, moves = continued(times, pos, np.isfinite(pos).all(-1), 0.01, 2 * 0.0286, 3)
    assert (14, 0, 1) not in moves
