"""A certified basin of attraction of a Krawczyk-certified equilibrium (kind ``equilibrium-basin``).

The drift model's covariance obeys Σ̇ = G(Σ) = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ (A = scale·A_problem).
G is quadratic, so around an equilibrium Σ* (G(Σ*) = 0), with Δ = Σ − Σ*, *exactly*

    Δ̇ = L*Δ + Q(Δ),   L* = DG(Σ*),   Q(Δ) = VΔAΔ + ΔAᵀΔVᵀ.

Coordinates: δ = svec-upper(Δ) ∈ ℝᵐ (m = d(d+1)/2, the coordinate of Δ on E_ij + E_ji is Δ_ij,
i ≤ j; the same basis as ``equilibrium-krawczyk``), and D = diag(1 on (i, i), 2 on (i, j), i < j),
so that δᵀDδ = ‖Δ‖_F².  The certificate holds rationals W (m×m symmetric), λ_lo, λ_hi, n_V, n_A,
κ, c_Q, ρ with

1. the Krawczyk box X = Sigma_mid ± r (with Y, as in ``equilibrium-krawczyk``) holds exactly
   one zero Σ* of G, and every Σ in X is PD;
2. λ_lo > 0, W − λ_lo·D ⪰ 0 and λ_hi·D − W ⪰ 0 (exact inertia): λ_lo‖Δ‖_F² ≤ δᵀWδ ≤ λ_hi‖Δ‖_F²
   (so W ≻ 0);
3. n_V·I − VᵀV ⪰ 0 and n_A·I − AᵀA ⪰ 0 (exact): ‖V‖₂² ≤ n_V, ‖A‖₂² ≤ n_A;
4. c_Q ≥ 0 and c_Q²·λ_lo² ≥ 4·λ_hi·n_V·n_A (exact).  Then, with ‖δ‖_W = √(δᵀWδ) and q = svec Q,
   ‖VΔAΔ‖_F ≤ ‖V‖₂‖Δ‖_F‖A‖₂‖Δ‖₂ ≤ √(n_V n_A)‖Δ‖_F², hence
   ‖q(δ)‖_W ≤ √λ_hi‖Q(Δ)‖_F ≤ 2√(λ_hi n_V n_A)‖Δ‖_F² ≤ (2√(λ_hi n_V n_A)/λ_lo)‖δ‖_W² ≤ c_Q‖δ‖_W²;
5. κ > 0 and −(LᵀW + WL) − κW ≻ 0 for every L in the interval linearisation DG(X) (ball
   Cholesky); since Σ* ∈ X, L* ∈ DG(X) and δᵀ(L*ᵀW + WL*)δ ≤ −κ·δᵀWδ;
6. ρ > 0 and 4c_Q²ρ < κ² (exact), i.e. μ := κ − 2c_Q√ρ > 0;
7. Σ₀ (the embedded problem's) is PD exactly (rank d), and E(δ₀) = δ₀ᵀWδ₀ < ρ for
   δ₀ = svec(Σ₀ − Σ) for *every* Σ in the box X (ball arithmetic), hence for Σ*.

Then E(t) = δ(t)ᵀWδ(t) satisfies, by 4 and 5 and Cauchy–Schwarz in the W inner product,

    Ė = δᵀ(L*ᵀW + WL*)δ + 2δᵀWq(δ) ≤ −κE + 2c_Q E^{3/2} = −(κ − 2c_Q√E)·E ≤ −μE  while E ≤ ρ.

So {E ≤ ρ} is forward invariant (Ė < 0 on its boundary), it is compact (W ≻ 0), the solution
from Σ₀ stays in it and therefore exists for all t ≥ 0, and E(t) ≤ E(0)e^{−μt} → 0: Σ(t) → Σ*.
That is the claim EQUILIBRIUM for *this* Σ₀ (:class:`~symbolic_tf.certify.check.claims.Quantifier`
THIS) with |Σ*_ij − Sigma_mid_ij| ≤ r.  (A singular Σ₀ can never be covered: rank Σ(t) ≤ rank Σ₀
along the flow and Σ* ≻ 0; the checker refuses a non-PD Σ₀ outright.)

:func:`find_basin` obtains the box from :func:`symbolic_tf.certify.search._equilibrium_krawczyk.find_equilibrium`
and proposes W (float Lyapunov solutions for a few shifted linearisations, keeping the one
whose level ρ covers Σ₀ best), κ, λ_lo, λ_hi, n_V, n_A, c_Q, ρ in floats, rounds them to
rationals on the safe side and verifies them like the checker does; every float here is only a
guess — :mod:`symbolic_tf.certify.check.kinds.equilibrium_basin` re-verifies the certificate independently.
"""
from __future__ import annotations

