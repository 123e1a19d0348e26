"""Forgeries of the V = vI (Radon-linearised) kinds (check/riccati.py, one module of kinds/ each) —
``blowup-riccati-vI``, ``global-riccati-vI``, ``equilibrium-drift-vI``, ``global-drift-vI``, ``growth-drift-vI-nsd``,
``bounded-drift-vI-nsd``, ``bounded-riccati-vI``: one per hypothesis of their arguments, each consistent in every other
field (problem hash recomputed, claim re-rendered, dependent numbers recomputed exactly).

The genuine certificates come from the library's own searches (``classify_vI``, ``growth_nsd``,
``bounded_nsd``) on small problems, in module-scoped fixtures (well under a second in all)."""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import pytest

from symbolic_tf.exact.rational import frac_str
from symbolic_tf.spec.problem import parse_problem

from ..oracle import closed_form_Tstar, rhs_for, simulate
from .forge import accepts, forge, q, rejects

I2 = [["1", "0"], ["0", "1"]]
NEG_I2 = [["-1", "0"], ["0", "-1"]]
Z2 = [["0", "0"], ["0", "0"]]
S0 = [["1", "1/4"], ["1/4", "1/2"]]


def _doc(A, V, cov=None, F=None, b=None):
    doc = {"variant": "softmax", "d": len(V), "A": A, "V": V}
    if F is not None:
        doc["F"] = F
    if b is not None:
        doc["b"] = b
    if cov is not None:
        doc["initial"] = {"cov": cov}
    return doc


#: V = I, A = diag(1, −1) (R = diag(2, −2)), F = diag(−1, 1), Σ₀ = I/2: p₁₁ = 1 + e^{2t}, p₂₂ = 1 + e^{−2t}
SADDLE = _doc([["1", "0"], ["0", "-1"]], I2, [["1/2", "0"], ["0", "1/2"]], F=[["-1", "0"], ["0", "1"]])


def _classified(doc, kind):
    from symbolic_tf.certify.search.riccati import classify_vI

    c = classify_vI(parse_problem(doc)).evidence["certificate"]
    assert c["kind"] == kind, c["kind"]
    accepts(c)
    return c


@pytest.fixture(scope="module")
def certs():
    """One genuine certificate per kind and per branch of the blow-up argument."""
    from symbolic_tf.certify.search._bounded_riccati_vI import bounded_riccati_vI
    from symbolic_tf.certify.search.riccati import bounded_nsd, growth_nsd

    out = {
        "blowup": _classified(_doc([["1", "1/2"], ["0", "1/2"]], I2, S0), "blowup-riccati-vI"),      # F = 0
        "blowup-fI": _classified(_doc(I2, I2, I2, F=[["-1/10", "0"], ["0", "-1/10"]]), "blowup-riccati-vI"),
        "blowup-F": _classified(_doc(I2, I2, I2, F=[["-1/10", "1/10"], ["0", "-1/10"]]), "blowup-riccati-vI"),
        "clustering": _classified(_doc(NEG_I2, I2, S0), "global-riccati-vI"),
        "stationary": _classified(_doc([["0", "1"], ["-1", "0"]], I2, S0), "global-riccati-vI"),
        "equilibrium": _classified(_doc(I2, NEG_I2, S0, F=I2, b=["1", "2"]), "equilibrium-drift-vI"),
        # R = 2I ⪰ 0, F Hurwitz, Σ₀ below the threshold λ_max(Σ₀^½P*Σ₀^½) = 1
        "global-drift": _classified(_doc(I2, I2, [["1/10", "0"], ["0", "1/10"]], F=[["-1", "1/2"], ["0", "-1"]]),
                                    "global-drift-vI"),
        # R = diag(2, −2) indefinite, F = −I: the scalar branch
        "global-drift-fI": _classified(_doc([["1", "0"], ["0", "-1"]], I2, [["1/10", "0"], ["0", "1/10"]], F=NEG_I2),
                                       "global-drift-vI"),
        "growth": growth_nsd(parse_problem(_doc(NEG_I2, I2, [["1", "0"], ["0", "0"]], F=I2))).evidence["certificate"],
        "bounded": bounded_nsd(parse_problem(_doc(NEG_I2, I2, S0, F=[["0", "1"], ["-1", "0"]]))).evidence["certificate"],
        # R = diag(2, −2) indefinite, a saddle F = diag(−1, 1): P = Σ⁻¹ grows along e₁ and settles along e₂
        "sublevel": bounded_riccati_vI(parse_problem(SADDLE)).evidence["certificate"],
    }
    assert "partition" in out["blowup-F"]["data"] and "G_lo" in out["blowup-fI"]["data"]
    for k in ("growth", "bounded", "sublevel"):
        accepts(out[k])
    return out


