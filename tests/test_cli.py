"""The command line as a user runs it: real processes."""
import subprocess
import sys

import numpy as np
import pytest

from planner.shot import E_HIGH, ShotParams


def cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True,
                          text=True, timeout=timeout)


def test_help_lists_the_subcommands():
    out = cli("--help")
    assert out.returncode == 0
    for name in ("run", "physics", "bench"):
        assert name in out.stdout


def test_main_job_plays_a_whole_game_with_no_flags():
    out = cli("run", timeout=900)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "mc (player 0) breaks" in lines[0]
    assert ": break" in lines[1]
    # the rack ends with a winner or, at worst, the shot cap; each player's statistics follow
    assert any(l.startswith(("winner:", "game abandoned")) for l in lines)
    assert sum("straight-in" in l for l in lines) == 2


def test_perturbed_theta_never_below_horizontal():
    rng = np.random.default_rng(0)
    rows = E_HIGH.perturb(ShotParams(90.0, 0.0, 2.0), rng, 2000)
    assert (rows[:, 1] >= 0).all()
    # the other parameters keep their zero-mean noise
    assert abs(rows[:, 0].mean() - 90.0) < 4 * E_HIGH.phi / np.sqrt(2000)
    assert rows[:, 0].std() == pytest.approx(E_HIGH.phi, rel=0.1)
