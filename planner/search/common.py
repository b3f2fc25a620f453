"""What every search needs: the simulator, move generator and settings (SearchContext), the
referee's ruling on simulated shots, and the scored result a search returns.

Batch simulations carry no event log; ``batch_facts`` reads from a batch the facts the referee
rules on (first contact, a cushion after it, the pockets; planner.rules.facts) so that every
ruling comes from planner.rules.eightball and nowhere else.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from planner.evaluate import evaluate
from planner.execution import executable
from planner.movegen import CandidateShot, MoveGenerator
from planner.physics.engine import BatchResult, Simulator
from planner.physics.motion import POCKETED
from planner.rules.eightball import Outcome, rule
from planner.rules.facts import ShotFacts
from planner.rules.game import GameState, balls_to_win
from planner.shot import ErrorModel
from planner.state import CUE, EIGHT, TableState


@dataclass(frozen=True)
class SearchConfig:
    """The search's settings: the ``search`` and ``evaluation`` sections of config/planner.yaml
    and the break speed from its ``robot`` section. That file documents each value and holds the
    only defaults. Times in seconds, speeds in m/s."""
    t0: float
    t1: float
    samples: int
    samples_deep: int
    ply: int
    breadth: int
    breadth_deep: int
    wall_cap_s: float
    cutoff_slack: float
    verify_top: int
    verify_samples: int
    refine_calls: int
    safety_candidates: int
    in_hand_grid: int
    weights: tuple[float, float, float]
    win_value: float
    miss_weight: float
    loss_value: float
    run_success: float
    inning_first: float
    v_break: float


@dataclass
class SearchContext:
    """sim: the engine; movegen: candidates and probabilities; error: the robot's noise used for
    sampling; cfg: search settings; rng: the search's random stream; stats: counters."""
    sim: Simulator
    movegen: MoveGenerator
    error: ErrorModel
    cfg: SearchConfig
    rng: np.random.Generator
    stats: dict = field(default_factory=dict)

    def evaluate(self, state: TableState, game: GameState, player: int) -> float:
        return evaluate(self.movegen, state, game, player, self.cfg.weights, self.cfg.win_value)

    def count(self, key: str, n: int = 1) -> None:
        self.stats[key] = self.stats.get(key, 0) + n


@dataclass(frozen=True)
class Scored:
    """A search's choice: the candidate, its success-probability estimate (for the t0 test) and
    its search value (the quantity the search maximised)."""
    candidate: CandidateShot
    p: float
    value: float


def batch_facts(batch: BatchResult, i: int, pocket_ids: tuple[str, ...]) -> ShotFacts:
    """The referee-relevant facts of shot ``i`` of a batch: the cue ball's first contact, whether
    a ball touched a cushion after it, and every pocket drop (in ball order). A batch does not
    record which balls reached a rail, so these facts suit any shot but the break."""
    first = int(batch.first_hit[i])
    drops = np.flatnonzero(batch.pocket[i] >= 0)
    return ShotFacts(first if first >= 0 else None, bool(first >= 0 and batch.cushions_after_hit[i] > 0),
                     frozenset(), tuple((int(batch.ids[j]), pocket_ids[int(batch.pocket[i, j])]) for j in drops),
                     frozenset())


def batch_state(batch: BatchResult, i: int) -> TableState:
    on = batch.final_state[i] != POCKETED
    return TableState(batch.ids[on], batch.final_pos[i][on])


def play_samples(ctx: SearchContext, state: TableState, game: GameState, cand: CandidateShot,
                 n: int, noise: bool = True, z: np.ndarray | None = None) -> list[tuple[TableState, GameState, Outcome]]:
    """Simulate ``n`` executions of ``cand`` (perturbed by ctx.error, with the (n, 5)
    standard-normal draws ``z`` if given, or the nominal shot once if noise is False) in one
    batch call and referee each: [(state after, game after, ruling)]."""
    if noise:
        shots = executable(ctx.error.perturb(cand.shot, ctx.rng, n, z), ctx.sim.params.R)
    else:
        shots = cand.shot.as_array()[None, :]
    ctx.count("simulations", len(shots))
    return play_rows(ctx, state, game, cand.call, shots)


def play_rows(ctx: SearchContext, state: TableState, game: GameState, call, rows: np.ndarray
              ) -> list[tuple[TableState, GameState, Outcome]]:
    """Simulate the shots ``rows`` (K, 5) from ``state`` in one batch call and referee each with
    ``call``: [(state after, game after, ruling)]."""
    batch = ctx.sim.simulate_batch(state, rows)
    pids = ctx.sim.table.pocket_ids
    return [(batch_state(batch, i), *rule(game, call, batch_facts(batch, i, pids), pocket_ids=pids))
            for i in range(len(rows))]


def success_value(ctx: SearchContext, game_after: GameState, outcome: Outcome, player: int) -> float | None:
    """The value of a finished rack for ``player``, 0 for a shot that passes the turn, or None
    when the player shoots again (the caller evaluates or searches the state)."""
    if game_after.is_over:
        return ctx.cfg.win_value if game_after.winner == player else 0.0
    if not outcome.turn_continues:
        return 0.0
    return None


def opponent_value(ctx: SearchContext, state_after: TableState, game_after: GameState, outcome: Outcome,
                   player: int) -> float:
    """What the position after a shot that ended ``player``'s turn is worth to the opponent, on
    the evaluation's scale: ``win_value`` if the opponent won the rack, 0 if ``player`` did; the
    evaluation's maximum (sum of weights) when the opponent has ball in hand after a foul; else
    the opponent's evaluation of the table."""
    opponent = 1 - player
    if game_after.is_over:
        return ctx.cfg.win_value if game_after.winner == opponent else 0.0
    if outcome.fouls or not state_after.has(CUE):
        return float(sum(ctx.cfg.weights))
    return ctx.evaluate(state_after, game_after, opponent)


def past(deadline: float) -> bool:
    return time.perf_counter() > deadline


def value_bound(ctx: SearchContext, game: GameState, plies: int) -> float:
    """Largest value a search of ``plies`` shots from ``game`` can return for the shooter: the win
    value if the rack can be won within them, else the evaluation's maximum (sum of weights)."""
    if EIGHT in game.object_balls and balls_to_win(game, game.shooter) <= plies:
        return ctx.cfg.win_value
    return float(sum(ctx.cfg.weights))


def top_calls(candidates: list[CandidateShot], n: int) -> list[CandidateShot]:
    """The candidates (best estimate first) whose call is among the ``n`` best distinct calls."""
    ordered = sorted(candidates, key=lambda c: -c.p)
    calls: list = []
    out = []
    for c in ordered:
        if c.call not in calls:
            if len(calls) == n:
                continue
            calls.append(c.call)
        out.append(c)
    return out