import math
import time
from fractions import Fraction

import flint
import numpy as np

from ...exact.ball import ball_pd
from ...exact.definiteness import definiteness
from ...exact.precision import working_precision
from ...exact.rational import dyadic, float_of, frac_str, Q, qmat
from ...spec.verdict import PROVED, UNDECIDED, Verdict
from .validated.float_budget import guarded
from ..check.certificate import Certificate, mat_str
from ..check.krawczyk_box import ball, box, eye, gram, linearisation

__all__ = ["find_basin", "KIND"]

KIND = "equilibrium-basin"
BASIS = "svec-upper"


# --------------------------------------------------------------------------------------------
# coordinates and matrices
# --------------------------------------------------------------------------------------------
def lyapunov_pairs(d):
    """The svec-upper index pairs (i, j), i ≤ j, row by row (m = d(d+1)/2 of them)."""
    return [(i, j) for i in range(d) for j in range(i, d)]


def _svec(S, d):
    return np.array([S[i, j] for i, j in lyapunov_pairs(d)], dtype=float)


def lyapunov_to_float(M: flint.fmpq_mat) -> np.ndarray:
    """An exact matrix as a float64 array (each entry p/q rounded once)."""
    return np.array([[int(M[i, j].p) / int(M[i, j].q) for j in range(M.ncols())] for i in range(M.nrows())])


def lyapunov_exact_mats(problem):
    """(F, V, Ã) exactly for one quadratic head with drift (F = 0 without drift)."""
    from ..check.krawczyk_box import drift_model

    return drift_model(problem)


def _rat_up(x: float, bits: int = 30) -> Fraction:
    q = dyadic(x, bits)
    return q if q >= Fraction(x) else q + abs(q) * Fraction(1, 2 ** (bits - 2)) + Fraction(1, 2 ** 200)


def _rat_down(x: float, bits: int = 30) -> Fraction:
    q = dyadic(x, bits)
    return q if q <= Fraction(x) else q - abs(q) * Fraction(1, 2 ** (bits - 2))


def _sym_qmat(W: np.ndarray, bits: int) -> flint.fmpq_mat:
    n = W.shape[0]
    out = flint.fmpq_mat(n, n)
    for i in range(n):
        for j in range(i, n):
            out[i, j] = out[j, i] = Q(dyadic(float(W[i, j]), bits))
    return out


# --------------------------------------------------------------------------------------------
# floats: the linearisation at Sigma_mid and candidate Lyapunov matrices
# --------------------------------------------------------------------------------------------
def lyapunov_DG_float(S, F, V, A):
    """The linearisation DG(Σ) of G(Σ) = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ in svec-upper coordinates, in
    floats: column (i, j) is svec(H + Hᵀ), H = FE + VEAΣ + VΣAE, E = E_ij + E_ji.
    """
    d = S.shape[0]
    cols = []
    for i, j in lyapunov_pairs(d):
        E = np.zeros((d, d))
        E[i, j] = E[j, i] = 1.0
        H = F @ E + V @ E @ A @ S + V @ S @ A @ E
        cols.append(_svec(H + H.T, d))
    return np.array(cols).T


def _gen_eig(M, W):
    """Generalised eigenvalues of the symmetric pencil (M, W), W ≻ 0 (floats, ascending)."""
    from scipy.linalg import eigh

    return eigh(0.5 * (M + M.T), 0.5 * (W + W.T), eigvals_only=True)


def lyapunov_score(W, L, Dg, nV, nA, delta0):
    """Float (κ, λ_lo, λ_hi, c_Q, ρ_max, E0) for a candidate W; None if it is no Lyapunov matrix."""
    try:
        if np.linalg.eigvalsh(W).min() <= 0:
            return None
        kappa = _gen_eig(-(L.T @ W + W @ L), W).min()
        lam = _gen_eig(W, Dg)
    except (np.linalg.LinAlgError, ValueError):
        return None
    if not (kappa > 0 and lam.min() > 0):
        return None
    lo, hi = lam.min(), lam.max()
    c = 2 * math.sqrt(hi * nV * nA) / lo
    rho_max = kappa ** 2 / (4 * c ** 2) if c > 0 else math.inf
    E0 = float(delta0 @ W @ delta0)
    return {"kappa": kappa, "lo": lo, "hi": hi, "c": c, "rho_max": rho_max, "E0": E0}


