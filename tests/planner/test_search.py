"""Searches pick an obvious easy shot over a hard one; batch rulings agree with the referee on
full event logs; the planner handles the break, ball in hand and safeties."""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from planner.aim import reflect_across_rail
from planner.movegen import CandidateShot, MoveGenerator
from planner.rules.eightball import Foul, referee, rule
from planner.rules.game import CalledShot, GameState, InHand
from planner.safety import FOUL_SPEED
from planner.search.common import batch_facts, play_samples
from planner.search.montecarlo import Tally, refinements
from planner.shot import E_LOW, ErrorModel, ShotParams
from planner.state import TableState

R = 0.028575
# ball 1: a short full-ball shot into lb; ball 2: a long thin cut; ball 9 the opponent's
EASY_HARD = TableState([0, 1, 2, 9], [[0.30, 0.30], [0.15, 0.15], [1.0, 1.9], [0.8, 1.2]])
SOLIDS_P0 = GameState(frozenset({1, 2, 8, 9}), 0, ("solid", "stripe"))


@pytest.mark.parametrize("name", ["greedy", "prob", "mc"])
def test_search_picks_the_easy_shot(make, name):
    d = make(name).choose(EASY_HARD, SOLIDS_P0)
    assert d.call is not None and d.call.ball == 1 and d.call.pocket == "lb"
    assert d.kind == "straight" and d.estimate > 0.65


def test_the_wall_clock_cap_only_stops_a_runaway_search_and_says_so(table_config, small_pcfg, tiny_difficulty,
                                                                    caplog):
    from planner.decision import make_planner

    def decide(cap_s):
        pcfg = dataclasses.replace(small_pcfg, search=dataclasses.replace(small_pcfg.search, wall_cap_s=cap_s))
        return make_planner("mc", "high", 5, tcfg=table_config, pcfg=pcfg,
                            difficulty=tiny_difficulty).choose(EASY_HARD, SOLIDS_P0)

    free, again = decide(1e6), decide(1e6)
    assert not free.capped and free == again          # budgets in samples: the same decision twice
    caplog.clear()
    cut = decide(1e-9)                                 # the cap fires before the first sample
    assert cut.capped and "wall_cap_s" in caplog.text
    assert cut.kind in ("straight", "bank", "kick", "combo", "safety", "fallback")


def test_batch_rulings_match_the_referee_on_full_event_logs(simulator):
    rng = np.random.default_rng(4)
    shot = ShotParams(225.0, 0.0, 1.2)
    rows = ErrorModel(phi=4.0, theta=0.0, V=0.3, a=0.0, b=0.0).perturb(shot, rng, 12)
    batch = simulator.simulate_batch(EASY_HARD, rows)
    call = CalledShot.shot(1, "lb")
    reasons = set()
    for i, row in enumerate(rows):
        full = simulator.simulate(EASY_HARD, ShotParams.from_array(row))
        g1, o1 = referee(SOLIDS_P0, call, full.events, pocket_ids=simulator.table.pocket_ids)
        g2, o2 = rule(SOLIDS_P0, call, batch_facts(batch, i, simulator.table.pocket_ids), pocket_ids=simulator.table.pocket_ids)
        assert (g1, o1.reason, o1.fouls, set(o1.pocketed)) == (g2, o2.reason, o2.fouls, set(o2.pocketed))
        reasons.add(o1.reason)
    assert len(reasons) >= 2       # the sample covers more than one ruling


def test_break_ball_in_hand_and_safety(make, table_config):
    from planner.rack import rack_8ball

    t = table_config.table
    pl = make("greedy")
    rack = rack_8ball(t, R, np.random.default_rng(0))
    d = pl.choose(rack, GameState.new_rack(0))
    assert d.kind == "break" and d.call is None and d.cue_pos[1] < t.head_string_y
    # ball in hand behind the head string: the cue ball goes in the kitchen, the called ball lies past it
    st = TableState([1, 2, 9], [[0.3, 1.5], [0.8, 1.8], [0.5, 0.3]])
    game = GameState(frozenset({1, 2, 9, 8}), 0, ("solid", "stripe"), in_hand=InHand.BEHIND_HEAD_STRING)
    d = pl.choose(st, game)
    assert d.cue_pos is not None and d.cue_pos[1] < t.head_string_y
    assert d.kind == "safety" or st.position(d.call.ball)[1] >= t.head_string_y
    # no straight-in shot on the only legal ball (it is behind two opponent balls): a safety
    # that hits a legal ball softly, or a bank/kick/combo
    hidden = TableState([0, 1, 9, 10], [[0.5, 0.5], [0.5, 2.15], [0.45, 2.05], [0.56, 2.05]])
    g = GameState(frozenset({1, 8, 9, 10}), 0, ("solid", "stripe"))
    d = pl.choose(hidden, g)
    assert d.kind in ("safety", "bank", "kick", "combo", "fallback")



