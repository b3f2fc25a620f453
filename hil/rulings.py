"""The observed referee and the rules again, on a recording's shot frames, against the rulings
recorded at the time.

For each shot record whose frames were recorded (config/service.yaml ``record_shot_frames``),
the snapshots are the last rest frame recorded before the shot's first frame (kind "rest",
the capture the shot was planned from) followed by its shot frames, each as today's vision saw it; ``controller.observed_referee.observe_shot``
reads the facts from them and ``planner.rules.eightball.rule`` rules on them with the recorded
call. Compared: the facts with the recorded ``observed.facts``, the ruling's reason with the
recorded ``ruling.reason``.
"""
from __future__ import annotations

from controller.observed_referee import Snapshot, observe_shot
from controller.service.gamelog import call_from_json, facts_to_json, game_from_json
from planner.rules.eightball import rule


def replay_rulings(shots: list[dict], results: list, table, R: float) -> dict:
    """shots: the recording's shot records; results: ``hil.frames.FrameResult`` of its frames.
    Returns {"shots", "replayed", "facts_agree", "rulings_agree", "disagreements": [{"shot",
    "recorded", "replayed"} ...]} (reasons; "error: ..." where the referee could not rule)."""
    moving_of: dict[int, list] = {}
    for r in results:
        if r.kind == "shot" and r.shot is not None:
            moving_of.setdefault(int(r.shot), []).append(r)
    out = {"shots": len(shots), "replayed": 0, "facts_agree": 0, "rulings_agree": 0, "disagreements": []}
    for s in shots:
        moving = moving_of.get(int(s["n"]), [])
        rest = [f for f in results if f.kind == "rest" and moving and f.i < moving[0].i]
        if not moving or not rest:
            continue
        snaps = [Snapshot(f.t, f.balls()) for f in [rest[-1], *moving]]
        aim = s["sent"]["command"]["phi"] if s.get("sent") else None
        out["replayed"] += 1
        try:
            facts = observe_shot(snaps, table, R, aim_deg=aim).facts
            _, outcome = rule(game_from_json(s["game_before"]), call_from_json(s["call"]), facts,
                              pocket_ids=table.pocket_ids)
            reason, fj = outcome.reason.value, facts_to_json(facts)
        except ValueError as e:
            reason, fj = f"error: {e}", None
        out["facts_agree"] += fj == s["observed"]["facts"]
        if reason == s["ruling"]["reason"]:
            out["rulings_agree"] += 1
        else:
            out["disagreements"].append({"shot": s["n"], "recorded": s["ruling"]["reason"], "replayed": reason})
    return out
