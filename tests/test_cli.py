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


def test_main_job_runs_with_no_flags():
    out = cli("run")
    assert out.returncode == 0, out.stderr
    assert "break:" in out.stdout


def test_perturbed_theta_never_below_horizontal():
    rng = np.random.default_rng(0)
    rows = E_HIGH.perturb(ShotParams(90.0, 0.0, 2.0), rng, 2000)
    assert (rows[:, 1] >= 0).all()
    # the other parameters keep their zero-mean noise
    assert abs(rows[:, 0].mean() - 90.0) < 4 * E_HIGH.phi / np.sqrt(2000)
    assert rows[:, 0].std() == pytest.approx(E_HIGH.phi, rel=0.1)