def _fq(x) -> flint.fmpq:
    f = Fraction(x)
    return flint.fmpq(f.numerator, f.denominator)


def _m(M) -> flint.fmpq_mat:
    return flint.fmpq_mat(len(M), len(M[0]), [_fq(x) for r in M for x in r])


def _s(M) -> list:
    return [[frac_str(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())]


def _lyapunov(F, C):
    """The exact solution W of FᵀW + WF = C (the search side's solver, only to forge consistent data)."""
    from symbolic_tf.certify.search.riccati import _lyapunov as lyap

    return lyap(_m(F), _m(C))


def _bracket(c, lo, hi):
    return forge(c, data={"T_lo": lo, "T_hi": hi}, params={"T_lo": q(lo), "T_hi": q(hi)})


# ================================================================ the problem class (all kinds)
def test_riccati_not_one_softmax_head(certs):
    """Sinkhorn attention with the same A, V: its covariance flow is not Σ̇ = ΣRΣ."""
    for c in certs.values():
        rejects(forge(c, problem={**c["problem"], "variant": "sinkhorn"}), r"needs one quadratic \(softmax\) head")


def test_riccati_refuses_a_schedule(certs):
    for c in certs.values():
        prob = {**c["problem"], "phase": [{"duration": "1/2"}, {"duration": "1", "A": Z2}]}
        rejects(forge(c, problem=prob), r"constant parameters only")


def test_riccati_V_not_v_identity(certs):
    for c in certs.values():
        v = c["data"]["v"]
        rejects(forge(c, problem={**c["problem"], "V": [[v, "1/10"], ["0", v]]}), r"V is not v·I")
        # V = (2v)·I is a multiple of I, but not of the stored v (R would be twice as large)
        v2 = q(2 * Fraction(v))
        rejects(forge(c, problem={**c["problem"], "V": [[v2, "0"], ["0", v2]]}), r"V is not v·I for the stored v")


def test_riccati_this_sigma0_needs_sigma0(certs):
    """A claim "for this Σ₀" on a problem without a Gaussian Σ₀."""
    for k in ("blowup", "clustering", "global-drift", "sublevel"):
        c = certs[k]
        prob = {x: y for x, y in c["problem"].items() if x != "initial"}
        rejects(forge(c, problem=prob), r"states no Gaussian Σ₀")


def test_riccati_factorisation_is_not_sigma0(certs):
    """Σ₀ = B·D·Bᵀ with B of full column rank and D ≻ 0, each part broken alone."""
    c = certs["blowup"]
    # another Σ₀ with the old factor
    rejects(forge(c, problem={**c["problem"], "initial": {"cov": I2}}), r"B·D·Bᵀ ≠ Σ₀")
    for k in ("clustering", "global-drift"):
        rejects(forge(certs[k], problem={**certs[k]["problem"], "initial": {"cov": [["2", "0"], ["0", "2"]]}}),
                r"B·D·Bᵀ ≠ Σ₀")
    # Σ₀ = diag(1, 0) = B·diag(1, 0)·Bᵀ with B = I: D is not positive
    sing = {**c["problem"], "initial": {"cov": [["1", "0"], ["0", "0"]]}}
    rejects(forge(c, problem=sing, data={"B": I2, "D": ["1", "0"]}), r"D is not positive")
    # Σ₀ = diag(1, 0) = B·diag(1/2, 1/2)·Bᵀ with B = [[1, 1], [0, 0]] of rank 1 < r = 2
    rejects(forge(c, problem=sing, data={"B": [["1", "1"], ["0", "0"]], "D": ["1/2", "1/2"]}),
            r"B is not of full column rank")
    # B of the wrong shape for r = len(D)
    rejects(forge(c, data={"B": [["1"], ["1/4"]]}), r"B is not a 2×2 matrix")


def test_riccati_nsd_kinds_need_R_nsd(certs):
    """A = I makes R = 2I ≻ 0: with F = I (growth) every Σ₀ ≠ 0 blows up, T* = ln 2/2 for Σ₀ = diag(1, 0)."""
    for k in ("growth", "bounded"):
        c = certs[k]
        forged = forge(c, problem={**c["problem"], "A": I2})
        rejects(forged, r"R = v\(A \+ Aᵀ\) is not negative semidefinite")
    assert closed_form_Tstar(parse_problem({**certs["growth"]["problem"], "A": I2})) == pytest.approx(np.log(2) / 2)


# ================================================================ blowup-riccati-vI
def test_blowup_riccati_sigma0_zero(certs):
    """Σ₀ = 0 with the empty factor: the right-hand side vanishes at 0, so Σ ≡ 0 (no blow-up)."""
    c = certs["blowup"]
    prob = {**c["problem"], "initial": {"cov": Z2}}
    assert np.all(rhs_for(parse_problem(prob)).f(np.zeros((2, 2))) == 0)
    rejects(forge(c, problem=prob, data={"B": [], "D": [], "witness": []}), r"Σ₀ = 0 .*does not blow up")


def test_blowup_riccati_bracket_order(certs):
    for k in ("blowup", "blowup-fI", "blowup-F"):
        c = certs[k]
        lo, hi = c["data"]["T_lo"], c["data"]["T_hi"]
        rejects(_bracket(c, hi, lo), r"0 < T_lo ≤ T_hi")
    c = certs["blowup"]
    rejects(_bracket(c, "-1", c["data"]["T_hi"]), r"0 < T_lo ≤ T_hi")


def test_blowup_riccati_not_pd_at_T_lo(certs):
    """F = 0: the bracket [T_hi, T_hi] — T* = 1/λ_max(Σ₀^½RΣ₀^½) < T_hi (closed form)."""
    c = certs["blowup"]
    hi = c["data"]["T_hi"]
    Ts = closed_form_Tstar(parse_problem(c["problem"]))
    assert Ts < float(Fraction(hi))
    rejects(_bracket(c, hi, hi), r"X\(T_lo\) = D⁻¹ − T_lo·BᵀRB is not positive definite")


def test_blowup_riccati_G_needs_scalar_F(certs):
    c = certs["blowup-fI"]
    rejects(forge(c, problem={**c["problem"], "F": [["-1/10", "1/10"], ["0", "-1/10"]]}), r"needs F = f·I")
    rejects(forge(c, data={"G_hi": None}), r"needs both G_lo and G_hi")


def test_blowup_riccati_G_bounds(certs):
    """F = fI: G_lo below g(T_lo) (bracket [T_hi, T_hi] with the old G_lo), G_hi above g(T_hi)
    (bracket [T_lo, T_lo] with the old G_hi); everything else unchanged and still valid."""
    c = certs["blowup-fI"]
    lo, hi = c["data"]["T_lo"], c["data"]["T_hi"]
    rejects(_bracket(c, hi, hi), r"G_lo is not ≥ g\(T_lo\)")
    rejects(_bracket(c, lo, lo), r"G_hi is not ≤ g\(T_hi\)")


def test_blowup_riccati_G_lo_not_pd(certs):
    """G_lo = G_hi ≥ g(T_lo) still, but D⁻¹ − G_hi·BᵀRB is not ≻ 0 (the witness shows it)."""
    c = certs["blowup-fI"]
    rejects(forge(c, data={"G_lo": c["data"]["G_hi"]}), r"D⁻¹ − G_lo·BᵀRB is not positive definite")


def test_blowup_riccati_partition(certs):
    c = certs["blowup-F"]
    part = c["data"]["partition"]
    rejects(forge(c, data={"partition": None}), r"partition must increase from 0 to T_lo")
    rejects(forge(c, data={"partition": part[:-1]}), r"partition must increase from 0 to T_lo")
    rejects(forge(c, data={"partition": [part[0], part[2], part[1]] + part[3:]}), r"partition must increase")
    # the bracket [T_hi, T_hi] with the partition extended to T_hi: X(T_hi) is not PD on the last piece
    hi = c["data"]["T_hi"]
    f = _bracket(c, hi, hi)
    f["data"]["partition"] = part[:-1] + [hi]
    rejects(f, r"X\(t\) is not certified positive definite on the partition piece")



#: a shallow crossing (λ_min of X dips to only −0.0026 after T* ≈ 7.3238): near T* the direct enclosure of X
#: over a piece pays h·‖X′‖ in every entry and no partition of 20 000 pieces is PD; the centred form in a frame
#: near X's eigenvectors pays only the slope of λ_min (a fresh problem that was UNDECIDED)
SHALLOW = _doc([["-1", "0"], ["-1", "1/3"]], NEG_I2, [["1", "-2"], ["-2", "5"]], F=[["-1/3", "-1/4"], ["1/4", "-1/3"]])


@pytest.fixture(scope="module")
def shallow():
    return _classified(SHALLOW, "blowup-riccati-vI")


def test_blowup_riccati_frame(certs, shallow):
    """The frame is load-bearing (without it the pieces near T* are not PD), must be invertible and r×r, and
    belongs to the partition branch only; the bracket holds against an independent float integration."""
    assert "frame" in shallow["data"]
    rejects(forge(shallow, data={"frame": None}), r"not certified positive definite on the partition piece")
    rejects(forge(shallow, data={"frame": [["1", "1"], ["2", "2"]]}), r"frame is singular")
    rejects(forge(shallow, data={"frame": [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]]}), r"r×r matrix")
    for k in ("blowup", "blowup-fI"):
        rejects(forge(certs[k], data={"frame": [["1", "0"], ["0", "1"]]}), r"frame is given only with a partition")
    # independent evidence: the float solution reaches just before T_lo and blows up just past T_hi
    lo, hi = float(Fraction(shallow["data"]["T_lo"])), float(Fraction(shallow["data"]["T_hi"]))
    assert simulate(parse_problem(SHALLOW), lo * (1 - 1e-3)).status == "reached"
    past = simulate(parse_problem(SHALLOW), hi * (1 + 1e-2))
    assert past.status == "blowup" and lo * (1 - 1e-3) <= past.t <= hi * (1 + 1e-2), (past.status, past.t)


