"""The event loop, compiled with numba: one shot in place, and a parallel batch of shots.

Each step finds the earliest pending event (cached per ball and per ball pair, recomputed
only for the balls the previous event touched), advances every ball to that time in closed
form, and resolves the event. Simultaneous events are taken stick first, then transitions and
pocket drops, then collisions, and within a tier the most energetic first.

Table arrays (see ``engine.table_arrays``): lin (L, 6) [p1x, p1y, p2x, p2y, nx, ny] with
lin_h (L,) nose heights; circ (C, 4) [cx, cy, radius, height]; pockets (P, 3) [cx, cy, radius].
"""
from __future__ import annotations

import math

import numpy as np
from numba import prange

from planner.jit import njit
from planner.physics.eventlog import (
    EV_BALL_BALL,
    EV_CIRCULAR_CUSHION,
    EV_LINEAR_CUSHION,
    EV_POCKET,
    EV_ROLLING_SPINNING,
    EV_ROLLING_STATIONARY,
    EV_SLIDING_ROLLING,
    EV_SPINNING_STATIONARY,
    EV_STICK,
)
from planner.physics.events import ball_ball_time, circular_cushion_time, linear_cushion_time, pocket_time, reach
from planner.physics.motion import POCKETED, ROLLING, SLIDING, SPINNING, STATIONARY, energy, evolve, next_transition
from planner.physics.params import P_R
from planner.physics.resolve.ball_ball import collide, make_kiss
from planner.physics.resolve.ball_cushion import han_2005, kiss_circle, kiss_line
from planner.physics.resolve.canonical import pocket_ball, transition
from planner.physics.resolve.stick_ball import cue_strike

SPACER = 1e-6  # gap left between bodies after a contact is resolved [m]
SETTLE_DEPTH = 1e-4  # a ball resting at most this far inside a cushion is moved out to touching [m]


def kernel_rows(shots: np.ndarray, R: float) -> np.ndarray:
    """The kernels' shot rows from shots in ShotParams order: (K, 5) [phi deg, theta deg, V m/s,
    a m, b m] (``planner.shot.SHOT_FIELDS``) -> C-contiguous (K, 5) [V m/s, phi deg, theta deg,
    a/R, b/R], the argument order of ``cue_strike``. R: ball radius [m]. The one place that
    conversion is made; the shots are not validated here (``engine.Simulator`` does that)."""
    phi, theta, V, a, b = np.asarray(shots, dtype=np.float64).T
    return np.ascontiguousarray(np.column_stack([V, phi, theta, a / R, b / R]))


@njit(cache=True)
def _moving(s):
    return s == SLIDING or s == ROLLING


@njit(cache=True)
def _transition_event(new_state, old_state):
    if old_state == SLIDING:
        return EV_SLIDING_ROLLING
    if old_state == ROLLING:
        return EV_ROLLING_SPINNING if new_state == SPINNING else EV_ROLLING_STATIONARY
    return EV_SPINNING_STATIONARY


