"""The README's command table and environment variables match the code: every command and flag
it names exists in the CLI's parser, and every variable it names is read by the code."""
from __future__ import annotations

import re
from pathlib import Path

from controller.cli import build_parser, subcommands

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
PACKAGES = ("config", "controller", "planner", "vision", "calibration", "hil")


def section(title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", README, re.S | re.M)
    assert m, f"README has no '## {title}' section"
    return m.group(1)


def named_commands(text: str) -> list[tuple[str, list[str]]]:
    """(command path, flags) of every `cuerobot ...` span in ``text``; `a\\|b` alternatives in
    the command path are expanded."""
    out = []
    for span in re.findall(r"`(cuerobot [^`]+)`", text):
        words = span.replace("\\|", "|").split()
        if words[1].startswith("<"):
            continue            # a pattern over every command, e.g. `cuerobot <command> --help`
        path = []
        for w in words[1:]:
            if not re.fullmatch(r"[a-z][a-z-]*(\|[a-z][a-z-]*)*", w):
                break
            path.append(w)
        flags = re.findall(r"(--[a-z][a-z-]*)", span)
        alternatives = [[]]
        for w in path:
            alternatives = [a + [o] for a in alternatives for o in w.split("|")]
        out += [(" ".join(["cuerobot", *a]), flags) for a in alternatives]
    return out


def test_every_command_and_flag_in_the_readme_exists():
    parsers = subcommands(build_parser())
    named = named_commands(section("Commands"))
    assert len(named) >= 20
    for prog, flags in named:
        # the longest registered command the span names (a word after it is a value, e.g. a planner)
        words = prog.split()
        while " ".join(words) not in parsers and len(words) > 1:
            words.pop()
        parser = parsers[" ".join(words)]
        assert "func" in parser._defaults, f"README names {prog!r}, which is not a runnable command"
        options = {o for a in parser._actions for o in a.option_strings}
        missing = [f for f in flags if f not in options]
        assert not missing, f"README: {prog} has no {missing}"


def test_every_runnable_command_is_in_the_readme():
    named = {p for p, _ in named_commands(section("Commands"))}
    runnable = {prog for prog, p in subcommands(build_parser()).items() if "func" in p._defaults}
    assert runnable <= named, f"commands the README's table leaves out: {sorted(runnable - named)}"


def test_every_environment_variable_in_the_readme_is_read_by_the_code():
    names = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", section("Environment variables")))
    assert {"CUEROBOT_CONFIG_DIR", "NUMBA_CACHE_DIR"} <= names
    sources = "\n".join(f.read_text() for pkg in PACKAGES for f in (ROOT / pkg).rglob("*.py"))
    read = set(re.findall(r"""os\.environ(?:\.get)?\(\s*["']([A-Z0-9_]+)["']""", sources))
    read |= {m for m in re.findall(r"""^\s*[A-Z_]+ENV\s*=\s*["']([A-Z0-9_]+)["']""", sources, re.M)}
    assert names <= read, f"README names variables the code never reads: {sorted(names - read)}"
    assert read <= names | {"NUMBA_DISABLE_JIT"}, f"variables the code reads and the README leaves out: " \
                                                   f"{sorted(read - names)}"