def lyapunov_candidates(L, Dg):
    """Float Lyapunov matrices: (L + αI)ᵀW + W(L + αI) = −R for shifts α below the spectral gap
    and R ∈ {I, D}; normalised to max |W_ij| = 1.
    """
    from scipy.linalg import solve_continuous_lyapunov

    m = L.shape[0]
    gap = -np.linalg.eigvals(L).real.max()
    out = []
    for frac in (0.0, 0.25, 0.5, 0.75, 0.9):
        Ls = L + frac * gap * np.eye(m)
        for R in (np.eye(m), Dg):
            try:
                W = solve_continuous_lyapunov(Ls.T, -R)
            except Exception:  # noqa: BLE001 — scipy raises LinAlgError/ValueError on singular systems
                continue
            W = 0.5 * (W + W.T)
            if np.all(np.isfinite(W)) and np.abs(W).max() > 0:
                out.append((f"shift {frac:g}, R = {'I' if R is not Dg else 'D'}", W / np.abs(W).max()))
    return out


# --------------------------------------------------------------------------------------------
# exact/ball verification (mirrors the checker)
# --------------------------------------------------------------------------------------------
def _E0_ball(S0, Smid, r, W, d):
    """Ball enclosure of max over Σ ∈ X of svec(Σ₀ − Σ)ᵀ W svec(Σ₀ − Σ)."""
    Xb = box(Smid, r)
    pairs = lyapunov_pairs(d)
    m = len(pairs)
    delta = flint.arb_mat(m, 1, [flint.arb(S0[i, j]) - Xb[i, j] for i, j in pairs])
    return (delta.transpose() * ball(W) * delta)[0, 0]


def _norm2_bound(M: flint.fmpq_mat) -> Fraction:
    """A rational n ≥ ‖M‖₂² (exactly: n·I − MᵀM ⪰ 0)."""
    P = M.transpose() * M
    n = P.nrows()
    lam = float(np.linalg.eigvalsh(lyapunov_to_float(P)).max()) if n else 0.0
    q = _rat_up(max(lam, 0.0) * (1 + 1e-9) + 1e-300, 30)
    for _ in range(40):
        if definiteness(Q(q) * eye(n) - P).psd:
            return q
        q = q * Fraction(1025, 1024) + Fraction(1, 2 ** 60)
    raise ArithmeticError("could not bound a spectral norm")


def _lam_bounds(W: flint.fmpq_mat, Dg: flint.fmpq_mat, lo_f: float, hi_f: float):
    """Rationals 0 < λ_lo ≤ λ_hi with W − λ_lo·D ⪰ 0 and λ_hi·D − W ⪰ 0 (exact), or None."""
    lo, hi = _rat_down(lo_f * (1 - 1e-7), 30), _rat_up(hi_f * (1 + 1e-7), 30)
    for _ in range(20):
        if lo > 0 and definiteness(W - Q(lo) * Dg).psd:
            break
        lo = lo * Fraction(63, 64)
    else:
        return None
    for _ in range(20):
        if definiteness(Q(hi) * Dg - W).psd:
            break
        hi = hi * Fraction(65, 64)
    else:
        return None
    return lo, hi


def _c_Q(lo: Fraction, hi: Fraction, nV: Fraction, nA: Fraction) -> Fraction:
    """The rational c_Q ≥ 2√(λ_hi n_V n_A)/λ_lo (exactly: c_Q²λ_lo² ≥ 4λ_hi n_V n_A)."""
    need = 4 * hi * nV * nA
    c = _rat_up(2 * math.sqrt(float(hi) * float(nV) * float(nA)) / float(lo), 30)
    while c * c * lo * lo < need:
        c = c * Fraction(1025, 1024) + Fraction(1, 2 ** 60)
    return c


