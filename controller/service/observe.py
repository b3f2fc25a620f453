"""The table as the camera sees it: fresh frames, what vision finds in them, rest, and whether a
capture is consistent with the game.

- ``FrameReader.next`` reads one frame and runs vision on it. A frame is *bad* when the camera
  gives none (``CameraError``), when it is older than ``stale_s`` on the service clock, or when
  its time does not increase; the reader tries again, ``recaptures`` times, then raises
  ``CameraFault`` with the reason.
- ``at_rest(sightings, tol)``: every detection of the last frames within ``tol`` of the first's.
- ``check_capture``: a capture (the frames of the table at rest) against the balls the game
  expects. The planner is only ever given a capture that passed it.

Units: table frame metres (docs/frame.md), seconds on the service clock.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from config.service import CameraTiming
from controller.camera import Camera, CameraError, CameraFrame, Clock
from planner.state import CUE, TableState
from planner.table import Table
from vision import motion

OVERLAP = 0.003       # [m] two detections closer than 2R - this, or a ball this far into a cushion: a detection error
ANCHOR_GATE = 0.005   # [m] a detection this close to where a resting ball was seen is that ball (vision's jitter: ~1 mm)
CLEARANCE = 2e-6      # [m] gap left between balls, and between a ball and a cushion, pushed apart


class CameraFault(RuntimeError):
    """The camera gave no usable frame, or what it showed could not be made consistent; the
    message says which and what was tried."""


class Vision(Protocol):
    """What the service needs of vision (``vision.pipeline.TableVision`` is one): the balls of a
    BGR frame as ``BallObservation`` (x_m, y_m in the table frame; ball_id or None)."""

    def observe(self, image: np.ndarray) -> list:
        ...


@dataclass(frozen=True)
class Sighting:
    """One frame and what vision saw in it. balls: identified balls, id -> (x, y) [m] (an id seen
    twice in one frame is left out and listed in ``problems``); points: (K, 2) every detection
    [m] (for rest detection); problems: sentences (unidentified ball, duplicated id);
    observations: vision's raw list (for the dashboard); vision_s, read_s: wall time [s] spent in
    vision and in the camera."""
    frame: CameraFrame
    balls: Mapping[int, tuple[float, float]]
    points: np.ndarray
    problems: tuple[str, ...]
    observations: tuple = field(repr=False)
    vision_s: float = 0.0
    read_s: float = 0.0

    @property
    def t(self) -> float:
        return self.frame.t


def anchored_labels(points: np.ndarray, labels: Sequence[int | None], anchors: dict[int, tuple[float, float]],
                    gate: float = ANCHOR_GATE) -> list[int | None]:
    """Identity by staying put: a ball that has not left its spot keeps its id, whatever vision
    calls it in this frame (a stripe resting with its band out of sight looks like the cue ball).

    points: (K, 2) detections [m]; labels: vision's id of each (None: unidentified); anchors:
    id -> the spot [m] where the last consistent capture saw that ball, changed in place: a ball
    with no detection within ``gate`` [m] of its spot has left it and loses its anchor. Returns
    the labels with the detection nearest each remaining anchor labelled by it (an id that vision
    gave that detection goes; any other detection vision gave the anchored id loses it)."""
    out = list(labels)
    for k, spot in list(anchors.items()):
        d = np.hypot(*(points - np.asarray(spot)).T) if len(points) else np.zeros(0)
        if not len(d) or d.min() > gate:
            del anchors[k]
            continue
        near = int(np.argmin(d))
        out = [None if (lab == k and i != near) else lab for i, lab in enumerate(out)]
        out[near] = k
    return out


def sight(frame: CameraFrame, vision: Vision, read_s: float = 0.0,
          anchors: dict[int, tuple[float, float]] | None = None) -> Sighting:
    """Vision on one frame; with ``anchors``, the ids of balls resting on their spots come from
    there (``anchored_labels``)."""
    t0 = time.perf_counter()
    obs = list(vision.observe(frame.image))
    dt = time.perf_counter() - t0
    pts = np.array([(o.x_m, o.y_m) for o in obs], dtype=np.float64).reshape(-1, 2)
    labels = [None if o.ball_id is None else int(o.ball_id) for o in obs]
    if anchors:
        labels = anchored_labels(pts, labels, anchors)
    balls: dict[int, tuple[float, float]] = {}
    twice: set[int] = set()
    problems = []
    for o, b in zip(obs, labels):
        if b is None:
            problems.append(f"a ball at ({o.x_m:.3f}, {o.y_m:.3f}) m could not be identified ({o.label})")
        elif b in balls:
            twice.add(b)
        else:
            balls[b] = (float(o.x_m), float(o.y_m))
    for b in sorted(twice):
        problems.append(f"ball {b} was seen twice in one frame")
        balls.pop(b, None)
    return Sighting(frame, balls, pts, tuple(problems), tuple(obs), dt, read_s)


class FrameReader:
    """Fresh frames with vision, one at a time. ``on_sighting(s)`` is called for every good frame
    (the dashboard's latest frame, the recorder). ``anchors``: id -> spot [m] of the balls of the
    last consistent capture that have not left their spots since (``anchored_labels``); the
    watcher sets and clears them."""

    def __init__(self, camera: Camera, clock: Clock, vision: Vision, timing: CameraTiming,
                 on_sighting: Callable[[Sighting], None] | None = None):
        self.camera, self.clock, self.vision, self.timing = camera, clock, vision, timing
        self.on_sighting = on_sighting
        self.last_t = -np.inf
        self.bad_frames = 0
        self.anchors: dict[int, tuple[float, float]] = {}

    def next(self) -> Sighting:
        """The next fresh frame, seen. Raises CameraFault after 1 + recaptures bad frames in a row."""
        why = []
        for _ in range(1 + self.timing.recaptures):
            t0 = time.perf_counter()
            try:
                frame = self.camera.read()
            except CameraError as e:
                why.append(f"no frame ({e})")
                self.bad_frames += 1
                continue
            read_s = time.perf_counter() - t0
            age = self.clock.now() - frame.t
            if age > self.timing.stale_s:
                why.append(f"frame {frame.index} is {age:.2f} s old (limit {self.timing.stale_s} s)")
                self.bad_frames += 1
                continue
            if frame.t <= self.last_t:
                why.append(f"frame {frame.index} at t = {frame.t:.3f} s is not after the last one "
                           f"({self.last_t:.3f} s)")
                self.bad_frames += 1
                continue
            self.last_t = frame.t
            s = sight(frame, self.vision, read_s, self.anchors)
            if self.on_sighting is not None:
                self.on_sighting(s)
            return s
        raise CameraFault(f"camera: {1 + self.timing.recaptures} bad frames in a row: " + "; ".join(why))

    def frames(self, n: int) -> list[Sighting]:
        return [self.next() for _ in range(n)]


def at_rest(sightings: Sequence[Sighting], tol: float) -> bool:
    """Whether the table is at rest over the frames: every frame shows as many detections as the
    first, each within ``tol`` [m] of a detection of the first frame (``vision.motion.at_rest`` on
    the pair, one-to-one matching). Measured against the first frame, not frame to frame, so that
    a creeping ball's drift adds up over the window while vision's jitter does not."""
    return len(sightings) >= 2 and all(motion.at_rest([sightings[0].points, s.points], tol) for s in sightings[1:])


def still(sightings: Sequence[Sighting], tol: float) -> bool:
    """Whether every identified ball stayed within ``tol`` [m] of where the first frame that shows
    it saw it (a detection that flickers in or out is not motion; ``at_rest`` is the strict test
    that counts it as such)."""
    first: dict[int, tuple[float, float]] = {}
    for s in sightings:
        for k, xy in s.balls.items():
            if np.hypot(*np.subtract(first.setdefault(k, xy), xy)) > tol:
                return False
    return True


def from_cue_seen(sightings: Sequence[Sighting]) -> list[Sighting]:
    """The rest frames before a shot from the first that shows the cue ball (the observed referee
    reads the shot from a frame that has it): frames before that one, where vision missed the cue
    ball or a person put it down during the capture (a majority of frames still counts it), are
    dropped. Empty if no frame shows it."""
    first = next((k for k, s in enumerate(sightings) if CUE in s.balls), len(sightings))
    return list(sightings[first:])


def majority_table(sightings: Sequence[Sighting]) -> tuple[TableState, list[str], list[str]]:
    """The balls of a capture by vote: a ball identified in more than half of the frames is on
    the table, at the mean of those sightings; one identified in fewer is vision's flicker
    (noted, not on the table). Returns the state, the problems (a frame's unidentified or doubly
    seen ball, when more than half of the frames have one) and the notes."""
    n = len(sightings)
    acc: dict[int, list] = {}
    for s in sightings:
        for b, xy in s.balls.items():
            acc.setdefault(b, []).append(xy)
    state = TableState.from_dict({b: tuple(np.mean(v, axis=0)) for b, v in acc.items() if 2 * len(v) > n})
    notes = [f"ball {b} identified in {len(v)} of {n} frames only: not counted" for b, v in sorted(acc.items())
             if 2 * len(v) <= n]
    bad = [s for s in sightings if s.problems]
    problems = list(bad[-1].problems) if 2 * len(bad) > n else []
    if bad and not problems:
        notes.append(f"{len(bad)} of {n} frames had unidentified or doubly seen balls: outvoted")
    return state, problems, notes


@dataclass(frozen=True)
class Capture:
    """A capture judged against the game: ``state`` (mean positions; None if inconsistent) and the
    problems found (empty = consistent)."""
    sightings: tuple[Sighting, ...]
    state: TableState | None
    problems: tuple[str, ...]
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


def restable(state: TableState, table: Table, R: float) -> tuple[TableState, list[str]]:
    """The seen table made one the physics engine accepts: balls that vision puts a fraction of a
    millimetre into each other, into a cushion or over a pocket's edge (frozen balls, a tight
    rack, a ball hanging in a pocket's mouth) are pushed out to CLEARANCE, the least motion that
    does it (a few relaxation sweeps). Returns the state and
    one problem per ball that had to move more than OVERLAP or cannot rest where it is seen
    (outside the cushions, in a pocket): such a capture is a detection error."""
    pos = state.pos.copy()
    d = table.lin_p2 - table.lin_p1
    dd = (d * d).sum(1)
    for _ in range(20):
        moved = False
        for k in range(len(pos)):
            q = pos[k]
            u = np.clip(((q - table.lin_p1) * d).sum(1) / dd, 0.0, 1.0)
            foot = table.lin_p1 + u[:, None] * d
            near = np.vstack([foot, table.circ_center, table.pocket_center])
            reach = np.concatenate([np.full(len(foot), R), table.circ_radius + R, table.pocket_radius])
            gap = np.hypot(*(q - near).T) - reach
            for j in np.flatnonzero(gap < 0):
                v = q - near[j]
                n = v / max(np.hypot(*v), 1e-12)
                q = q + n * (-gap[j] + CLEARANCE)
                moved = True
            pos[k] = q
        if len(pos) > 1:
            diff = pos[:, None] - pos[None]
            dist = np.hypot(*diff.transpose(2, 0, 1))
            i, j = np.nonzero(np.triu(dist < 2 * R, 1))
            for a, b in zip(i, j):
                v = pos[a] - pos[b]
                n = v / max(np.hypot(*v), 1e-12)
                push = (2 * R + CLEARANCE - np.hypot(*v)) / 2
                pos[a] += n * push
                pos[b] -= n * push
                moved = True
        if not moved:
            break
    problems = []
    shift = np.hypot(*(pos - state.pos).T)
    for k, b in enumerate(state.ids):
        if shift[k] > OVERLAP:
            problems.append(f"ball {int(b)} is seen {1000 * shift[k]:.1f} mm into a cushion or another ball: "
                            f"a detection error")
        why = table.position_problem(float(pos[k, 0]), float(pos[k, 1]), R, CLEARANCE / 2)
        if why is not None and shift[k] <= OVERLAP:
            problems.append(f"ball {int(b)} at {_xy(pos[k])} {why}")
    return TableState(state.ids, pos), problems


def check_capture(sightings: Sequence[Sighting], expected: frozenset[int], table: Table, R: float,
                  optional: frozenset[int] = frozenset(),
                  last_seen: Mapping[int, tuple[float, float]] | None = None) -> Capture:
    """Whether a capture shows exactly the balls the game expects, each once, where balls can rest.

    expected: the balls that must be seen; optional: balls that may or may not be (the cue ball
    while in hand); last_seen: where each ball was last seen [m] (to tell a ball merged into a
    neighbour's detection, which then lies where the missing ball was, less than 2R - OVERLAP
    from it, from one that vanished). Problems, one sentence each: unidentified or
    doubly seen balls in most frames, a missing ball (merged with a neighbour, or vanished), a
    ball seen that is out of play, two detections overlapping, a ball where no ball can rest.
    The balls are those of ``majority_table`` (a flickering detection is outvoted), made
    ``restable``.
    """
    state, problems, notes = majority_table(sightings)
    seen = frozenset(int(b) for b in state.ids)
    last_seen = last_seen or {}
    for b in sorted(expected - seen - optional):
        where = last_seen.get(b)
        if where is None:
            problems.append(f"ball {b} is missing")
            continue
        d = np.hypot(*(state.pos - np.asarray(where)).T) if len(state.ids) else np.zeros(0)
        near = [int(state.ids[k]) for k in np.flatnonzero(d < 2 * R - OVERLAP)]
        if near:
            problems.append(f"ball {b} is missing next to ball {near[0]} (last seen at {_xy(where)}): "
                            f"the two may be merged into one detection")
        else:
            pd = np.hypot(*(table.pocket_center - np.asarray(where)).T) - table.pocket_radius
            k = int(np.argmin(pd))
            place = (f"at the mouth of pocket {table.pocket_ids[k]}" if pd[k] < 2 * R
                     else "away from any pocket")
            problems.append(f"ball {b} vanished {place} (last seen at {_xy(where)})")
    for b in sorted(seen - expected - optional):
        problems.append(f"ball {b} is on the table but out of play (at {_xy(state.position(b))})")
    if len(state.ids) > 1:
        d = np.hypot(*(state.pos[:, None] - state.pos[None]).transpose(2, 0, 1))
        i, j = np.nonzero(np.triu(d < 2 * R - OVERLAP, 1))
        for a, b in zip(i, j):
            problems.append(f"balls {int(state.ids[a])} and {int(state.ids[b])} overlap "
                            f"({1000 * d[a, b]:.1f} mm apart): a detection error")
    if not problems:
        state, more = restable(state, table, R)
        problems += more
    return Capture(tuple(sightings), None if problems else state, tuple(problems), tuple(notes))


def _xy(p) -> str:
    return f"({float(p[0]):.3f}, {float(p[1]):.3f}) m"
