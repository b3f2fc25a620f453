"""PickPocket's shot difficulty (Smith 2006, Section 3.2; the paper's "shot-difficulty table"),
held here as a DifficultyGrid: the probability that a straight-in shot pockets the object ball,
on a grid over cut angle alpha [deg], object-to-pocket distance d1 [m], cue-to-ghost distance
d2 [m] and pocket angle beta [deg], separately for corner and side pockets. Each entry is the
fraction of ``samples`` simulations of the nominal shot perturbed by the robot's ErrorModel that
drop the object ball in the aimed pocket.

Nominal shot of a cell: the geometry of planner.aim (ghost ball, pocket aim point), level cue
(theta = 0), centre ball, V = planner.speed.min_speed + the first speed increment.

Grids are stored as ``difficulty_<name>.npz`` + ``difficulty_<name>.json`` under the cache
directory ($CUEROBOT_DIFFICULTY_DIR, default ~/.cache/cuerobot/difficulty/). The JSON holds the
format version, the error model's sigmas, the grid spec and a hash of everything the entries
depend on (pool-table geometry, physics constants, grid spec, samples, sigmas); a stored grid
whose hash differs is stale: ``load_difficulty`` rebuilds it or raises StaleDifficultyError.
The throw corrections the cells aim with (planner.throw.load_throw) are cached in the same
directory.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from config.atomic import atomic_path, write_atomic
from planner.aim import pocket_axes, pocket_targets
from planner.execution import executable
from planner.interp import multilinear
from planner.jit import njit
from planner.parallel import parallel_map
from planner.physics.engine import Simulator
from planner.physics.params import PhysicsParams
from planner.shot import PRESETS, SHOT_FIELDS, ErrorModel, ShotParams
from planner.speed import min_speed
from planner.state import TableState
from planner.table import Table
from planner.throw import ThrowCorrection, is_right_cut, load_throw

FORMAT_VERSION = 2   # 2: cells aim with the throw correction of planner/throw.py
DIFFICULTY_DIR_ENV = "CUEROBOT_DIFFICULTY_DIR"
KINDS = ("corner", "side")
FEATURES = ("alpha", "d1", "d2", "beta")
BETA_MAX = {"corner": 45.0, "side": 65.0}   # pocket angles beyond these do not enter [deg]
ALPHA_MAX = 85.0                              # thinnest cut tabulated [deg]
D_MIN = 0.03                                  # shortest tabulated distance [m]


class StaleDifficultyError(RuntimeError):
    """A stored difficulty grid was built for another pool table, physics, grid spec or error model."""


def difficulty_dir() -> Path:
    """Where difficulty grids are stored: $CUEROBOT_DIFFICULTY_DIR, else ~/.cache/cuerobot/difficulty."""
    env = os.environ.get(DIFFICULTY_DIR_ENV)
    return Path(env) if env else Path.home() / ".cache" / "cuerobot" / "difficulty"


@dataclass(frozen=True)
class GridSpec:
    """The difficulty grid: ``resolution`` points per feature, ``samples`` simulations per cell,
    ``speed_increment`` [m/s] added to the minimum speed for the nominal shot."""
    resolution: int
    samples: int
    speed_increment: float

    def axes(self, table: Table, kind: str) -> tuple[np.ndarray, ...]:
        dmax = float(np.hypot(table.width, table.length))
        n = self.resolution
        return (np.linspace(0.0, ALPHA_MAX, n), np.linspace(D_MIN, dmax, n),
                np.linspace(D_MIN, dmax, n), np.linspace(0.0, BETA_MAX[kind], n))


def config_hash(table: Table, params: PhysicsParams, grid: GridSpec, error: ErrorModel) -> str:
    """sha256 (hex) of everything a difficulty grid's entries depend on: the pool table's
    specs, the physics constants, the grid spec and the error model's sigmas."""
    spec = dataclasses.asdict(table.specs) if table.specs is not None else {"name": table.name}
    blob = json.dumps({"format": FORMAT_VERSION, "table": spec, "physics": dataclasses.asdict(params),
                       "grid": dataclasses.asdict(grid), "sigmas": error.sigmas().tolist()},
                      sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _rot(v: np.ndarray, deg: float) -> np.ndarray:
    c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def cell_layout(table: Table, R: float, kind: str, alpha: float, d1: float, d2: float,
                beta: float):
    """A placement of cue and object ball realising one cell: (pocket index, cue (2,), obj (2,),
    ghost (2,)) or None if no pocket of ``kind`` admits it on the table."""
    targets, axes = pocket_targets(table), pocket_axes(table)
    lo, hi = np.array([R, R]) + 1e-4, np.array([table.width - R, table.length - R]) - 1e-4
    for k, pk in enumerate(table.pocket_kind):
        if pk != kind:
            continue
        for sb in (1.0, -1.0):
            u = _rot(axes[k], sb * beta)              # from the pocket towards the object ball
            obj = targets[k] + d1 * u
            if np.any(obj < lo) or np.any(obj > hi):
                continue
            ghost = obj + 2 * R * u
            for sa in (1.0, -1.0):
                cue = ghost - d2 * _rot(-u, sa * alpha)
                if np.any(cue < lo) or np.any(cue > hi) or np.linalg.norm(cue - obj) < 2 * R + 1e-4:
                    continue
                return k, cue, obj, ghost
    return None


def _cell_probability(sim: Simulator, grid: GridSpec, error: ErrorModel, throw: ThrowCorrection, kind: str,
                      cell: tuple[float, float, float, float], rng: np.random.Generator) -> float:
    R = sim.params.R
    lay = cell_layout(sim.table, R, kind, *cell)
    if lay is None:
        return np.nan
    k, cue, obj, ghost = lay
    alpha, d1, d2, _ = cell
    V = min(float(min_speed(sim.params, alpha, d1, d2)) + grid.speed_increment, 8.0)
    phi = float(np.degrees(np.arctan2(*(ghost - cue)[::-1])))
    phi += throw.correction(alpha, d2, V, 0.0, is_right_cut(ghost - cue, pocket_targets(sim.table)[k] - obj))
    shots = executable(error.perturb(ShotParams(phi, 0.0, V), rng, grid.samples), R)
    res = sim.simulate_batch(TableState([0, 1], np.vstack([cue, obj])), shots)
    return float(np.mean(res.pocket[:, 1] == k))


def _build_chunk(args):
    table, params, grid, error, throw, kind, cells, seed = args
    sim = Simulator(table, params)
    rng = np.random.default_rng(seed)
    return [_cell_probability(sim, grid, error, throw, kind, c, rng) for c in cells]


@dataclass(frozen=True)
class DifficultyGrid:
    """The success probability of straight-in shots on a grid, per pocket kind ('corner',
    'side'). probs[kind]: (n0, n1, n2, n3) over (alpha, d1, d2, beta); axes[kind]: the four
    evenly spaced axes [deg, m, m, deg]; meta: what the JSON file holds (see the module docstring)."""
    probs: dict
    axes: dict
    meta: dict

    def lookup(self, side, alpha, d1, d2, beta) -> np.ndarray:
        """Multilinear interpolation (``interp.multilinear`` on the uniform axes), O(1) per
        shot; the arguments broadcast. side: bool (True = side pocket); alpha, beta [deg]; d1,
        d2 [m]. Features outside the grid are clamped to its edge. Returns probabilities, the
        broadcast shape."""
        x = np.broadcast_arrays(np.asarray(alpha, float), np.asarray(d1, float),
                                np.asarray(d2, float), np.asarray(beta, float), np.asarray(side, dtype=bool))
        pts = np.ascontiguousarray(np.stack([v.ravel() for v in x[:4]], -1))
        (pc, ac), (ps, as_) = (self.grid(k) for k in KINDS)
        return _lookup_many(pc, ac, ps, as_, pts, np.ascontiguousarray(x[4].ravel())).reshape(x[0].shape)

    def grid(self, kind: str) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """(values (n0, n1, n2, n3), axes: tuple of the four evenly spaced knot arrays) of one
        pocket kind, the form the compiled lookup (``interp.multilinear``, uniform) takes."""
        return (np.ascontiguousarray(self.probs[kind], dtype=np.float64),
                tuple(np.ascontiguousarray(a, dtype=np.float64) for a in self.axes[kind]))

    def save(self, directory: Path, name: str) -> Path:
        """Write ``difficulty_<name>.npz`` and ``.json`` under ``directory`` (created if absent),
        each atomically (config.atomic). Returns the .npz path."""
        directory.mkdir(parents=True, exist_ok=True)
        npz = directory / f"difficulty_{name}.npz"
        with atomic_path(npz) as tmp:
            np.savez(tmp, **{f"{k}_probs": self.probs[k] for k in KINDS},
                     **{f"{k}_axis{i}": a for k in KINDS for i, a in enumerate(self.axes[k])})
        write_atomic(directory / f"difficulty_{name}.json", json.dumps(self.meta, indent=1, allow_nan=False))
        return npz

    @classmethod
    def read(cls, directory: Path, name: str) -> DifficultyGrid:
        """The grid ``save`` wrote under ``directory`` as ``name``; raises FileNotFoundError if absent."""
        meta = json.loads((directory / f"difficulty_{name}.json").read_text())
        with np.load(directory / f"difficulty_{name}.npz") as z:
            probs = {k: z[f"{k}_probs"] for k in KINDS}
            axes = {k: tuple(z[f"{k}_axis{i}"] for i in range(4)) for k in KINDS}
        return cls(probs, axes, meta)


@njit(cache=True)
def _lookup_many(corner, corner_axes, side, side_axes, pts, is_side):
    """``multilinear`` at each row of ``pts`` (M, 4) in the side grid where ``is_side`` (M,),
    else the corner grid. Returns (M,)."""
    out = np.empty(len(pts))
    for m in range(len(pts)):
        x = (pts[m, 0], pts[m, 1], pts[m, 2], pts[m, 3])
        if is_side[m]:
            out[m] = multilinear(side, side_axes, x, True)
        else:
            out[m] = multilinear(corner, corner_axes, x, True)
    return out


def _fill_infeasible(p: np.ndarray) -> np.ndarray:
    """Cells no placement realises take the value of the nearest realised cell (index space)."""
    from scipy.ndimage import distance_transform_edt

    bad = np.isnan(p)
    if not bad.any():
        return p
    if bad.all():
        return np.zeros_like(p)
    _, ind = distance_transform_edt(bad, return_indices=True)
    return p[tuple(ind)]


def build_difficulty(table: Table, params: PhysicsParams, error: ErrorModel, grid: GridSpec, *,
                     workers: int = 1, seed: int = 0, progress=None) -> DifficultyGrid:
    """Simulate every cell of ``grid`` on the pool table ``table`` with ``params`` under
    ``error``. ``progress(iterable, total)`` wraps the chunk iterator (e.g. tqdm). workers > 1
    spreads chunks of cells over processes (the chunks, hence the random streams, depend on it)."""
    chunks, shapes, axes = [], {}, {}
    for kind in KINDS:
        ax = grid.axes(table, kind)
        axes[kind] = ax
        shapes[kind] = tuple(len(a) for a in ax)
        cells = [tuple(float(v) for v in c) for c in np.stack(np.meshgrid(*ax, indexing="ij"), -1).reshape(-1, 4)]
        step = max(1, len(cells) // (8 * max(workers, 1)))
        for j in range(0, len(cells), step):
            chunks.append((kind, j, cells[j:j + step]))
    throw = load_throw(table, params, (0.0,), difficulty_dir())
    jobs = [(table, params, grid, error, throw, kind, cells, seed + n) for n, (kind, _, cells) in enumerate(chunks)]
    results = parallel_map(_build_chunk, jobs, workers, progress)
    flat = {kind: [] for kind in KINDS}
    for (kind, _, _), r in zip(chunks, results):
        flat[kind].extend(r)
    probs = {k: _fill_infeasible(np.array(flat[k]).reshape(shapes[k])) for k in KINDS}
    meta = {"version": FORMAT_VERSION, "hash": config_hash(table, params, grid, error),
            "sigmas": dict(zip(SHOT_FIELDS, error.sigmas().tolist())),
            "resolution": grid.resolution, "samples": grid.samples,
            "speed_increment": grid.speed_increment, "table": table.name, "seed": seed}
    return DifficultyGrid(probs, axes, meta)


def load_difficulty(table: Table, params: PhysicsParams, error: ErrorModel, grid: GridSpec, *,
                    name: str, directory: Path | None = None, on_stale: str = "rebuild",
                    progress=None, workers: int = 1) -> DifficultyGrid:
    """The grid stored as ``name`` under ``directory`` (default ``difficulty_dir()``) if it was
    built for (table, params, error, grid); otherwise build and store it (on_stale='rebuild') or
    raise StaleDifficultyError saying why and how to rebuild it (on_stale='refuse'). ``name`` is
    ``planner.shot.error_label(error)``: a preset's name, or ``calibrated-<hash of the sigmas>``
    for a measured model, so that grids of different models never overwrite each other."""
    directory = Path(directory) if directory is not None else difficulty_dir()
    want = config_hash(table, params, grid, error)
    why = None
    try:
        dg = DifficultyGrid.read(directory, name)
        if dg.meta.get("version") != FORMAT_VERSION:
            why = f"format version {dg.meta.get('version')} != {FORMAT_VERSION}"
        elif dg.meta.get("hash") != want:
            why = (f"built for another pool table/physics/grid/error model (stored sigmas {dg.meta.get('sigmas')}, "
                   f"resolution {dg.meta.get('resolution')}, samples {dg.meta.get('samples')})")
        else:
            return dg
    except FileNotFoundError:
        why = "no stored table"
    if on_stale == "refuse":
        how = (f"rebuild it with `cuerobot difficulty build --noise {name}`" if name in PRESETS else
               "a planner made with on_stale='rebuild' (make_planner's default) rebuilds it for this error model")
        raise StaleDifficultyError(f"difficulty grid {directory / ('difficulty_' + name + '.npz')} is stale: {why}; "
                                   f"{how}")
    dg = build_difficulty(table, params, error, grid, workers=workers, progress=progress)
    dg.save(directory, name)
    return dg
