"""Camera frames as ball tracks, and when each ball started to move (rule 1 of the observed
referee, controller/observed_referee.py).

A frame is a ``Snapshot``: its time [s] and the identified balls' centres [m] in the table frame
(docs/frame.md). ``tracks`` lines the frames up by ball id into arrays; ``continued`` gives a
sighting named with one ball's id back to the ball whose track it continues; ``unreachable`` finds
the sightings a ball cannot have made (another ball given its id in a few frames); ``ball_motion``
reads from them each ball's rest position, the frame and time it departed, and whether it was nudged.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

REST_FRAMES = 8         # sightings averaged into a ball's final rest position


@dataclass(frozen=True)
class Snapshot:
    """One camera frame: its time t [s] and the identified balls seen, id -> (x, y) [m]."""
    t: float
    balls: Mapping[int, tuple[float, float]]


def tracks(snapshots: Sequence[Snapshot]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Frames -> (times (T,) [s], ids (N,) sorted, pos (T, N, 2) [m], NaN where a ball is unseen)."""
    ids = np.array(sorted({int(b) for s in snapshots for b in s.balls}), dtype=np.int64)
    col = {int(b): i for i, b in enumerate(ids)}
    pos = np.full((len(snapshots), len(ids), 2), np.nan)
    for k, s in enumerate(snapshots):
        for b, xy in s.balls.items():
            pos[k, col[int(b)]] = xy
    return np.array([float(s.t) for s in snapshots]), ids, pos


def continued(times, pos, seen, gate: float, apart: float, frames: int) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """Identity by motion continuity: sightings named with one ball's id that continue another
    ball's track are given back to that ball (vision names a rolling stripe showing its white face
    the cue ball in a frame; the stripe is then missing from that frame, and its sighting lies
    where its own track goes).

    Frames in order. In frame k, a ball j not seen there, last seen at most ``frames`` median frame
    intervals back, is predicted at its last sighting carried on at the velocity between its last
    two sightings (where it lay, if seen once). A sighting named i that lies within ``gate`` [m] of
    that prediction, and farther than ``apart`` [m] (two balls' centres are never closer than 2R)
    from both ball i's last sighting and its own prediction (carried on likewise, however old; none
    if i was never seen before), is ball j's; the nearest such sighting if several. A sighting given
    back counts as j's in the frames after it.

    times (T,) [s], pos (T, N, 2) [m], seen (T, N) bool. Returns (pos with the sightings given back
    moved to their ball's column, [(frame, column named, column given to)])."""
    pos = np.array(pos, dtype=np.float64)
    seen = np.array(seen, dtype=bool)
    T, N = seen.shape
    last = np.full(N, -1)                    # each ball's last two sightings before frame k
    prev = np.full(N, -1)
    moves: list[tuple[int, int, int]] = []
    recent = frames * float(np.median(np.diff(times))) * (1 + 1e-6) if T > 1 else 0.0

    def predicted(k: int, i: int) -> np.ndarray:
        b, a = last[i], prev[i]
        if a < 0:
            return pos[b, i]
        return pos[b, i] + (pos[b, i] - pos[a, i]) * (times[k] - times[b]) / (times[b] - times[a])

    for k in range(T):
        lost = [j for j in np.flatnonzero(~seen[k]) if last[j] >= 0 and times[k] - times[last[j]] <= recent]
        for j in lost:
            named = np.flatnonzero(seen[k])
            if named.size == 0:
                break
            d = np.hypot(*(pos[k, named] - predicted(k, j)).T)
            n = int(np.argmin(d))
            i = int(named[n])
            own = (pos[k, i] - predicted(k, i), pos[k, i] - pos[last[i], i]) if last[i] >= 0 else ()
            if d[n] >= gate or any(np.hypot(*v) <= apart for v in own):
                continue
            pos[k, j], pos[k, i] = pos[k, i], np.nan
            seen[k, j], seen[k, i] = True, False
            moves.append((k, i, int(j)))
        now = np.flatnonzero(seen[k])
        prev[now], last[now] = last[now], k
    return pos, moves


