"""``robot.yaml``: what the robot declares (limits, workspace), how the driver reaches it, and the
execution error the calibration measured (``cuerobot calibrate robot``, calibration/robot.py):
``error_sigmas`` (one standard deviation per shot parameter), ``biases`` (the robot's systematic
error: on average it executes sent + bias; the driver sends commanded - bias) and ``calibrated``
(date and shot count of that measurement).

Units as docs/frame.md: phi, theta degrees; V m/s; a, b and the workspace metres; times seconds.
"""
from __future__ import annotations

import datetime
from dataclasses import dataclass, replace
from pathlib import Path

from config.reader import ConfigError, Section, default_path, load_yaml
from controller.protocol import SHOT_WIRE, Range, RobotLimits
from planner.shot import SHOT_FIELDS, ErrorModel, ShotParams

NO_BIAS = ShotParams(0.0, 0.0, 0.0, 0.0, 0.0)

UNITS = {"phi": "degrees", "theta": "degrees", "V": "m/s", "a": "metres", "b": "metres",
         "x": "metres", "y": "metres"}


@dataclass(frozen=True)
class DriverSettings:
    """The ``driver`` section. port: device path (e.g. /dev/serial/by-id/...) or pyserial URL.
    Times in seconds. retries: resends of a frame after its first send. done_margin_s: added to
    the robot's declared tmax when waiting for DONE. auto_home: home after a handshake that finds
    the robot unhomed (never when it is emergency-stopped). frame_log: JSON-lines file of every
    frame, or None. biases: robot.yaml's top-level ``biases`` (the robot executes sent + bias on
    average); the driver subtracts them from every shot before it checks and sends it
    (``controller.driver.actuator.Actuator.check_shot``)."""
    port: str
    baudrate: int
    reply_timeout_s: float
    retries: int
    reconnect_timeout_s: float
    done_margin_s: float
    auto_home: bool
    frame_log: str | None
    biases: ShotParams = NO_BIAS


@dataclass(frozen=True)
class Calibration:
    """robot.yaml's ``calibrated`` record: the date (ISO 8601, YYYY-MM-DD) and the number of
    shots of the measurement that wrote ``error_sigmas`` and ``biases``."""
    date: str
    shots: int


@dataclass(frozen=True)
class RobotSettings:
    """robot.yaml, read from ``path``. error_sigmas: the measured execution error (one standard
    deviation per shot parameter), or None when the robot has not been calibrated; biases: the
    measured systematic error (zero when absent; also in ``driver.biases``, which the driver
    applies); calibrated: when and from how many shots they were measured, or None."""
    limits: RobotLimits
    driver: DriverSettings
    error_sigmas: ErrorModel | None
    path: str
    biases: ShotParams = NO_BIAS
    calibrated: Calibration | None = None

    def error_source(self) -> str:
        """Where error_sigmas came from, for logs: ``calibrated <date> (<n> shots), <path>``,
        ``<path> (no calibration record)``, or ``none`` when there are none."""
        if self.error_sigmas is None:
            return "none"
        if self.calibrated is None:
            return f"{self.path} (no calibration record)"
        return f"calibrated {self.calibrated.date} ({self.calibrated.shots} shots), {self.path}"


def parse_limits(root: Section) -> RobotLimits:
    """The ``limits`` and ``workspace`` sections as the RobotLimits a robot declares."""
    lim, ws = root.section("limits"), root.section("workspace")
    ranges = {}
    for name, *_ in SHOT_WIRE:
        sec = ws if name in ("x", "y") else lim
        form = f"[low, high] in {UNITS[name]}, low <= high"
        lo, hi = sec.vector(name, 2, form)
        if lo > hi:
            raise sec.fail(name, form, [lo, hi])
        ranges[name] = Range(lo, hi)
    return RobotLimits(**ranges)


def parse_driver_settings(sec: Section, base: DriverSettings | None = None) -> DriverSettings:
    """A ``driver`` section; keys missing from it take ``base``'s values (every key is required
    when base is None). Raises ConfigError."""
    def default(key):
        return None if base is None else getattr(base, key)

    if sec.has("frame_log") or base is None:
        log_path = sec.raw("frame_log", "a file path or null")
        if log_path is not None and not isinstance(log_path, str):
            raise sec.fail("frame_log", "a file path or null", log_path)
    else:
        log_path = base.frame_log
    return DriverSettings(
        port=sec.string("port", "a device path or pyserial URL", default=default("port")),
        baudrate=sec.integer("baudrate", "a positive integer (baud)", lo=1, default=default("baudrate")),
        reply_timeout_s=sec.number("reply_timeout_s", "a positive number of seconds", positive=True,
                                   default=default("reply_timeout_s")),
        retries=sec.integer("retries", "an integer >= 0", lo=0, default=default("retries")),
        reconnect_timeout_s=sec.number("reconnect_timeout_s", "a positive number of seconds",
                                       positive=True, default=default("reconnect_timeout_s")),
        done_margin_s=sec.number("done_margin_s", "a number of seconds >= 0", nonneg=True,
                                 default=default("done_margin_s")),
        auto_home=sec.boolean("auto_home", default=default("auto_home")),
        frame_log=log_path,
    )


def parse_error_sigmas(sec: Section) -> ErrorModel:
    """An ``error_sigmas`` section: one standard deviation >= 0 per shot parameter."""
    return ErrorModel(*(sec.number(k, f"a standard deviation >= 0 in {UNITS[k]}", nonneg=True)
                        for k in SHOT_FIELDS))


def parse_biases(sec: Section) -> ShotParams:
    """A ``biases`` section: the mean executed - sent value per shot parameter (any sign)."""
    return ShotParams(*(sec.number(k, f"a number in {UNITS[k]}") for k in SHOT_FIELDS))


def parse_calibration(sec: Section) -> Calibration:
    """A ``calibrated`` section: ``date`` (YYYY-MM-DD) and ``shots`` (an integer >= 1)."""
    form = "a date YYYY-MM-DD"
    raw = sec.raw("date", form)
    text = raw.isoformat() if isinstance(raw, datetime.date) else raw   # YAML reads a bare date as a date
    if not isinstance(text, str):
        raise sec.fail("date", form, raw)
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        raise sec.fail("date", form, raw) from None
    return Calibration(text, sec.integer("shots", "an integer >= 1 (shots measured)", lo=1))


def parse_robot_settings(root: Section) -> RobotSettings:
    """RobotSettings from a loaded robot.yaml; raises ConfigError naming file and key."""
    driver = parse_driver_settings(root.section("driver"))
    if not driver.port:
        raise ConfigError(f"{root.path}: driver.port must be a device path or pyserial URL, got ''")
    sigmas = parse_error_sigmas(root.section("error_sigmas")) if root.has("error_sigmas") else None
    biases = parse_biases(root.section("biases")) if root.has("biases") else NO_BIAS
    calibrated = parse_calibration(root.section("calibrated")) if root.has("calibrated") else None
    return RobotSettings(parse_limits(root), replace(driver, biases=biases), sigmas, root.path, biases, calibrated)


def load_robot_settings(path: str | Path | None = None) -> RobotSettings:
    """Read and validate robot.yaml (default ``config/robot.yaml``). Raises ConfigError."""
    return parse_robot_settings(load_yaml(path or default_path("robot.yaml")))
