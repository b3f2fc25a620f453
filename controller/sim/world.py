"""What the simulated robot's strikes act on.

A World receives each Strike (the command as the robot received it, and the perturbed shot it
actually executed) and returns how long the balls move [s]. ``RecordingWorld`` only records
strikes (for tests, the soak and calibration ground truth); ``PhysicsWorld`` also plays them on
the physics engine (``planner.physics.engine``) and keeps the resulting table state.
"""
from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from controller.protocol import ShotCommand
from planner.shot import SHOT_FIELDS, ShotParams
from planner.state import CUE, TableState

if TYPE_CHECKING:
    from planner.physics.engine import Simulator

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Strike:
    """One executed shot. seq: the SHOT's sequence number; command: as the robot parsed it from
    the wire; executed: what the mechanism did (command + the robot's true error); t: unix time [s]."""
    seq: int
    command: ShotCommand
    executed: ShotParams
    t: float

    def to_json(self) -> dict:
        c = self.command
        return {"seq": self.seq, "t": self.t,
                "commanded": dict(zip(SHOT_FIELDS, c.params.as_array().tolist())),
                "cue_xy": [c.x, c.y],
                "executed": dict(zip(SHOT_FIELDS, self.executed.as_array().tolist()))}


class World(Protocol):
    def strike(self, strike: Strike) -> float:
        """Act out ``strike``; return the seconds until the balls stop (0 if nothing moved)."""


class RecordingWorld:
    """Records every strike in ``strikes`` (thread-safe) and, if ``path`` is given, appends each as
    a JSON line (flushed per strike, so a crash loses at most the last one). Nothing moves."""

    def __init__(self, path: str | Path | None = None):
        self._lock = threading.Lock()
        self.strikes: list[Strike] = []
        self._f = open(path, "a", buffering=1, encoding="ascii") if path else None

    def strike(self, strike: Strike) -> float:
        with self._lock:
            self.strikes.append(strike)
            if self._f:
                self._f.write(json.dumps(strike.to_json()) + "\n")
                self._f.flush()
        return 0.0

    def close(self) -> None:
        if self._f:
            self._f.close()


class PhysicsWorld(RecordingWorld):
    """A table whose balls the strikes move: each executed shot is simulated from ``state`` and
    the balls left on the table become the new ``state``. A strike with no cue ball on the table,
    V = 0, or a tip offset the engine calls a miscue moves nothing (logged). ``last_result``: the
    engine's ShotResult of the last strike that moved the balls.

    The constructor plays one throwaway shot, so that the engine is compiled before the first
    strike rather than during it (a strike must not stall the robot's loop).
    """

    def __init__(self, simulator: Simulator, state: TableState, path: str | Path | None = None):
        super().__init__(path)
        t = simulator.table
        simulator.simulate(TableState.from_dict({CUE: (t.width / 2, t.length / 2)}), ShotParams(0.0, 0.0, 1.0))
        self.simulator = simulator
        self.state = state
        self.last_result = None

    def strike(self, strike: Strike) -> float:
        from planner.physics.engine import PhysicsInputError

        super().strike(strike)
        with self._lock:
            if not self.state.has(CUE) or strike.executed.V <= 0.0:
                return 0.0
            try:
                res = self.simulator.simulate(self.state, strike.executed)
            except PhysicsInputError as e:
                log.warning("strike %d moved nothing: %s", strike.seq, e)
                return 0.0
            self.state = res.state_after()
            self.last_result = res
            return res.t_end
