"""Replay recordings through today's code and compare with their truth and recorded decisions.

    result = replay(["runs/20261124-091500"], VisionSpec(), workers=2)
    print(format_summary(result.summary)); violations(result.summary, thresholds)

Per recording (``hil.recording.read_run``): every frame through vision (``hil.frames``); frames
with ground truth scored against it (``hil.score``, i.e. ``vision.evaluate``); the frames read
as the service reads them and grouped into captures and shots (``hil.sightings``); shots whose
frames were recorded through today's rest detector (``hil.rest``) and through the observed
referee and the rules again (``hil.rulings``); planned shots decided again by today's planner
against the recorded plans (``hil.plans``). The summary is strict JSON (no NaN; None where
nothing was measured).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hil.frames import FrameResult, VisionSpec, build_rig, detect_frames
from hil.plans import replay_plans
from hil.recording import read_run
from hil.rest import RestSpec, rest_detector, rest_summary, rest_timing
from hil.rulings import replay_rulings
from hil.score import FrameScore, frame_truth, score_frame
from hil.sightings import captures, frame_interval, service_view, shot_windows
from vision.evaluate import Evaluation, report
from vision.truth_formats import FrameTruth

WORST = 6       # frames kept for the report


@dataclass
class Replay:
    """A replay's outcome: ``summary`` (JSON-ready figures), every frame's score (frames with
    truth), for the ``WORST`` frames what vision saw and the truth, keyed (recording, i), and
    what vision saw in every frame, per recording (as given) in frame order."""
    summary: dict
    scores: list[FrameScore] = field(default_factory=list)
    worst: dict[tuple[str, int], tuple[FrameResult, FrameTruth]] = field(default_factory=dict)
    results: dict[str, list[FrameResult]] = field(default_factory=dict)


def _stats(values: list[float]) -> dict | None:
    if not values:
        return None
    a = np.asarray(values, float)
    return {"median": float(np.median(a)), "p95": float(np.percentile(a, 95)), "max": float(a.max())}


def replay(recordings: list[str | Path], spec: VisionSpec = VisionSpec(), workers: int = 1,
           tolerance: dict[str, float] | None = None, rest: RestSpec = RestSpec()) -> Replay:
    """Replay ``recordings`` (run directories) with the vision of ``spec`` and the rest detector
    of ``rest``; planner decisions are compared within ``tolerance`` (``hil.plans.TOLERANCE``'s
    keys, replacing its values). Raises FileNotFoundError for a path that is no recording,
    config.reader.ConfigError for unusable configs, ValueError for an unreadable frame or a
    shot record or run.json that lacks what replay needs (naming the file)."""
    total, scores, kept = Evaluation(), [], {}
    referee = {"shots": 0, "replayed": 0, "facts_agree": 0, "rulings_agree": 0, "frames_read": 0,
               "frames_recorded": 0, "disagreements": []}
    timing, detectors = [], []
    plans = {"decisions": 0, "agree": 0, "robot_decisions": 0, "robot_agree": 0, "capped": 0, "disagreements": []}
    per_rec, frames_n, seen_by, t0 = [], 0, {}, time.perf_counter()
    for path in recordings:
        rec = read_run(path)
        rig = build_rig(rec.root, spec)
        results = detect_frames(rec.root, rec.frames, rig, spec, workers)
        frames_n += len(results)
        name = str(path)
        seen_by[name] = results
        for r in results:
            t = rec.truth.get(r.i)
            if t is not None:
                truth = frame_truth(t, rig.cam, rig.R)
                scores.append(score_frame(total, name, r, truth, rig.gate_px))
                kept[(name, r.i)] = (r, truth)
            else:
                total.ms.append(r.ms)
        entries, detector, ref = _shots(rec, results, rig, rest)
        detectors.append(detector)
        timing += [{"recording": name, **e} for e in entries]
        for k in ("shots", "replayed", "facts_agree", "rulings_agree", "frames_read", "frames_recorded"):
            referee[k] += ref[k]
        referee["disagreements"] += [{"recording": name, **d} for d in ref["disagreements"]]
        pl = replay_plans(rec, tolerance)
        for k in ("decisions", "agree", "robot_decisions", "robot_agree", "capped"):
            plans[k] += pl[k]
        plans["disagreements"] += [{"recording": name, **d} for d in pl["disagreements"]]
        per_rec.append({"recording": name, "format": rec.version, "frames": len(results),
                        "frames_with_truth": sum(r.i in rec.truth for r in results), "shots": len(rec.shots)})
    wall = time.perf_counter() - t0
    scores.sort(key=lambda s: s.badness, reverse=True)
    worst = {(s.recording, s.i): kept[(s.recording, s.i)] for s in scores[:WORST]}
    return Replay(summarise(total, referee, plans, rest_summary(timing, detectors), per_rec, frames_n, wall,
                            scores[:WORST]), scores, worst, seen_by)


def _shots(rec, results: list[FrameResult], rig, rest: RestSpec) -> tuple[list[dict], tuple[int, float], dict]:
    """A recording's shots through today's rest detector and referee, its frames read as the
    service read them: (``rest_timing``'s entries, the detector replayed, ``replay_rulings``'
    figures). Captures are grouped by the recording's own rest_frames."""
    dt = frame_interval(results)
    caps = captures(results, dt, rest_detector(rec.root, RestSpec())[0])
    seen, windows = service_view(results, caps), shot_windows(results, caps)
    detector = rest_detector(rec.root, rest)
    try:
        ref = replay_rulings(rec.shots, windows, seen, rig.table, rig.R)
    except ValueError as e:
        raise ValueError(f"{rec.root / 'game.jsonl'}: {e}") from None
    return rest_timing(windows, results, seen, rec.truth, dt, *detector), detector, ref