def test_blowup_riccati_witness_at_T_hi(certs):
    """T_hi := T_lo in each branch (X(T_lo) ≻ 0, so no witness can exist), and malformed witnesses."""
    c = certs["blowup"]
    lo = c["data"]["T_lo"]
    rejects(_bracket(c, lo, lo), r"does not show that D⁻¹ − T_hi·BᵀRB is singular or indefinite")
    c = certs["blowup-F"]
    lo = c["data"]["T_lo"]
    rejects(_bracket(c, lo, lo), r"does not certify that X\(T_hi\) is indefinite")
    c = certs["blowup-fI"]
    lo, G_lo = c["data"]["T_lo"], Fraction(c["data"]["G_lo"])
    G_hi = q(G_lo - Fraction(1, 10**18))  # ≤ g(T_lo) ≤ G_lo: the G-bounds still hold
    rejects(forge(_bracket(c, lo, lo), data={"G_hi": G_hi}), r"witness at T_hi does not show that X\(T_hi\) is not positive")
    for w in (["0", "0"], ["1"], ["1", "0", "0"]):
        rejects(forge(certs["blowup"], data={"witness": w}), r"witness at T_hi must be a nonzero vector of length r")


# ================================================================ global-riccati-vI
def test_global_riccati_refuses_a_drift(certs):
    for k in ("clustering", "stationary"):
        c = certs[k]
        rejects(forge(c, problem={**c["problem"], "F": NEG_I2}), r"drift F ≠ 0")


