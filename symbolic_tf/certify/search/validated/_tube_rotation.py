"""Rotating blow-up of *this* Σ₀ with a bracket (d = 2, with or without drift; issue 15 item 2
(ii); kind ``tube-rotation``).

When V has no real eigenvector, the rank-one circle of the trace-one plane carries no ray: the
top eigenvector of Σ keeps turning while Σ grows in bursts.  On the circle (p, q) = (cos ψ, sin ψ)
the projective field turns at the rate ψ'(ψ) ≠ 0 and grows at the rate c(ψ); the
cohomological equation c + φ'ψ' = κ̄ (κ̄ = ∫c/ψ' dψ / ∫1/ψ' dψ, the rotation-averaged growth
rate) has a periodic solution φ, approximated here by a truncated Fourier series (FFT of
(κ̄ − c)/ψ' on a grid) with short dyadic coefficients.  The checker
(:mod:`symbolic_tf.certify.check.kinds.tube_rotation`) then verifies G' = c + φ'ψ' > 0 over a neighbourhood
{(1 − r²)e^{η(ψ)} ≤ D0} of the circle that the field enters (η solves the analogous equation for
the transversal attraction rate, so the circle need only attract on average), and a validated tube from Σ₀ (:mod:`.tube`) into it gives
T* ∈ t_N + u₁·[e^{φ_lo − φ₁}/κ_hi, e^{φ_hi − φ₁}/κ_lo] (u₁ = 1/tr Σ(t_N)); the tube runs on until
the bracket is narrower than ``rel_width`` or the budget ends.  With a drift F the guesses are
those of the quadratic part (u = 0); the region also bounds u ≤ u_max (:func:`u_ladder`, the
largest candidate the ball checks accept), and the tube runs on until u₁e^{φ_hi − φ₁} < u_max.

Every float here is a guess; the checker's own procedures verify it, and the certificate is
re-checked independently.
"""
from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from ....exact.rational import dyadic, fmpq_of, frac_str, qmat_to_float
from ....spec.verdict import UNDECIDED, Verdict
from .float_budget import guarded
from ....numeric.quadratic_field import FloatField
from ._float_field import float_blowup
from .tube_end import refuse

__all__ = ["KIND", "find_rotation_blowup"]

KIND = "tube-rotation"
ARGUMENT = "validated-tube+rotation-averaged-growth-functional"
_CLAIM0 = "for this Σ₀: Σ(t) blows up in finite time while its eigenvector rotates (validated tube + annulus)"


def _plane(ff: FloatField, p, q):
    """(p', q', c, tr K) of the projective field on the trace-one plane (floats, vectorised)."""
    X = np.zeros(np.shape(p) + (2, 2))
    X[..., 0, 0] = 0.5 * (1 + p)
    X[..., 1, 1] = 0.5 * (1 - p)
    X[..., 0, 1] = X[..., 1, 0] = 0.5 * q
    K = sum(C @ X @ A for C, A in ff.pairs)
    KX = K @ X
    Q = KX + np.swapaxes(KX, -1, -2)
    c = Q[..., 0, 0] + Q[..., 1, 1]
    Xd = Q - c[..., None, None] * X
    return Xd[..., 0, 0] - Xd[..., 1, 1], 2 * Xd[..., 0, 1], c, K[..., 0, 0] + K[..., 1, 1]


def _fourier_antiderivative(g, K):
    """(a_k, b_k), k = 1..K, of a trigonometric polynomial whose derivative approximates the
    mean-zero grid function g on [0, 2π) (φ' = Σ k(−a_k sin kψ + b_k cos kψ))."""
    n = len(g)
    F = np.fft.rfft(g) / n
    alpha = 2 * F.real[1:K + 1]     # g ≈ Σ α_k cos kψ + β_k sin kψ
    beta = -2 * F.imag[1:K + 1]
    k = np.arange(1, K + 1)
    return -beta / k, alpha / k


def _trig(a, b, psi, derivative=False):
    k = np.arange(1, len(a) + 1)
    C, S = np.cos(np.outer(psi, k)), np.sin(np.outer(psi, k))
    if derivative:
        return (k * (-np.asarray(a) * S + np.asarray(b) * C)).sum(axis=1)
    return (np.asarray(a) * C + np.asarray(b) * S).sum(axis=1)


