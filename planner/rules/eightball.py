"""The 8-ball referee: one shot's event log in, the next game state and the ruling out.

Rules: WPA World Standardized Rules, eight ball (section numbers in the comments; the edition,
every rule applied and the simplifications are in docs/rules.md).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from planner.physics.eventlog import EventLog
from planner.rules.facts import ShotFacts, read_shot
from planner.rules.game import CalledShot, GameState, InHand
from planner.state import CUE, EIGHT, ball_class
from planner.table import POCKET_IDS


class Foul(enum.Enum):
    """Standard fouls (WPA 3.9, 6.1-6.3 and ball driven off the table)."""
    SCRATCH = "scratch"                                # cue ball pocketed (6.1)
    CUE_BALL_OFF_TABLE = "cue_ball_off_table"          # (6.1)
    NO_CONTACT = "no_contact"                          # cue ball touched no ball (6.3)
    WRONG_BALL_FIRST = "wrong_ball_first"              # first contact not a legal target (6.2, 3.4)
    NO_RAIL = "no_rail"                                # nothing pocketed, no cushion after contact (6.3)
    OBJECT_BALL_OFF_TABLE = "object_ball_off_table"    # ball driven off the table


class Reason(enum.Enum):
    """Why the ruling came out as it did; one per shot (WPA section in brackets)."""
    BREAK_BALL_POCKETED = "break_ball_pocketed"        # legal break, ball down: go on (3.3c)
    BREAK_EIGHT_SPOTTED = "break_eight_spotted"        # 8 down, legal break: spot it, go on (3.3e)
    BREAK_NO_BALL_POCKETED = "break_no_ball_pocketed"  # four balls to a rail, nothing down (3.3d)
    ILLEGAL_BREAK = "illegal_break"                    # nothing down, < 4 balls to a rail (3.3d)
    BREAK_FOUL = "break_foul"                          # ball in hand in the kitchen (3.3)
    CALLED_BALL_POCKETED = "called_ball_pocketed"      # called ball in called pocket (3.5)
    MISS = "miss"                                      # legal shot, called ball not made (3.5)
    SAFETY = "safety"                                  # legal called safety (3.6)
    FOUL = "foul"                                      # ball in hand anywhere (3.9)
    WIN = "win"                                        # 8 legally in the called pocket
    LOSS_EIGHT_EARLY = "loss_eight_early"              # before the group was cleared (3.8)
    LOSS_EIGHT_UNCALLED_POCKET = "loss_eight_uncalled_pocket"  # (3.8)
    LOSS_EIGHT_WITH_FOUL = "loss_eight_with_foul"      # foul on the shot that pocketed it (3.8)
    LOSS_EIGHT_OFF_TABLE = "loss_eight_off_table"      # (3.8)


@dataclass(frozen=True)
class Outcome:
    """The ruling on one shot.

    reason: the machine-readable ruling; message: the same as a sentence for people.
    turn_continues: the same player shoots next.
    fouls: every standard foul committed on the shot (empty if none).
    pocketed: (ball id, pocket id) in the order the balls dropped, the cue ball included.
    called_made: the called ball dropped in the called pocket (False on a break or safety),
        whether or not the shot was legal; for straight-in statistics.
    spotted: balls to put back on the foot spot (WPA 1.4) before the next shot: the 8 after a
        break that pocketed it or drove it off the table.
    winner: the player who won the rack on this shot, or None.
    legal_break: on a break, whether it met 3.3(d); None on other shots.
    """
    reason: Reason
    message: str
    turn_continues: bool
    fouls: tuple[Foul, ...]
    pocketed: tuple[tuple[int, str], ...]
    called_made: bool
    spotted: tuple[int, ...]
    winner: int | None
    legal_break: bool | None


def referee(state: GameState, call: CalledShot | None, events: EventLog, *,
            pocket_ids: tuple[str, ...] = POCKET_IDS,
            off_table: frozenset[int] = frozenset()) -> tuple[GameState, Outcome]:
    """Rule on one shot under WPA eight ball (docs/rules.md). Pure.

    state: the game before the shot (not over).
    call: None for the break; otherwise the shooter's CalledShot: a ball from
        ``state.legal_targets()`` and a pocket id from ``pocket_ids``, or a called safety.
    events: the shot's physics event log (planner.physics.eventlog), events in time order.
    pocket_ids: the table's pocket ids in the index order EV_POCKET events use (Table.pocket_ids).
    off_table: balls that left the table during the shot (cue ball included if it did).
    Returns (the game state before the next shot, the ruling).
    Raises ValueError if the rack is already over, the call is missing, given on a break,
    names an unknown pocket or a ball that is not a legal target, or the events name a ball
    that was not in play.
    """
    return rule(state, call, read_shot(events, tuple(pocket_ids), off_table), pocket_ids=pocket_ids)


def rule(state: GameState, call: CalledShot | None, facts: ShotFacts, *,
         pocket_ids: tuple[str, ...] = POCKET_IDS) -> tuple[GameState, Outcome]:
    """``referee`` on the facts of a shot already read from its event log (planner.rules.facts);
    same contract. Pure."""
    if state.is_over:
        raise ValueError(f"the rack is over (player {state.winner} won); start a new rack")
    _check_balls_in_play(state, facts)
    if state.is_break:
        if call is not None:
            raise ValueError(f"the break takes no call, got {call}")
        return _rule_break(state, facts)
    _check_call(state, call, tuple(pocket_ids))
    return _rule_shot(state, call, facts)


def _check_balls_in_play(state: GameState, facts: ShotFacts) -> None:
    in_play = state.object_balls | {CUE}
    named = set(facts.pocketed_ids) | set(facts.off_table) | set(facts.balls_to_rail)
    if facts.first_contact is not None:
        named.add(facts.first_contact)
    stray = sorted(named - in_play)
    if stray:
        raise ValueError(f"the event log names balls {stray} that were not in play "
                         f"(in play: cue ball and {sorted(state.object_balls)})")


def _check_call(state: GameState, call: CalledShot | None, pocket_ids: tuple[str, ...]) -> None:
    if call is None:
        raise ValueError("every shot but the break needs a call: CalledShot.shot(ball, pocket) "
                         "or CalledShot.safe() (WPA 3.6)")
    if call.safety:
        return
    if call.pocket not in pocket_ids:
        raise ValueError(f"called pocket must be one of {pocket_ids}, got {call.pocket!r}")
    targets = state.legal_targets()
    if call.ball not in targets:
        raise ValueError(f"called ball {call.ball} is not a legal target for player "
                         f"{state.shooter}; legal: {sorted(targets)} (WPA 3.4, 3.6)")


def _fouls(facts: ShotFacts, targets: frozenset[int] | None) -> tuple[Foul, ...]:
    """Standard fouls of a shot. ``targets`` None: the break (no first-contact or rail rule)."""
    fouls = []
    if CUE in facts.pocketed_ids:
        fouls.append(Foul.SCRATCH)
    if CUE in facts.off_table:
        fouls.append(Foul.CUE_BALL_OFF_TABLE)
    if targets is not None:
        if facts.first_contact is None:
            fouls.append(Foul.NO_CONTACT)
        else:
            if facts.first_contact not in targets:
                fouls.append(Foul.WRONG_BALL_FIRST)
            if not facts.pocketed and not facts.rail_after_contact:
                fouls.append(Foul.NO_RAIL)
    if facts.off_table - {CUE}:
        fouls.append(Foul.OBJECT_BALL_OFF_TABLE)
    return tuple(fouls)


def _rule_break(state: GameState, facts: ShotFacts) -> tuple[GameState, Outcome]:
    """WPA 3.3. Choices among the rules' options are fixed as docs/rules.md states."""
    fouls = _fouls(facts, None)
    object_down = facts.pocketed_ids - {CUE}
    legal = bool(object_down) or len(facts.balls_to_rail) >= 4
    eight_out = EIGHT in object_down or EIGHT in facts.off_table
    spotted = (EIGHT,) if eight_out else ()
    balls = (state.object_balls - object_down - facts.off_table) | set(spotted)
    breaker, other = state.shooter, 1 - state.shooter
    eight_note = " The 8 is spotted." if eight_out else ""
    if fouls:
        reason, nxt, in_hand = Reason.BREAK_FOUL, other, InHand.BEHIND_HEAD_STRING
        message = (f"Foul on the break ({_foul_list(fouls)}).{eight_note} Player {other} has "
                   f"ball in hand behind the head string; the table is open.")
    elif not legal:
        reason, nxt, in_hand = Reason.ILLEGAL_BREAK, other, InHand.NONE
        message = (f"Illegal break: no ball pocketed and only {len(facts.balls_to_rail)} object "
                   f"balls reached a rail. Player {other} accepts the table in position.")
    elif EIGHT in object_down:
        reason, nxt, in_hand = Reason.BREAK_EIGHT_SPOTTED, breaker, InHand.NONE
        message = (f"The 8 was pocketed on a legal break and is spotted; player {breaker} "
                   f"continues on an open table.")
    elif object_down:
        reason, nxt, in_hand = Reason.BREAK_BALL_POCKETED, breaker, InHand.NONE
        message = (f"Legal break, {_ball_list(object_down)} pocketed; player {breaker} continues "
                   f"on an open table.")
    else:
        reason, nxt, in_hand = Reason.BREAK_NO_BALL_POCKETED, other, InHand.NONE
        message = f"Legal break, nothing pocketed; player {other} to shoot on an open table."
    next_state = replace(state, object_balls=balls, shooter=nxt, groups=None, is_break=False,
                         in_hand=in_hand, shot_number=state.shot_number + 1)
    return next_state, Outcome(reason, message, nxt == breaker, fouls, facts.pocketed, False,
                               spotted, None, legal)


