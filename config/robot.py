"""``robot.yaml``: what the robot declares (limits, workspace), how the driver reaches it, and the
execution error the calibration measured.

Units as docs/frame.md: phi, theta degrees; V m/s; a, b and the workspace metres; times seconds.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from config.reader import ConfigError, Section, default_path, load_yaml
from controller.protocol import SHOT_WIRE, Range, RobotLimits
from planner.shot import SHOT_FIELDS, ErrorModel

UNITS = {"phi": "degrees", "theta": "degrees", "V": "m/s", "a": "metres", "b": "metres",
         "x": "metres", "y": "metres"}


@dataclass(frozen=True)
class DriverSettings:
    """The ``driver`` section. port: device path (e.g. /dev/serial/by-id/...) or pyserial URL.
    Times in seconds. retries: resends of a frame after its first send. done_margin_s: added to
    the robot's declared tmax when waiting for DONE. auto_home: home after a handshake that finds
    the robot unhomed (never when it is emergency-stopped). frame_log: JSON-lines file of every
    frame, or None."""
    port: str
    baudrate: int
    reply_timeout_s: float
    retries: int
    reconnect_timeout_s: float
    done_margin_s: float
    auto_home: bool
    frame_log: str | None


@dataclass(frozen=True)
class RobotSettings:
    """robot.yaml, read from ``path``. error_sigmas: the measured execution error (one standard
    deviation per shot parameter), or None when the robot has not been calibrated."""
    limits: RobotLimits
    driver: DriverSettings
    error_sigmas: ErrorModel | None
    path: str


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


def parse_robot_settings(root: Section) -> RobotSettings:
    """RobotSettings from a loaded robot.yaml; raises ConfigError naming file and key."""
    driver = parse_driver_settings(root.section("driver"))
    if not driver.port:
        raise ConfigError(f"{root.path}: driver.port must be a device path or pyserial URL, got ''")
    sigmas = parse_error_sigmas(root.section("error_sigmas")) if root.has("error_sigmas") else None
    return RobotSettings(parse_limits(root), driver, sigmas, root.path)


def load_robot_settings(path: str | Path | None = None) -> RobotSettings:
    """Read and validate robot.yaml (default ``config/robot.yaml``). Raises ConfigError."""
    return parse_robot_settings(load_yaml(path or default_path("robot.yaml")))