def test_kick_safeties_reach_a_legal_ball_hidden_behind_a_wall(make, simulator):
    pl = make("greedy")
    pids = simulator.table.pocket_ids
    # ball 1, the only legal ball, straight behind three stripes: no direct line from the cue ball
    st = TableState([0, 1, 9, 10, 11, 8], [[0.6, 0.5], [0.6, 1.5], [0.54, 1.0], [0.6, 1.0], [0.66, 1.0], [1.0, 2.2]])
    g = GameState(frozenset({1, 8, 9, 10, 11}), 0, ("solid", "stripe"))
    cands = pl.safety.candidates(st, g, False)
    assert len(cands) >= 3 and cands == pl.safety.kicks(st, g, [1])

    def clean_fraction(rows):
        batch = simulator.simulate_batch(st, rows)
        return np.mean([not rule(g, CalledShot.safe(), batch_facts(batch, i, pids), pocket_ids=pids)[1].fouls
                        for i in range(len(rows))])

    rng = np.random.default_rng(2)
    for c in cands:
        # the simulated aim correction keeps the kick legal under the low error model
        assert clean_fraction(E_LOW.perturb(c.shot, rng, 40)) >= 0.8
    # the uncorrected rail-image aims (left and right rails) mostly foul: the correction matters
    cue, obj = st.position(0), st.position(1)
    naive = []
    for rail in ("left", "right"):
        img = reflect_across_rail(obj, simulator.table, rail, R, simulator.params.e_c)
        phi = float(np.degrees(np.arctan2(*(img - cue)[::-1])))
        naive += [ShotParams(phi, 0.0, V).as_array() for V in (1.2, 2.0, 3.0)]
    assert clean_fraction(np.array(naive)) <= 0.5


def test_fan_safeties_are_foul_free_under_small_noise(make, simulator):
    pl = make("greedy")
    pids = simulator.table.pocket_ids
    st = TableState([0, 1, 9, 10, 11, 8], [[0.6, 0.5], [0.6, 1.5], [0.54, 1.0], [0.6, 1.0], [0.66, 1.0], [1.0, 2.2]])
    g = GameState(frozenset({1, 8, 9, 10, 11}), 0, ("solid", "stripe"))
    fan = pl.safety.fan(st, g)
    assert 0 < len(fan) <= pl.cfg.search.safety_candidates
    rows = E_LOW.perturb(fan[0].shot, np.random.default_rng(3), 40)    # the widest run's centre
    batch = simulator.simulate_batch(st, rows)
    clean = [not rule(g, CalledShot.safe(), batch_facts(batch, i, pids), pocket_ids=pids)[1].fouls
             for i in range(len(rows))]
    assert np.mean(clean) >= 0.8


# the shooter (player 1, solids) is on the 8, which hangs in the jaw of the left side pocket with
# the cue ball beyond it: the 8 cannot be cut in, and any contact drops it (rack 24300, --seed 1300)
HANGING_EIGHT = TableState([0, 8, 12], [[0.316, 2.008], [0.012, 1.147], [0.127, 2.148]])
ON_THE_EIGHT = GameState(frozenset({8, 12}), 1, ("stripe", "solid"))


@pytest.mark.parametrize("name", ["greedy", "mc"])
def test_a_deliberate_foul_rather_than_a_safety_that_drops_the_8(make, name):
    pl = make(name)

    def lost_fraction(shot, n=100):
        c = CandidateShot(shot, CalledShot.safe(), "safety", 0.0)
        return np.mean([g.winner == 0 for _, g, _ in play_samples(pl.ctx, HANGING_EIGHT, ON_THE_EIGHT, c, n)])

    hits = pl.safety.candidates(HANGING_EIGHT, ON_THE_EIGHT, False)
    assert hits and min(lost_fraction(c.shot) for c in hits) >= 0.5    # every safety that hits the 8 mostly drops it
    d = pl.choose(HANGING_EIGHT, ON_THE_EIGHT)
    assert d.kind == "safety" and d.shot.V == FOUL_SPEED
    (_, g, out), = play_samples(pl.ctx, HANGING_EIGHT, ON_THE_EIGHT, CandidateShot(d.shot, d.call, d.kind, 0.0), 1,
                                noise=False)
    assert out.fouls == (Foul.NO_CONTACT,) and not out.pocketed and g.in_hand is not InHand.NONE and g.shooter == 0
    assert lost_fraction(d.shot) <= 0.05                                # under E_high the 8 stays


def test_refinement_searches_the_fine_variants_of_the_best_valued_calls(table_config, tiny_difficulty, coarse_movegen):
    """montecarlo.refinements: the fine-grid variants of the refine_calls calls whose best
    searched candidate has the highest value, best first (not the calls of highest estimate)."""
    cfg = dataclasses.replace(coarse_movegen, speed_increments=(0.25,), spins=((0.0, 0.0),),
                              fine_speed_increments=(0.25, 0.8), fine_spins=((0.0, 0.0),))
    mg = MoveGenerator(table_config.table, table_config.physics, tiny_difficulty, cfg)
    st = TableState([0, 1, 2, 9, 8], [[0.5, 0.7], [0.3, 1.5], [0.8, 0.5], [0.2, 0.3], [0.9, 1.9]])
    cands = mg.generate(st, GameState(frozenset({1, 2, 9, 8}), 0, ("solid", "stripe")))
    assert len({c.call for c in cands}) >= 3
    a, b, c = cands[:3]                       # one variant per call, best estimate first

    def tally(v):
        return Tally(15, 15, 0.0, 15, 15 * v)
    searched = [(a, tally(0.4)), (b, tally(0.9)), (c, tally(0.6))]
    for k, want in ((0, []), (1, [b]), (2, [b, c]), (5, [b, c, a])):
        ctx = SimpleNamespace(cfg=SimpleNamespace(refine_calls=k), movegen=mg)
        got = refinements(ctx, st, searched)
        assert got == [r for x in want for r in mg.refinements(st, x)]
        assert [r.call for r in got] == [x.call for x in want]   # one fine variant (+0.8 m/s) per call
