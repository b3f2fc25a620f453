"""The operator's side of a calibration on the hardware robot (``cuerobot calibrate robot --backend serial``).

For each shot the operator is asked, on the console and on the dashboard, to put the shot's balls
on their spots (table frame, docs/frame.md); vision confirms the placement
(``calibration.robot.confirm_placement``) and says what is still wrong while it does not. The
dashboard (controller.api, the service's page) shows the camera's frames with the spots drawn,
the prompt, and its buttons: e-stop (sends ESTOP and ends the calibration, the robot's config
untouched) and pause/resume (the next strike waits).

    desk = CalibrationDesk(cam, R, actuator.estop)          # served by controller.api.start_dashboard
    placer = OperatorPlacer(camera.discard, print, desk, timeout_s=120, total=len(shots))
    calibrate_robot(shots, placer, desk.guard(strike), ShownCamera(camera, desk), ...)
"""
from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable

import cv2
import numpy as np

from controller.service.hub import Hub
from vision.camera import CameraModel, table_to_pixels

REPEAT_S = 5.0              # a placement problem is said again on the console at most this often [s]
SPOT_BGR = (0, 255, 255)    # the spots drawn on the dashboard's frame
STATE_PLACING, STATE_SHOOTING, STATE_PAUSED, STATE_STOPPED = "WAITING", "CALIBRATING", "PAUSED", "FAULTED"


class CalibrationStopped(RuntimeError):
    """The operator stopped the calibration (e-stop); the message says how."""


class NotWhileCalibrating(RuntimeError):
    """A dashboard action that belongs to a game (shoot now, opponent done)."""


def placement_text(balls: dict[int, tuple[float, float]], shot: int, total: int) -> str:
    """The operator's instruction for shot ``shot`` (1-based) of ``total``: where each ball goes
    (table frame, metres)."""
    def name(b: int) -> str:
        return "the cue ball" if b == 0 else f"ball {b}"
    where = " and ".join(f"{name(b)} at ({xy[0]:.3f}, {xy[1]:.3f}) m" for b, xy in sorted(balls.items()))
    return f"shot {shot} of {total}: put {where}; nothing else on the table"


def draw_spots(image: np.ndarray, cam: CameraModel, spots: dict[int, tuple[float, float]], R: float) -> np.ndarray:
    """A copy of the BGR ``image`` with each spot's ball outline (a ball of radius ``R`` [m]
    resting there) and its id drawn."""
    out = image.copy()
    for b, (x, y) in spots.items():
        c, edge = table_to_pixels(cam, [[x, y, R], [x + R, y, R]])
        r = max(2, int(round(float(np.hypot(*(edge - c))))))
        centre = (int(round(c[0])), int(round(c[1])))
        cv2.circle(out, centre, r, SPOT_BGR, 2, cv2.LINE_AA)
        cv2.putText(out, str(b), (centre[0] + r + 3, centre[1] - r), cv2.FONT_HERSHEY_SIMPLEX, 0.6, SPOT_BGR, 2,
                    cv2.LINE_AA)
    return out


