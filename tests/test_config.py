"""A malformed table config names the file, the key and the expected form."""
from pathlib import Path

import pytest
import yaml

from planner.config import ConfigError, default_path
from planner.table_config import load_table_config


def write_variant(tmp_path: Path, edit) -> Path:
    data = yaml.safe_load(default_path("table.yaml").read_text())
    edit(data)
    p = tmp_path / "table.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


def test_default_table_is_an_8ft_table():
    cfg = load_table_config()
    assert cfg.table.length == pytest.approx(2.2352)
    assert cfg.table.width == pytest.approx(1.1176)
    assert cfg.physics.R == pytest.approx(0.028575)
    assert len(cfg.table.pocket_ids) == 6


def test_negative_pocket_radius(tmp_path):
    p = write_variant(tmp_path, lambda d: d["table"]["corner_pocket"].__setitem__("radius", -0.06))
    with pytest.raises(ConfigError) as e:
        load_table_config(p)
    msg = str(e.value)
    assert str(p) in msg and "table.corner_pocket.radius" in msg and "positive number of metres" in msg
    assert "-0.06" in msg


def test_missing_key(tmp_path):
    p = write_variant(tmp_path, lambda d: d["ball"].pop("mass"))
    with pytest.raises(ConfigError, match=r"ball.mass is missing; expected a positive number of kilograms"):
        load_table_config(p)


def test_wrong_type(tmp_path):
    p = write_variant(tmp_path, lambda d: d["cloth"].__setitem__("sliding_friction", "high"))
    with pytest.raises(ConfigError, match=r"cloth.sliding_friction must be a positive number, got 'high'"):
        load_table_config(p)


def test_not_yaml(tmp_path):
    p = tmp_path / "table.yaml"
    p.write_text("table: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_table_config(p)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_table_config(tmp_path / "nope.yaml")
