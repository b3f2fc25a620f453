"""Monte-Carlo search (Smith 2006, Section 4.2): each candidate is executed ``samples`` times
under the robot's error model (one batch simulation), every sample is refereed, and the
candidate's value is the mean over samples of: 0 for a sample that passes the turn (PickPocket;
see ``miss_weight`` below); for one where the shooter continues, the evaluation of the resulting
state (1 ply) or the best MC value of the shots from it (2 ply, ``breadth_deep`` candidates,
``samples_deep`` samples each).

Beyond PickPocket:
- a sample that passes the turn is worth minus ``miss_weight`` x the position's value to the
  opponent, and one that loses the rack minus ``loss_value`` (both 0 reproduce the paper), so
  that of two shots alike in success the one whose misses leave the opponent less, foul least
  and risk the 8 least is preferred;
- common random numbers: the candidates of one node are executed with the same noise draws, so
  that their values differ by the shots and not by the luck of the draw (with 15 samples a
  fresh draw per candidate lets the maximum favour the luckiest, not the best);
- move ordering by the estimate and two cutoffs: a candidate whose (p + slack) x best-reachable
  value cannot beat the best is skipped; after its batch, one whose successes x best-reachable
  value cannot beat the best skips its children;
- verification: the ``verify_top`` best fully searched root candidates are played
  ``verify_samples`` more times (fresh draws, shared by them) and re-ranked. Fifteen samples
  cannot see a 5-20 % risk of a scratch on the 8 or of pocketing it early, and values that
  saturate at the win value tie; the extra samples re-estimate how often each candidate's turn
  ends and at what value, while the mean value of the samples where the shooter continues
  still comes from the 2-ply search (``verify``);
- refinement: after the coarse variants of the ``breadth`` best calls, the ``refine_calls``
  calls of highest value are searched again over a finer grid of speeds and spins (the position
  the cue ball is left in is what the variants differ by, and it is worth the search's time only
  on the calls that may be played);
- a time budget after which the best candidate so far is returned.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from planner.movegen import CandidateShot
from planner.rules.eightball import Outcome
from planner.rules.game import GameState
from planner.search.common import Scored, SearchContext, opponent_value, past, play_samples, top_calls, value_bound
from planner.state import TableState

SAMPLED = True   # judges shots by samples under the error model


@dataclass(frozen=True)
class Tally:
    """One candidate's samples: ``n`` played, ``ok`` where the shooter continues or wins the rack,
    ``ended_value`` the sum of the values of those that end the turn or the rack, ``cont`` the
    number where the shooter continues and ``cont_value`` the sum of their values (evaluated or
    searched). ``cut``: the children were not searched because ``ok`` x best-reachable value
    could not beat the best; then cont_value holds that bound."""
    n: int
    ok: int
    ended_value: float
    cont: int
    cont_value: float
    cut: bool = False

    @property
    def value(self) -> float:
        return (self.ended_value + self.cont_value) / self.n

    @property
    def frac(self) -> float:
        return self.ok / self.n


def sample_value(ctx: SearchContext, state_after: TableState, game_after: GameState, outcome: Outcome,
                 player: int) -> float | None:
    """The value for ``player`` of one sample that ends his turn or the rack: ``win_value`` for a
    won rack, ``-loss_value`` for a lost one; otherwise minus ``miss_weight`` x what the position
    is worth to the opponent (``opponent_value``: his evaluation, its maximum after a foul).
    None when the shooter continues (the caller evaluates or searches the state)."""
    if game_after.is_over:
        return ctx.cfg.win_value if game_after.winner == player else -ctx.cfg.loss_value
    if outcome.turn_continues:
        return None
    return -ctx.cfg.miss_weight * opponent_value(ctx, state_after, game_after, outcome, player)


def draws(ctx: SearchContext, samples: int) -> np.ndarray:
    """(samples, 5) standard-normal draws shared by the candidates of one node."""
    return ctx.rng.standard_normal((samples, 5))


def succeeded(game_after: GameState, outcome: Outcome, player: int) -> bool:
    """The shooter continues, or won the rack."""
    return (outcome.turn_continues and not game_after.is_over) or game_after.winner == player


def split_ended(ctx: SearchContext, results: list[tuple[TableState, GameState, Outcome]], player: int
                ) -> tuple[float, list[tuple[TableState, GameState]]]:
    """(sum of the ``sample_value`` of the samples that end the turn or the rack, [(state after,
    game after)] of those where the shooter continues)."""
    ended, continuing = 0.0, []
    for s2, g2, o in results:
        v = sample_value(ctx, s2, g2, o, player)
        if v is None:
            continuing.append((s2, g2))
        else:
            ended += v
    return ended, continuing


def mc_value(ctx: SearchContext, cand: CandidateShot, state: TableState, game: GameState, player: int,
             plies: int, z: np.ndarray, beat: float, deadline: float) -> Tally:
    """The Tally of ``cand`` executed with the node's noise draws ``z`` (samples x 5, standard
    normal); ``beat`` is the value it must exceed to matter (the children are not searched when
    it cannot). Failed samples are worth <= 0, so successes x best-reachable value bounds the
    mean."""
    results = play_samples(ctx, state, game, cand, len(z), z=z)
    bound = value_bound(ctx, game, plies)
    n_ok = sum(1 for _, g2, o in results if succeeded(g2, o, player))
    if n_ok * bound / len(z) <= beat:
        ctx.count("cutoffs")
        return Tally(len(z), n_ok, 0.0, n_ok, n_ok * bound, cut=True)
    ended, continuing = split_ended(ctx, results, player)
    cont_value = 0.0
    for s2, g2 in continuing:
        if plies <= 1 or past(deadline):
            v = ctx.evaluate(s2, g2, player)
        else:
            v, z2 = 0.0, draws(ctx, ctx.cfg.samples_deep)
            for c in ctx.movegen.best(s2, g2, ctx.cfg.breadth_deep):
                v = max(v, mc_value(ctx, c, s2, g2, player, plies - 1, z2, v, deadline).value)
        cont_value += v
    return Tally(len(z), n_ok, ended, len(continuing), cont_value)


def search(ctx: SearchContext, state: TableState, game: GameState, candidates: list[CandidateShot],
           deadline: float) -> Scored:
    """Search the root candidates (non-empty) best estimate first until the time budget, then
    ``verify`` the best."""
    player = game.shooter
    bound = value_bound(ctx, game, ctx.cfg.ply)
    ordered = top_calls(candidates, ctx.cfg.breadth)
    best, z = None, draws(ctx, ctx.cfg.samples)
    searched: list[tuple[CandidateShot, Tally]] = []

    def play(c: CandidateShot) -> None:
        nonlocal best
        t = mc_value(ctx, c, state, game, player, ctx.cfg.ply, z,
                     -math.inf if best is None else best.value, deadline)
        if not t.cut:
            searched.append((c, t))
        if best is None or t.value > best.value:
            best = Scored(c, t.frac, t.value)

    for c in ordered:
        if best is not None and (min(1.0, c.p + ctx.cfg.cutoff_slack) * bound <= best.value or past(deadline)):
            ctx.count("cutoffs")
            break
        play(c)
    for c in refinements(ctx, state, searched):
        if past(deadline):
            break
        play(c)
    finalists = sorted(searched, key=lambda ct: -ct[1].value)[:ctx.cfg.verify_top]
    if ctx.cfg.verify_samples == 0 or not finalists or past(deadline):
        return best
    return verify(ctx, state, game, finalists)


def refinements(ctx: SearchContext, state: TableState, searched: list[tuple[CandidateShot, Tally]]
                ) -> list[CandidateShot]:
    """The fine-grid speed and spin variants (MoveGenerator.refinements) of the ``refine_calls``
    distinct calls whose best searched candidate has the highest value, best call first."""
    out, calls = [], []
    for c, _ in sorted(searched, key=lambda ct: -ct[1].value):
        if len(calls) == ctx.cfg.refine_calls:
            break
        if c.call not in calls:
            calls.append(c.call)
            out += ctx.movegen.refinements(state, c)
    return out


def verify(ctx: SearchContext, state: TableState, game: GameState,
           finalists: list[tuple[CandidateShot, Tally]]) -> Scored:
    """The best of ``finalists`` (candidate, its search Tally) after each is played
    ``verify_samples`` more times with fresh draws shared by them. Stratified estimate over all
    n = samples + verify_samples: value = (sum of the values of the samples that end the turn
    or the rack + (number where the shooter continues) x m) / n, where m is the mean searched
    value of the search's continuing samples (the mean evaluation of the new ones when the
    search had none), so the 2-ply position value is kept while the odds of each way the turn
    can end are measured on n samples."""
    player = game.shooter
    z = draws(ctx, ctx.cfg.verify_samples)
    best = None
    for c, t in finalists:
        results = play_samples(ctx, state, game, c, len(z), z=z)
        ended, extra = split_ended(ctx, results, player)
        if t.cont:
            m = t.cont_value / t.cont
        else:
            m = sum(ctx.evaluate(s2, g2, player) for s2, g2 in extra) / max(len(extra), 1)
        n = t.n + len(z)
        v = (t.ended_value + ended + (t.cont + len(extra)) * m) / n
        ok = t.ok + sum(1 for _, g2, o in results if succeeded(g2, o, player))
        if best is None or v > best.value:
            best = Scored(c, ok / n, v)
    return best