@njit(cache=True)
def _update_ball(i, t, rvw, s, p, lin, circ, pockets, trans_t, trans_s, wall_t, wall_k, wall_i,
                 pock_t, pock_i, pair_t):
    """Recompute every cached event time that involves ball i (absolute times)."""
    n = rvw.shape[0]
    R = p[P_R]
    wall_t[i] = np.inf
    pock_t[i] = np.inf
    if s[i] == POCKETED:
        trans_t[i] = np.inf
        for j in range(n):
            pair_t[i, j] = np.inf
            pair_t[j, i] = np.inf
        return
    dt, ns = next_transition(rvw[i], s[i], p)
    trans_t[i] = t + dt
    trans_s[i] = ns
    if _moving(s[i]):
        reach_i = reach(rvw[i], s[i], dt, p)
        x, y = rvw[i, 0, 0], rvw[i, 0, 1]
        for k in range(lin.shape[0]):
            tk = linear_cushion_time(rvw[i], s[i], lin[k, 0], lin[k, 1], lin[k, 2], lin[k, 3],
                                     lin[k, 4], lin[k, 5], dt, p, R)
            if t + tk < wall_t[i]:
                wall_t[i] = t + tk
                wall_k[i] = EV_LINEAR_CUSHION
                wall_i[i] = k
        for k in range(circ.shape[0]):
            gap = np.sqrt((x - circ[k, 0]) ** 2 + (y - circ[k, 1]) ** 2) - circ[k, 2] - R
            if gap > reach_i:
                continue
            tk = circular_cushion_time(rvw[i], s[i], circ[k, 0], circ[k, 1], circ[k, 2], dt, p, R)
            if t + tk < wall_t[i]:
                wall_t[i] = t + tk
                wall_k[i] = EV_CIRCULAR_CUSHION
                wall_i[i] = k
        for k in range(pockets.shape[0]):
            gap = np.sqrt((x - pockets[k, 0]) ** 2 + (y - pockets[k, 1]) ** 2) - pockets[k, 2]
            if gap > reach_i:
                continue
            tk = pocket_time(rvw[i], s[i], pockets[k, 0], pockets[k, 1], pockets[k, 2], dt, p)
            if t + tk < pock_t[i]:
                pock_t[i] = t + tk
                pock_i[i] = k
    for j in range(n):
        if j == i:
            continue
        pair_t[i, j] = np.inf
        pair_t[j, i] = np.inf
        if s[j] == POCKETED or (not _moving(s[i]) and not _moving(s[j])):
            continue
        h = min(trans_t[i], trans_t[j]) - t
        gap = np.sqrt((rvw[i, 0, 0] - rvw[j, 0, 0]) ** 2 + (rvw[i, 0, 1] - rvw[j, 0, 1]) ** 2) - 2.0 * R
        if gap > reach(rvw[i], s[i], h, p) + reach(rvw[j], s[j], h, p):
            continue
        tij = t + ball_ball_time(rvw[i], s[i], rvw[j], s[j], h, p, R)
        pair_t[i, j] = tij
        pair_t[j, i] = tij


@njit(cache=True)
def _settle(rvw, s, lin, circ, R):
    """Move every ball on the table that overlaps a cushion segment or jaw tip by at most
    SETTLE_DEPTH out along the contact normal to R + SPACER (the distances are those of
    ``Table.position_problem``). Contacts are resolved SPACER apart, but a ball wedged between a
    ball and a jaw can end a few um inside the jaw after many simultaneous contacts; deeper
    overlaps are left for the next shot's input check to refuse."""
    for i in range(rvw.shape[0]):
        if s[i] == POCKETED:
            continue
        for _ in range(3):     # a move out of one face may enter its neighbour at a corner
            moved = False
            for k in range(lin.shape[0]):
                ex, ey = lin[k, 2] - lin[k, 0], lin[k, 3] - lin[k, 1]
                u = ((rvw[i, 0, 0] - lin[k, 0]) * ex + (rvw[i, 0, 1] - lin[k, 1]) * ey) / (ex * ex + ey * ey)
                u = min(max(u, 0.0), 1.0)
                fx, fy = lin[k, 0] + u * ex, lin[k, 1] + u * ey
                moved |= _push_out(rvw[i], fx, fy, 0.0, R)
            for k in range(circ.shape[0]):
                moved |= _push_out(rvw[i], circ[k, 0], circ[k, 1], circ[k, 2], R)
            if not moved:
                break


@njit(cache=True)
def _push_out(rvw, cx, cy, radius, R):
    """Move a ball whose centre is within radius + R of (cx, cy), by at most SETTLE_DEPTH, out
    radially to radius + R + SPACER. Returns whether it moved."""
    dx, dy = rvw[0, 0] - cx, rvw[0, 1] - cy
    d = math.sqrt(dx * dx + dy * dy)
    depth = radius + R - d
    if depth <= 0.0 or depth > SETTLE_DEPTH or d == 0.0:
        return False
    rvw[0, 0] = cx + dx * (radius + R + SPACER) / d
    rvw[0, 1] = cy + dy * (radius + R + SPACER) / d
    return True


@njit(cache=True)
def _better(tc, tier, en, bt, btier, ben):
    """Is candidate (time, tier, energy) earlier than the best so far?"""
    if tc < bt:
        return True
    if tc > bt:
        return False
    if tier < btier:
        return True
    return tier == btier and en > ben


