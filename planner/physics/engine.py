"""Python entry points to the physics engine: validate once, convert units once, run the kernel.

    sim = Simulator(table, params)
    res = sim.simulate(state, shot)            # one shot -> ShotResult with the event log
    out = sim.simulate_batch(state, shots)     # K shots (K, 5) from one state -> BatchResult

Shots are ``ShotParams`` (phi, theta deg; V m/s; a, b metres of tip offset), as arrays in
``SHOT_FIELDS`` order; they are validated here and handed to the kernels through
``kernel.kernel_rows``, the one place the kernels' row order and a/R, b/R are made.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from planner.physics.eventlog import EV_BALL_BALL, EventLog
from planner.physics.kernel import kernel_rows, run_batch, run_shot
from planner.physics.motion import POCKETED, STATIONARY
from planner.physics.params import PhysicsParams
from planner.shot import SHOT_FIELDS, ShotParams
from planner.state import TableState
from planner.table import Table

MAX_EVENTS = 5000
V_MAX = 12.0            # fastest cue speed the engine accepts [m/s]
TIP_OFFSET_MAX = 0.9    # largest tip offset sqrt(a^2 + b^2) as a fraction of R
# Contacts are resolved 1 um apart after rewinds of up to 5 um, so a rest position may sit a few
# um inside touching; a start state that close is taken as contact (resolved at t = 0).
OVERLAP_TOL = 1e-5      # balls closer than 2R - this are overlapping [m]
CUSHION_TOL = 1e-5      # a ball centre may sit this far inside R of a cushion line [m]


class PhysicsInputError(ValueError):
    """A table state or shot the engine refuses to simulate; the message says which and why."""


def table_arrays(table: Table):
    """Pack a Table into the kernel's arrays (see planner.physics.kernel)."""
    lin = np.ascontiguousarray(np.hstack([table.lin_p1, table.lin_p2, table.lin_normal]), dtype=np.float64)
    circ = np.ascontiguousarray(np.column_stack([table.circ_center, table.circ_radius, table.circ_height]),
                                dtype=np.float64)
    pockets = np.ascontiguousarray(np.column_stack([table.pocket_center, table.pocket_radius]), dtype=np.float64)
    return lin, np.ascontiguousarray(table.lin_height, dtype=np.float64), circ, pockets


@dataclass(frozen=True)
class ShotResult:
    """Outcome of one simulated shot.

    ids (K,): ball ids in the order of the input state. final_rvw (K, 3, 3), final_state (K,)
    motion codes (4 = pocketed). pocket (K,): index into table.pocket_ids where the ball dropped,
    or -1. events: the event log with ball *ids* as agents. event_rvw (E, 2, 3, 3) and
    event_state (E, 2): states of the agents right after each event (row 1 only for ball-ball).
    first_hit: id of the first ball the cue ball touched, or -1. truncated: the max-events guard
    stopped the simulation (balls were then stopped where they were). t_end: time of the last event [s].
    """
    ids: np.ndarray
    final_rvw: np.ndarray
    final_state: np.ndarray
    pocket: np.ndarray
    events: EventLog
    event_rvw: np.ndarray
    event_state: np.ndarray
    first_hit: int
    truncated: bool
    t_end: float

    @property
    def final_pos(self) -> np.ndarray:
        return self.final_rvw[:, 0, :2]

    def pocketed(self) -> list[tuple[int, int]]:
        """[(ball id, pocket index)] for balls that dropped during this shot, in id order."""
        return [(int(i), int(k)) for i, k in zip(self.ids, self.pocket) if k >= 0]

    def state_after(self) -> TableState:
        on = self.final_state != POCKETED
        return TableState(self.ids[on], self.final_pos[on])


