"""Write some top-level sections of a YAML config file, keeping the others as they were.

A calibration rewrites the sections it measured (``camera``, or ``pose``) and leaves the rest
(``source``, ``registration``, other sections, and their comments) alone. The file's text is
edited section by section: a top-level section is its ``key:`` line and the indented or blank
lines under it. If that text edit would not read back as the intended data (a layout it does not
understand: flow style at top level, anchors), the whole file is written from the merged data
instead (comments are then lost). Either way the write is atomic (``config.atomic``).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import yaml

from config.atomic import write_atomic
from config.reader import ConfigError

_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*:")


def _dump(key: str, value) -> str:
    return yaml.safe_dump({key: value}, sort_keys=False, default_flow_style=None, width=100)


def replace_sections(text: str, sections: dict, render: Callable[[str, object], str] = _dump) -> str:
    """``text`` with each top-level section named in ``sections`` replaced by its new value
    (appended at the end when absent), written as ``render(key, value)`` (a block of lines ending
    in a newline; default: PyYAML's block style). Pure: returns the new text."""
    lines = text.splitlines(keepends=True)
    starts = [(i, m.group(1)) for i, ln in enumerate(lines) if (m := _KEY.match(ln))]
    out, pos = [], 0
    for i, key in starts:
        if key not in sections:
            continue
        end = i + 1
        while end < len(lines) and (lines[end][:1] in (" ", "\t") or not lines[end].strip()):
            end += 1
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1            # blank lines before the next section stay with it
        out += lines[pos:i]
        out.append(render(key, sections[key]))
        pos = end
    out += lines[pos:]
    new = "".join(out)
    for key, value in sections.items():
        if key not in {k for _, k in starts}:
            new += ("" if not new or new.endswith("\n") else "\n") + render(key, value)
    return new


def update_yaml_sections(path: str | Path, sections: dict) -> None:
    """Set the top-level ``sections`` of the YAML file at ``path`` (created if missing), keeping
    its other sections. Raises ConfigError if the existing file is not a YAML mapping (the file is
    then left untouched); OSError if it cannot be written."""
    p = Path(path)
    text = p.read_text() if p.exists() else ""
    try:
        old = yaml.safe_load(text) if text else {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{p}: not valid YAML, not overwritten: {exc}") from exc
    old = {} if old is None else old
    if not isinstance(old, dict):
        raise ConfigError(f"{p}: top level must be a mapping of sections, got {type(old).__name__}; not overwritten")
    want = {**old, **sections}
    new = replace_sections(text, sections)
    try:
        ok = yaml.safe_load(new) == want
    except yaml.YAMLError:
        ok = False
    write_atomic(p, new if ok else yaml.safe_dump(want, sort_keys=False, default_flow_style=None, width=100))