@njit(cache=True)
def run_shot(rvw, s, shot, cue, p, lin, lin_h, circ, pockets, drop, max_events, record,
             ev_kind, ev_time, ev_a, ev_b, ev_rvw, ev_s):
    """Simulate one shot in place on (rvw (N,3,3), s (N,)).

    shot: one row of ``kernel_rows`` ([V0 m/s, phi deg, theta deg, a/R, b/R]) applied to ball index ``cue``.
    With ``record``, events are written to ev_* (length >= max_events): kind, time, agents
    (ball index; other ball, cushion or pocket index, or -1), and the agents' states after the
    event in ev_rvw (E, 2, 3, 3) / ev_s (E, 2).
    Returns (n_events, truncated, t_end, pocket_of (N,) pocket index or -1, first_hit ball index
    or -1, cushion contacts after the first hit, cushion contacts before it, (vx, vy) of the
    first-hit ball right after that contact [m/s], or (nan, nan)).
    """
    n = rvw.shape[0]
    R = p[P_R]
    trans_t = np.full(n, np.inf)
    trans_s = np.zeros(n, np.int64)
    wall_t = np.full(n, np.inf)
    wall_k = np.zeros(n, np.int64)
    wall_i = np.zeros(n, np.int64)
    pock_t = np.full(n, np.inf)
    pock_i = np.zeros(n, np.int64)
    pair_t = np.full((n, n), np.inf)
    pocket_of = np.full(n, -1, np.int64)
    for i in range(n):
        if s[i] == POCKETED:
            pocket_of[i] = -2   # pocketed before this shot
    first_hit = -1
    hit_vx = np.nan
    hit_vy = np.nan
    cush_after = 0
    cush_before = 0
    truncated = False
    # the strike, at t = 0
    cue_strike(rvw[cue], shot[0], shot[1], shot[2], shot[3], shot[4], p)
    s[cue] = SLIDING
    t = 0.0
    n_ev = 0
    if record:
        ev_kind[0] = EV_STICK
        ev_time[0] = 0.0
        ev_a[0] = cue
        ev_b[0] = -1
        ev_rvw[0, 0] = rvw[cue]
        ev_s[0, 0] = s[cue]
    n_ev = 1
    for i in range(n):
        _update_ball(i, t, rvw, s, p, lin, circ, pockets, trans_t, trans_s, wall_t, wall_k,
                     wall_i, pock_t, pock_i, pair_t)
    while True:
        # earliest event: (time, tier, energy)
        bt = np.inf
        btier = 9
        ben = 0.0
        kind = -1
        ia = -1
        ib = -1
        for i in range(n):
            if s[i] == POCKETED:
                continue
            en = energy(rvw[i], p)
            if _better(trans_t[i], 2, en, bt, btier, ben):
                bt, btier, ben, kind, ia, ib = trans_t[i], 2, en, 100 + trans_s[i], i, -1
            if _better(pock_t[i], 2, en, bt, btier, ben):
                bt, btier, ben, kind, ia, ib = pock_t[i], 2, en, EV_POCKET, i, pock_i[i]
            if _better(wall_t[i], 3, en, bt, btier, ben):
                bt, btier, ben, kind, ia, ib = wall_t[i], 3, en, wall_k[i], i, wall_i[i]
            for j in range(i + 1, n):
                if pair_t[i, j] <= bt:
                    dvx = rvw[i, 1, 0] - rvw[j, 1, 0]
                    dvy = rvw[i, 1, 1] - rvw[j, 1, 1]
                    if _better(pair_t[i, j], 3, dvx * dvx + dvy * dvy, bt, btier, ben):
                        bt, btier, ben, kind, ia, ib = pair_t[i, j], 3, dvx * dvx + dvy * dvy, EV_BALL_BALL, i, j
        if bt == np.inf:
            break
        if n_ev >= max_events:
            truncated = True
            for i in range(n):
                if s[i] != POCKETED:
                    transition(rvw[i], STATIONARY)
                    s[i] = STATIONARY
            break
        dt = bt - t
        if dt > 0.0:
            for i in range(n):
                evolve(rvw[i], s[i], dt, p)
            t = bt
        if kind >= 100:
            new_state = kind - 100
            kind = _transition_event(new_state, s[ia])
            transition(rvw[ia], new_state)
            s[ia] = new_state
        elif kind == EV_POCKET:
            pocket_ball(rvw[ia], pockets[ib, 0], pockets[ib, 1], drop)
            s[ia] = POCKETED
            pocket_of[ia] = ib
        elif kind == EV_LINEAR_CUSHION:
            kiss_line(rvw[ia], lin[ib, 0], lin[ib, 1], lin[ib, 4], lin[ib, 5], R, SPACER)
            han_2005(rvw[ia], lin[ib, 4], lin[ib, 5], lin_h[ib], p)
            s[ia] = SLIDING
        elif kind == EV_CIRCULAR_CUSHION:
            kiss_circle(rvw[ia], circ[ib, 0], circ[ib, 1], circ[ib, 2] + R, SPACER)
            dx = rvw[ia, 0, 0] - circ[ib, 0]
            dy = rvw[ia, 0, 1] - circ[ib, 1]
            d = np.sqrt(dx * dx + dy * dy)
            han_2005(rvw[ia], dx / d, dy / d, circ[ib, 3], p)
            s[ia] = SLIDING
        else:  # EV_BALL_BALL
            make_kiss(rvw[ia], rvw[ib], R, SPACER)
            collide(rvw[ia], rvw[ib], p)
            s[ia] = SLIDING
            s[ib] = SLIDING
            if first_hit < 0 and (ia == cue or ib == cue):
                first_hit = ib if ia == cue else ia
                hit_vx = rvw[first_hit, 1, 0]
                hit_vy = rvw[first_hit, 1, 1]
        if kind == EV_LINEAR_CUSHION or kind == EV_CIRCULAR_CUSHION:
            if first_hit >= 0:
                cush_after += 1
            elif ia == cue:
                cush_before += 1
        if record:
            ev_kind[n_ev] = kind
            ev_time[n_ev] = t
            ev_a[n_ev] = ia
            ev_b[n_ev] = ib
            ev_rvw[n_ev, 0] = rvw[ia]
            ev_s[n_ev, 0] = s[ia]
            if kind == EV_BALL_BALL:
                ev_rvw[n_ev, 1] = rvw[ib]
                ev_s[n_ev, 1] = s[ib]
        n_ev += 1
        _update_ball(ia, t, rvw, s, p, lin, circ, pockets, trans_t, trans_s, wall_t, wall_k,
                     wall_i, pock_t, pock_i, pair_t)
        if kind == EV_BALL_BALL:
            _update_ball(ib, t, rvw, s, p, lin, circ, pockets, trans_t, trans_s, wall_t, wall_k,
                         wall_i, pock_t, pock_i, pair_t)
    _settle(rvw, s, lin, circ, R)
    return n_ev, truncated, t, pocket_of, first_hit, cush_after, cush_before, hit_vx, hit_vy


