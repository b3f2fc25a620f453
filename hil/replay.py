"""Replay recordings through today's code and compare with their truth and recorded decisions.

    result = replay(["runs/20261124-091500"], VisionSpec(), workers=2)
    print(format_summary(result.summary)); violations(result.summary, thresholds)

Per recording (``hil.recording.read_run``): every frame through vision (``hil.frames``); frames
with ground truth scored against it (``hil.score``, i.e. ``vision.evaluate``); shots whose
frames were recorded through the observed referee and the rules again (``hil.rulings``). The
summary is strict JSON (no NaN; None where nothing was measured).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hil.frames import FrameResult, VisionSpec, build_rig, detect_frames
from hil.recording import read_run
from hil.rulings import replay_rulings
from hil.score import FrameScore, frame_truth, score_frame
from vision.evaluate import Evaluation, report
from vision.truth_formats import FrameTruth

WORST = 6       # frames kept for the report


@dataclass
class Replay:
    """A replay's outcome: ``summary`` (JSON-ready figures), every frame's score (frames with
    truth), and for the ``WORST`` frames what vision saw and the truth, keyed (recording, i)."""
    summary: dict
    scores: list[FrameScore] = field(default_factory=list)
    worst: dict[tuple[str, int], tuple[FrameResult, FrameTruth]] = field(default_factory=dict)


def _stats(values: list[float]) -> dict | None:
    if not values:
        return None
    a = np.asarray(values, float)
    return {"median": float(np.median(a)), "p95": float(np.percentile(a, 95)), "max": float(a.max())}


def replay(recordings: list[str | Path], spec: VisionSpec = VisionSpec(), workers: int = 1) -> Replay:
    """Replay ``recordings`` (run directories) with the vision of ``spec``. Raises
    FileNotFoundError for a path that is no recording, config.reader.ConfigError for unusable
    configs, ValueError for an unreadable frame."""
    total, scores, kept = Evaluation(), [], {}
    referee = {"shots": 0, "replayed": 0, "facts_agree": 0, "rulings_agree": 0, "disagreements": []}
    per_rec, frames_n, t0 = [], 0, time.perf_counter()
    for path in recordings:
        rec = read_run(path)
        rig = build_rig(rec.root, spec)
        results = detect_frames(rec.root, rec.frames, rig, spec, workers)
        frames_n += len(results)
        name = str(path)
        for r in results:
            t = rec.truth.get(r.i)
            if t is not None:
                truth = frame_truth(t, rig.cam, rig.R)
                scores.append(score_frame(total, name, r, truth, rig.gate_px))
                kept[(name, r.i)] = (r, truth)
            else:
                total.ms.append(r.ms)
        ref = replay_rulings(rec.shots, results, rig.table, rig.R)
        for k in ("shots", "replayed", "facts_agree", "rulings_agree"):
            referee[k] += ref[k]
        referee["disagreements"] += [{"recording": name, **d} for d in ref["disagreements"]]
        per_rec.append({"recording": name, "format": rec.version, "frames": len(results),
                        "frames_with_truth": sum(r.i in rec.truth for r in results), "shots": len(rec.shots)})
    wall = time.perf_counter() - t0
    scores.sort(key=lambda s: s.badness, reverse=True)
    worst = {(s.recording, s.i): kept[(s.recording, s.i)] for s in scores[:WORST]}
    return Replay(summarise(total, referee, per_rec, frames_n, wall, scores[:WORST]), scores, worst)


def summarise(total: Evaluation, referee: dict, per_rec: list[dict], frames: int, wall_s: float,
              worst: list[FrameScore]) -> dict:
    """The summary figures (strict JSON): recordings, frames, replay frames/s (wall, including
    PNG decoding), detection (``Evaluation.summary`` plus false balls per frame), latency [ms]
    (detection per frame), referee agreement, the worst frames."""
    det = total.summary()
    det["false_balls_per_frame"] = det["false_balls"] / det["frames"] if det["frames"] else None
    replayed = referee["replayed"]
    ref = {**referee, "ruling_agreement": referee["rulings_agree"] / replayed if replayed else None,
           "facts_agreement": referee["facts_agree"] / replayed if replayed else None}
    return {"recordings": per_rec, "frames": frames, "frames_per_s": frames / wall_s if wall_s > 0 else None,
            "detection": det, "latency_ms": _stats(total.ms), "referee": ref,
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
        for dis in r["disagreements"]:
            lines.append(f"    shot {dis['shot']} of {dis['recording']}: recorded {dis['recorded']}, "
                         f"replayed {dis['replayed']}")
    elif r["shots"]:
        lines.append(f"  referee: {r['shots']} shots, none with recorded shot frames")
    return "\n".join(lines)
