"""A short sim recording, regenerated deterministically once per session (the break of seed 5
at 15 frames/s, every shot frame, exact per-frame truth), shared by the replay tests."""
import pytest

from hil.simrec import record_sim_game

SEED, SHOTS, FPS = 5, 1, 15


@pytest.fixture(scope="session")
def sim_recording(tmp_path_factory):
    return record_sim_game(tmp_path_factory.mktemp("hil") / "rec", seed=SEED, shots=SHOTS, fps=FPS)
