"""``service.yaml``: the controller service's backend, players, camera timing, dashboard and run
directory. Units: seconds, metres, frames per second."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from config.reader import Section, default_path, load_yaml

BACKENDS = ("sim", "serial")
PLANNERS = ("greedy", "prob", "mc")
NOISE_PRESETS = ("high", "low", "none")


@dataclass(frozen=True)
class Players:
    """robot: the robot's planner; opponent, opponent_noise: the simulated opponent's planner and
    error-model preset (sim backend)."""
    robot: str
    opponent: str
    opponent_noise: str


@dataclass(frozen=True)
class CameraTiming:
    """fps: frames per second through a shot; rest_frames: consecutive still frames that make the
    table at rest; rest_tolerance [m]; recaptures: re-captures of an inconsistent table before
    pausing; stale_s [s]: a frame this old, or none for this long, is a camera fault; max_shot_s
    [s]: a shot still moving after this is a camera fault."""
    fps: float
    rest_frames: int
    rest_tolerance: float
    recaptures: int
    stale_s: float
    max_shot_s: float


@dataclass(frozen=True)
class ApiSettings:
    """The dashboard's address and the bearer token of its control endpoints ("" = from the
    environment, else generated at start)."""
    host: str
    port: int
    token: str


@dataclass(frozen=True)
class ServiceSettings:
    """service.yaml, read from ``path``."""
    backend: str
    players: Players
    camera: CameraTiming
    ball_in_hand_tolerance: float
    api: ApiSettings
    runs_dir: str
    record_shot_frames: bool
    path: str


def parse_service_settings(root: Section) -> ServiceSettings:
    """ServiceSettings from a loaded service.yaml; raises ConfigError naming file and key."""
    pl, cam, api = root.section("players"), root.section("camera"), root.section("api")
    planner = "one of " + ", ".join(PLANNERS)
    secs = "a positive number of seconds"
    return ServiceSettings(
        backend=root.string("backend", "one of " + ", ".join(BACKENDS), choices=BACKENDS),
        players=Players(pl.string("robot", planner, choices=PLANNERS),
                        pl.string("opponent", planner, choices=PLANNERS),
                        pl.string("opponent_noise", "one of " + ", ".join(NOISE_PRESETS), choices=NOISE_PRESETS)),
        camera=CameraTiming(
            fps=cam.number("fps", "a positive number of frames per second", positive=True),
            rest_frames=cam.integer("rest_frames", "an integer >= 2", lo=2),
            rest_tolerance=cam.number("rest_tolerance", "a positive number of metres", positive=True),
            recaptures=cam.integer("recaptures", "an integer >= 0", lo=0),
            stale_s=cam.number("stale_s", secs, positive=True),
            max_shot_s=cam.number("max_shot_s", secs, positive=True)),
        ball_in_hand_tolerance=root.number("ball_in_hand_tolerance", "a positive number of metres", positive=True),
        api=ApiSettings(api.string("host", "a host name or IP address"),
                        api.integer("port", "a TCP port (1..65535)", lo=1, hi=65535),
                        api.string("token", "a string (\"\" = from CUEROBOT_API_TOKEN or generated)")),
        runs_dir=root.string("runs_dir", "a directory path"),
        record_shot_frames=root.boolean("record_shot_frames"),
        path=root.path)


def load_service_settings(path: str | Path | None = None) -> ServiceSettings:
    """Read and validate service.yaml (default ``config/service.yaml``). Raises ConfigError."""
    return parse_service_settings(load_yaml(path or default_path("service.yaml")))
