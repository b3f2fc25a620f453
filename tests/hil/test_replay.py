"""Replay: a sim recording replays clean against its suite's thresholds; a degraded detector
(a wrong ball radius, a shifted camera pose) fails it, the threshold named and the frames drawn."""
import json
from pathlib import Path

import yaml

from controller.cli import main
from hil.frames import VisionSpec
from hil.replay import replay
from hil.suites import load_suite
from hil.thresholds import violations

SUITE = Path(__file__).resolve().parents[2] / "hil" / "suites" / "sim_break.yaml"


def thresholds():
    suite = load_suite(SUITE, regenerate=False)
    assert suite.sim == [{"seed": 5, "shots": 1, "fps": 15}]     # the fixture's recording
    return suite.thresholds


def test_sim_recording_replays_clean(sim_recording):
    res = replay([sim_recording], VisionSpec(), workers=2)
    s = res.summary
    assert violations(s, thresholds()) == []
    assert s["frames"] == s["detection"]["frames"] == s["recordings"][0]["frames_with_truth"] > 50
    assert s["referee"]["replayed"] == s["referee"]["shots"] == 1
    assert s["referee"]["rulings_agree"] == 1
    json.dumps(s, allow_nan=False)


def test_a_wrong_radius_is_caught(sim_recording):
    res = replay([sim_recording], VisionSpec(radius_scale=1.25), workers=2)
    bad = violations(res.summary, thresholds())
    assert any(v.startswith("recall_min:") for v in bad), bad


def test_a_shifted_camera_pose_fails_the_cli(sim_recording, tmp_path, capsys):
    cam = yaml.safe_load((sim_recording / "config" / "camera.yaml").read_text())
    cam["pose"]["tvec"][0] += 0.004                  # 4 mm off along the camera's x axis
    shifted = tmp_path / "shifted.yaml"
    shifted.write_text(yaml.safe_dump(cam))
    limits = tmp_path / "t.yaml"
    limits.write_text(yaml.safe_dump({k: v for k, v in thresholds().items() if k != "ruling_agreement_min"}))
    report = tmp_path / "r.html"
    code = main(["hil", "replay", str(sim_recording), "--camera", str(shifted), "--thresholds", str(limits),
                 "--report", str(report), "--json", "--workers", "2"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "threshold violated: centre_error_mm_p95_max" in err
    s = json.loads(out)
    assert s["detection"]["centre_error_mm"]["p95"] > 1.0 and s["detection"]["recall"] > 0.99
    page = report.read_text()
    assert "centre_error_mm_p95_max" in page and page.count("data:image/png;base64,") == len(s["worst_frames"]) > 0
