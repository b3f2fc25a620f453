"""What the controller sees: a camera is a stream of timestamped frames, on a clock.

The service reads frames one after another (``Camera.read``) and never looks at anything else of
the world. Two kinds of camera implement it: the simulated camera (``controller.sim.camera``),
which renders the simulated world in simulation time, and ``VideoCamera`` (an OpenCV
``VideoCapture`` device index, file or URL, from config/camera.yaml).
"""
from __future__ import annotations

import collections
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class CameraFrame:
    """One frame. image: BGR uint8 (H, W, 3); t: capture time [s] on the camera's clock
    (``Clock.now``); index: the frame's number since the camera opened (0, 1, ...)."""
    image: np.ndarray
    t: float
    index: int


class Clock(Protocol):
    """The service's time [s]. On the simulated backend it is simulation time, advanced by the
    simulated camera's frames, so that a game runs as fast as it can be computed; on hardware it
    is ``time.monotonic``."""

    def now(self) -> float:
        ...


class Camera(Protocol):
    """A stream of frames at ``fps`` [1/s]."""
    fps: float

    def read(self) -> CameraFrame:
        """The next frame. Raises CameraError when no frame comes (a disconnected device, the
        end of a file)."""
        ...

    def close(self) -> None:
        """Release the device. Safe to call twice."""
        ...


class CameraError(RuntimeError):
    """The camera gave no frame."""


class MonotonicClock:
    """The hardware clock: ``time.monotonic`` [s]."""

    def now(self) -> float:
        return time.monotonic()


class _FileClock:
    """A video file's time: the position [s] of the last frame read (0 before the first)."""

    def __init__(self):
        self.t = 0.0

    def now(self) -> float:
        return self.t


class VideoCamera:
    """A camera read through OpenCV's ``cv2.VideoCapture``.

    source: a device index (int, e.g. 0), a video file (str path) or a URL (str, e.g. rtsp://...;
    config/camera.yaml's ``source``). fps: the frame rate [1/s] to ask a device for; None keeps the
    device's or the file's own (``fps`` then reports what OpenCV says, 30 if it says nothing).
    Frame times: for a file, each frame's position in the file [s] (its ``clock`` reports the
    last one read); for a device or URL, ``time.monotonic`` when the frame arrived (its ``clock``
    is a MonotonicClock). Raises CameraError if the source cannot be opened. ``read`` and
    ``close`` are thread-safe.
    """

    def __init__(self, source: int | str, fps: float | None = None):
        import cv2

        if isinstance(source, bool) or not isinstance(source, (int, str)) or source == "":
            raise CameraError(f"camera source must be a device index, a video file or a URL, got {source!r}")
        self.source = source
        self._is_file = isinstance(source, str) and Path(source).is_file()
        self._cap = cv2.VideoCapture(source)
        if not self._cap.isOpened():
            self._cap.release()
            raise CameraError(f"cannot open camera source {source!r} (no such device, file or stream, or no "
                              f"OpenCV backend reads it)")
        if fps is not None and not self._is_file:
            if not fps > 0:
                raise CameraError(f"fps must be a positive frame rate, got {fps}")
            self._cap.set(cv2.CAP_PROP_FPS, float(fps))
        reported = float(self._cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = float(fps) if fps is not None and not self._is_file else (reported if reported > 0 else 30.0)
        self.clock: Clock = _FileClock() if self._is_file else MonotonicClock()
        self.live = not self._is_file   # a device or stream: frames come whether read or not
        self._lock = threading.Lock()
        self._index = 0
        self._closed = False

    def read(self) -> CameraFrame:
        """The next frame: BGR uint8 (H, W, 3). Raises CameraError at the end of a file, when the
        device or stream gives no frame, or once closed."""
        import cv2

        with self._lock:
            if self._closed:
                raise CameraError(f"camera {self.source!r} is closed")
            ok, image = self._cap.read()
            if not ok or image is None:
                what = "end of the video file" if self._is_file else "no frame (device disconnected or stream down)"
                raise CameraError(f"camera {self.source!r}: {what} after {self._index} frames")
            if self._is_file:
                pos = self._cap.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
                t = pos if pos > 0 or self._index == 0 else self._index / self.fps
                self.clock.t = t
            else:
                t = self.clock.now()
            if image.ndim == 2:
                image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
            elif image.shape[2] == 4:
                image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
            frame = CameraFrame(image, t, self._index)
            self._index += 1
            return frame

    def close(self) -> None:
        """Release the device or file. Safe to call twice."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._cap.release()


BUFFER_FRAMES = 900     # frames a BufferedCamera holds for a busy reader (30 s at 30 fps)


class BufferedCamera:
    """A live camera read on a thread of its own, so that no frame is lost or stamped late while
    the reader is busy (a strike, a fit): ``read`` returns the frames in the order they came, with
    the times the wrapped camera gave them on arrival; ``discard`` drops the frames waiting. At
    most ``max_frames`` wait; beyond, the oldest are dropped (counted in ``dropped``). A
    CameraError on the thread is raised by ``read`` once the frames before it are read. ``fps``
    and ``clock`` are the wrapped camera's."""

    def __init__(self, camera, max_frames: int = BUFFER_FRAMES):
        self._camera = camera
        self.fps = camera.fps
        self.clock = getattr(camera, "clock", None)
        self._frames: collections.deque[CameraFrame] = collections.deque()
        self._max = int(max_frames)
        self.dropped = 0
        self._error: CameraError | None = None
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._grab, name="camera-grabber", daemon=True)
        self._thread.start()

    def _grab(self) -> None:
        while not self._stop.is_set():
            try:
                frame = self._camera.read()
            except CameraError as e:
                with self._cond:
                    self._error = e
                    self._cond.notify_all()
                return
            with self._cond:
                if len(self._frames) >= self._max:
                    self._frames.popleft()
                    self.dropped += 1
                self._frames.append(frame)
                self._cond.notify_all()

    def read(self) -> CameraFrame:
        """The oldest frame not yet read, waiting for one if none is there. Raises CameraError if
        the camera failed (after the frames it gave before) or once closed."""
        with self._cond:
            while not self._frames and self._error is None and not self._stop.is_set():
                self._cond.wait()
            if self._frames:
                return self._frames.popleft()
            if self._error is not None:
                raise self._error
            raise CameraError("camera is closed")

    def discard(self) -> None:
        """Drop the frames waiting (they show the table before something changed it)."""
        with self._cond:
            self._frames.clear()

    def close(self) -> None:
        """Stop the thread and close the wrapped camera. Safe to call twice."""
        self._stop.set()
        self._camera.close()
        with self._cond:
            self._cond.notify_all()
        self._thread.join(timeout=5.0)
