"""``load_settings()``: every configuration file of one directory, read and checked against each
other."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from config.camera import CameraSettings, load_camera_settings
from config.planner import PlannerSettings, check_planner_within_limits, load_planner_settings
from config.reader import ConfigError, config_dir
from config.robot import RobotSettings, load_robot_settings
from config.service import ServiceSettings, load_service_settings
from config.sim import SimSettings, load_sim_settings
from config.table import TableSettings, load_table_settings
from planner.shot import ShotLimits


@dataclass(frozen=True)
class Settings:
    """The six files of one configuration directory."""
    table: TableSettings
    planner: PlannerSettings
    robot: RobotSettings
    sim: SimSettings
    camera: CameraSettings
    service: ServiceSettings


def check_elevations(planner: PlannerSettings, robot: RobotSettings) -> None:
    """The planner's elevations (movegen.theta_min .. theta_max) must lie inside the robot's
    declared theta range. Raises ConfigError naming both files."""
    mg, lim = planner.movegen, robot.limits.theta
    if not lim.lo <= mg.theta_min <= mg.theta_max <= lim.hi:
        raise ConfigError(f"{planner.path}: movegen.theta_min .. theta_max ({mg.theta_min} .. {mg.theta_max} deg) "
                          f"must lie inside the robot's theta limits in {robot.path} "
                          f"({lim.lo} .. {lim.hi} deg)")


def robot_shot_limits(robot: RobotSettings) -> ShotLimits:
    """The limits robot.yaml declares (what the simulated robot sends in its HELLO), as the
    planner's ShotLimits (theta deg, V m/s, a and b m)."""
    lim = robot.limits
    return ShotLimits.from_ranges(lim.theta, lim.V, lim.a, lim.b)


def check_planner_fits_robot(planner: PlannerSettings, robot: RobotSettings, R: float) -> None:
    """The planner's speeds, spins and elevations (config/planner.yaml) must lie inside the
    robot's declared limits (robot.yaml; R [m] the ball radius of table.yaml, for the spins).
    Raises ConfigError naming both files and every offending key."""
    check_elevations(planner, robot)
    check_planner_within_limits(planner, robot_shot_limits(robot), str(robot.path), R)


def load_settings(directory: str | Path | None = None) -> Settings:
    """Read table.yaml, planner.yaml, robot.yaml, sim.yaml, camera.yaml and service.yaml from ``directory``
    (default ``config.reader.config_dir()``) and check them against each other. Raises
    ConfigError naming the file and key (both files for a conflict between two)."""
    d = Path(directory) if directory is not None else config_dir()
    if not d.is_dir():
        raise ConfigError(f"{d}: the configuration directory does not exist")
    table = load_table_settings(d / "table.yaml")
    planner = load_planner_settings(d / "planner.yaml")
    robot = load_robot_settings(d / "robot.yaml")
    check_planner_fits_robot(planner, robot, table.physics.R)
    return Settings(table, planner, robot, load_sim_settings(d / "sim.yaml"),
                    load_camera_settings(table.table, d / "camera.yaml"), load_service_settings(d / "service.yaml"))
