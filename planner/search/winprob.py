"""Win probabilities for Monte-Carlo search's choice between its best shot and a safety.

The search values a shot on PickPocket's evaluation scale (Smith 2006, Section 4.2), which
ignores how many balls each player still needs: a 0.5 shot on the last ball before the 8 is
weighed against a safety as if the opponent were as close to winning. When the search's best
shot is below t0, it and the best safety are therefore both valued as the probability of
winning the rack, from an inning race (our model, not the paper's):

- the player to move runs out (his group and the 8, ``n`` balls) with probability
  ``p_now * s**(n - 1)``: his first shot succeeds with ``p_now`` (from the evaluation of the
  table), each later one with the per-shot success ``s``;
- an inning that starts after the other player's miss or safety runs out with
  ``r(n) = q * s**(n - 1)``, its first shot succeeding with ``q``;
- innings alternate until one runs out, so the player to move in a fresh inning wins with
  ``r_a / (1 - (1 - r_a)(1 - r_b))`` (a geometric series over pairs of failed innings).

W(p_now, n_me, n_opp) = r_now + (1 - r_now) * (1 - fresh(n_opp, n_me)), r_now = p_now s^(n_me-1).
"""
from __future__ import annotations

from planner.movegen import CandidateShot
from planner.rules.eightball import Outcome
from planner.rules.game import GameState, balls_to_win
from planner.search.common import SearchContext, opponent_value, play_samples
from planner.state import TableState


def fresh_inning_win(n_a: int, n_b: int, s: float, q: float) -> float:
    """Probability that the player starting a fresh inning, needing ``n_a`` balls against
    ``n_b``, wins the race of innings."""
    r_a, r_b = q * s ** (n_a - 1), q * s ** (n_b - 1)
    return r_a / (1.0 - (1.0 - r_a) * (1.0 - r_b))


def win_probability(p_now: float, n_me: int, n_opp: int, s: float, q: float) -> float:
    """W in [0, 1] for the player to move whose first shot succeeds with ``p_now`` (clipped to
    [0, 1]), needing ``n_me`` balls against ``n_opp``; ``s`` per-shot success, ``q`` first-shot
    success of a fresh inning."""
    r_now = min(max(p_now, 0.0), 1.0) * s ** (n_me - 1)
    return r_now + (1.0 - r_now) * (1.0 - fresh_inning_win(n_opp, n_me, s, q))


def mover_win_probability(ctx: SearchContext, p_now: float, game: GameState, mover: int) -> float:
    """``win_probability`` for ``mover``, to shoot in ``game`` with a first shot of ``p_now``,
    with the ball counts of ``game`` and the search's s and q."""
    return win_probability(p_now, balls_to_win(game, mover), balls_to_win(game, 1 - mover),
                           ctx.cfg.run_success, ctx.cfg.inning_first)


def passed_win_probability(ctx: SearchContext, game_after: GameState, opp_value: float, player: int) -> float:
    """W for ``player`` after a shot that ended his turn or the rack, given what the position is
    worth to the opponent (``search.common.opponent_value``): 1 or 0 for a finished rack, else
    1 - the opponent's W with a first shot of ``opp_value`` (capped at 1: sure after a foul)."""
    if game_after.is_over:
        return 1.0 if game_after.winner == player else 0.0
    return 1.0 - mover_win_probability(ctx, min(1.0, opp_value), game_after, 1 - player)


def outcome_win_probability(ctx: SearchContext, state_after: TableState, game_after: GameState,
                            outcome: Outcome, player: int) -> float:
    """W for ``player`` after one refereed shot: his W from the evaluation of the table when he
    shoots again, else ``passed_win_probability``."""
    if outcome.turn_continues and not game_after.is_over:
        return mover_win_probability(ctx, ctx.evaluate(state_after, game_after, player), game_after, player)
    return passed_win_probability(ctx, game_after, opponent_value(ctx, state_after, game_after, outcome, player),
                                  player)


def mean_win_probability(ctx: SearchContext, state: TableState, game: GameState, cand: CandidateShot,
                         samples: int) -> float:
    """Mean of ``outcome_win_probability`` over ``samples`` executions of ``cand`` under the
    error model, for the player to move."""
    results = play_samples(ctx, state, game, cand, samples)
    return sum(outcome_win_probability(ctx, s2, g2, o, game.shooter) for s2, g2, o in results) / samples
