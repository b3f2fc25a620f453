"""Telling the balls apart on rendered frames."""
from __future__ import annotations

import numpy as np

from planner.state import TableState
from vision.identify import ball_features, colour_names


def test_sweep_identity_at_least_99_percent(sweep):
    _, _, score = sweep
    assert score.found > 200
    assert score.identity >= 0.99


def test_uncertain_numbers_are_labelled_with_their_class(sweep):
    _, results, _ = sweep
    for _, obs in results:
        for o in obs:
            if o.label in ("solid", "stripe"):
                assert o.confidence < 0.6
            elif o.ball_id is not None:
                assert o.label == str(o.ball_id)


def test_colour_names_for_any_balls(synthetic_camera):
    sc, _ = synthetic_camera
    state = TableState.from_dict({0: (0.3, 0.5), 8: (0.6, 0.5), 3: (0.9, 0.5), 2: (0.3, 1.2), 1: (0.6, 1.2),
                                  6: (0.9, 1.2)})
    frame = sc.render(state, np.random.default_rng(7))
    px = frame.truth.centre_px
    r = np.full(len(px), 13.0)
    names, conf = colour_names(ball_features(frame.image, px, r, np.full(len(px), 120.0)))
    assert names == ["white", "yellow", "blue", "red", "green", "black"]   # ids in order 0, 1, 2, 3, 6, 8
