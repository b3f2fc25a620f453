"""Detections of recorded frames against the recording's ground truth (frames/truth.jsonl).

Scoring is ``vision.evaluate``'s (one-to-one matching within a gate, recall, false balls,
centre errors in px and mm, label accuracy): this module only turns a truth record into a
``vision.truth_formats.FrameTruth`` and keeps per-frame figures for the report's worst frames.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.camera import table_to_pixels
from vision.evaluate import Evaluation
from vision.truth_formats import FrameTruth


def frame_truth(rec: dict, cam, R: float) -> FrameTruth:
    """A frames/truth.jsonl record as FrameTruth: pixel centres (annotated ``px`` where given,
    else the table centres (x, y, R) projected through ``cam``), labels (the id as text, "" for a
    ball without one; None if no ball has one), table positions (N, 2) [m]."""
    balls = rec["balls"]
    xy = np.array([(b["x"], b["y"]) for b in balls], float).reshape(-1, 2)
    if balls and all("px" in b for b in balls):
        px = np.array([b["px"] for b in balls], float).reshape(-1, 2)
    else:
        px = table_to_pixels(cam, np.column_stack([xy, np.full(len(balls), R)]))
    labels = ["" if b["id"] is None else str(b["id"]) for b in balls]
    return FrameTruth(px, labels if any(labels) else None, xy)


@dataclass(frozen=True)
class FrameScore:
    """One frame's figures: balls in the truth, missed, false balls, the largest centre error
    [px] and [mm] of its matched balls (0 if none), wrong identities."""
    recording: str
    i: int
    balls: int
    missed: int
    false: int
    max_px: float
    max_mm: float
    wrong_ids: int

    @property
    def badness(self) -> tuple:
        """Sort key, worst first when sorted descending."""
        return (self.missed + self.false, self.wrong_ids, self.max_mm)


def score_frame(total: Evaluation, recording: str, result, truth: FrameTruth, gate_px: float) -> FrameScore:
    """Add one frame (a ``hil.frames.FrameResult``) to ``total`` and return its own figures."""
    one = Evaluation()
    for ev in (total, one):
        ev.add(truth, result.px, result.labels, gate_px, xy=result.xy, truth_xy=truth.xy, ms=result.ms)
    return FrameScore(recording, result.i, one.balls, one.balls - one.found, one.false,
                      max(one.errors_px, default=0.0), max(one.errors_mm, default=0.0),
                      one.labelled - one.labels_right)
