"""The compiled-code cache follows every compiled module's source, not just the caller's file."""
from __future__ import annotations

import shutil
from pathlib import Path

import numba

import planner
from planner.jit import cache_dir, compiled_sources_hash


def test_cache_directory_changes_when_any_compiled_module_changes(tmp_path):
    root = tmp_path / "tree"
    for pkg in ("planner", "vision"):
        shutil.copytree(Path(planner.__file__).parent.parent / pkg, root / pkg,
                        ignore=shutil.ignore_patterns("__pycache__"))
    before = compiled_sources_hash(root)
    assert compiled_sources_hash(root) == before
    plain = root / "planner" / "rack.py"                      # compiles nothing
    plain.write_text(plain.read_text() + "\n# edited\n")
    assert compiled_sources_hash(root) == before
    callee = root / "planner" / "physics" / "events.py"       # called from the cached event loop
    callee.write_text(callee.read_text() + "\n# edited\n")
    assert compiled_sources_hash(root) != before


def test_numba_uses_the_source_keyed_directory():
    import planner.physics.kernel  # noqa: F401  (decorates the event loop)
    assert numba.config.CACHE_DIR == str(cache_dir())
    assert cache_dir().name == compiled_sources_hash()
