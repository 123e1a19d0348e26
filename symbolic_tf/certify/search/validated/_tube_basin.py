"""Convergence of *this* Σ₀ into a certified basin (issue 15 item 2; certificate kind ``tube-basin``).

:func:`symbolic_tf.certify.search._equilibrium_basin.find_basin` only decides a Σ₀ that already lies in the
certified Lyapunov sublevel set {E(Σ − Σ*) < ρ} around a Krawczyk-enclosed stable equilibrium
Σ* of the drift model Σ̇ = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ.  Here the solution from Σ₀ is enclosed
by a validated tube (:mod:`symbolic_tf.certify.search.validated.tube`) until the enclosure of Σ(t_N)
lies inside such a basin: then Σ exists on [0, t_N], Σ(t_N) ∈ {E < ρ}, and the basin argument
(forward invariance and E(t) ≤ E(t_N)e^{−μ(t − t_N)}) gives a global solution converging to Σ*.

The basin data (W, κ, c_Q, ρ, λ_lo, λ_hi, n_V, n_A and the Krawczyk box) come from the search
helpers of :mod:`symbolic_tf.certify.search._equilibrium_basin`, with the candidate Lyapunov matrices ranked by
the size of their basin (ρ/λ_hi: {E < ρ} ⊇ {‖Σ − Σ*‖_F² < ρ/λ_hi}) instead of by Σ₀; every
verified candidate is tested against the tube's end box after each step (in ball arithmetic,
over every Σ in the end box and every Σ* in the Krawczyk box).  The certificate stores the
basin data, the exact step times, the Taylor order, the tube precision and the wrapping
method; :mod:`symbolic_tf.certify.check.kinds.tube_basin` replays the tube with its own code.
"""
from __future__ import annotations

import time
from fractions import Fraction

import flint
import numpy as np

from ....exact.precision import working_precision
from ....exact.rational import Q, qmat, qmat_to_float
from ....spec.verdict import UNDECIDED, Verdict
from .float_budget import guarded
from ...check.certificate import vec_str

__all__ = ["KIND", "find_tube_basin"]

KIND = "tube-basin"
ARGUMENT = "validated-tube+krawczyk-lyapunov-basin"


def _claim0():
    return ("for this Σ₀: Σ(t) converges to a certified equilibrium Σ* (a validated tube from Σ₀ "
            "enters a certified basin)")


def _basin_candidates(problem, ed):
    """Verified basin data for the equilibrium certificate ``ed``: a list of (data fields, ρ as
    float, W as fmpq_mat, ρ as fmpq), largest basins first."""
    from .. import _equilibrium_basin as B

    d = problem.d
    Smid = qmat(ed["Sigma_mid"])
    r = Q(Fraction(ed["r"]))
    prec = int(ed["prec"])
    mats = B.lyapunov_exact_mats(problem)
    F, V, A = mats
    Ff, Vf, Af, Sf = (B.lyapunov_to_float(M) for M in (F, V, A, Smid))
    L = B.lyapunov_DG_float(Sf, Ff, Vf, Af)
    Dg = np.diag([1.0 if i == j else 2.0 for i, j in B.lyapunov_pairs(d)])
    nVf = float(np.linalg.norm(Vf, 2)) ** 2
    nAf = float(np.linalg.norm(Af, 2)) ** 2
    scored = []
    for label, W in B.lyapunov_candidates(L, Dg):
        sc = B.lyapunov_score(W, L, Dg, nVf, nAf, np.zeros(len(B.lyapunov_pairs(d))))
        if sc is not None:
            scored.append((-sc["rho_max"] / sc["hi"], label, W, sc))
    scored.sort(key=lambda t: t[0])
    out = []
    for _, label, W, sc in scored[:6]:
        res = B.lyapunov_verify(problem, mats, Smid, Smid, r, prec, W, sc)
        if res is None:
            continue
        data_w, _E0, rho, _inside = res
        out.append((dict(data_w), rho, qmat(data_w["W"]), Q(Fraction(data_w["rho"])), label))
    return out, Smid, r, prec


