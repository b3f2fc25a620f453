"""The robot's opponent, and who puts balls on the table.

An ``Opponent`` decides its shot from the table the service saw (``decide``) and plays it
(``shoot``). The service then watches it through the camera exactly as it watches the robot's
shots, and the referee rules both from the frames.

- ``SimOpponent`` (sim backend): a second planner with its own error model and generator; the
  executed shot (the plan perturbed by that model) is applied straight to the simulated world.
- ``PersonOpponent`` (hardware): decides nothing (``decide`` returns None) and plays nothing;
  the service waits for motion followed by rest, or for the dashboard's "opponent done". A
  person does not announce a call to the controller, so the service infers it (docs/recording.md:
  the first legal target pocketed, in the pocket it dropped in; otherwise a safety).

``Hands`` put a ball at a spot: the cue ball in hand, the 8 spotted after the break. In sim the
world does it at once (``automatic``); on hardware a person does, from the target the dashboard
shows, and the service waits until vision sees the ball there.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from planner.decision import Decision
from planner.execution import executable
from planner.rules.facts import ShotFacts
from planner.rules.game import CalledShot, GameState
from planner.shot import ErrorModel, ShotParams
from planner.state import TableState


class Opponent(Protocol):
    name: str
    person: bool          # True: a person plays; decide/shoot do nothing

    def decide(self, seen: TableState, game: GameState) -> Decision | None:
        """The opponent's shot on the table the service saw, or None (a person decides alone)."""
        ...

    def shoot(self, decision: Decision) -> None:
        """Play ``decision`` (after the service has placed the cue ball at decision.cue_pos)."""
        ...


class SimOpponent:
    """A planner (``planner.decision.Planner``) whose shots, perturbed by ``error`` with ``rng``
    and made executable (``planner.execution``), are played by ``play(shot)`` (the simulated
    world's ``PhysicsWorld.play``). ``executed``: the last shot actually played."""
    person = False

    def __init__(self, planner, error: ErrorModel, rng: np.random.Generator, play: Callable[[ShotParams], object],
                 R: float):
        self.planner, self.error, self.rng, self._play, self.R = planner, error, rng, play, R
        self.name = planner.name
        self.executed: ShotParams | None = None

    def decide(self, seen: TableState, game: GameState) -> Decision:
        return self.planner.choose(seen, game)

    def shoot(self, decision: Decision) -> None:
        row = executable(self.error.perturb(decision.shot, self.rng, 1), self.R)[0]
        self.executed = ShotParams.from_array(row)
        self._play(self.executed)


class PersonOpponent:
    """A person at the table (hardware)."""
    person = True
    name = "person"

    def decide(self, seen: TableState, game: GameState) -> None:
        return None

    def shoot(self, decision: Decision) -> None:
        return None


def inferred_call(game: GameState, facts: ShotFacts) -> CalledShot | None:
    """The call of a shot nobody announced (a person's): None on the break; else the first legal
    target that dropped, in the pocket it dropped in; else a safety."""
    if game.is_break:
        return None
    targets = game.legal_targets()
    for b, p in facts.pocketed:
        if b in targets:
            return CalledShot.shot(b, p)
    return CalledShot.safe()


class Hands(Protocol):
    automatic: bool       # True: ``place`` moves the ball itself (sim); False: a person does

    def place(self, ball: int, xy: tuple[float, float]) -> None:
        """Put ``ball`` (taken from wherever it is, or from a pocket) with its centre at ``xy`` [m]."""
        ...


class PersonHands:
    """A person places the balls (hardware): ``place`` does nothing; the service shows the target."""
    automatic = False

    def place(self, ball: int, xy: tuple[float, float]) -> None:
        return None
