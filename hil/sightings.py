"""A recording's frames as the service saw them: its sightings, its captures and its shots.

The service reads every frame with ``controller.service.observe.sight``: vision's observations,
the ids of balls still on the spots of the last consistent capture kept (``anchored_labels``),
an id seen twice in one frame left out. ``service_view`` reads a recording's frames the same way
(the same function, on the observations today's vision made of them, ``hil.frames``), carrying
the anchors from frame to frame as the service's ``FrameReader`` does: set from each capture
(the ``majority_table`` of its frames), a ball's anchor dropped once it leaves its spot.

Grouping (docs/recording.md, "Frames"):

- the frame interval ``dt`` [s]: the smallest step between two recorded frame times (the
  camera's, as long as the recording holds two consecutive frames: a shot's frames do);
- a *capture*: a run of "rest" frames of one shot number, each within 1.5 dt of the one before,
  at most ``rest_frames`` long (longer runs are cut into captures of that length). The service
  writes every frame of each consistent capture (another controller may write only the last);
- a *shot window* (``ShotWindow``): the capture just before a shot's first "shot" frame (the
  table the shot was played from; ``before``), the shot's frames in order (``moving``: from the
  shot until the service found the table at rest again, that frame last) and the first capture
  after them (``after``: the capture the shot was ruled on, whose frames the service also read
  through the referee).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from controller.camera import CameraFrame
from controller.service.observe import Sighting, majority_table, sight

GAP = 1.5           # frames further apart than this many intervals are not consecutive


class _Observed:
    """``controller.service.observe.Vision`` over one frame already seen: returns the
    observations vision made of it (the image is not looked at again)."""

    def __init__(self, observations):
        self.observations = observations

    def observe(self, image) -> list:
        return list(self.observations)


_NO_IMAGE = np.zeros((0, 0, 3), np.uint8)


def frame_interval(results: list) -> float | None:
    """The smallest positive step [s] between consecutive frame times of ``results``
    (``hil.frames.FrameResult`` in frame order); None with fewer than two distinct times."""
    steps = np.diff([r.t for r in results])
    steps = steps[steps > 0]
    return float(steps.min()) if len(steps) else None


def captures(results: list, dt: float | None, rest_frames: int) -> list[list[int]]:
    """The captures of a recording: lists of positions into ``results`` (frame order), see the
    module docstring. ``dt`` None (no two frames consecutive): every rest frame is a capture."""
    out: list[list[int]] = []
    run: list[int] = []
    for k, r in enumerate(results):
        prev = results[run[-1]] if run else None
        if (r.kind != "rest" or prev is None or prev.shot != r.shot or dt is None
                or r.t - prev.t > GAP * dt or len(run) == rest_frames):
            if run:
                out.append(run)
            run = []
        if r.kind == "rest":
            run.append(k)
    if run:
        out.append(run)
    return out


def service_view(results: list, caps: list[list[int]]) -> list[Sighting]:
    """Each frame of ``results`` as the service's ``sight`` reads it (one ``Sighting`` per frame,
    in order), the anchors set after each capture of ``caps`` and carried through the frames."""
    last_of = {c[-1]: c for c in caps}
    anchors: dict[int, tuple[float, float]] = {}
    out = []
    for k, r in enumerate(results):
        out.append(sight(CameraFrame(_NO_IMAGE, r.t, r.i), _Observed(r.observations), 0.0, anchors))
        if k in last_of:
            state = majority_table([out[j] for j in last_of[k]])[0]
            anchors.clear()
            anchors.update({int(b): (float(x), float(y)) for b, (x, y) in zip(state.ids, state.pos)})
    return out


@dataclass(frozen=True)
class ShotWindow:
    """One shot's frames, as positions into the recording's frame list: ``before`` (the capture
    before it; empty if none was recorded), ``moving`` (its "shot" frames), ``after`` (the first
    capture after them; empty if none)."""
    shot: int
    before: list[int]
    moving: list[int]
    after: list[int]


def shot_windows(results: list, caps: list[list[int]]) -> dict[int, ShotWindow]:
    """{shot number: its ``ShotWindow``} for every shot with recorded "shot" frames."""
    moving: dict[int, list[int]] = {}
    for k, r in enumerate(results):
        if r.kind == "shot" and r.shot is not None:
            moving.setdefault(int(r.shot), []).append(k)
    out = {}
    for n, ks in moving.items():
        before = [c for c in caps if c[-1] < ks[0]]
        after = [c for c in caps if c[0] > ks[-1]]
        out[n] = ShotWindow(n, before[-1] if before else [], ks, after[0] if after else [])
    return out
