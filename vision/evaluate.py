"""Score a detector against annotated frames: recall, false balls, centre errors, labels, time.

``match`` pairs detections with truth one-to-one (Hungarian method on centre distance, within a
gate); ``Evaluation`` accumulates frames; ``evaluate_images`` runs a detector over image files and
scores it against ``vision.truth_formats`` truth. Hardware-in-the-loop replay reuses ``Evaluation``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from vision.truth_formats import FrameTruth


def match(truth: np.ndarray, found: np.ndarray, gate: float) -> tuple[np.ndarray, np.ndarray]:
    """One-to-one pairs (truth indices, found indices) of points (N, 2) and (M, 2), any units:
    the most pairs closer than ``gate``, and of those the least summed distance. (Minimising the
    plain summed distance would trade a near pair for two far ones when a ball is missed and a
    false one found.)"""
    truth, found = np.asarray(truth, float).reshape(-1, 2), np.asarray(found, float).reshape(-1, 2)
    if not truth.shape[0] or not found.shape[0]:
        return np.zeros(0, int), np.zeros(0, int)
    d = np.linalg.norm(truth[:, None] - found[None], axis=-1)
    near = d < gate
    far_cost = 1.0 + 2.0 * gate * min(truth.shape[0], found.shape[0])   # one more pair outweighs any distances
    r, c = linear_sum_assignment(np.where(near, d, far_cost))
    ok = near[r, c]
    return r[ok], c[ok]


@dataclass
class Evaluation:
    """Accumulated scores over frames. errors_px / errors_mm: centre errors of the matched balls;
    labelled / labels_right: matched balls with a truth label, and how many were labelled alike
    (case-insensitive); ms: detector time per frame."""
    frames: int = 0
    balls: int = 0
    found: int = 0
    false: int = 0
    errors_px: list[float] = field(default_factory=list)
    errors_mm: list[float] = field(default_factory=list)
    labelled: int = 0
    labels_right: int = 0
    ms: list[float] = field(default_factory=list)

    def add(self, truth: FrameTruth, px: np.ndarray, labels: list[str], gate_px: float,
            xy: np.ndarray | None = None, truth_xy: np.ndarray | None = None, ms: float | None = None) -> None:
        """One frame: detections at px (M, 2) [px] with labels (M,); xy (M, 2) [m] and the truth's
        table positions truth_xy (N, 2) [m] when both are known (errors in mm)."""
        r, c = match(truth.px, px, gate_px)
        self.frames += 1
        self.balls += truth.px.shape[0]
        self.found += r.size
        self.false += np.asarray(px).reshape(-1, 2).shape[0] - c.size
        self.errors_px += list(np.linalg.norm(truth.px[r] - np.asarray(px)[c], axis=1))
        if xy is not None and truth_xy is not None:
            self.errors_mm += list(1000 * np.linalg.norm(truth_xy[r] - np.asarray(xy)[c], axis=1))
        if truth.labels is not None:
            pairs = [(truth.labels[i], labels[j]) for i, j in zip(r, c) if truth.labels[i]]
            self.labelled += len(pairs)
            self.labels_right += sum(a.strip().lower() == b.strip().lower() for a, b in pairs)
        if ms is not None:
            self.ms.append(ms)

    def summary(self) -> dict:
        """The figures as a JSON-ready dict (None where nothing was measured)."""
        def stats(e):
            return ({"median": float(np.median(e)), "p95": float(np.percentile(e, 95)), "max": float(np.max(e)),
                     "rms": float(np.sqrt(np.mean(np.square(e))))} if e else None)
        return {"frames": self.frames, "balls": self.balls, "found": self.found, "false_balls": self.false,
                "recall": self.found / self.balls if self.balls else None,
                "centre_error_px": stats(self.errors_px), "centre_error_mm": stats(self.errors_mm),
                "label_accuracy": self.labels_right / self.labelled if self.labelled else None,
                "labelled": self.labelled,
                "ms_per_frame": float(np.median(self.ms)) if self.ms else None}


def report(summary: dict) -> str:
    """Human-readable lines of ``Evaluation.summary()``."""
    s = summary
    lines = [f"{s['frames']} frames, {s['balls']} balls: found {s['found']} "
             f"(recall {100 * (s['recall'] or 0):.2f} %), false balls {s['false_balls']}"]
    for key, unit in (("centre_error_px", "px"), ("centre_error_mm", "mm")):
        e = s[key]
        if e:
            lines.append(f"  centre error: median {e['median']:.3f} {unit}, p95 {e['p95']:.3f} {unit}, "
                         f"max {e['max']:.3f} {unit} (RMS {e['rms']:.3f} {unit})")
    if s["label_accuracy"] is not None:
        lines.append(f"  labels: {100 * s['label_accuracy']:.2f} % of {s['labelled']} labelled balls")
    if s["ms_per_frame"] is not None:
        lines.append(f"  time: {s['ms_per_frame']:.1f} ms/frame (median, after one warm-up call)")
    return "\n".join(lines)


Detector = Callable[[np.ndarray], list]     # BGR image -> list of vision.pipeline.BallObservation


def evaluate_images(images: list[str], truth: dict[str, FrameTruth], detector: Detector,
                    gate_px: float, to_table: Callable[[np.ndarray], np.ndarray] | None = None,
                    transform: Callable[[np.ndarray], np.ndarray] | None = None) -> Evaluation:
    """Run ``detector`` on each image file and score it against ``truth`` (keyed by file name).
    to_table: pixels (N, 2) -> table positions (N, 2) [m] of ball centres (a camera model), for
    errors in mm when the truth has pixels only. transform: applied to each BGR image before the detector
    and outside its time (``vision.perturb``). The first call is a warm-up (not timed); OpenCV
    runs on one thread (as in ``cuerobot bench``: the time per frame on one core).
    Raises ValueError for an unreadable image or one without truth."""
    cv2.setNumThreads(1)
    ev = Evaluation()
    warm = False
    for path in images:
        name = Path(path).name
        frame = truth.get(name, truth.get("") if len(truth) == 1 else None)
        if frame is None:
            raise ValueError(f"{path}: no truth for image {name!r} (truth has {sorted(truth)[:5]}...)")
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{path}: cannot read image")
        if transform is not None:
            image = transform(image)
        if not warm:
            detector(image)
            warm = True
        t0 = time.perf_counter()
        balls = detector(image)
        ms = (time.perf_counter() - t0) * 1000.0
        px = np.array([(b.x_px, b.y_px) for b in balls], float).reshape(-1, 2)
        xy = (np.array([(b.x_m, b.y_m) for b in balls], float).reshape(-1, 2)
              if balls and balls[0].x_m is not None else None)
        truth_xy = frame.xy if frame.xy is not None or to_table is None else to_table(frame.px)
        ev.add(frame, px, [b.label for b in balls], gate_px, xy=xy, truth_xy=truth_xy, ms=ms)
    return ev
