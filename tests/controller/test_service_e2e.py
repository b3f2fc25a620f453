"""End to end: a complete game through the sim backend as ``cuerobot run`` plays it, with nothing
faked: the simulated robot on its pty behind the real driver, the simulated camera rendering the
physics world, vision on every frame, the observed referee, the referee and the planners
(greedy against greedy, the robot's motions at the soak profile's speed, to keep CI short)."""
from service_harness import Runner, check_recording, make_game

from config.table import load_table_settings
from controller.service.bench import agreement
from controller.sim.backend import truth_facts


def test_a_complete_rendered_game(tmp_path):
    game = make_game(tmp_path / "run", seed=3)
    try:
        winner = Runner(game.service).join(timeout=900)
        strikes = list(game.backend.world.strikes)
        refused = game.service.refused_for_limits
    finally:
        game.close()
    pocket_ids = load_table_settings().table.pocket_ids
    got = check_recording(tmp_path / "run", pocket_ids, strikes)
    shots = got["shots"]
    assert winner in (0, 1) and got["recording"].end["winner"] == winner
    assert refused == 0
    truth = truth_facts(tmp_path / "run")
    ok = [a for a, _ in agreement(shots, [truth[i] for i in range(len(shots))], pocket_ids)]
    assert sum(ok) >= 0.9 * len(ok), f"{sum(ok)} of {len(ok)} shots agree with the event log"
    # the recording holds the rest frames as PNGs and the serial line's frames
    rec = got["recording"]
    assert len(rec.frames) >= len(shots)
    assert any(f["dir"] == "tx" and " SHOT " in f["frame"] for f in rec.serial_log)
