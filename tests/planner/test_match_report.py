"""planner.match_report on hand-built records (counts worked out by hand) and on a real game's."""
from __future__ import annotations

import json

import pytest

from planner.match import play_game
from planner.match_report import innings, load_records, loss_cause, paired, report


def _shot(player, kind, continues, cue_pos=None, reason="miss", fouls=()):
    return {"player": player, "kind": kind, "call": None, "estimate": 0.5, "executed": [0.0] * 5,
            "cue_pos": cue_pos, "reason": reason, "fouls": list(fouls), "pocketed": [], "called_made": continues,
            "turn_continues": continues, "decision_s": 0.1}


# rack 1: mc breaks and pockets a ball, misses a straight-in; greedy runs out in two shots
RACK1 = {"players": ["mc", "greedy"], "seed": 1, "winner": 1, "shots": [
    _shot(0, "break", True, cue_pos=[0.5, 0.5], reason="break_ball_pocketed"), _shot(0, "straight", False),
    _shot(1, "straight", True, reason="made"), _shot(1, "straight", True, reason="win")]}
# rack 2: greedy breaks with a scratch; mc with ball in hand plays a safety; greedy misses;
# mc runs out from the open table
RACK2 = {"players": ["greedy", "mc"], "seed": 2, "winner": 1, "shots": [
    _shot(0, "break", False, cue_pos=[0.5, 0.5], reason="break_foul", fouls=["scratch"]),
    _shot(1, "safety", False, cue_pos=[0.3, 0.4], reason="safety"), _shot(0, "straight", False),
    _shot(1, "straight", True, reason="made"), _shot(1, "straight", True, reason="win")]}
# rack 3: mc breaks dry; greedy pockets the 8 early on its first shot
RACK3 = {"players": ["mc", "greedy"], "seed": 3, "winner": 0, "shots": [
    _shot(0, "break", False, cue_pos=[0.5, 0.5], reason="break_no_ball_pocketed"),
    _shot(1, "straight", False, reason="loss_eight_early")]}


def test_innings_split_at_each_change_of_player_and_know_how_they_started():
    got = [(i.player, i.start, len(i.shots), i.ran_out) for i in innings(RACK2)]
    assert got == [(0, "break", 1, False), (1, "in_hand", 1, False), (0, "open", 1, False), (1, "open", 2, True)]
    assert [i.ran_out for i in innings(RACK1)] == [False, True]
    assert [i.ran_out for i in innings(RACK3)] == [False, False]   # the rack ended on the loser's shot


def test_loss_causes():
    assert loss_cause(RACK1) == "after straight"
    assert loss_cause(RACK2) == "after straight"
    assert loss_cause(RACK3) == "own shot: loss_eight_early"
    run = {"players": ["mc", "greedy"], "seed": 4, "winner": 0,
           "shots": [_shot(0, "break", True, reason="break_ball_pocketed"), _shot(0, "straight", True, reason="win")]}
    assert loss_cause(run) == "break and run"


def test_report_counts():
    rep = report([RACK1, RACK2, RACK3])
    mc, gr = rep["mc"], rep["greedy"]
    assert (mc["racks"], mc["wins"], mc["wins_breaking"]) == (3, 2, [1, 2])
    assert mc["breaks"] == {"n": 2, "continue": 1, "foul": 0}
    assert mc["innings"] == {"break": [2, 0], "in_hand": [1, 0], "open": [1, 1]}
    assert mc["losses"] == {"after straight": 1}
    assert (gr["racks"], gr["wins"], gr["wins_breaking"]) == (3, 1, [0, 1])
    assert gr["breaks"] == {"n": 1, "continue": 0, "foul": 1}
    assert gr["innings"] == {"open": [3, 1], "break": [1, 0]}
    assert gr["losses"] == {"after straight": 1, "own shot: loss_eight_early": 1}


def test_paired_comparison_by_rack_and_breaker():
    lost2 = dict(RACK2, winner=0)
    extra = dict(RACK1, seed=9)                     # not in the other list
    p = paired([RACK1, RACK2, RACK3, extra], [RACK1, lost2, RACK3], "mc")
    assert p == {"racks": 3, "wins": [2, 1], "breaking": {"racks": 2, "wins": [1, 1]},
                 "receiving": {"racks": 1, "wins": [1, 0]}}
    swapped = dict(RACK1, players=["greedy", "mc"])
    with pytest.raises(ValueError, match="rack 1: 'mc' broke in one record and not in the other"):
        paired([RACK1], [swapped], "mc")


def test_bad_records_name_file_and_line(tmp_path):
    f = tmp_path / "m.jsonl"
    f.write_text(json.dumps(RACK1) + "\n" + '{"players": ["a", "b"]}\n')
    with pytest.raises(ValueError, match=r"m.jsonl:2: not a game record"):
        load_records(f)
    f.write_text(json.dumps(RACK1) + "\n" + json.dumps(dict(RACK1, shots=[])) + "\n")
    with pytest.raises(ValueError, match=r"m.jsonl:2: not a game record"):   # a rack starts with its break
        load_records(f)
    shot = {k: v for k, v in RACK1["shots"][1].items() if k != "turn_continues"}
    f.write_text(json.dumps(dict(RACK1, shots=[RACK1["shots"][0], shot])) + "\n")
    with pytest.raises(ValueError, match=r"m.jsonl:1: not a game record"):
        load_records(f)
    f.write_text("\n")
    with pytest.raises(ValueError, match=r"m.jsonl: no game records"):
        load_records(f)
    with pytest.raises(ValueError, match="both players are 'mc'"):
        report([dict(RACK1, players=["mc", "mc"])])


def test_report_of_a_real_game_accounts_for_every_shot(make):
    rec = play_game(make("greedy", 1), make("prob", 2), seed=3, noise="high", max_shots=120).to_json()
    inns = innings(rec)
    assert sum(len(i.shots) for i in inns) == len(rec["shots"])
    assert all(a.player != b.player for a, b in zip(inns, inns[1:]))
    rep = report([rec])
    assert rep["greedy"]["wins"] + rep["prob"]["wins"] == 1
    loser = rec["players"][1 - rec["winner"]]
    assert sum(rep[loser]["losses"].values()) == 1
    assert sum(n for n, _ in rep["greedy"]["innings"].values()) + sum(n for n, _ in rep["prob"]["innings"].values()) == len(inns)
