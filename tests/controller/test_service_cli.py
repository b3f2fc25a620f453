"""``cuerobot run``'s refusals: configuration that asks the robot for more than it declares, and a
game that cannot be resumed."""
import json
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


def test_with_no_dashboard_a_paused_game_stops_and_says_why(tmp_path):
    """A robot that reaches only the cloth's first 0.3 m refuses the break (the cue ball is placed
    behind the head string, y ~ 0.5 m): the service pauses; with --no-dashboard nobody can resume
    it, so the process says why and stops (exit 1) with the command that continues the game,
    instead of waiting for ever."""
    cfg = tmp_path / "config"
    shutil.copytree(config_dir(), cfg, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    text = (cfg / "robot.yaml").read_text()
    (cfg / "robot.yaml").write_text(re.sub(r"\n  y: \[[^\]]*\]", "\n  y: [-0.0508, 0.3]", text, count=1))
    out = cuerobot("run", "--config", str(cfg), "--no-dashboard", cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    assert re.search(r"paused: shot 0 refused for the robot's limits: .*y=[0-9.]+ mm outside the robot's "
                     r"workspace -50.8..300.0 mm.*nobody can resume the game: stopping", out.stderr)
    run_dir = next((tmp_path / "runs").iterdir())
    assert f"stopped after 0 shots (paused); continue with: cuerobot run --resume runs/{run_dir.name}" in out.stdout
    assert [json.loads(line)["to"] for line in (run_dir / "transitions.jsonl").read_text().splitlines()][-1] == "paused"
