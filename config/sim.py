"""``sim.yaml``: the simulated robot (firmware id, true execution error, timing, fault
injection) and the soak profile that `cuerobot bench serial` and the soak test run.

A file with a top-level ``base: FILE`` (a path relative to it) is a preset over that file: each
of its top-level keys replaces the base's whole (config/sim_robots/*.yaml: robots with other true
errors for ``cuerobot calibrate robot --sim-config``).

Units as docs/frame.md: phi, theta degrees; V m/s; a, b and the workspace metres; times seconds.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from config.reader import Section, default_path, load_yaml
from config.robot import UNITS, DriverSettings, load_robot_settings, parse_driver_settings
from controller.protocol import RobotLimits
from planner.shot import SHOT_FIELDS, ErrorModel, ShotParams

WHEN = ("any", "before_strike", "after_strike")
WORLDS = ("recording", "physics")


@dataclass(frozen=True)
class TrueError:
    """The robot's real execution error, never sent over the wire: executed = commanded + bias +
    sigma * N(0, 1) per parameter (ShotParams units), with theta held at >= 0 (ErrorModel.perturb)
    and V at >= 0 (the cue cannot move backwards)."""
    sigmas: ErrorModel
    bias: ShotParams

    def perturb(self, shot: ShotParams, rng: np.random.Generator) -> ShotParams:
        biased = ShotParams.from_array(shot.as_array() + self.bias.as_array())
        x = self.sigmas.perturb(biased, rng, 1)[0]
        x[2] = max(x[2], 0.0)
        return ShotParams.from_array(x)


@dataclass(frozen=True)
class Timing:
    """move_s (+ uniform 0..move_jitter_s): from ACK to the strike; strike_s: from the strike to
    DONE; home_s: HOME; boot_s: after a reset until the robot announces itself; reconnect_s: after
    a disconnect until the new port appears."""
    move_s: float
    move_jitter_s: float
    strike_s: float
    home_s: float
    boot_s: float
    reconnect_s: float

    @property
    def tmax(self) -> float:
        """The longest ACK-to-DONE time of any motion: what the robot declares in HELLO [s]."""
        return max(self.home_s, self.move_s + self.move_jitter_s + self.strike_s)


@dataclass(frozen=True)
class Faults:
    """Fault injection between the robot and its port. Byte faults are probabilities per byte in
    each direction (drop it; flip one bit; send it twice; stall the line for delay_s from it on).
    silence: per frame received, the robot goes deaf and mute for silence_s. disconnect, reset:
    per SHOT accepted, the port vanishes (the robot finishes the shot) or the robot resets, at a
    uniform time in the window ``*_when`` (any, before_strike, after_strike) of that shot."""
    drop: float = 0.0
    corrupt: float = 0.0
    duplicate: float = 0.0
    delay: float = 0.0
    delay_s: float = 0.0
    silence: float = 0.0
    silence_s: float = 0.0
    disconnect: float = 0.0
    disconnect_when: str = "any"
    reset: float = 0.0
    reset_when: str = "any"


@dataclass(frozen=True)
class SimSettings:
    """sim.yaml (with a profile applied), read from ``path``. firmware: the id reported in HELLO;
    seed: seeds the execution noise and the fault injection; world: what strikes act on (one of
    WORLDS); error: the true execution error, which no host is told."""
    firmware: str
    seed: int
    world: str
    error: TrueError
    timing: Timing
    faults: Faults
    path: str


def _params(sec: Section, form: str, default: ShotParams | None = None, nonneg: bool = False) -> ShotParams:
    return ShotParams(*(sec.number(k, f"{form} in {UNITS[k]}", nonneg=nonneg,
                                   default=None if default is None else getattr(default, k))
                        for k in SHOT_FIELDS))


def parse_timing(sec: Section, base: Timing | None = None) -> Timing:
    """A ``timing`` section; missing keys take ``base``'s values (required if base is None)."""
    form = "a number of seconds >= 0"
    return Timing(*(sec.number(k, form, nonneg=True, default=None if base is None else getattr(base, k))
                    for k in Timing.__dataclass_fields__))


