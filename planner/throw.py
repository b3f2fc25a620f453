"""Aim corrections for collision-induced throw, measured with the physics engine.

Ghost-ball aiming assumes the object ball leaves along the line of centres. Ball-ball friction
(Alciatore TP A-14) throws it off that line by up to a few degrees, depending on the cut angle,
the cue ball's speed and spin at contact; at corner-pocket tolerances that alone misses ~5-10 %
of noise-free shots. The table here holds, for a right cut (object ball leaving to the right of
the cue ball's path), the change of phi [deg] that makes the object ball leave in the ghost-ball
direction, over (cut angle alpha [deg], cue-to-ghost distance d2 [m], cue speed V [m/s]) for each
vertical tip offset b of the move generator; a left cut takes the opposite sign (mirror symmetry).

Each entry is found by Newton iteration on the object ball's departure angle, all entries of an
iteration in one batch simulation of a lone cue ball and object ball.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.jit import njit
from planner.physics.engine import Simulator
from planner.state import TableState

ALPHA = np.linspace(0.0, 80.0, 17)
D2 = np.array([0.06, 0.15, 0.3, 0.5, 0.75, 1.0])
V = np.array([0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])
NEWTON_STEPS = 6
PROBE_DEG = 0.05   # phi step for the numerical derivative [deg]


def is_right_cut(cue_path: np.ndarray, obj_path: np.ndarray) -> bool:
    """Does the object ball (direction obj_path) leave to the right of the cue ball's path?"""
    return bool(cue_path[0] * obj_path[1] - cue_path[1] * obj_path[0] < 0.0)


@dataclass(frozen=True)
class ThrowTable:
    """dphi (n_spin, n_alpha, n_d2, n_V) [deg] for right cuts; spins: the b/R values (tuple)."""
    spins: tuple[float, ...]
    dphi: np.ndarray

    def correction(self, alpha: float, d2: float, v: float, b_frac: float, right_cut: bool) -> float:
        """phi correction [deg] for one shot (multilinear in alpha, d2, V; nearest spin)."""
        k = min(range(len(self.spins)), key=lambda i: abs(self.spins[i] - b_frac))
        x = _interp3(self.dphi[k], ALPHA, D2, V, float(alpha), float(d2), float(v))
        return float(x if right_cut else -x)


@njit(cache=True)
def _interp3(grid, ax0, ax1, ax2, x0, x1, x2):
    """Multilinear interpolation of grid (n0, n1, n2) at (x0, x1, x2), clamped to the axes."""
    idx = np.empty(3, np.int64)
    wts = np.empty(3)
    for dim in range(3):
        ax = ax0 if dim == 0 else (ax1 if dim == 1 else ax2)
        x = x0 if dim == 0 else (x1 if dim == 1 else x2)
        x = min(max(x, ax[0]), ax[-1])
        i = min(max(np.searchsorted(ax, x) - 1, 0), ax.shape[0] - 2)
        idx[dim] = i
        wts[dim] = (x - ax[i]) / (ax[i + 1] - ax[i])
    out = 0.0
    for corner in range(8):
        w = 1.0
        for dim in range(3):
            w *= wts[dim] if (corner >> dim) & 1 else 1.0 - wts[dim]
        out += w * grid[idx[0] + (corner & 1), idx[1] + ((corner >> 1) & 1), idx[2] + ((corner >> 2) & 1)]
    return out


def _departure_error(sim: Simulator, groups, phis, cells) -> np.ndarray:
    """Object-ball departure angle minus its ghost-ball direction [deg], per cell (nan = no hit).
    groups: [(start state, cell indices)]."""
    err = np.full(len(cells), np.nan)
    R = sim.params.R
    for state, rows in groups:
        shots = np.array([[phis[i], 0.0, cells[i][2], 0.0, cells[i][3] * R] for i in rows])
        out = sim.simulate_batch(state, shots)
        for j, i in enumerate(rows):
            if out.first_hit[j] != 1:
                continue
            vx, vy = out.hit_velocity[j]
            want = 90.0 - cells[i][0]
            err[i] = (np.degrees(np.arctan2(vy, vx)) - want + 180.0) % 360.0 - 180.0
    return err


def build_throw_table(sim: Simulator, spins: tuple[float, ...]) -> ThrowTable:
    """Measure the correction table on ``sim``'s table and physics for tip offsets ``spins`` (b/R)."""
    R = sim.params.R
    g = np.array([sim.table.width / 2, sim.table.length / 2])
    cells = [(a, d, v, b) for b in spins for a in ALPHA for d in D2 for v in V]
    # one start state per (alpha, d2): cue below the ghost ball, object ball cut to the right
    by_key: dict = {}
    for i, (a, d, _, _) in enumerate(cells):
        by_key.setdefault((a, d), []).append(i)
    states = []
    for (a, d), rows in by_key.items():
        obj = g + 2 * R * np.array([np.sin(np.radians(a)), np.cos(np.radians(a))])
        states.append((TableState(np.array([0, 1]), np.array([g - np.array([0.0, d]), obj])), rows))
    phi = np.full(len(cells), 90.0)
    e0 = _departure_error(sim, states, phi, cells)
    e1 = _departure_error(sim, states, phi + PROBE_DEG, cells)
    slope = (e1 - e0) / PROBE_DEG
    bad = ~np.isfinite(slope) | (np.abs(slope) < 1e-3)
    slope[bad] = 1.0
    err = e0
    for _ in range(NEWTON_STEPS):
        step = np.where(np.isfinite(err), err / slope, 0.0)
        phi = phi - np.clip(step, -3.0, 3.0)
        err = _departure_error(sim, states, phi, cells)
    dphi = np.where(np.isfinite(err) & ~bad & (np.abs(err) < 0.05), phi - 90.0, 0.0)
    return ThrowTable(tuple(spins), dphi.reshape(len(spins), len(ALPHA), len(D2), len(V)))
