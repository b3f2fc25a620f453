"""The ``cuerobot`` command line: one subcommand per job, benchmarks under ``cuerobot bench``.

Each area registers its own subcommands from a module in ``controller/commands/``: the module
defines ``register(subparsers)`` (top-level commands) and/or ``register_bench(bench_subparsers)``.
A registered parser sets ``func`` (called with the parsed args; its int return is the exit code).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

COMMAND_MODULES = (
    "controller.commands.run",
    "controller.commands.physics",
    "controller.commands.vision",
    "controller.commands.serial",
    "controller.commands.planner",
    "controller.commands.hil",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cuerobot", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    bench = sub.add_parser("bench", help="performance benchmarks (figure and baseline ratio)")
    bench_sub = bench.add_subparsers(dest="bench_command", metavar="TARGET", required=True)
    for name in COMMAND_MODULES:
        mod = importlib.import_module(name)
        if hasattr(mod, "register"):
            mod.register(sub)
        if hasattr(mod, "register_bench"):
            mod.register_bench(bench_sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()          # a closed pipe shows here, not at interpreter exit
        return code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader left (`cuerobot ... | head`): stop quietly with the shell's SIGPIPE status,
        # pointing stdout at /dev/null so the exit flush cannot fail again (Python docs, signal
        # module, "Note on SIGPIPE")
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13


if __name__ == "__main__":
    sys.exit(main())
