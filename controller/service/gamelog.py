"""The game log's records as JSON, and back (the schema is docs/recording.md).

Pure conversions: ``GameState``, ``Decision``, ``ShotFacts``, ``Outcome``, ``TableState`` to plain
JSON values and the reverse where a resumed game needs it (the game state). Units as
docs/frame.md: metres, degrees, m/s; ball ids as integers (JSON object keys as strings).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from controller.observed_referee import ObservedShot
from controller.service.observe import Sighting
from planner.decision import Decision
from planner.movegen import CandidateShot
from planner.rules.eightball import Outcome
from planner.rules.facts import ShotFacts
from planner.rules.game import CalledShot, GameState, InHand
from planner.shot import SHOT_FIELDS, ShotParams
from planner.state import TableState


@dataclass
class ShotInProgress:
    """A shot from its decision to its ruling: who plays it (player number and name), the game
    and the table seen before it, the capture frames before it, the decision and the move
    generator's alternatives, the stages' wall times [s], what was sent and the robot's reply,
    the frames through it, what the observed referee read from them, and the latency [s] from
    the table at rest to the SHOT sent (robot's shots)."""
    n: int
    player: int
    who: str
    game: GameState
    seen: TableState
    before: list[Sighting]
    decision: Decision | None = None
    alternatives: list = field(default_factory=list)
    stages: dict = field(default_factory=dict)
    plan_extra: dict = field(default_factory=dict)
    sent: dict | None = None
    reply: dict | None = None
    frames: list[Sighting] = field(default_factory=list)
    observed: ObservedShot | None = None
    latency_s: float | None = None



def _num(x: float, digits: int = 6) -> float | None:
    """A float JSON can hold (NaN and infinities -> None), rounded."""
    x = float(x)
    return round(x, digits) if math.isfinite(x) else None


def game_to_json(g: GameState) -> dict:
    return {"object_balls": sorted(int(b) for b in g.object_balls), "shooter": g.shooter,
            "groups": None if g.groups is None else list(g.groups), "is_break": g.is_break,
            "in_hand": g.in_hand.value, "winner": g.winner, "shot_number": g.shot_number}


def game_from_json(d: dict) -> GameState:
    """The GameState ``game_to_json`` wrote. Raises ValueError (GameState's checks) if it is not one."""
    return GameState(frozenset(d["object_balls"]), int(d["shooter"]),
                     None if d["groups"] is None else tuple(d["groups"]), bool(d["is_break"]),
                     InHand(d["in_hand"]), d["winner"], int(d["shot_number"]))


def table_to_json(s: TableState | None) -> dict | None:
    """{ball id (string): [x, y] m}, rounded to 0.1 mm."""
    if s is None:
        return None
    return {str(int(b)): [round(float(p[0]), 5), round(float(p[1]), 5)] for b, p in zip(s.ids, s.pos)}


def table_from_json(d: dict) -> TableState:
    return TableState.from_dict({int(b): tuple(xy) for b, xy in d.items()})


def shot_to_json(s: ShotParams) -> dict:
    return {k: _num(v) for k, v in zip(SHOT_FIELDS, s.as_array())}


def call_to_json(c: CalledShot | None) -> dict | None:
    if c is None:
        return None
    return {"safety": True} if c.safety else {"ball": c.ball, "pocket": c.pocket}


def call_from_json(d: dict | None) -> CalledShot | None:
    if d is None:
        return None
    return CalledShot.safe() if d.get("safety") else CalledShot.shot(d["ball"], d["pocket"])


def call_text(c: CalledShot | None) -> str:
    """'break', 'safety' or '<ball> in <pocket>'."""
    if c is None:
        return "break"
    return "safety" if c.safety else f"{c.ball} in {c.pocket}"


def candidate_to_json(c: CandidateShot) -> dict:
    return {"kind": c.kind, "call": call_to_json(c.call), "estimate": _num(c.p, 4), "shot": shot_to_json(c.shot)}


def decision_to_json(d: Decision, alternatives: list[CandidateShot] = ()) -> dict:
    return {"kind": d.kind, "call": call_to_json(d.call), "estimate": _num(d.estimate, 4),
            "shot": shot_to_json(d.shot),
            "cue_pos": None if d.cue_pos is None else [_num(d.cue_pos[0], 5), _num(d.cue_pos[1], 5)],
            "alternatives": [candidate_to_json(c) for c in alternatives]}


def facts_to_json(f: ShotFacts) -> dict:
    return {"first_contact": f.first_contact, "rail_after_contact": f.rail_after_contact,
            "balls_to_rail": sorted(f.balls_to_rail), "pocketed": [[b, p] for b, p in f.pocketed],
            "off_table": sorted(f.off_table)}


def facts_from_json(d: dict) -> ShotFacts:
    return ShotFacts(d["first_contact"], bool(d["rail_after_contact"]), frozenset(d["balls_to_rail"]),
                     tuple((int(b), str(p)) for b, p in d["pocketed"]), frozenset(d["off_table"]))


def observed_to_json(o: ObservedShot) -> dict:
    return {"facts": facts_to_json(o.facts), "undecided": list(o.undecided), "vanished": sorted(o.vanished),
            "contact_time": None if o.contact_time is None else _num(o.contact_time)}


def outcome_to_json(o: Outcome) -> dict:
    return {"reason": o.reason.value, "message": o.message, "turn_continues": o.turn_continues,
            "fouls": [f.value for f in o.fouls], "pocketed": [[b, p] for b, p in o.pocketed],
            "called_made": o.called_made, "spotted": list(o.spotted), "winner": o.winner,
            "legal_break": o.legal_break}


def alternatives(movegen, state: TableState, game: GameState, chosen: Decision, n: int = 3) -> list[CandidateShot]:
    """The move generator's best ``n`` candidates other than the chosen call, by their estimated
    success (the difficulty grid's, not the search's): what the dashboard lists beside the plan.
    Empty on the break and when the cue ball is in hand (the generator needs it on the table)."""
    if game.is_break or game.in_hand is not InHand.NONE or not state.has(0):
        return []
    out = []
    for c in movegen.generate(state, game):
        if chosen.call is not None and not chosen.call.safety and c.call == chosen.call:
            continue
        if all(c.call != o.call for o in out):
            out.append(c)
        if len(out) == n:
            break
    return out


def shot_record(shot: ShotInProgress, table_after: TableState, call, facts: ShotFacts, outcome: Outcome,
                game_after: GameState, robot_player: int) -> dict:
    """The game log's record of one ruled shot (docs/recording.md, "shot")."""
    d = shot.decision
    plan = None if d is None else {**decision_to_json(d, shot.alternatives), **shot.plan_extra}
    return {"type": "shot", "n": shot.n, "t": round(time.time(), 6), "player": shot.player,
            "who": shot.who, "robot": shot.player == robot_player,
            "game_before": game_to_json(shot.game), "table_seen": table_to_json(shot.seen),
            "plan": plan, "call": call_to_json(call), "sent": shot.sent, "reply": shot.reply,
            "observed": {**observed_to_json(shot.observed), "facts_ruled": facts_to_json(facts),
                         "frames": len(shot.before) + len(shot.frames), "table_after": table_to_json(table_after)},
            "ruling": outcome_to_json(outcome), "game_after": game_to_json(game_after),
            "latency_s": None if shot.latency_s is None else round(shot.latency_s, 4),
            "stages_s": {k: round(v, 4) for k, v in shot.stages.items()}}


def shot_line(rec: dict) -> str:
    """The printed line of a shot: who, call, estimate, outcome, fouls, latency."""
    plan = rec["plan"] or {}
    est = plan.get("estimate")
    call = call_text(call_from_json(rec["call"])) if not rec["game_before"]["is_break"] else "break"
    r = rec["ruling"]
    pots = ", ".join(f"{'cue' if b == 0 else b} in {p}" for b, p in r["pocketed"]) or "nothing"
    ruling = r["reason"].replace("_", " ")      # the rules' machine names, as words
    ruling = "" if ruling == call else f"; {ruling}"      # a safety ruled a safety says it once
    fouls = f"  FOUL {' + '.join(f.replace('_', ' ') for f in r['fouls'])}" if r["fouls"] else ""
    lat = f"  latency {rec['latency_s']:.2f} s" if rec["latency_s"] is not None else ""
    return (f"{rec['n']:3d} {rec['who']:>16}: {call:<10} est. {'-' if est is None else f'{est:.2f}':>4}"
            f" -> {pots}{ruling}{fouls}{lat}")


def round_xy(p) -> list[float]:
    return [round(float(v), 5) for v in np.asarray(p, dtype=float).reshape(2)]
