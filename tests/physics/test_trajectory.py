"""The trajectory sampler against the event log it replays and against the analytic motion laws."""
import math

import numpy as np
import pytest

from planner.physics.eventlog import CUSHION_EVENTS, EV_POCKET, EV_SLIDING_ROLLING, EV_STICK
from planner.physics.kernel import SETTLE_DEPTH
from planner.physics.trajectory import frame_times, positions_at, sample
from planner.rack import rack_8ball
from planner.shot import ShotParams
from planner.state import TableState


def random_shots(simulator, n, seed):
    """(start state, result) for n breaks and random shots on random racks / scattered layouts."""
    rng = np.random.default_rng(seed)
    t, R = simulator.table, simulator.params.R
    out = []
    for k in range(n):
        rack = rack_8ball(t, R, rng)
        if k % 3 == 0:
            state = rack
            shot = ShotParams(90 + rng.uniform(-1.5, 1.5), rng.uniform(0, 5), rng.uniform(3, 8))
        else:
            keep = rng.choice(np.arange(1, 16), size=rng.integers(2, 9), replace=False)
            pos = [(rng.uniform(R, t.width - R), rng.uniform(R, t.length - R))]
            for _ in keep:
                while True:
                    p = (rng.uniform(R, t.width - R), rng.uniform(R, t.length - R))
                    if all(math.dist(p, q) > 2 * R + 1e-3 for q in pos):
                        break
                pos.append(p)
            state = TableState(np.concatenate([[0], rack.ids[keep]]), np.array(pos))
            shot = ShotParams(rng.uniform(0, 360), rng.uniform(0, 10), rng.uniform(0.3, 5),
                              rng.uniform(-0.5, 0.5) * R, rng.uniform(-0.5, 0.5) * R)
        out.append((state, simulator.simulate(state, shot)))
    return out


@pytest.fixture(scope="module")
def shots(simulator):
    return random_shots(simulator, 40, seed=7)


def test_sample_at_each_event_is_the_event_state(simulator, shots):
    """At an event's time a ball is where the log says it is right after its last event then."""
    for start, res in shots:
        ev = res.events
        col = {int(b): i for i, b in enumerate(res.ids)}
        times = ev.time[ev.time < res.t_end]
        pos = positions_at(res, start, times, simulator.params)
        for k, e in enumerate(np.flatnonzero(ev.time < res.t_end)):
            rows = [(int(ev.a[e]), 0)] + ([(int(ev.b[e]), 1)] if res.event_state[e, 1] >= 0 else [])
            for ball, row in rows:
                later = [f for f in range(e + 1, len(ev)) if ev.time[f] == ev.time[e]
                         and (ev.a[f] == ball or (res.event_state[f, 1] >= 0 and ev.b[f] == ball))]
                if later:
                    continue     # a later event at the same instant sets this ball's state
                got = pos[k, col[ball]]
                if ev.kind[e] == EV_POCKET:
                    assert np.isnan(got).all()
                else:
                    np.testing.assert_allclose(got, res.event_rvw[e, row, 0, :2], atol=1e-12)


def test_positions_are_continuous_across_events(simulator, shots):
    """Just before and just after any event every ball on the table is within its travel of
    itself (plus the engine's few-um contact spacing): no ball jumps to a stale state."""
    eps = 1e-7
    for start, res in shots:
        t = res.events.time[(res.events.time > eps) & (res.events.time < res.t_end - eps)]
        before = sample(res, start, t - eps, simulator.params)
        after = positions_at(res, start, t + eps, simulator.params)
        on = ~np.isnan(after[..., 0])
        speed = np.nan_to_num(np.hypot(*before.vel.transpose(2, 0, 1)))
        jump = np.hypot(*(after - before.pos).transpose(2, 0, 1))
        assert np.all(jump[on] <= 2 * eps * (speed[on] + 10.0) + 1e-5)