def test_global_riccati_N_not_nsd(certs):
    """A = I on the clustering certificate's data: BᵀRB ≻ 0 and Σ₀ blows up (closed form)."""
    c = certs["clustering"]
    prob = {**c["problem"], "A": I2}
    assert closed_form_Tstar(parse_problem(prob)) < 1
    rejects(forge(c, problem=prob), r"N = BᵀRB is not negative semidefinite")


def test_global_riccati_limit_rank(certs):
    c = certs["clustering"]
    rejects(forge(c, data={"limit_rank": 1}, params={"rank": 1}), r"limit rank is r − rank BᵀRB = 0, not 1")
    c = certs["stationary"]
    rejects(forge(c, data={"limit_rank": 1}, params={"stationary": True, "rank": 1}), r"limit rank is .* = 2, not 1")
    zero = forge(c, problem={**c["problem"], "initial": {"cov": Z2}}, data={"B": [], "D": [], "limit_rank": 0},
                 params={"stationary": True, "rank": 0})
    accepts(zero)  # Σ₀ = 0 is stationary of rank 0 (genuine)
    rejects(forge(zero, data={"limit_rank": 1}, params={"stationary": True, "rank": 1}), r"limit rank is 0 \(Σ₀ = 0\)")


def test_global_riccati_regime_label(certs):
    """The regime must match N: clustering data labelled EQUILIBRIUM (Σ̇ = −2Σ² ≠ 0, not stationary),
    stationary data labelled CLUSTERING, Σ₀ = 0 labelled CLUSTERING."""
    c = certs["clustering"]
    S = np.array([[1, .25], [.25, .5]])
    assert np.abs(rhs_for(parse_problem(c["problem"])).f(S)).max() > 0.1
    rejects(forge(c, data={"regime": "EQUILIBRIUM"}, subject="EQUILIBRIUM", params={"stationary": True, "rank": 0}),
            r"the regime is CLUSTERING")
    c = certs["stationary"]
    rejects(forge(c, data={"regime": "CLUSTERING"}, subject="CLUSTERING", params={"rank": 2}), r"the regime is EQUILIBRIUM")
    zero = forge(c, problem={**c["problem"], "initial": {"cov": Z2}}, data={"B": [], "D": [], "limit_rank": 0,
                                                                            "regime": "CLUSTERING"},
                 subject="CLUSTERING", params={"rank": 0})
    rejects(zero, r"the regime is EQUILIBRIUM \(Σ₀ = 0 is stationary\)")


