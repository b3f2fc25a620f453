"""A short simulated game recorded as the controller records it: the sim recordings that
replay tests and suites regenerate instead of keeping frames in the repository.

``record_sim_game(out, seed=5, shots=2)`` plays a seeded game (greedy against greedy, the
simulated robot on its pty at the soak profile's speed, the rendered camera, every shot frame
recorded, exact per-frame truth) and stops it after ``shots`` shots. The game is a function of
the seed (docs/recording.md, "Reproducibility").
"""
from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

FAST_DRIVER = {"reply_timeout_s": 0.1, "retries": 3, "reconnect_timeout_s": 2.0, "done_margin_s": 0.1}


def record_sim_game(out: str | Path, seed: int = 5, shots: int = 2, fps: float | None = None,
                    timeout_s: float = 300.0, settings=None) -> Path:
    """Record ``shots`` shots of the seeded sim game into the new run directory ``out``
    (record_shot_frames on; ``fps``: the camera's frame rate [1/s], default service.yaml's).
    Returns ``out``. Raises TimeoutError if the shots are not played
    within ``timeout_s`` [s] of wall time, and what the service raised."""
    from config.settings import load_settings
    from config.sim import Faults, load_sim_settings
    from controller.service.setup import build_game

    settings = settings or load_settings()
    svc = settings.service
    cam = svc.camera if fps is None else replace(svc.camera, fps=float(fps))
    settings = replace(settings, service=replace(svc, record_shot_frames=True, camera=cam))
    game = build_game(settings, seed=seed, players=("greedy", "greedy"), run_dir=out,
                      sim_timing=load_sim_settings(profile="soak").timing, sim_faults=Faults(),
                      driver_overrides=FAST_DRIVER)
    done, err = threading.Event(), []
    inner = game.service.on_record

    def on_record(rec: dict) -> None:
        inner(rec)
        if rec.get("type") == "shot" and rec["n"] + 1 >= shots:
            game.service.stop()
            done.set()

    game.service.on_record = on_record

    def run() -> None:
        try:
            game.service.run()
        except BaseException as e:      # handed to the caller
            err.append(e)
        finally:
            done.set()

    th = threading.Thread(target=run, daemon=True)
    try:
        th.start()
        if not done.wait(timeout_s):
            game.service.stop()
            raise TimeoutError(f"{out}: {shots} shots not played within {timeout_s} s")
        th.join(timeout_s)
    finally:
        game.close()
    if err:
        raise err[0]
    return Path(out)
