"""The robot's error model, measured from its own shots as the camera sees them.

    cal = calibrate_robot(design(n, table, R), placer, strike, camera, vision, simulator, previous, biases)
    cal.sigmas(), cal.biases(), cal.unidentifiable(), cal.to_json()

For each designed shot (calibration/robot_design.py): the balls are placed (``placer.place``: the
simulated world on sim, the operator on hardware, calibration/robot_operator.py) and vision
confirms them (``confirm_placement``: every ball seen within PLACE_TOL_M of its spot in
REST_FRAMES frames in a row; their mean positions are the shot's start); the
robot strikes through the real driver (``Actuator.shot``; the command as sent, at the wire's
resolution and less the biases the driver already corrects, is what the fit is compared with);
the camera's frames through the shot are tracked (``observe_motion``) until the balls rest; the
executed shot is fitted to the track (calibration/robot_fit.py). The statistics of fitted minus
sent per parameter (calibration/robot_stats.py) give the sigmas and biases.

Nothing here knows the robot's true error: the inputs are camera frames, the serial port and the
commands sent. A parameter the data cannot identify keeps its ``previous`` value.

Units as docs/frame.md (phi, theta deg; V m/s; a, b m; positions m; times s).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from calibration.robot_design import DesignedShot
from calibration.robot_fit import ObservedShot, ShotFit, fit_shot
from calibration.robot_replay import Replay
from calibration.robot_sightings import sightings
from calibration.robot_stats import ParamStats, error_stats
from controller.observed_tracks import Snapshot, tracks
from planner.physics.engine import Simulator
from planner.shot import SHOT_FIELDS, ErrorModel, ShotParams
from planner.state import TableState

PLACE_TOL_M = 0.01      # a placed ball must be seen this close to its spot [m]
REST_FRAMES = 8         # frames of the table at rest before a shot (its start positions)
PLACE_TIMEOUT_S = 16.0  # camera time waited for the world to place the balls on sim [s]
STILL_FRAMES = 10       # a shot is over when every ball stayed within STILL_M for this many frames
STILL_M = 0.0005        # [m]
MOVED_M = 0.005         # the cue ball has left its spot by this much [m]
MAX_SHOT_S = 30.0       # a shot still moving after this (camera time) is a failure [s]
BAD_FIT_FACTOR = 5.0    # a fit whose residual noise exceeds this times the median is not used
REPLAY_EVERY = 2        # the observation's error is measured on every this-many-th shot (and every shot that measured theta)


class CalibrationError(RuntimeError):
    """A calibration shot could not be set up or observed; the message says which and why."""


class Placer(Protocol):
    """Who puts the balls of a calibration shot on the table: the simulated world, or the operator."""
    timeout_s: float    # camera time [s] to wait for vision to confirm a placement

    def place(self, balls: dict[int, tuple[float, float]]) -> None:
        """Put exactly ``balls`` (id -> (x, y) [m]) on the table (or ask for it)."""
        ...

    def waiting(self, problem: str) -> None:
        """Vision does not confirm the placement yet; ``problem`` says which ball and why."""
        ...


@dataclass(frozen=True)
class ShotRecord:
    """One calibration shot: the design, the command as sent (None: not played), the fit (None with ``problem``
    saying why it was not measured), what the fit was given, the fit's wall time [s], and the
    replayed shot's refit - fit (calibration/robot_replay.py; None: not replayed)."""
    designed: DesignedShot
    sent: ShotParams | None
    fit: ShotFit | None
    problem: str | None = None
    observed: ObservedShot | None = None
    fit_s: float = 0.0
    replay_error: np.ndarray | None = None


def observe_rest(camera, vision, spots: dict[int, tuple[float, float]]) -> tuple[TableState, list[Snapshot]]:
    """Vision's confirmation of placed balls: REST_FRAMES frames, every ball of ``spots`` (id ->
    (x, y) [m]) seen in each within PLACE_TOL_M of its spot. Returns the start state (mean
    positions) and the frames. Raises CalibrationError naming a ball that is missing or misplaced."""
    expected = {b: np.asarray(xy) for b, xy in spots.items()}
    snaps = []
    for _ in range(REST_FRAMES):
        f = camera.read()
        snaps.append(Snapshot(f.t, sightings(f.image, vision, expected)))
    _, ids, pos = tracks(snaps)
    mean = {}
    for b, xy in spots.items():
        col = np.flatnonzero(ids == b)
        if col.size == 0 or np.isnan(pos[:, col[0], 0]).any():
            raise CalibrationError(f"ball {b} is not seen at ({xy[0]:.3f}, {xy[1]:.3f}) m in every frame; "
                                   f"place it there")
        m = np.nanmean(pos[:, col[0]], axis=0)
        off = float(np.hypot(*(m - xy)))
        if off > PLACE_TOL_M:
            raise CalibrationError(f"ball {b} is seen {off * 1000:.0f} mm from its spot ({xy[0]:.3f}, {xy[1]:.3f}) m "
                                   f"(at most {PLACE_TOL_M * 1000:.0f} mm); place it again")
        mean[b] = (float(m[0]), float(m[1]))
    return TableState.from_dict(mean), snaps


