"""Planner agreement: today's planner decides each planned shot of a recording again, from the
recorded table and game state, and its decision is compared with the recorded plan.

The planners are built as the controller built them (``controller.service.setup.build_game``):
from the recording's configuration snapshot (``config/table.yaml``, ``planner.yaml``,
``robot.yaml``, ``service.yaml``) and run.json. The robot's planner: run.json ``players[0]``,
seed ``seeds.robot_planner``, error model robot.yaml's measured ``error_sigmas`` or else
run.json's ``noise`` preset. The simulated opponent's (sim backend only; a person's shots have
no plan): ``players[1]``, seed ``seeds.opponent_planner``, service.yaml's
``players.opponent_noise``. After a ``resume`` record both are new, seeded as the resumed game
(``derive_seeds(seed, shots)``). Each planner decides its player's shots in the recorded order,
each on the shot's ``table_seen`` and ``game_before``, so that its random stream is drawn in
the order the game drew it.

What agreement means: a decision agrees when its call is the recorded call and every shot
parameter is within ``tolerance`` of the recorded one (phi, theta [deg], V [m/s], a, b [m]; the
cue ball's placement ``cue_pos`` [m]). A planner's first decision starts from the recorded
stream state, so for it the comparison is exact up to the log's rounding of the table (0.1 mm).
A later decision of a sampling planner (prob, mc) starts from the same stream state only if
every earlier decision drew the same number of samples; after a first disagreement, the later
ones of that stream measure the planner's spread as much as a change of code. A planner that
draws nothing (greedy, and every break) has no such caveat. A ball-in-hand decision is re-run
on ``table_seen``, the table after the placement (the cue ball's position before it is not
recorded; the placement search ignores it).
"""
from __future__ import annotations

TOLERANCE = {"phi": 0.05, "theta": 0.05, "V": 0.005, "a": 0.0005, "b": 0.0005, "cue_pos": 0.0005}
"""Default tolerances (phi, theta [deg], V [m/s], a, b, cue_pos [m]), replaced key by key by a
thresholds file's ``planner_tolerance`` mapping (hil/thresholds.py)."""


def _planners(rec):
    """A function (robot?, shots before this process) -> the Planner that decided the robot's
    (else the simulated opponent's) shots in that process, seeded as the controller seeded it."""
    from config.settings import load_settings
    from controller.sim.backend import derive_seeds
    from planner.decision import make_planner
    from planner.shot import error_model_for

    settings = load_settings(rec.root / "config")
    error, _ = error_model_for(settings.robot.error_sigmas, rec.meta.get("noise", "high"))
    players = rec.meta.get("players")
    if not isinstance(rec.meta.get("seed"), int) or not (isinstance(players, list) and len(players) == 2):
        raise ValueError(f"{rec.root / 'run.json'}: planned shots need run.json's seed (an integer) and "
                         f"players (the robot's and the opponent's planner names) to be decided again")
    seed, made = int(rec.meta["seed"]), {}

    def planner_for(robot: bool, resumed_at: int):
        if (robot, resumed_at) not in made:
            seeds = derive_seeds(seed, resumed_at)
            name, noise, s = ((rec.meta["players"][0], error, seeds["robot_planner"]) if robot else
                              (rec.meta["players"][1], settings.service.players.opponent_noise,
                               seeds["opponent_planner"]))
            made[robot, resumed_at] = make_planner(name, noise, s, tcfg=settings.table, pcfg=settings.planner)
        return made[robot, resumed_at]
    return planner_for


def _differences(plan: dict, replayed: dict, tol: dict[str, float]) -> list[str]:
    """What differs beyond tolerance between a recorded plan and a replayed one (decision_to_json
    form), one phrase each, e.g. ``phi 90.000 -> 89.210 deg``."""
    out = []
    if plan["call"] != replayed["call"]:
        out.append(f"call {plan['call']} -> {replayed['call']}")
    units = {"phi": " deg", "theta": " deg", "V": " m/s", "a": " m", "b": " m"}
    for k, unit in units.items():
        a, b = float(plan["shot"][k]), float(replayed["shot"][k])
        d = abs((b - a + 180.0) % 360.0 - 180.0) if k == "phi" else abs(b - a)
        if d > tol[k]:
            out.append(f"{k} {a:.4f} -> {b:.4f}{unit}")
    p, q = plan.get("cue_pos"), replayed["cue_pos"]
    if (p is None) != (q is None) or (p is not None and max(abs(p[0] - q[0]), abs(p[1] - q[1])) > tol["cue_pos"]):
        out.append(f"cue_pos {p} -> {q}")
    return out


def replay_plans(rec, tolerance: dict[str, float] | None = None) -> dict:
    """rec: a ``hil.recording.RunRecording``. Returns {"decisions", "agree", "robot_decisions",
    "robot_agree", "capped", "disagreements": [{"shot", "robot", "differences": [phrase...]}...]};
    all zero for a recording without planned shots. Raises config.reader.ConfigError for an unusable
    configuration snapshot, ValueError for a run.json without seed or players."""
    from controller.service.gamelog import decision_to_json, game_from_json, table_from_json

    out = {"decisions": 0, "agree": 0, "robot_decisions": 0, "robot_agree": 0, "capped": 0, "disagreements": []}
    if not any(r.get("plan") for r in rec.shots):
        return out
    tol = {**TOLERANCE, **(tolerance or {})}
    planner_for, resumed_at = _planners(rec), 0
    for r in rec.records:
        if r.get("type") == "resume":
            resumed_at = int(r["shots"])
        if r.get("type") != "shot" or not r.get("plan"):
            continue
        robot = bool(r["robot"])
        d = planner_for(robot, resumed_at).choose(table_from_json(r["table_seen"]), game_from_json(r["game_before"]))
        diff = _differences(r["plan"], decision_to_json(d), tol)
        out["decisions"] += 1
        out["robot_decisions"] += robot
        out["capped"] += bool(r["plan"].get("capped"))
        if diff:
            out["disagreements"].append({"shot": r["n"], "robot": robot, "differences": diff})
        else:
            out["agree"] += 1
            out["robot_agree"] += robot
    return out

