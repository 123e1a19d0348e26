"""Rotating collapse of *this* Σ₀: Σ(t) → 0 while its top eigenvector keeps turning (d = 2, no
drift; kind ``tube-rotation-collapse``, :mod:`symbolic_tf.certify.check.kinds.tube_rotation_collapse`).

The mirror image of :mod:`.rotation_tube`: when the rank-one circle of the trace-one plane attracts
on average (γ̄ > 0), carries no rest point, and the rotation-averaged growth rate κ̄ is *negative*,
the functional G = −log u + φ(ψ) (φ solving c + φ'ψ' ≈ κ̄, a truncated Fourier series) decreases
at a certified rate on a neighbourhood {(1 − r²)e^{η(ψ)} ≤ D0} of the circle; a validated tube from
Σ₀ (:mod:`.tube`) that ends inside it proves that the solution is global and Σ(t) → 0.

Every float here is a guess; the checker verifies it with its own procedure and the certificate
is re-checked independently.
"""
from __future__ import annotations

import time

import flint

from ....exact.precision import working_precision
from ....exact.rational import frac_str
from ....spec.verdict import UNDECIDED, Verdict
from .float_budget import guarded
from ....numeric.quadratic_field import FloatField
from ._tube_rotation import D0_ladder, float_guesses, function_fields, planar_inputs, rational_functions

__all__ = ["KIND", "find_rotation_collapse"]

# the header every tube search has (KIND, ARGUMENT, its claim, find_… with its budget): alike by design
KIND = "tube-rotation-collapse"
ARGUMENT = "validated-tube+rotation-averaged-decay-functional"
_CLAIM0 = "for this Σ₀: the solution is global and Σ(t) → 0 while its eigenvector rotates (validated tube + annulus)"


def find_rotation_collapse(problem, *, order: int = 20, prec: int = 128, seconds: float = 8.0,
                           max_steps: int = 20000, K: int = 16) -> Verdict:
    """PROVED (CLUSTERING, rank 0: Σ(t) → 0, for this Σ₀) with a ``tube-rotation-collapse``
    certificate, or UNDECIDED with the reason.  Never raises on float trouble.
    """
    return guarded(lambda t0: _find(problem, order, prec, seconds, max_steps, K, t0),
                   _CLAIM0, "tube-rotation-collapse search")


def _find(problem, order, prec, seconds, max_steps, K, t0) -> Verdict:
    from ....spec.errors import CertificationFailed
    from ...check.claims import Claim, Quantifier
    from ...check.kinds.tube_rotation_collapse import check_collapse_region
    from .lyapunov import certify_and_check, tube_missed
    from .tube_end import passes, refuse, tube_entry

    inputs = planar_inputs(problem)
    if isinstance(inputs, str):
        return Verdict(UNDECIDED, _CLAIM0, reason=inputs)
    heads, S0q = inputs
    if all(e == 0 for e in S0q.entries()):
        return Verdict(UNDECIDED, _CLAIM0, reason="Σ₀ = 0 is stationary (decided by the stationary route)")
    ff = FloatField(heads, None, 2)
    guess = float_guesses(ff, K, sign=-1)
    if isinstance(guess, str):
        return Verdict(UNDECIDED, _CLAIM0, reason=guess, numerical={"seconds": time.perf_counter() - t0})
    phi_f, eta_f, kbar, gbar = guess
    numerical = {"kappa_bar": kbar, "gamma_bar": gbar}
    ladder = D0_ladder(ff, phi_f, eta_f, kbar, gbar, sign=-1)
    if not ladder:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                       reason="no region D ≤ D0 around the rank-one circle that the field enters and where "
                              "the decay functional decreases")

    phi, eta = rational_functions(phi_f, eta_f)
    base = dict(function_fields(phi, eta), prec=prec)
    # the region (checks 1–3) does not depend on the tube: verify it on a synthetic end box first
    region, probe = None, flint.arb_mat([[1, 0], [0, 0]])   # a rank-one point: inside every region
    for D0 in ladder[:3]:
        for n_psi, n_r, depth in ((128, 2, 4), (256, 4, 6)):
            if time.perf_counter() - t0 > seconds / 2:
                break
            data = dict(base, D0=frac_str(D0), n_psi=n_psi, n_r=n_r, max_depth=depth)
            try:
                k_hi = check_collapse_region(heads, probe, data, refuse)
                region = data
                numerical.update(kappa_hi=float(k_hi.mid()), D0=float(D0), n_psi=n_psi, n_r=n_r)
                break
            except CertificationFailed as exc:
                numerical["region"] = str(exc)
        if region is not None:
            break
    if region is None:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                       reason="the region inequalities could not be verified: " + numerical.get("region", "budget"))
    from ...check.kinds.tube_rotation import end_point, parse_functions

    D0q, eta_q, phi_q = parse_functions(region, refuse)

    def entered(S, _t):
        with working_precision(prec):
            return True if passes(end_point, S, D0q, eta_q, phi_q) else None

    left = max(0.5, seconds - (time.perf_counter() - t0))
    entry = tube_entry(heads, None, S0q, entered, numerical, order=order, prec=prec, max_steps=max_steps, seconds=left)
    if entry.t is None:
        return tube_missed(entry.tube, _CLAIM0, numerical, t0, "enter the certified annulus")
    data = dict(region, **entry.fields)
    claim = Claim("CLUSTERING", Quantifier.THIS, {"rank": 0})
    note = (f"validated order-{order} Taylor tube over {entry.steps} steps to t = {float(entry.t):.10g}, inside "
            f"the region (1 − r²)e^η ≤ {numerical['D0']:g} where the rotation-averaged functional G decreases at a "
            f"rate ≤ {numerical['kappa_hi']:.4g}")
    return certify_and_check(problem, KIND, claim, data, note, numerical, t0, ARGUMENT,
                             {"regime": "CLUSTERING", "rank": 0},
                             f"rotating collapse: validated tube from Σ₀ ({entry.steps} steps) into a certified "
                             "neighbourhood of the rank-one circle on which Σ decays on average; Σ(t) → 0")


# ---- route ----
from ..routes import declare, searching, tube_applies  # noqa: E402 - the route is declared after its search

declare("tube-rotation-collapse", 62, ("CLUSTERING",),
        tube_applies(False, d=2, what="the rotating-collapse certificate"),
        searching(find_rotation_collapse, unless=("blowup",), seconds=8.0),
        doc="CLUSTERING (rank 0) of this Σ₀: a validated tube enters a neighbourhood of the rank-one circle where a "
            "decay functional decreases; quadratic flows without drift, d = 2.")