# ================================================================ equilibrium-drift-vI
def _eq_forgery(c, A, F, v, b=None, mean=None):
    """An equilibrium-drift-vI certificate for (A, V = vI, F) with P* and X solved exactly."""
    vq = Fraction(v)
    R = [[vq * (Fraction(A[i][j]) + Fraction(A[j][i])) for j in range(2)] for i in range(2)]
    P = _lyapunov(F, [[-x for x in r] for r in R])
    X = _lyapunov(F, I2)
    Vm = [[q(vq), "0"], ["0", q(vq)]]
    prob = _doc(A, Vm, c["problem"]["initial"]["cov"], F=F, b=b)
    data = {"v": q(vq), "P_star": _s(P), "X": _s(X), "mean": mean}
    params = {"Sigma_star": _s(P.inv())}
    if mean is not None:
        params["alpha_star"] = mean["alpha_star"]
    return forge(c, problem=prob, data=data, params=params), P


def test_equilibrium_drift_R_not_negative_definite(certs):
    """R = diag(−2, 1/100) indefinite, F = [[1, 1], [0, 1]] anti-Hurwitz: P* (exact Lyapunov
    solution) is still ≻ 0 and X certifies −F Hurwitz, but a Σ₀ large along e₂ (where R > 0)
    blows up before the drift can pull it back — the claim "every Σ₀ ≻ 0 converges" is false."""
    A, F = [["1", "0"], ["0", "-1/200"]], [["1", "1"], ["0", "1"]]
    f, P = _eq_forgery(certs["equilibrium"], A, F, -1)
    assert P[0, 0] > 0 and P.det() > 0
    p = parse_problem(f["problem"])
    r = simulate(p, 5.0, Sigma0=np.diag([1.0, 1e4]))
    assert r.status == "blowup" and r.t < 1, (r.status, r.t)
    rejects(f, r"R = v\(A \+ Aᵀ\) is not negative definite")


def test_equilibrium_drift_P_not_lyapunov(certs):
    """P* shifted by I/7 (Σ* re-rendered from it): not the stationary point of Ṗ = −(FᵀP + PF) − R."""
    c = certs["equilibrium"]
    P = _m(c["data"]["P_star"]) + _m(I2) * flint.fmpq(1, 7)
    rejects(forge(c, data={"P_star": _s(P), "mean": None}, params={"Sigma_star": _s(P.inv())}),
            r"P\* does not solve FᵀP\* \+ P\*F = −R")


def test_equilibrium_drift_F_not_anti_hurwitz(certs):
    """F = −I (Hurwitz): P* = R/2 solves the Lyapunov equation, the stored X ≻ 0 has FᵀX + XF ≺ 0."""
    c = certs["equilibrium"]
    P = _lyapunov(NEG_I2, [["2", "0"], ["0", "2"]])  # R = −2I
    prob = {**c["problem"], "F": NEG_I2}
    rejects(forge(c, problem=prob, data={"P_star": _s(P), "mean": None}, params={"Sigma_star": _s(P.inv())}),
            r"X does not certify that F is anti-Hurwitz")


