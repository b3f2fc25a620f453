"""Shared fixtures: the repo's default config and the ../shared reference data."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

# Property tests draw the same examples on every run, so CI results are reproducible.
settings.register_profile("repro", derandomize=True, deadline=None)
settings.load_profile("repro")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"reference data directory {SHARED} is absent (it sits beside the clone in CI)")
    return SHARED


@pytest.fixture(scope="session")
def table_config():
    from config.table import load_table_settings
    return load_table_settings()


@pytest.fixture(scope="session")
def simulator(table_config):
    from planner.physics.engine import Simulator
    return Simulator(table_config.table, table_config.physics)
