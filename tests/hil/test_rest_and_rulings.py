"""Rest-detection timing and the referee, replayed from a sim recording's frames as the service
read them: today's rest detector finds rest at the recorded frame, within rest_frames - 1 frames
after the balls really stopped; a detector 10x too tight or too loose, or counting too few or too
many frames, is caught by the suite's thresholds; the referee, fed the frames the service fed
it, rules every shot as recorded, and a ruling recorded otherwise is named."""
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import yaml

from controller.cli import main
from hil.frames import VisionSpec, build_rig
from hil.recording import read_run
from hil.rest import STOPPED, RestSpec, rest_detector, rest_summary, rest_timing
from hil.rulings import replay_rulings
from hil.sightings import captures, frame_interval, service_view, shot_windows
from hil.suites import load_suite
from hil.thresholds import violations

SUITE = Path(__file__).resolve().parents[2] / "hil" / "suites" / "sim_game.yaml"


@pytest.fixture(scope="module")
def seen(sim_recording, replays):
    """The recording, its rig, today's detections (those of the suite's clean replay), the frames
    as the service read them, its shot windows and frame interval, and its rest detector
    (rest_frames, tolerance)."""
    rec = read_run(sim_recording)
    rig = build_rig(rec.root, VisionSpec())
    results = replays([sim_recording], load_suite(SUITE, regenerate=False).tolerance).results[str(sim_recording)]
    assert [r.i for r in results] == [f["i"] for f in rec.frames]
    detector = rest_detector(rec.root, RestSpec())
    dt = frame_interval(results)
    caps = captures(results, dt, detector[0])
    return rec, rig, results, service_view(results, caps), shot_windows(results, caps), dt, detector


def rest_thresholds():
    return {k: v for k, v in load_suite(SUITE, regenerate=False).thresholds.items() if k.startswith("rest_")}


def test_rest_is_found_at_the_recorded_frame_after_the_balls_stop(seen):
    rec, _, results, sightings, windows, dt, (rest_frames, tol) = seen
    assert (rest_frames, tol) == (5, 0.0015) and dt == pytest.approx(1 / 15)      # the recording's service.yaml, fps
    entries = rest_timing(windows, results, sightings, rec.truth, dt, rest_frames, tol)
    last_shot_frame = {}
    for f in rec.frames:                   # the service stops recording a shot where it found rest
        if f["kind"] == "shot":
            last_shot_frame[f["shot"]] = f["i"]
    assert [e["shot"] for e in entries] == sorted(last_shot_frame) == [0, 1, 2, 3]
    for e in entries:
        assert e["recorded_i"] == e["replayed_i"] == last_shot_frame[e["shot"]]
        assert e["delay_s"] == e["delay_frames"] == 0
        # the balls really stopped at the truth's stop frame: it equals the window's last truth,
        # the frame before it does not
        stop, before_stop = rec.truth[e["stopped_i"]], rec.truth[e["stopped_i"] - 1]
        end = rec.truth[e["recorded_i"] + 1]                       # the capture after the shot
        xy = {b["id"]: (b["x"], b["y"]) for b in end["balls"]}
        assert all(np.hypot(b["x"] - xy[b["id"]][0], b["y"] - xy[b["id"]][1]) <= STOPPED for b in stop["balls"])
        assert any(np.hypot(b["x"] - xy[b["id"]][0], b["y"] - xy[b["id"]][1]) > STOPPED
                   for b in before_stop["balls"] if b["id"] in xy)
        # found at rest no earlier than the stop and at most rest_frames - 1 frames after it
        assert 0 <= e["lag_frames"] <= rest_frames - 1
        assert e["lag_s"] == pytest.approx(e["lag_frames"] / 15, abs=1e-6)
    assert violations({"rest": rest_summary(entries, [(rest_frames, tol)])}, rest_thresholds()) == []


@pytest.mark.parametrize("degraded, caught", [
    (RestSpec(tolerance=0.00015), {"rest_missed_max", "rest_delay_frames_max",
                                   "rest_lag_frames_max"}),     # 10x too tight: late, or never
    (RestSpec(tolerance=0.015), {"rest_delay_frames_min", "rest_lag_frames_min"}),   # 10x too loose: early
    (RestSpec(frames=2), {"rest_delay_frames_min", "rest_lag_frames_min"}),          # too few frames: early
    (RestSpec(frames=7), {"rest_delay_frames_max"}),   # too many: 2 frames late, inside the capture recorded
], ids=["tolerance/10", "tolerance*10", "2 frames", "7 frames"])
def test_a_degraded_rest_detector_is_caught(seen, degraded, caught):
    rec, _, results, sightings, windows, dt, _ = seen
    detector = rest_detector(rec.root, degraded)
    entries = rest_timing(windows, results, sightings, rec.truth, dt, *detector)
    bad = violations({"rest": rest_summary(entries, [detector])}, rest_thresholds())
    assert {v.split(":")[0] for v in bad} == caught, bad