def test_equilibrium_drift_mean_not_hurwitz(certs):
    """v = 1, A = −I (R = −2I), F = I: P* = I, Σ* = I and M* = F + vI + vΣ*A = I is not Hurwitz;
    α* = −M*⁻¹b = −b is an equilibrium of the mean, but a repelling one: α̇ → α + b diverges."""
    c = certs["equilibrium"]
    b = ["1", "2"]
    mean = {"Y": c["data"]["mean"]["Y"], "alpha_star": ["-1", "-2"]}
    f, P = _eq_forgery(c, NEG_I2, I2, 1, b=b, mean=mean)
    assert P == _m(I2)
    rejects(f, r"Y does not certify that the mean's matrix M\* = F \+ vI \+ vΣ\*A is Hurwitz")


def test_equilibrium_drift_alpha_star_wrong(certs):
    c = certs["equilibrium"]
    mean = {**c["data"]["mean"], "alpha_star": ["0", "0"]}
    rejects(forge(c, data={"mean": mean}, params={**c["claim"]["params"], "alpha_star": ["0", "0"]}),
            r"α\* is not the mean's equilibrium")


# ================================================================ global-drift-vI
def test_global_drift_R_indefinite_general_F(certs):
    """R = diag(2, −2) with a non-scalar Hurwitz F: W∞ and X re-solved exactly and the threshold
    D⁻¹ − BᵀW∞B ≻ 0 still holds; only the monotonicity of W(t) (R ⪰ 0 or F = fI) fails."""
    c = certs["global-drift-fI"]
    F = [["-1", "1/2"], ["0", "-1"]]
    W = _lyapunov(F, [["-2", "0"], ["0", "2"]])
    X = _lyapunov(F, NEG_I2)
    assert (_m([["10", "0"], ["0", "10"]]) - W).det() > 0 and (10 - W[0, 0]) > 0
    rejects(forge(c, problem={**c["problem"], "F": F}, data={"W_inf": _s(W), "X": _s(X)}),
            r"not positive semidefinite and F is not f·I with f < 0")


def test_global_drift_W_not_lyapunov(certs):
    c = certs["global-drift"]
    W = _m(c["data"]["W_inf"]) * flint.fmpq(1, 2)
    rejects(forge(c, data={"W_inf": _s(W)}), r"W∞ does not solve FᵀW∞ \+ W∞F = −R")


def test_global_drift_F_not_hurwitz(certs):
    """F = I/2 (unstable), R = 2I: W∞ = −2I and X = −I solve the two Lyapunov equations exactly,
    D⁻¹ − BᵀW∞B = 12I ≻ 0; the claim "Σ(t) → 0" is false: Σ₀ = I/10 blows up at
    T* = ln(1 + f/ρ)/(2f) = ln 6 (docs/mathematics.md §6, ρ = 1/10, f = 1/2)."""
    c = certs["global-drift"]
    F = [["1/2", "0"], ["0", "1/2"]]
    W, X = _lyapunov(F, [["-2", "0"], ["0", "-2"]]), _lyapunov(F, NEG_I2)
    assert W == _m([["-2", "0"], ["0", "-2"]]) and X == _m(NEG_I2)
    prob = {**c["problem"], "F": F}
    assert closed_form_Tstar(parse_problem(prob)) == pytest.approx(np.log(6))
    rejects(forge(c, problem=prob, data={"W_inf": _s(W), "X": _s(X)}), r"X does not certify that F is Hurwitz")


def test_global_drift_above_threshold(certs):
    """Σ₀ = 4I (factor B = I, D = (4, 4)) with the same F, R, W∞, X: above the threshold, it blows up."""
    c = certs["global-drift"]
    prob = {**c["problem"], "initial": {"cov": [["4", "0"], ["0", "4"]]}}
    r = simulate(parse_problem(prob), 10.0)
    assert r.status == "blowup", r.status
    rejects(forge(c, problem=prob, data={"B": I2, "D": ["4", "4"]}), r"D⁻¹ − BᵀW∞B is not positive definite")



# ================================================================ threshold-drift-vI
#: V = 2I, F = −2I, A + Aᵀ = diag(2, 0): Σ₀ = [[1, 1], [1, 5]] lies exactly on the blow-up threshold (X∞ ⪰ 0 is
#: singular), and Σ(t) → [[1, 1], [1, 1]] (a fresh problem that was UNDECIDED)
THRESHOLD = _doc([["1", "1/2"], ["-1/2", "0"]], [["2", "0"], ["0", "2"]], [["1", "1"], ["1", "5"]],
                 F=[["-2", "0"], ["0", "-2"]])


