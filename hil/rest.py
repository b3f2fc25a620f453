"""Rest-detection timing: when today's rest detector finds the table at rest after each recorded
shot, against when the service found it (the recording) and, where the frames have exact truth
(sim recordings), against when the balls really stopped.

The rule replayed is the service's OBSERVING rule (``controller.service.watch.Watcher.shot_frames``):
the shot is over at the first frame that ends ``rest_frames`` consecutive frames of the shot
found at rest by ``controller.service.observe.at_rest`` within ``rest_tolerance`` [m]. It runs
over a shot window's frames (``hil.sightings.ShotWindow``: its shot frames, then the capture
after, for a detector slower than the recorded one), as the service read them
(``hil.sightings.service_view``). Only runs of consecutive frames count (no step longer than
``hil.sightings.GAP`` frame intervals): the live detector sees every frame, so a window across
frames the recording left out is not one it could have seen.

- recorded: the service declared rest at the shot's last "shot" frame (it stops recording the
  shot there). Only shots with a capture recorded after them are timed: the service writes a
  shot's frames once it found rest, then the capture, so a recording killed in between may hold
  only the first of the shot's frames;
- stopped (truth): the first frame of the window from which every ball's true position stays
  where it ends (within ``STOPPED``), the balls the same (an upper bound when the balls stopped
  between the last shot frame and the next frame recorded);
- delay = replayed - recorded, lag = replayed - stopped, in seconds and in frames (the seconds
  over the recording's frame interval, rounded). Negative: earlier. A shot whose window never
  comes to rest under today's detector within its consecutive frames is *missed* (a detector
  slower than the recorded one is seen late only as far as the recording holds the frames after
  the shot: the whole capture after it, if the service wrote it; else it is missed).

``RestSpec`` says which rest detector to replay: the recording's config/service.yaml (camera.
rest_frames, rest_tolerance), another service YAML, or explicit values (a deliberately degraded
detector, to show that replay catches one).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from controller.service.observe import Sighting, at_rest
from hil.sightings import GAP, ShotWindow

STOPPED = 1e-6      # [m] a true position this close to its final one has stopped (the simulator's are exact)


@dataclass(frozen=True)
class RestSpec:
    """The rest detector a replay runs. service: a service YAML replacing the recording's
    config/service.yaml (None: the recording's snapshot, else the project's config/service.yaml);
    frames / tolerance [m]: values replacing that file's camera.rest_frames / rest_tolerance."""
    service: str | None = None
    frames: int | None = None
    tolerance: float | None = None


def rest_detector(root: str | Path, spec: RestSpec) -> tuple[int, float]:
    """(rest_frames, rest_tolerance [m]) of ``spec`` for the recording at ``root``. Raises
    config.reader.ConfigError for an unusable service YAML."""
    from config.service import load_service_settings
    from hil.frames import recording_config

    cam = load_service_settings(recording_config(Path(root), "service.yaml", spec.service)).camera
    return (cam.rest_frames if spec.frames is None else int(spec.frames),
            cam.rest_tolerance if spec.tolerance is None else float(spec.tolerance))


def declared_at(frames: list[Sighting], rest_frames: int, tol: float, dt: float | None) -> int | None:
    """The position of the first frame that ends ``rest_frames`` consecutive frames (steps of at
    most GAP ``dt`` [s]; any steps if ``dt`` is None) at rest (``at_rest`` within ``tol`` [m]);
    None if none does."""
    run = 0
    for k in range(len(frames)):
        run = run + 1 if k and (dt is None or frames[k].t - frames[k - 1].t <= GAP * dt) else 1
        if run >= rest_frames and at_rest(frames[k - rest_frames + 1:k + 1], tol):
            return k
    return None


