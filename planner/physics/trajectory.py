"""Where every ball of a simulated shot is at given times: the engine's event log, replayed.

A simulated camera needs the balls' centres at its frame times, not only at events. Between two
of its own events a ball moves in closed form (``motion.evolve``), so its state at time t is its
state right after its latest event at or before t, evolved by the time since. A ball's events are
every log entry it is an agent of: the strike (``EV_STICK``, the cue ball), ball-ball contacts
(either row of ``event_rvw``), cushion contacts, pocket drops and its motion transitions
(sliding -> rolling -> spinning -> stationary are logged with the ball as agent ``a``). Before its
first event a ball rests at its start position.

    traj = sample(result, start, times, params)     # traj.pos (T, N, 2), traj.state (T, N)
    pos = positions_at(result, start, times, params)

At and after ``result.t_end`` the balls are at rest where the engine left them
(``result.final_rvw``, which includes the engine's final settle of at most 0.1 mm out of a
cushion, and the balls stopped by the max-events guard of a truncated shot).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.jit import njit
from planner.physics.engine import ShotResult
from planner.physics.eventlog import EV_BALL_BALL
from planner.physics.motion import POCKETED, STATIONARY, evolve
from planner.physics.params import PhysicsParams
from planner.state import TableState


@dataclass(frozen=True)
class Trajectory:
    """Sampled states of the balls of one shot.

    times (T,) [s]; ids (N,) ball ids in the order of ``ShotResult.ids``.
    pos (T, N, 2) ball centres [m], NaN once the ball is pocketed (from its pocket event on).
    vel (T, N, 2) centre velocities [m/s], NaN once pocketed.
    state (T, N) motion codes (docs/frame.md: 0 stationary .. 4 pocketed).
    """
    times: np.ndarray
    ids: np.ndarray
    pos: np.ndarray
    vel: np.ndarray
    state: np.ndarray


def keyframes(result: ShotResult, start: TableState,
              R: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each ball's states in time order: its start (t = 0, at rest, centre at height R [m]) and
    after each of its events.

    Returns (offsets (N + 1,), t (K,), rvw (K, 3, 3), s (K,)): ball i's keyframes are
    ``offsets[i]:offsets[i + 1]``, in the order of the event log (so among events at the same
    time the one logged last comes last). Raises ValueError if ``start`` is not the state the
    shot was simulated from (other ids or order).
    """
    ids = np.asarray(result.ids)
    if not np.array_equal(np.asarray(start.ids), ids):
        raise ValueError(f"start state ids {np.asarray(start.ids).tolist()} differ from the shot's "
                         f"ids {ids.tolist()} (pass the TableState the shot was simulated from)")
    n = ids.shape[0]
    ev = result.events
    index = {int(b): i for i, b in enumerate(ids)}
    per_ball: list[list[tuple[float, int, int]]] = [[] for _ in range(n)]   # (t, event, row)
    for e in range(len(ev)):
        per_ball[index[int(ev.a[e])]].append((float(ev.time[e]), e, 0))
        if ev.kind[e] == EV_BALL_BALL:
            per_ball[index[int(ev.b[e])]].append((float(ev.time[e]), e, 1))
    counts = np.array([1 + len(k) for k in per_ball])
    offsets = np.concatenate([[0], np.cumsum(counts)])
    t = np.zeros(offsets[-1])
    rvw = np.zeros((offsets[-1], 3, 3))
    s = np.full(offsets[-1], STATIONARY, np.int64)
    for i in range(n):
        o = offsets[i]
        rvw[o, 0, :2] = start.pos[i]
        rvw[o, 0, 2] = R
        for k, (te, e, row) in enumerate(per_ball[i], start=1):
            t[o + k] = te
            rvw[o + k] = result.event_rvw[e, row]
            s[o + k] = result.event_state[e, row]
    return offsets, t, rvw, s


@njit(cache=True)
def _sample(offsets, key_t, key_rvw, key_s, times, t_end, final_rvw, final_s, p, pos, vel, state):
    """Fill pos (T, N, 2), vel (T, N, 2), state (T, N) from the keyframes (see ``keyframes``)."""
    n = offsets.shape[0] - 1
    rvw = np.empty((3, 3))
    for i in range(n):
        lo, hi = offsets[i], offsets[i + 1]
        for k in range(times.shape[0]):
            t = times[k]
            if t >= t_end:
                rvw[:, :] = final_rvw[i]
                s = final_s[i]
            else:
                j = lo + np.searchsorted(key_t[lo:hi], t, side="right") - 1
                if j < lo:
                    j = lo
                rvw[:, :] = key_rvw[j]
                s = key_s[j]
                evolve(rvw, s, t - key_t[j], p)
            state[k, i] = s
            if s == POCKETED:
                pos[k, i, 0] = pos[k, i, 1] = vel[k, i, 0] = vel[k, i, 1] = np.nan
            else:
                pos[k, i, 0] = rvw[0, 0]
                pos[k, i, 1] = rvw[0, 1]
                vel[k, i, 0] = rvw[1, 0]
                vel[k, i, 1] = rvw[1, 1]


def sample(result: ShotResult, start: TableState, times, params: PhysicsParams) -> Trajectory:
    """The balls' centres, velocities and motion states at ``times`` (T,) [s] after the strike.

    result: ``Simulator.simulate(start, shot)`` with the same ``params``; start: the state it was
    simulated from. Times may come in any order; negative times give the start positions.
    Raises ValueError for a start state that does not match the result or non-finite times.
    """
    times = np.ascontiguousarray(np.asarray(times, dtype=np.float64).reshape(-1))
    if not np.all(np.isfinite(times)):
        raise ValueError("sample times must be finite seconds after the strike")
    offsets, key_t, key_rvw, key_s = keyframes(result, start, params.R)
    T, n = times.shape[0], offsets.shape[0] - 1
    pos = np.empty((T, n, 2))
    vel = np.empty((T, n, 2))
    state = np.empty((T, n), np.int64)
    _sample(offsets, key_t, key_rvw, key_s, times, float(result.t_end),
            np.ascontiguousarray(result.final_rvw), np.ascontiguousarray(result.final_state, dtype=np.int64),
            params.as_array(), pos, vel, state)
    return Trajectory(times=times, ids=np.asarray(result.ids).copy(), pos=pos, vel=vel, state=state)


def positions_at(result: ShotResult, start: TableState, times, params: PhysicsParams) -> np.ndarray:
    """(T, N, 2) ball centres [m] at ``times`` (T,) [s], NaN once a ball is pocketed; see ``sample``."""
    return sample(result, start, times, params).pos


def frame_times(t_end: float, fps: float, t_after: float = 0.0) -> np.ndarray:
    """A camera's frame times [s]: 0, 1/fps, ... up to and including the first frame at or after
    ``t_end + t_after`` (so the last frame sees the table at rest)."""
    if not fps > 0:
        raise ValueError(f"fps must be a positive frame rate, got {fps}")
    n = int(np.ceil((t_end + t_after) * fps - 1e-9)) + 1
    return np.arange(n) / fps
