"""Annotated ball centres read from files: what a detector is scored against.

Every reader returns ``{image name: FrameTruth}``; image names are file names without folders
(``frame_001.png``), matched against the images given to ``cuerobot vision evaluate``. Pixel
coordinates are in OpenCV's convention (the centre of the top-left pixel is (0, 0)).

* CSV (``.csv``): a header ``image,x_px,y_px[,label]``, one ball per row, OpenCV's convention.
* COCO JSON (as CVAT and Label Studio export): ``images`` (id, file_name), ``annotations``
  (image_id, category_id, and ``keypoints`` [x, y, v, ...] (the first visible point is the centre)
  or ``bbox`` [x, y, w, h] (its centre)), ``categories`` (id, name: the label). COCO coordinates
  are continuous (the top-left pixel spans 0..1), so 0.5 is subtracted.
* The project's rendered truth (``cuerobot vision render --truth``): ``{"image": name, "balls":
  [{"label", "x_m", "y_m", "x_px", "y_px"}]}`` (one frame; an integer "id" in files written before
  "label"), or a list of such objects; labels are the ball ids as strings, as ``vision detect
  --json`` gives them, and table positions [m] are kept for scoring in millimetres.
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np


class TruthFormatError(ValueError):
    """A truth file that cannot be read; the message names the file and what is wrong."""


@dataclass(frozen=True)
class FrameTruth:
    """The balls annotated in one image: px (N, 2) centres [px]; labels: N strings or None;
    xy: (N, 2) table positions [m] or None (rendered truth only)."""
    px: np.ndarray
    labels: list[str] | None = None
    xy: np.ndarray | None = None


def load_truth(path: str | Path) -> dict[str, FrameTruth]:
    """Read a truth file of any supported format (chosen by suffix and content).
    Raises TruthFormatError naming the file and the problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TruthFormatError(f"{path}: cannot read the truth file ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise TruthFormatError(f"{path}: not a truth file (CSV or JSON text; not UTF-8 at byte {exc.start})") from exc
    if path.suffix.lower() == ".csv":
        return _from_csv(path, text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TruthFormatError(f"{path}: not CSV (by its suffix) nor valid JSON: {exc}") from exc
    if isinstance(data, dict) and "annotations" in data and "images" in data:
        return _from_coco(path, data)
    frames = data if isinstance(data, list) else [data]
    if all(isinstance(f, dict) and "balls" in f for f in frames):
        return _from_rendered(path, frames)
    raise TruthFormatError(f"{path}: JSON is neither COCO (images, annotations) nor rendered truth "
                           "(an object or list of objects with 'image' and 'balls')")


def _from_csv(path: Path, text: str) -> dict[str, FrameTruth]:
    rows = list(csv.DictReader(text.splitlines()))
    need = {"image", "x_px", "y_px"}
    if not rows or not need <= set(rows[0]):
        raise TruthFormatError(f"{path}: a CSV truth file needs the header image,x_px,y_px[,label] "
                               f"and at least one row")
    by: dict[str, list] = {}
    for i, row in enumerate(rows, start=2):
        try:
            p = (float(row["x_px"]), float(row["y_px"]))
        except (TypeError, ValueError) as exc:
            raise TruthFormatError(f"{path}:{i}: x_px and y_px must be numbers, got "
                                   f"{row['x_px']!r}, {row['y_px']!r}") from exc
        by.setdefault(Path(row["image"]).name, []).append((p, (row.get("label") or "").strip()))
    return {k: _frame([p for p, _ in v], [lab for _, lab in v]) for k, v in by.items()}


def _from_coco(path: Path, data: dict) -> dict[str, FrameTruth]:
    names = {im["id"]: Path(im["file_name"]).name for im in data["images"]}
    cats = {c["id"]: str(c["name"]) for c in data.get("categories", [])}
    by: dict[str, list] = {n: [] for n in names.values()}
    for a in data["annotations"]:
        if a.get("image_id") not in names:
            raise TruthFormatError(f"{path}: annotation {a.get('id')} refers to unknown image_id "
                                   f"{a.get('image_id')}")
        kp = a.get("keypoints") or []
        vis = [(kp[i], kp[i + 1]) for i in range(0, len(kp) - 2, 3) if kp[i + 2] > 0]
        if vis:
            x, y = vis[0]
        elif a.get("bbox"):
            bx, by_, bw, bh = a["bbox"]
            x, y = bx + bw / 2, by_ + bh / 2
        else:
            raise TruthFormatError(f"{path}: annotation {a.get('id')} has neither a visible keypoint nor a bbox")
        by[names[a["image_id"]]].append(((x - 0.5, y - 0.5), cats.get(a.get("category_id"), "")))
    return {k: _frame([p for p, _ in v], [lab for _, lab in v]) for k, v in by.items()}


def _from_rendered(path: Path, frames: list) -> dict[str, FrameTruth]:
    out = {}
    for f in frames:
        try:
            balls = f["balls"]
            px = [(b["x_px"], b["y_px"]) for b in balls]
            xy = np.array([(b["x_m"], b["y_m"]) for b in balls], float).reshape(-1, 2)
            labels = [str(b["label"] if "label" in b else b["id"]) for b in balls]   # "id": before 'label'
        except (KeyError, TypeError) as exc:
            raise TruthFormatError(f"{path}: each rendered ball needs label, x_m, y_m, x_px, y_px ({exc})") from exc
        name = Path(f.get("image", "")).name
        if not name and len(frames) > 1:
            raise TruthFormatError(f"{path}: with several frames each needs its 'image' name")
        out[name] = FrameTruth(np.array(px, float).reshape(-1, 2), labels, xy)
    return out


def _frame(px: list, labels: list[str]) -> FrameTruth:
    return FrameTruth(np.array(px, float).reshape(-1, 2), labels if any(labels) else None)