@njit(cache=True, parallel=True)
def run_batch(rvw0, s0, shots, cue, p, lin, lin_h, circ, pockets, drop, max_events):
    """Simulate each row of shots (S, 5) (``kernel_rows``) from the same start state, in parallel.

    Returns final rvw (S, N, 3, 3), states (S, N), pocket_of (S, N), first_hit (S,),
    cushions after/before the first hit (S,), n_events (S,), truncated (S,), t_end (S,),
    velocity (S, 2) of the first-hit ball right after the contact.
    """
    S = shots.shape[0]
    n = rvw0.shape[0]
    out_rvw = np.empty((S, n, 3, 3))
    out_s = np.empty((S, n), np.int64)
    out_pocket = np.empty((S, n), np.int64)
    out_first = np.empty(S, np.int64)
    out_after = np.empty(S, np.int64)
    out_before = np.empty(S, np.int64)
    out_nev = np.empty(S, np.int64)
    out_trunc = np.empty(S, np.bool_)
    out_t = np.empty(S)
    out_hv = np.empty((S, 2))
    for k in prange(S):
        rvw = rvw0.copy()
        s = s0.copy()
        d_kind = np.empty(0, np.int64)
        d_time = np.empty(0)
        d_rvw = np.empty((0, 2, 3, 3))
        d_s = np.empty((0, 2), np.int64)
        nev, tr, te, pocket_of, fh, ca, cb, hvx, hvy = run_shot(rvw, s, shots[k], cue, p, lin, lin_h, circ,
                                                      pockets, drop, max_events, False, d_kind,
                                                      d_time, d_kind, d_kind, d_rvw, d_s)
        out_rvw[k] = rvw
        out_s[k] = s
        out_pocket[k] = pocket_of
        out_first[k] = fh
        out_after[k] = ca
        out_before[k] = cb
        out_nev[k] = nev
        out_trunc[k] = tr
        out_t[k] = te
        out_hv[k, 0] = hvx
        out_hv[k, 1] = hvy
    return (out_rvw, out_s, out_pocket, out_first, out_after, out_before, out_nev, out_trunc, out_t,
            out_hv)