@pytest.fixture(scope="module")
def threshold():
    return _classified(THRESHOLD, "threshold-drift-vI")


def test_threshold_drift_F_not_negative_scalar(threshold):
    """F = +2I: Σ grows like e^{4t} (no limit); a non-scalar F: the segment argument does not apply."""
    prob = {**threshold["problem"], "F": [["2", "0"], ["0", "2"]]}
    r = simulate(parse_problem(prob), 3.0)
    assert r.status == "blowup" or r.s > np.log(1e3), (r.status, r.s)
    rejects(forge(threshold, problem=prob), r"F is not f·I with f < 0")
    prob = {**threshold["problem"], "F": [["-2", "1/2"], ["0", "-2"]]}
    rejects(forge(threshold, problem=prob), r"F is not f·I with f < 0")


def test_threshold_drift_off_threshold(threshold):
    """2Σ₀ lies above the threshold (it blows up), Σ₀/2 below it (Σ → 0): neither clusters at rank 1."""
    above = {**threshold["problem"], "initial": {"cov": [["2", "2"], ["2", "10"]]}}
    assert simulate(parse_problem(above), 10.0).status == "blowup"
    rejects(forge(threshold, problem=above, data={"D": ["2", "8"]}), r"not positive semidefinite \(above the threshold")
    below = {**threshold["problem"], "initial": {"cov": [["1/2", "1/2"], ["1/2", "5/2"]]}}
    assert np.abs(simulate(parse_problem(below), 20.0).Sigma).max() < 1e-6
    rejects(forge(threshold, problem=below, data={"D": ["1/2", "2"]}), r"X∞ is positive definite \(below the threshold")


def test_threshold_drift_wrong_limit(threshold):
    """The limit is exactly the one an independent integration approaches (Σ(t) − Σ∞ = O(e^{−4t}); on the
    threshold rounding pushes a float solution across it, so only up to t = 6); any other limit is rejected."""
    from scipy.integrate import solve_ivp

    limit = np.array([[float(Fraction(x)) for x in row] for row in threshold["data"]["limit"]])
    A, F = np.array([[1, 0.5], [-0.5, 0]]), -2 * np.eye(2)

    def rhs(_t, y):
        S = y.reshape(2, 2)
        return (F @ S + S @ F.T + 2 * (S @ A @ S + S @ A.T @ S)).ravel()

    sol = solve_ivp(rhs, (0, 6), np.array([[1.0, 1], [1, 5]]).ravel(), method="DOP853", rtol=1e-12, atol=1e-14)
    assert sol.status == 0 and np.abs(sol.y[:, -1].reshape(2, 2) - limit).max() < 1e-6, sol.y[:, -1]
    assert np.linalg.matrix_rank(limit) == 1 == threshold["claim"]["params"]["rank"]
    rejects(forge(threshold, data={"limit": [["2", "2"], ["2", "2"]]}), r"stored limit is not")
    rejects(forge(threshold, data={"limit": [["1", "1"], ["1", "1"], ["0", "0"]]}), r"limit")


# ================================================================ growth-drift-vI-nsd
def test_growth_drift_uF_not_a_bound(certs):
    """u_F = γ = 0 with F = I: "‖Σ(t)‖ ≤ ‖Σ₀‖" is false (Σ₀ = diag(1/10, 0) grows towards diag(1, 0))."""
    c = certs["growth"]
    r = simulate(parse_problem(c["problem"]), 5.0, Sigma0=np.diag([0.1, 0.0]))
    assert r.status == "reached" and np.exp(r.s) > 0.9
    rejects(forge(c, data={"u_F": "0", "gamma": "0"}, params={"gamma": "0"}), r"u_F is not an upper bound of ‖F‖_F")


def test_growth_drift_gamma_not_2uF(certs):
    c = certs["growth"]
    u = c["data"]["u_F"]
    rejects(forge(c, data={"gamma": u}, params={"gamma": u}), r"γ must be 2·u_F")


