"""What the commands write and print: atomic files, a legal rendered rack, truth keyed as detection
is, the overlay written beside --json, only the command's own link removed, the run's shot line in
words, the reference's break statistics, the physics targets, the throw table's cache."""
from __future__ import annotations

import json

import numpy as np
import pytest

from config.atomic import atomic_path, write_atomic
from controller.cli import main


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "keep.json"
    write_atomic(target, "old\n")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half of the new")
        raise RuntimeError("interrupted")
    assert target.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["keep.json"]
    write_atomic(target, b"new\n")
    assert target.read_bytes() == b"new\n" and [p.name for p in tmp_path.iterdir()] == ["keep.json"]


def test_render_rack_is_legal_and_its_truth_has_detections_keys(tmp_path, capsys):
    from planner.state import SOLIDS, STRIPES

    img, truth = tmp_path / "rack.png", tmp_path / "truth.json"
    assert main(["vision", "render", str(img), "--rack", "--seed", "5", "--truth", str(truth)]) == 0
    balls = json.loads(truth.read_text())["balls"]
    assert all(isinstance(b["label"], str) and "id" not in b for b in balls)
    objects = sorted((b for b in balls if b["label"] != "0"), key=lambda b: b["y_m"])     # apex first (+y: foot)
    rows = [sorted(objects[i:j], key=lambda b: b["x_m"]) for i, j in ((0, 1), (1, 3), (3, 6), (6, 10), (10, 15))]
    assert [len({round(b["y_m"], 3) for b in r}) for r in rows] == [1] * 5      # five rows of 1..5 balls
    assert rows[2][1]["label"] == "8"                                           # centre of the third row
    corners = {int(rows[4][0]["label"]), int(rows[4][-1]["label"])}
    assert len(corners & set(SOLIDS)) == 1 and len(corners & set(STRIPES)) == 1  # a solid and a stripe
    capsys.readouterr()
    assert main(["vision", "detect", str(img), "--json"]) == 0
    detected = json.loads(capsys.readouterr().out)["balls"]
    assert {b["label"] for b in detected} == {b["label"] for b in balls}


def test_detect_json_with_overlay_writes_it_and_keeps_stdout_json(tmp_path, capsys):
    img, ov = tmp_path / "f.png", tmp_path / "ov.png"
    assert main(["vision", "render", str(img), "--seed", "2"]) == 0
    capsys.readouterr()
    assert main(["vision", "detect", str(img), "--json", "--overlay", str(ov)]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["balls"] and f"wrote {ov}" in out.err
    import cv2
    assert cv2.imread(str(ov)).shape[0] == cv2.imread(str(img)).shape[0]


def test_sim_robot_removes_only_the_link_it_made(tmp_path):
    from config.robot import load_robot_settings
    from config.sim import load_sim_settings
    from controller.sim.robot import SimRobot
    from controller.sim.world import RecordingWorld

    link = tmp_path / "robot"
    robot = SimRobot(load_sim_settings(), load_robot_settings().limits, RecordingWorld(None), link)
    robot.open()
    assert link.is_symlink()
    robot.stop()
    assert not link.exists() and not link.is_symlink()                          # its own link: gone
    robot = SimRobot(load_sim_settings(), load_robot_settings().limits, RecordingWorld(None), link)
    robot.open()
    link.unlink()
    link.write_text("someone else's file\n")                                    # replaced while it ran
    robot.stop()
    assert link.read_text() == "someone else's file\n"


def test_a_shot_line_reads_as_words():
    from controller.service.gamelog import shot_line

    def rec(call, reason, fouls=(), pocketed=()):
        return {"n": 3, "who": "greedy (robot)", "plan": {"estimate": 0.0}, "latency_s": None,
                "game_before": {"is_break": False}, "call": call,
                "ruling": {"reason": reason, "fouls": list(fouls), "pocketed": [list(p) for p in pocketed]}}
    safety = shot_line(rec({"safety": True, "ball": None, "pocket": None}, "safety"))
    assert "safety" in safety and safety.count("safety") == 1
    foul = shot_line(rec({"safety": False, "ball": 3, "pocket": "lc"}, "called_ball_pocketed", ["no_rail"],
                         [(3, "lc")]))
    assert "called ball pocketed" in foul and "FOUL no rail" in foul and "_" not in foul.split("->")[1]


def test_break_statistics_use_the_paired_differences():
    from planner.physics.reference import CaseReport, break_statistics

    rng = np.random.default_rng(0)
    n = 15
    ref = [{"result": {"pocketed": [0] * int(k), "t_end": float(t)}, "summary": {"n_linear_cushion": int(c)}}
           for k, t, c in zip(rng.integers(0, 3, n), rng.uniform(6, 9, n), rng.integers(10, 25, n))]

    def ours(shift):
        reps = []
        for c in ref:
            r = CaseReport("x", "E", True)
            r.stats = {"pocketed": len(c["result"]["pocketed"]), "linear_cushion": c["summary"]["n_linear_cushion"],
                       "t_end": c["result"]["t_end"] + shift}
            reps.append(r)
        return reps
    same = break_statistics(ours(0.0), ref)
    assert all(s["ok"] and s["difference"] == 0 and s["two_se"] == 0 for s in same.values())
    noise = break_statistics(ours(1e-9), ref)["t_end"]          # floating-point noise is not a difference
    assert noise["ok"] and noise["two_se"] < 1e-9 < noise["allowed"]
    # a constant 0.1 s offset in every break: tiny beside the spread between breaks (sd ~0.9 s),
    # which an unpaired test would allow; the paired test sees it
    shifted = break_statistics(ours(0.1), ref)["t_end"]
    assert not shifted["ok"] and shifted["difference"] == pytest.approx(0.1)


def test_physics_targets_are_marked():
    from planner.physics.bench import targets

    t = targets({"two_ball_shots_per_s": 90_000.0, "break_ms_median": 1.5})
    assert t["two_ball_shots_per_s"]["met"] is False and t["break_ms_median"]["met"] is True
    assert t["two_ball_shots_per_s"]["target"] == 100_000.0 and json.dumps(t)


def test_fuzz_simulates_exactly_the_shots_asked(simulator, monkeypatch):
    import planner.physics.fuzz as fuzz

    monkeypatch.setattr(fuzz, "BATCH", 4)           # batches of 4, so that the test stays short
    done = []
    fuzz.fuzz(simulator, 10, seed=1, progress=done.append)
    assert done == [4, 4, 2]


def test_the_throw_table_is_measured_once_and_read_back(tmp_path, table_config, monkeypatch):
    import dataclasses

    import planner.throw as throw

    first = throw.load_throw(table_config.table, table_config.physics, (0.0,), tmp_path)
    assert len(list(tmp_path.glob("throw_*.npz"))) == 1

    def not_again(*a, **k):
        raise AssertionError("measured again although cached")
    monkeypatch.setattr(throw, "build_throw", not_again)
    again = throw.load_throw(table_config.table, table_config.physics, (0.0,), tmp_path)
    assert np.array_equal(again.dphi, first.dphi) and again.spins == first.spins
    other = dataclasses.replace(table_config.physics, u_s=table_config.physics.u_s * 1.1)
    with pytest.raises(AssertionError, match="measured again"):          # other physics: another table
        throw.load_throw(table_config.table, other, (0.0,), tmp_path)
