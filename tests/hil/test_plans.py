"""Planner agreement: the planner built from a recording's own configuration and seeds decides
its planned shots again as recorded; a plan that differs beyond the thresholds file's tolerance,
or a planner configuration that changed, is a named disagreement."""
import json
import shutil

import pytest
import yaml

from controller.cli import main
from hil.plans import TOLERANCE, replay_plans
from hil.recording import read_run
from hil.thresholds import ThresholdError, load_thresholds


def copy_without_frames(src, dst):
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.png"))
    return dst


def rewrite_first_plan(rec_dir, **shot):
    lines = (rec_dir / "game.jsonl").read_text().splitlines()
    out, done = [], False
    for line in lines:
        r = json.loads(line)
        if r["type"] == "shot" and not done:
            r["plan"]["shot"].update(shot)
            done = True
        out.append(json.dumps(r))
    (rec_dir / "game.jsonl").write_text("\n".join(out) + "\n")


def test_the_recorded_decisions_are_decided_again_as_recorded(sim_recording):
    rec = read_run(sim_recording)
    assert [(s["robot"], s["plan"]["kind"]) for s in rec.shots] == [
        (True, "break"), (False, "straight"), (False, "straight"), (False, "safety")]
    got = replay_plans(rec)
    assert got == {"decisions": 4, "agree": 4, "robot_decisions": 1, "robot_agree": 1, "capped": 0,
                   "disagreements": []}


def test_a_plan_beyond_tolerance_disagrees_and_the_file_tolerance_decides(sim_recording, tmp_path):
    rec_dir = copy_without_frames(sim_recording, tmp_path / "rec")
    phi = read_run(rec_dir).shots[0]["plan"]["shot"]["phi"]
    rewrite_first_plan(rec_dir, phi=phi + 0.1)             # 0.1 deg off: twice the default tolerance
    got = replay_plans(read_run(rec_dir))
    assert got["agree"] == 3 and [d["shot"] for d in got["disagreements"]] == [0]
    (what,) = got["disagreements"][0]["differences"]
    assert what.startswith(f"phi {phi + 0.1:.4f} -> ") and what.endswith(" deg")
    assert replay_plans(read_run(rec_dir), {"phi": 0.11})["agree"] == 4
    assert TOLERANCE["phi"] < 0.1


def test_the_recordings_planner_config_is_used_and_the_cli_names_the_threshold(sim_recording, tmp_path, capsys):
    rec_dir = copy_without_frames(sim_recording, tmp_path / "rec")
    cfg = rec_dir / "config" / "planner.yaml"
    data = yaml.safe_load(cfg.read_text())
    assert data["robot"]["v_break"] == read_run(rec_dir).shots[0]["plan"]["shot"]["V"] == 3.8
    data["robot"]["v_break"] = 3.5                        # the break as a changed planner would play it
    cfg.write_text(yaml.safe_dump(data))
    limits = tmp_path / "t.yaml"
    limits.write_text(yaml.safe_dump({"planner_agreement_min": 1.0, "planner_tolerance": {"V": 0.4}}))
    assert main(["hil", "replay", str(rec_dir), "--thresholds", str(limits), "--json", "--workers", "1"]) == 0
    capsys.readouterr()
    limits.write_text(yaml.safe_dump({"planner_agreement_min": 1.0, "planner_tolerance": {"V": 0.1}}))
    assert main(["hil", "replay", str(rec_dir), "--thresholds", str(limits), "--json", "--workers", "1"]) == 1
    out, err = capsys.readouterr()
    assert "threshold violated: planner_agreement_min: 0.75 < 1" in err      # the break alone differs
    s = json.loads(out)
    assert s["planner"]["agreement"] == 0.75 and s["planner"]["robot_agreement"] == 0.0
    assert s["planner"]["disagreements"][0]["differences"] == ["V 3.8000 -> 3.5000 m/s"]


def test_a_bad_tolerance_is_named(tmp_path):
    bad = tmp_path / "t.yaml"
    bad.write_text(yaml.safe_dump({"recall_min": 0.9, "planner_tolerance": {"phi": -1}}))
    with pytest.raises(ThresholdError, match=r"t\.yaml: planner_tolerance\.phi must be a number >= 0, got -1"):
        load_thresholds(bad)
    bad.write_text(yaml.safe_dump({"planner_tolerance": {"psi": 1}}))
    with pytest.raises(ThresholdError, match=r"unknown planner_tolerance key 'psi'"):
        load_thresholds(bad)
