"""Suite files (hil/suites/*.yaml): a set of recordings and the thresholds they must pass.

    name: sim-game
    recordings: [../../runs/20261124-091500]   # run directories, relative to the suite file
    sim: [{seed: 5, shots: 4, fps: 15}]        # sim recordings regenerated (hil.simrec)
    thresholds: {recall_min: 0.995, ..., planner_tolerance: {phi: 0.05, ...}}   # hil/thresholds.py

``sim`` entries are games recorded afresh by ``hil.simrec.record_sim_game`` (deterministic in
their seed) into ``work_dir``, so that the repository keeps no frames. pytest runs every suite
(tests/hil/test_suites.py); there the ``sim_games`` fixture records each sim game once per
session and the tests share it.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

from hil.thresholds import ThresholdError, parse_thresholds, parse_tolerance


@dataclass(frozen=True)
class Suite:
    """name; recordings: paths of run directories; sim: the sim games to regenerate (dicts of
    seed, shots, fps); thresholds: {name_min|name_max: bound}; tolerance: the thresholds'
    planner_tolerance (hil.plans.TOLERANCE keys)."""
    name: str
    recordings: list[str]
    sim: list[dict]
    thresholds: dict[str, float]
    tolerance: dict[str, float]


def load_suite(path: str | Path, work_dir: str | Path | None = None, regenerate: bool = True) -> Suite:
    """Read a suite file; with ``regenerate``, record its sim games into ``work_dir`` (a fresh
    temporary directory if None) and list them among the recordings. Raises ThresholdError
    naming the file and key for a malformed suite."""
    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ThresholdError(f"{p}: cannot read the suite ({e})") from None
    if not isinstance(data, dict) or set(data) - {"name", "recordings", "sim", "thresholds"}:
        raise ThresholdError(f"{p}: a suite is a mapping of name, recordings, sim, thresholds")
    recs = [str((p.parent / r).resolve()) for r in data.get("recordings") or []]
    sim = list(data.get("sim") or [])
    for k, s in enumerate(sim):
        if not isinstance(s, dict) or set(s) - {"seed", "shots", "fps"} or "seed" not in s:
            raise ThresholdError(f"{p}: sim[{k}] must be a mapping with seed and optional shots, fps")
    if regenerate and sim:
        from hil.simrec import record_sim_game
        base = Path(work_dir) if work_dir is not None else Path(tempfile.mkdtemp(prefix="hil-suite-"))
        for k, s in enumerate(sim):
            recs.append(str(record_sim_game(base / f"sim{k}-seed{s['seed']}", seed=int(s["seed"]),
                                            shots=int(s.get("shots", 1)), fps=s.get("fps"))))
    limits = data.get("thresholds")
    return Suite(str(data.get("name", p.stem)), recs, sim, parse_thresholds(limits, str(p)),
                 parse_tolerance(limits, str(p)))
