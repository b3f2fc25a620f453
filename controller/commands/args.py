"""Argument types for every ``cuerobot`` command: a bad value fails at the argparse boundary.

Each function takes the command-line string and returns the parsed value, or raises
``argparse.ArgumentTypeError`` with what was expected (the CLI's parser turns it into exit 2 and
one line naming the option). Use them as ``add_argument(..., type=count)``.

``UserError`` is for what only shows once a command runs (a file's content, a combination of
options): raise it with what was wrong and what was expected; ``controller.cli.main`` prints it
as one line ``cuerobot <command>: <what>`` and exits 2.
"""
from __future__ import annotations

import argparse
import math
import os
from pathlib import Path


class UserError(Exception):
    """A mistake in the command's input (not a bug): the message names the argument or file and
    what was expected."""


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _checked(value, ok: bool, expected: str, text: str):
    """``value`` if ``ok``; else ArgumentTypeError "expected <expected>, got <text>"."""
    if not ok:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text}")
    return value


def _float(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(x):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return x


def count(text: str) -> int:
    """A count of things to do: an integer >= 1."""
    n = _int(text)
    return _checked(n, n >= 1, "an integer >= 1", text)


def grid_points(text: str) -> int:
    """Points along a grid axis: an integer >= 2 (an axis needs two ends)."""
    n = _int(text)
    return _checked(n, n >= 2, "an integer >= 2 (points per grid axis)", text)


def non_negative_int(text: str) -> int:
    """An integer >= 0."""
    n = _int(text)
    return _checked(n, n >= 0, "an integer >= 0", text)


def seed(text: str) -> int:
    """A random seed: an integer in [0, 2**32) (numpy's SeedSequence takes any, but a seed must
    mean the same on every machine and in every tool that takes one)."""
    n = _int(text)
    return _checked(n, 0 <= n < 2**32, "a seed in [0, 2**32)", text)


def positive_float(text: str) -> float:
    """A finite number > 0."""
    x = _float(text)
    return _checked(x, x > 0, "a number > 0", text)


def existing_file(text: str) -> Path:
    """A path to a readable regular file."""
    p = Path(text)
    if not p.exists():
        raise argparse.ArgumentTypeError(f"{text}: no such file")
    if not p.is_file():
        raise argparse.ArgumentTypeError(f"{text}: not a regular file")
    if not os.access(p, os.R_OK):
        raise argparse.ArgumentTypeError(f"{text}: not readable")
    return p


def fraction(text: str) -> float:
    """A number in [0, 1]."""
    x = _float(text)
    return _checked(x, 0.0 <= x <= 1.0, "a number in [0, 1]", text)


def existing_path(text: str) -> Path:
    """A path to an existing file or directory."""
    p = Path(text)
    if not p.exists():
        raise argparse.ArgumentTypeError(f"{text}: no such file or directory")
    return p


def existing_dir(text: str) -> Path:
    """A path to an existing directory."""
    p = Path(text)
    if not p.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: no such directory")
    return p


def output_file(text: str) -> Path:
    """A file to write: its directory exists and is writable, and the path is not a directory.
    Checked before any long work starts; the file itself is written later (atomically)."""
    p = Path(text)
    if p.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: is a directory, expected a file path")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text}: directory {parent} is not writable")
    return p


def new_path(text: str) -> Path:
    """A file or directory the command creates (and may remove again): nothing exists at the path
    yet, and its directory exists and is writable."""
    p = output_file(text)
    if os.path.lexists(p):
        raise argparse.ArgumentTypeError(f"{text}: already exists, expected a new path (nothing there is replaced)")
    return p


def image_output(text: str) -> Path:
    """An image file to write (``output_file``) whose extension OpenCV can write (.png, .jpg, ...)."""
    from vision.image_files import can_write_image

    p = output_file(text)
    if not can_write_image(p):
        raise argparse.ArgumentTypeError(f"{text}: expected an image file name OpenCV can write (.png, .jpg, ...)")
    return p


def output_dir(text: str) -> Path:
    """A directory to write into (created if absent): not an existing file, and its parent
    directory exists and is writable."""
    p = Path(text)
    if p.exists() and not p.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: is a file, expected a directory path")
    parent = p.parent if str(p.parent) else Path(".")
    if not p.exists() and not parent.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: directory {parent} does not exist")
    if not os.access(p if p.exists() else parent, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text}: not writable")
    return p
