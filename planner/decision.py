"""The decision: one ``choose(state, game) -> Decision`` for every search (greedy, prob, mc),
handling the break, ball-in-hand placement and the choice between the search's shot and a
safety (planner.safety) around the search (Smith 2006, Sections 3-4), and a factory by name.

    planner = make_planner("mc", noise="high")
    d = planner.choose(table_state, game_state)   # d.shot, d.call, d.kind, d.estimate, d.cue_pos

Every shot it returns lies within the planner's own envelope (config/planner.yaml: speeds up to
``robot.v_max``, the break at ``robot.v_break``, the configured spins, elevations in
``movegen.theta_min .. theta_max``); ``make_planner(..., limits=...)`` refuses settings whose
envelope exceeds what the robot declared (``config.planner.check_planner_within_limits``).
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace

import numpy as np

from config.planner import PlannerSettings, check_planner_within_limits, load_planner_settings
from config.table import TableSettings, load_table_settings
from planner.aim import min_elevation
from planner.difficulty import DifficultyGrid, load_difficulty
from planner.movegen import CandidateShot, MoveGenerator
from planner.physics.engine import Simulator
from planner.rules.game import CalledShot, GameState, InHand
from planner.safety import SafetyChoice, SafetySearch
from planner.search import greedy, montecarlo, probabilistic
from planner.search.common import Scored, SearchConfig, SearchContext, past
from planner.search.winprob import mean_win_probability
from planner.shot import PRESETS, ErrorModel, ShotLimits, ShotParams, error_label
from planner.state import CUE, TableState

log = logging.getLogger(__name__)

SEARCHES = {"greedy": greedy, "prob": probabilistic, "mc": montecarlo}   # modules: search(), SAMPLED
IN_HAND_KEEP = 3                              # placements searched after the quick evaluation
FALLBACK_SPEED = 1.5                          # cue speed of the fallback roll (capped at v_max) [m/s]


@dataclass(frozen=True)
class Decision:
    """The planner's choice. shot: what to play; call: the call (None on the break; a safety
    call for safeties); kind: 'break', 'straight', 'bank', 'kick', 'combo', 'safety' (the
    deliberate foul included) or 'fallback';
    estimate: the success-probability estimate of a shot, or for a safety the opponent's
    evaluation after it; cue_pos: (x, y) [m] where to place the cue ball when in hand, else None;
    capped: the search was cut by the wall-clock safety cap ``search.wall_cap_s`` (planner.yaml)
    before its sample budgets ran out, so the decision may differ from machine to machine."""
    shot: ShotParams
    call: CalledShot | None
    kind: str
    estimate: float
    cue_pos: tuple[float, float] | None = None
    capped: bool = False


def place_cue(state: TableState, pos) -> TableState:
    """The state with the cue ball at ``pos`` (added, or moved if already on the table)."""
    keep = state.ids != CUE
    return TableState(np.concatenate([[CUE], state.ids[keep]]), np.vstack([np.asarray(pos, float), state.pos[keep]]))


def prefer_safety(best: Scored | None, safety: SafetyChoice, shot_win: float | None, cfg: SearchConfig) -> bool:
    """Whether to play the safety (``SafetySearch.best``) instead of the search's best shot,
    whose win probability is ``shot_win`` (None when the search does not sample). Called only
    when the best shot's estimate is below t0 or there is none (Smith 2006, Section 4.3). With
    no shot, the safety.
    Greedy and Probabilistic search follow the paper: the safety when it leaves the opponent an
    evaluation below t1. Monte-Carlo search compares win probabilities
    (planner.search.winprob): the safety when its win probability is the higher."""
    if best is None:
        return True
    if shot_win is not None:
        return safety.win_probability > shot_win
    return safety.opponent_value < cfg.t1


class Planner:
    """A search (``SEARCHES[name]``) wrapped with the break, ball in hand and the choice of a
    safety (``safety``, a SafetySearch sharing the search's context) when the search finds no
    good enough shot."""

    def __init__(self, name: str, tcfg: TableSettings, pcfg: PlannerSettings, difficulty: DifficultyGrid,
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
        self.safety = SafetySearch(self.table, self.params, pcfg.movegen, self.ctx, self._sampled)

    # ---- the decision ---------------------------------------------------------------------
    def choose(self, state: TableState, game: GameState) -> Decision:
        """Decide the next shot for the player to move. Raises ValueError if the rack is over.
        The search ends by its sample and node budgets; the wall-clock cap ``search.wall_cap_s``
        only stops a runaway search (then ``Decision.capped`` is set and a warning logged)."""
        if game.is_over:
            raise ValueError(f"the rack is over (player {game.winner} won)")
        if game.is_break:
            return self._break(state)
        deadline = time.perf_counter() + self.cfg.search.wall_cap_s
        if game.in_hand is not InHand.NONE:
            d = self._in_hand(state, game, deadline)
        else:
            d = self._decide(state, game, deadline)
        if past(deadline):
            log.warning("the decision hit the wall-clock safety cap search.wall_cap_s = %s s: the best shot "
                        "so far is played", self.cfg.search.wall_cap_s)
            d = replace(d, capped=True)
        return d

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
            safety = self.safety.best(state, game, kitchen)
            shot_win = (mean_win_probability(self.ctx, state, game, best.candidate, self.cfg.search.samples)
                        if safety is not None and best is not None and self._sampled else None)
            if safety is not None and prefer_safety(best, safety, shot_win, self.cfg.search):
                return Decision(safety.candidate.shot, CalledShot.safe(), "safety", safety.opponent_value, cue_pos)
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
        mg = self.cfg.movegen
        theta = min(min_elevation(cue, phi, state.pos[objs], t, self.params, mg.theta_min), mg.theta_max)
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

    def _in_hand(self, state: TableState, game: GameState, deadline: float) -> Decision:
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
        best = None
        for _, p, s in scored[:IN_HAND_KEEP]:
            d = self._decide(s, placed, deadline, kitchen, cue_pos=(float(p[0]), float(p[1])))
            rank = d.estimate if d.kind != "safety" else -d.estimate
            if best is None or rank > best[0]:
                best = (rank, d)
        return best[1]

    def _fallback(self, state: TableState, game: GameState, cue_pos) -> Decision:
        """No shot and no clean safety: roll the cue ball at the nearest legal ball's centre at
        FALLBACK_SPEED (at most v_max), at the least elevation that clears (at most theta_max)."""
        cue = state.position(CUE)
        balls = [b for b in game.legal_targets() if state.has(b)] or [int(i) for i in state.ids if i != CUE]
        b = min(balls, key=lambda b: np.linalg.norm(state.position(b) - cue))
        d = state.position(b) - cue
        phi = float(np.degrees(np.arctan2(d[1], d[0])))
        mg = self.cfg.movegen
        theta = min(min_elevation(cue, phi, state.pos[state.ids != CUE], self.table, self.params, mg.theta_min),
                    mg.theta_max)
        return Decision(ShotParams(phi, theta, min(FALLBACK_SPEED, mg.v_max)), CalledShot.safe(), "fallback", 0.0,
                        cue_pos)


def make_planner(name: str, noise: str | ErrorModel = "high", seed: int = 0, *,
                 tcfg: TableSettings | None = None, pcfg: PlannerSettings | None = None,
                 difficulty: DifficultyGrid | None = None, on_stale: str = "rebuild",
                 limits: ShotLimits | None = None, limits_source: str = "the robot's declared limits") -> Planner:
    """A Planner by name ('greedy', 'prob', 'mc') whose samples use the error model ``noise``
    (a PRESETS name, or an ErrorModel such as ``planner.shot.error_model_for`` returns). The
    difficulty grid is loaded from the cache under ``error_label(noise)`` (``load_difficulty``:
    built, or refused per ``on_stale``, when stale) unless given.

    limits: what the robot can execute (e.g. its HELLO, converted with
    ``ShotLimits.from_ranges``); when given, the planner settings must fit inside them
    (``check_planner_within_limits``; ``limits_source`` names where they come from in the
    error, e.g. "the robot's HELLO (firmware sim-1.0)"). None: no robot to check against (the
    planner still keeps to its own settings).
    Raises ValueError for an unknown name or noise preset, config.reader.ConfigError (a
    ValueError) for settings beyond ``limits``."""
    tcfg = tcfg or load_table_settings()
    pcfg = pcfg or load_planner_settings()
    if limits is not None:
        check_planner_within_limits(pcfg, limits, limits_source, tcfg.physics.R)
    if isinstance(noise, str):
        if noise not in PRESETS:
            raise ValueError(f"noise must be one of {sorted(PRESETS)}, got {noise!r}")
        error = PRESETS[noise]
    else:
        error = noise
    label = error_label(error)
    if difficulty is None:
        difficulty = load_difficulty(tcfg.table, tcfg.physics, error, pcfg.grid, name=label, on_stale=on_stale)
    return Planner(name, tcfg, pcfg, difficulty, error, seed)