def unreachable(times, pos, seen, max_speed: float, slack: float) -> np.ndarray:
    """(T, N) bool: the sightings no ball could have made. A ball's sightings split into runs, each
    sighting within ``max_speed`` [m/s] x the time since the one before + ``slack`` [m] of it; its first
    run stands, and a later run stands only if its first sighting is that reach from the last
    sighting that stands. The sightings of the other runs (a ball named with another's id in a few
    frames, such as a rolling stripe showing its white face, named the cue ball) are unreachable.
    times (T,) [s], pos (T, N, 2) [m], seen (T, N) bool."""
    out = np.zeros(seen.shape, bool)
    for i in range(seen.shape[1]):
        k = np.flatnonzero(seen[:, i])
        if k.size < 2:
            continue
        step = np.hypot(*(pos[k[1:], i] - pos[k[:-1], i]).T)
        reach = max_speed * np.diff(times[k]) + slack
        starts = np.r_[0, np.flatnonzero(step > reach) + 1]
        ends = np.r_[starts[1:], k.size]
        last = k[ends[0] - 1]
        for a, b in zip(starts[1:], ends[1:]):
            d = np.hypot(*(pos[k[a], i] - pos[last, i]))
            if d > max_speed * (times[k[a]] - times[last]) + slack:
                out[k[a:b], i] = True
            else:
                last = k[b - 1]
    return out


@dataclass(frozen=True)
class Motion:
    """Rule 1 for the N balls in play.

    rest: (N, 2) [m] each ball's mean position before the cue ball moved.
    first_moved: (N,) index of the frame of its first moved sighting, T if it never moved.
    departure: (N,) its estimated departure time [s], inf if it never moved.
    nudged: (N,) it never moved, but came to rest elsewhere than before (beyond 4 standard errors).
    """
    rest: np.ndarray
    first_moved: np.ndarray
    departure: np.ndarray
    nudged: np.ndarray


def ball_motion(times, pos, seen, cue: int, noise: float, move: float) -> Motion:
    """Rule 1 from times (T,) [s], pos (T, N, 2) [m] (NaN = unseen), seen (T, N), the cue ball's
    column ``cue``, the vision noise [m] per axis and the displacement ``move`` [m] that counts
    as motion."""
    disp0 = np.hypot(*(pos[:, cue] - pos[0, cue]).T)
    cue_on = int(np.argmax(np.nan_to_num(disp0) > move)) if np.any(np.nan_to_num(disp0) > move) else len(times)
    rest = np.nanmean(pos[:max(cue_on, 1)], axis=0)
    rest = np.where(np.isfinite(rest), rest, pos[0])
    first_moved, dep = departures(times, pos, seen, rest, move)
    n_rest = max(cue_on, 1)
    final = np.array([pos[np.flatnonzero(seen[:, i])[-REST_FRAMES:], i].mean(0) for i in range(seen.shape[1])])
    nudged = seen[-1] & (np.hypot(*(final - rest).T) > 4 * noise * np.sqrt(1 / n_rest + 1 / REST_FRAMES))
    return Motion(rest, first_moved, dep, nudged)


def departures(times, pos, seen, rest, move) -> tuple[np.ndarray, np.ndarray]:
    """Per ball (rule 1): the frame index of its first moved sighting (a sighting more than
    ``move`` [m] from rest, and so is the next sighting, if any; for a ball that disappeared
    without one, the first frame it is missing from), or T if it never moved; and its departure
    time [s], extrapolated back from there (distance from rest / speed to the next sighting) but
    not before the last earlier sighting within move / 2 of rest; inf if it never moved."""
    T, N = seen.shape
    disp = np.where(seen, np.hypot(*(pos - rest[None]).transpose(2, 0, 1)), np.nan)
    far = np.nan_to_num(disp) > move
    dep = np.full(N, np.inf)
    first = np.full(N, T)
    for i in np.flatnonzero(far.any(0)):
        k_seen = np.flatnonzero(seen[:, i])
        f = far[k_seen, i]
        ok = f & np.append(f[1:], True)             # persistent: the next sighting is far too
        if not ok.any():
            continue
        m = int(np.argmax(ok))
        k = int(k_seen[m])
        still = k_seen[:m][disp[k_seen[:m], i] <= move / 2]
        lo = times[still[-1]] if still.size else times[0]
        speed = 0.0
        if m + 1 < k_seen.size:
            k2 = int(k_seen[m + 1])
            speed = np.hypot(*(pos[k2, i] - pos[k, i])) / (times[k2] - times[k])
        dep[i] = max(lo, times[k] - disp[k, i] / speed) if speed > 0 else lo
        first[i] = k
    for i in np.flatnonzero(~seen[-1] & (first == T)):    # gone before a frame showed it moving
        L = int(np.flatnonzero(seen[:, i])[-1])
        first[i], dep[i] = L + 1, times[L]
    return first, dep