def _rule_shot(state: GameState, call: CalledShot,
               facts: ShotFacts) -> tuple[GameState, Outcome]:
    """WPA 3.4-3.9 for every shot after the break."""
    targets = state.legal_targets()
    fouls = _fouls(facts, targets)
    shooter, other = state.shooter, 1 - state.shooter
    called_made = not call.safety and facts.pocket_of(call.ball) == call.pocket
    balls = state.object_balls - facts.pocketed_ids - facts.off_table
    eight_pocket = facts.pocket_of(EIGHT)

    end = _rack_end(call, facts, fouls, targets, eight_pocket)
    if end is not None:
        reason, message = end
        winner = shooter if reason is Reason.WIN else other
        message += f" Player {winner} wins the rack."
        next_state = replace(state, object_balls=balls, in_hand=InHand.NONE, winner=winner,
                             shot_number=state.shot_number + 1)
        return next_state, Outcome(reason, message, False, fouls, facts.pocketed, called_made,
                                   (), winner, None)

    groups = state.groups
    if fouls:
        reason, nxt, in_hand = Reason.FOUL, other, InHand.ANYWHERE
        message = f"Foul: {_foul_list(fouls)}. Player {other} has ball in hand anywhere."
    elif call.safety:
        reason, nxt, in_hand = Reason.SAFETY, other, InHand.NONE
        message = f"Legal safety; player {other} to shoot."
    elif called_made:
        reason, nxt, in_hand = Reason.CALLED_BALL_POCKETED, shooter, InHand.NONE
        message = f"{_name(call.ball).capitalize()} made in {call.pocket}; player {shooter} continues."
        if groups is None:
            mine = ball_class(call.ball)
            theirs = "stripe" if mine == "solid" else "solid"
            groups = (mine, theirs) if shooter == 0 else (theirs, mine)
            message += f" Player {shooter} takes the {mine}s, player {other} the {theirs}s."
    else:
        reason, nxt, in_hand = Reason.MISS, other, InHand.NONE
        message = f"{_name(call.ball).capitalize()} not made in {call.pocket}; player {other} to shoot."
    next_state = replace(state, object_balls=balls, shooter=nxt, groups=groups, in_hand=in_hand,
                         shot_number=state.shot_number + 1)
    return next_state, Outcome(reason, message, nxt == shooter, fouls, facts.pocketed,
                               called_made, (), None, None)


