"""Bad input is refused before simulation, naming the ball or parameter."""
import json
import math
from pathlib import Path

import numpy as np
import pytest

from planner.physics.engine import PhysicsInputError
from planner.shot import ShotParams
from planner.state import TableState

OK = ShotParams(90.0, 0.0, 2.0)


def test_overlapping_balls_named(simulator):
    st = TableState.from_dict({0: (0.5, 0.5), 3: (0.5, 0.5 + 0.05)})
    with pytest.raises(PhysicsInputError, match=r"balls 0 and 3 overlap"):
        simulator.simulate(st, OK)


def test_touching_balls_are_fine(simulator):
    R = simulator.params.R
    st = TableState.from_dict({0: (0.5, 0.5), 3: (0.5, 0.5 + 2 * R)})
    res = simulator.simulate(st, OK)
    assert res.first_hit == 3


def test_micron_overlaps_from_resolved_contacts_are_taken_as_contact(simulator):
    """Rest positions can sit a few um inside touching (contacts are spaced 1 um after rewinds
    of up to 5 um): 0.5 um is accepted and plays as the touching pair does; 50 um is refused."""
    R = simulator.params.R
    soft = ShotParams(90.0, 0.0, 0.5)
    ends = [simulator.simulate(TableState.from_dict({0: (0.5, 0.5), 3: (0.5, 0.5 + 2 * R - gap)}), soft)
            for gap in (0.0, 0.5e-6)]
    assert ends[1].first_hit == 3 and ends[1].final_rvw[1, 0, 1] > 0.5 + 2 * R + 0.1
    np.testing.assert_allclose(ends[1].final_rvw[:, 0, :2], ends[0].final_rvw[:, 0, :2], atol=1e-3)
    with pytest.raises(PhysicsInputError, match=r"balls 0 and 3 overlap"):
        simulator.simulate(TableState.from_dict({0: (0.5, 0.5), 3: (0.5, 0.5 + 2 * R - 50e-6)}), OK)


def test_ball_outside_cushions_named(simulator):
    st = TableState.from_dict({0: (0.5, 0.5), 7: (-0.05, 0.6)})
    with pytest.raises(PhysicsInputError, match=r"ball 7: centre .* is outside the cushions"):
        simulator.simulate(st, OK)


def test_ball_overlapping_a_rail_named(simulator):
    st = TableState.from_dict({0: (0.5, 0.5), 7: (0.01, 0.6)})
    with pytest.raises(PhysicsInputError, match=r"ball 7: centre .* overlaps cushion 3"):
        simulator.simulate(st, OK)


def test_ball_in_a_pocket_named(simulator):
    c = simulator.table.pocket_center[simulator.table.pocket_index("lc")]
    st = TableState.from_dict({0: (0.5, 0.5), 7: (c[0] + 0.05, c[1])})
    with pytest.raises(PhysicsInputError, match=r"ball 7: centre .* is in pocket lc"):
        simulator.simulate(st, OK)


def test_ball_resting_in_a_pocket_throat_is_accepted(simulator):
    """Hanging in the side pocket's mouth, beyond the rail line: a legal rest position."""
    R = simulator.params.R
    c = simulator.table.pocket_center[simulator.table.pocket_index("lc")]
    x = c[0] + simulator.table.pocket_radius[simulator.table.pocket_index("lc")] + 0.002   # just short of the drop
    assert x < R
    simulator.check_state(TableState.from_dict({0: (0.5, 0.5), 7: (x, c[1])}))


def test_engine_only_leaves_balls_where_it_accepts_them(simulator):
    """Every rest position the engine produces is a valid start state for the next shot."""
    from planner.rack import rack_8ball

    rng = np.random.default_rng(3)
    state = rack_8ball(simulator.table, simulator.params.R, rng)
    shots = np.column_stack([rng.uniform(80, 100, 60), np.zeros(60), rng.uniform(3, 8, 60),
                             rng.uniform(-0.01, 0.01, 60), rng.uniform(-0.01, 0.01, 60)])
    out = simulator.simulate_batch(state, shots)
    for k in range(len(shots)):
        on = out.final_state[k] != 4
        simulator.check_state(TableState(out.ids[on], out.final_pos[k][on]))


