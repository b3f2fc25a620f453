"""The measurement error of the calibration's observation, measured by replaying a fitted shot.

Vision's errors on a moving ball are not white noise: they drift with the ball's place on the
table and its look (a ~50 um bias field), so the fit's own covariance (robot_fit.py) says too
little about how far a fitted shot is from the executed one. ``Replay.error`` measures it
directly, as a parametric bootstrap (Efron & Tibshirani, "An Introduction to the Bootstrap",
1993, Section 6.5): the fitted shot is rendered by this process's own model of the camera
(vision.render's synthetic camera of camera.yaml, with sensor noise) at the observed frame
times, seen by the same vision, tracked and fitted again from the same commanded shot; refit
minus fit is one draw of the observation's error on that trajectory. The calibration's
statistics use the mean square of these draws as each parameter's measurement variance floor.

Nothing here knows the robot's true error: the replayed shot is the fit's.
"""
from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from calibration.robot_fit import ObservedShot, ShotFit, fit_shot
from calibration.robot_sightings import sightings
from controller.observed_tracks import Snapshot, tracks
from planner.physics.engine import PhysicsInputError, Simulator
from planner.physics.trajectory import positions_at
from planner.state import TableState

REST_FRAMES = 8         # frames of the replayed table at rest before the strike


class Replay:
    """renderer: a ``vision.render_fast.FastRenderer`` of the camera; vision: ``observe(image)``;
    simulator: the table's engine; rng: seeds the balls' orientations and the sensor noise."""

    def __init__(self, renderer, vision, simulator: Simulator, rng: np.random.Generator):
        self.renderer, self.vision, self.sim, self.rng = renderer, vision, simulator, rng
        self.R = simulator.params.R

    def _image(self, ids: np.ndarray, pos: np.ndarray, rot: np.ndarray) -> np.ndarray:
        centres = np.column_stack([pos, np.full(len(ids), self.R)])
        image = self.renderer.update(ids, centres, rot).copy()
        self.renderer.add_noise(image, self.rng)
        return image

    def error(self, obs: ObservedShot, fit: ShotFit, theta_sd: float) -> np.ndarray:
        """(5,) refit - fit of the replayed shot (SHOT_FIELDS order and units); inf where the
        fit or the refit did not measure the parameter; all inf if the replay could not be fitted."""
        bad = np.full(5, np.inf)
        try:
            res = self.sim.simulate(obs.start, fit.params)
        except PhysicsInputError:
            return bad
        ids = obs.start.ids
        rot = Rotation.random(len(ids), random_state=self.rng).as_matrix()
        dt = float(np.median(np.diff(obs.times))) if len(obs.times) > 1 else 1.0 / 30.0
        rest_t = obs.times[0] - dt * np.arange(REST_FRAMES, 0, -1)
        times = np.concatenate([rest_t, obs.times])
        true_pos = positions_at(res, obs.start, times - fit.t0, self.sim.params)
        last = {int(b): p for b, p in zip(ids, obs.start.pos)}
        snaps = []
        for k, t in enumerate(times):
            on = ~np.isnan(true_pos[k, :, 0])
            seen = sightings(self._image(ids[on], true_pos[k, on], rot[on]), self.vision, last)
            last.update({b: np.asarray(xy) for b, xy in seen.items()})
            snaps.append(Snapshot(float(t), seen))
        _, seen_ids, pos = tracks(snaps)
        full = np.full((len(times), len(ids), 2), np.nan)
        for j, b in enumerate(ids):
            col = np.flatnonzero(seen_ids == b)
            if col.size:
                full[:, j] = pos[:, col[0]]
        rest = full[:REST_FRAMES]
        if np.isnan(rest).any():
            return bad
        start = TableState(ids.copy(), rest.mean(axis=0))
        replayed = ObservedShot(start, times[REST_FRAMES - 1:], ids.copy(), full[REST_FRAMES - 1:], obs.commanded)
        try:
            refit = fit_shot(replayed, self.sim, theta_sd)
        except ValueError:
            return bad
        if not refit.ok:
            return bad
        measured = np.isfinite(np.diag(fit.cov)) & np.isfinite(np.diag(refit.cov))
        return np.where(measured, refit.params.as_array() - fit.params.as_array(), np.inf)