def _rack_end(call: CalledShot, facts: ShotFacts, fouls: tuple[Foul, ...],
              targets: frozenset[int], eight_pocket: str | None) -> tuple[Reason, str] | None:
    """WPA 3.8 (losing the rack) and the win; None if the 8 stayed in play."""
    if EIGHT in facts.off_table:
        return Reason.LOSS_EIGHT_OFF_TABLE, "The 8 was driven off the table."
    if eight_pocket is None:
        return None
    if EIGHT not in targets:
        return Reason.LOSS_EIGHT_EARLY, "The 8 was pocketed before the shooter's group was cleared."
    if call.safety or call.pocket != eight_pocket:
        called = "a safety" if call.safety else call.pocket
        return (Reason.LOSS_EIGHT_UNCALLED_POCKET,
                f"The 8 dropped in {eight_pocket}, but the call was {called}.")
    if fouls:
        return Reason.LOSS_EIGHT_WITH_FOUL, f"The 8 was pocketed on a foul ({_foul_list(fouls)})."
    return Reason.WIN, f"The 8 was pocketed in the called pocket {eight_pocket}."


def _name(ball: int) -> str:
    return "the cue ball" if ball == CUE else f"the {ball}"


def _ball_list(balls) -> str:
    return ", ".join(_name(b) for b in sorted(balls))


def _foul_list(fouls: tuple[Foul, ...]) -> str:
    return ", ".join(f.value.replace("_", " ") for f in fouls)
