"""Matches between planners: whole 8-ball racks played on the physics engine, every executed shot
perturbed by the robot's error model and ruled by planner.rules.referee; PickPocket's Table 1
statistics (Smith 2006, Section 5): wins, straight-in successes/attempts (SIS), safety
successes/attempts (SS).

    rec = play_game(planner_a, planner_b, seed=1, noise="high")   # planner_a breaks
    result = run_match("mc", "greedy", games=4, noise="high", seed=0, workers=2)

A safety succeeds when it is not a foul and the opponent's next shot does not continue his turn.
The 8 spotted after a break goes on the foot spot or, if that is taken, as close behind it (towards
the foot rail) as is free (WPA 1.4).
"""
from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from planner.decision import Planner, make_planner, place_cue
from planner.execution import executable
from planner.parallel import parallel_map
from planner.physics.engine import Simulator
from planner.rack import rack_8ball
from planner.rules.eightball import Reason, referee
from planner.rules.game import GameState, InHand
from planner.shot import PRESETS, ShotParams
from planner.state import CUE, TableState
from planner.table import Table

MAX_SHOTS = 150    # a rack still running after this many shots is abandoned (no winner)


@dataclass(frozen=True)
class ShotRecord:
    """One executed shot: who played it, what was decided, what was executed and the ruling."""
    player: int
    kind: str
    call: tuple | None          # (ball, pocket) or ('safety',) or None on the break
    estimate: float
    executed: tuple[float, ...]  # the perturbed [phi, theta, V, a, b] actually simulated
    cue_pos: tuple[float, float] | None
    reason: str
    fouls: tuple[str, ...]
    pocketed: tuple[tuple[int, str], ...]
    called_made: bool
    turn_continues: bool
    decision_s: float


@dataclass
class GameRecord:
    """A whole rack. players: the planners' names, index 0 broke; winner: 0, 1 or None (abandoned
    after ``MAX_SHOTS``); shots in order; final_game: the referee's last GameState."""
    players: tuple[str, str]
    seed: int
    shots: list[ShotRecord] = field(default_factory=list)
    winner: int | None = None
    final_game: GameState | None = None

    def stats(self, player: int) -> dict:
        """{'sis': [successes, attempts], 'ss': [successes, attempts], 'decision_s': [...]}."""
        sis = [0, 0]
        ss = [0, 0]
        for i, s in enumerate(self.shots):
            if s.player != player:
                continue
            if s.kind == "straight":
                sis[1] += 1
                # a success: the called ball went down and the shooter keeps the table or, on
                # the called 8, wins the rack
                sis[0] += int(s.called_made and (s.turn_continues or s.reason == Reason.WIN.value))
            elif s.kind == "safety":
                ss[1] += 1
                nxt = self.shots[i + 1] if i + 1 < len(self.shots) else None
                ok = not s.fouls and (nxt is None or not nxt.turn_continues)
                ss[0] += int(ok)
        return {"sis": sis, "ss": ss, "decision_s": [s.decision_s for s in self.shots if s.player == player]}

    def to_json(self) -> dict:
        """The record as JSON-ready data: players, seed, winner and every shot's fields (strict
        JSON: a shot without an estimate, the break, has "estimate": null and an "estimate_note")."""
        def shot(s: ShotRecord) -> dict:
            d = dataclasses.asdict(s)
            if not math.isfinite(d["estimate"]):
                d["estimate"] = None
                d["estimate_note"] = f"no estimate: the planner does not estimate a {s.kind} shot"
            return d
        return {"players": list(self.players), "seed": self.seed, "winner": self.winner,
                "shots": [shot(s) for s in self.shots]}


def spot_ball(state: TableState, ball: int, table: Table, R: float) -> TableState:
    """``state`` with ``ball`` on the foot spot, or on the long axis as close behind it (towards
    the foot rail, then towards the head) as is free."""
    fx, fy = table.foot_spot
    others = state.pos[state.ids != ball]
    ys = np.concatenate([np.arange(fy, table.length - R, 1e-3), np.arange(fy, R, -1e-3)])
    for y in ys:
        p = np.array([fx, y])
        if len(others) == 0 or np.min(np.linalg.norm(others - p, axis=1)) >= 2 * R + 1e-4:
            keep = state.ids != ball
            return TableState(np.concatenate([state.ids[keep], [ball]]), np.vstack([state.pos[keep], p]))
    raise RuntimeError(f"no free place on the long axis to spot ball {ball}")


