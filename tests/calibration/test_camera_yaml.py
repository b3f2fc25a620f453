"""Writing calibration results into camera.yaml: measured sections replaced, the rest kept with its
comments, written atomically, and a file that is not a YAML mapping left alone."""
from __future__ import annotations

import os

import pytest
import yaml

from calibration.yaml_update import replace_sections, update_yaml_sections
from config.reader import ConfigError

TEXT = """# header comment
source: 0          # device
camera:
  fx: 1.0          # old
  fy: 2.0

# the pose, with a comment
pose:
  rvec: [1, 2, 3]  # keep me
registration:
  dictionary: DICT_4X4_50
"""


def test_only_the_named_sections_change():
    new = replace_sections(TEXT, {"camera": {"fx": 5.0, "distortion": [0.1, 0.2]}})
    data = yaml.safe_load(new)
    assert data == {"source": 0, "camera": {"fx": 5.0, "distortion": [0.1, 0.2]}, "pose": {"rvec": [1, 2, 3]},
                    "registration": {"dictionary": "DICT_4X4_50"}}
    for kept in ("# header comment", "# device", "# the pose, with a comment", "# keep me"):
        assert kept in new
    assert "# old" not in new


def test_a_missing_section_is_appended():
    new = replace_sections(TEXT, {"pose": {"rvec": [0.5, 0, 0]}, "extra": {"a": 1}})
    data = yaml.safe_load(new)
    assert data["pose"] == {"rvec": [0.5, 0, 0]} and data["extra"] == {"a": 1} and data["camera"]["fx"] == 1.0
    assert "# keep me" not in new and "# the pose, with a comment" in new


def test_update_writes_the_file_and_creates_a_new_one(tmp_path):
    p = tmp_path / "camera.yaml"
    p.write_text(TEXT)
    update_yaml_sections(p, {"camera": {"fx": 7.5}})
    assert yaml.safe_load(p.read_text())["camera"] == {"fx": 7.5} and "# keep me" in p.read_text()
    q = tmp_path / "new.yaml"
    update_yaml_sections(q, {"pose": {"rvec": [0.0, 0.0, 1.0]}})
    assert yaml.safe_load(q.read_text()) == {"pose": {"rvec": [0.0, 0.0, 1.0]}}
    assert [f for f in os.listdir(tmp_path) if f.startswith(".")] == []      # no temporary left


def test_a_layout_the_text_edit_cannot_follow_is_rewritten_whole(tmp_path):
    p = tmp_path / "flow.yaml"
    p.write_text("{camera: {fx: 1}, pose: {rvec: [1, 2, 3]}}\n")
    update_yaml_sections(p, {"camera": {"fx": 2}})
    assert yaml.safe_load(p.read_text()) == {"camera": {"fx": 2}, "pose": {"rvec": [1, 2, 3]}}


@pytest.mark.parametrize("text, says", [("- a\n- b\n", "top level must be a mapping"), ("a: [1\n", "not valid YAML")])
def test_a_file_that_is_not_a_mapping_is_left_untouched(tmp_path, text, says):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError, match=says):
        update_yaml_sections(p, {"camera": {"fx": 2}})
    assert p.read_text() == text
