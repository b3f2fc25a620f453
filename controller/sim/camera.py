"""The simulated overhead camera: frames of the simulated world, in simulation time.

``SimCamera`` implements ``controller.camera.Camera`` over a ``PhysicsWorld``: every ``read()``
advances its ``SimClock`` by 1/fps and renders the world as it is at that instant with the
synthetic camera's fast path (``vision.render_fast``):

* at rest, the world's current state. The image is rendered once per world-state version (with
  its sensor noise drawn once), so repeated rest frames are the same image and cost nothing;
* when the world has a new motion (a robot's strike or an opponent's shot), from the frame that
  notices it: the balls where the engine has them ``t - t_noticed`` seconds into the shot
  (``planner.physics.trajectory.positions_at``), pocketed balls gone, until the shot's ``t_end``;
  then the state at rest. A ball rolls between frames: its orientation turns by the distance it
  moved over R about the horizontal axis across its path (spin and sliding are not shown).

Exposure is instantaneous (no motion blur). Frames are reproducible from the rng.

Every frame's exact truth (the balls drawn in it, ids and table-frame centres [m]) is kept for
the last ``TRUTH_FRAMES`` frames: ``truth_at(t)`` gives it by the frame's time, so that a
recorder writing a frame (``hil.recording.RunWriter.frame_truth``) can store its ground truth.
"""
from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np
from scipy.spatial.transform import Rotation

from controller.camera import CameraError, CameraFrame
from controller.sim.world import Motion, PhysicsWorld
from planner.physics.trajectory import positions_at
from vision.render import SyntheticCamera

TRUTH_FRAMES = 4096     # frames whose truth ``SimCamera.truth_at`` still knows (> a long shot at 30 fps)


class SimClock:
    """Simulation time [s]: starts at ``t0`` and moves only when ``advance`` is called (by the
    simulated camera, 1/fps per frame). Thread-safe."""

    def __init__(self, t0: float = 0.0):
        self._t = float(t0)
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._t

    def advance(self, dt: float) -> float:
        """Move the clock ``dt`` >= 0 seconds forward; return the new time [s]."""
        if not dt >= 0:
            raise ValueError(f"the simulation clock only moves forward, got dt = {dt} s")
        with self._lock:
            self._t += dt
            return self._t