def _max_abs(M) -> float:
    return max(abs(int(M[i, j].p) / int(M[i, j].q)) for i in range(M.nrows()) for j in range(M.ncols()))


def _inside(Send, Smid, r, W, rho, prec) -> bool:
    """E(Σ − Σ*) < ρ for every Σ in the ball matrix Send and every Σ* in Smid ± r (ball
    arithmetic at ``prec`` bits; the checker's formula)."""
    with working_precision(prec):
        d = Smid.nrows()
        e = flint.arb(0, flint.arb(r).upper())
        idx = [(i, j) for i in range(d) for j in range(i, d)]
        delta = flint.arb_mat(len(idx), 1, [Send[i, j] - (flint.arb(Smid[i, j]) + e) for i, j in idx])
        Wb = flint.arb_mat(W.nrows(), W.ncols(), [flint.arb(W[i, j]) for i in range(W.nrows()) for j in range(W.ncols())])
        E = (delta.transpose() * Wb * delta)[0, 0]
        return bool(E < flint.arb(rho))


def _float_precheck(problem, Smid, horizon: float = 200.0):
    """Float (scipy) distance max|Σ(t) − Sigma_mid| at the end of [0, horizon] from Σ₀, or None if the
    float solution fails/blows up — only to skip hopeless tube searches quickly."""
    from .float_budget import FloatBudgetExceeded, solve_capped

    d = problem.d
    from ....numeric.quadratic_field import FloatField
    from ....variants import single_quadratic_head

    rhs = FloatField([single_quadratic_head(problem)], problem.exact.F if problem.F is not None else None, d).sigma_rhs

    def big(_t, y):
        return 1e8 - np.abs(y).max()

    big.terminal = True
    # DOP853 first (LSODA alone failed with "unexpected istate" on a rotating drift whose solution
    # settles at a PD equilibrium: the search was skipped as hopeless), LSODA for stiff flows
    try:
        with np.errstate(all="ignore"):
            sol = solve_capped(rhs, (0.0, horizon), qmat_to_float(problem.exact.Sigma0).ravel(), rtol=1e-8,
                               atol=1e-10, events=big)
    except FloatBudgetExceeded:
        return None
    if not sol.success or sol.status == 1 or not np.all(np.isfinite(sol.y[:, -1])):
        return None
    mid = qmat_to_float(Smid)
    return float(np.abs(sol.y[:, -1].reshape(d, d) - mid).max())


def find_tube_basin(problem, *, order: int = 20, prec: int = 128, method: str = "qr", seconds: float = 5.0,
                    max_steps: int = 4000, rel_tol: float = 1e-3, local_tol: float = 1e-15) -> Verdict:
    """PROVED (EQUILIBRIUM for this Σ₀) with a ``tube-basin`` certificate when a validated tube from
    the problem's Σ₀ ends inside a certified basin of a stable equilibrium; UNDECIDED (with the
    reason) otherwise.  Never raises on float trouble.

    ``seconds`` is the wall-clock budget of the whole search (equilibrium, basin, tube and the
    independent check; the tube gets ~55 % of what is left after the basin search).  A float
    (scipy) pre-check skips the tube when the float solution does not approach Σ*.
    """
    return guarded(lambda t0: _find(problem, order, prec, method, seconds, max_steps, rel_tol, local_tol, t0),
                   _claim0(), "tube-basin search")


