"""Every command, careless input: exit 2, one line on stderr naming what was wrong, no traceback,
no existing file changed.

The commands come from the CLI's own registry (``controller.cli.build_parser``), so a command
added later is swept too. Bad values are derived from each argument's type (the types of
``controller/commands/args.py``) and choices; an argument that takes a value without a type
from args.py (or choices, or a place in ``FREE_TEXT`` below with its reason) fails the sweep.
After the argparse sweep come the issue's cases that only show when a command runs (a broken
config, a file of the wrong kind), in-process, and a few as real processes.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from config.reader import config_dir
from controller.cli import build_parser, main, subcommands
from controller.commands import args as argtypes

# options whose value is free text by nature, each with why no type can check it
FREE_TEXT = {
    ("cuerobot robot conformance", "--port"): "a device path or a pyserial URL (opened by pyserial)",
    ("cuerobot robot conformance", "--check"): "a check's name (the suite names an unknown one)",
    ("cuerobot sim-robot", "--quirk"): "a quirk's name (the simulator names an unknown one and lists the known)",
    ("cuerobot match-report", "--name"): "a player's name as the records file spells it",
    ("cuerobot hil record", "--camera"): "a device index, a stream URL or a video file",
}

NUMBERS = {
    argtypes.count: ["0", "-1", "x", "nan", "1.5"],
    argtypes.non_negative_int: ["-1", "x", "nan"],
    argtypes.seed: ["-1", "-3", "x", str(2**32)],
    argtypes.positive_float: ["0", "-3", "nan", "inf", "x"],
    argtypes.fraction: ["-0.1", "1.5", "nan", "x"],
    argtypes.grid_points: ["1", "0", "-3", "x"],
}


def bad_values(kind, w: Path) -> list[str]:
    """Bad command-line values for an argument of type ``kind`` (w: the scratch directory with
    ``keep.txt`` and ``somedir/``; nothing exists under ``w/missing``)."""
    missing, afile, adir = str(w / "missing" / "x"), str(w / "keep.txt"), str(w / "somedir")
    paths = {
        argtypes.existing_file: [missing, adir],
        argtypes.existing_dir: [missing, afile],
        argtypes.existing_path: [missing],
        argtypes.output_file: [str(w / "missing" / "out.json"), adir],
        argtypes.image_output: [str(w / "missing" / "out.png"), adir, str(w / "out.notanimage")],
        argtypes.output_dir: [str(w / "missing" / "out"), afile],
        argtypes.new_path: [afile, adir, str(w / "missing" / "link")],
    }
    if kind in NUMBERS:
        return NUMBERS[kind]
    if kind in paths:
        return paths[kind]
    from controller.commands.run import run_directory
    if kind is run_directory:
        return [missing, afile, adir]      # somedir/ has no game log
    # a command's own type (e.g. a board spec): the junk it rejects; it must reject some
    junk = [v for v in ("x", "-1", "", "nan", "0", missing, afile, adir) if _rejects(kind, v)]
    assert junk, f"argument type {kind.__module__}.{kind.__name__} accepts any junk: it checks nothing"
    return junk


def _rejects(kind, value: str) -> bool:
    try:
        kind(value)
    except (argparse.ArgumentTypeError, ValueError, TypeError):
        return True
    return False


def good_value(action: argparse.Action, w: Path) -> str:
    if action.choices:
        return next(iter(action.choices))
    if action.type in NUMBERS:
        return "2"
    if action.type in (argtypes.existing_dir, argtypes.existing_path):
        return str(w / "somedir")
    if action.type is argtypes.existing_file:
        return str(w / "keep.txt")
    return str(w / "new.png")


def leaves():
    """(prog, parser) of every command that runs something, nested ones included."""
    return [(prog, p) for prog, p in subcommands(build_parser()).items() if "func" in p._defaults]


def value_actions(p: argparse.ArgumentParser):
    return [a for a in p._actions if a.nargs != 0 and not isinstance(a, argparse._SubParsersAction)]


def argument_cases(w: Path):
    """(prog, argv, what) for every bad value of every argument of every command."""
    cases = []
    for prog, p in leaves():
        path = prog.split()[1:]
        positionals = [a for a in p._actions if not a.option_strings and a.nargs != 0
                       and not isinstance(a, argparse._SubParsersAction)]
        for a in value_actions(p):
            if a.choices:
                bads = ["no-such-choice"]
            elif a.type is None:
                continue            # test_every_value_has_a_type reports it
            else:
                bads = bad_values(a.type, w)
            n = a.nargs if isinstance(a.nargs, int) else 1
            for bad in bads:
                if a.option_strings:
                    argv = [*path, a.option_strings[0], *[bad] * n]
                else:       # earlier positionals get good values
                    before = positionals[:positionals.index(a)]
                    argv = [*path, *(good_value(b, w) for b in before), *[bad] * n]
                cases.append((prog, argv, f"{a.dest}={bad}"))
        cases.append((prog, [*path, "--no-such-option", "1"], "an unknown option"))
    return cases


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """A working directory with an existing file and directory, as cwd, and a copy of the default
    config read through $CUEROBOT_CONFIG_DIR (so that a command writing there would show); yields
    (the directory, a function returning a hash of every file under it, to see nothing changed)."""
    (tmp_path / "keep.txt").write_text("precious\n")
    (tmp_path / "somedir").mkdir()
    (tmp_path / "somedir" / "inside.txt").write_text("also precious\n")
    shutil.copytree(config_dir(), tmp_path / "config", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CUEROBOT_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("CUEROBOT_DIFFICULTY_DIR", str(tmp_path / "tables"))

    def snapshot() -> dict:
        return {str(f): hashlib.sha256(f.read_bytes()).hexdigest() for f in sorted(tmp_path.rglob("*"))
                if f.is_file()}
    return tmp_path, snapshot


def run_in_process(argv, capsys) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


def assert_one_line_error(code, err, what, prog=None):
    lines = err.strip("\n").splitlines()
    assert code == 2, f"{what}: exit {code}, stderr {err!r}"
    assert len(lines) == 1, f"{what}: expected one stderr line, got {err!r}"
    assert "Traceback" not in err
    assert lines[0].startswith(prog or "cuerobot"), f"{what}: {lines[0]!r} does not name the command"


def test_every_value_has_a_type_and_every_option_help(scratch):
    untyped, helpless = [], []
    for prog, p in leaves():
        for a in p._actions:
            if isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if not (a.help or "").strip():
                helpless.append(f"{prog} {a.dest}")
            if a.nargs == 0 or a.choices:
                continue
            if a.type is None and (a.option_strings == [] or (prog, a.option_strings[0]) not in FREE_TEXT):
                untyped.append(f"{prog} {'/'.join(a.option_strings) or a.dest}")
    assert not untyped, f"arguments without a type from controller/commands/args.py: {untyped}"
    assert not helpless, f"arguments without help text: {helpless}"


def test_every_default_is_shown_in_help():
    for prog, p in leaves():
        text = " ".join(p.format_help().split())
        for a in p._actions:
            d = a.default
            if a.option_strings and not (d is None or d is False or d is argparse.SUPPRESS or d == []):
                shown = " ".join(p._get_formatter()._expand_help(a).split()) if a.help else ""
                assert "default" in shown, f"{prog} {a.option_strings[0]}: default {a.default!r} not shown"
                assert shown in text


def test_top_level_help_is_plain_text():
    text = build_parser().format_help()
    assert "``" not in text and ":func:" not in text and "cuerobot" in text


def test_every_bad_argument_of_every_command_is_one_line_and_exit_2(scratch, capsys):
    w, snapshot = scratch
    before = snapshot()
    cases = argument_cases(w)
    assert len(cases) > 100 and len({c[0] for c in cases}) >= 20     # the sweep reached the commands
    for prog, argv, what in cases:
        code, out, err = run_in_process(argv, capsys)
        assert_one_line_error(code, err, f"{' '.join(argv)} ({what})", prog)
        assert out == ""
    assert snapshot() == before


def test_a_bad_number_names_the_option_and_the_expected_form(scratch, capsys):
    for argv, expected in [
        (["run", "--seed", "-1"], "cuerobot run: argument --seed: expected a seed in [0, 2**32), got -1"),
        (["match", "greedy", "greedy", "--games", "0"], "cuerobot match: argument --games: expected an integer >= 1"),
        (["match", "greedy", "greedy", "--workers", "-2"], "argument --workers: expected an integer >= 1, got -2"),
        (["difficulty", "build", "--resolution", "-3"], "argument --resolution: expected an integer >= 2"),
        (["difficulty", "build", "--samples", "0"], "argument --samples: expected an integer >= 1"),
        (["bench", "physics", "--racks", "0"], "cuerobot bench physics: argument --racks"),
        (["bench", "planner", "--states", "0"], "cuerobot bench planner: argument --states"),
        (["bench", "serial", "--shots", "-5"], "cuerobot bench serial: argument --shots"),
        (["bench", "vision", "--layouts", "0"], "cuerobot bench vision: argument --layouts"),
        (["physics", "fuzz", "--seed", "-1"], "cuerobot physics fuzz: argument --seed"),
        (["vision", "render", "x.png", "--seed", "-1"], "cuerobot vision render: argument --seed"),
        (["run", "--players", "foo", "bar"], "argument --players: invalid choice: 'foo'"),
    ]:
        code, _, err = run_in_process(argv, capsys)
        assert_one_line_error(code, err, argv)
        assert expected in err, (argv, err)


@pytest.fixture
def broken_config(tmp_path):
    """A copy of the default config directory whose table.yaml has a YAML syntax error."""
    cfg = tmp_path / "brokencfg"
    shutil.copytree(config_dir(), cfg, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    (cfg / "table.yaml").write_text((cfg / "table.yaml").read_text() + "\n  oops: [unclosed\n")
    return cfg


def test_a_broken_config_is_one_line_under_every_command_that_reads_it(scratch, broken_config, capsys,
                                                                        monkeypatch):
    w, snapshot = scratch
    before = snapshot()
    monkeypatch.setenv("CUEROBOT_CONFIG_DIR", str(broken_config))
    for argv in (["run", "--no-dashboard"], ["match", "greedy", "greedy", "--games", "1"],
                 ["difficulty", "build", "--resolution", "2", "--samples", "1"], ["bench", "physics", "--racks", "1"],
                 ["bench", "planner", "--states", "1"], ["physics", "fuzz", "--shots", "1"],
                 ["vision", "render", "x.png"]):
        code, _, err = run_in_process(argv, capsys)
        assert_one_line_error(code, err, argv)
        assert "table.yaml" in err, (argv, err)
    assert not (w / "runs").exists() and not (w / "x.png").exists()
    assert snapshot() == before


def test_files_of_the_wrong_kind_are_one_line(scratch, capsys):
    w, snapshot = scratch
    (w / "empty.json").write_text("")
    (w / "text.json").write_text("not json at all\n")
    (w / "shape.json").write_text('{"meta": {"table": 1}, "cases": []}')
    (w / "list.json").write_text("[1, 2, 3]")
    (w / "binary.json").write_bytes(bytes(range(256)))
    (w / "notanimage.png").write_text("not a png\n")
    (w / "records.jsonl").write_text("{not a record\n")
    shutil.copytree(w / "config", w / "binarycfg")
    (w / "binarycfg" / "table.yaml").write_bytes(bytes(range(256)))
    before = snapshot()
    for argv, names in [
        *[(["physics", "check-reference", f], f) for f in
          ("empty.json", "text.json", "shape.json", "list.json", "binary.json", "somedir", "missing.json")],
        (["vision", "detect", "notanimage.png"], "notanimage.png"),
        (["vision", "detect", "missing.png"], "missing.png"),
        (["vision", "render", "out.png", "--camera", "text.json"], "text.json"),
        (["match-report", "records.jsonl"], "records.jsonl"),
        (["match-report", "binary.json"], "binary.json"),
        (["vision", "evaluate", "notanimage.png", "--truth", "binary.json"], "binary.json"),
        (["run", "--config", "somedir", "--no-dashboard"], "somedir"),
        (["run", "--config", "binarycfg", "--no-dashboard"], "table.yaml"),
        (["hil", "replay", "somedir"], "somedir"),
        (["sim-robot", "--link", "keep.txt"], "keep.txt"),
        (["sim-robot", "--link", "somedir"], "somedir"),
    ]:
        code, out, err = run_in_process(argv, capsys)
        assert_one_line_error(code, err, argv)
        assert names in err, (argv, err)
        assert "[ WARN" not in err and out == ""
    assert snapshot() == before and not (w / "out.png").exists()


def test_an_unknown_config_dir_is_one_line(scratch, capsys, monkeypatch):
    monkeypatch.setenv("CUEROBOT_CONFIG_DIR", "/nonexistent/cuerobot-config")
    code, _, err = run_in_process(["run", "--no-dashboard"], capsys)
    assert_one_line_error(code, err, "CUEROBOT_CONFIG_DIR=/nonexistent run")
    assert "/nonexistent/cuerobot-config" in err


def test_a_bug_keeps_its_traceback(scratch, capsys, monkeypatch):
    """Only user errors are folded into one line: anything else propagates (exit 1 and a traceback
    at the interpreter), even a ValueError or an OSError that is not about a user's file."""
    import planner.physics.reference as reference

    for exc in (RuntimeError("a bug"), ValueError("a bug"), KeyError("a bug")):
        def broken(*args, exc=exc, **kwargs):
            raise exc
        monkeypatch.setattr(reference, "check_reference", broken)
        with pytest.raises(type(exc)):
            main(["physics", "check-reference", str(scratch[0] / "keep.txt"), "--json"])


def cli(*argv, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "controller.cli", *argv], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env={**os.environ, **(env or {})})


def test_as_real_processes(tmp_path, broken_config):
    """The one error path as a user meets it: whole processes, exit status and stderr."""
    (tmp_path / "keep.txt").write_text("precious\n")
    for argv, env, expected in [
        (["run", "--seed", "-1"], None, "cuerobot run: argument --seed"),
        (["run", "--no-dashboard"], {"CUEROBOT_CONFIG_DIR": str(broken_config)}, "table.yaml"),
        (["run"], {"CUEROBOT_CONFIG_DIR": "/nonexistent"}, "/nonexistent"),
        (["vision", "detect", "missing.png"], None, "missing.png"),
        (["sim-robot", "--link", "keep.txt"], None, "keep.txt: already exists"),
    ]:
        out = cli(*argv, env=env, cwd=tmp_path)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, (argv, out.stderr)
        assert expected in out.stderr and "Traceback" not in out.stderr and "[ WARN" not in out.stderr
    assert (tmp_path / "keep.txt").read_text() == "precious\n" and not (tmp_path / "runs").exists()
