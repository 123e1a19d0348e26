"""Forgeries of ``equilibrium-basin`` (kinds/basin.py, the checks of krawczyk_box.check_basin): this Σ₀
lies in a certified Lyapunov basin {δᵀWδ < rho} of a Krawczyk-enclosed equilibrium Σ* ≻ 0 of the drift
model.  One forgery per hypothesis of the argument, every other field kept consistent, and the
multi-field forgeries tried while hunting for holes (genuine data reused with another embedded
problem): all are rejected, none was accepted before.

The genuine certificate is the tampering suite's (found by the library's search in half a second).  The
forgeries are functions of the certificate, shared with ``tube-basin`` (test_tube.py), whose basin
part is the same argument.  The full-rank hypothesis needs a problem with a rank-deficient attracting
equilibrium: :func:`singular_equilibrium_data` builds its basin data by hand (every check but the
positive definiteness of the Krawczyk box passes).
"""
from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest

from symbolic_tf.certify.check.certificate import Certificate
from symbolic_tf.certify.check.claims import Claim, Quantifier
from symbolic_tf.spec.problem import parse_problem

from ..oracle import simulate
from .forge import accepts, edited, forge, q, rejects

I2 = [["1", "0"], ["0", "1"]]
MODEL = {"variant": "softmax", "d": 2, "A": [["1", "1/5"], ["0", "1"]], "V": [["-1", "1/10"], ["-1/20", "-1"]],
         "F": I2, "b": ["1", "2"]}


@pytest.fixture(scope="module")
def cert():
    """The tampering suite's certificate: Σ₀ a perturbed rounding of the Krawczyk-certified Σ*."""
    from symbolic_tf.certify.search._equilibrium_basin import find_basin
    from symbolic_tf.certify.search._equilibrium_krawczyk import find_equilibrium

    p = parse_problem({**MODEL, "initial": {"cov": I2}})
    mid = find_equilibrium(p).evidence["certificate"]["data"]["Sigma_mid"]
    near = [[Fraction(round(Fraction(x) * 1000), 1000) + Fraction(e) for x, e in zip(row, erow)]
            for row, erow in zip(mid, [["1/20", "1/50"], ["1/50", "-1/30"]])]
    v = find_basin(parse_problem({**MODEL, "initial": {"cov": [[q(x) for x in row] for row in near]}}))
    assert v.status == "PROVED", v.reason
    c = v.evidence["certificate"]
    assert c["kind"] == "equilibrium-basin"
    accepts(c)
    return c


# ------------------------------------------------------------------ the shared forgeries (also test_tube.py)
def problem_with(c, **changes):
    return edited(c["problem"], **changes)


def forge_other_variant(c):
    rejects(forge(c, problem=problem_with(c, variant="masked")), r"needs one quadratic \(softmax\) head")
    two = {"variant": "multihead", "d": 2, "F": c["problem"]["F"], "initial": c["problem"]["initial"],
           "heads": [{"A": c["problem"]["A"], "V": c["problem"]["V"]}] * 2}
    rejects(forge(c, problem=two), r"needs one quadratic \(softmax\) head")


def forge_schedule(c):
    sched = problem_with(c, phase=[{"duration": "1/1000"}, {"duration": 1, "F": [["-1", "0"], ["0", "-1"]]}])
    rejects(forge(c, problem=sched), r"covers constant parameters only")


def forge_krawczyk(c):
    """Sigma_mid moved by 4r (the claim moved with it): the box no longer holds the equilibrium."""
    mid, r = copy.deepcopy(c["data"]["Sigma_mid"]), c["data"]["r"]
    mid[0][0] = q(Fraction(mid[0][0]) + 4 * Fraction(r))
    rejects(forge(c, data={"Sigma_mid": mid}, params={"Sigma_mid": mid, "r": r}),
            r"Krawczyk test fails in coordinate \d: K\(X\) is not inside the open box")


def forge_W_bounds(c):
    lo, hi = c["data"]["lam_lo"], c["data"]["lam_hi"]
    # a larger lam_lo or a smaller lam_hi only helps the bound on c_Q
    rejects(forge(c, data={"lam_lo": hi}), r"W − lam_lo·D is not PSD")
    rejects(forge(c, data={"lam_hi": lo}), r"lam_hi·D − W is not PSD")
    rejects(forge(c, data={"lam_lo": "0"}), r"lam_lo must be positive")


def forge_norm_bound(c):
    for key in ("normV2", "normA2"):
        rejects(forge(c, data={key: q(Fraction(c["data"][key]) / 4)}), key + r" is not an upper bound of ‖[VA]‖₂²")


def forge_quadratic_bound(c):
    rejects(forge(c, data={"c_Q": q(Fraction(c["data"]["c_Q"]) / 2)}), r"c_Q does not bound the quadratic remainder")


def forge_decay(c):
    rejects(forge(c, data={"kappa": q(10 * Fraction(c["data"]["kappa"]))}),
            r"−\(LᵀW \+ WL\) − kappa·W is not certified PD over DG\(X\)")


def forge_level(c):
    kappa, cQ = Fraction(c["data"]["kappa"]), Fraction(c["data"]["c_Q"])
    rejects(forge(c, data={"rho": q(kappa * kappa / (4 * cQ * cQ))}), r"rho is not inside the region of decay")


