"""The calibration's report figure (matplotlib, PNG): per parameter, fitted against commanded
(top row) and the histogram of fitted - commanded with the Gaussian N(bias, sigma^2 + median
measurement variance) the calibration found (bottom row). Units as docs/frame.md, a and b shown
in mm.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from calibration.robot import RobotCalibration
from config.atomic import atomic_path
from planner.shot import SHOT_FIELDS

SHOWN_UNITS = {"phi": ("deg", 1.0), "theta": ("deg", 1.0), "V": ("m/s", 1.0), "a": ("mm", 1000.0), "b": ("mm", 1000.0)}


def write_report(cal: RobotCalibration, path: str | Path) -> None:
    """Draw the figure of ``cal`` to ``path`` (PNG), atomically."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    used = [r for r in cal.shots if r.fit is not None and r.problem is None]
    fig, axes = plt.subplots(2, 5, figsize=(20, 7.5))
    for j, k in enumerate(SHOT_FIELDS):
        unit, scale = SHOWN_UNITS[k]
        st = cal.stats[k]
        var = np.array([r.fit.cov[j, j] for r in used])
        measured = np.isfinite(var)
        sent = np.array([r.sent.as_array()[j] for r in used])[measured] * scale
        fitted = np.array([r.fit.params.as_array()[j] for r in used])[measured] * scale
        top, bottom = axes[0, j], axes[1, j]
        top.scatter(sent, fitted, s=10)
        if sent.size:
            lo, hi = min(sent.min(), fitted.min()), max(sent.max(), fitted.max())
            top.plot([lo, hi], [lo, hi], "k:", lw=1, label="fitted = commanded")
            top.legend(loc="upper left", fontsize=8)
        top.set_xlabel(f"commanded {k} [{unit}]")
        top.set_ylabel(f"fitted {k} [{unit}]")
        top.set_title(f"{k}: {st.n} shots measured it")
        d = fitted - sent
        if d.size:
            bottom.hist(d, bins=max(5, int(np.sqrt(d.size)) + 2), density=True, alpha=0.6)
        if np.isfinite(st.sigma):
            sd = np.sqrt(st.sigma ** 2 + st.meas_sd ** 2) * scale
            x = np.linspace(st.bias * scale - 4 * sd, st.bias * scale + 4 * sd, 200) if sd > 0 else np.array([])
            if x.size:
                bottom.plot(x, np.exp(-0.5 * ((x - st.bias * scale) / sd) ** 2) / (sd * np.sqrt(2 * np.pi)), "r-",
                            label=f"bias {st.bias * scale:.4g}, sigma {st.sigma * scale:.4g}\n"
                                  f"95% CI {st.ci95[0] * scale:.4g}..{st.ci95[1] * scale:.4g} {unit}")
                bottom.legend(loc="upper left", fontsize=8)
        bottom.set_xlabel(f"fitted - commanded {k} [{unit}]" + ("" if st.identifiable else "  (unidentifiable)"))
        bottom.set_ylabel("density")
    fig.suptitle(f"robot calibration: {cal.measured} shots measured; unidentifiable: "
                 f"{', '.join(cal.unidentifiable()) or 'none'}")
    fig.tight_layout()
    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, dpi=80, format="png")
    finally:
        plt.close(fig)
