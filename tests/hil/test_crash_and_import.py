"""A recorder killed with SIGKILL leaves a recording that replays up to its last frame; frames
rendered here, written as plain images plus CSV, import into a recording that replays."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from controller.cli import main
from hil.frames import VisionSpec
from hil.recording import read_jsonl, read_run
from hil.replay import replay
from vision.layouts import random_layout
from vision.render import synthetic_camera_from_config

ROOT = Path(__file__).resolve().parents[2]


def test_kill_9_while_recording_leaves_a_replayable_recording(tmp_path):
    out = tmp_path / "rec"
    proc = subprocess.Popen([sys.executable, "-c", f"from hil.simrec import record_sim_game; "
                             f"record_sim_game({str(out)!r}, seed=5, shots=3, fps=15)"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300      # a safety cap: its start took 88 s on a loaded machine
        while len(read_jsonl(out / "frames" / "index.jsonl")) < 12:     # into the break's frames
            assert proc.poll() is None and time.monotonic() < deadline, "the recorder did not get going"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    rec = read_run(out)
    index = read_jsonl(out / "frames" / "index.jsonl")
    assert len(rec.frames) == len(index) >= 12 and all(f["i"] in rec.truth for f in rec.frames)
    s = replay([out], VisionSpec(), workers=1).summary
    assert s["frames"] == s["detection"]["frames"] == len(index)
    assert s["detection"]["recall"] > 0.99
    # a shot is timed only once the capture after its frames is on disk (its frames may be cut short)
    kinds = [f["kind"] for f in index]
    complete = {f["shot"] for k, f in enumerate(index) if f["kind"] == "shot" and "rest" in kinds[k:]}
    assert [e["shot"] for e in s["rest"]["per_shot"]] == sorted(complete)
    assert s["rest"]["missed"] in (0, None)


def test_rendered_frames_with_csv_truth_import_and_replay(tmp_path, capsys, import_csv):
    sc, _ = synthetic_camera_from_config()
    rng = np.random.default_rng(11)
    frames_dir = tmp_path / "frames"
    frames_dir.mkdir()
    rows, truth_xy = [], {}
    for k in range(3):
        frame = sc.render(random_layout(sc.table, sc.R, rng), rng)
        name = f"img_{k:02d}.png"
        cv2.imwrite(str(frames_dir / name), frame.image)
        truth_xy[k] = {int(i): p for i, p in zip(frame.truth.ids, frame.truth.pos)}
        rows += [{"image": name, "x_px": q[0], "y_px": q[1], "label": int(i)}
                 for i, q in zip(frame.truth.ids, frame.truth.centre_px)]
    out = import_csv(frames_dir, rows)
    rec = read_run(out)
    assert len(rec.frames) == 3 and rec.shots == []
    for k, f in enumerate(rec.frames):           # pixels back onto the table at z = R: the rendered positions
        got = {b["id"]: (b["x"], b["y"]) for b in rec.truth[f["i"]]["balls"]}
        assert set(got) == set(truth_xy[k])
        for i, p in truth_xy[k].items():
            assert np.allclose(got[i], p, atol=1e-6, rtol=0)
    capsys.readouterr()
    assert main(["hil", "replay", str(out), "--json", "--workers", "1"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["detection"]["balls"] == len(rows) and s["detection"]["recall"] == 1.0
    assert s["detection"]["label_accuracy"] > 0.95 and s["detection"]["centre_error_px"]["p95"] < 1.0