def _find(problem, order, prec, method, seconds, max_steps, rel_tol, local_tol, t0) -> Verdict:
    from ....spec.errors import InvalidParameters
    from .lyapunov import certify_and_check, tube_missed, tube_summary
    from ...check.claims import Claim, Quantifier
    from .._equilibrium_basin import basin_inputs_reason, stable_equilibrium
    from .tube import flow_data, integrate_tube

    claim0 = _claim0()
    why = basin_inputs_reason(problem)
    if why:
        return Verdict(UNDECIDED, claim0, reason=why)
    try:
        heads, F = flow_data(problem)
    except InvalidParameters as exc:
        return Verdict(UNDECIDED, claim0, reason=str(exc))
    S0 = problem.exact.Sigma0
    if S0 != S0.transpose():
        return Verdict(UNDECIDED, claim0, reason="Σ₀ is not symmetric")
    ed, why = stable_equilibrium(problem)
    if ed is None:
        return Verdict(UNDECIDED, claim0, reason=why, numerical={"seconds": time.perf_counter() - t0})
    cands, Smid, r, bprec = _basin_candidates(problem, ed)
    numerical = {"basins": [{"W": c[4], "rho": c[1]} for c in cands]}
    if not cands:
        return Verdict(UNDECIDED, claim0, numerical=numerical,
                       reason="the Lyapunov/decay inequalities of a basin could not be verified in ball arithmetic")
    gap = _float_precheck(problem, Smid)
    numerical["float_end_distance"] = gap
    if gap is None or gap > 1e-3 * (1 + _max_abs(Smid)):
        numerical["seconds"] = time.perf_counter() - t0
        return Verdict(UNDECIDED, claim0, numerical=numerical,
                       reason=("the float solution from Σ₀ does not approach the certified equilibrium "
                               + ("(it fails or blows up)" if gap is None else f"(distance {gap:.3g} at t = 200)")
                               + ": no tube search"))
    hit = []

    def until(state, _t):
        for k, c in enumerate(cands):
            if _inside(state.S, Smid, r, c[2], c[3], bprec):
                hit.append(k)
                return True
        return False

    # the independent check replays the tube at about the integration's cost: give the
    # integration a little over half of what is left of the budget
    left = max(0.2, 0.55 * (seconds - (time.perf_counter() - t0)))
    tube = integrate_tube(heads, F, S0, None, order=order, prec=prec, method=method, max_steps=max_steps,
                          rel_tol=rel_tol, seconds=left, until=until, local_tol=local_tol)
    numerical.update(tube_summary(tube), final_max_radius=max(tube.widths()))
    if not hit:
        return tube_missed(tube, claim0, numerical, t0, "reach a certified basin")
    data_w = cands[hit[0]][0]
    data = {"basis": "svec-upper", "prec": bprec, "Sigma_mid": ed["Sigma_mid"], "r": ed["r"], "Y": ed["Y"],
            **data_w, "steps": vec_str(tube.times), "order": order, "tube_prec": prec, "method": method}
    claim = Claim("EQUILIBRIUM", Quantifier.THIS, {"Sigma_mid": ed["Sigma_mid"], "r": ed["r"]})
    note = (f"validated order-{order} Taylor tube ({method}, {prec} bits) over {tube.steps} steps to "
            f"t = {float(tube.t_final):.10g}, ending inside the basin {{E < ρ}} ({cands[hit[0]][4]})")
    rho = cands[hit[0]][1]
    return certify_and_check(problem, KIND, claim, data, note, numerical, t0, ARGUMENT,
                             {"regime": "EQUILIBRIUM", "Sigma_star_box": {"mid": ed["Sigma_mid"], "rad": ed["r"]}},
                             (f"validated tube from Σ₀ ({tube.steps} steps, order {order}) to t = "
                              f"{float(tube.t_final):.6g}; the enclosure of Σ(t_N) lies in the certified basin "
                              f"{{E(Σ − Σ*) < ρ}}, ρ ≈ {rho:.4g}, of the Krawczyk-enclosed equilibrium Σ*"))


# ---- route ----
from ..routes import declare, needs, searching, single_head_drift  # noqa: E402 - routes last

# for a Σ₀ too far for krawczyk-basin (85) whose solution gets there; before krawczyk-equilibrium (90); 10 s: a
# slow approach needs a few thousand steps
declare("tube-basin", 86, ("EQUILIBRIUM",), needs(single_head_drift),
        searching(find_tube_basin, unless=("blowup",), seconds=10.0),
        doc="EQUILIBRIUM of this Σ₀: a validated tube ends in a certified basin of a Krawczyk-certified Σ*; the drift "
            "model with one quadratic head.")