def float_guesses(ff, K, n=4096, sign=1):
    """Float guesses on the rank-one circle: φ (growth), η (transversal attraction), κ̄, γ̄; or a
    reason string when the circle has a rest point or repels on average, or when sign·κ̄ ≤ 0
    (sign = 1: growth, the rotating blow-up; −1: decay, the rotating collapse).
    """
    psi = 2 * np.pi * np.arange(n) / n
    dp, dq, c, trK = _plane(ff, np.cos(psi), np.sin(psi))
    w = np.cos(psi) * dq - np.sin(psi) * dp      # ψ' on the circle
    if not (np.all(w > 0) or np.all(w < 0)) or np.abs(w).min() < 1e-9 * np.abs(w).max():
        return "the rank-one circle has a rest point (a ray or an equilibrium line): no rotation"
    kbar = np.sum(c / w) / np.sum(1 / w)
    gamma = 2 * (c - trK)     # transversal rate on the circle: (1 − r²)' = −γ(1 − r²)
    gbar = np.sum(gamma / w) / np.sum(1 / w)
    if sign * kbar <= 0:
        return f"the rotation-averaged growth rate κ̄ ≈ {kbar:.3g} is not {'positive' if sign > 0 else 'negative'}"
    if gbar <= 0:
        return f"the rank-one circle does not attract on average (γ̄ ≈ {gbar:.3g})"
    phi = _fourier_antiderivative((kbar - c) / w, K)
    eta = _fourier_antiderivative((gamma - gbar) / w, K)
    return phi, eta, float(kbar), float(gbar)


def D0_ladder(ff, phi, eta, kbar, gbar, n=2048, sign=1):
    """D0 = 2^−j (largest first) for which, in floats with margin, D' < −(γ̄/4)·(1 − r²) on D = D0
    and sign·G' > |κ̄|/4 on {D ≤ D0}.
    """
    psi = 2 * np.pi * np.arange(n) / n
    e, de = _trig(*eta, psi), _trig(*eta, psi, derivative=True)
    dphi = _trig(*phi, psi, derivative=True)
    out = []
    for j in range(1, 16):
        D0 = 2.0 ** -j
        delta = D0 * np.exp(-e)
        if np.any(delta >= 1):
            continue
        rb = np.sqrt(1 - delta)
        p, q = rb * np.cos(psi), rb * np.sin(psi)
        dp, dq, c, trK = _plane(ff, p, q)
        rate = 2 * (trK - c) + de * (p * dq - q * dp) / rb ** 2
        if not np.all(rate < -0.25 * gbar):
            continue
        ok = True
        for t in np.linspace(0, 1, 9):
            r = rb + t * (1 - rb)
            p, q = r * np.cos(psi), r * np.sin(psi)
            dp, dq, c, _ = _plane(ff, p, q)
            if not np.all(sign * (c + dphi * (p * dq - q * dp) / r ** 2) > abs(kbar) / 4):
                ok = False
                break
        if ok:
            out.append(Fraction(1, 2 ** j))
    return out


def planar_inputs(problem, drift=False):
    """(heads, exact Σ₀) of a d = 2 problem without drift and with Σ₀ ⪰ 0 — the setting of the
    rotation certificates — or the reason (a string) why the problem is not one.  With
    ``drift=True`` a drift is admitted too and the triple (heads, F or None, Σ₀) is returned.
    """
    from .tube import psd_flow_inputs

    if problem.d != 2:
        return "the rotation certificates cover d = 2"
    if drift and problem.has_drift:
        inputs = psd_flow_inputs(problem, True, "the drift vanishes")
        if isinstance(inputs, str) and inputs == "the drift vanishes":
            inputs = psd_flow_inputs(problem, False, "")
    else:
        inputs = psd_flow_inputs(problem, False, "the rotation certificates cover the flow without drift")
    if isinstance(inputs, str):
        return inputs
    heads, F, S0q = inputs
    if drift:
        return heads, (F if F is not None and any(e != 0 for e in F.entries()) else None), S0q
    return heads, S0q