def play_game(planner_a: Planner, planner_b: Planner, seed: int, noise: str = "high", *,
              max_shots: int = MAX_SHOTS, sim: Simulator | None = None,
              on_shot: Callable[[ShotRecord, TableState], None] | None = None) -> GameRecord:
    """Play one rack: ``planner_a`` (player 0) breaks. Every shot is perturbed by
    PRESETS[noise] with a generator seeded by ``seed``, simulated, refereed; ball in hand,
    the spotted 8 and fouls are handled as the referee rules. ``on_shot(record, state_after)``
    is called after each shot. Returns the GameRecord."""
    if noise not in PRESETS:
        raise ValueError(f"noise must be one of {sorted(PRESETS)}, got {noise!r}")
    error = PRESETS[noise]
    table, params = planner_a.table, planner_a.params
    sim = sim or Simulator(table, params)
    rng = np.random.default_rng(seed)
    state = rack_8ball(table, params.R, rng)
    game = GameState.new_rack(breaker=0)
    players = (planner_a, planner_b)
    rec = GameRecord((planner_a.name, planner_b.name), seed)
    while not game.is_over and len(rec.shots) < max_shots:
        who = game.shooter
        t0 = time.perf_counter()
        d = players[who].choose(state, game)
        dt = time.perf_counter() - t0
        if d.cue_pos is not None:
            state = place_cue(state, d.cue_pos)
        shot = executable(error.perturb(d.shot, rng, 1), params.R)[0]
        res = sim.simulate(state, ShotParams.from_array(shot))
        game, out = referee(game, d.call, res.events, pocket_ids=table.pocket_ids)
        state = res.state_after()
        for ball in out.spotted:
            state = spot_ball(state, ball, table, params.R)
        call = None if d.call is None else (("safety",) if d.call.safety else (d.call.ball, d.call.pocket))
        rec.shots.append(ShotRecord(who, d.kind, call, float(d.estimate), tuple(float(x) for x in shot),
                                    d.cue_pos, out.reason.value, tuple(f.value for f in out.fouls),
                                    out.pocketed, out.called_made, out.turn_continues, dt))
        if on_shot is not None:
            on_shot(rec.shots[-1], state)
        if not state.has(CUE) and not game.is_over and game.in_hand is InHand.NONE:
            raise RuntimeError(f"shot {len(rec.shots)}: the cue ball is off the table but the referee "
                               f"gave no ball in hand ({out.reason.value})")
    rec.winner = game.winner
    rec.final_game = game
    return rec


def _game_job(args):
    a, b, seed, noise, swap, max_shots = args
    pa, pb = make_planner(a, noise, seed), make_planner(b, noise, seed + 1)
    rec = play_game(pb, pa, seed, noise, max_shots=max_shots) if swap else play_game(pa, pb, seed, noise,
                                                                                   max_shots=max_shots)
    return swap, rec


def run_match(a: str, b: str, games: int, noise: str = "high", seed: int = 0, workers: int = 1,
              max_shots: int = MAX_SHOTS, progress=None,
              on_game: Callable[[GameRecord], None] | None = None) -> dict:
    """Play ``games`` racks between planners ``a`` and ``b`` (by name), alternating the break
    (A breaks the even games); ``on_game(record)`` is called as each game finishes. Returns
    {'wins': {'A': n, 'B': n, 'none': n}, 'sis': {'A': [s, a], 'B': [s, a]}, 'ss': {...},
    'decision_s': {'A': median, 'B': median}, 'games': [GameRecord]}."""
    make_planner(a, noise)          # build or check the difficulty grid once, before the workers
    jobs = [(a, b, seed + 1000 * g, noise, g % 2 == 1, max_shots) for g in range(games)]
    results = parallel_map(_game_job, jobs, workers, progress, ordered=False,
                           on_result=None if on_game is None else (lambda r: on_game(r[1])))
    wins = {"A": 0, "B": 0, "none": 0}
    sis = {"A": [0, 0], "B": [0, 0]}
    ss = {"A": [0, 0], "B": [0, 0]}
    times = {"A": [], "B": []}
    for swap, rec in results:
        for player, label in ((0, "B" if swap else "A"), (1, "A" if swap else "B")):
            st = rec.stats(player)
            for k in (0, 1):
                sis[label][k] += st["sis"][k]
                ss[label][k] += st["ss"][k]
            times[label] += st["decision_s"]
        if rec.winner is None:
            wins["none"] += 1
        else:
            wins[("B" if swap else "A") if rec.winner == 0 else ("A" if swap else "B")] += 1
    return {"wins": wins, "sis": sis, "ss": ss,
            "decision_s": {k: float(np.median(v)) if v else float("nan") for k, v in times.items()},
            "games": [r for _, r in results]}