def test_rolling_ball_follows_the_analytic_law(simulator):
    """Centre-ball stroke: slides as v0 t - mu_s g t^2 / 2 until 2 v0 / (7 mu_s g), then rolls as
    v1 t - mu_r g t^2 / 2 from v1 = 5/7 v0 until it stops after v1 / (mu_r g)."""
    p = simulator.params
    start = TableState.from_dict({0: (simulator.table.width / 2, 0.4)})
    res = simulator.simulate(start, ShotParams(phi=90.0, theta=0.0, V=0.5))
    assert list(res.events.kind[:2]) == [EV_STICK, EV_SLIDING_ROLLING]
    assert not np.isin(res.events.kind, CUSHION_EVENTS).any()     # it stops on the open cloth
    v0 = res.event_rvw[0, 0, 1, 1]
    t1 = 2 * v0 / (7 * p.u_s * p.g)
    v1 = 5 / 7 * v0
    t2 = t1 + v1 / (p.u_r * p.g)
    y1 = 0.4 + v0 * t1 - p.u_s * p.g * t1 ** 2 / 2
    times = np.linspace(0.0, t2 + 1.0, 400)
    tr = times - t1
    want = np.where(times < t1, 0.4 + v0 * times - p.u_s * p.g * times ** 2 / 2,
                    y1 + v1 * tr - p.u_r * p.g * tr ** 2 / 2)
    want = np.where(times < t2, want, y1 + v1 ** 2 / (2 * p.u_r * p.g))
    pos = positions_at(res, start, times, p)
    np.testing.assert_allclose(pos[:, 0, 1], want, atol=1e-9)
    np.testing.assert_allclose(pos[:, 0, 0], simulator.table.width / 2, atol=1e-12)


def test_final_samples_are_the_final_positions(simulator, shots):
    """At t_end the sample is the result's final position; just before it, the evolved state is
    within the engine's final settle distance of it."""
    for start, res in shots:
        on = res.final_state != 4
        end = positions_at(res, start, [res.t_end, res.t_end + 5.0], simulator.params)
        np.testing.assert_array_equal(end[0, on], res.final_pos[on])
        np.testing.assert_array_equal(end[1, on], res.final_pos[on])
        if res.t_end > 0 and not res.truncated:
            just = positions_at(res, start, [res.t_end * (1 - 1e-12)], simulator.params)[0]
            assert np.all(np.hypot(*(just[on] - res.final_pos[on]).T) <= SETTLE_DEPTH + 1e-6)


def test_pocketed_balls_are_nan_from_their_pocket_event(simulator, shots):
    n_pocketed = 0
    for start, res in shots:
        ev = res.events
        times = frame_times(res.t_end, 60.0, 0.2)
        pos = positions_at(res, start, times, simulator.params)
        for i, ball in enumerate(res.ids):
            drop = ev.time[(ev.kind == EV_POCKET) & (ev.a == ball)]
            if drop.size:
                n_pocketed += 1
                assert np.isnan(pos[times >= drop[0], i]).all()
                assert np.isfinite(pos[times < drop[0], i]).all()
            else:
                assert np.isfinite(pos[:, i]).all()
    assert n_pocketed >= 4      # the check above ran on real drops


def test_balls_never_overlap_at_frame_times(simulator, shots):
    R = simulator.params.R
    for start, res in shots:
        pos = positions_at(res, start, frame_times(res.t_end, 240.0), simulator.params)
        d = np.hypot(*(pos[:, :, None] - pos[:, None, :]).transpose(3, 0, 1, 2))
        iu = np.triu_indices(pos.shape[1], 1)
        d = d[:, iu[0], iu[1]]
        assert np.all(np.nan_to_num(d, nan=np.inf) >= 2 * R - 1e-6)


def test_start_state_must_match_the_result(simulator):
    start = TableState.from_dict({0: (0.5, 0.5), 1: (0.5, 1.0)})
    res = simulator.simulate(start, ShotParams(90.0, 0.0, 1.0))
    with pytest.raises(ValueError, match="differ from the shot's ids"):
        positions_at(res, TableState.from_dict({0: (0.5, 0.5)}), [0.1], simulator.params)


def test_frame_times_cover_the_shot():
    t = frame_times(1.0, 60.0)
    assert t[0] == 0.0 and t[-1] >= 1.0 and t[-2] < 1.0
    np.testing.assert_allclose(np.diff(t), 1 / 60)