def u_ladder(F, kbar):
    """The candidate sizes u_max of the region N' = {D ≤ D0, r ≤ 1, 0 < u ≤ u_max}, largest first:
    [None] without drift; with a drift F, u_max = 2^−j from about κ̄/(8‖F‖₁) down by factors of 4
    (the u-terms of the field are O(u·‖F‖), a perturbation of the growth rate κ̄).
    """
    if F is None:
        return [None]
    norm = max(1.0, max(sum(abs(float(F[i, j])) for j in range(2)) for i in range(2)))
    j0 = max(1, int(np.ceil(-np.log2(abs(kbar) / (8 * norm)))))
    return [Fraction(1, 2 ** j) for j in range(j0, j0 + 13, 4)]


def rational_functions(phi_f, eta_f):
    """The float trigonometric coefficients of φ and η rounded to short dyadics (40 bits), as stored."""
    def rational(v):
        return [dyadic(float(x), 40) for x in v]

    return tuple(rational(v) for v in phi_f), tuple(rational(v) for v in eta_f)


def function_fields(phi, eta) -> dict:
    """The certificate's data fields of φ and η: {"phi_a", "phi_b", "eta_a", "eta_b"} as exact strings."""
    return {"phi_a": [frac_str(x) for x in phi[0]], "phi_b": [frac_str(x) for x in phi[1]],
            "eta_a": [frac_str(x) for x in eta[0]], "eta_b": [frac_str(x) for x in eta[1]]}


def find_rotation_blowup(problem, *, order: int = 20, prec: int = 128, seconds: float = 8.0,
                         rel_width: float = 1e-6, horizon: float = 50.0, max_steps: int = 20000,
                         K: int = 16) -> Verdict:
    """PROVED (BLOWUP for this Σ₀, T* ∈ [T_lo, T_hi]) with a ``tube-rotation`` certificate, or
    UNDECIDED with the reason.  Never raises on float trouble.
    """
    return guarded(lambda t0: _find(problem, order, prec, seconds, rel_width, horizon, max_steps, K, t0),
                   _CLAIM0, "tube-rotation search")