@dataclass(frozen=True)
class BatchResult:
    """K shots from one state. Arrays are indexed [shot, ball] with balls in input order.

    final_pos (K, N, 2); final_state (K, N); pocket (K, N) pocket index or -1; first_hit (K,)
    ball id or -1; cushions_after_hit / cushions_before_hit (K,) counts of cushion contacts by
    any ball after the cue ball's first contact / by the cue ball before it; n_events (K,);
    truncated (K,); t_end (K,); hit_velocity (K, 2): the first-hit ball's velocity right after
    the cue ball's first contact [m/s] (nan if there was none).
    """
    ids: np.ndarray
    final_pos: np.ndarray
    final_state: np.ndarray
    pocket: np.ndarray
    first_hit: np.ndarray
    cushions_after_hit: np.ndarray
    cushions_before_hit: np.ndarray
    n_events: np.ndarray
    truncated: np.ndarray
    t_end: np.ndarray
    hit_velocity: np.ndarray


class Simulator:
    """Event-based simulator for one table and one set of physical constants."""

    def __init__(self, table: Table, params: PhysicsParams, max_events: int = MAX_EVENTS):
        self.table = table
        self.params = params
        self.max_events = int(max_events)
        self._p = params.as_array()
        self._lin, self._lin_h, self._circ, self._pockets = table_arrays(table)

    # ---- validation -------------------------------------------------------------------
    def check_state(self, state: TableState) -> None:
        """Raise PhysicsInputError for NaN/inf, a ball that cannot rest where it is (outside the
        cushions, overlapping a cushion or jaw, in a pocket), or overlapping balls."""
        R = self.params.R
        t = self.table
        for bid, (x, y) in zip(state.ids, state.pos):
            if not (math.isfinite(x) and math.isfinite(y)):
                raise PhysicsInputError(f"ball {bid}: position ({x}, {y}) is not finite")
            problem = t.position_problem(x, y, R, CUSHION_TOL)
            if problem:
                raise PhysicsInputError(f"ball {bid}: centre ({x:.4f}, {y:.4f}) m {problem}")
        pos = state.pos
        if len(pos) > 1:
            d = np.sqrt(((pos[:, None, :] - pos[None, :, :]) ** 2).sum(-1))
            np.fill_diagonal(d, np.inf)
            i, j = np.unravel_index(np.argmin(d), d.shape)
            if d[i, j] < 2 * R - OVERLAP_TOL:
                raise PhysicsInputError(
                    f"balls {state.ids[i]} and {state.ids[j]} overlap: centres {d[i, j] * 1000:.3f} mm "
                    f"apart, less than a ball diameter ({2 * R * 1000:.3f} mm)")

    def shot_vector(self, shot: ShotParams) -> np.ndarray:
        """Validate a shot and return its kernel row (``kernel.kernel_rows``)."""
        return self._shot_rows(np.array([shot.as_array()]))[0]

    def _shot_rows(self, shots: np.ndarray) -> np.ndarray:
        """Validate shots (K, 5) in ``SHOT_FIELDS`` order and return their kernel rows
        (``kernel.kernel_rows``). Raises PhysicsInputError naming the first bad shot and why."""
        shots = np.asarray(shots, dtype=np.float64)
        if shots.ndim != 2 or shots.shape[1] != 5:
            raise PhysicsInputError(f"shots must be an array of shape (K, 5) [{', '.join(SHOT_FIELDS)}], "
                                    f"got {shots.shape}")
        bad = ~np.isfinite(shots)
        if bad.any():
            k, c = np.argwhere(bad)[0]
            raise PhysicsInputError(f"shot {k}: {SHOT_FIELDS[c]} is not finite ({shots[k, c]})")
        phi, theta, V, a, b = shots.T
        R = self.params.R
        checks = (
            (V <= 0, "V must be a positive cue speed in m/s"),
            (V > V_MAX, f"V exceeds the engine's limit of {V_MAX} m/s"),
            ((theta < 0) | (theta >= 90), "theta must be an elevation in [0, 90) degrees"),
            (np.hypot(a, b) > TIP_OFFSET_MAX * R,
             f"tip offset sqrt(a^2+b^2) exceeds {TIP_OFFSET_MAX} R = {TIP_OFFSET_MAX * R * 1000:.1f} mm (miscue)"),
        )
        for mask, why in checks:
            if mask.any():
                k = int(np.flatnonzero(mask)[0])
                raise PhysicsInputError(f"shot {k} (phi={phi[k]:g} deg, theta={theta[k]:g} deg, V={V[k]:g} m/s, "
                                        f"a={a[k] * 1000:g} mm, b={b[k] * 1000:g} mm): {why}")
        return kernel_rows(shots, R)

    def _start(self, state: TableState, cue_id: int):
        self.check_state(state)
        hits = np.flatnonzero(state.ids == cue_id)
        if hits.size == 0:
            raise PhysicsInputError(f"the struck ball {cue_id} is not on the table")
        n = len(state.ids)
        rvw = np.zeros((n, 3, 3))
        rvw[:, 0, :2] = state.pos
        rvw[:, 0, 2] = self.params.R
        return rvw, np.full(n, STATIONARY, np.int64), int(hits[0])

    # ---- entry points -----------------------------------------------------------------
    def simulate(self, state: TableState, shot: ShotParams, cue_id: int = 0) -> ShotResult:
        """Simulate one shot of ball ``cue_id`` from a state at rest. Raises PhysicsInputError."""
        row = self.shot_vector(shot)
        rvw, s, cue = self._start(state, cue_id)
        m = self.max_events
        kind = np.empty(m, np.int64)
        time = np.empty(m)
        a = np.empty(m, np.int64)
        b = np.empty(m, np.int64)
        ev_rvw = np.empty((m, 2, 3, 3))
        ev_s = np.empty((m, 2), np.int64)
        nev, trunc, t_end, pocket, first, _, _, _, _ = run_shot(
            rvw, s, row, cue, self._p, self._lin, self._lin_h, self._circ, self._pockets,
            self.table.pocket_drop, m, True, kind, time, a, b, ev_rvw, ev_s)
        ev_rvw, ev_s = ev_rvw[:nev].copy(), ev_s[:nev].copy()
        single = kind[:nev] != EV_BALL_BALL   # only ball-ball events have a second ball agent
        ev_rvw[single, 1] = 0.0
        ev_s[single, 1] = -1
        ids = state.ids
        a_ids = ids[a[:nev]]
        b_ids = b[:nev].copy()
        bb = ~single
        b_ids[bb] = ids[b_ids[bb]]
        return ShotResult(ids=ids.copy(), final_rvw=rvw, final_state=s, pocket=np.maximum(pocket, -1),
                          events=EventLog(kind[:nev].copy(), time[:nev].copy(), a_ids, b_ids),
                          event_rvw=ev_rvw, event_state=ev_s,
                          first_hit=int(ids[first]) if first >= 0 else -1, truncated=bool(trunc),
                          t_end=float(t_end))

    def simulate_batch(self, state: TableState, shots: np.ndarray, cue_id: int = 0,
                       max_events: int | None = None) -> BatchResult:
        """Simulate K shots (K, 5) [phi, theta, V, a, b] from one state, in parallel over cores."""
        rows = self._shot_rows(shots)
        rvw, s, cue = self._start(state, cue_id)
        out = run_batch(rvw, s, rows, cue, self._p, self._lin, self._lin_h, self._circ,
                        self._pockets, self.table.pocket_drop, int(max_events or self.max_events))
        f_rvw, f_s, pocket, first, after, before, nev, trunc, t_end, hit_v = out
        ids = state.ids
        return BatchResult(ids=ids.copy(), final_pos=f_rvw[:, :, 0, :2].copy(), final_state=f_s,
                           pocket=np.maximum(pocket, -1),
                           first_hit=np.where(first >= 0, ids[np.maximum(first, 0)], -1),
                           cushions_after_hit=after, cushions_before_hit=before, n_events=nev,
                           truncated=trunc, t_end=t_end, hit_velocity=hit_v)