def confirm_placement(camera, vision, spots: dict[int, tuple[float, float]], timeout_s: float = PLACE_TIMEOUT_S,
                      waiting: Callable[[str], None] | None = None) -> tuple[TableState, list[Snapshot]]:
    """``observe_rest`` until it confirms the balls (the table may still be settling from the
    last shot, or the balls be on their way to their spots), for at most ``timeout_s`` seconds of
    camera time; ``waiting(problem)`` hears each attempt that failed. Raises the last
    CalibrationError."""
    t_first = None
    while True:
        try:
            return observe_rest(camera, vision, spots)
        except CalibrationError as e:
            last = e
        if waiting is not None:
            waiting(str(last))
        f = camera.read()
        t_first = f.t if t_first is None else t_first
        if f.t - t_first >= timeout_s:
            raise last


def observe_motion(camera, vision, start: TableState, max_s: float = MAX_SHOT_S) -> list[Snapshot]:
    """Frames from the camera after a strike until every ball seen has stayed within STILL_M for
    STILL_FRAMES frames after the cue ball left its spot (or no ball is seen any more). Raises
    CalibrationError if the cue ball never leaves its spot or the balls still move after
    ``max_s`` seconds of camera time."""
    last = {int(b): p.copy() for b, p in zip(start.ids, start.pos)}
    cue0 = last[0].copy()
    snaps: list[Snapshot] = []
    left = False
    t_first = None
    while True:
        f = camera.read()
        t_first = f.t if t_first is None else t_first
        seen = sightings(f.image, vision, last)
        for b, xy in seen.items():
            last[b] = np.asarray(xy)
        snaps.append(Snapshot(f.t, seen))
        if 0 in seen and np.hypot(*(np.asarray(seen[0]) - cue0)) > MOVED_M:
            left = True
        if left and len(snaps) > STILL_FRAMES and _still(snaps[-STILL_FRAMES:]):
            return snaps
        if f.t - t_first > max_s:
            why = "the cue ball never left its spot" if not left else "the balls were still moving"
            raise CalibrationError(f"{why} {max_s:g} s after the strike")


def _still(snaps: list[Snapshot]) -> bool:
    _, _, pos = tracks(snaps)
    pos = pos[:, np.isfinite(pos[..., 0]).any(axis=0)]       # balls seen in these frames
    if pos.shape[1] == 0:
        return True
    return bool(np.all(np.nanmax(pos, axis=0) - np.nanmin(pos, axis=0) < STILL_M))


def observed_shot(start: TableState, rest: list[Snapshot], motion: list[Snapshot], sent: ShotParams) -> ObservedShot:
    """The fit's input: the start state and the last rest frame followed by the motion frames,
    as arrays in the start state's ball order."""
    snaps = rest[-1:] + motion
    times, ids, pos = tracks(snaps)
    full = np.full((len(times), len(start.ids), 2), np.nan)
    for j, b in enumerate(start.ids):
        col = np.flatnonzero(ids == b)
        if col.size:
            full[:, j] = pos[:, col[0]]
    return ObservedShot(start, times, start.ids.copy(), full, sent)


@dataclass(frozen=True)
class RobotCalibration:
    """The measurement: every shot, the statistics per parameter, the values before it
    (``previous``, ``previous_biases``: kept for an unidentifiable parameter), and the
    observation's error floor per parameter (``measurement_floor``)."""
    shots: tuple[ShotRecord, ...]
    stats: dict[str, ParamStats]
    previous: ErrorModel
    previous_biases: ShotParams
    floor: np.ndarray

    def unidentifiable(self) -> list[str]:
        return [k for k in SHOT_FIELDS if not self.stats[k].identifiable]

    def sigmas(self) -> ErrorModel:
        """Measured sigmas; the previous value for an unidentifiable parameter."""
        return ErrorModel(*(s.sigma if s.identifiable else getattr(self.previous, k)
                            for k, s in self.stats.items()))

    def biases(self) -> ShotParams:
        """Measured biases (executed - sent); the previous value for an unidentifiable parameter."""
        return ShotParams(*(s.bias if s.identifiable else getattr(self.previous_biases, k)
                            for k, s in self.stats.items()))

    @property
    def measured(self) -> int:
        """Shots whose fit was used."""
        return sum(r.fit is not None and r.problem is None for r in self.shots)

    def to_json(self) -> dict:
        """The ``--json`` form: {"shots", "sigma", "ci95", "bias", "unidentifiable"} in
        docs/frame.md units (an unidentifiable parameter's sigma and bias: the values kept; an
        interval too few shots measured: [null, null])."""
        sig, bias = self.sigmas(), self.biases()
        return {"shots": self.measured,
                "sigma": {k: float(getattr(sig, k)) for k in SHOT_FIELDS},
                "ci95": {k: [_finite(v) for v in self.stats[k].ci95] for k in SHOT_FIELDS},
                "bias": {k: float(getattr(bias, k)) for k in SHOT_FIELDS},
                "unidentifiable": self.unidentifiable()}


