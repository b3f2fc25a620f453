"""Safety play (Smith 2006, Section 4.3): when no shot is good enough, a soft shot that hits a
legal ball first and leaves the opponent little, or, failing that, a deliberate foul.

    safety = SafetySearch(table, params, movegen_config, ctx, sampled=True)
    choice = safety.best(state, game, kitchen=False)   # SafetyChoice or None

Candidates, cheapest first: soft shots at offsets of each legal ball the cue ball can reach
directly; one-rail kicks at legal balls it cannot, with the aim corrected by simulation; a fan
of directions as the last resort; and the deliberate foul. ``best`` judges them all the way the
search judges shots. Every speed is capped at ``movegen.v_max`` and every elevation kept within
``movegen.theta_min .. theta_max``, so that a safety asks the robot for no more than the shots
do. Units: metres, m/s, degrees (docs/frame.md).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from planner.aim import RAILS, min_elevation, path_clear, rail_point, reflect_across_rail
from planner.movegen import CandidateShot, MoveGenConfig
from planner.physics.params import PhysicsParams
from planner.rules.eightball import Foul
from planner.rules.game import CalledShot, GameState
from planner.search.common import SearchContext, opponent_value, play_rows, play_samples
from planner.search.winprob import passed_win_probability
from planner.shot import ShotParams
from planner.state import CUE, TableState
from planner.table import Table

# The speeds below are capped at movegen.v_max. FOUL_SPEED, the slowest of them, is checked against
# the robot's least speed by config.planner.check_planner_within_limits.
SAFETY_SPEEDS = (0.5, 0.9, 1.4)               # cue speeds tried for safeties [m/s]
SAFETY_OFFSETS = (-1.5, -0.75, 0.0, 0.75, 1.5)  # aim offsets from the object ball's centre [R]
KICK_SAFETY_SPEEDS = (1.2, 2.0, 3.0)           # cue speeds tried for one-rail kick safeties [m/s]
KICK_AIM_SPREAD = np.linspace(-4.0, 4.0, 33)   # aim offsets simulated to correct a kick safety [deg]
FAN_STEP = 1.0                                 # direction step of the last-resort safety fan [deg]
FAN_SPEEDS = (1.5, 3.0)                        # cue speeds of the safety fan [m/s]
FOUL_SPEED = 0.2                               # cue speed of the deliberate foul (rolls about 0.26 m) [m/s]


@dataclass(frozen=True)
class SafetyChoice:
    """The best safety. candidate: the shot (kind 'safety', a safety call); opponent_value: the
    mean evaluation it leaves the opponent (``search.common.opponent_value``); win_probability:
    the shooter's mean win probability after it (a sampling search), or None (a search that
    plays safeties once, as aimed)."""
    candidate: CandidateShot
    opponent_value: float
    win_probability: float | None


class SafetySearch:
    """The safeties of one pool table (``table``, physics ``params``), aimed at the least cue
    elevation that clears (``movegen``: theta_min, theta_max [deg]) and judged with the search
    context ``ctx`` (its simulator, error model, random stream and search settings: samples,
    safety_candidates). ``sampled``: judge each safety over ``samples`` noisy executions by win
    probability (Monte-Carlo search) rather than once as aimed by the opponent's evaluation."""

    def __init__(self, table: Table, params: PhysicsParams, movegen: MoveGenConfig, ctx: SearchContext,
                 sampled: bool):
        self.table, self.params, self.movegen, self.ctx, self.sampled = table, params, movegen, ctx, sampled

    def best(self, state: TableState, game: GameState, kitchen: bool) -> SafetyChoice | None:
        """The best safety for the player to move, or None if there is no candidate; ``kitchen``:
        the cue ball is in hand behind the head string. Each candidate (``candidates``, then
        ``fouls``) is scored by ``search.common.opponent_value`` (a foul gives the opponent ball
        in hand: the evaluation's maximum). A sampling search plays each one ``samples`` times
        under the error model and keeps the one of highest mean win probability
        (``winprob.passed_win_probability``: a safety always passes the turn); otherwise each is
        played once as aimed and the one that leaves the opponent least is kept. The deliberate
        foul is kept only when every safety that hits a ball is worse."""
        n = self.ctx.cfg.samples if self.sampled else 1
        best = None
        for c in self.candidates(state, game, kitchen) + self.fouls(state, game):
            results = play_samples(self.ctx, state, game, c, n, noise=self.sampled)
            opps = [opponent_value(self.ctx, s2, g2, out, game.shooter) for s2, g2, out in results]
            opp = sum(opps) / n
            if self.sampled:
                w = sum(passed_win_probability(self.ctx, g2, v, game.shooter)
                        for (_, g2, _), v in zip(results, opps)) / n
                better = best is None or w > best.win_probability
            else:
                w, better = None, best is None or opp < best.opponent_value
            if better:
                best = SafetyChoice(c, opp, w)
        return best

    def candidates(self, state: TableState, game: GameState, kitchen: bool) -> list[CandidateShot]:
        """Soft shots that hit a legal ball first: aimed at offsets of each reachable legal ball,
        nearest balls first, at most ``safety_candidates``; when no legal ball can be hit
        directly, one-rail kicks at each legal ball (``kicks``); when none of those is foul-free
        either, and the cue ball is not in the kitchen, a fan of directions (``fan``)."""
        R, t = self.params.R, self.table
        cue = state.position(CUE)
        balls = [b for b in game.legal_targets() if state.has(b)
                 and (not kitchen or state.position(b)[1] >= t.head_string_y)]
        balls.sort(key=lambda b: np.linalg.norm(state.position(b) - cue))
        out = []
        for b in balls:
            obj = state.position(b)
            u = (obj - cue) / np.linalg.norm(obj - cue)
            normal = np.array([-u[1], u[0]])
            rest = state.pos[(state.ids != CUE) & (state.ids != b)]
            for off in SAFETY_OFFSETS:
                aim = obj + off * R * normal
                contact = obj + (off * R / 2) * normal - u * np.sqrt(max(4 * R * R - (off * R) ** 2, 0.0))
                if path_clear(cue, contact, rest, R):
                    out += self._soft_shots(state, cue, aim, SAFETY_SPEEDS)
            if len(out) >= self.ctx.cfg.safety_candidates:
                break
        return (out[:self.ctx.cfg.safety_candidates] or self.kicks(state, game, balls)
                or ([] if kitchen else self.fan(state, game)))

    def kicks(self, state: TableState, game: GameState, balls: list[int]) -> list[CandidateShot]:
        """One-rail kicks at each of ``balls``, for when no legal ball can be hit directly. The
        rail image (scaled by the cushion restitution, as movegen's kicks) gives a first aim;
        spin and cloth friction bend the real rebound, so the aim is corrected by simulation:
        the nominal shot is played at KICK_AIM_SPREAD offsets around it and the centre of the
        widest run of offsets that the referee finds foul-free is kept, per speed."""
        R, t = self.params.R, self.table
        cue = state.position(CUE)
        out = []
        for b in balls:
            obj = state.position(b)
            rest = state.pos[(state.ids != CUE) & (state.ids != b)]
            for rail in RAILS:
                img = reflect_across_rail(obj, t, rail, R, self.params.e_c)
                hit = rail_point(cue, img, t, rail, R)
                if hit is None or not (path_clear(cue, hit, rest, R) and path_clear(hit, obj, rest, R)):
                    continue
                for c in self._soft_shots(state, cue, img, KICK_SAFETY_SPEEDS):
                    aims = [dataclasses.replace(c, shot=dataclasses.replace(c.shot, phi=c.shot.phi + d))
                            for d in KICK_AIM_SPREAD]
                    out += self._clean_runs(state, game, aims)[:1]
        return out

    def fan(self, state: TableState, game: GameState) -> list[CandidateShot]:
        """The last resort before the planner's fallback roll: the cue ball sent every FAN_STEP
        degrees at each of FAN_SPEEDS (nominal, at the least elevation that clears), one
        candidate at the centre of each foul-free run of directions, widest runs first, at most
        ``safety_candidates``."""
        found = []
        for V in self._speeds(FAN_SPEEDS):
            found += self._clean_runs(state, game, self._fan_shots(state, V))
        return found[:self.ctx.cfg.safety_candidates]

    def fouls(self, state: TableState, game: GameState) -> list[CandidateShot]:
        """The deliberate foul: the cue ball rolled at FOUL_SPEED so that it touches no ball and
        pockets nothing, handing the opponent ball in hand (WPA 6.3) but not the rack. Worth it
        only when every safety risks more, e.g. the 8 hanging in a pocket that it cannot be
        called into. One candidate at the centre of the widest run of such directions (every
        FAN_STEP degrees, nominal), or none."""
        return self._runs(state, game, self._fan_shots(state, FOUL_SPEED),
                          lambda out: out.fouls == (Foul.NO_CONTACT,) and not out.pocketed)[:1]

    def _fan_shots(self, state: TableState, V: float) -> list[CandidateShot]:
        """The cue ball sent every FAN_STEP degrees at ``V`` [m/s] (``_soft_shots``), in order of
        direction."""
        cue = state.position(CUE)
        return [c for phi in np.radians(np.arange(0.0, 360.0, FAN_STEP))
                for c in self._soft_shots(state, cue, cue + np.array([np.cos(phi), np.sin(phi)]), (V,))]

    def _clean_runs(self, state: TableState, game: GameState, cands: list[CandidateShot]) -> list[CandidateShot]:
        """``cands`` (neighbours in order, e.g. increasing aim) played as aimed in one batch and
        refereed as safeties: the middle candidate of every run of consecutive foul-free ones,
        widest run first (empty if every one fouls)."""
        return self._runs(state, game, cands, lambda out: not out.fouls)

    def _runs(self, state: TableState, game: GameState, cands: list[CandidateShot], keep) -> list[CandidateShot]:
        """``cands`` (neighbours in order) played as aimed in one batch and refereed as safeties:
        the middle candidate of every run of consecutive ones whose Outcome satisfies ``keep``,
        widest run first."""
        if not cands:
            return []
        rows = np.array([c.shot.as_array() for c in cands])
        ok = [keep(out) for _, _, out in play_rows(self.ctx, state, game, CalledShot.safe(), rows)]
        runs, start = [], None
        for i, good in enumerate(ok + [False]):
            if good and start is None:
                start = i
            elif not good and start is not None:
                runs.append((i - start, start))
                start = None
        runs.sort(key=lambda r: -r[0])
        return [cands[s0 + (n - 1) // 2] for n, s0 in runs]

    def _speeds(self, speeds) -> tuple[float, ...]:
        """``speeds`` [m/s] capped at movegen.v_max, duplicates dropped, in order."""
        return tuple(dict.fromkeys(min(float(V), self.movegen.v_max) for V in speeds))

    def _soft_shots(self, state: TableState, cue: np.ndarray, aim: np.ndarray, speeds) -> list[CandidateShot]:
        """Safety candidates from ``cue`` towards the point ``aim`` at each of ``speeds`` [m/s]
        (capped at v_max: ``_speeds``), at the least elevation that clears (none above
        theta_max)."""
        phi = float(np.degrees(np.arctan2(aim[1] - cue[1], aim[0] - cue[0])))
        theta = min_elevation(cue, phi, state.pos[state.ids != CUE], self.table, self.params,
                              self.movegen.theta_min)
        if theta > self.movegen.theta_max:
            return []
        return [CandidateShot(ShotParams(phi, theta, V), CalledShot.safe(), "safety", 0.0) for V in self._speeds(speeds)]
