"""``cuerobot bench hil``: frames per second of 1280x720 frames through detection, as replay
runs it (a pool of worker processes, one vision each), against the baseline measured in the same
run (the same frames through one vision in one process). Frames are rendered once and held in
memory (the pool's workers inherit them by fork), so the figure is detection alone, not PNG
decoding."""
from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor

_STATE: dict = {}


def _init(n: int) -> None:
    from vision.pipeline import TableVision
    sc = _STATE["sc"]
    _STATE["vision"] = TableVision(sc.cam, sc.table, sc.R, _STATE["lm"])
    _STATE["vision"].observe(_STATE["images"][0])            # warm-up


def _detect(k: int) -> int:
    return len(_STATE["vision"].observe(_STATE["images"][k]))


def run_hil_bench(frames: int = 24, passes: int = 4, workers: int | None = None, seed: int = 0) -> dict:
    """{"frames", "workers", "pool_fps", "baseline_fps", "ratio", "size"}: ``passes`` passes over
    ``frames`` rendered layouts (config/camera.yaml, config/table.yaml) through a pool of
    ``workers`` processes (default: the CPU count) and through one process."""
    from vision.bench import render_layouts
    from vision.pipeline import TableVision
    from vision.render import synthetic_camera_from_config

    sc, lm = synthetic_camera_from_config()
    images = [f.image for f in render_layouts(sc, frames, seed)]
    _STATE.update(sc=sc, lm=lm, images=images)
    workers = workers or os.cpu_count() or 1
    vision = TableVision(sc.cam, sc.table, sc.R, lm)
    vision.observe(images[0])
    t0 = time.perf_counter()
    for _ in range(passes):
        for im in images:
            vision.observe(im)
    base = passes * frames / (time.perf_counter() - t0)
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init, initargs=(0,)) as pool:
        list(pool.map(_detect, range(min(frames, 2 * workers))))
        t0 = time.perf_counter()
        list(pool.map(_detect, [k for _ in range(passes) for k in range(frames)], chunksize=4))
        fps = passes * frames / (time.perf_counter() - t0)
    h, w = images[0].shape[:2]
    return {"frames": frames * passes, "workers": workers, "pool_fps": fps, "baseline_fps": base,
            "ratio": fps / base, "size": [w, h]}


def report(res: dict) -> str:
    w, h = res["size"]
    return (f"hil replay detection, {w}x{h}: {res['pool_fps']:,.1f} frames/s with {res['workers']} worker processes "
            f"(baseline one process {res['baseline_fps']:,.1f} frames/s, x{res['ratio']:.2f}); "
            f"target >= 100 frames/s")
