"""Aim corrections for collision-induced throw, measured with the physics engine.

Ghost-ball aiming assumes the object ball leaves along the line of centres. Ball-ball friction
(Alciatore TP A-14) throws it off that line by up to a few degrees, depending on the cut angle,
the cue ball's speed and spin at contact; at corner-pocket tolerances that alone misses ~5-10 %
of noise-free shots. A ThrowCorrection holds, for a right cut (object ball leaving to the right of
the cue ball's path), the change of phi [deg] that makes the object ball leave in the ghost-ball
direction, on a grid over (cut angle alpha [deg], cue-to-ghost distance d2 [m], cue speed V
[m/s]) for each vertical tip offset b of the move generator; a left cut takes the opposite sign
(mirror symmetry).

Each entry is found by Newton iteration on the object ball's departure angle, all entries of an
iteration in one batch simulation of a lone cue ball and object ball (about a second per spin).
``load_throw`` keeps the measured tables on disk beside the difficulty grids, as
``throw_<hash>.npz``, the hash taken over everything an entry depends on (``throw_hash``), so
that a planner starts without measuring them again.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from config.atomic import atomic_path
from planner.interp import multilinear
from planner.jit import compiled_sources_hash
from planner.physics.engine import Simulator
from planner.physics.params import PhysicsParams
from planner.state import TableState
from planner.table import Table

log = logging.getLogger(__name__)

ALPHA = np.linspace(0.0, 80.0, 17)
D2 = np.array([0.06, 0.15, 0.3, 0.5, 0.75, 1.0])
V = np.array([0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])
NEWTON_STEPS = 6
PROBE_DEG = 0.05   # phi step for the numerical derivative [deg]


def is_right_cut(cue_path: np.ndarray, obj_path: np.ndarray) -> bool:
    """Does the object ball (direction obj_path) leave to the right of the cue ball's path?"""
    return bool(cue_path[0] * obj_path[1] - cue_path[1] * obj_path[0] < 0.0)


@dataclass(frozen=True)
class ThrowCorrection:
    """dphi (n_spin, n_alpha, n_d2, n_V) [deg] for right cuts over the axes ALPHA [deg], D2 [m]
    and V [m/s]; spins: the b/R values of its first axis (tuple)."""
    spins: tuple[float, ...]
    dphi: np.ndarray

    def correction(self, alpha: float, d2: float, v: float, b_frac: float, right_cut: bool) -> float:
        """phi correction [deg] for one shot: alpha [deg], d2 [m], v [m/s] (multilinear over the
        knots ALPHA, D2, V by ``interp.multilinear``; clamped to them), b_frac = b/R (the nearest
        tabulated spin); the sign of a right cut, or the opposite."""
        k = min(range(len(self.spins)), key=lambda i: abs(self.spins[i] - b_frac))
        x = multilinear(self.dphi[k], (ALPHA, D2, V), (float(alpha), float(d2), float(v)), False)
        return float(x if right_cut else -x)


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


def build_throw(sim: Simulator, spins: tuple[float, ...]) -> ThrowCorrection:
    """Measure the throw correction on ``sim``'s pool table and physics for the tip offsets
    ``spins`` (b/R), one Newton iteration per batch of simulations."""
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
    return ThrowCorrection(tuple(spins), dphi.reshape(len(spins), len(ALPHA), len(D2), len(V)))


def throw_hash(table: Table, params: PhysicsParams, spins: tuple[float, ...]) -> str:
    """sha256 (hex) of everything a throw table's entries depend on: the pool table's specs, the
    physics constants, the spins, the knots and Newton settings above, this module's text and the
    engine's compiled sources (``planner.jit.compiled_sources_hash``)."""
    spec = dataclasses.asdict(table.specs) if table.specs is not None else {"name": table.name}
    blob = json.dumps({"table": spec, "physics": dataclasses.asdict(params), "spins": [float(b) for b in spins],
                       "axes": [ALPHA.tolist(), D2.tolist(), V.tolist()], "newton": [NEWTON_STEPS, PROBE_DEG],
                       "engine": compiled_sources_hash(), "module": Path(__file__).read_text()}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def load_throw(table: Table, params: PhysicsParams, spins: tuple[float, ...], directory: Path) -> ThrowCorrection:
    """The throw correction for (table, params, spins): read from ``directory`` if measured
    before for exactly these inputs (``throw_hash``), else measured with ``build_throw`` and
    stored there (atomically; a directory that cannot be written only costs the cache, with a
    warning)."""
    spins = tuple(float(b) for b in spins)
    path = Path(directory) / f"throw_{throw_hash(table, params, spins)[:24]}.npz"
    shape = (len(spins), len(ALPHA), len(D2), len(V))
    try:
        with np.load(path) as z:
            dphi = z["dphi"]
        if dphi.shape == shape and np.isfinite(dphi).all():
            return ThrowCorrection(spins, dphi)
        log.warning("%s: a throw table of shape %s, expected %s; measuring it again", path, dphi.shape, shape)
    except FileNotFoundError:
        pass
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as e:
        log.warning("%s: unreadable (%s); measuring it again", path, e)
    throw = build_throw(Simulator(table, params), spins)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path) as tmp:
            np.savez(tmp, dphi=throw.dphi)
    except OSError as e:
        log.warning("%s: throw table not cached (%s)", path, e)
    return throw
