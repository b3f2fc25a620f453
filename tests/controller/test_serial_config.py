"""config/robot.yaml and config/sim.yaml: the defaults load, a bad value names file, key and form."""
from __future__ import annotations

from pathlib import Path

import numpy as np
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
    assert (lim.V.lo, lim.V.hi) == (0.1, 4.5)
    assert load_robot_settings().driver.port.startswith("/dev/")
    sim = load_sim_settings()
    assert sim.faults.drop == 0.0 and sim.timing.tmax == max(1.5, 0.6 + 0.3 + 0.12)  # homing is the longest motion
    soak = load_soak_settings()
    assert soak.sim.timing.move_s == 0.004 and soak.sim.faults.reset > 0      # the profile's values
    assert soak.sim.faults.disconnect_when == "any"                            # inherited
    assert soak.driver.reply_timeout_s == 0.06 and soak.driver.baudrate == 115200
    assert soak.sim.error == sim.error                                         # true error: one place


def test_the_sim_robot_reaches_every_cue_ball_left_at_rest_in_a_pocket_mouth():
    """A slow roll into a side pocket can stop in the mouth with the centre past the cushion nose
    (a resumed seed-4 game left the cue ball at x = 1125.5 mm and paused: outside the old
    workspace). Every rest position the engine gives must be inside the declared workspace."""
    from config.table import load_table_settings
    from planner.physics.engine import Simulator
    from planner.shot import ShotParams
    from planner.state import TableState

    ts = load_table_settings()
    t, lim = ts.table, load_robot_settings().limits
    sim = Simulator(t, ts.physics)
    past_nose = 0
    for side, phi in ((t.width - 0.3, 0.0), (0.3, 180.0)):
        for dy in np.linspace(-0.05, 0.05, 11):
            for V in np.linspace(0.2, 1.2, 21):
                r = sim.simulate(TableState(np.array([0]), np.array([[side, t.length / 2 + dy]])),
                                 ShotParams(phi, 0.0, V, 0.0, 0.0))
                if r.pocket[0] >= 0:
                    continue
                x, y = r.final_rvw[0, 0, :2]
                past_nose += not 0.0 <= x <= t.width
                assert lim.x.lo <= x <= lim.x.hi and lim.y.lo <= y <= lim.y.hi, (x, y)
    assert past_nose >= 4     # the case this guards is really produced


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
