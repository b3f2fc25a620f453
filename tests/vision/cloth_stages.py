"""The cloth stage of the detectors, run alone on a frame for the tests: the frame at half
resolution, a cloth model fitted to a 9-pixel grid of it, and each pixel's class."""
from __future__ import annotations

import cv2
import numpy as np

from vision.cloth import ClothModel, classify, fit_cloth


def half_cloth(image: np.ndarray) -> tuple[ClothModel, np.ndarray]:
    """(cloth model, classes (H/2, W/2) uint8 of vision.cloth) of a BGR frame."""
    hh, hw = image.shape[0] // 2, image.shape[1] // 2
    half = cv2.resize(image, (hw, hh), interpolation=cv2.INTER_AREA)
    sv, su = np.mgrid[4:hh:9, 4:hw:9]
    model = fit_cloth(half[sv.ravel(), su.ravel()], su.ravel(), sv.ravel(), 1.0 / hw)
    cu, cv_ = np.meshgrid(np.arange(hw) + 0.0, np.arange(hh) + 0.0)
    return model, classify(half, model, model.brightness(cu, cv_).astype(np.float32))
