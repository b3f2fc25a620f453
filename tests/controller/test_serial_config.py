"""config/robot.yaml and config/sim.yaml: the defaults load, a bad value names file, key and form."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from config.reader import ConfigError, default_path
from config.robot import load_robot_settings
from config.sim import load_sim_settings, load_soak_settings


def _variant(tmp_path: Path, name: str, edit) -> Path:
    data = yaml.safe_load(default_path(name).read_text())
    edit(data)
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data))
    return p


def test_the_defaults_load():
    lim = load_robot_settings().limits
    assert (lim.V.lo, lim.V.hi) == (0.1, 4.5) and lim.y.hi == pytest.approx(2.2352)
    assert load_robot_settings().driver.port.startswith("/dev/")
    sim = load_sim_settings()
    assert sim.faults.drop == 0.0 and sim.timing.tmax == max(1.5, 0.6 + 0.3 + 0.12)  # homing is the longest motion
    soak = load_soak_settings()
    assert soak.sim.timing.move_s == 0.004 and soak.sim.faults.reset > 0      # the profile's values
    assert soak.sim.faults.disconnect_when == "any"                            # inherited
    assert soak.driver.reply_timeout_s == 0.06 and soak.driver.baudrate == 115200
    assert soak.sim.error == sim.error                                         # true error: one place


@pytest.mark.parametrize("name, edit, message", [
    ("robot.yaml", lambda d: d["limits"].__setitem__("V", [4.5, 0.1]),
     "limits.V must be [low, high] in m/s, low <= high, got [4.5, 0.1]"),
    ("robot.yaml", lambda d: d["workspace"].pop("y"), "workspace.y is missing; expected [low, high] in metres"),
    ("robot.yaml", lambda d: d["driver"].__setitem__("retries", -1), "driver.retries must be an integer >= 0"),
    ("sim.yaml", lambda d: d["true_sigmas"].__setitem__("phi", "big"),
     "true_sigmas.phi must be a standard deviation >= 0 in degrees, got 'big'"),
    ("sim.yaml", lambda d: d["faults"].__setitem__("drop", 1.5), "faults.drop must be a probability between 0 and 1"),
    ("sim.yaml", lambda d: d["faults"].__setitem__("reset_when", "later"),
     "faults.reset_when must be one of any, before_strike, after_strike"),
    ("sim.yaml", lambda d: d.__setitem__("firmware", "two words"), "firmware must be a firmware id"),
    ("sim.yaml", lambda d: d["soak"]["timing"].__setitem__("move_s", -1), "soak.timing.move_s must be a number of seconds >= 0"),
])
def test_a_bad_value_names_the_file_and_the_key(tmp_path, name, edit, message):
    p = _variant(tmp_path, name, edit)
    load = {"robot.yaml": lambda: load_robot_settings(p),
            "sim.yaml": lambda: load_soak_settings(p)}[name]
    with pytest.raises(ConfigError) as e:
        load()
    assert str(e.value).startswith(f"{p}: ") and message in str(e.value)