def stopped_at(truths: list[dict]) -> int | None:
    """The position of the first truth record (frames/truth.jsonl) from which every later one
    shows the same balls within ``STOPPED`` [m] of the last's; None for no records."""
    def balls(rec):
        return {b["id"]: (b["x"], b["y"]) for b in rec["balls"]}
    if not truths:
        return None
    final = balls(truths[-1])
    k = len(truths) - 1
    while k > 0:
        prev = balls(truths[k - 1])
        if prev.keys() != final.keys() or any(np.hypot(*np.subtract(prev[b], final[b])) > STOPPED for b in final):
            break
        k -= 1
    return k


def rest_timing(windows: dict[int, ShotWindow], results: list, seen: list[Sighting], truth: dict,
                dt: float | None, rest_frames: int, tol: float) -> list[dict]:
    """One entry per shot window with shot frames and a capture after them (the service writes
    that capture after all of the shot's frames: a recording killed before it may hold only some
    of them, and is left out): {"shot", "recorded_i", "replayed_i" (None:
    missed), "delay_s", "delay_frames", "stopped_i", "lag_s", "lag_frames", "recorded_lag_s",
    "recorded_lag_frames"} (frame numbers i; the stop and lags None without truth for every
    frame of the window). results: ``hil.frames.FrameResult`` in frame order; seen: the same
    frames as the service read them; truth: {frame number: truth record}; dt: the frame
    interval [s] (``hil.sightings.frame_interval``)."""
    out = []
    for n, w in sorted(windows.items()):
        if not w.after:
            continue
        ks = w.moving + w.after
        k = declared_at([seen[j] for j in ks], rest_frames, tol, dt)
        rec = results[w.moving[-1]]
        got = None if k is None else results[ks[k]]
        e = {"shot": n, "recorded_i": rec.i, "replayed_i": None if got is None else got.i}
        e.update(_gap("delay", got, rec, dt))
        truths = [truth.get(results[j].i) for j in ks]
        s = stopped_at(truths) if all(t is not None for t in truths) else None
        stop = None if s is None else results[ks[s]]
        e["stopped_i"] = None if stop is None else stop.i
        e.update(_gap("lag", got, stop, dt))
        e.update(_gap("recorded_lag", rec, stop, dt))
        out.append(e)
    return out


def _gap(name: str, a, b, dt: float | None) -> dict:
    """{name_s, name_frames}: frame ``a``'s time less ``b``'s [s], and in frames (None if either
    is None, or no dt for frames)."""
    if a is None or b is None:
        return {f"{name}_s": None, f"{name}_frames": None}
    s = float(a.t - b.t)
    return {f"{name}_s": round(s, 6), f"{name}_frames": None if not dt else int(round(s / dt))}


def _spread(values: list) -> dict | None:
    v = [x for x in values if x is not None]
    if not v:
        return None
    return {"min": min(v), "median": float(np.median(v)), "max": max(v)}


def rest_summary(entries: list[dict], detectors: list[tuple[int, float]]) -> dict:
    """The rest-timing figures of a replay from every recording's ``rest_timing`` entries (each
    with its "recording") and the detectors replayed ((rest_frames, tolerance) per recording):
    shots, as_recorded (delay 0), missed (None when no shot was replayed), the spread (min,
    median, max) of delay_frames, delay_s, lag_frames, lag_s, recorded_lag_frames,
    recorded_lag_s, the number of shots with truth, the detectors and the entries."""
    found = [e for e in entries if e["replayed_i"] is not None]
    out = {"shots": len(entries), "as_recorded": sum(e["replayed_i"] == e["recorded_i"] for e in entries),
           "missed": len(entries) - len(found) if entries else None,
           "truth_shots": sum(e["stopped_i"] is not None for e in entries),
           "detectors": [{"rest_frames": f, "rest_tolerance_m": t} for f, t in sorted(set(detectors))]}
    for key in ("delay_frames", "delay_s", "lag_frames", "lag_s", "recorded_lag_frames", "recorded_lag_s"):
        out[key] = _spread([e[key] for e in entries])
    out["per_shot"] = entries
    return out