class SimCamera:
    """Frames of ``world`` seen by ``synthetic_camera`` at ``fps`` [1/s] in ``clock``'s time.

    rng seeds the balls' orientations and the sensor noise (``noise``: the synthetic camera's
    noise_sigma, added once per rendered image). ``read`` and ``close`` are thread-safe; frames are
    read-only arrays (a rest frame is the same array each time).
    """

    def __init__(self, world: PhysicsWorld, synthetic_camera: SyntheticCamera, fps: float = 30.0,
                 clock: SimClock | None = None, rng: np.random.Generator | None = None, noise: bool = True):
        if not fps > 0:
            raise ValueError(f"fps must be a positive frame rate, got {fps}")
        self.fps = float(fps)
        self.world = world
        self.clock = clock if clock is not None else SimClock()
        self._rng = rng if rng is not None else np.random.default_rng()
        self._renderer = synthetic_camera.fast_renderer(seed=int(self._rng.integers(2 ** 31)))
        self._R = synthetic_camera.R
        self._params = world.simulator.params
        self._noise = noise
        self._rot = {i: r for i, r in enumerate(Rotation.random(16, random_state=self._rng).as_matrix())}
        self._lock = threading.Lock()
        self._closed = False
        self._index = 0
        self._seen = 0                      # the last motion noticed (its seq)
        snap = world.snapshot()
        if snap.motion is not None:         # a shot played before the camera opened is history
            self._seen = snap.motion.seq
        self._follow: tuple[Motion, float] | None = None      # (motion, clock time it was noticed)
        self._last_pos: dict[int, np.ndarray] = {}
        self._rest: tuple[int, np.ndarray] | None = None      # (world version, its frame)
        self._truth: OrderedDict[float, dict[int, tuple[float, float]]] = OrderedDict()

    def read(self) -> CameraFrame:
        """The next frame, 1/fps after the last. Raises CameraError once closed."""
        with self._lock:
            if self._closed:
                raise CameraError("the simulated camera is closed")
            t = self.clock.advance(1.0 / self.fps)
            snap = self.world.snapshot()
            if snap.motion is not None and snap.motion.seq != self._seen:
                self._seen = snap.motion.seq
                self._follow = (snap.motion, t)
            image = None
            if self._follow is not None:
                motion, t0 = self._follow
                if t - t0 < motion.result.t_end:
                    image, ids, pos = self._motion_frame(motion, t - t0)
                else:
                    self._follow = None
            if image is None:
                image = self._rest_frame(snap.version, snap.state)
                ids, pos = snap.state.ids, snap.state.pos
            self._keep_truth(t, ids, pos)
            frame = CameraFrame(image, t, self._index)
            self._index += 1
            return frame

    def close(self) -> None:
        """Stop: further reads raise CameraError. Safe to call twice."""
        with self._lock:
            self._closed = True

    def truth_at(self, t: float) -> dict[int, tuple[float, float]] | None:
        """The balls drawn in the frame of time ``t`` [s] (exactly a frame's ``CameraFrame.t``):
        {ball id: (x, y) table-frame centre [m]}, pocketed balls absent. None for a time that is
        no frame's, or a frame older than the last TRUTH_FRAMES."""
        with self._lock:
            balls = self._truth.get(float(t))
            return None if balls is None else dict(balls)

    def _keep_truth(self, t: float, ids, pos) -> None:
        self._truth[float(t)] = {int(i): (float(p[0]), float(p[1])) for i, p in zip(ids, pos)}
        while len(self._truth) > TRUTH_FRAMES:
            self._truth.popitem(last=False)

    # ---- rendering --------------------------------------------------------------------------
    def _motion_frame(self, motion: Motion, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The balls of ``motion`` ``t`` seconds after its strike: (image, ids (N,), centres (N, 2) [m])."""
        res = motion.result
        pos = positions_at(res, motion.start, np.array([t]), self._params)[0]
        on = ~np.isnan(pos[:, 0])
        self._roll(res.ids[on], pos[on])
        self._rest = None
        return self._render(res.ids[on], pos[on]), res.ids[on], pos[on]

    def _rest_frame(self, version: int, state) -> np.ndarray:
        """The world at rest: rendered once per version."""
        if self._rest is None or self._rest[0] != version:
            self._roll(state.ids, state.pos)
            self._rest = (version, self._render(state.ids, state.pos))
        return self._rest[1]

    def _roll(self, ids, pos) -> None:
        """Turn each ball as if it rolled from where it was last drawn to ``pos`` (N, 2) [m]."""
        for i, p in zip(ids.tolist(), pos):
            last = self._last_pos.get(i)
            if last is not None:
                d = p - last
                dist = float(np.hypot(d[0], d[1]))
                if 0 < dist < 0.5:          # farther: placed by hand, not rolled
                    axis = np.array([-d[1], d[0], 0.0]) / dist
                    self._rot[i] = Rotation.from_rotvec(axis * dist / self._R).as_matrix() @ self._rot[i]
            self._last_pos[i] = p.copy()

    def _render(self, ids, pos) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        centres = np.concatenate([np.asarray(pos, dtype=np.float64).reshape(-1, 2),
                                  np.full((ids.shape[0], 1), self._R)], axis=1)
        rot = np.array([self._rot[int(i)] for i in ids]).reshape(-1, 3, 3)
        image = self._renderer.update(ids, centres, rot).copy()
        if self._noise:
            self._renderer.add_noise(image, self._rng)
        image.flags.writeable = False
        return image