# the drift model with the attracting rank-one equilibrium diag(1, 0): V = I, A = −I, F = diag(1, −1), so
# G(Σ) = FΣ + ΣF − 2Σ², G(diag(1, 0)) = 0 and DG(diag(1, 0)) = −2·I in svec coordinates
SINGULAR = {"variant": "softmax", "d": 2, "A": [["-1", "0"], ["0", "-1"]], "V": I2, "F": [["1", "0"], ["0", "-1"]],
            "initial": {"cov": [["1", "0"], ["0", "1/100"]]}}
SINGULAR_MID, SINGULAR_R = [["1", "0"], ["0", "0"]], "1/100"


def singular_equilibrium_data():
    """Basin data for diag(1, 0) by hand: Y = DG⁻¹ = −I/2, W = D (lam_lo = lam_hi = 1), kappa = 3 (the decay
    rate is 4), normV2 = normA2 = 1, c_Q = 2 (c_Q²·1 ≥ 4), rho = 1/2 (16·rho < 9)."""
    half = [["-1/2", "0", "0"], ["0", "-1/2", "0"], ["0", "0", "-1/2"]]
    W = [["1", "0", "0"], ["0", "2", "0"], ["0", "0", "1"]]
    return {"basis": "svec-upper", "prec": 128, "Sigma_mid": SINGULAR_MID, "r": SINGULAR_R, "Y": half, "W": W,
            "kappa": "3", "c_Q": "2", "rho": "1/2", "lam_lo": "1", "lam_hi": "1", "normV2": "1", "normA2": "1"}


def singular_equilibrium_forgery(kind, extra=None):
    data = {**singular_equilibrium_data(), **(extra or {})}
    claim = Claim("EQUILIBRIUM", Quantifier.THIS, {"Sigma_mid": SINGULAR_MID, "r": SINGULAR_R})
    return Certificate.for_problem(parse_problem(SINGULAR), kind, claim, "PROVED", data).to_dict()


def check_singular_limit():
    """Independently (DOP853, tests/soundness/oracle.py): from Σ₀ = diag(1, 1/100) the solution settles on
    diag(1, 0), a rank-one limit — a CLUSTERING regime, which the EQUILIBRIUM label would misstate."""
    res = simulate(parse_problem(SINGULAR), 40.0)
    assert res.status == "reached", res.message
    assert np.abs(res.Sigma - np.diag([1.0, 0.0])).max() < 1e-9
    # Σ(t) ≻ 0 for every t, only the limit is singular: Σ₂₂ solves ṡ = −2s − 2s², s(t) = 1/(101·e^{2t} − 1)
    at5 = simulate(parse_problem(SINGULAR), 5.0)
    assert at5.Sigma[1, 1] == pytest.approx(1 / (101 * np.exp(10.0) - 1), rel=1e-6)


# ------------------------------------------------------------------ one forgery per hypothesis
def test_basin_other_variant(cert):
    forge_other_variant(cert)


def test_basin_schedule(cert):
    forge_schedule(cert)


def test_basin_krawczyk_box_misses_the_equilibrium(cert):
    forge_krawczyk(cert)


def test_basin_singular_equilibrium():
    rejects(singular_equilibrium_forgery("equilibrium-basin"), r"box Sigma_mid ± r is not certified positive definite")
    check_singular_limit()


def test_basin_W_bounds_wrong(cert):
    forge_W_bounds(cert)


def test_basin_norm_bound_too_small(cert):
    forge_norm_bound(cert)


def test_basin_quadratic_bound_too_small(cert):
    forge_quadratic_bound(cert)


def test_basin_decay_rate_too_large(cert):
    forge_decay(cert)


def test_basin_level_too_high(cert):
    forge_level(cert)


def test_basin_sigma0_outside_the_level_set(cert):
    cov = [[q(2 * Fraction(x)) for x in row] for row in cert["problem"]["initial"]["cov"]]
    rejects(forge(cert, problem=problem_with(cert, initial={"cov": cov})), r"Σ₀ is not certified inside the level set")


def test_basin_singular_sigma0(cert):
    """A rank-one Σ₀: its solution keeps rank one and cannot reach the positive definite Σ*."""
    mid = [[Fraction(x) for x in row] for row in cert["data"]["Sigma_mid"]]
    a, b = mid[0][0], mid[0][1]
    rank_one = [[q(a), q(b)], [q(b), q(b * b / a)]]      # the rank-one matrix with Σ*'s first row, rounded
    rejects(forge(cert, problem=problem_with(cert, initial={"cov": rank_one})), r"Σ₀ is not positive definite")


# ------------------------------------------------------------------ the hunt: genuine data, another problem
@pytest.mark.parametrize("change", ["drift-dropped", "drift-negated", "scale", "V-negated", "A-transposed"])
def test_basin_data_reused_with_another_problem(cert, change):
    p = cert["problem"]
    neg = [[q(-Fraction(x)) for x in row] for row in p["F"]]
    new = {"drift-dropped": lambda: problem_with(cert, F=None, b=None),
           "drift-negated": lambda: problem_with(cert, F=neg),
           "scale": lambda: problem_with(cert, scale="2"),
           "V-negated": lambda: problem_with(cert, V=[[q(-Fraction(x)) for x in row] for row in p["V"]]),
           "A-transposed": lambda: problem_with(cert, A=[list(r) for r in zip(*p["A"])])}[change]()
    rejects(forge(cert, problem=new), r"^equilibrium-basin: ")
