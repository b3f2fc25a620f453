"""Image files in and out, checked: OpenCV's ``imread`` returns None and ``imwrite`` returns
False (or raises ``cv2.error`` for an unknown extension) instead of saying what went wrong, and a
missing file makes ``imread`` print a ``[ WARN ]`` line of its own. These wrappers check first,
raise an error naming the file, and write atomically (config.atomic).
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from config.atomic import atomic_path

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
"""File name endings (lower case) read as images where a folder of frames or crops is listed."""


def read_image(path: str | Path, flags: int = cv2.IMREAD_COLOR) -> np.ndarray:
    """The image at ``path`` (BGR uint8 for the default flags). Raises FileNotFoundError,
    IsADirectoryError or PermissionError for a path that is not a readable file (checked before
    OpenCV sees it), ValueError if OpenCV cannot decode it."""
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(21, "is a directory, expected an image file", str(p))
    with open(p, "rb"):         # FileNotFoundError / PermissionError, named, without OpenCV's warning
        pass
    image = cv2.imread(str(p), flags)
    if image is None:
        raise ValueError(f"{p}: not an image OpenCV can read (e.g. PNG, JPEG)")
    return image


def can_write_image(path: str | Path) -> bool:
    """Does OpenCV have a writer for ``path``'s extension (e.g. .png, .jpg)?"""
    return bool(Path(path).suffix) and cv2.haveImageWriter(str(path))


def write_image(path: str | Path, image: np.ndarray) -> Path:
    """Write ``image`` to ``path`` atomically, in the format of its extension. Returns the path.
    Raises ValueError for an extension OpenCV cannot write, OSError if the file cannot be
    written (``path`` is then unchanged)."""
    p = Path(path)
    if not can_write_image(p):
        raise ValueError(f"{p}: OpenCV cannot write a '{p.suffix}' image; use .png or .jpg")
    with atomic_path(p) as tmp:
        if not cv2.imwrite(str(tmp), image):
            raise OSError(5, "OpenCV could not write the image", str(p))
    return p
