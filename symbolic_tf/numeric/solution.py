"""The result of a batched moment integration: :class:`Solution` and the member status codes.

Shared by the integrators (:mod:`symbolic_tf.numeric.integrate`, the compiled kernels) and the
closed-form flows (:mod:`symbolic_tf.numeric.closed_form`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Solution", "RUNNING", "HORIZON", "BLOWUP", "CONVERGED", "FAILED", "MAX_STEPS", "STATUS_NAMES"]

#: Member status codes: still running, reached the horizon T, blew up (‖Σ‖ or ‖α‖ exceeded the
#: bound, or the step size collapsed), converged to an equilibrium, failed (non-finite), or
#: stopped at the step limit.
RUNNING, HORIZON, BLOWUP, CONVERGED, FAILED, MAX_STEPS = 0, 1, 2, 3, 4, 5
STATUS_NAMES = {RUNNING: "running", HORIZON: "horizon", BLOWUP: "blowup", CONVERGED: "converged", FAILED: "failed",
                MAX_STEPS: "max_steps"}


@dataclass
class Solution:
    """Result of :func:`integrate` for a batch of B members.

    Attributes
    ----------
    t_eval : (n,) sample times
    alpha : (B, n, d) means at the samples: after a member stops at ``t_end`` they are NaN when it
        blew up, failed or ran out of steps (the solution is unknown or does not exist there), and
        frozen at the last value when it converged or reached the horizon
    Sigma : (B, n, d, d) covariances at the samples (likewise)
    status : (B,) int codes (see ``STATUS_NAMES``)
    t_end : (B,) last time reached
    alpha_end, Sigma_end : state at ``t_end``
    n_steps, n_rejected : (B,) accepted / rejected step counts
    method : how the result was obtained: ``"dopri5/numpy"``, ``"dopri5/compiled"``,
        ``"dop853/compiled"`` or ``"closed form"`` (:mod:`symbolic_tf.numeric.closed_form`)
    """

    t_eval: np.ndarray
    alpha: np.ndarray
    Sigma: np.ndarray
    status: np.ndarray
    t_end: np.ndarray
    alpha_end: np.ndarray
    Sigma_end: np.ndarray
    n_steps: np.ndarray
    n_rejected: np.ndarray
    method: str = "dopri5/numpy"

    def __post_init__(self):
        # samples past a blow-up (or a failure) are not values of the solution: NaN, never the
        # last finite state held constant
        gone = np.isin(np.asarray(self.status), (BLOWUP, FAILED, MAX_STEPS))
        if gone.any() and len(self.t_eval):
            past = gone[:, None] & (np.asarray(self.t_eval)[None, :] > np.asarray(self.t_end, dtype=float)[:, None])
            if past.any():
                self.alpha = np.array(self.alpha, dtype=float)
                self.Sigma = np.array(self.Sigma, dtype=float)
                self.alpha[past] = np.nan
                self.Sigma[past] = np.nan

    def status_names(self) -> list[str]:
        """The status of every member as a name.

        Returns
        -------
        list of str
            ``STATUS_NAMES[status[i]]`` for each member i.
        """
        return [STATUS_NAMES[int(s)] for s in self.status]
