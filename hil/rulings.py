"""The observed referee and the rules again, on a recording's shot frames, against the rulings
recorded at the time.

What the service judged a shot on (``Service._read_shot``, ``_expected_after``, ``_judge``), fed
the same way: the frames of its ``hil.sightings.ShotWindow`` (the capture before it, its shot
frames, the capture after), each as the service's ``sight`` reads it (``hil.sightings``), through
``controller.observed_referee.observe_shot`` with the planned aim (the decision's phi, the
robot's and the simulated opponent's; none for a person's shot). The ruled facts add to
``off_table`` the balls that vanished and are not on the table of the capture after; the call
is the plan's, or ``controller.service.opponent.inferred_call`` for a shot nobody called; then
``planner.rules.eightball.rule``. Compared: the facts with the recorded ``observed.facts``, the
ruling's reason with the recorded ``ruling.reason``, and how many frames the referee read with
the recorded ``observed.frames`` (fewer when the recording keeps only the last frame of each
capture: docs/recording.md, "Frames").
"""
from __future__ import annotations

from controller.observed_referee import Snapshot, observe_shot
from controller.service.gamelog import call_from_json, facts_to_json, game_from_json, table_from_json
from controller.service.observe import Sighting, majority_table
from controller.service.opponent import inferred_call
from hil.sightings import ShotWindow
from planner.rules.eightball import rule


def judge(shot: dict, window: ShotWindow, seen: list[Sighting], table, R: float) -> tuple[str, dict | None]:
    """One shot record's ruling from its frames: (the reason, or "error: ..." where the referee
    cannot rule; the observed facts as JSON, None on an error)."""
    frames = [seen[k] for k in window.before + window.moving + window.after]
    plan = shot.get("plan")
    aim = plan["shot"]["phi"] if plan else None
    try:
        observed = observe_shot([Snapshot(s.t, dict(s.balls)) for s in frames], table, R, aim_deg=aim)
        after = (majority_table([seen[k] for k in window.after])[0] if window.after
                 else table_from_json(shot["observed"].get("table_after") or {}))
        facts = observed.facts_given(after.ids)
        game = game_from_json(shot["game_before"])
        call = call_from_json(plan["call"]) if plan else inferred_call(game, facts)
        _, outcome = rule(game, call, facts, pocket_ids=table.pocket_ids)
    except ValueError as e:
        return f"error: {e}", None
    return outcome.reason.value, facts_to_json(observed.facts)


NEEDED = (("n",), ("game_before",), ("call",), ("observed", "facts"), ("ruling", "reason"))
NEEDED_WITH_PLAN = (("plan", "call"), ("plan", "shot", "phi"))


def _check(shot: dict) -> None:
    """ValueError naming the first field of NEEDED (and NEEDED_WITH_PLAN, for a record whose plan
    is not null) a shot record lacks (docs/recording.md)."""
    for path in NEEDED + (NEEDED_WITH_PLAN if shot.get("plan") is not None else ()):
        v = shot
        for k in path:
            if not isinstance(v, dict) or k not in v:
                raise ValueError(f"shot {shot.get('n', '?')}: the record has no {'.'.join(path)}")
            v = v[k]


def replay_rulings(shots: list[dict], windows: dict[int, ShotWindow], seen: list[Sighting], table,
                   R: float) -> dict:
    """shots: the recording's shot records; windows: its shot windows (``hil.sightings``); seen:
    its frames as the service read them. Returns {"shots", "replayed", "facts_agree",
    "rulings_agree", "frames_read", "frames_recorded", "disagreements": [{"shot", "recorded",
    "replayed"} ...]}: frames_read / frames_recorded sum, over the replayed shots whose record
    says how many frames the service fed the referee (``observed.frames``), the frames fed to it
    now and that count. Raises ValueError naming a field a replayed shot record lacks."""
    out = {"shots": len(shots), "replayed": 0, "facts_agree": 0, "rulings_agree": 0, "frames_read": 0,
           "frames_recorded": 0, "disagreements": []}
    for s in shots:
        w = windows.get(int(s.get("n", -1)))
        if w is None or not w.before:
            continue
        _check(s)
        reason, facts = judge(s, w, seen, table, R)
        out["replayed"] += 1
        if s["observed"].get("frames") is not None:
            out["frames_read"] += len(w.before) + len(w.moving) + len(w.after)
            out["frames_recorded"] += int(s["observed"]["frames"])
        out["facts_agree"] += facts == s["observed"]["facts"]
        if reason == s["ruling"]["reason"]:
            out["rulings_agree"] += 1
        else:
            out["disagreements"].append({"shot": s["n"], "recorded": s["ruling"]["reason"], "replayed": reason})
    return out
