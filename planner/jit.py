"""numba's ``njit`` with an on-disk cache that follows the source.

numba invalidates a cached function only when its own file changes, not when a compiled
function it calls from another file does (numba docs, "Notes on Caching", cache limitations),
so an edited collision rule could silently keep running its old machine code inside the cached
event loop. Importing this module points numba's cache at a directory named after a hash of
every project module that compiles functions: any edit to one of them recompiles them all.
The base directory is ``$NUMBA_CACHE_DIR`` if set, else ``~/.cache/cuerobot/numba``.

Every module with compiled functions imports ``njit`` from here (not from numba), so the
cache directory is set before the first function is decorated.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba
from numba import njit

_ROOT = Path(__file__).resolve().parent.parent
_PACKAGES = ("planner", "vision")

__all__ = ["njit", "cache_dir", "compiled_sources_hash"]


def compiled_sources_hash(root: Path = _ROOT) -> str:
    """sha256 (16 hex digits) over the path and text of every module under ``root``'s planner/
    and vision/ that uses njit."""
    h = hashlib.sha256()
    for pkg in _PACKAGES:
        for f in sorted((root / pkg).rglob("*.py")):
            text = f.read_bytes()
            if b"njit" in text:
                h.update(f.relative_to(root).as_posix().encode())
                h.update(text)
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    base = os.environ.get("NUMBA_CACHE_DIR") or Path.home() / ".cache" / "cuerobot" / "numba"
    return Path(base) / compiled_sources_hash()


numba.config.CACHE_DIR = str(cache_dir())