def test_engine_rest_positions_in_fuzzed_corner_cases(simulator):
    """Shots a 1.1M-shot fuzz once turned into balls outside or inside the cushions (a ball
    curving back through a rail from a pocket's mouth; a grazing contact rewound along the
    ball's path; a ball wedged between a ball and a jaw): each now ends with every ball at a
    position the engine accepts as a start state."""
    cases = json.loads((Path(__file__).parent / "data" / "rest_position_cases.json").read_text())["cases"]
    for case in cases:
        state = TableState(np.array(case["ids"]), np.array(case["pos"]))
        out = simulator.simulate_batch(state, np.array([case["shot"]]))
        on = out.final_state[0] != 4
        simulator.check_state(TableState(out.ids[on], out.final_pos[0][on]))


def test_nan_position_named(simulator):
    st = TableState.from_dict({0: (0.5, 0.5), 2: (math.nan, 0.9)})
    with pytest.raises(PhysicsInputError, match=r"ball 2: position .* not finite"):
        simulator.simulate(st, OK)


@pytest.mark.parametrize("shot,word", [
    (ShotParams(90, 0, -1.0), "V must be a positive"),
    (ShotParams(90, 0, 50.0), "V exceeds"),
    (ShotParams(90, 95, 2.0), "theta must be"),
    (ShotParams(math.inf, 0, 2.0), "phi is not finite"),
    (ShotParams(90, 0, 2.0, a=0.03, b=0.0), "miscue"),
])
def test_bad_shot_parameters_named(simulator, shot, word):
    st = TableState.from_dict({0: (0.5, 0.5)})
    with pytest.raises(PhysicsInputError, match=word):
        simulator.simulate(st, shot)


def test_missing_cue_ball(simulator):
    with pytest.raises(PhysicsInputError, match="struck ball 0 is not on the table"):
        simulator.simulate(TableState.from_dict({1: (0.5, 0.5)}), OK)


def test_batch_reports_the_bad_row(simulator):
    shots = np.array([[90, 0, 2.0, 0, 0], [90, 0, 2.0, 0, 0], [90, 0, 0.0, 0, 0]])
    with pytest.raises(PhysicsInputError, match="shot 2"):
        simulator.simulate_batch(TableState.from_dict({0: (0.5, 0.5)}), shots)


def test_settle_moves_only_shallow_cushion_overlaps_out_to_touching(simulator):
    """A ball resting 50 um inside the left rail is moved out to R + 1 um; one 1 mm inside is
    left for the input check to refuse; one clear of the rail is untouched."""
    from planner.physics.engine import table_arrays
    from planner.physics.kernel import SPACER, _settle

    R = simulator.params.R
    lin, _, circ, _ = table_arrays(simulator.table)
    rvw = np.zeros((3, 3, 3))
    rvw[:, 0, :2] = [[R - 50e-6, 0.6], [R - 1e-3, 0.3], [0.5, 0.9]]
    _settle(rvw, np.zeros(3, np.int64), lin, circ, R)
    np.testing.assert_allclose(rvw[0, 0, :2], [R + SPACER, 0.6], atol=1e-12)
    np.testing.assert_allclose(rvw[1:, 0, :2], [[R - 1e-3, 0.3], [0.5, 0.9]], atol=0)


def test_fuzz_finds_no_refused_rest_positions(simulator):
    """A short run of the fuzzer (`cuerobot physics fuzz`): every final state is valid."""
    from planner.physics.fuzz import fuzz

    done = []
    assert fuzz(simulator, 2000, seed=7, progress=done.append) == []
    assert sum(done) >= 2000
