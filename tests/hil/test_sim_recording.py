"""A sim recording carries exact per-frame truth: the rack the seed deals, and the table the
simulator (not vision) holds after the shot."""
import numpy as np

from config.table import load_table_settings
from controller.sim.backend import derive_seeds, truth_state_at
from hil.recording import FORMAT_VERSION, read_run
from planner.rack import rack_8ball


def test_every_frame_has_the_simulators_truth(sim_recording):
    rec = read_run(sim_recording)
    assert rec.version == FORMAT_VERSION == 2 and rec.meta["seed"] == 5
    assert rec.frames and set(rec.truth) == {f["i"] for f in rec.frames}
    assert {f["kind"] for f in rec.frames} == {"rest", "shot"}
    tc = load_table_settings(sim_recording / "config" / "table.yaml")
    rack = rack_8ball(tc.table, tc.physics.R, np.random.default_rng(derive_seeds(rec.meta["seed"])["rack"]))
    first = {b["id"]: (b["x"], b["y"]) for b in rec.truth[rec.frames[0]["i"]]["balls"]}
    assert first == {int(i): (float(p[0]), float(p[1])) for i, p in zip(rack.ids, rack.pos)}
    after = truth_state_at(sim_recording, len(rec.shots))   # sim_truth.jsonl: the world's table, to 1e-5 m
    last = {b["id"]: (b["x"], b["y"]) for b in rec.truth[rec.frames[-1]["i"]]["balls"]}
    assert set(last) == set(after.ids.tolist())
    for i, p in zip(after.ids.tolist(), after.pos):
        assert np.allclose(last[i], p, atol=5.1e-6, rtol=0)
    moving = [rec.truth[f["i"]] for f in rec.frames if f["kind"] == "shot"]
    assert all(t["source"] == "sim" for t in moving)
    assert len({tuple(sorted((b["id"], b["x"]) for b in t["balls"])) for t in moving}) > len(moving) // 2
