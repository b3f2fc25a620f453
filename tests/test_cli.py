"""The command line as a user runs it: real processes."""
import json
import os
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


def test_main_job_plays_a_whole_game_with_no_flags(tmp_path):
    """The README's main command: a whole game through the controller service on the simulated
    hardware (pty robot, rendered camera, vision, observed referee), recorded under runs/."""
    out = subprocess.run([sys.executable, "-m", "controller.cli", "run"], capture_output=True, text=True,
                         timeout=900, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("8-ball on the sim backend, a new rack: the robot (mc)")
    assert any("mc (robot): break" in l for l in lines)
    assert lines[-1].startswith("winner: ")
    runs = list((tmp_path / "runs").glob("*/game.jsonl"))
    assert len(runs) == 1
    records = [json.loads(l) for l in runs[0].read_text().splitlines()]
    assert records[-1]["type"] == "end" and records[-1]["winner_name"] in lines[-1]


def test_perturbed_theta_never_below_horizontal():
    rng = np.random.default_rng(0)
    rows = E_HIGH.perturb(ShotParams(90.0, 0.0, 2.0), rng, 2000)
    assert (rows[:, 1] >= 0).all()
    # the other parameters keep their zero-mean noise
    assert abs(rows[:, 0].mean() - 90.0) < 4 * E_HIGH.phi / np.sqrt(2000)
    assert rows[:, 0].std() == pytest.approx(E_HIGH.phi, rel=0.1)


def test_match_records_every_game_as_a_json_line(tmp_path):
    import json

    rec_file = tmp_path / "games.jsonl"
    out = cli("match", "greedy", "greedy", "--games", "2", "--seed", "5", "--json", "--records", str(rec_file))
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout.splitlines()[-1])
    games = [json.loads(line) for line in rec_file.read_text().splitlines()]
    assert len(games) == 2 and sorted(g["seed"] for g in games) == [5, 1005]
    # the printed table follows from the saved shots: A breaks the even game (seed 5)
    wins, sis = {"A": 0, "B": 0}, {"A": [0, 0], "B": [0, 0]}
    for g in games:
        a_is = 0 if g["seed"] == 5 else 1
        label = {a_is: "A", 1 - a_is: "B"}
        if g["winner"] is not None:
            wins[label[g["winner"]]] += 1
        for s in g["shots"]:
            if s["kind"] == "straight":
                sis[label[s["player"]]][1] += 1
                sis[label[s["player"]]][0] += int(s["called_made"] and (s["turn_continues"] or s["reason"] == "win"))
    assert {k: summary["wins"][k] for k in ("A", "B")} == wins
    assert summary["sis"] == sis


def test_output_into_a_closed_pipe_stops_quietly(tmp_path):
    """`cuerobot ... | head` where head has already left: exit status 141 (128 + SIGPIPE) and
    no traceback."""
    records = tmp_path / "one.jsonl"
    records.write_text(json.dumps({"players": ["a", "b"], "seed": 1, "winner": 0, "shots": [
        {"player": 0, "kind": "break", "cue_pos": [0.5, 0.5], "reason": "break_ball_pocketed", "fouls": [],
         "turn_continues": True}]}) + "\n")
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        out = subprocess.run([sys.executable, "-m", "controller.cli", "match-report", str(records)],
                             stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert out.returncode == 141, out.stderr
    assert "Traceback" not in out.stderr and "BrokenPipeError" not in out.stderr


def test_match_report_of_an_empty_records_file_says_so(tmp_path):
    """A match killed before its first game finished leaves an empty records file: the report
    names it and exits 2 rather than printing an empty report."""
    records = tmp_path / "empty.jsonl"
    records.write_text("")
    out = subprocess.run([sys.executable, "-m", "controller.cli", "match-report", str(records)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stdout == ""
    assert f"{records}: no game records" in out.stderr
