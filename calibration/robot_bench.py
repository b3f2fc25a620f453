"""The baseline of ``cuerobot bench calibration``'s fit time: the plainest least-squares fit of
the same observed shots (scipy's own 2-point finite-difference Jacobian, all six unknowns free
from the commanded shot over every frame at once: no continuation windows, no stages)."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares

from calibration.robot import RobotCalibration
from calibration.robot_fit import LOWER, UPPER, TrajectoryModel, strike_time_guess
from config.table import load_table_settings
from planner.physics.engine import Simulator

BASELINE_SHOTS = 10     # observed shots the baseline fits


def naive_fit_time(cal: RobotCalibration, config_dir: Path) -> float:
    """Mean wall time [s] of the baseline fit over the first BASELINE_SHOTS observed shots of ``cal``."""
    tc = load_table_settings(config_dir / "table.yaml")
    sim = Simulator(tc.table, tc.physics)
    times = []
    for r in [r for r in cal.shots if r.observed is not None][:BASELINE_SHOTS]:
        obs = r.observed
        x0 = np.append(obs.commanded.as_array(), strike_time_guess(obs.times, obs.pos[:, 0]))
        model = TrajectoryModel(obs, sim, x0, np.ones(6, bool))
        t0 = time.perf_counter()
        least_squares(model.residuals, np.clip(x0, LOWER, UPPER), bounds=(LOWER, UPPER), jac="2-point")
        times.append(time.perf_counter() - t0)
    return float(np.mean(times)) if times else float("nan")
