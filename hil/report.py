"""The HTML report of a replay: the summary, the violated thresholds, the rest-detection timing
of every shot, and the worst frames drawn (true centres as green crosses with their ids,
detections as red circles with their labels), each frame an embedded PNG: one self-contained
file."""
from __future__ import annotations

import base64
import html
import json
from pathlib import Path

import cv2
import numpy as np

from config.atomic import write_atomic
from hil.replay import Replay, format_summary


def draw_frame(image: np.ndarray, result, truth) -> np.ndarray:
    """A copy of the BGR ``image`` with ``truth`` (FrameTruth) and ``result`` (FrameResult) drawn."""
    out = image.copy()
    for k, (x, y) in enumerate(truth.px):
        c = (int(round(x)), int(round(y)))
        cv2.drawMarker(out, c, (0, 255, 0), cv2.MARKER_CROSS, 14, 2)
        if truth.labels and truth.labels[k]:
            cv2.putText(out, truth.labels[k], (c[0] + 6, c[1] + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 255, 0), 1)
    for (x, y), lab in zip(result.px, result.labels):
        c = (int(round(x)), int(round(y)))
        cv2.circle(out, c, 12, (0, 0, 255), 2)
        cv2.putText(out, lab, (c[0] + 6, c[1] - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 255), 1)
    return out


def _png_data(image: np.ndarray) -> str:
    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("could not encode a report frame")
    return base64.b64encode(buf.tobytes()).decode("ascii")


def _rest_table(per_shot: list[dict]) -> list[str]:
    """The rest-detection timing of every shot as an HTML table (empty without shots); rows where
    today's detector differs from the recorded frame marked."""
    if not per_shot:
        return []
    cols = ("recording", "shot", "recorded_i", "replayed_i", "delay_frames", "delay_s", "stopped_i", "lag_frames",
            "lag_s", "recorded_lag_frames")
    rows = ["<h2>Rest-detection timing</h2><p>frame numbers i; delay = replayed - recorded, lag = replayed - "
            "stopped (truth); negative: earlier; replayed none: never at rest</p><table border=1 cellpadding=3><tr>"
            + "".join(f"<th>{c}</th>" for c in cols) + "</tr>"]
    for e in per_shot:
        bad = " class='bad'" if e["replayed_i"] != e["recorded_i"] else ""
        rows.append(f"<tr{bad}>" + "".join(f"<td>{html.escape(str(e[c]) if e[c] is not None else '-')}</td>"
                                         for c in cols) + "</tr>")
    return rows + ["</table>"]


def write_report(result: Replay, violated: list[str], out: str | Path) -> Path:
    """Write the report of ``result`` to ``out`` (HTML). ``violated``: the threshold sentences
    (``hil.thresholds.violations``). Returns the path."""
    parts = ["<!doctype html><meta charset='utf-8'><title>cuerobot hil replay</title>",
             "<style>body{font-family:sans-serif;margin:2em}img{max-width:100%}.bad{color:#b00}</style>",
             "<h1>Hardware-in-the-loop replay</h1>",
             f"<pre>{html.escape(format_summary(result.summary))}</pre>"]
    if violated:
        parts.append("<h2 class='bad'>Thresholds violated</h2><ul>"
                     + "".join(f"<li class='bad'>{html.escape(v)}</li>" for v in violated) + "</ul>")
    else:
        parts.append("<h2>Every threshold holds</h2>")
    parts += _rest_table(result.summary["rest"]["per_shot"])
    parts.append("<h2>Worst frames</h2><p>green crosses: truth (ids); red circles: detections (labels)</p>")
    for w in result.summary["worst_frames"]:
        fr, truth = result.worst[(w["recording"], w["i"])]
        image = cv2.imread(str(Path(w["recording"]) / "frames" / f"{w['i']:06d}.png"), cv2.IMREAD_COLOR)
        parts.append(f"<h3>{html.escape(w['recording'])} frame {w['i']}</h3>"
                     f"<pre>{html.escape(json.dumps(w))}</pre>")
        if image is not None:
            parts.append(f"<img alt='frame {w['i']}' src='data:image/png;base64,{_png_data(draw_frame(image, fr, truth))}'>")
    parts.append(f"<h2>Figures (JSON)</h2><pre>{html.escape(json.dumps(result.summary, indent=1))}</pre>")
    return write_atomic(Path(out), "\n".join(parts))
