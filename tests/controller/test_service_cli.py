"""``cuerobot run``'s refusals: configuration that asks the robot for more than it declares, and a
game that cannot be resumed."""
import re
import shutil
import subprocess
import sys

from config.reader import config_dir


def cuerobot(*args, cwd):
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def test_a_planner_asking_for_more_than_the_robot_is_refused_naming_both_files(tmp_path):
    cfg = tmp_path / "config"
    shutil.copytree(config_dir(), cfg, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    text = (cfg / "planner.yaml").read_text()
    (cfg / "planner.yaml").write_text(re.sub(r"v_break: *[0-9.]+", "v_break: 7.5", text, count=1))
    out = cuerobot("run", "--config", str(cfg), "--no-dashboard", cwd=tmp_path)
    assert out.returncode == 2
    assert "planner.yaml: robot.v_break (7.5 m/s)" in out.stderr and "robot.yaml" in out.stderr
    assert not (tmp_path / "runs").exists()


def test_resuming_a_finished_or_missing_game_is_refused(tmp_path):
    out = cuerobot("run", "--resume", str(tmp_path / "nothing"), cwd=tmp_path)
    assert out.returncode == 2 and "not a run directory" in out.stderr
    run = tmp_path / "runs" / "x"
    run.mkdir(parents=True)
    (run / "game.jsonl").write_text('{"type": "start", "seed": 1, "game": {}}\n'
                                    '{"type": "end", "winner": 0, "winner_name": "mc (robot)", "shots": 9}\n')
    out = cuerobot("run", "--resume", str(run), cwd=tmp_path)
    assert out.returncode == 2 and "the game is over (mc (robot) won)" in out.stderr
