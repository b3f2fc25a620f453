"""The config package: a malformed file names the file, the key and the expected form; the
files of one directory are read together and checked against each other; the default directory
is the installed package's own."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from config.reader import CONFIG_DIR_ENV, ConfigError, config_dir, default_path
from config.settings import load_settings
from config.table import load_table_settings

REPO = Path(__file__).resolve().parents[1]


def write_variant(tmp_path: Path, edit) -> Path:
    data = yaml.safe_load(default_path("table.yaml").read_text())
    edit(data)
    p = tmp_path / "table.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


def test_default_table_is_an_8ft_table():
    cfg = load_table_settings()
    assert cfg.table.length == pytest.approx(2.2352)
    assert cfg.table.width == pytest.approx(1.1176)
    assert cfg.physics.R == pytest.approx(0.028575)
    assert len(cfg.table.pocket_ids) == 6


def test_negative_pocket_radius(tmp_path):
    p = write_variant(tmp_path, lambda d: d["table"]["corner_pocket"].__setitem__("radius", -0.06))
    with pytest.raises(ConfigError) as e:
        load_table_settings(p)
    msg = str(e.value)
    assert str(p) in msg and "table.corner_pocket.radius" in msg and "positive number of metres" in msg
    assert "-0.06" in msg


def test_missing_key(tmp_path):
    p = write_variant(tmp_path, lambda d: d["ball"].pop("mass"))
    with pytest.raises(ConfigError, match=r"ball.mass is missing; expected a positive number of kilograms"):
        load_table_settings(p)


def test_wrong_type(tmp_path):
    p = write_variant(tmp_path, lambda d: d["cloth"].__setitem__("sliding_friction", "high"))
    with pytest.raises(ConfigError, match=r"cloth.sliding_friction must be a positive number, got 'high'"):
        load_table_settings(p)


def test_not_yaml(tmp_path):
    p = tmp_path / "table.yaml"
    p.write_text("table: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_table_settings(p)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_table_settings(tmp_path / "nope.yaml")


def copy_config_edits(tmp_path: Path, edits: dict) -> Path:
    """A copy of the default configuration directory with each file ``name`` of ``edits``
    edited by ``edits[name](data)``."""
    d = tmp_path / "cfg"
    shutil.copytree(config_dir(), d, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    for name, edit in edits.items():
        data = yaml.safe_load((d / name).read_text())
        edit(data)
        (d / name).write_text(yaml.safe_dump(data))
    return d


def copy_config(tmp_path: Path, name: str, edit) -> Path:
    """A copy of the default configuration directory with ``name`` edited by ``edit(data)``."""
    return copy_config_edits(tmp_path, {name: edit})


def test_load_settings_reads_every_file_of_the_default_directory():
    s = load_settings()
    assert Path(s.table.path) == default_path("table.yaml")
    assert Path(s.camera.path) == default_path("camera.yaml")
    assert s.robot.limits.theta.hi >= s.planner.movegen.theta_max
    assert s.sim.firmware and s.camera.camera.size == (1280, 720)


def test_a_conflict_between_files_names_both(tmp_path):
    d = copy_config(tmp_path, "planner.yaml", lambda data: data["movegen"].__setitem__("theta_max", 70.0))
    with pytest.raises(ConfigError) as e:
        load_settings(d)
    msg = str(e.value)
    assert str(d / "planner.yaml") in msg and str(d / "robot.yaml") in msg and "theta" in msg


@pytest.mark.parametrize("edits, keys", [
    ({"planner.yaml": lambda d: d["robot"].__setitem__("v_break", 7.5)}, ["robot.v_break (7.5 m/s)"]),
    ({"planner.yaml": lambda d: d["movegen"]["fine_spins"].append([0.0, -0.7])}, ["movegen.fine_spins [0, -0.7]"]),
    ({"robot.yaml": lambda d: d["limits"].__setitem__("V", [0.1, 3.0])}, ["robot.v_max (4.5 m/s)", "robot.v_break"]),
    ({"robot.yaml": lambda d: d["limits"].__setitem__("a", [-0.01, 0.01]),
      "planner.yaml": lambda d: d["movegen"]["spins"].append([0.4, 0.0])}, ["movegen.spins [0.4, 0]", "tip offset a"]),
], ids=["break", "fine-spin", "slow-robot", "side-spin"])
def test_planner_speeds_and_spins_beyond_the_robots_limits_name_both_files(tmp_path, edits, keys):
    """The planner plans within the limits robot.yaml declares (what the simulated robot sends
    in HELLO): a faster or more heavily spun planner.yaml is refused at start."""
    d = copy_config_edits(tmp_path, edits)
    with pytest.raises(ConfigError) as e:
        load_settings(d)
    msg = str(e.value)
    assert str(d / "planner.yaml") in msg and str(d / "robot.yaml") in msg
    for key in keys:
        assert key in msg


def test_a_missing_directory_is_named(tmp_path):
    with pytest.raises(ConfigError, match="configuration directory does not exist"):
        load_settings(tmp_path / "nowhere")


def test_the_default_directory_is_the_installed_packages_own(tmp_path):
    """Installed without the checkout (the config package copied elsewhere, as a wheel puts it
    into site-packages), the default files are the copy's package data."""
    site = tmp_path / "site"
    shutil.copytree(REPO / "config", site / "config", ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != CONFIG_DIR_ENV}
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(REPO)])
    code = "from config.settings import load_settings; print(load_settings().planner.path)"
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert Path(out) == site / "config" / "planner.yaml"
