"""Test doubles for the service's camera and vision that skip rendering: the "image" of a frame
carries its number, and the vision double looks up the world's true ball centres at that frame
(plus a systematic error of up to 0.25 mm that varies smoothly over the table and a 0.05 mm
frame-to-frame jitter, the sizes of the real vision's errors). Everything else in the loop is real: the simulated
robot on its pty, the driver, the physics world, the planners, the observed referee and the
referee. ``TruthCamera`` follows the contract of ``controller.sim.camera.SimCamera``: rest frames
of the world's table, and after each strike or play frames through the shot at ``fps``, in
simulation time on its clock.

Faults for the tests are injected here: ``TruthCamera.fail`` (frames missing or stale) and
``TruthVision.edit`` (a ball hidden, two balls merged into one detection).
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np

from controller.camera import CameraError, CameraFrame
from controller.sim.world import PhysicsWorld
from planner.physics.trajectory import frame_times, positions_at
from vision.pipeline import BallObservation

BIAS = 2.5e-4       # vision's systematic error [m]: a smooth function of the position
JITTER = 5e-5       # vision's frame-to-frame noise [m] per axis


class TruthClock:
    def __init__(self):
        self.t = 0.0

    def now(self) -> float:
        return self.t


class TruthCamera:
    """Frames of ``world`` at ``fps`` on ``clock``. ``fail(kind, n)``: the next n reads raise
    CameraError ("missing") or return a frame 10 s old ("stale")."""

    def __init__(self, world: PhysicsWorld, fps: float, clock: TruthClock, rng: np.random.Generator):
        self.world, self.fps, self.clock, self.rng = world, fps, clock, rng
        self.index = -1
        self.truth: dict[int, dict[int, tuple[float, float]]] = {}
        self._queue: deque = deque()
        motion = world.snapshot().motion
        self._seen = 0 if motion is None else motion.seq
        self._fail: deque = deque()

    def fail(self, kind: str, n: int) -> None:
        self._fail.extend([kind] * n)

    def read(self) -> CameraFrame:
        self.clock.t += 1.0 / self.fps
        if self._fail:
            kind = self._fail.popleft()
            if kind == "missing":
                raise CameraError("test: the camera is unplugged")
            return self._frame(self.world.state.to_dict(), self.clock.t - 10.0)
        snap = self.world.snapshot()
        if snap.motion is not None and snap.motion.seq != self._seen:
            self._seen = snap.motion.seq
            res = snap.motion.result
            times = frame_times(res.t_end, self.fps)
            pos = positions_at(res, snap.motion.start, times, self.world.simulator.params)
            self._queue = deque({int(b): tuple(xy) for b, xy in zip(res.ids, p) if np.isfinite(xy).all()}
                                for p in pos[1:])
        balls = self._queue.popleft() if self._queue else snap.state.to_dict()
        return self._frame(balls, self.clock.t)

    def _frame(self, balls: dict, t: float) -> CameraFrame:
        self.index += 1
        noisy = {b: (x + BIAS * np.sin(40 * y) + self.rng.normal(0, JITTER),
                     y + BIAS * np.cos(40 * x) + self.rng.normal(0, JITTER)) for b, (x, y) in balls.items()}
        self.truth[self.index] = noisy
        image = np.zeros((4, 4, 3), np.uint8)
        image[0, 0] = list(self.index.to_bytes(3, "big"))
        return CameraFrame(image, t, self.index)

    def close(self) -> None:
        pass


class TruthVision:
    """Reads back what TruthCamera put in a frame. ``edit(fn, frames)``: for the next ``frames``
    calls, the balls seen (id -> (x, y)) go through ``fn`` first."""

    def __init__(self, camera: TruthCamera):
        self.camera = camera
        self._edits: deque = deque()

    def edit(self, fn: Callable[[dict], dict], frames: int) -> None:
        self._edits.extend([fn] * frames)

    def observe(self, image) -> list[BallObservation]:
        i = int.from_bytes(bytes(image[0, 0]), "big")
        balls = dict(self.camera.truth.pop(i))
        if self._edits:
            balls = self._edits.popleft()(balls)
        out = []
        for b, (x, y) in balls.items():
            out.append(BallObservation(0.0, 0.0, 10.0, "?" if b is None else str(b), 1.0, x, y, b))
        return out


def hide(ball: int) -> Callable[[dict], dict]:
    return lambda balls: {b: p for b, p in balls.items() if b != ball}


def merge(a: int, b: int) -> Callable[[dict], dict]:
    """Balls a and b seen as one detection midway, labelled a."""
    def fn(balls):
        if a not in balls or b not in balls:
            return balls
        out = {k: p for k, p in balls.items() if k not in (a, b)}
        out[a] = tuple((np.asarray(balls[a]) + np.asarray(balls[b])) / 2)
        return out
    return fn


class LatestVision:
    """Stands for TableVision: delegates to the TruthVision of the last TruthCamera built."""

    def __init__(self, holder: list):
        self.holder = holder

    def observe(self, image):
        return self.holder[-1].observe(image)


class _NoRender:
    def fast_renderer(self, seed: int = 0):
        return None


def install(monkeypatch, vision_holder: list | None = None) -> list:
    """Make ``open_sim_backend`` build a TruthCamera instead of the rendering SimCamera, and
    ``vision.pipeline.TableVision`` read it back; returns the list the TruthVisions built are
    appended to (``vision_holder`` if given)."""
    import sys
    import types

    import vision.pipeline
    import vision.render

    vision_holder = [] if vision_holder is None else vision_holder
    monkeypatch.setattr(vision.pipeline, "TableVision", lambda *a, **k: LatestVision(vision_holder))
    monkeypatch.setattr(vision.render, "SyntheticCamera", lambda *a, **k: _NoRender())
    import controller.sim.backend
    monkeypatch.setattr(controller.sim.backend, "FreshNoise", lambda camera, renderer, rng: camera)

    def make_camera(world, synthetic_camera, fps, clock, rng, noise=True):
        cam = TruthCamera(world, fps, clock, rng)
        vision_holder.append(TruthVision(cam))
        return cam

    mod = types.ModuleType("controller.sim.camera")
    mod.SimCamera = make_camera
    mod.SimClock = TruthClock
    monkeypatch.setitem(sys.modules, "controller.sim.camera", mod)
    return vision_holder
