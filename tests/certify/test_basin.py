"""Certified basins of attraction (kind ``equilibrium-basin``, route ``krawczyk-basin``): a Σ₀
near a stable equilibrium is PROVED EQUILIBRIUM for *this* Σ₀ (and an independent integration
ends in the certified box); a far or singular Σ₀ is not; tampering is caught."""
from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.certify.search._equilibrium_basin import find_basin
from symbolic_tf.certify.check import check
from symbolic_tf.certify.search._equilibrium_krawczyk import find_equilibrium
from symbolic_tf.regimes.classify import classify
from symbolic_tf.spec import parse_problem
from symbolic_tf.spec.errors import CertificationFailed


def _s(M):
    return [[str(x) for x in r] for r in M]


def _doc(A, V, F, S0, b=None, scale=None):
    doc = {"variant": "softmax", "d": len(A), "A": _s(A), "V": _s(V), "F": _s(F), "initial": {"cov": _s(S0)}}
    if b is not None:
        doc["b"] = [str(x) for x in b]
    if scale is not None:
        doc["scale"] = str(scale)
    return doc


def _eye(d, v=1):
    return [[v if i == j else 0 for j in range(d)] for i in range(d)]


# the stable example of tests/certify/test_equilibrium.py (V ≈ −I non-symmetric, A + Aᵀ ≻ 0, F = I)
# and a 3×3 non-symmetric-V example from the same file
STABLE = {
    "2x2": dict(A=[[1, "1/5"], [0, 1]], V=[[-1, "1/10"], ["-1/20", -1]], F=_eye(2), b=[1, 2]),
    "3x3": dict(A=[[-1, "1/4", 0], [0, -1, "1/5"], ["-1/6", 0, -2]],
                V=[[1, "1/8", 0], [0, "9/10", "-1/10"], ["1/7", 0, "11/10"]],
                F=[[1, "1/3", 0], [0, "3/2", 0], ["1/4", 0, 2]], b=[1, 1, 1]),
}
PERTURB = {"2x2": [["1/20", "1/50"], ["1/50", "-1/30"]],
           "3x3": [["1/40", "1/100", 0], ["1/100", "-1/50", "1/80"], [0, "1/80", "1/60"]]}


def _problem(name, S0):
    return parse_problem(_doc(S0=S0, **STABLE[name]))


def _mid(name):
    """Σ₀ = (Sigma_mid rounded to 1/1000) + a small rational perturbation."""
    d = len(STABLE[name]["A"])
    ver = find_equilibrium(_problem(name, _eye(d)))
    assert ver.status == "PROVED", ver.reason
    mid = ver.evidence["Sigma_star_box"]["mid"]
    rounded = [[Fraction(round(Fraction(x) * 1000), 1000) for x in row] for row in mid]
    return [[rounded[i][j] + Fraction(PERTURB[name][i][j]) for j in range(d)] for i in range(d)]


def _flow_end(p, S0, T=80.0):
    """Independent float integration of Σ̇ = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ (scipy, rtol 1e-11)."""
    d = p.d
    f = lambda M: np.array([[float(x) for x in r] for r in M])  # noqa: E731
    A, V, F = f(p.A) * float(p.scale), f(p.V), f(p.F)

    def rhs(_t, y):
        S = y.reshape(d, d)
        H = F @ S + V @ S @ A @ S
        return (H + H.T).ravel()

    sol = solve_ivp(rhs, (0.0, T), f(S0).ravel(), method="DOP853", rtol=1e-11, atol=1e-14)
    assert sol.success
    return sol.y[:, -1].reshape(d, d)


@pytest.fixture(scope="module", params=sorted(STABLE))
def near(request):
    name = request.param
    S0 = _mid(name)
    p = _problem(name, S0)
    return name, p, S0, classify(p, evidence=False)


def test_near_sigma0_is_proved_equilibrium_by_the_basin(near):
    name, p, S0, c = near
    assert c.status == "PROVED", c.reason
    assert str(c.regime) == "EQUILIBRIUM" and c.route == "krawczyk-basin"
    assert c.quantifier == "this Σ₀"
    res = check(c.certificate)
    assert res.ok and res.kind == "equilibrium-basin"
    # the independent integration from Σ₀ ends inside the certified box
    mid = np.array([[float(Fraction(x)) for x in r] for r in c.claim_data.params["Sigma_mid"]])
    rad = float(Fraction(c.claim_data.params["r"]))
    S_end = _flow_end(p, S0)
    assert np.abs(S_end - mid).max() <= rad, (np.abs(S_end - mid).max(), rad)


@pytest.mark.parametrize("scale", [10, 50])
def test_far_sigma0_is_not_proved_by_the_basin(scale):
    p = _problem("2x2", _eye(2, scale))
    ver = find_basin(p)
    assert ver.status == "UNDECIDED"
    assert "basin" in ver.reason
    c = classify(p, evidence=False)
    assert c.route != "krawczyk-basin"
    # a validated tube from the far Σ₀ may enter the basin: then the claim is for this Σ₀
    if c.status == "PROVED":
        assert c.route == "tube-basin" and str(c.regime) == "EQUILIBRIUM" and c.quantifier == "this Σ₀"


@pytest.mark.parametrize("S0", [[[1, 1], [1, 1]], [[1, 0], [0, 0]], [[0, 0], [0, 0]], [[1, "-3/40"], ["-3/40", "9/1600"]]])
def test_singular_sigma0_is_never_covered(S0):
    p = _problem("2x2", S0)
    ver = find_basin(p)
    assert ver.status == "UNDECIDED"
    c = classify(p, evidence=False)
    assert c.route != "krawczyk-basin"