class CalibrationDesk:
    """What the dashboard sees of a calibration and may ask of it (controller.service.control's
    ServiceControl). cam: the posed camera model; R: ball radius [m]; estop: sends ESTOP to the
    robot (``Actuator.estop``, any thread). Thread-safe."""

    def __init__(self, cam: CameraModel, R: float, estop: Callable[[], None]):
        self.hub = Hub()
        self._cam, self._R, self._estop = cam, R, estop
        self._spots: dict[int, tuple[float, float]] = {}
        self._go = threading.Event()
        self._go.set()
        self._stopped: str | None = None
        self.hub.set_status(state=STATE_SHOOTING, reason=None, fault=None, backend="serial", players=[])

    # ---- the dashboard's side (ServiceControl) ----
    def status(self) -> dict:
        return self.hub.status()

    def frame_png(self) -> bytes | None:
        return self.hub.frame_png()

    def plan(self) -> dict | None:
        return None

    def game_log(self, since: int = 0) -> list[dict]:
        return self.hub.game_log(since)

    def subscribe(self) -> queue.Queue:
        return self.hub.subscribe()

    def unsubscribe(self, q: queue.Queue) -> None:
        self.hub.unsubscribe(q)

    def pause(self) -> None:
        """The next strike waits until ``resume``."""
        self._go.clear()
        self.hub.set_status(state=STATE_PAUSED, reason="paused from the dashboard: the next shot waits")

    def resume(self) -> None:
        """Strikes go on. Raises CalibrationStopped after an e-stop (start a new calibration)."""
        if self._stopped is not None:
            raise CalibrationStopped(f"{self._stopped}; start the calibration again")
        self._go.set()
        self.hub.set_status(state=STATE_SHOOTING, reason=None)

    def estop(self) -> None:
        """ESTOP to the robot at once; the calibration ends before its next step."""
        self._stopped = "e-stop from the dashboard"
        self._go.set()
        try:
            self._estop()
        finally:
            self.hub.set_status(state=STATE_STOPPED, fault=self._stopped)
            self.hub.fault(self._stopped)

    def shoot_now(self) -> None:
        raise NotWhileCalibrating("shoot now is for a game; a calibration plays its designed shots")

    def opponent_done(self) -> None:
        raise NotWhileCalibrating("opponent done is for a game; a calibration has no opponent")

    # ---- the calibration's side ----
    def check(self) -> None:
        """Raises CalibrationStopped once the operator stopped the calibration."""
        if self._stopped is not None:
            raise CalibrationStopped(self._stopped)

    def ask(self, text: str, spots: dict[int, tuple[float, float]], shot: int) -> None:
        """Show the placement instruction and its spots."""
        self._spots = dict(spots)
        self.hub.set_status(state=STATE_PLACING, reason=text, shot=shot)

    def problem(self, text: str) -> None:
        """Show why vision does not confirm the placement yet."""
        self.hub.set_status(state=STATE_PLACING, reason=text)

    def guard(self, strike: Callable) -> Callable:
        """``strike`` that first waits while paused and refuses once stopped (CalibrationStopped)."""
        def guarded(shot, cue_xy):
            self._go.wait()
            self.check()
            self.hub.set_status(state=STATE_SHOOTING, reason=None)
            return strike(shot, cue_xy)
        return guarded

    def show(self, frame) -> None:
        """Show a camera frame (CameraFrame) with the spots drawn."""
        self.hub.set_frame(draw_spots(frame.image, self._cam, self._spots, self._R), [], frame.index)


class ShownCamera:
    """A camera whose every frame is also shown on the desk's dashboard."""

    def __init__(self, camera, desk: CalibrationDesk):
        self._camera, self._desk = camera, desk
        self.fps = camera.fps

    def read(self):
        f = self._camera.read()
        self._desk.show(f)
        return f

    def close(self) -> None:
        self._camera.close()


class OperatorPlacer:
    """The calibration's ``Placer`` on hardware: asks the operator (``say(line)``, e.g. a console
    line, and the ``desk`` when there is one) and drops the frames the camera holds from before
    (``discard``). timeout_s: camera time [s] the operator has for each placement; total: shots in
    the run."""

    def __init__(self, discard: Callable[[], None], say: Callable[[str], None], desk: CalibrationDesk | None,
                 timeout_s: float, total: int):
        self._discard, self._say, self._desk = discard, say, desk
        self.timeout_s, self._total = float(timeout_s), int(total)
        self._shot = 0
        self._said: tuple[str, float] | None = None

    def place(self, balls: dict[int, tuple[float, float]]) -> None:
        self._shot += 1
        text = placement_text(balls, self._shot, self._total)
        self._say(text)
        if self._desk is not None:
            self._desk.check()
            self._desk.ask(text, balls, self._shot)
        self._said = None
        self._discard()

    def waiting(self, problem: str) -> None:
        """Say ``problem`` when it changed or REPEAT_S after it was last said. Raises
        CalibrationStopped once the operator stopped the calibration."""
        if self._desk is not None:
            self._desk.check()
            self._desk.problem(problem)
        now = time.monotonic()
        if self._said is None or self._said[0] != problem or now - self._said[1] >= REPEAT_S:
            self._say(f"  waiting: {problem}")
            self._said = (problem, now)
