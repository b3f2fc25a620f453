"""A game killed with SIGKILL in the middle continues from its run directory (``cuerobot run
--resume``): the log stays valid JSON lines, and the game goes on with the same state and score."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from service_harness import check_recording

from hil.recording import read_jsonl, read_run

RUNNER = Path(__file__).with_name("service_cli_runner.py")


def cuerobot(*args, cwd, **kw):
    return subprocess.Popen([sys.executable, str(RUNNER), *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def wait_for_shots(run_root: Path, n: int, proc, timeout: float = 240.0) -> Path:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        runs = list(run_root.glob("*/game.jsonl"))
        if runs and sum(r.get("type") == "shot" for r in read_jsonl(runs[0])) >= n:
            return runs[0].parent
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError(f"no {n} shots recorded in {timeout} s")


def test_kill_9_mid_game_then_resume(tmp_path):
    from config.table import load_table_settings

    proc = cuerobot("run", "--players", "greedy", "greedy", "--seed", "4", "--no-dashboard", cwd=tmp_path)
    run_dir = wait_for_shots(tmp_path / "runs", 4, proc)
    time.sleep(0.3)                          # somewhere inside the next shot
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = read_run(run_dir)
    assert before.end is None
    n = len(before.shots)
    last_game = before.shots[-1]["game_after"]

    out = cuerobot("run", "--resume", str(run_dir), "--no-dashboard", cwd=tmp_path)
    stdout, stderr = out.communicate(timeout=600)
    assert out.returncode == 0, stderr
    assert f"resuming after shot {n}" in stdout.splitlines()[0]
    assert stdout.splitlines()[-1].startswith("winner: ")

    after = read_run(run_dir)
    resumed = next(r for r in after.records if r["type"] == "resume")
    assert resumed["shots"] == n and resumed["game"] == last_game
    assert after.shots[:n] == before.shots                 # nothing before the kill rewritten
    assert after.shots[n]["game_before"] == last_game      # same state and score
    assert after.end is not None
    check_recording(run_dir, load_table_settings().table.pocket_ids)
    # every line of every log is whole JSON (a torn tail was cut off on resume)
    for name in ("game.jsonl", "transitions.jsonl", "frames/index.jsonl", "serial.jsonl"):
        text = (run_dir / name).read_text()
        assert text.endswith("\n")
        assert len(read_jsonl(run_dir / name)) == len(text.splitlines())
