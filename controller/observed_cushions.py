"""One ball's cushion contacts from its camera sightings (rule 4 (a)-(c) and (e) of the observed
referee, controller/observed_referee.py, which states the rules in full).

A contact is seen frame to frame (the velocity turns from into a cushion to out of it), slowly
(the ball approaches and retreats over several frames), or ruled from a ball that came to rest
against a cushion; a struck ball that reaches a cushion before the next frames can show it is
ruled from the line of centres. Positions are in the table frame (docs/frame.md), in metres.
"""
from __future__ import annotations

import numpy as np

from controller.observed_tracks import REST_FRAMES
from planner.table import Table
from planner.table_regions import cushion_normals, cushion_time, pocket_entry, segment_distance, segments_distance

CUSHION_MARGIN = 2e-3   # how far beyond R of a cushion an extrapolated path may pass at a contact [m]
SLOW_MARGIN = 2e-3      # how far beyond R of a cushion a slow ball's nearest sighting may lie at a contact [m]
SLOW_WINDOW = 6         # frames over which a slow ball's approach to and retreat from a cushion are measured
SLOW_AVERAGE = 3        # frames averaged into each position for that
REST_TOUCH = 1e-3       # a ball arriving at rest this close to a cushion [m] is ruled to have touched it
SLIDE_DECEL = 0.2 * 9.81  # a struck ball's deceleration while it slides (cloth u_s g) [m/s^2]


def cushion_contacts(t, p, table: Table, R: float, noise: float, dt: float) -> tuple[list[float], list[float]]:
    """One ball's cushion contacts (rule 4) from its seen samples t (M,) [s], p (M, 2) [m]:
    (times [s] of the contacts seen, times of its arrivals at rest against a cushion)."""
    delta = 3.5 * noise * np.sqrt(2 / SLOW_AVERAGE)
    return (sorted(_fast_contacts(t, p, table, R, max(0.1, 4.0 * np.sqrt(2) * noise / dt))
                   + _slow_contacts(t, p, table, R, delta) + _slow_contacts(t, p, table, R, delta, 2 * SLOW_WINDOW)),
            _rest_contact(t, p, table, R, noise, delta))


def struck_into_cushion(rest, q, v, table: Table, R: float, dt: float) -> float | None:
    """Time [s] after the first contact at which the struck ball, at rest at ``rest`` (2,) [m] and
    hit by the cue ball centred at q (2,) [m] moving at v (2,) [m/s], reaches a cushion within two
    frame intervals dt [s] (so that no frame may show it): sent along the line of centres at the
    cue ball's speed along it (equal masses), sliding at SLIDE_DECEL, and not into a pocket first;
    None if it does not."""
    d = (rest - q) / np.hypot(*(rest - q))
    u = max(float(v @ d), 0.0)
    if u == 0.0:
        return None
    t_hit = cushion_time(rest, u * d, 2 * dt, table, R)
    if t_hit >= 2 * dt or u * t_hit > u * u / (2 * SLIDE_DECEL):
        return None
    if pocket_entry(rest, u * d, t_hit, table, margin=0.0).min() < t_hit:
        return None
    return t_hit


def _rest_contact(t, p, table: Table, R: float, noise: float, delta: float) -> list[float]:
    """[arrival time] if the ball came to rest within R + REST_TOUCH of a cushion (the mean of
    its last REST_FRAMES sightings) and was more than delta [m] farther from it 2 SLOW_WINDOW
    frames before it arrived; else []."""
    M, w = t.shape[0], 2 * SLOW_WINDOW
    if M < REST_FRAMES + w + 1:
        return []
    final = p[-REST_FRAMES:].mean(0)
    _, d = cushion_normals(final[None], table)
    c = int(np.argmin(d[0]))
    if d[0, c] > R + REST_TOUCH:
        return []
    away = np.flatnonzero(np.hypot(*(p - final).T) > 5 * noise)
    a = int(away[-1]) + 1 if away.size else 0
    if a < w or a > M - REST_FRAMES or cushion_normals(p[a - w][None], table)[1][0, c] - d[0, c] <= delta:
        return []
    return [float(t[a])]


def _fast_contacts(t, p, table: Table, R: float, eps: float) -> list[float]:
    """Contacts seen frame to frame: the velocity over the interval before points into a cushion
    and the one after points out of it, by more than eps [m/s], and the straight flights carried
    on from either side over the interval come within R + CUSHION_MARGIN of it."""
    M = t.shape[0]
    if M < 4:
        return []
    i = np.arange(1, M - 2)
    v = np.diff(p, axis=0) / np.diff(t)[:, None]
    vin, vout, h = v[i - 1], v[i + 1], (t[i + 1] - t[i])[:, None]
    keep = np.hypot(*(vout - vin).T) > eps
    i, vin, vout, h = i[keep], vin[keep], vout[keep], h[keep]
    if i.size == 0:
        return []
    n_in, d_in = cushion_normals(p[i], table)
    n_out, _ = cushion_normals(p[i + 1], table)
    vn_in = (vin[:, None] * n_in).sum(-1)
    rev = (vn_in < -eps) & ((vout[:, None] * n_out).sum(-1) > eps)
    if not rev.any():
        return []
    e = (slice(None), None)
    a0, a1, b0, b1 = p[i], p[i] + vin * h, p[i + 1] - vout * h, p[i + 1]
    near = np.concatenate([
        (segments_distance(a0[e], a1[e], table.lin_p1[None], table.lin_p2[None]) <= R + CUSHION_MARGIN)
        & (segments_distance(b0[e], b1[e], table.lin_p1[None], table.lin_p2[None]) <= R + CUSHION_MARGIN),
        (segment_distance(a0[e], a1[e], table.circ_center[None]) <= table.circ_radius + R + CUSHION_MARGIN)
        & (segment_distance(b0[e], b1[e], table.circ_center[None]) <= table.circ_radius + R + CUSHION_MARGIN)], 1)
    r, c = np.nonzero(rev & near)
    return list(t[i[r]] + np.clip((d_in[r, c] - R) / -vn_in[r, c], 0.0, h[r, 0]))


def _slow_contacts(t, p, table: Table, R: float, delta: float, w: int = SLOW_WINDOW) -> list[float]:
    """Contacts of slow balls: within R + SLOW_MARGIN of a cushion at a frame, the ball came
    more than delta [m] closer to it over the w frames before and went more than delta away over
    the w frames after (positions averaged over SLOW_AVERAGE frames)."""
    M, a = t.shape[0], SLOW_AVERAGE
    if M < 2 * (w + a):
        return []
    c = np.cumsum(np.vstack([np.zeros((1, 2)), p]), axis=0)
    avg = (c[a:] - c[:-a]) / a                     # avg[j] = mean of p[j .. j + a - 1]
    i = np.arange(w + a - 1, M - w - a)            # interval i -> i + 1
    n, d = cushion_normals(p[i], table)
    n1, d1 = cushion_normals(p[i + 1], table)
    close = np.minimum(d, d1) <= R + SLOW_MARGIN
    if not close.any():
        return []
    din = avg[i - a + 1] - avg[i - a + 1 - w]       # frames i-a+1..i against w frames earlier
    dout = avg[i + 1 + w] - avg[i + 1]              # frames i+1..i+a against w frames later
    hit = close & ((din[:, None] * n).sum(-1) < -delta) & ((dout[:, None] * n1).sum(-1) > delta)
    return list(t[i[np.nonzero(hit)[0]]])
