"""Fuzzing the engine's contract that every rest position it produces is a valid start state.

Random states (half of the balls near a pocket's mouth, where jaws, rails and pockets meet)
and random shots (any direction, theta 0-30 deg, V 0.2-7.5 m/s, tip offsets up to R/2) are
simulated in batches; every final state is put through ``Simulator.check_state``. A failure is
returned as a case (start state, shot, why) in the form of
tests/physics/data/rest_position_cases.json.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from planner.physics.engine import PhysicsInputError, Simulator
from planner.physics.motion import POCKETED
from planner.state import TableState

BATCH = 64   # shots per start state


def random_state(sim: Simulator, rng: np.random.Generator) -> TableState:
    """2-15 balls at valid, non-overlapping positions, each near a pocket with probability 1/2."""
    t, R = sim.table, sim.params.R
    k = int(rng.integers(2, 16))
    pos: list[np.ndarray] = []
    while len(pos) < k:
        if rng.random() < 0.5:
            p = t.pocket_center[rng.integers(len(t.pocket_ids))] + rng.normal(0.0, 0.08, 2)
        else:
            p = rng.uniform([R, R], [t.width - R, t.length - R])
        if (t.position_problem(p[0], p[1], R) is None
                and all(np.hypot(*(p - q)) > 2 * R + 1e-6 for q in pos)):
            pos.append(p)
    return TableState(np.arange(k), np.array(pos))


def random_shots(sim: Simulator, rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, 5) shots [phi deg, theta deg, V m/s, a m, b m]."""
    R = sim.params.R
    return np.column_stack([rng.uniform(0, 360, n), rng.uniform(0, 30, n), rng.uniform(0.2, 7.5, n),
                            rng.uniform(-0.5, 0.5, n) * R, rng.uniform(-0.5, 0.5, n) * R])


def fuzz(sim: Simulator, shots: int, seed: int = 0, progress: Callable | None = None) -> list[dict]:
    """Simulate exactly ``shots`` (>= 1) random shots, in batches of up to BATCH from one random
    start state each; the cases whose final state the engine refuses: [{"what", "ids", "pos",
    "shot"}]. progress(n) is called with the number of shots done after each batch."""
    if shots < 1:
        raise ValueError(f"shots must be >= 1, got {shots}")
    rng = np.random.default_rng(seed)
    bad = []
    for start in range(0, shots, BATCH):
        n = min(BATCH, shots - start)
        state = random_state(sim, rng)
        rows = random_shots(sim, rng, n)
        out = sim.simulate_batch(state, rows)
        for i in range(n):
            on = out.final_state[i] != POCKETED
            try:
                sim.check_state(TableState(out.ids[on], out.final_pos[i][on]))
            except PhysicsInputError as e:
                bad.append({"what": str(e), "ids": state.ids.tolist(), "pos": state.pos.tolist(),
                            "shot": rows[i].tolist()})
        if progress:
            progress(n)
    return bad
