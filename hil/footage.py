"""Recordings without a game: footage from a camera (``record_footage``) and someone else's
annotated frames, a directory of images or a video file (``import_frames``), written in the run-directory format (docs/recording.md) so
that ``cuerobot hil replay`` replays them like a game's recording.

Both copy the camera and table configuration they were made with into ``config/`` and write
``run.json`` (``"source": "record"`` or ``"import"``). Imported annotations are read with
``vision.truth_formats.load_truth`` (CSV ``image,x_px,y_px[,label]``, COCO points or boxes, the
project's rendered truth); pixel centres become table positions at ball-centre height through
the camera model (``vision.camera.pixels_to_table``, z = R); a label that is a ball number
0..15 becomes the ball's id, any other label leaves the id unknown (null).
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path

import cv2
import numpy as np

from hil.recording import RunWriter, write_meta
from vision.image_files import IMAGE_SUFFIXES


def _config(out: Path, camera: str | Path, table: str | Path | None):
    """Copy camera.yaml and table.yaml into out/config; return (camera settings, table settings)."""
    from config.camera import load_camera_settings
    from config.reader import default_path
    from config.table import load_table_settings

    table = Path(table) if table is not None else Path(default_path("table.yaml"))
    tc = load_table_settings(table)
    cs = load_camera_settings(tc.table, camera)
    (out / "config").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(camera, out / "config" / "camera.yaml")
    shutil.copyfile(table, out / "config" / "table.yaml")
    return cs, tc


def _ball_id(label: str) -> int | None:
    return int(label) if label.strip().isdigit() and 0 <= int(label) <= 15 else None


def _images(frames_dir: Path, fps: float):
    """(names the annotations may use, what to call it in errors, BGR image, time [s]) of each
    image of a directory, sorted by name, frame k at k / fps."""
    images = sorted(p for p in frames_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not images:
        raise ValueError(f"{frames_dir}: no images ({', '.join(IMAGE_SUFFIXES)})")

    def read():
        for k, path in enumerate(images):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise ValueError(f"{path}: cannot read the image")
            yield (path.name,), str(path), image, k / fps
    return read()


def video_frame_names(k: int) -> tuple[str, ...]:
    """The names annotations may give frame ``k`` (from 0) of a video: ``"k"``, or
    ``frame_NNNNNN`` with any image suffix (CVAT's and Label Studio's frame exports)."""
    stem = f"frame_{k:06d}"
    return (str(k), stem, *(stem + suf for suf in IMAGE_SUFFIXES), *(stem + suf.upper() for suf in IMAGE_SUFFIXES))


def _video(path: Path):
    """The frames of a video file, their times its own (``controller.camera.VideoCamera``)."""
    from controller.camera import CameraError, VideoCamera

    cam = VideoCamera(str(path))
    try:
        while True:
            try:
                f = cam.read()
            except CameraError:
                break
            yield video_frame_names(f.index), f"{path} frame {f.index}", f.image, f.t
    finally:
        cam.close()


def import_frames(frames: str | Path, truth_file: str | Path, camera: str | Path, out: str | Path,
                  table: str | Path | None = None, fps: float = 30.0) -> Path:
    """Turn footage and its annotations into the recording ``out``. ``frames``: a directory of
    images (sorted by name, matched to annotations by file name; frame k at time k / fps [s]), or
    a video file (frame k matched to the annotations of ``video_frame_names(k)``; times the
    file's own). Frames without annotations get no truth line. Raises ValueError (an unreadable
    image, a size that is not the camera's, no frames), controller.camera.CameraError (a video
    OpenCV cannot open), vision.truth_formats.TruthFormatError, config.reader.ConfigError."""
    from vision.camera import pixels_to_table
    from vision.truth_formats import load_truth

    src = Path(frames)
    source = _images(src, fps) if src.is_dir() else _video(src)
    truth = load_truth(truth_file)
    out = Path(out)
    cs, tc = _config(out, camera, table)
    w, h = cs.camera.size
    writer, n = RunWriter(out), 0
    try:
        for names, what, image, t in source:
            if image.shape[:2] != (h, w):
                raise ValueError(f"{what} is {image.shape[1]}x{image.shape[0]} but the camera ({camera}) is {w}x{h}")
            ft = next((truth[k] for k in names if k in truth), None)
            note = None
            if ft is not None:
                xy = pixels_to_table(cs.camera, ft.px, tc.physics.R) if len(ft.px) else np.zeros((0, 2))
                labels = ft.labels or [""] * len(ft.px)
                note = ([(_ball_id(lab), p) for lab, p in zip(labels, xy)], ft.px)
            writer.frame(image, t, "footage", None, annotation=note)
            n += 1
    finally:
        writer.close()
    if n == 0:
        raise ValueError(f"{frames}: no frames in the video")
    write_meta(out, {"source": "import", "frames_from": str(frames), "truth_from": str(truth_file),
                     "started": time.time()})
    return out


def record_footage(source: int | str, camera: str | Path, out: str | Path, seconds: float | None = None,
                   table: str | Path | None = None, max_frames: int | None = None) -> int:
    """Record frames of ``source`` (a device index, a URL or a video file;
    ``controller.camera.VideoCamera``) into the recording ``out`` until ``seconds`` of camera time
    have passed, ``max_frames`` were written, or the source ends. Returns the frames written.
    Raises controller.camera.CameraError if the source cannot be opened."""
    from controller.camera import CameraError, VideoCamera

    out = Path(out)
    _config(out, camera, table)
    write_meta(out, {"source": "record", "camera_source": str(source), "started": time.time()})
    cam = VideoCamera(source)
    writer = RunWriter(out)
    n, t0 = 0, None
    try:
        while max_frames is None or n < max_frames:
            try:
                f = cam.read()
            except CameraError:
                break                       # the end of a file, or the device went away
            t0 = f.t if t0 is None else t0
            if seconds is not None and f.t - t0 > seconds:
                break
            writer.frame(f.image, f.t, "footage", None)
            n += 1
    finally:
        cam.close()
        writer.close()
    return n