def lyapunov_verify(problem, mats, S0, Smid, r, prec, Wf, sc):
    """Round a float candidate to a certificate's rationals and verify it (None if it fails).

    Returns (data fields, E0 upper bound as float, ρ as float, whether E0 < ρ is proved).
    """
    F, V, A = mats
    d = problem.d
    Dg = gram(d)
    with working_precision(prec):
        Xb = box(Smid, r)
        Lb = linearisation(Xb, F, V, A, d)
        for bits in (30, 52):
            W = _sym_qmat(Wf, bits)
            lam = _lam_bounds(W, Dg, sc["lo"], sc["hi"])
            if lam is None:
                continue
            lo, hi = lam
            nV, nA = _norm2_bound(V), _norm2_bound(A)
            cQ = _c_Q(lo, hi, nV, nA)
            Wb = ball(W)
            S = (Lb.transpose() * Wb + Wb * Lb) * (-1)
            kappa = None
            for shrink in (1e-6, 1e-4, 1e-2, 0.1, 0.3):
                k = _rat_down(sc["kappa"] * (1 - shrink), 30)
                if k > 0 and ball_pd(S - Wb * flint.arb(Q(k))) is True:
                    kappa = k
                    break
            if kappa is None:
                continue
            rho = _rat_down(float(kappa) ** 2 / (4 * float(cQ) ** 2) * (1 - 1e-9), 30) if cQ > 0 else Fraction(10 ** 6)
            while not (rho > 0 and 4 * cQ * cQ * rho < kappa * kappa):
                rho = rho * Fraction(63, 64)
            E0 = _E0_ball(S0, Smid, r, W, d)
            data = {"W": mat_str(W), "kappa": frac_str(kappa), "c_Q": frac_str(cQ), "rho": frac_str(rho),
                    "lam_lo": frac_str(lo), "lam_hi": frac_str(hi), "normV2": frac_str(nV), "normA2": frac_str(nA)}
            inside = bool(E0 < flint.arb(Q(rho)))
            return data, float(E0.mid()) + float(E0.rad()), float(rho), inside
        return None


# --------------------------------------------------------------------------------------------
# the search
# --------------------------------------------------------------------------------------------
def _claim_text_undecided():
    return "for this Σ₀: Σ(t) converges to a certified equilibrium Σ* (Σ₀ lies in a certified basin)"


def basin_inputs_reason(problem):
    """Why the basin searches (``equilibrium-basin``, ``tube-basin``) do not apply to ``problem``:
    it needs one quadratic (softmax) head and a Σ₀; None when both are there.
    """
    from ...variants import quadratic_reason

    why = quadratic_reason(problem, single=True)
    if why is not None:
        return why
    if problem.cov is None:
        return "the problem has no Σ₀"
    return None


def stable_equilibrium(problem):
    """The data of a Krawczyk certificate (:func:`symbolic_tf.certify.search._equilibrium_krawczyk.find_equilibrium`)
    of a locally stable PD equilibrium Σ* (its claims include "stable"), or the reason why there is none.
    """
    from ._equilibrium_krawczyk import find_equilibrium

    eq = find_equilibrium(problem)
    cert_eq = eq.evidence.get("certificate")
    if eq.status != PROVED or cert_eq is None or "stable" not in cert_eq["data"].get("claims", []):
        return None, "no locally stable PD equilibrium certified: " + (eq.reason or "?")
    return cert_eq["data"], None


def find_basin(problem) -> Verdict:
    """PROVED (regime EQUILIBRIUM for this Σ₀) with an ``equilibrium-basin`` certificate when Σ₀
    provably lies in a Lyapunov sublevel set {E ≤ ρ} around a Krawczyk-certified stable Σ* ≻ 0
    on which the quadratic remainder is dominated; UNDECIDED (with the reason) otherwise.
    Never raises on float trouble.
    """
    return guarded(lambda t0: _find_basin(problem, t0), _claim_text_undecided(), "basin search")