# ================================================================ bounded-drift-vI-nsd
def test_bounded_drift_X_not_pd(certs):
    c = certs["bounded"]
    rejects(forge(c, data={"X": [["1", "0"], ["0", "-1"]]}), r"X is not a symmetric positive definite 2×2 matrix")
    rejects(forge(c, data={"X": [["1"]]}), r"X is not a symmetric positive definite 2×2 matrix")


def test_bounded_drift_F_expands(certs):
    """A = 0 (R = 0 ⪯ 0), F = I, X = I: Σ(t) = e^{2t}Σ₀ is unbounded."""
    c = certs["bounded"]
    prob = {**c["problem"], "A": Z2, "F": I2}
    r = simulate(parse_problem(prob), 5.0)
    assert r.status == "reached" and r.s > np.log(np.linalg.norm([[1, .25], [.25, .5]])) + 9.9
    rejects(forge(c, problem=prob, data={"X": I2}), r"FᵀX \+ XF is not negative semidefinite")


# ================================================================ bounded-riccati-vI
def test_bounded_riccati_M_not_pd(certs):
    c = certs["sublevel"]
    rejects(forge(c, data={"M": [["1", "0"], ["0", "-1"]]}), r"M is not a symmetric positive definite 2×2 matrix")
    rejects(forge(c, data={"M": [["1", "1/2"], ["0", "1"]]}), r"M is not a symmetric positive definite 2×2 matrix")
    rejects(forge(c, data={"M": [["1"]]}), r"M is not a symmetric positive definite 2×2 matrix")


def test_bounded_riccati_not_supersolution(certs):
    """The genuine M on A = I (R = 2I): p₂₂ solves ṗ = −2p − 2 from 2, p = 3e^{−2t} − 1, zero at t = ln 3/2,
    so Σ₀ = I/2 blows up and the claim would be false."""
    c = certs["sublevel"]
    prob = {**c["problem"], "A": I2}
    r = simulate(parse_problem(prob), 1.0)
    assert r.status == "blowup" and abs(r.t - np.log(3) / 2) < 1e-2
    rejects(forge(c, problem=prob), r"FᵀM \+ MF \+ R is not negative semidefinite")


def test_bounded_riccati_sigma0_above(certs):
    """Σ₀ = diag(2, 1/2) on the saddle: p₁₁ = 1 − e^{2t}/2 reaches 0 at t = ln 2/2 (a blow-up)."""
    c = certs["sublevel"]
    prob = {**c["problem"], "initial": {"cov": [["2", "0"], ["0", "1/2"]]}}
    r = simulate(parse_problem(prob), 1.0)
    assert r.status == "blowup" and abs(r.t - np.log(2) / 2) < 1e-2
    rejects(forge(c, problem=prob), r"M⁻¹ − Σ₀ is not positive definite")


# ================================================================ beyond the declared hypotheses
def test_riccati_reused_data_on_other_problems(certs):
    """Genuine data re-embedded with another Σ₀ (singular, zero), another d, a larger temperature:
    each forged claim is rejected (the data are about the embedded problem only)."""
    c = certs["blowup"]
    for cov in ([["1", "0"], ["0", "0"]], Z2):
        rejects(forge(c, problem={**c["problem"], "initial": {"cov": cov}}), r"B·D·Bᵀ ≠ Σ₀|Σ₀ = 0")
    three = _doc([["1", "1/2", "0"], ["0", "1/2", "0"], ["0", "0", "1"]], [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]],
                 [["1", "1/4", "0"], ["1/4", "1/2", "0"], ["0", "0", "1"]])
    rejects(forge(c, problem=three), r"B is not a 3×2 matrix")
    # temperature 2 halves T*: the old bracket is wrong, and rejected at T_lo
    hot = {**c["problem"], "scale": "2"}
    assert closed_form_Tstar(parse_problem(hot)) < float(Fraction(c["data"]["T_lo"]))
    rejects(forge(c, problem=hot), r"X\(T_lo\) = .* is not positive definite")
    # the clustering data on a stationary problem (N = 0) and vice versa
    cl, st = certs["clustering"], certs["stationary"]
    rejects(forge(cl, problem=st["problem"]), r"limit rank is r − rank BᵀRB = 2, not 0")
    rejects(forge(st, problem=cl["problem"]), r"limit rank is r − rank BᵀRB = 0, not 2")
    # a genuine growth certificate's numbers on a problem with a larger drift
    g = certs["growth"]
    rejects(forge(g, problem={**g["problem"], "F": [["2", "0"], ["0", "2"]]}), r"u_F is not an upper bound")