def _fraction(n: int, of: int) -> float | None:
    return n / of if of else None


def summarise(total: Evaluation, referee: dict, plans: dict, rest: dict, per_rec: list[dict], frames: int,
              wall_s: float, worst: list[FrameScore]) -> dict:
    """The summary figures (strict JSON): recordings, frames, replay frames/s (wall, including
    PNG decoding and the planner's decisions), detection (``Evaluation.summary`` plus false balls
    per frame), latency [ms] (detection per frame), referee agreement, rest-detection timing
    (``hil.rest.rest_summary``), planner agreement (all planned shots, and the robot's alone),
    the worst frames."""
    det = total.summary()
    det["false_balls_per_frame"] = det["false_balls"] / det["frames"] if det["frames"] else None
    replayed = referee["replayed"]
    ref = {**referee, "ruling_agreement": _fraction(referee["rulings_agree"], replayed),
           "facts_agreement": _fraction(referee["facts_agree"], replayed)}
    plan = {**plans, "agreement": _fraction(plans["agree"], plans["decisions"]),
            "robot_agreement": _fraction(plans["robot_agree"], plans["robot_decisions"])}
    return {"recordings": per_rec, "frames": frames, "frames_per_s": frames / wall_s if wall_s > 0 else None,
            "detection": det, "latency_ms": _stats(total.ms), "referee": ref, "rest": rest,
            "planner": plan,
            "worst_frames": [{"recording": s.recording, "i": s.i, "balls": s.balls, "missed": s.missed,
                              "false": s.false, "wrong_ids": s.wrong_ids, "max_error_px": s.max_px,
                              "max_error_mm": s.max_mm} for s in worst]}


def format_summary(s: dict) -> str:
    """Human-readable lines of a summary."""
    lines = [f"{len(s['recordings'])} recording(s), {s['frames']} frames replayed"
             + (f" at {s['frames_per_s']:.1f} frames/s" if s["frames_per_s"] else "")]
    d = s["detection"]
    if d["frames"]:
        lines.append("  detection (frames with truth): "
                     + "\n  ".join(line for line in report(d).splitlines() if "time:" not in line))
    else:
        lines.append("  no frame has ground truth: detection not scored")
    if s["latency_ms"]:
        lat = s["latency_ms"]
        lines.append(f"  latency: {lat['median']:.1f} ms/frame median, p95 {lat['p95']:.1f} ms")
    r = s["referee"]
    if r["replayed"]:
        lines.append(f"  referee: {r['rulings_agree']}/{r['replayed']} rulings and {r['facts_agree']}/"
                     f"{r['replayed']} facts as recorded ({r['shots']} shots)")
        if r["frames_read"] != r["frames_recorded"]:
            lines.append(f"    read {r['frames_read']} frames where the service read {r['frames_recorded']} "
                         f"(frames it did not record: docs/recording.md, \"Frames\")")
        for dis in r["disagreements"]:
            lines.append(f"    shot {dis['shot']} of {dis['recording']}: recorded {dis['recorded']}, "
                         f"replayed {dis['replayed']}")
    elif r["shots"]:
        lines.append(f"  referee: {r['shots']} shots, none with recorded shot frames")
    lines += _rest_lines(s["rest"])
    p = s["planner"]
    if p["decisions"]:
        lines.append(f"  planner: {p['agree']}/{p['decisions']} decisions as recorded (robot {p['robot_agree']}/"
                     f"{p['robot_decisions']}; {p['capped']} hit the wall-clock cap)")
        for dis in p["disagreements"]:
            lines.append(f"    shot {dis['shot']} of {dis['recording']}: {'; '.join(dis['differences'])}")
    return "\n".join(lines)


def _rest_lines(r: dict) -> list[str]:
    if not r["shots"]:
        return []
    det = ", ".join(f"{d['rest_frames']} frames within {1000 * d['rest_tolerance_m']:g} mm" for d in r["detectors"])
    lines = [f"  rest: {r['as_recorded']}/{r['shots']} shots found at rest at the recorded frame, "
             f"{r['missed']} never ({det})"]

    def span(key: str, unit: str = "") -> str:
        v, f = r[key], (".3f" if unit else "g")
        return "-" if v is None else f"{v['min']:{f}}..{v['max']:{f}}{unit}"
    if r["delay_frames"] is not None:
        lines.append(f"    delay vs recorded: {span('delay_frames')} frames ({span('delay_s', ' s')})")
    if r["truth_shots"]:
        lines.append(f"    after the balls really stopped: {span('lag_frames')} frames ({span('lag_s', ' s')}); "
                     f"recorded {span('recorded_lag_frames')} frames ({r['truth_shots']} shots with truth)")
    for e in r["per_shot"]:
        if e["replayed_i"] != e["recorded_i"]:
            got = "never" if e["replayed_i"] is None else f"frame {e['replayed_i']} ({e['delay_s']:+.3f} s)"
            lines.append(f"    shot {e['shot']} of {e['recording']}: recorded frame {e['recorded_i']}, replayed {got}")
    return lines
