"""The pipeline's outputs for the planner and the controller."""
from __future__ import annotations

import numpy as np

from planner.state import TableState


def test_table_state_for_the_planner(synthetic_camera, vision):
    sc, _ = synthetic_camera
    state = TableState.from_dict({0: (0.3, 0.4), 8: (0.56, 1.5), 3: (0.9, 2.0), 12: (0.1, 1.0)})
    got = vision.table_state(sc.render(state, np.random.default_rng(21)).image)
    assert sorted(got.ids.tolist()) == [0, 3, 8, 12]
    for i in state.ids:
        assert np.linalg.norm(got.position(i) - state.position(i)) < 0.001