def parse_faults(sec: Section, base: Faults = Faults()) -> Faults:
    """A ``faults`` section; missing keys take ``base``'s values (all off by default)."""
    rate = "a probability between 0 and 1"
    secs = "a number of seconds >= 0"
    vals = {}
    for k in ("drop", "corrupt", "duplicate", "delay", "silence", "disconnect", "reset"):
        vals[k] = sec.number(k, rate, lo=0.0, hi=1.0, default=getattr(base, k))
    for k in ("delay_s", "silence_s"):
        vals[k] = sec.number(k, secs, nonneg=True, default=getattr(base, k))
    for k in ("disconnect_when", "reset_when"):
        vals[k] = sec.string(k, "one of " + ", ".join(WHEN), choices=WHEN, default=getattr(base, k))
    byte_total = vals["drop"] + vals["corrupt"] + vals["duplicate"] + vals["delay"]
    if byte_total > 1.0:
        raise sec.fail("drop", "such that drop + corrupt + duplicate + delay <= 1", byte_total)
    return Faults(**vals)


def load_sim_yaml(path: str | Path | None = None) -> Section:
    """The top level of config/sim.yaml (or ``path``), a preset's ``base`` applied (module doc).
    Raises ConfigError."""
    root = load_yaml(path or default_path("sim.yaml"))
    if not root.has("base"):
        return root
    rel = root.string("base", "a sim config file, as a path relative to this one")
    base = load_yaml(Path(root.path).parent / rel)
    if base.has("base"):
        raise root.fail("base", "a sim config that has no base of its own", rel)
    return Section({**base.data, **{k: v for k, v in root.data.items() if k != "base"}}, root.path)


def load_sim_settings(path: str | Path | None = None, profile: str | None = None) -> SimSettings:
    """Read config/sim.yaml (or ``path``, a preset's ``base`` applied). ``profile`` names a
    section (e.g. "soak") whose ``timing`` and ``faults`` override the top-level ones key by key.
    Raises ConfigError."""
    root = load_sim_yaml(path)
    firmware = root.string("firmware", "a firmware id without spaces")
    if not firmware or any(not 0x21 <= ord(c) <= 0x7E or c == "*" for c in firmware):
        raise root.fail("firmware", "a firmware id of printable characters without spaces or '*'", firmware)
    sigmas = _params(root.section("true_sigmas"), "a standard deviation >= 0", nonneg=True)
    timing = parse_timing(root.section("timing"))
    faults = parse_faults(root.section("faults"))
    if profile is not None:
        prof = root.section(profile)
        if prof.has("timing"):
            timing = parse_timing(prof.section("timing"), timing)
        if prof.has("faults"):
            faults = parse_faults(prof.section("faults"), faults)
    return SimSettings(
        firmware=firmware,
        seed=root.integer("seed", "an integer >= 0", lo=0),
        world=root.string("world", "one of " + ", ".join(WORLDS), choices=WORLDS),
        error=TrueError(ErrorModel(*(getattr(sigmas, k) for k in SHOT_FIELDS)),
                        _params(root.section("biases"), "a bias")),
        timing=timing, faults=faults, path=root.path)


@dataclass(frozen=True)
class SoakSettings:
    """The ``soak`` profile of sim.yaml over robot.yaml: the simulated robot with the profile's
    timing and faults, the limits it declares, the driver settings with the profile's
    ``driver`` keys (its port is replaced by the simulated robot's link), and the share of soak
    shots deliberately outside the limits."""
    sim: SimSettings
    limits: RobotLimits
    driver: DriverSettings
    invalid_rate: float


def load_soak_settings(sim_path: str | Path | None = None,
                       robot_path: str | Path | None = None) -> SoakSettings:
    """The ``soak`` profile of sim.yaml over robot.yaml. Raises ConfigError."""
    sim = load_sim_settings(sim_path, profile="soak")
    soak = load_sim_yaml(sim.path).section("soak")
    robot = load_robot_settings(robot_path)
    driver = parse_driver_settings(soak.section("driver"), robot.driver) if soak.has("driver") else robot.driver
    rate = soak.number("invalid_rate", "a probability between 0 and 1", lo=0.0, hi=1.0, default=0.0)
    return SoakSettings(sim, robot.limits, driver, rate)
