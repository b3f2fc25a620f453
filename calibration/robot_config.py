"""Write a calibration into robot.yaml: its ``error_sigmas``, ``biases`` and ``calibrated``
sections, atomically, leaving every other line of the file (comments included) as it was.

The three sections are top-level blocks, replaced where they are or appended at the end
(``calibration.yaml_update.replace_sections``), each with a comment saying where it came from
and the units of its values. The result is parsed with
``config.robot.parse_robot_settings`` before it replaces the file, so a file this writer cannot
edit cleanly is left untouched (ConfigError).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import yaml

from calibration.yaml_update import replace_sections
from config.atomic import write_atomic
from config.reader import ConfigError, Section
from config.robot import UNITS, RobotSettings, parse_robot_settings
from planner.shot import SHOT_FIELDS, ErrorModel, ShotParams

HEADER = "measured by `cuerobot calibrate robot`"


def yaml_number(v: float) -> str:
    """``v`` as the shortest positional decimal that reads back as the same float (PyYAML, YAML
    1.1, reads an exponent without a decimal point, e.g. ``8e-05``, as a string)."""
    return np.format_float_positional(float(v), trim="0")


def _block(name: str, values: dict[str, float], comment: str) -> str:
    lines = [f"{name}:                 # {comment}"]
    for k, v in values.items():
        lines.append(f"  {k}: {yaml_number(v)}" + (f"    # {UNITS[k]}" if k in UNITS else ""))
    return "\n".join(lines) + "\n"


def calibration_text(old_text: str, sigmas: ErrorModel, biases: ShotParams, date: str, shots: int) -> str:
    """``old_text`` (robot.yaml) with the three sections replaced by these values (appended at
    the end where absent)."""
    blocks = {
        "error_sigmas": _block("error_sigmas", {k: float(getattr(sigmas, k)) for k in SHOT_FIELDS},
                               f"{HEADER}: one standard deviation per shot parameter (the planner samples with them)"),
        "biases": _block("biases", {k: float(getattr(biases, k)) for k in SHOT_FIELDS},
                         f"{HEADER}: mean executed - sent (the driver sends commanded - biases)"),
        "calibrated": f"calibrated:                 # {HEADER}\n  date: '{date}'\n  shots: {int(shots)}\n",
    }
    return replace_sections(old_text if old_text.endswith("\n") or not old_text else old_text + "\n", blocks,
                            render=lambda key, block: block)


def write_calibration(path: str | Path, sigmas: ErrorModel, biases: ShotParams, date: str, shots: int) -> RobotSettings:
    """Replace the three sections of robot.yaml at ``path`` atomically (``config.atomic``).
    Returns the settings as read back. Raises ConfigError if the file is unreadable or the edited
    text does not parse (the file is then unchanged)."""
    path = Path(path)
    try:
        old = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the robot configuration to update it ({e.strerror})") from None
    text = calibration_text(old, sigmas, biases, date, shots)
    data = yaml.safe_load(text)
    settings = parse_robot_settings(Section(data, str(path)))
    write_atomic(path, text)
    return settings
