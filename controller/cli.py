"""The cuerobot command line: one subcommand per job, benchmarks under "cuerobot bench".

Each area registers its own subcommands from a module in ``controller/commands/``: the module
defines ``register(subparsers)`` (top-level commands) and/or ``register_bench(bench_subparsers)``.
A registered parser sets ``func`` (called with the parsed args; its int return is the exit code).
Every option takes a type from ``controller/commands/args.py`` (or ``choices``) and help text;
defaults are shown by ``--help``.

One error path: a bad argument, and every user error a command raises (``USER_ERRORS``: a bad
config, a missing or unreadable file, ``args.UserError``), ends the command with exit status 2
and one line on stderr, ``cuerobot <command>: <what>``. Anything else is a bug and keeps its
traceback (exit 1).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from config.reader import ConfigError
from controller.commands.args import UserError

# what a person can fix: printed as one line, exit 2 (anything else is a bug: traceback, exit 1)
USER_ERRORS = (UserError, ConfigError, FileNotFoundError, FileExistsError, IsADirectoryError,
               NotADirectoryError, PermissionError)

COMMAND_MODULES = (
    "controller.commands.run",
    "controller.commands.physics",
    "controller.commands.vision",
    "controller.commands.serial",
    "controller.commands.planner",
    "controller.commands.hil",
    "controller.commands.calibrate",
)


class DefaultsFormatter(argparse.HelpFormatter):
    """Help that shows every option's default: "(default: X)" is appended unless the help text
    already says it or there is nothing to show (None, a flag's False, an empty list)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        d = action.default
        nothing = d is None or d is False or d is argparse.SUPPRESS or (isinstance(d, list) and not d)
        if (nothing or "default" in text
                or not (action.option_strings or action.nargs in ("?", "*"))):
            return text
        return f"{text} (default: %(default)s)"


class CliParser(argparse.ArgumentParser):
    """The parser of every cuerobot command: defaults in --help, and a usage error as one line
    ``cuerobot <command>: <what>`` with exit status 2 (``cuerobot <command> --help`` shows the usage)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", DefaultsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {_one_line(message)}\n")


def _one_line(text: str) -> str:
    return "; ".join(line.strip() for line in str(text).splitlines() if line.strip())


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Every parser under ``parser`` (itself included), by its prog (e.g. "cuerobot bench vision")."""
    out = {parser.prog: parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                out.update(subcommands(child))
    return out


def build_parser() -> CliParser:
    parser = CliParser(prog="cuerobot", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    bench = sub.add_parser("bench", help="performance benchmarks (figure and baseline ratio)")
    bench_sub = bench.add_subparsers(dest="bench_command", metavar="TARGET", required=True)
    for name in COMMAND_MODULES:
        mod = importlib.import_module(name)
        if hasattr(mod, "register"):
            mod.register(sub)
        if hasattr(mod, "register_bench"):
            mod.register_bench(bench_sub)
    for prog, p in subcommands(parser).items():
        p.set_defaults(cli_command=prog)        # the innermost parser's prog wins: names the command
    return parser


def user_error_line(command: str, e: BaseException) -> str:
    """The one line a user error prints: ``<command>: <what>`` (an OSError as ``<file>: <why>``)."""
    if isinstance(e, OSError) and e.filename is not None and e.strerror:
        what = f"{e.filename}: {e.strerror.lower()}"
    else:
        what = _one_line(e) or type(e).__name__
    return f"{command}: {what}"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:       # named by the command they were given to, not by "cuerobot"
        subcommands(parser)[args.cli_command].error(f"unrecognized arguments: {' '.join(extra)}")
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()          # a closed pipe shows here, not at interpreter exit
        return code
    except USER_ERRORS as e:
        sys.stdout.flush()
        print(user_error_line(args.cli_command, e), file=sys.stderr)
        return 2
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