def test_not_applicable_is_undecided_not_raised():
    p = parse_problem(_doc(_eye(2), _eye(2), _eye(2), _eye(2)))  # no stable PD equilibrium (blow-up)
    assert find_basin(p).status == "UNDECIDED"
    p = parse_problem({"variant": "softmax", "d": 2, "A": _s(_eye(2)), "V": _s(_eye(2)), "F": _s(_eye(2))})
    assert find_basin(p).status == "UNDECIDED"  # no Σ₀


# --------------------------------------------------------------------------------------------
# tampering
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cert():
    ver = find_basin(_problem("2x2", _mid("2x2")))
    assert ver.status == "PROVED", ver.reason
    c = ver.evidence["certificate"]
    assert check(c).ok
    return c


def _rehash(c):
    c["problem_hash"] = parse_problem(c["problem"]).content_hash()


def _set_cov(S0):
    def fn(c):
        c["problem"]["initial"]["cov"] = _s(S0)
        _rehash(c)
    return fn


def _scale(key, factor):
    def fn(c):
        c["data"][key] = str(Fraction(c["data"][key]) * Fraction(factor))
    return fn


def _rho_at_limit(c):
    k, q = Fraction(c["data"]["kappa"]), Fraction(c["data"]["c_Q"])
    c["data"]["rho"] = str(k * k / (4 * q * q))


def _W_entry(c):
    W = c["data"]["W"]
    W[0][1] = W[1][0] = str(Fraction(W[0][1]) + Fraction(1, 10))


def _W_scaled_only(c):  # W scaled without λ bounds: caught by the exact λ inequalities
    c["data"]["W"] = [[str(Fraction(x) * 2) for x in r] for r in c["data"]["W"]]


def _mid_bump(c):
    S = c["data"]["Sigma_mid"]
    S[0][1] = S[1][0] = str(Fraction(S[0][1]) + Fraction(1, 1000))
    c["claim"]["params"]["Sigma_mid"] = copy.deepcopy(S)
    from symbolic_tf.certify.check.claims import Claim

    c["claim"]["text"] = Claim.from_dict({k: v for k, v in c["claim"].items() if k != "text"}).text()


def _claim_r(c):
    from symbolic_tf.certify.check.claims import Claim

    c["claim"]["params"]["r"] = "1/10000000000000000"
    c["claim"]["text"] = Claim.from_dict({k: v for k, v in c["claim"].items() if k != "text"}).text()


def _claim_quantifier(c):
    from symbolic_tf.certify.check.claims import Claim

    c["claim"]["quantifier"] = "every Σ₀ ≻ 0"
    c["claim"]["text"] = Claim.from_dict({k: v for k, v in c["claim"].items() if k != "text"}).text()


def _neg(M):
    return [[str(-Fraction(x)) for x in r] for r in M]


TAMPERS = {
    "rho doubled": _scale("rho", 2),
    "rho at the limit": _rho_at_limit,
    "rho huge": lambda c: c["data"].__setitem__("rho", "1000000"),
    "rho zero": lambda c: c["data"].__setitem__("rho", "0"),
    "kappa doubled": _scale("kappa", 2),
    "kappa negative": _scale("kappa", -1),
    "c_Q halved": _scale("c_Q", Fraction(1, 2)),
    "c_Q zero": lambda c: c["data"].__setitem__("c_Q", "0"),
    "lam_lo doubled": _scale("lam_lo", 2),
    "lam_hi halved": _scale("lam_hi", Fraction(1, 2)),
    "normV2 halved": _scale("normV2", Fraction(1, 2)),
    "normA2 zero": lambda c: c["data"].__setitem__("normA2", "0"),
    "W entry": _W_entry,
    "W scaled": _W_scaled_only,
    "W negated": lambda c: c["data"].__setitem__("W", _neg(c["data"]["W"])),
    "W asymmetric": lambda c: c["data"]["W"][0].__setitem__(1, "1/3"),
    "Sigma_mid (claim updated)": _mid_bump,
    "r huge": lambda c: c["data"].__setitem__("r", "100"),
    "r zero": lambda c: c["data"].__setitem__("r", "0"),
    "r tiny": lambda c: c["data"].__setitem__("r", "1/1000000000000000000000000000000"),
    "Y zero": lambda c: c["data"].__setitem__("Y", [["0"] * len(r) for r in c["data"]["Y"]]),
    "claim radius": _claim_r,
    "claim quantifier": _claim_quantifier,
    "status": lambda c: c.__setitem__("status", "REFUTED"),
    "Sigma0 far (rehashed)": _set_cov([[10, 0], [0, 10]]),
    "Sigma0 small (rehashed)": _set_cov([["1/10", 0], [0, "1/10"]]),
    "Sigma0 singular (rehashed)": _set_cov([[1, 0], [0, 0]]),
    "Sigma0 indefinite": lambda c: c["problem"]["initial"].__setitem__("cov", _s([[1, 2], [2, 1]])),
    "Sigma0 stale hash": lambda c: c["problem"]["initial"].__setitem__("cov", _s(_eye(2, 10))),
    "V changed (rehashed)": lambda c: (c["problem"]["V"][0].__setitem__(1, "1/2"), _rehash(c)),
    "prec absurd": lambda c: c["data"].__setitem__("prec", 8),
    "extra field": lambda c: c["data"].__setitem__("Sigma_star", "1"),
}


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_tampering_is_detected(cert, name):
    bad = copy.deepcopy(cert)
    TAMPERS[name](bad)
    with pytest.raises(CertificationFailed):
        check(bad)


def test_untampered_copy_still_checks(cert):
    assert check(copy.deepcopy(cert)).ok