def _finite(v: float) -> float | None:
    return float(v) if np.isfinite(v) else None


def summarise(records: list[ShotRecord], previous: ErrorModel, previous_biases: ShotParams) -> RobotCalibration:
    """Statistics over the shots whose fit converged and whose residual noise is within
    BAD_FIT_FACTOR of the median (a fit that found another sequence of events is not a
    measurement); the others are marked with the reason. theta counts on a shot only when the
    replay of that shot measured it too: the fit's own theta covariance is over-confident, and the
    replays that fail to see theta are the shots where it was not really seen."""
    fitted = [r for r in records if r.fit is not None and r.fit.ok]
    med = float(np.median([r.fit.noise_m for r in fitted])) if fitted else 0.0
    out = []
    for r in records:
        if r.fit is not None and r.problem is None:
            if not r.fit.ok:
                r = replace(r, problem="the fit did not converge")
            elif r.fit.noise_m > BAD_FIT_FACTOR * med:
                r = replace(r, problem=f"fit residual {r.fit.noise_m * 1000:.2f} mm is over "
                                       f"{BAD_FIT_FACTOR:g} x the median {med * 1000:.3f} mm")
        out.append(r)
    used = [r for r in out if r.fit is not None and r.problem is None]
    d = np.array([r.fit.params.as_array() - r.sent.as_array() for r in used]).reshape(-1, 5)
    floor = measurement_floor(out)
    c = np.array([np.diag(r.fit.cov) for r in used]).reshape(-1, 5) + floor ** 2
    # theta counts only where the replay of the same shot measured it too (its fit alone is over-confident)
    confirmed = np.array([r.replay_error is not None and np.isfinite(r.replay_error[1]) for r in used], dtype=bool)
    c[~confirmed, 1] = np.inf
    return RobotCalibration(tuple(out), error_stats(d, c), previous, previous_biases, floor)


def measurement_floor(records) -> np.ndarray:
    """(5,) root mean square of the replay errors per parameter (over the replayed shots that
    measured it; inf where none did): the observation's error on these trajectories."""
    e = np.array([r.replay_error for r in records if r.replay_error is not None and r.problem is None]).reshape(-1, 5)
    out = np.full(5, np.inf)
    for j in range(5):
        col = e[np.isfinite(e[:, j]), j]
        if col.size:
            out[j] = float(np.sqrt(np.mean(col ** 2)))
    return out


def calibrate_robot(shots: list[DesignedShot], placer: Placer, strike: Callable[[ShotParams, tuple], ShotParams],
                    camera, vision, simulator: Simulator, previous: ErrorModel,
                    previous_biases: ShotParams, replay: Replay | None = None,
                    progress: Callable[[ShotRecord], None] | None = None) -> RobotCalibration:
    """Play and measure ``shots``. placer: puts each shot's balls on the table (``Placer``);
    strike(shot, cue_xy): have the robot strike, returning the command as sent (raising
    on failure); camera: ``read()`` -> CameraFrame; vision: ``observe(image)`` (TableVision);
    simulator: the physics engine of the table; replay: measures the observation's error on every
    REPLAY_EVERY-th shot and every shot whose fit measured theta (calibration/robot_replay.py;
    None: not measured, the floor is then unknown and every parameter unidentifiable). A shot that cannot be observed or fitted is kept
    with its problem (CalibrationError, ValueError). progress(record) is called after each shot."""
    records = []
    for ds in shots:
        placer.place(ds.balls)
        try:
            start, rest = confirm_placement(camera, vision, ds.balls, placer.timeout_s, placer.waiting)
        except CalibrationError as e:
            records.append(ShotRecord(ds, None, None, f"not played: {e}"))
            continue
        sent = strike(ds.command, start.to_dict()[0])
        try:
            obs = observed_shot(start, rest, observe_motion(camera, vision, start), sent)
            t0 = time.perf_counter()
            fit = fit_shot(obs, simulator, previous.theta)
            fit_s = time.perf_counter() - t0
            theta_seen = bool(np.isfinite(fit.cov[1, 1]))
            err = replay.error(obs, fit, previous.theta) \
                if replay is not None and (theta_seen or len(records) % REPLAY_EVERY == 0) else None
            rec = ShotRecord(ds, sent, fit, None, obs, fit_s, err)
        except (CalibrationError, ValueError) as e:
            rec = ShotRecord(ds, sent, None, str(e))
        records.append(rec)
        if progress is not None:
            progress(rec)
    return summarise(records, previous, previous_biases)
