"""Fixtures of the calibration tests."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def config_dir(tmp_path) -> Path:
    """A copy of the repo's config/*.yaml, for a command to read and write."""
    d = tmp_path / "config"
    d.mkdir()
    for f in (REPO / "config").glob("*.yaml"):
        shutil.copy(f, d / f.name)
    return d
