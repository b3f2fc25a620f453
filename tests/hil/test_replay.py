"""Replay: a sim recording replays clean against its suite's thresholds (the referee reads each
shot from the frames the service read, and rules as recorded); a degraded detector (a wrong ball
radius, a shifted camera pose) fails it, the threshold named and the frames drawn."""
import json
from pathlib import Path

import yaml

from controller.cli import main
from hil.frames import VisionSpec
from hil.replay import replay
from hil.suites import load_suite
from hil.thresholds import violations

SUITE = Path(__file__).resolve().parents[2] / "hil" / "suites" / "sim_game.yaml"


def suite():
    suite = load_suite(SUITE, regenerate=False)
    assert suite.sim == [{"seed": 5, "shots": 4, "fps": 15}]     # conftest SEED, SHOTS, FPS
    return suite


def thresholds():
    return suite().thresholds


def test_sim_recording_replays_clean(sim_recording, replays):
    s = replays([sim_recording], suite().tolerance).summary     # shared with test_suites
    assert violations(s, thresholds()) == []
    assert s["frames"] == s["detection"]["frames"] == s["recordings"][0]["frames_with_truth"] > 50
    ref = s["referee"]
    assert ref["replayed"] == ref["shots"] == ref["rulings_agree"] == ref["facts_agree"] == 4
    # the referee replays exactly the frames the service read: the captures (every frame of each)
    # before and after each shot, and the shot frames
    assert ref["frames_recorded"] == ref["frames_read"]
    rest = s["rest"]
    assert rest["shots"] == rest["as_recorded"] == rest["truth_shots"] == 4 and rest["missed"] == 0
    assert rest["delay_frames"] == {"min": 0, "median": 0.0, "max": 0}
    json.dumps(s, allow_nan=False)


def test_a_wrong_radius_is_caught(sim_break):
    res = replay([sim_break], VisionSpec(radius_scale=1.25), workers=2)
    bad = violations(res.summary, thresholds())
    assert any(v.startswith("recall_min:") for v in bad), bad


def test_a_shifted_camera_pose_fails_the_cli(sim_break, tmp_path, capsys):
    cam = yaml.safe_load((sim_break / "config" / "camera.yaml").read_text())
    cam["pose"]["tvec"][0] += 0.004                  # 4 mm off along the camera's x axis
    shifted = tmp_path / "shifted.yaml"
    shifted.write_text(yaml.safe_dump(cam))
    limits = tmp_path / "t.yaml"
    limits.write_text(yaml.safe_dump({k: v for k, v in thresholds().items() if k != "ruling_agreement_min"}))
    report = tmp_path / "r.html"
    code = main(["hil", "replay", str(sim_break), "--camera", str(shifted), "--thresholds", str(limits),
                 "--report", str(report), "--json", "--workers", "2"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "threshold violated: centre_error_mm_p95_max" in err
    s = json.loads(out)
    assert s["detection"]["centre_error_mm"]["p95"] > 1.0 and s["detection"]["recall"] > 0.99
    page = report.read_text()
    assert "centre_error_mm_p95_max" in page and page.count("data:image/png;base64,") == len(s["worst_frames"]) > 0
