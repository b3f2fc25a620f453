"""Planner fixtures: a tiny shot-difficulty grid (built once per session, seconds) and planners
on it with small search settings."""
from __future__ import annotations

import dataclasses

import pytest

from config.planner import load_planner_settings
from planner.difficulty import GridSpec, build_difficulty
from planner.shot import E_HIGH

TINY = GridSpec(resolution=3, samples=8, speed_increment=0.25)


@pytest.fixture(scope="session")
def tiny_grid():
    return TINY


@pytest.fixture(scope="session")
def tiny_difficulty(table_config):
    return build_difficulty(table_config.table, table_config.physics, E_HIGH, TINY, seed=1)


@pytest.fixture(scope="session")
def coarse_movegen():
    """config/planner.yaml's move generation on the coarse speed grid (0.25, 0.8 m/s above the
    minimum) with no refinement grid."""
    return dataclasses.replace(load_planner_settings().movegen, speed_increments=(0.25, 0.8),
                               fine_speed_increments=(), fine_spins=())


@pytest.fixture(scope="session")
def small_pcfg():
    p = load_planner_settings()
    return dataclasses.replace(p, grid=TINY, search=dataclasses.replace(
        p.search, samples=6, samples_deep=3, breadth=3, breadth_deep=1, wall_cap_s=3.0,
        safety_candidates=6, in_hand_grid=3))


@pytest.fixture(scope="session")
def make(table_config, small_pcfg, tiny_difficulty):
    from planner.decision import make_planner

    def _make(name, seed=0):
        return make_planner(name, "high", seed, tcfg=table_config, pcfg=small_pcfg, difficulty=tiny_difficulty)
    return _make
