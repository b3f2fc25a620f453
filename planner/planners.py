"""The planner: one ``choose(state, game) -> Decision`` for every search (greedy, prob, mc),
handling the break, ball-in-hand placement and safeties around the search (Smith 2006,
Sections 3-4), and a factory by name.

    planner = make_planner("mc", noise="high")
    d = planner.choose(table_state, game_state)   # d.shot, d.call, d.kind, d.estimate, d.cue_pos
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from planner.difficulty import DifficultyTable, load_or_build
from planner.aim import RAILS, reflect_across_rail
from planner.movegen import CandidateShot, MoveGenerator, min_elevation, path_clear, rail_point
from planner.physics.engine import Simulator
from planner.planner_config import PlannerConfig, SearchConfig, load_planner_config
from planner.rules.eightball import Foul
from planner.rules.game import CalledShot, GameState, InHand
from planner.search import greedy, montecarlo, probabilistic
from planner.search.common import Scored, SearchContext, opponent_value, play_rows, play_samples
from planner.search.winprob import mean_win_probability, passed_win_probability
from planner.shot import PRESETS, ErrorModel, ShotParams
from planner.state import CUE, TableState
from planner.table_config import TableConfig, load_table_config

SEARCHES = {"greedy": greedy, "prob": probabilistic, "mc": montecarlo}   # modules: search(), SAMPLED
SAFETY_SPEEDS = (0.5, 0.9, 1.4)               # cue speeds tried for safeties [m/s]
SAFETY_OFFSETS = (-1.5, -0.75, 0.0, 0.75, 1.5)  # aim offsets from the object ball's centre [R]
KICK_SAFETY_SPEEDS = (1.2, 2.0, 3.0)           # cue speeds tried for one-rail kick safeties [m/s]
KICK_AIM_SPREAD = np.linspace(-4.0, 4.0, 33)   # aim offsets simulated to correct a kick safety [deg]
FAN_STEP = 1.0                                 # direction step of the last-resort safety fan [deg]
FAN_SPEEDS = (1.5, 3.0)                        # cue speeds of the safety fan [m/s]
FOUL_SPEED = 0.2                               # cue speed of the deliberate foul (rolls about 0.26 m) [m/s]
IN_HAND_KEEP = 3                              # placements searched after the quick evaluation


@dataclass(frozen=True)
class Decision:
    """The planner's choice. shot: what to play; call: the call (None on the break; a safety
    call for safeties); kind: 'break', 'straight', 'bank', 'kick', 'combo', 'safety' (the
    deliberate foul included) or 'fallback';
    estimate: the success-probability estimate of a shot, or for a safety the opponent's
    evaluation after it; cue_pos: (x, y) [m] where to place the cue ball when in hand, else None."""
    shot: ShotParams
    call: CalledShot | None
    kind: str
    estimate: float
    cue_pos: tuple[float, float] | None = None


def place_cue(state: TableState, pos) -> TableState:
    """The state with the cue ball at ``pos`` (added, or moved if already on the table)."""
    keep = state.ids != CUE
    return TableState(np.concatenate([[CUE], state.ids[keep]]), np.vstack([np.asarray(pos, float), state.pos[keep]]))


def prefer_safety(best: Scored | None, safety: tuple, shot_win: float | None, cfg: SearchConfig) -> bool:
    """Whether to play the safety (candidate, opponent value, win probability or None; see
    ``Planner._safety``) instead of the search's best shot, whose win probability is
    ``shot_win`` (None when the search does not sample). Called only when the best shot's
    estimate is below t0 or there is none (Smith 2006, Section 4.3). With no shot, the safety.
    Greedy and Probabilistic search follow the paper: the safety when it leaves the opponent an
    evaluation below t1. Monte-Carlo search compares win probabilities
    (planner.search.winprob): the safety when its win probability is the higher."""
    if best is None:
        return True
    if shot_win is not None:
        return safety[2] > shot_win
    return safety[1] < cfg.t1


class Planner:
    """A search wrapped with the break, ball in hand and safety play."""

    def __init__(self, name: str, tcfg: TableConfig, pcfg: PlannerConfig, difficulty: DifficultyTable,
                 error: ErrorModel, seed: int = 0):
        if name not in SEARCHES:
            raise ValueError(f"unknown planner {name!r}; choose one of {sorted(SEARCHES)}")
        self.name = name
        self.table, self.params, self.cfg = tcfg.table, tcfg.physics, pcfg
        self.movegen = MoveGenerator(self.table, self.params, difficulty, pcfg.movegen)
        self.ctx = SearchContext(Simulator(self.table, self.params), self.movegen, error, pcfg.search,
                                 np.random.default_rng(seed))
        self._search = SEARCHES[name].search
        self._sampled = SEARCHES[name].SAMPLED

    # ---- the decision ---------------------------------------------------------------------
    def choose(self, state: TableState, game: GameState) -> Decision:
        """Decide the next shot for the player to move. Raises ValueError if the rack is over."""
        if game.is_over:
            raise ValueError(f"the rack is over (player {game.winner} won)")
        if game.is_break:
            return self._break(state)
        if game.in_hand is not InHand.NONE:
            return self._in_hand(state, game)
        return self._decide(state, game, time.perf_counter() + self.cfg.search.time_budget)

    def _candidates(self, state: TableState, game: GameState, kitchen: bool) -> list[CandidateShot]:
        cands = self.movegen.generate(state, game)
        if kitchen:   # from the kitchen the first ball hit must lie on or past the head string
            cands = [c for c in cands if state.position(c.call.ball)[1] >= self.table.head_string_y]
        return cands

    def _decide(self, state: TableState, game: GameState, deadline: float, kitchen: bool = False,
                cue_pos=None) -> Decision:
        cands = self._candidates(state, game, kitchen)
        best = self._search(self.ctx, state, game, cands, deadline) if cands else None
        if best is None or best.p < self.cfg.search.t0:
            safety = self._safety(state, game, kitchen)
            shot_win = (mean_win_probability(self.ctx, state, game, best.candidate, self.cfg.search.samples)
                        if safety is not None and best is not None and self._sampled else None)
            if safety is not None and prefer_safety(best, safety, shot_win, self.cfg.search):
                return Decision(safety[0].shot, CalledShot.safe(), "safety", safety[1], cue_pos)
        if best is None:
            return self._fallback(state, game, cue_pos)
        c = best.candidate
        return Decision(c.shot, c.call, c.kind, best.p, cue_pos)

    # ---- the break --------------------------------------------------------------------------
    def _break(self, state: TableState) -> Decision:
        """Full-ball hit on the ball nearest the foot spot from behind the head string at v_break."""
        t, R = self.table, self.params.R
        objs = state.ids != CUE
        apex = state.pos[objs][np.argmin(np.linalg.norm(state.pos[objs] - np.array(t.foot_spot), axis=1))]
        cue = np.array([t.width / 2, t.head_string_y - 2 * R])
        phi = float(np.degrees(np.arctan2(apex[1] - cue[1], apex[0] - cue[0])))
        theta = min_elevation(cue, phi, state.pos[objs], t, self.params, self.cfg.movegen.theta_min)
        return Decision(ShotParams(phi, theta, self.cfg.search.v_break, 0.0, 0.0), None, "break",
                        float("nan"), (float(cue[0]), float(cue[1])))

    # ---- ball in hand -----------------------------------------------------------------------
    def placements(self, state: TableState, game: GameState) -> list[np.ndarray]:
        """Free cue-ball positions on a grid (the kitchen when behind the head string)."""
        t, R, n = self.table, self.params.R, self.cfg.search.in_hand_grid
        m = 2 * R
        y_hi = t.head_string_y - R if game.in_hand is InHand.BEHIND_HEAD_STRING else t.length - m
        xs = np.linspace(m, t.width - m, n)
        ys = np.linspace(m, y_hi, n if game.in_hand is InHand.BEHIND_HEAD_STRING else 2 * n)
        others = state.pos[state.ids != CUE]
        out = []
        for x in xs:
            for y in ys:
                p = np.array([x, y])
                if len(others) == 0 or np.min(np.linalg.norm(others - p, axis=1)) > 2 * R + 1e-3:
                    out.append(p)
        return out

    def _in_hand(self, state: TableState, game: GameState) -> Decision:
        """Evaluate every grid placement, search the best few, play the best."""
        kitchen = game.in_hand is InHand.BEHIND_HEAD_STRING
        placed = GameState(game.object_balls, game.shooter, game.groups, False, InHand.NONE,
                           game.winner, game.shot_number)
        scored = []
        for p in self.placements(state, game):
            s = place_cue(state, p)
            cands = self._candidates(s, placed, kitchen)
            scored.append((max((c.p for c in cands), default=0.0), tuple(p), s))
        scored.sort(key=lambda x: -x[0])
        deadline = time.perf_counter() + self.cfg.search.time_budget
        best = None
        for _, p, s in scored[:IN_HAND_KEEP]:
            d = self._decide(s, placed, deadline, kitchen, cue_pos=(float(p[0]), float(p[1])))
            rank = d.estimate if d.kind != "safety" else -d.estimate
            if best is None or rank > best[0]:
                best = (rank, d)
        return best[1]

    # ---- safeties ---------------------------------------------------------------------------
    def safety_candidates(self, state: TableState, game: GameState, kitchen: bool) -> list[CandidateShot]:
        """Soft shots that hit a legal ball first: aimed at offsets of each reachable legal ball,
        nearest balls first, at most ``safety_candidates``; when no legal ball can be hit
        directly, one-rail kicks at each legal ball (``kick_safeties``); when none of those is
        foul-free either, and the cue ball is not in the kitchen, a fan of directions
        (``fan_safeties``)."""
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
            if len(out) >= self.cfg.search.safety_candidates:
                break
        return (out[:self.cfg.search.safety_candidates] or self.kick_safeties(state, game, balls)
                or ([] if kitchen else self.fan_safeties(state, game)))

    def kick_safeties(self, state: TableState, game: GameState, balls: list[int]) -> list[CandidateShot]:
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

    def fan_safeties(self, state: TableState, game: GameState) -> list[CandidateShot]:
        """The last resort before the fallback roll: the cue ball sent every FAN_STEP degrees at
        each of FAN_SPEEDS (nominal, at the least elevation that clears), one candidate at the
        centre of each foul-free run of directions, widest runs first, at most
        ``safety_candidates``."""
        found = []
        for V in FAN_SPEEDS:
            found += self._clean_runs(state, game, self._fan(state, V))
        return found[:self.cfg.search.safety_candidates]

    def foul_safeties(self, state: TableState, game: GameState) -> list[CandidateShot]:
        """The deliberate foul: the cue ball rolled at FOUL_SPEED so that it touches no ball and
        pockets nothing, handing the opponent ball in hand (WPA 6.3) but not the rack. Worth it
        only when every safety risks more, e.g. the 8 hanging in a pocket that it cannot be
        called into. One candidate at the centre of the widest run of such directions (every
        FAN_STEP degrees, nominal), or none."""
        return self._runs(state, game, self._fan(state, FOUL_SPEED),
                          lambda out: out.fouls == (Foul.NO_CONTACT,) and not out.pocketed)[:1]

    def _fan(self, state: TableState, V: float) -> list[CandidateShot]:
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

    def _soft_shots(self, state: TableState, cue: np.ndarray, aim: np.ndarray, speeds) -> list[CandidateShot]:
        """Safety candidates from ``cue`` towards the point ``aim`` at each of ``speeds`` [m/s],
        at the least elevation that clears (none above theta_max)."""
        phi = float(np.degrees(np.arctan2(aim[1] - cue[1], aim[0] - cue[0])))
        theta = min_elevation(cue, phi, state.pos[state.ids != CUE], self.table, self.params,
                              self.cfg.movegen.theta_min)
        if theta > self.cfg.movegen.theta_max:
            return []
        return [CandidateShot(ShotParams(phi, theta, V), CalledShot.safe(), "safety", 0.0) for V in speeds]

    def _safety(self, state: TableState, game: GameState, kitchen: bool):
        """(candidate, mean opponent value, mean win probability) of the best safety, or None.
        Safeties are judged the way the search judges shots. Each result is scored by
        ``search.common.opponent_value`` (a foul gives the opponent ball in hand: the
        evaluation's maximum). A sampling search (MC) plays each safety ``samples`` times under
        the error model and keeps the one of highest mean win probability
        (``winprob.passed_win_probability``: a safety always passes the turn); the others play
        each once as aimed (nominal), keep the one that leaves the opponent least and carry no
        win probability (None). The deliberate foul (``foul_safeties``) is judged with them: it
        is kept only when every safety that hits a ball is worse."""
        n = self.cfg.search.samples if self._sampled else 1
        best = None
        for c in self.safety_candidates(state, game, kitchen) + self.foul_safeties(state, game):
            results = play_samples(self.ctx, state, game, c, n, noise=self._sampled)
            opps = [opponent_value(self.ctx, s2, g2, out, game.shooter) for s2, g2, out in results]
            opp = sum(opps) / n
            if self._sampled:
                w = sum(passed_win_probability(self.ctx, g2, v, game.shooter)
                        for (_, g2, _), v in zip(results, opps)) / n
                better = best is None or w > best[2]
            else:
                w, better = None, best is None or opp < best[1]
            if better:
                best = (c, opp, w)
        return best

    def _fallback(self, state: TableState, game: GameState, cue_pos) -> Decision:
        """No shot and no clean safety: roll the cue ball at the nearest legal ball's centre."""
        cue = state.position(CUE)
        balls = [b for b in game.legal_targets() if state.has(b)] or [int(i) for i in state.ids if i != CUE]
        b = min(balls, key=lambda b: np.linalg.norm(state.position(b) - cue))
        d = state.position(b) - cue
        phi = float(np.degrees(np.arctan2(d[1], d[0])))
        theta = min(min_elevation(cue, phi, state.pos[state.ids != CUE], self.table, self.params,
                                  self.cfg.movegen.theta_min), 60.0)
        return Decision(ShotParams(phi, theta, 1.5), CalledShot.safe(), "fallback", 0.0, cue_pos)


def make_planner(name: str, noise: str | ErrorModel = "high", seed: int = 0, *,
                 tcfg: TableConfig | None = None, pcfg: PlannerConfig | None = None,
                 difficulty: DifficultyTable | None = None, on_stale: str = "rebuild") -> Planner:
    """A Planner by name ('greedy', 'prob', 'mc') whose samples use the error model ``noise``
    (a PRESETS name or an ErrorModel). The difficulty table is loaded from the cache (built or
    refused per ``on_stale`` when stale) unless given."""
    tcfg = tcfg or load_table_config()
    pcfg = pcfg or load_planner_config()
    if isinstance(noise, str):
        if noise not in PRESETS:
            raise ValueError(f"noise must be one of {sorted(PRESETS)}, got {noise!r}")
        error, label = PRESETS[noise], noise
    else:
        error, label = noise, "custom"
    if difficulty is None:
        difficulty = load_or_build(tcfg.table, tcfg.physics, error, pcfg.grid, name=label, on_stale=on_stale)
    return Planner(name, tcfg, pcfg, difficulty, error, seed)
