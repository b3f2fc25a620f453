"""The full vision pipeline: a frame in, the balls out (table position, pixels, identity).

``TableVision`` is built once per camera and table (it precomputes the table's image regions) and
then turns frames into ``BallObservation`` lists or a planner ``TableState``. ``observe_pixels``
does the same for any image of any balls given only their approximate radius in pixels.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np

from planner.state import TableState
from planner.table import Table
from vision.camera import CameraModel
from vision.detect import Detections, TableDetector
from vision.detect_pixels import detect_with_frame
from vision.halo_rings import halo_rings
from vision.identify import ball_features, ball_readings, colour_names, identify
from vision.registration import Landmarks


@dataclass(frozen=True)
class BallObservation:
    """One ball seen in a frame.

    x_px, y_px: image position of its centre [px]; r_px: outline radius [px]; label: '0'..'15',
    'solid'/'stripe' (number uncertain) or a colour class (pixel-only mode); confidence: 0..1;
    x_m, y_m: table-frame centre [m] (None without a camera model); ball_id: the 8-ball id or None.
    """
    x_px: float
    y_px: float
    r_px: float
    label: str
    confidence: float
    x_m: float | None = None
    y_m: float | None = None
    ball_id: int | None = None

    def to_json(self) -> dict:
        d = asdict(self)
        d.pop("ball_id")
        if self.x_m is None:
            d.pop("x_m")
            d.pop("y_m")
        return d


class TableVision:
    """Frames of one registered camera over one table -> balls. Build once, call per frame. cloth_srgb: None, or
    the cloth's colour as calibrated ((R, G, B) 8-bit sRGB, camera.yaml's ``cloth_srgb``): frames whose cloth's
    colour drifted from it are brought back to it (``vision.white_balance``)."""

    def __init__(self, cam: CameraModel, table: Table, R: float, landmarks: Landmarks, cloth_srgb=None):
        self.detector = TableDetector(cam, table, R, landmarks.rail, cloth_srgb)

    def detect(self, image: np.ndarray) -> tuple[Detections, list[BallObservation]]:
        """Detections and their observations (with 8-ball identities) for a BGR frame."""
        det, unlined = self.detector.detect_unlined(image)
        rings = halo_rings(image, det.px, det.r_px)     # drawn round the balls: found on the frame as shot
        ident = identify(*ball_readings(unlined, det.px, det.r_px, det.cloth_v, det.added, rings))
        obs = [BallObservation(x_px=float(det.px[i, 0]), y_px=float(det.px[i, 1]), r_px=float(det.r_px[i]),
                               label=ident.labels[i], confidence=float(ident.confidence[i]),
                               x_m=float(det.xy[i, 0]), y_m=float(det.xy[i, 1]),
                               ball_id=int(ident.ids[i]) if ident.ids[i] >= 0 else None)
               for i in range(len(det))]
        return det, obs

    def observe(self, image: np.ndarray) -> list[BallObservation]:
        return self.detect(image)[1]

    def table_state(self, image: np.ndarray) -> TableState:
        """The planner's view: identified balls at their table positions."""
        obs = [o for o in self.observe(image) if o.ball_id is not None]
        return TableState(np.array([o.ball_id for o in obs], dtype=np.int64),
                          np.array([(o.x_m, o.y_m) for o in obs], dtype=np.float64).reshape(-1, 2))


def observe_pixels(image: np.ndarray, radius_px: float, ball_set: str = "any",
                   cloth_srgb=None) -> list[BallObservation]:
    """Balls of about ``radius_px`` in any BGR image: pixel centres and a colour class named for
    ``ball_set`` ('any', 'pool' or 'snooker': ``vision.identify.colour_names``; ValueError otherwise). The
    colours are read off the frame the balls were found on (``vision.detect_pixels.detect_with_frame``: an
    underexposed frame brought up, one whose cloth's colour drifted from ``cloth_srgb`` (None, or (R, G, B)
    8-bit sRGB) brought back to it, one whose cloth's colour drifts across it evened)."""
    det, image = detect_with_frame(image, radius_px, cloth_srgb)
    names, conf = colour_names(ball_features(image, det.px, det.r_px, det.cloth_v), ball_set)
    return [BallObservation(x_px=float(det.px[i, 0]), y_px=float(det.px[i, 1]), r_px=float(det.r_px[i]),
                            label=names[i], confidence=float(conf[i])) for i in range(len(det))]


def timed(fn, *args) -> tuple[object, float]:
    """(fn(*args), elapsed milliseconds)."""
    t0 = time.perf_counter()
    out = fn(*args)
    return out, (time.perf_counter() - t0) * 1000.0
