"""The one YAML reader: ``Section`` turns a file's mapping into checked values, with errors a
person can act on, and ``config_dir`` finds the directory the files are read from.

Every error names the file, the dotted key and the expected form, e.g.
``config/table.yaml: pockets.corner.radius must be a positive number of metres, got -0.06``.
"""
from __future__ import annotations

import importlib.resources
import math
import os
from pathlib import Path
from typing import Any

import yaml

CONFIG_DIR_ENV = "CUEROBOT_CONFIG_DIR"


class ConfigError(ValueError):
    """A configuration file is missing, unreadable or has a malformed value."""


def config_dir() -> Path:
    """The directory the default YAML files are read from: ``$CUEROBOT_CONFIG_DIR`` when set,
    else the ``config`` package's own directory (the checkout's ``config/`` for an editable
    install, the installed package data otherwise)."""
    env = os.environ.get(CONFIG_DIR_ENV)
    if env:
        return Path(env)
    return Path(str(importlib.resources.files("config")))


def default_path(name: str) -> Path:
    """Path of a default config file, e.g. ``default_path("table.yaml")``."""
    return config_dir() / name


class Section:
    """A mapping read from a YAML file that knows its file and key path for error messages."""

    def __init__(self, data: Any, path: str, prefix: str = ""):
        self.path = path
        self.prefix = prefix
        if not isinstance(data, dict):
            where = f"{prefix} " if prefix else ""
            raise ConfigError(f"{path}: {where}must be a mapping of keys to values, got {type(data).__name__}")
        self.data = data

    def _key(self, key: str) -> str:
        return f"{self.prefix}.{key}" if self.prefix else key

    def has(self, key: str) -> bool:
        return key in self.data

    def raw(self, key: str, form: str) -> Any:
        if key not in self.data:
            raise ConfigError(f"{self.path}: {self._key(key)} is missing; expected {form}")
        return self.data[key]

    def fail(self, key: str, form: str, got: Any) -> ConfigError:
        return ConfigError(f"{self.path}: {self._key(key)} must be {form}, got {got!r}")

    def section(self, key: str) -> "Section":
        value = self.raw(key, "a mapping")
        if not isinstance(value, dict):
            raise self.fail(key, "a mapping", value)
        return Section(value, self.path, self._key(key))

    def number(self, key: str, form: str = "a number", *, positive: bool = False,
               nonneg: bool = False, lo: float | None = None, hi: float | None = None,
               default: float | None = None) -> float:
        """A finite float; ``form`` describes the expected value (with its unit) for messages."""
        if default is not None and key not in self.data:
            return float(default)
        value = self.raw(key, form)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.fail(key, form, value)
        value = float(value)
        if (positive and value <= 0) or (nonneg and value < 0) or (lo is not None and value < lo) \
                or (hi is not None and value > hi):
            raise self.fail(key, form, value)
        return value

    def integer(self, key: str, form: str = "an integer", *, lo: int | None = None,
                hi: int | None = None, default: int | None = None) -> int:
        if default is not None and key not in self.data:
            return int(default)
        value = self.raw(key, form)
        if isinstance(value, bool) or not isinstance(value, int) or (lo is not None and value < lo) \
                or (hi is not None and value > hi):
            raise self.fail(key, form, value)
        return value

    def string(self, key: str, form: str = "a string", *, choices: tuple[str, ...] | None = None,
               default: str | None = None) -> str:
        if default is not None and key not in self.data:
            return default
        value = self.raw(key, form)
        if not isinstance(value, str) or (choices is not None and value not in choices):
            raise self.fail(key, form, value)
        return value

    def boolean(self, key: str, form: str = "true or false", *, default: bool | None = None) -> bool:
        if default is not None and key not in self.data:
            return default
        value = self.raw(key, form)
        if not isinstance(value, bool):
            raise self.fail(key, form, value)
        return value

    def vector(self, key: str, n: int, form: str) -> tuple[float, ...]:
        """A list of ``n`` finite numbers."""
        value = self.raw(key, form)
        if (not isinstance(value, (list, tuple)) or len(value) != n
                or any(isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)
                       for v in value)):
            raise self.fail(key, form, value)
        return tuple(float(v) for v in value)


def load_yaml(path: str | os.PathLike) -> Section:
    """Read a YAML file whose top level is a mapping. Raises ConfigError naming the file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read config file ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: not a YAML text file (not UTF-8 at byte {exc.start})") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:      # in one line: where, and what the parser expected
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        what = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{p}: not valid YAML{where}: {what}") from exc
    if data is None:
        data = {}
    return Section(data, str(p))
