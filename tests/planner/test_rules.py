"""The 8-ball referee (planner.rules) on hand-built event logs: every foul, break rule, group
rule, call rule, win and loss of docs/rules.md (WPA eight ball)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.physics.eventlog import (
    EV_BALL_BALL,
    EV_CIRCULAR_CUSHION,
    EV_LINEAR_CUSHION,
    EV_POCKET,
    EV_ROLLING_STATIONARY,
    EV_SLIDING_ROLLING,
    EV_STICK,
    EventLog,
)
from planner.rules.eightball import Foul, Reason, referee
from planner.rules.facts import read_shot
from planner.rules.game import CalledShot, GameState, InHand
from planner.table import POCKET_IDS

ALL = frozenset(range(1, 16))
SOLIDS = frozenset(range(1, 8))
STRIPES = frozenset(range(9, 16))


# ---- hand-built event logs ------------------------------------------------------------------
def hit(a, b):
    return (EV_BALL_BALL, a, b)


def rail(ball, seg=0):
    return (EV_LINEAR_CUSHION, ball, seg)


def tip(ball, seg=0):
    return (EV_CIRCULAR_CUSHION, ball, seg)


def pot(ball, pocket):
    return (EV_POCKET, ball, POCKET_IDS.index(pocket))


def log(*events):
    """An event log: the cue strike, the given events 10 ms apart, motion transitions between
    them (which the referee must ignore)."""
    kinds, a, b = [EV_STICK], [0], [-1]
    for k, x, y in events:
        kinds += [EV_SLIDING_ROLLING, k]
        a += [x, x]
        b += [-1, y]
    kinds.append(EV_ROLLING_STATIONARY)
    a.append(0)
    b.append(-1)
    return EventLog.from_lists(kinds, [0.01 * i for i in range(len(kinds))], a, b)


def playing(balls=ALL, shooter=0, groups=None, in_hand=InHand.NONE):
    return GameState(frozenset(balls), shooter, groups, False, in_hand)


SOLIDS_P0 = ("solid", "stripe")


def rule(state, call, events, **kw):
    return referee(state, call, events, **kw)


# ---- reading the event log ------------------------------------------------------------------
def test_read_shot_finds_first_contact_rails_and_pockets():
    f = read_shot(log(rail(0), hit(0, 5), hit(5, 9), tip(9), rail(3), pot(5, "rc")), POCKET_IDS)
    assert f.first_contact == 5
    assert f.rail_after_contact
    assert f.balls_to_rail == {9, 3}          # the cue ball's rail is not an object ball's
    assert f.pocketed == ((5, "rc"),)


def test_read_shot_first_contact_when_cue_ball_is_the_second_agent():
    f = read_shot(log(hit(7, 0)), POCKET_IDS)
    assert f.first_contact == 7


def test_read_shot_cushion_before_contact_is_not_after_contact():
    f = read_shot(log(rail(0), rail(0), hit(0, 4)), POCKET_IDS)
    assert f.first_contact == 4 and not f.rail_after_contact


def test_read_shot_maps_pocket_index_through_given_ids():
    ids = ("rt", "rc", "rb", "lt", "lc", "lb")
    events = EventLog.from_lists([EV_STICK, EV_BALL_BALL, EV_POCKET], [0, 0.1, 0.2],
                                 [0, 0, 4], [-1, 4, 2])
    assert read_shot(events, ids).pocketed == ((4, "rb"),)


def test_read_shot_rejects_bad_pocket_index_double_pocket_and_pocketed_off_table():
    with pytest.raises(ValueError, match="pocket index 6"):
        read_shot(EventLog.from_lists([EV_POCKET], [0.1], [3], [6]), POCKET_IDS)
    with pytest.raises(ValueError, match="second time"):
        read_shot(log(pot(3, "lb"), pot(3, "rb")), POCKET_IDS)
    with pytest.raises(ValueError, match="both pocketed and off the table"):
        read_shot(log(pot(3, "lb")), POCKET_IDS, frozenset({3}))


# ---- game values ----------------------------------------------------------------------------
def test_new_rack_is_a_break_from_the_kitchen():
    s = GameState.new_rack(1)
    assert s.object_balls == ALL and s.shooter == 1 and s.is_break and s.is_open
    assert s.in_hand is InHand.BEHIND_HEAD_STRING and s.winner is None


def test_legal_targets():
    assert playing({3, 8, 12}).legal_targets() == {3, 12}              # open: any but the 8
    assert playing({3, 8, 12}, 0, SOLIDS_P0).legal_targets() == {3}
    assert playing({3, 8, 12}, 1, SOLIDS_P0).legal_targets() == {12}
    assert playing({8, 12}, 0, SOLIDS_P0).legal_targets() == {8}        # solids cleared
    assert GameState.new_rack(0).legal_targets() == frozenset()


@pytest.mark.parametrize("kwargs", [
    dict(object_balls={0, 3}, shooter=0), dict(object_balls={3}, shooter=2),
    dict(object_balls={3}, shooter=0, groups=("solid", "solid")),
    dict(object_balls={3}, shooter=0, winner=3)])
def test_game_state_rejects_bad_values(kwargs):
    with pytest.raises(ValueError, match="GameState"):
        GameState(**kwargs)


@pytest.mark.parametrize("kwargs", [dict(ball=3), dict(pocket="lb"), dict(),
                                    dict(ball=3, pocket="lb", safety=True)])
def test_called_shot_rejects_half_calls(kwargs):
    with pytest.raises(ValueError, match="CalledShot"):
        CalledShot(**kwargs)


# ---- the break (WPA 3.3) --------------------------------------------------------------------
def test_break_pocketing_a_ball_keeps_the_breaker_at_an_open_table():
    nxt, out = rule(GameState.new_rack(0), None, log(hit(0, 1), hit(1, 3), pot(3, "lt")))
    assert out.reason is Reason.BREAK_BALL_POCKETED and out.legal_break and out.turn_continues
    assert nxt.shooter == 0 and nxt.is_open and not nxt.is_break
    assert nxt.object_balls == ALL - {3} and nxt.in_hand is InHand.NONE
    assert nxt.shot_number == 1 and out.fouls == () and not out.called_made


def test_break_pocketing_only_solids_does_not_choose_groups():
    nxt, _ = rule(GameState.new_rack(0), None, log(hit(0, 1), pot(2, "lb"), pot(5, "rt")))
    assert nxt.groups is None and nxt.object_balls == ALL - {2, 5}


def test_break_four_balls_to_a_rail_without_a_pocket_passes_the_turn():
    events = log(hit(0, 1), rail(1), rail(9), tip(4), rail(12), rail(0))
    nxt, out = rule(GameState.new_rack(0), None, events)
    assert out.reason is Reason.BREAK_NO_BALL_POCKETED and out.legal_break
    assert nxt.shooter == 1 and nxt.in_hand is InHand.NONE and nxt.object_balls == ALL


def test_break_three_balls_to_a_rail_is_illegal():
    # four cushion contacts, but by three distinct object balls; the cue ball's rail does not count
    events = log(hit(0, 1), rail(1), rail(1, 3), rail(9), rail(12), rail(0))
    nxt, out = rule(GameState.new_rack(0), None, events)
    assert out.reason is Reason.ILLEGAL_BREAK and out.legal_break is False
    assert out.fouls == () and nxt.shooter == 1 and nxt.in_hand is InHand.NONE
    assert not nxt.is_break and nxt.is_open


def test_break_missing_the_rack_is_illegal():
    _, out = rule(GameState.new_rack(1), None, log(rail(0), rail(0)))
    assert out.reason is Reason.ILLEGAL_BREAK and not out.turn_continues


def test_scratch_on_a_legal_break_gives_ball_in_hand_behind_the_head_string():
    events = log(hit(0, 1), pot(6, "lc"), pot(11, "rb"), pot(0, "lb"))
    nxt, out = rule(GameState.new_rack(0), None, events)
    assert out.reason is Reason.BREAK_FOUL and out.fouls == (Foul.SCRATCH,) and out.legal_break
    assert nxt.shooter == 1 and nxt.in_hand is InHand.BEHIND_HEAD_STRING
    assert nxt.object_balls == ALL - {6, 11}      # balls pocketed on the break stay down
    assert nxt.is_open and nxt.winner is None


def test_scratch_on_an_illegal_break_is_a_foul():
    nxt, out = rule(GameState.new_rack(0), None, log(hit(0, 1), rail(1), pot(0, "rt")))
    assert out.reason is Reason.BREAK_FOUL and out.legal_break is False
    assert nxt.in_hand is InHand.BEHIND_HEAD_STRING and nxt.shooter == 1


def test_eight_on_a_legal_break_is_spotted_and_the_breaker_continues():
    nxt, out = rule(GameState.new_rack(0), None, log(hit(0, 1), hit(1, 8), pot(8, "rc")))
    assert out.reason is Reason.BREAK_EIGHT_SPOTTED and out.winner is None
    assert out.spotted == (8,) and out.turn_continues
    assert nxt.object_balls == ALL and nxt.shooter == 0 and nxt.winner is None


def test_eight_and_scratch_on_the_break_is_not_a_loss():
    nxt, out = rule(GameState.new_rack(0), None,
                    log(hit(0, 1), pot(8, "lt"), pot(4, "rt"), pot(0, "rb")))
    assert out.reason is Reason.BREAK_FOUL and out.winner is None and out.spotted == (8,)
    assert nxt.winner is None and nxt.object_balls == ALL - {4}
    assert nxt.shooter == 1 and nxt.in_hand is InHand.BEHIND_HEAD_STRING


def test_object_ball_off_the_table_on_the_break_is_a_foul_and_stays_off():
    nxt, out = rule(GameState.new_rack(0), None, log(hit(0, 1), pot(2, "lb")),
                    off_table=frozenset({13}))
    assert out.reason is Reason.BREAK_FOUL and out.fouls == (Foul.OBJECT_BALL_OFF_TABLE,)
    assert nxt.object_balls == ALL - {2, 13} and nxt.in_hand is InHand.BEHIND_HEAD_STRING


def test_eight_off_the_table_on_the_break_is_spotted_not_lost():
    nxt, out = rule(GameState.new_rack(0), None, log(hit(0, 1), pot(2, "lb")),
                    off_table=frozenset({8}))
    assert out.reason is Reason.BREAK_FOUL and out.spotted == (8,) and out.winner is None
    assert 8 in nxt.object_balls and nxt.shooter == 1


def test_cue_ball_off_the_table_on_the_break():
    nxt, out = rule(GameState.new_rack(0), None, log(hit(0, 1), pot(2, "lb")),
                    off_table=frozenset({0}))
    assert out.fouls == (Foul.CUE_BALL_OFF_TABLE,)
    assert nxt.in_hand is InHand.BEHIND_HEAD_STRING


def test_break_takes_no_call():
    with pytest.raises(ValueError, match="no call"):
        rule(GameState.new_rack(0), CalledShot.shot(1, "lb"), log(hit(0, 1)))


# ---- open table and groups (WPA 3.4, 3.5) ---------------------------------------------------
@pytest.mark.parametrize("shooter,expected", [(0, ("stripe", "solid")), (1, ("solid", "stripe"))])
def test_legally_pocketing_a_called_ball_chooses_groups(shooter, expected):
    nxt, out = rule(playing(shooter=shooter), CalledShot.shot(10, "lt"),
                    log(hit(0, 10), pot(10, "lt")))
    assert out.reason is Reason.CALLED_BALL_POCKETED and out.called_made and out.turn_continues
    assert nxt.groups == expected and nxt.shooter == shooter
    assert nxt.object_balls == ALL - {10}


def test_open_table_combination_assigns_the_called_balls_group():
    # first contact a solid, called stripe dropped, a solid dropped too: the shooter has stripes
    nxt, out = rule(playing(), CalledShot.shot(12, "rc"),
                    log(hit(0, 3), hit(3, 12), pot(12, "rc"), pot(3, "lb")))
    assert out.reason is Reason.CALLED_BALL_POCKETED and out.fouls == ()
    assert nxt.groups == ("stripe", "solid") and nxt.object_balls == ALL - {3, 12}


def test_open_table_called_ball_with_a_scratch_leaves_the_table_open():
    nxt, out = rule(playing(), CalledShot.shot(2, "lb"),
                    log(hit(0, 2), pot(2, "lb"), pot(0, "rt")))
    assert out.reason is Reason.FOUL and out.fouls == (Foul.SCRATCH,) and out.called_made
    assert nxt.is_open and nxt.shooter == 1 and nxt.in_hand is InHand.ANYWHERE
    assert 2 not in nxt.object_balls                     # pocketed on a foul: stays down


def test_open_table_missed_call_leaves_table_open_and_other_balls_down():
    nxt, out = rule(playing(), CalledShot.shot(2, "lb"),
                    log(hit(0, 2), hit(2, 9), pot(9, "rc"), rail(2)))
    assert out.reason is Reason.MISS and not out.called_made and out.fouls == ()
    assert nxt.is_open and nxt.shooter == 1 and nxt.object_balls == ALL - {9}


def test_called_ball_in_another_pocket_does_not_count():
    nxt, out = rule(playing(groups=SOLIDS_P0), CalledShot.shot(4, "rb"),
                    log(hit(0, 4), pot(4, "rc")))
    assert out.reason is Reason.MISS and not out.called_made
    assert nxt.shooter == 1 and 4 not in nxt.object_balls


def test_extra_balls_on_a_made_call_stay_down_and_shooter_continues():
    nxt, out = rule(playing(groups=SOLIDS_P0), CalledShot.shot(4, "rb"),
                    log(hit(0, 4), hit(4, 13), pot(4, "rb"), pot(13, "lc")))
    assert out.reason is Reason.CALLED_BALL_POCKETED and nxt.shooter == 0
    assert nxt.object_balls == ALL - {4, 13} and nxt.groups == SOLIDS_P0
    assert out.pocketed == ((4, "rb"), (13, "lc"))


def test_eight_first_on_an_open_table_is_a_foul():
    nxt, out = rule(playing(), CalledShot.shot(5, "lb"), log(hit(0, 8), hit(8, 5), pot(5, "lb")))
    assert out.reason is Reason.FOUL and out.fouls == (Foul.WRONG_BALL_FIRST,)
    assert nxt.is_open and nxt.shooter == 1 and nxt.in_hand is InHand.ANYWHERE


def test_turn_after_ball_in_hand_clears_it():
    s = playing(groups=SOLIDS_P0, in_hand=InHand.ANYWHERE)
    nxt, _ = rule(s, CalledShot.shot(1, "lt"), log(hit(0, 1), pot(1, "lt")))
    assert nxt.in_hand is InHand.NONE and nxt.shooter == 0


# ---- standard fouls (WPA 3.9, 6.1-6.3) ------------------------------------------------------
def _foul(events, state=None, call=None, **kw):
    state = state or playing(groups=SOLIDS_P0)
    nxt, out = rule(state, call or CalledShot.shot(3, "lb"), events, **kw)
    assert out.reason is Reason.FOUL and not out.turn_continues and out.winner is None
    assert nxt.shooter == 1 - state.shooter and nxt.in_hand is InHand.ANYWHERE
    return nxt, out


def test_scratch():
    _, out = _foul(log(hit(0, 3), rail(3), pot(0, "rc")))
    assert out.fouls == (Foul.SCRATCH,)


def test_cue_ball_off_the_table():
    _, out = _foul(log(hit(0, 3), rail(3)), off_table=frozenset({0}))
    assert out.fouls == (Foul.CUE_BALL_OFF_TABLE,)


def test_opponents_ball_first():
    _, out = _foul(log(hit(0, 11), hit(11, 3), rail(3)))
    assert out.fouls == (Foul.WRONG_BALL_FIRST,)


def test_eight_first_before_group_is_cleared():
    _, out = _foul(log(hit(0, 8), hit(8, 3), rail(3)))
    assert out.fouls == (Foul.WRONG_BALL_FIRST,)


def test_wrong_ball_first_even_if_the_called_ball_drops():
    nxt, out = _foul(log(hit(0, 12), hit(12, 3), pot(3, "lb")))
    assert out.fouls == (Foul.WRONG_BALL_FIRST,) and out.called_made
    assert 3 not in nxt.object_balls


def test_no_contact():
    _, out = _foul(log(rail(0), rail(0)))
    assert out.fouls == (Foul.NO_CONTACT,)


def test_no_rail_after_contact():
    _, out = _foul(log(hit(0, 3)))
    assert out.fouls == (Foul.NO_RAIL,)


def test_rail_before_contact_does_not_count():
    _, out = _foul(log(rail(0), tip(0), hit(0, 3)))
    assert out.fouls == (Foul.NO_RAIL,)


@pytest.mark.parametrize("after", [rail(0), rail(3), rail(14), tip(3), tip(0)])
def test_any_ball_to_any_cushion_after_contact_satisfies_the_rail_rule(after):
    # cue ball or object ball; rail, jaw face (linear) or jaw tip (circular)
    nxt, out = rule(playing(groups=SOLIDS_P0), CalledShot.shot(3, "lb"),
                    log(hit(0, 3), hit(3, 14), after))
    assert out.reason is Reason.MISS and out.fouls == ()
    assert nxt.in_hand is InHand.NONE and nxt.shooter == 1


def test_a_pocketed_ball_satisfies_the_rail_rule():
    _, out = rule(playing(groups=SOLIDS_P0), CalledShot.shot(3, "lb"),
                  log(hit(0, 3), hit(3, 14), pot(14, "lc")))
    assert out.reason is Reason.MISS and out.fouls == ()


def test_object_ball_off_the_table_is_a_foul_and_is_not_spotted():
    nxt, out = _foul(log(hit(0, 3), rail(3)), off_table=frozenset({5}))
    assert out.fouls == (Foul.OBJECT_BALL_OFF_TABLE,) and out.spotted == ()
    assert nxt.object_balls == ALL - {5}


def test_every_foul_of_a_shot_is_listed():
    _, out = _foul(log(hit(0, 10), pot(0, "lb")), off_table=frozenset({10}))
    assert out.fouls == (Foul.SCRATCH, Foul.WRONG_BALL_FIRST, Foul.OBJECT_BALL_OFF_TABLE)


def test_foul_by_player_one_gives_player_zero_ball_in_hand():
    s = playing(groups=SOLIDS_P0, shooter=1)
    nxt, out = rule(s, CalledShot.shot(9, "lt"), log(hit(0, 2), rail(2)))
    assert out.fouls == (Foul.WRONG_BALL_FIRST,)
    assert nxt.shooter == 0 and nxt.in_hand is InHand.ANYWHERE


# ---- called safety (WPA 3.6) ----------------------------------------------------------------
def test_safety_passes_the_turn_and_pocketed_balls_stay_down():
    nxt, out = rule(playing(groups=SOLIDS_P0), CalledShot.safe(),
                    log(hit(0, 3), pot(3, "lb"), rail(0)))
    assert out.reason is Reason.SAFETY and not out.turn_continues and not out.called_made
    assert nxt.shooter == 1 and 3 not in nxt.object_balls and nxt.in_hand is InHand.NONE


def test_safety_on_an_open_table_does_not_choose_groups():
    nxt, out = rule(playing(), CalledShot.safe(), log(hit(0, 3), pot(3, "lb")))
    assert out.reason is Reason.SAFETY and nxt.is_open


def test_safety_with_a_foul_is_a_foul():
    _, out = _foul(log(hit(0, 3)), call=CalledShot.safe())
    assert out.fouls == (Foul.NO_RAIL,)


# ---- the 8: win and loss of the rack (WPA 3.8) ----------------------------------------------
ON_EIGHT = playing({8, 9, 14}, 0, SOLIDS_P0)          # player 0 has cleared the solids


def test_win_by_pocketing_the_eight_in_the_called_pocket():
    nxt, out = rule(ON_EIGHT, CalledShot.shot(8, "rt"), log(hit(0, 8), pot(8, "rt")))
    assert out.reason is Reason.WIN and out.winner == 0 and out.called_made
    assert nxt.winner == 0 and nxt.is_over and 8 not in nxt.object_balls


def test_win_for_player_one_on_stripes():
    s = playing({2, 8}, 1, SOLIDS_P0)
    _, out = rule(s, CalledShot.shot(8, "lc"), log(hit(0, 8), rail(0), pot(8, "lc")))
    assert out.reason is Reason.WIN and out.winner == 1


def test_loss_eight_in_an_uncalled_pocket():
    nxt, out = rule(ON_EIGHT, CalledShot.shot(8, "rt"), log(hit(0, 8), pot(8, "lt")))
    assert out.reason is Reason.LOSS_EIGHT_UNCALLED_POCKET and out.winner == 1
    assert nxt.winner == 1 and not out.called_made


def test_loss_eight_on_a_called_safety():
    _, out = rule(ON_EIGHT, CalledShot.safe(), log(hit(0, 8), pot(8, "lb")))
    assert out.reason is Reason.LOSS_EIGHT_UNCALLED_POCKET and out.winner == 1


def test_loss_eight_with_a_scratch():
    _, out = rule(ON_EIGHT, CalledShot.shot(8, "rt"), log(hit(0, 8), pot(8, "rt"), pot(0, "rc")))
    assert out.reason is Reason.LOSS_EIGHT_WITH_FOUL and out.winner == 1
    assert out.fouls == (Foul.SCRATCH,) and out.called_made


def test_loss_eight_with_wrong_ball_first():
    _, out = rule(ON_EIGHT, CalledShot.shot(8, "rt"), log(hit(0, 9), hit(9, 8), pot(8, "rt")))
    assert out.reason is Reason.LOSS_EIGHT_WITH_FOUL and out.fouls == (Foul.WRONG_BALL_FIRST,)


def test_loss_eight_with_an_object_ball_off_the_table():
    _, out = rule(ON_EIGHT, CalledShot.shot(8, "rt"), log(hit(0, 8), hit(8, 9), pot(8, "rt")),
                  off_table=frozenset({9}))
    assert out.reason is Reason.LOSS_EIGHT_WITH_FOUL and out.winner == 1


def test_loss_eight_before_the_group_is_cleared():
    s = playing({3, 8, 9}, 0, SOLIDS_P0)
    nxt, out = rule(s, CalledShot.shot(3, "lb"), log(hit(0, 3), hit(3, 8), pot(8, "rb")))
    assert out.reason is Reason.LOSS_EIGHT_EARLY and out.winner == 1 and nxt.winner == 1


def test_loss_eight_on_the_same_shot_as_the_last_group_ball():
    s = playing({3, 8, 9}, 1, ("stripe", "solid"))  # player 1 on solids, the 3 is the last
    _, out = rule(s, CalledShot.shot(3, "lb"),
                  log(hit(0, 3), pot(3, "lb"), hit(0, 8), pot(8, "rb")))
    assert out.reason is Reason.LOSS_EIGHT_EARLY and out.winner == 0


def test_loss_eight_on_an_open_table():
    _, out = rule(playing(), CalledShot.shot(5, "lb"), log(hit(0, 5), hit(5, 8), pot(8, "lb")))
    assert out.reason is Reason.LOSS_EIGHT_EARLY and out.winner == 1


def test_loss_eight_off_the_table():
    s = playing({3, 8}, 0, SOLIDS_P0)
    nxt, out = rule(s, CalledShot.shot(3, "lb"), log(hit(0, 3), hit(3, 8), rail(8)),
                    off_table=frozenset({8}))
    assert out.reason is Reason.LOSS_EIGHT_OFF_TABLE and out.winner == 1
    assert out.fouls == (Foul.OBJECT_BALL_OFF_TABLE,) and nxt.winner == 1


def test_clearing_the_group_puts_the_shooter_on_the_eight():
    s = playing({3, 8, 9}, 0, SOLIDS_P0)
    nxt, out = rule(s, CalledShot.shot(3, "lb"), log(hit(0, 3), pot(3, "lb")))
    assert out.reason is Reason.CALLED_BALL_POCKETED and nxt.legal_targets() == {8}


def test_a_finished_rack_takes_no_more_shots():
    done, _ = rule(ON_EIGHT, CalledShot.shot(8, "rt"), log(hit(0, 8), pot(8, "rt")))
    with pytest.raises(ValueError, match="rack is over"):
        rule(done, CalledShot.shot(9, "lb"), log(hit(0, 9)))


# ---- bad calls and logs are refused ---------------------------------------------------------
@pytest.mark.parametrize("call,match", [
    (None, "needs a call"),
    (CalledShot.shot(11, "lb"), "not a legal target"),       # opponent's ball
    (CalledShot.shot(8, "lb"), "not a legal target"),        # the 8 before the group is cleared
    (CalledShot.shot(3, "xx"), "called pocket")])
def test_bad_calls_are_refused(call, match):
    with pytest.raises(ValueError, match=match):
        rule(playing(groups=SOLIDS_P0), call, log(hit(0, 3), rail(3)))


def test_events_naming_a_ball_not_in_play_are_refused():
    with pytest.raises(ValueError, match=r"\[5\]"):
        rule(playing(ALL - {5}, 0, SOLIDS_P0), CalledShot.shot(3, "lb"),
             log(hit(0, 3), pot(5, "lb")))


# ---- a rack played through ------------------------------------------------------------------
def test_a_short_rack_from_break_to_win():
    s = GameState(frozenset({1, 8, 9, 10}), 0, None, True, InHand.BEHIND_HEAD_STRING)
    s, out = rule(s, None, log(hit(0, 1), pot(10, "rt")))                 # break, 10 down
    assert out.reason is Reason.BREAK_BALL_POCKETED and s.shooter == 0
    s, out = rule(s, CalledShot.shot(1, "lb"), log(hit(0, 1), rail(1)))   # miss
    assert out.reason is Reason.MISS and s.shooter == 1 and s.is_open
    s, out = rule(s, CalledShot.shot(9, "lc"), log(hit(0, 9), pot(9, "lc")))
    assert s.groups == ("solid", "stripe") and s.shooter == 1 and s.legal_targets() == {8}
    s, out = rule(s, CalledShot.shot(8, "rc"), log(hit(0, 8), pot(0, "lt")))  # scratch
    assert out.fouls == (Foul.SCRATCH,) and s.shooter == 0 and s.in_hand is InHand.ANYWHERE
    s, out = rule(s, CalledShot.shot(1, "rb"), log(hit(0, 1), pot(1, "rb")))
    assert s.legal_targets() == {8} and s.in_hand is InHand.NONE
    s, out = rule(s, CalledShot.shot(8, "lb"), log(hit(0, 8), pot(8, "lb")))
    assert out.reason is Reason.WIN and s.winner == 0 and s.shot_number == 6


# ---- properties over arbitrary shots --------------------------------------------------------
BALL = st.integers(0, 15)
EVENT = st.one_of(
    st.tuples(st.just(EV_BALL_BALL), BALL, BALL).filter(lambda e: e[1] != e[2]),
    st.tuples(st.sampled_from([EV_LINEAR_CUSHION, EV_CIRCULAR_CUSHION]), BALL, st.integers(0, 17)),
    st.tuples(st.just(EV_POCKET), BALL, st.integers(0, 5)))


@st.composite
def shots(draw):
    events, seen = [], set()
    for k, a, b in draw(st.lists(EVENT, max_size=12)):
        if k == EV_POCKET:
            if a in seen:
                continue
            seen.add(a)
        events.append((k, a, b))
    return log(*events)


@settings(max_examples=300, deadline=None)
@given(groups=st.sampled_from([None, ("solid", "stripe"), ("stripe", "solid")]),
       shooter=st.integers(0, 1), events=shots(), safety=st.booleans(), data=st.data())
def test_ruling_invariants(groups, shooter, events, safety, data):
    state = GameState(ALL, shooter, groups)
    call = CalledShot.safe() if safety else CalledShot.shot(
        data.draw(st.sampled_from(sorted(state.legal_targets()))),
        data.draw(st.sampled_from(POCKET_IDS)))
    nxt, out = referee(state, call, events)
    assert nxt.object_balls <= state.object_balls
    assert nxt.shot_number == state.shot_number + 1
    assert out.turn_continues == (nxt.shooter == shooter and not nxt.is_over)
    assert (nxt.winner is not None) == (out.reason.value.startswith(("win", "loss")))
    if out.fouls and nxt.winner is None:
        assert nxt.shooter != shooter and nxt.in_hand is InHand.ANYWHERE
    if out.turn_continues:
        assert out.fouls == () and out.called_made and not safety
    if groups is not None:
        assert nxt.groups == groups
    elif nxt.groups is not None:
        assert out.reason is Reason.CALLED_BALL_POCKETED
        assert nxt.groups[shooter] == ("solid" if call.ball < 8 else "stripe")
