"""``cuerobot bench controller``: whole games through the service on the simulated hardware, and
what they measure.

- Latency, per robot shot, from "table at rest" (the last frame of the rest that ended the
  previous shot, or of the wait for rest) to the SHOT sent (the driver's first write): its
  median and p90, and the median of each stage (capture: the camera reads of the capture; vision:
  detection on them; judge: ruling the previous shot; plan: the decision; place: ball in hand
  put and seen; send: the driver until the first byte).
- The observed referee against the simulator's event log (the harness reads the truth, the
  service never does): a shot agrees when the pocketed balls (and pockets), the scratch, the
  first contact and the fouls ruled from the camera equal those ruled from the event log on the
  same game state and call.
- Shots, shots refused for the robot's limits, each game's wall time.
- The baseline, measured in the same run: the match runner's cost of the same decisions, i.e.
  the robot's planner alone (``Planner.choose``) on the same seen states and game states; the
  ratio latency / decision shows what the loop adds around the decision.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from controller.service.gamelog import call_from_json, facts_from_json, game_from_json, table_from_json
from planner.rules.eightball import rule


def agreement(shots: list[dict], truth: list[dict | None], pocket_ids: tuple[str, ...]) -> list[tuple[bool, list[str]]]:
    """Per shot record (game.jsonl "shot"), whether the camera's ruling agrees with the event log's
    (truth: the event log's facts as JSON per shot, None if nothing moved) and what differs:
    "pocketed", "scratch", "first_contact", "fouls"."""
    out = []
    for rec, t in zip(shots, truth):
        seen = facts_from_json(rec["observed"]["facts_ruled"])
        if t is None:
            want = type(seen)(None, False, frozenset(), (), frozenset())
        else:
            want = facts_from_json(t)
        diff = []
        if set(seen.pocketed) != set(want.pocketed):
            diff.append("pocketed")
        if (0 in seen.pocketed_ids) != (0 in want.pocketed_ids):
            diff.append("scratch")
        if seen.first_contact != want.first_contact:
            diff.append("first_contact")
        game, call = game_from_json(rec["game_before"]), call_from_json(rec["call"])
        try:
            _, truth_ruling = rule(game, call, want, pocket_ids=pocket_ids)
            if [f.value for f in truth_ruling.fouls] != rec["ruling"]["fouls"]:
                diff.append("fouls")
        except ValueError:
            diff.append("fouls")
        out.append((not diff, diff))
    return out


@dataclass
class BenchResult:
    latencies: list[float] = field(default_factory=list)
    stages: dict[str, list[float]] = field(default_factory=dict)
    game_wall_s: list[float] = field(default_factory=list)
    agree: list[bool] = field(default_factory=list)
    disagreements: dict[str, int] = field(default_factory=dict)
    shots: int = 0
    refused_for_limits: int = 0
    winners: list[int | None] = field(default_factory=list)
    baseline_s: list[float] = field(default_factory=list)
    stalled: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        """The figures of ``--json``."""
        lat = np.array(self.latencies) if self.latencies else np.array([np.nan])
        return {"latency_s_median": _r(np.median(lat)), "latency_s_p90": _r(np.percentile(lat, 90)),
                "stages": {k: _r(np.median(v)) for k, v in sorted(self.stages.items()) if v},
                "game_wall_s": _r(np.median(self.game_wall_s)) if self.game_wall_s else None,
                "referee_agreement": _r(np.mean(self.agree)) if self.agree else None,
                "shots": self.shots, "refused_for_limits": self.refused_for_limits,
                "games": len(self.game_wall_s), "robot_wins": sum(w == 0 for w in self.winners),
                "stalled": len(self.stalled),
                "baseline_decision_s_median": _r(np.median(self.baseline_s)) if self.baseline_s else None}


def _r(x) -> float | None:
    x = float(x)
    return round(x, 4) if np.isfinite(x) else None


def add_game(res: BenchResult, records: list[dict], truth: list[dict | None], pocket_ids, wall_s: float,
             refused: int, stalled: str | None = None) -> None:
    """Account one game's records: a finished game, or one that ``stalled`` (the service paused
    or faulted with nobody to resume it; its wall time is not counted)."""
    shots = [r for r in records if r.get("type") == "shot"]
    end = next((r for r in records if r.get("type") == "end"), None)
    res.winners.append(None if end is None else end["winner"])
    if stalled is None:
        res.game_wall_s.append(wall_s)
    else:
        res.stalled.append(stalled)
    res.shots += len(shots)
    res.refused_for_limits += refused
    for ok, diff in agreement(shots, truth, pocket_ids):
        res.agree.append(ok)
        for d in diff:
            res.disagreements[d] = res.disagreements.get(d, 0) + 1
    for r in shots:
        if r["robot"] and r["latency_s"] is not None:
            res.latencies.append(r["latency_s"])
            for k, v in r["stages_s"].items():
                res.stages.setdefault(k, []).append(v)


def baseline(planner, records: list[dict]) -> list[float]:
    """The robot planner's decision time [s] alone on each robot shot's seen state and game state
    (what the match runner spends per shot)."""
    out = []
    for r in records:
        if r.get("type") == "shot" and r["robot"]:
            state, game = table_from_json(r["table_seen"]), game_from_json(r["game_before"])
            t0 = time.perf_counter()
            planner.choose(state, game)
            out.append(time.perf_counter() - t0)
    return out


def _f(x, digits: int = 3) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def format_report(s: dict, players: tuple[str, str], disagreements: dict[str, int]) -> str:
    """The human-readable figures."""
    st = ", ".join(f"{k} {v:.3f}" for k, v in s["stages"].items())
    base = s["baseline_decision_s_median"]
    ratio = f"x{s['latency_s_median'] / base:.2f}" if base and s["latency_s_median"] else "n/a"
    why = ", ".join(f"{k} {v}" for k, v in sorted(disagreements.items())) or "none"
    return "\n".join([
        f"controller: {s['games']} finished game(s), {players[0]} (robot) against {players[1]} (simulated opponent), "
        f"robot won {s['robot_wins']}",
        f"  latency table at rest -> SHOT sent: median {_f(s['latency_s_median'])} s, p90 {_f(s['latency_s_p90'])} s",
        f"  stage medians [s]: {st}",
        f"  baseline (the planner alone on the same states, the match runner's cost): median {base:.3f} s; "
        f"latency / baseline {ratio}" if base else "  baseline: no robot shots",
        f"  game wall time (median) {_f(s['game_wall_s'], 1)} s; shots {s['shots']}; refused for limits "
        f"{s['refused_for_limits']}",
        f"  observed referee vs the simulator's event log: {100 * (s['referee_agreement'] or 0):.1f} % of shots agree "
        f"(disagreements: {why})",
        f"  games stalled (paused or faulted, nobody to resume): {s['stalled']}",
    ])
