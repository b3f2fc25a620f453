"""What a camera calibration reports: the JSON summary, the ``camera`` section of camera.yaml,
and the report figure (matplotlib, PNG).

The figure:

Left: each view's reprojection RMS when it is fitted (bars) and when it is held out (dots).
Middle: the residual of every corner drawn as an arrow at its place in the image, magnified
(``arrow_gain``), so a pattern (arrows growing towards the corners, or all pointing one way in a
view) shows a lens model that does not fit; noise shows as short arrows in random directions.
Right: the residuals as a scatter (dx, dy) [px], with the RMS circle.
"""
from __future__ import annotations

import datetime
from pathlib import Path

import numpy as np

from calibration.boards import Board
from calibration.camera import Calibration, HoldOut
from config.atomic import atomic_path
from config.camera import camera_to_dict


def summary(cal: Calibration, rejected: list[str], holdout: HoldOut | None) -> dict:
    """``{"rms_px", "views_used", "views_rejected", "per_view_px", "holdout_px", ...}``: the keys
    docs/calibration.md lists; ``views`` names the used views in the order of the per-view lists."""
    return {"rms_px": round(cal.rms_px, 4), "model": cal.model, "views_used": len(cal.views),
            "views_rejected": list(rejected), "views": [v.name for v in cal.views],
            "per_view_px": [round(float(e), 4) for e in cal.per_view_px],
            "holdout_px": None if holdout is None else round(holdout.rms_px, 4),
            "holdout_k": None if holdout is None else holdout.k,
            "holdout_per_view_px": None if holdout is None else [round(float(e), 4) for e in holdout.per_view_px]}


def camera_section(cal: Calibration, board: Board, rejected: list[str], holdout: HoldOut | None) -> dict:
    """The ``camera`` section of camera.yaml: the lens (``config.camera`` reads it) and, under
    ``calibration``, how it was measured (information only, not read back)."""
    sec = camera_to_dict(cal.camera)["camera"]
    sec["calibration"] = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "board": board.spec(), "lens_model": cal.model,
        "per_view_px": {v.name: round(float(e), 4) for v, e in zip(cal.views, cal.per_view_px)},
        "rejected": list(rejected),
        "holdout_px": None if holdout is None else round(holdout.rms_px, 4),
        "holdout_k": None if holdout is None else holdout.k,
    }
    return sec


def write_report(cal: Calibration, holdout: HoldOut | None, path: str | Path, arrow_gain: float | None = None) -> None:
    """Write the report PNG to ``path`` (atomically). Raises ImportError without matplotlib."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(cal.views)
    fig, (a0, a1, a2) = plt.subplots(1, 3, figsize=(17, 5.2), gridspec_kw={"width_ratios": [1.1, 1.6, 1]})
    x = np.arange(n)
    a0.bar(x, cal.per_view_px, color="tab:blue", label="fitted")
    if holdout is not None:
        a0.plot(x, holdout.per_view_px, "o", color="tab:red", label=f"held out ({holdout.k} at a time)")
        a0.set_yscale("log" if holdout.per_view_px.max() > 5 * cal.per_view_px.max() else "linear")
    a0.axhline(cal.rms_px, color="k", lw=0.8, ls="--", label=f"RMS {cal.rms_px:.3f} px")
    a0.set_xticks(x, [str(i) for i in x])
    a0.set_xlabel("view")
    a0.set_ylabel("reprojection RMS [px]")
    a0.set_title(f"per view ({cal.model} model)")
    a0.legend(fontsize=8)

    w, h = cal.camera.size
    px = np.concatenate([v.pixels for v in cal.views])
    r = np.concatenate(cal.residuals)
    gain = arrow_gain or 0.04 * max(w, h) / max(float(np.percentile(np.hypot(*r.T), 95)), 1e-9)
    view_of = np.concatenate([np.full(len(v.pixels), i) for i, v in enumerate(cal.views)])
    a1.quiver(px[:, 0], px[:, 1], r[:, 0] * gain, r[:, 1] * gain, view_of, cmap="tab10", angles="xy",
              scale_units="xy", scale=1, width=0.0025)
    a1.set_xlim(0, w)
    a1.set_ylim(h, 0)
    a1.set_aspect("equal")
    a1.set_title(f"residuals in the image (arrows x{gain:.0f}), colour = view")
    a1.set_xlabel("u [px]")
    a1.set_ylabel("v [px]")

    a2.scatter(r[:, 0], r[:, 1], c=view_of, cmap="tab10", s=6)
    t = np.linspace(0, 2 * np.pi, 100)
    a2.plot(cal.rms_px * np.cos(t), cal.rms_px * np.sin(t), "k--", lw=0.8)
    lim = 1.1 * float(np.max(np.abs(r))) if r.size else 1.0
    a2.set_xlim(-lim, lim)
    a2.set_ylim(lim, -lim)
    a2.set_aspect("equal")
    a2.set_title("residuals (reprojected - detected)")
    a2.set_xlabel("du [px]")
    a2.set_ylabel("dv [px]")
    fig.suptitle(f"{n} views, {len(r)} corners, {w}x{h} px: RMS {cal.rms_px:.3f} px"
                 + ("" if holdout is None else f", held out {holdout.rms_px:.3f} px"))
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=90, format="png")
    plt.close(fig)
