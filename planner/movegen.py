"""PickPocket's move generator (Smith 2006, Section 3.1): for every legal ball and pocket, the
straight-in shots (ghost-ball aim, minimum speed plus increments, a few tip offsets for draw,
stun and follow, the lowest cue elevation that clears), each with a success-probability estimate
from the shot-difficulty grid (planner.difficulty); only when no straight-in shot exists,
one-rail banks, one-rail kicks and two-ball combinations, whose estimate is a discounted
straight-in probability.

Physically-possible check: the cue ball's path to the ghost ball and the object ball's path to
the pocket are free of other balls (capsule test: centres farther than 2R from the segment), and
the cue stick clears balls and the cushion behind the cue ball (the elevation is raised until it
does, up to ``MoveGenConfig.theta_max``); the geometry is planner.aim's.

Units: metres, m/s, degrees (docs/frame.md).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.aim import (
    RAILS,
    aim_straight,
    ghost_ball,
    min_elevation,
    on_table,
    path_clear,
    pocket_axes,
    pocket_targets,
    rail_point,
    reflect_across_rail,
    unit,
)
from planner.difficulty import BETA_MAX, DifficultyGrid, difficulty_dir
from planner.physics.params import PhysicsParams
from planner.rules.game import CalledShot, GameState
from planner.shot import ShotParams
from planner.speed import min_speed
from planner.state import CUE, TableState
from planner.straight_shots import straight_pairs
from planner.table import Table
from planner.throw import ThrowCorrection, is_right_cut, load_throw


@dataclass(frozen=True)
class MoveGenConfig:
    """speed_increments [m/s] added to the minimum speed; spins: (a, b) tip offsets as fractions
    of R; fine_speed_increments, fine_spins: the finer grid of the same that ``refinements``
    offers for a call the search found best (the pairs not already in the coarse grid); v_max
    [m/s]; theta_min/theta_max [deg]; alpha_max [deg]; discounts for the non-straight-in kinds
    (multiplying a straight-in probability). Read from the ``movegen`` section of
    config/planner.yaml (v_max from its ``robot`` section), which holds the only defaults."""
    speed_increments: tuple[float, ...]
    spins: tuple[tuple[float, float], ...]
    fine_speed_increments: tuple[float, ...]
    fine_spins: tuple[tuple[float, float], ...]
    v_max: float
    theta_min: float
    theta_max: float
    alpha_max: float
    bank_discount: float
    kick_discount: float
    combo_discount: float


@dataclass(frozen=True)
class CandidateShot:
    """A shot the robot can play, the call that goes with it, its kind ('straight', 'bank',
    'kick', 'combo', 'safety', 'break') and its estimated success probability p."""
    shot: ShotParams
    call: CalledShot | None
    kind: str
    p: float


def _others(state: TableState, exclude: tuple[int, ...]) -> np.ndarray:
    keep = state.ids != exclude[0]
    for e in exclude[1:]:
        keep &= state.ids != e
    return state.pos[keep]


def _targets_on_table(state: TableState, game: GameState):
    """(ball id, position) of each legal target ball still on the table, in id order."""
    return [(b, state.position(b)) for b in sorted(game.legal_targets()) if state.has(b)]


def fine_only(cfg: MoveGenConfig) -> tuple:
    """The fine grid less the coarse one: ((a, b), speed increments) for each fine spin with
    the increments the coarse grid does not already pair with it (spins left with none dropped)."""
    out = []
    for spin in cfg.fine_spins:
        incs = tuple(i for i in cfg.fine_speed_increments if spin not in cfg.spins or i not in cfg.speed_increments)
        if incs:
            out.append((spin, incs))
    return tuple(out)


class MoveGenerator:
    """Candidate shots for one pool table, physics, difficulty grid and config; ``throw``
    (default: ``load_throw``, measured once and cached beside the difficulty grids) corrects the
    aim of straight-in shots."""

    def __init__(self, table: Table, params: PhysicsParams, difficulty: DifficultyGrid,
                 config: MoveGenConfig, throw: ThrowCorrection | None = None):
        self.table, self.params, self.difficulty, self.cfg = table, params, difficulty, config
        spins_b = tuple(dict.fromkeys(b for _, b in config.spins + config.fine_spins))
        self.throw = throw or load_throw(table, params, spins_b, difficulty_dir())
        self._coarse = tuple((s, config.speed_increments) for s in config.spins)
        self._fine = fine_only(config)
        self.targets = pocket_targets(table)
        self.axes = pocket_axes(table)
        self.side = np.array([k == "side" for k in table.pocket_kind])
        self.beta_max = np.array([BETA_MAX[k] for k in table.pocket_kind])
        self._grids = (*difficulty.grid("corner"), *difficulty.grid("side"))

    # ---- probabilities only (evaluation) --------------------------------------------------
    def legal_straight_probabilities(self, state: TableState, game: GameState) -> dict[tuple[int, str], float]:
        """``straight_probabilities`` over the balls ``game`` lets the player to move call, in
        ball order."""
        return self.straight_probabilities(state, sorted(game.legal_targets()))

    def straight_probabilities(self, state: TableState, balls) -> dict[tuple[int, str], float]:
        """{(ball, pocket id): p} of every possible straight-in shot on ``balls`` (compiled:
        planner.straight_shots; the evaluation function's inner loop). Blocked or impossible
        shots are absent."""
        row_of = {int(i): r for r, i in enumerate(state.ids)}
        if CUE not in row_of:
            return {}
        balls = [int(b) for b in balls if b in row_of]
        if not balls:
            return {}
        rows = np.array([row_of[b] for b in balls], dtype=np.int64)
        p = straight_pairs(state.pos, row_of[CUE], rows, self.targets, self.axes, self.side, self.beta_max,
                           self.params.R, self.table.width, self.table.length, self.cfg.alpha_max, *self._grids)
        bi, k = np.nonzero(~np.isnan(p))
        pids = self.table.pocket_ids
        return {(balls[i], pids[j]): v for i, j, v in zip(bi.tolist(), k.tolist(), p[bi, k].tolist())}

    # ---- full candidates ------------------------------------------------------------------
    def _variants(self, cue, phi, alpha, d1, d2, others, call, kind, p,
                  right_cut: bool | None = None, grid=None) -> list[CandidateShot]:
        """Speed and spin variants of one aim over ``grid`` (((a, b), speed increments) pairs;
        default the coarse grid of ``spins`` x ``speed_increments``); with ``right_cut`` (the
        object ball leaves to the right of the cue ball's path, or not) phi is corrected for
        throw (planner/throw.py). Speeds are the tip height's minimum speed plus each increment,
        capped at v_max (one variant at v_max for the increments beyond it); a tip height whose
        minimum speed exceeds v_max gives none (the object ball would stop short of the
        pocket). No variant when the cue stick needs more than theta_max to clear."""
        R, cfg = self.params.R, self.cfg
        theta = min_elevation(cue, phi, others, self.table, self.params, cfg.theta_min)
        if theta > cfg.theta_max:
            return []
        out = []
        for (a, b), increments in grid or self._coarse:
            v0 = float(min_speed(self.params, alpha, d1, d2, b))
            if v0 > cfg.v_max:
                continue
            for inc in increments:
                V = min(v0 + inc, cfg.v_max)
                aim = phi if right_cut is None else phi + self.throw.correction(alpha, d2, V, b, right_cut)
                out.append(CandidateShot(ShotParams(float(aim), theta, V, a * R, b * R), call, kind, p))
                if V >= cfg.v_max:
                    break
        return out

    def straight_in(self, state: TableState, game: GameState) -> list[CandidateShot]:
        probs = self.legal_straight_probabilities(state, game)
        return [c for (b, pid), p in probs.items() for c in self._straight_call(state, b, pid, p)]

    def _straight_call(self, state: TableState, b: int, pid: str, p: float, grid=None) -> list[CandidateShot]:
        """The variants (``_variants`` over ``grid``) of the straight-in shot on ball ``b`` into
        pocket ``pid`` (estimate p)."""
        k = self.table.pocket_index(pid)
        cue, obj = state.position(CUE), state.position(b)
        aim = aim_straight(cue, obj, self.targets[k], self.axes[k], self.params.R)
        return self._variants(cue, aim.phi, aim.alpha, aim.d1, aim.d2, _others(state, (CUE,)),
                              CalledShot.shot(b, pid), "straight", p,
                              right_cut=is_right_cut(aim.ghost - cue, self.targets[k] - obj), grid=grid)

    def refinements(self, state: TableState, cand: CandidateShot) -> list[CandidateShot]:
        """The fine-grid variants (``fine_spins`` x ``fine_speed_increments``, less the coarse
        pairs ``generate`` already offers) of a straight-in candidate's call, same estimate;
        empty for other kinds or when no fine grid is configured."""
        if cand.kind != "straight" or not self._fine:
            return []
        return self._straight_call(state, cand.call.ball, cand.call.pocket, cand.p, grid=self._fine)

    def _p(self, side, alpha, d1, d2, beta) -> float:
        return float(self.difficulty.lookup(side, alpha, d1, d2, beta))

    def banks(self, state: TableState, game: GameState) -> list[CandidateShot]:
        """One-rail banks: the object ball aimed at the pocket's mirror image through a rail."""
        R, t = self.params.R, self.table
        cue = state.position(CUE)
        out = []
        for b, obj in _targets_on_table(state, game):
            for k, pid in enumerate(t.pocket_ids):
                for rail in RAILS:
                    img = reflect_across_rail(self.targets[k], t, rail, R, self.params.e_c)
                    hit = rail_point(obj, img, t, rail, R)
                    if hit is None:
                        continue
                    aim = aim_straight(cue, obj, img, self.axes[k], R)
                    if aim.alpha > self.cfg.alpha_max or not on_table(aim.ghost, t, R):
                        continue
                    rest = _others(state, (b, CUE))
                    if not (path_clear(obj, hit, _others(state, (b,)), R) and path_clear(hit, self.targets[k], rest, R)
                            and path_clear(cue, aim.ghost, rest, R)):
                        continue
                    beta = float(np.degrees(np.arccos(np.clip(unit(hit - self.targets[k]) @ self.axes[k], -1, 1))))
                    if beta > self.beta_max[k]:
                        continue
                    p = self.cfg.bank_discount * self._p(self.side[k], aim.alpha, aim.d1, aim.d2, beta)
                    out += self._variants(cue, aim.phi, aim.alpha, aim.d1, aim.d2, _others(state, (CUE,)),
                                          CalledShot.shot(b, pid), "bank", p)
        return out

    def kicks(self, state: TableState, game: GameState) -> list[CandidateShot]:
        """One-rail kicks: the cue ball aimed at the ghost ball's mirror image through a rail."""
        R, t = self.params.R, self.table
        cue = state.position(CUE)
        out = []
        for b, obj in _targets_on_table(state, game):
            rest = _others(state, (b, CUE))
            for k, pid in enumerate(t.pocket_ids):
                g = ghost_ball(obj, self.targets[k], R)
                if not on_table(g, t, R) or not path_clear(obj, self.targets[k], _others(state, (b,)), R):
                    continue
                for rail in RAILS:
                    img = reflect_across_rail(g, t, rail, R, self.params.e_c)
                    hit = rail_point(cue, img, t, rail, R)
                    if hit is None or not (path_clear(cue, hit, rest, R) and path_clear(hit, g, rest, R)):
                        continue
                    aim = aim_straight(hit, obj, self.targets[k], self.axes[k], R)
                    if aim.alpha > self.cfg.alpha_max or aim.beta > self.beta_max[k]:
                        continue
                    d2 = float(np.linalg.norm(hit - cue)) + aim.d2
                    p = self.cfg.kick_discount * self._p(self.side[k], aim.alpha, aim.d1, d2, aim.beta)
                    phi = float(np.degrees(np.arctan2(*(img - cue)[::-1])))
                    out += self._variants(cue, phi, aim.alpha, aim.d1, d2 * 1.2, _others(state, (CUE,)),
                                          CalledShot.shot(b, pid), "kick", p)
        return out

    def combos(self, state: TableState, game: GameState) -> list[CandidateShot]:
        """Two-ball combinations: the cue ball drives legal ball A into legal ball B, which is called."""
        R, t = self.params.R, self.table
        cue = state.position(CUE)
        legal = [b for b in sorted(game.legal_targets()) if state.has(b)]
        out = []
        for a_id in legal:
            pa = state.position(a_id)
            for b_id in legal:
                if b_id == a_id:
                    continue
                pb = state.position(b_id)
                for k, pid in enumerate(t.pocket_ids):
                    second = aim_straight(pa, pb, self.targets[k], self.axes[k], R)
                    if second.alpha > 60 or second.beta > self.beta_max[k]:
                        continue
                    first = aim_straight(cue, pa, second.ghost, self.axes[k], R)
                    if first.alpha > 60 or not on_table(first.ghost, t, R):
                        continue
                    if not (path_clear(pb, self.targets[k], _others(state, (b_id,)), R)
                            and path_clear(pa, second.ghost, _others(state, (a_id, b_id)), R)
                            and path_clear(cue, first.ghost, _others(state, (a_id, CUE)), R)):
                        continue
                    p = (self.cfg.combo_discount * self._p(self.side[k], second.alpha, second.d1, second.d2, second.beta)
                         * self._p(self.side[k], first.alpha, first.d1, first.d2, 0.0))
                    # speed: the first object ball must deliver the second over d1 after a cut
                    d1_eff = second.d1 / max(np.cos(np.radians(second.alpha)), 0.2) ** 2 + second.d2
                    out += self._variants(cue, first.phi, first.alpha, d1_eff, first.d2, _others(state, (CUE,)),
                                          CalledShot.shot(b_id, pid), "combo", p)
        return out

    def generate(self, state: TableState, game: GameState) -> list[CandidateShot]:
        """All candidates, best estimate first: straight-in shots, or if none is possible the
        banks, kicks and combinations."""
        if not game.legal_targets() or not state.has(CUE):
            return []
        out = self.straight_in(state, game)
        if not out:
            out = self.banks(state, game) + self.kicks(state, game) + self.combos(state, game)
        out.sort(key=lambda c: -c.p)
        return out

    def best(self, state: TableState, game: GameState, n: int) -> list[CandidateShot]:
        """``generate(state, game)[:n]``, building only the straight-in calls those come from
        (the search's inner nodes need a few candidates, not all)."""
        probs = self.legal_straight_probabilities(state, game)
        out: list[CandidateShot] = []
        for (b, pid), p in sorted(probs.items(), key=lambda kp: -kp[1]):
            out += self._straight_call(state, b, pid, p)
            if len(out) >= n:
                return out[:n]
        return out or self.generate(state, game)[:n]
