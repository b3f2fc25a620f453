"""Atomic file writes: a file is either its old self or complete, never half written.

Every package that writes a file a person keeps (the CLI's outputs, the planner's cached tables,
vision's rendered frames) writes it here. It lives in ``config/`` because that is the one package
every other one already imports (``planner/`` and ``vision/`` must not import ``controller/``).

The data goes to a temporary file in the target's own directory (so that the final
``os.replace`` is a rename within one file system, atomic on POSIX), is flushed and fsynced,
and then replaces the target. On any error the temporary file is removed and the target is
untouched.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

_UMASK = os.umask(0o022)
os.umask(_UMASK)        # read once, at import (os.umask can only be read by setting it)


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path`` (same suffix, so that writers that choose the
    format by extension, like ``cv2.imwrite`` or ``np.savez``, see the right one); when the block
    ends without an exception, the temporary file (mode 0666 less the umask, like ``open``) replaces
    ``path``. On the block's exception ``path`` is unchanged and the temporary file is gone."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=f".tmp{path.suffix}", dir=path.parent or ".")
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.chmod(tmp_path, 0o666 & ~_UMASK)
        with open(tmp_path, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp_path, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()


def write_atomic(path: str | Path, data: str | bytes) -> Path:
    """Write ``data`` (str: UTF-8 text; bytes: as is) to ``path`` atomically. Returns the path.
    Raises OSError (e.g. FileNotFoundError for a missing directory) with ``path`` unchanged."""
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with atomic_path(path) as tmp:
        tmp.write_bytes(raw)
    return path