@dataclass(frozen=True)
class Frame:
    i: int
    t: float
    kind: str
    shot: int | None


def test_captures_are_runs_of_consecutive_rest_frames():
    dt = 1 / 30
    frames = ([Frame(i, i * dt, "rest", 0) for i in range(3)]                    # a capture of 3
              + [Frame(10 + i, (10 + i) * dt, "rest", 0) for i in range(7)]      # 7 in a row: 5 + 2
              + [Frame(17, 17 * dt, "shot", 0), Frame(18, 18 * dt, "rest", 1)]  # another shot number
              + [Frame(19, 19 * dt, "rest", 2)])
    caps = captures(frames, frame_interval(frames), rest_frames=5)
    assert [[frames[k].i for k in c] for c in caps] == [[0, 1, 2], [10, 11, 12, 13, 14], [15, 16], [18], [19]]
    assert captures(frames[:1], frame_interval(frames[:1]), 5) == [[0]]


def test_the_referee_reads_what_the_service_read_and_a_changed_ruling_is_named(seen):
    rec, rig, results, sightings, windows, _, _ = seen
    rest_frames = 5                        # the recording's service.yaml: every capture is 5 frames
    for n, w in windows.items():           # the capture before the shot and the one after it
        assert [results[k].kind for k in w.before + w.after] == ["rest"] * (2 * rest_frames)
        assert results[w.before[-1]].i + 1 == results[w.moving[0]].i and results[w.after[0]].shot == n
    got = replay_rulings(rec.shots, windows, sightings, rig.table, rig.R)
    assert (got["replayed"], got["rulings_agree"], got["facts_agree"], got["disagreements"]) == (4, 4, 4, [])
    shots = json.loads(json.dumps(rec.shots))
    assert shots[3]["ruling"]["reason"] == "safety" and shots[3]["observed"]["facts"]["first_contact"] == 15
    shots[3]["ruling"]["reason"] = "foul"
    shots[3]["observed"]["facts"]["first_contact"] = 14
    got = replay_rulings(shots, windows, sightings, rig.table, rig.R)
    assert got["disagreements"] == [{"shot": 3, "recorded": "foul", "replayed": "safety"}]
    assert got["facts_agree"] == 3
    del shots[1]["plan"]["shot"]["phi"]          # a hand-written record without the aim
    with pytest.raises(ValueError, match=r"^shot 1: the record has no plan\.shot\.phi$"):
        replay_rulings(shots, windows, sightings, rig.table, rig.R)


def test_the_cli_replays_another_rest_detector_and_names_the_threshold(sim_break, tmp_path, capsys):
    service = tmp_path / "service.yaml"
    text = (sim_break / "config" / "service.yaml").read_text()
    assert "rest_frames: 5 " in text
    service.write_text(text.replace("rest_frames: 5 ", "rest_frames: 2 "))
    limits = tmp_path / "thresholds.yaml"
    suite = load_suite(SUITE, regenerate=False)
    limits.write_text(yaml.safe_dump({**suite.thresholds, "planner_tolerance": suite.tolerance}))
    report = tmp_path / "r.html"
    code = main(["hil", "replay", str(sim_break), "--thresholds", str(limits), "--service", str(service),
                 "--json", "--workers", "2", "--report", str(report)])
    out, err = capsys.readouterr()
    assert code == 1
    assert "threshold violated: rest_delay_frames_min: -" in err
    s = json.loads(out)
    assert s["rest"]["detectors"] == [{"rest_frames": 2, "rest_tolerance_m": 0.0015}]
    assert [e["shot"] for e in s["rest"]["per_shot"]] == [0] and s["rest"]["per_shot"][0]["delay_frames"] < -1
    assert [v for v in s["violations"] if not v.startswith("rest_")] == []
    page = report.read_text()                     # the report shows where: the shot's row, marked
    row = page[page.index("<h2>Rest-detection timing</h2>"):].split("<tr class='bad'>")
    assert len(row) == 2 and row[1].startswith(f"<td>{sim_break}</td><td>0</td>")
