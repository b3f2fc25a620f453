"""Planner fixtures: a tiny shot-difficulty table (built once per session, seconds) and planners
on it with small search settings."""
from __future__ import annotations

import dataclasses

import pytest

from planner.difficulty import GridSpec, build_table
from planner.planner_config import load_planner_config
from planner.shot import E_HIGH

TINY = GridSpec(resolution=3, samples=8, speed_increment=0.25)


@pytest.fixture(scope="session")
def tiny_grid():
    return TINY


@pytest.fixture(scope="session")
def tiny_table(table_config):
    return build_table(table_config.table, table_config.physics, E_HIGH, TINY, seed=1)


@pytest.fixture(scope="session")
def small_pcfg():
    p = load_planner_config()
    return dataclasses.replace(p, grid=TINY, search=dataclasses.replace(
        p.search, samples=6, samples_deep=3, breadth=3, breadth_deep=1, time_budget=3.0,
        safety_candidates=6, in_hand_grid=3))


@pytest.fixture(scope="session")
def make(table_config, small_pcfg, tiny_table):
    from planner.planners import make_planner

    def _make(name, seed=0):
        return make_planner(name, "high", seed, tcfg=table_config, pcfg=small_pcfg, difficulty=tiny_table)
    return _make
