"""Bad input is refused before simulation, naming the ball or parameter."""
import math

import numpy as np
import pytest

from planner.physics.engine import PhysicsInputError
from planner.shot import ShotParams
from planner.state import TableState

OK = ShotParams(90.0, 0.0, 2.0)


def test_overlapping_balls_named(sim):
    st = TableState.from_dict({0: (0.5, 0.5), 3: (0.5, 0.5 + 0.05)})
    with pytest.raises(PhysicsInputError, match=r"balls 0 and 3 overlap"):
        sim.simulate(st, OK)


def test_touching_balls_are_fine(sim):
    R = sim.params.R
    st = TableState.from_dict({0: (0.5, 0.5), 3: (0.5, 0.5 + 2 * R)})
    res = sim.simulate(st, OK)
    assert res.first_hit == 3


def test_ball_outside_cushions_named(sim):
    st = TableState.from_dict({0: (0.5, 0.5), 7: (0.01, 0.9)})
    with pytest.raises(PhysicsInputError, match=r"ball 7: centre .* outside the cushions"):
        sim.simulate(st, OK)


def test_nan_position_named(sim):
    st = TableState.from_dict({0: (0.5, 0.5), 2: (math.nan, 0.9)})
    with pytest.raises(PhysicsInputError, match=r"ball 2: position .* not finite"):
        sim.simulate(st, OK)


@pytest.mark.parametrize("shot,word", [
    (ShotParams(90, 0, -1.0), "V must be a positive"),
    (ShotParams(90, 0, 50.0), "V exceeds"),
    (ShotParams(90, 95, 2.0), "theta must be"),
    (ShotParams(math.inf, 0, 2.0), "phi is not finite"),
    (ShotParams(90, 0, 2.0, a=0.03, b=0.0), "miscue"),
])
def test_bad_shot_parameters_named(sim, shot, word):
    st = TableState.from_dict({0: (0.5, 0.5)})
    with pytest.raises(PhysicsInputError, match=word):
        sim.simulate(st, shot)


def test_missing_cue_ball(sim):
    with pytest.raises(PhysicsInputError, match="struck ball 0 is not on the table"):
        sim.simulate(TableState.from_dict({1: (0.5, 0.5)}), OK)


def test_batch_reports_the_bad_row(sim):
    shots = np.array([[90, 0, 2.0, 0, 0], [90, 0, 2.0, 0, 0], [90, 0, 0.0, 0, 0]])
    with pytest.raises(PhysicsInputError, match="shot 2"):
        sim.simulate_batch(TableState.from_dict({0: (0.5, 0.5)}), shots)
