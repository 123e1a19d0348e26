"""Checker of ``tube-basin``: a validated tube from the problem's own Σ₀ enters a certified basin of
attraction of a Krawczyk-certified equilibrium Σ* of the drift model (issue 15 item 2).

For Σ̇ = G(Σ) = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ (single-head softmax with drift; A = scale·A_problem).
Independent of the search (:mod:`symbolic_tf.certify.search.validated`) and of the basin search: the
whole argument is re-derived from the embedded exact problem and the stored data

    steps, order, tube_prec, method   the tube: exact times 0 = t_0 < … < t_N, Taylor order k,
                                      ball precision, wrapping method ("qr" | "direct")
    basis, prec, Sigma_mid, r, Y,     the basin (same fields and meaning as ``equilibrium-basin``,
    W, kappa, c_Q, rho, lam_lo,       see :mod:`symbolic_tf.certify.check.kinds.equilibrium_basin`)
    lam_hi, normV2, normA2

Verified:

A. *The tube* (in arb balls at ``tube_prec`` bits, replayed exactly as stored, like
   :mod:`symbolic_tf.certify.check.kinds.blowup_taylor_lmi` but with the drift): from S_0 = Σ₀ (symmetric), for
   every step [t_{i−1}, t_i] the deterministic inflate-and-iterate Picard test
   S + [0, h]·f(X) ⊆ X (f the full field with FΣ + ΣFᵀ; a failure rejects), the Lagrange
   remainder Z = h^{k+1}·σ_{k+1}(Y) over Y = S + [0, h]·f(X), and the order-k Taylor map by the
   recurrence σ_{n+1} = (M_n + M_nᵀ)/(n+1), M_n = Fσ_n + Σ_j Vσ_jAσ_{n−j}; "qr": the mean-value
   form over the hull of the box and the parallelepiped centre with the Jacobian from the
   variational recurrence (δM_n = Fδσ_n + Σ_j (Vδσ_jAσ_{n−j} + Vσ_jAδσ_{n−j})), Lohner's QR basis
   (float Householder QR of mid(J·B), columns by length·width — any invertible basis is
   sound; it is recomputed by the same procedure) and the intersection with the direct box.
   Hence the solution exists on [0, t_N] and Σ(t_N) ∈ S_N.
B. *The basin* — the seven checks of ``equilibrium-basin`` with the point Σ₀ replaced by the box
   S_N: (1) Krawczyk: Sigma_mid ± r holds exactly one zero Σ* of G and is PD; (2) λ_lo > 0,
   W − λ_lo·D ⪰ 0, λ_hi·D − W ⪰ 0; (3) normV2·I − VᵀV ⪰ 0, normA2·I − AᵀA ⪰ 0; (4) c_Q ≥ 0,
   c_Q²λ_lo² ≥ 4λ_hi·normV2·normA2; (5) κ > 0 and −(LᵀW + WL) − κW ≻ 0 over DG(X); (6) ρ > 0,
   4c_Q²ρ < κ²; (7) svec(Σ − Σ')ᵀW svec(Σ − Σ') < ρ for every Σ ∈ S_N and Σ' ∈ X (balls at
   ``prec`` bits).

Then E(t) = E(Σ(t) − Σ*) < ρ at t_N, {E ≤ ρ} is forward invariant with Ė ≤ −(κ − 2c_Q√ρ)E, so
the solution is global and Σ(t) → Σ*: claim EQUILIBRIUM for THIS Σ₀ with |Σ*_ij − Sigma_mid_ij| ≤ r.
"""
from __future__ import annotations


from ....exact.rational import frac_str
from .. import Hypothesis, kind, refusal
from ..claims import Claim, Quantifier
from .equilibrium_basin import basin_hypotheses
from ..krawczyk_box import check_basin, drift_model, initial_cov
from ..tube_replay import int_in, replay_stored

KIND = "tube-basin"
_MAX_ORDER = 60
_MAX_STEPS = 20_000


_bad = refusal(KIND)


_T = "tests/soundness/forgeries/test_tube.py::"
HYPOTHESES = basin_hypotheses(_T, "tube", "every Σ in the tube's end box S_N",
                              ("end-in-level-set", "test_tube_end_outside_the_level_set")) + (
    Hypothesis("tube", "The validated Taylor tube of the drift model replays from the exact Σ₀ along the stored times "
               "0 = t₀ < … < t_N: the solution exists on [0, t_N] and Σ(t_N) lies in the end box S_N.",
               _T + "test_tube_step_too_long"),
)
_SCHEMA = {"basis": ("enum", "svec-upper"), "prec": "int", "Sigma_mid": "rat[][]", "r": "rat", "Y": "rat[][]",
           "W": "rat[][]", "kappa": "rat", "c_Q": "rat", "rho": "rat", "lam_lo": "rat", "lam_hi": "rat",
           "normV2": "rat", "normA2": "rat", "steps": "rat[]", "order": "int", "tube_prec": "int",
           "method": ("enum", "qr", "direct")}


@kind(KIND, _SCHEMA, hypotheses=HYPOTHESES)
def check_tube_basin(cert, problem):
    """PROVED: the solution from the embedded problem's Σ₀ is global and converges to the unique
    equilibrium Σ* in Sigma_mid ± r (regime EQUILIBRIUM, quantifier THIS).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate; ``cert.data`` is already validated against the kind's schema.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem: the drift model (general V) with Σ₀.

    Returns
    -------
    tuple of (str, symbolic_tf.certify.check.claims.Claim)
        ``("PROVED", Claim("EQUILIBRIUM", THIS, {"Sigma_mid", "r"}))``.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the tube does not replay or its end is not in the certified basin.
    """
    F, V, A = drift_model(problem, _bad)
    if cert.status != "PROVED":
        _bad("status must be PROVED")
    d = problem.d
    S0 = initial_cov(problem, _bad)
    data = cert.data
    S_end, _ts = replay_stored([(V, A)], F, S0, data, _bad, _MAX_ORDER, _MAX_STEPS)
    prec = int_in(data["prec"], "prec", 64, 4096, _bad)
    check_basin(data, F, V, A, d, S_end, prec, "the tube's end box", _bad)
    params = {"Sigma_mid": [[frac_str(x) for x in row] for row in data["Sigma_mid"]],
              "r": frac_str(data["r"])}
    return "PROVED", Claim("EQUILIBRIUM", Quantifier.THIS, params)