def _find(problem, order, prec, seconds, rel_width, horizon, max_steps, K, t0) -> Verdict:
    from ....spec.errors import CertificationFailed
    from ...check.claims import Claim, Quantifier
    from ...check.kinds.tube_rotation import end_bracket, region_bounds
    from .lyapunov import certify_and_check, stored_bracket, tube_fields, tube_missed, tube_summary
    from .tube import integrate_tube

    inputs = planar_inputs(problem, drift=True)
    if isinstance(inputs, str):
        return Verdict(UNDECIDED, _CLAIM0, reason=inputs)
    heads, F, S0q = inputs
    ff = FloatField(heads, None, 2)
    guess = float_guesses(ff, K)
    if isinstance(guess, str):
        return Verdict(UNDECIDED, _CLAIM0, reason=guess, numerical={"seconds": time.perf_counter() - t0})
    phi_f, eta_f, kbar, gbar = guess
    numerical = {"kappa_bar": kbar, "gamma_bar": gbar}
    late = float_blowup(FloatField(heads, F, 2), qmat_to_float(S0q), horizon)
    if late is None:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                       reason=f"no float blow-up up to t = {horizon:g}")
    numerical["float_T"] = late[0]
    ladder = D0_ladder(ff, phi_f, eta_f, kbar, gbar)
    if not ladder:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                       reason="no region D ≤ D0 around the rank-one circle that the field enters and where "
                              "the growth functional grows")

    phi, eta = rational_functions(phi_f, eta_f)
    phi_q = tuple([fmpq_of(x) for x in v] for v in phi)
    eta_q = tuple([fmpq_of(x) for x in v] for v in eta)
    bounds, pieces, D0, u_max = None, None, None, None
    for D0_try in ladder[:3]:
        D0q = fmpq_of(D0_try)
        for u_try in u_ladder(F, kbar):
            uq = None if u_try is None else fmpq_of(u_try)
            for n_psi, n_r, depth in ((128, 2, 4), (256, 4, 6)):
                if time.perf_counter() - t0 > seconds / 2:
                    break
                try:
                    bounds = region_bounds(heads, D0q, eta_q, phi_q, n_psi, n_r, prec, refuse, depth, F=F, u_max=uq)
                    pieces, D0, u_max = (n_psi, n_r, depth), D0_try, u_try
                    break
                except CertificationFailed as exc:
                    numerical["region"] = str(exc)
            if bounds is not None:
                break
        if bounds is not None:
            break
    u_maxq = None if u_max is None else fmpq_of(u_max)
    if bounds is None:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                       reason="the region inequalities could not be verified: " + numerical.get("region", "budget"))
    numerical.update(kappa_lo=float(bounds[0].mid()), kappa_hi=float(bounds[1].mid()),
                     phi_range=float((bounds[3] - bounds[2]).mid()), n_psi=pieces[0], n_r=pieces[1])
    best = {}
    last_tr = [0.0]
    deadline = t0 + seconds

    def until(state, t):
        S = state.S
        trS = float(S[0, 0].mid() + S[1, 1].mid())
        if not trS > 0 or trS < 2 * last_tr[0]:
            return time.perf_counter() > deadline and bool(best)
        last_tr[0] = trS
        try:
            lo, hi = end_bracket(S, t, D0q, eta_q, phi_q, bounds, prec, refuse, u_maxq)
        except CertificationFailed:
            return time.perf_counter() > deadline and bool(best)
        T_lo, T_hi, width = stored_bracket(lo, hi)
        if not best or width < best["width"]:
            best.update(T_lo=frac_str(T_lo), T_hi=frac_str(T_hi), t=t, width=width)
        return width <= rel_width or time.perf_counter() > deadline

    left = max(0.5, 0.5 * (seconds - (time.perf_counter() - t0)))
    tube = integrate_tube(heads, F, S0q, None, order=order, prec=prec, method="qr", max_steps=max_steps,
                          rel_tol=1e-2, seconds=left, until=until, framed=True)
    numerical.update(tube_summary(tube))
    if not best:
        return tube_missed(tube, _CLAIM0, numerical, t0, "enter the certified annulus")
    times, tube_data = tube_fields(tube, best["t"], order, prec)
    D0q = fmpq_of(D0)
    data = {**function_fields(phi, eta), "D0": frac_str(D0), "n_psi": pieces[0], "n_r": pieces[1],
            "max_depth": pieces[2], "T_lo": best["T_lo"], "T_hi": best["T_hi"], "prec": prec, **tube_data}
    if u_max is not None:
        data["u_max"] = frac_str(u_max)
        numerical["u_max"] = float(u_max)
    claim = Claim("BLOWUP", Quantifier.THIS, {"T_lo": data["T_lo"], "T_hi": data["T_hi"]})
    numerical["rel_width"] = best["width"]
    return certify_and_check(problem, KIND, claim, data, (f"validated order-{order} Taylor tube over {len(times) - 1} steps to "
                                          f"t = {float(best['t']):.12g}, inside the region (1 − r²)e^η ≤ {float(D0):g} where "
                                          f"the rotation-averaged growth functional grows at a rate in "
                                          f"[{numerical['kappa_lo']:.4g}, {numerical['kappa_hi']:.4g}]"), numerical, t0, ARGUMENT,
                             {"regime": "BLOWUP", "T_lo": data["T_lo"], "T_hi": data["T_hi"]},
                             (f"rotating blow-up: validated tube from Σ₀ ({len(times) - 1} steps) into a certified "
                           f"neighbourhood of the rank-one circle with rotation-averaged growth; relative bracket width "
                           f"{best['width']:.2g}"))


# ---- route ----
from ..routes import declare, searching, tube_applies  # noqa: E402 - the route is declared after its search

# after tube-ray (60), which covers the blow-ups that settle on a ray
declare("tube-rotation", 61, ("BLOWUP",), tube_applies(d=2, what="the rotation certificate"),
        searching(find_rotation_blowup, unless=("settles",), seconds=10.0),
        doc="BLOWUP of this Σ₀ with a bracket: a validated tube enters an annulus where a rotation-averaged growth "
            "functional increases; quadratic flows, drift or not, d = 2.")