def _find_basin(problem, t0) -> Verdict:
    from ..check.claims import Claim, Quantifier

    claim0 = _claim_text_undecided()
    why = basin_inputs_reason(problem)
    if why:
        return Verdict(UNDECIDED, claim0, reason=why)
    d = problem.d
    S0 = problem.exact.Sigma0
    if S0 != S0.transpose() or not definiteness(S0).pd:
        return Verdict(UNDECIDED, claim0, reason="Σ₀ is not positive definite: a singular Σ₀ keeps its rank along "
                       "the flow and never reaches a PD equilibrium")
    ed, why = stable_equilibrium(problem)
    if ed is None:
        return Verdict(UNDECIDED, claim0, reason=why, numerical={"seconds": time.perf_counter() - t0})
    Smid = qmat(ed["Sigma_mid"])
    r = Q(Fraction(ed["r"]))
    prec = int(ed["prec"])
    mats = lyapunov_exact_mats(problem)
    F, V, A = mats
    Ff, Vf, Af, Sf, S0f = (lyapunov_to_float(M) for M in (F, V, A, Smid, S0))
    L = lyapunov_DG_float(Sf, Ff, Vf, Af)
    Dg = np.diag([1.0 if i == j else 2.0 for i, j in lyapunov_pairs(d)])
    nVf = float(np.linalg.norm(Vf, 2)) ** 2
    nAf = float(np.linalg.norm(Af, 2)) ** 2
    delta0 = _svec(S0f - Sf, d)
    scored = []
    for label, W in lyapunov_candidates(L, Dg):
        sc = lyapunov_score(W, L, Dg, nVf, nAf, delta0)
        if sc is not None:
            scored.append((sc["E0"] / sc["rho_max"], label, W, sc))
    if not scored:
        return Verdict(UNDECIDED, claim0, reason="no float Lyapunov matrix for the linearisation at Σ*",
                       numerical={"seconds": time.perf_counter() - t0})
    scored.sort(key=lambda t: t[0])
    numerical = {"Sigma_mid_float": Sf.tolist(), "candidates": [
        {"W": lab, "E0/rho_max": ratio, "kappa": sc["kappa"], "c_Q": sc["c"]} for ratio, lab, _, sc in scored]}
    best = None
    for ratio, label, W, sc in scored:
        res = lyapunov_verify(problem, mats, S0, Smid, r, prec, W, sc)
        if res is None:
            continue
        data_w, E0, rho, inside = res
        if best is None:
            best = (label, data_w, E0, rho, inside)
        if inside:
            best = (label, data_w, E0, rho, inside)
            break
        if ratio >= 1:  # the remaining candidates are worse in floats
            break
    numerical["seconds"] = time.perf_counter() - t0
    if best is None:
        return Verdict(UNDECIDED, claim0, numerical=numerical,
                       reason="the Lyapunov/decay inequalities could not be verified in ball arithmetic")
    label, data_w, E0, rho, inside = best
    numerical.update(W_choice=label, E0=E0, rho=rho)
    if not inside:
        return Verdict(UNDECIDED, claim0, numerical=numerical,
                       reason=(f"Σ₀ is not shown to lie in the certified basin around Σ* "
                               f"(E(Σ₀ − Σ*) ≤ {E0:.4g} but the certified level is ρ ≈ {rho:.4g})"))
    data = {"basis": BASIS, "prec": prec, "Sigma_mid": ed["Sigma_mid"], "r": ed["r"], "Y": ed["Y"], **data_w}
    claim = Claim("EQUILIBRIUM", Quantifier.THIS, {"Sigma_mid": ed["Sigma_mid"], "r": ed["r"]})
    cert = Certificate.for_problem(problem, KIND, claim, PROVED, data)
    return Verdict(PROVED, claim.text(), "krawczyk-lyapunov-basin",
                   evidence={"regime": "EQUILIBRIUM", "Sigma_star_box": {"mid": ed["Sigma_mid"], "rad": ed["r"]},
                             "certificate": cert.to_dict()},
                   numerical=numerical,
                   reason=(f"Krawczyk box for Σ*; on {{E ≤ ρ}}, E = δᵀWδ, Ė ≤ −(κ − 2c_Q√ρ)E with κ = "
                           f"{float_of(data['kappa']):.4g}, c_Q = {float_of(data['c_Q']):.4g}, "
                           f"ρ = {rho:.4g}; E(Σ₀ − Σ*) ≤ {E0:.4g} < ρ for every Σ* in the box"))


# ---- route ----
from .routes import declare, needs, searching, single_head_drift  # noqa: E402 - routes last

# before krawczyk-equilibrium (90), which only reports local stability as a side claim
declare("krawczyk-basin", 85, ("EQUILIBRIUM",), needs(single_head_drift), searching(find_basin, unless=("blowup",)),
        doc="EQUILIBRIUM of this Σ₀: it lies in a certified basin of a Krawczyk-certified Σ* ≻ 0; the drift model "
            "with one quadratic head.")
