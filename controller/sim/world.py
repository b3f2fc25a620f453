"""What the simulated robot's strikes act on.

A World receives each Strike (the command as the robot received it, and the perturbed shot it
actually executed) and returns how long the balls move [s]. ``RecordingWorld`` only records
strikes (for tests, the soak and calibration ground truth); ``PhysicsWorld`` also plays them on
the physics engine (``planner.physics.engine``) and keeps the resulting table state.

The simulated camera (``controller.sim.camera``) watches a PhysicsWorld through ``snapshot()``:
the table state, a version number that changes with every change of it, and the last ``Motion``
(the start state and ShotResult of the last shot that moved the balls), read together under the
world's lock. Besides the robot's strikes, the world takes an opponent's shot (``play``) and the
cue ball placed by hand (``place_cue``).
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
    from planner.physics.engine import ShotResult, Simulator

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


@dataclass(frozen=True)
class Motion:
    """A shot that moved the balls. seq: its number among the world's motions (1, 2, ...);
    start: the TableState it was played from; result: the engine's ShotResult (``result.t_end``
    [s] after the strike every ball is at rest); shot: the executed ShotParams; by: "robot"
    (a strike) or "opponent" (``PhysicsWorld.play``)."""
    seq: int
    start: TableState
    result: ShotResult
    shot: ShotParams
    by: str


@dataclass(frozen=True)
class WorldSnapshot:
    """The world at one instant. version: changes (increases) with every change of ``state``;
    state: the balls at rest after the last motion (or placement); motion: the last Motion or
    None before the first."""
    version: int
    state: TableState
    motion: Motion | None


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
    engine's ShotResult of the last strike (or ``play``) that moved the balls; ``motions``: how
    many did. Every method is thread-safe (``strike`` runs on the simulated robot's thread).

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
        self.motions = 0
        self._version = 0
        self._motion: Motion | None = None

    def strike(self, strike: Strike) -> float:
        super().strike(strike)
        with self._lock:
            return self._shoot(strike.executed, "robot", f"strike {strike.seq}")

    def play(self, shot: ShotParams) -> float:
        """Play an opponent's ``shot`` (the cue ball where it lies, no robot); return the seconds
        until the balls stop (0 if nothing moved: no cue ball, V = 0, a miscue; logged)."""
        with self._lock:
            return self._shoot(shot, "opponent", "opponent's shot")

    def place_cue(self, xy) -> None:
        """Put the cue ball at ``xy`` (x, y) [m] (ball in hand): moved if on the table, added if not.
        Raises ValueError (the engine's PhysicsInputError, saying why) where it cannot rest: off
        the cloth, on a cushion or in a pocket, or overlapping another ball."""
        x, y = (float(v) for v in xy)
        with self._lock:
            balls = self.state.to_dict()
            balls[CUE] = (x, y)
            state = TableState.from_dict(balls)
            self.simulator.check_state(state)
            self.state = state
            self._version += 1

    def set_state(self, state: TableState) -> None:
        """Replace the balls (a new rack). Raises ValueError (PhysicsInputError) if they cannot rest."""
        with self._lock:
            self.simulator.check_state(state)
            self.state = state
            self._version += 1

    def snapshot(self) -> WorldSnapshot:
        """The state, its version and the last motion, read together."""
        with self._lock:
            return WorldSnapshot(self._version, self.state, self._motion)

    def _shoot(self, shot: ShotParams, by: str, what: str) -> float:
        """Simulate ``shot`` from the current state (the caller holds the lock)."""
        from planner.physics.engine import PhysicsInputError

        if not self.state.has(CUE) or shot.V <= 0.0:
            return 0.0
        try:
            res = self.simulator.simulate(self.state, shot)
        except PhysicsInputError as e:
            log.warning("%s moved nothing: %s", what, e)
            return 0.0
        self.motions += 1
        self._motion = Motion(self.motions, self.state, res, shot, by)
        self.state = res.state_after()
        self.last_result = res
        self._version += 1
        return res.t_end
