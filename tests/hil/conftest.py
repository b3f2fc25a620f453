"""Sim recordings regenerated deterministically, each once per session (hil.simrec: a seeded
game, every shot frame, exact per-frame truth), shared by the replay tests and the suites."""
import csv
import json
import shutil
from pathlib import Path

import pytest

from controller.cli import main
from hil.frames import VisionSpec
from hil.recording import read_run
from hil.replay import replay
from hil.simrec import record_sim_game

CAMERA = Path(__file__).resolve().parents[2] / "config" / "camera.yaml"

SEED, SHOTS, FPS = 5, 4, 15          # seed 5's first four shots at 15 frames/s: hil/suites/sim_game.yaml


@pytest.fixture(scope="session")
def sim_games(tmp_path_factory):
    """sim_games(seed, shots, fps) -> the recording of that game, recorded on first use."""
    made = {}

    def get(seed: int, shots: int = 1, fps: float | None = None):
        key = (int(seed), int(shots), fps)
        if key not in made:
            made[key] = record_sim_game(tmp_path_factory.mktemp("hil") / f"seed{seed}-shots{shots}",
                                        seed=int(seed), shots=int(shots), fps=fps)
        return made[key]
    return get


@pytest.fixture(scope="session")
def sim_recording(sim_games):
    return sim_games(SEED, SHOTS, FPS)


@pytest.fixture(scope="session")
def sim_break(sim_recording, tmp_path_factory):
    """The same game cut after its break: the frames up to the capture after shot 0 (linked,
    not copied), the game log up to shot 0's record. What tests of vision alone replay (a
    third of the frames)."""
    rec = read_run(sim_recording)
    shot_end = max(f["i"] for f in rec.frames if f["kind"] == "shot" and f["shot"] == 0)
    next_shot = min(f["i"] for f in rec.frames if f["kind"] == "shot" and f["shot"] == 1)
    last = max(f["i"] for f in rec.frames if f["kind"] == "rest" and shot_end < f["i"] < next_shot)
    out = tmp_path_factory.mktemp("hil") / "break"
    (out / "frames").mkdir(parents=True)
    shutil.copytree(rec.config_dir, out / "config")
    shutil.copy(rec.root / "run.json", out / "run.json")
    for name, keep in (("game.jsonl", lambda r: r.get("type") != "shot" or r["n"] == 0),
                       ("frames/index.jsonl", lambda r: r["i"] <= last), ("frames/truth.jsonl", lambda r: r["i"] <= last)):
        lines = [json.dumps(r) for r in map(json.loads, (rec.root / name).read_text().splitlines()) if keep(r)]
        (out / name).write_text("\n".join(lines) + "\n")
    for f in (f for f in rec.frames if f["i"] <= last):
        (out / "frames" / f["file"]).symlink_to(rec.root / "frames" / f["file"])
    return out


@pytest.fixture(scope="session")
def replays():
    """replays(recordings, tolerance) -> ``hil.replay.replay`` of them with today's vision and rest
    detector (2 worker processes), each (recordings, tolerance) replayed once per session."""
    made = {}

    def get(recordings, tolerance: dict | None = None):
        key = (tuple(str(r) for r in recordings), tuple(sorted((tolerance or {}).items())))
        if key not in made:
            made[key] = replay(list(recordings), VisionSpec(), workers=2, tolerance=tolerance)
        return made[key]
    return get


@pytest.fixture
def import_csv(tmp_path):
    """import_csv(frames, rows) -> the recording ``cuerobot hil import`` made of ``frames`` (a
    directory of images or a video) with the CSV truth ``rows`` (dicts image, x_px, y_px, label)
    and config/camera.yaml."""
    def run(frames, rows):
        truth, out = tmp_path / "truth.csv", tmp_path / "imported"
        with open(truth, "w", newline="") as f:
            w = csv.DictWriter(f, ["image", "x_px", "y_px", "label"])
            w.writeheader()
            w.writerows(rows)
        assert main(["hil", "import", str(frames), "--truth", str(truth), "--camera", str(CAMERA),
                     "--out", str(out)]) == 0
        return out
    return run
