"""Forgeries of ``tube-ray`` (kinds/ray.py): blow-up of this Σ₀ with a bracket, through a validated
tube into the contracting ellipsoid of an attracting ray in projective coordinates.  One forgery per
hypothesis of the argument, every other field kept consistent, and the multi-field forgeries tried
while hunting for holes (genuine data reused with another embedded problem, optional parts dropped):
all are rejected, none was accepted before.

The genuine certificates come from the library's search (about 1 s each): the tampering suite's
general-V problem, and the slowly attracting ray with drift of tests/certify/test_ray.py, whose
default search adds a projective continuation, and whose tube run on to its Picard failure is proved
by the piecewise contraction check.
"""
from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from .forge import accepts, edited, forge, q, rejects

I2 = [["1", "0"], ["0", "1"]]
RAY = {"variant": "softmax", "d": 2, "A": I2, "V": [["2", "1/2"], ["1/4", "-1"]], "initial": {"cov": I2}}
SLOW = {"variant": "softmax", "d": 2, "A": [["-5/4", "1/3"], ["-1", "-1/2"]], "V": [["-1/2", "3/2"], ["0", "-2/3"]],
        "F": [["0", "2"], ["3/2", "2"]], "initial": {"cov": [["109/36", "1"], ["1", "5/4"]]}}


def _search(doc, **kw):
    from symbolic_tf.certify.search.validated.tube_ray import find_ray_blowup
    from symbolic_tf.spec.problem import parse_problem

    v = find_ray_blowup(parse_problem(doc), seconds=120.0, rel_width=1e-2, **kw)
    assert v.status == "PROVED", v.reason
    c = v.evidence["certificate"]
    accepts(c)
    return c


@pytest.fixture(scope="module")
def ray():
    """The tampering suite's tube-ray certificate (no projective part, one contraction box)."""
    c = _search(RAY)
    assert "proj_steps" not in c["data"] and c["data"].get("pieces", 1) == 1
    return c


@pytest.fixture(scope="module")
def proj():
    """A tube-ray certificate with a projective continuation (drift, slowly attracting ray)."""
    c = _search(SLOW)
    assert "proj_steps" in c["data"]
    return c


@pytest.fixture(scope="module")
def pieces():
    """The same problem with the tube run on (no projective part): proved by the piecewise contraction."""
    import symbolic_tf.certify.search.validated.tube_ray as ray_tube

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ray_tube, "_MISSED_PREVIEW_STOP", 1e-2)
        c = _search(SLOW)
    assert c["data"].get("pieces", 1) > 1
    return c


def _problem(c, **changes):
    return edited(c["problem"], **changes)


def _residual_norm(c) -> Fraction:
    """rᵀWr for r = (Q(X*) − tr Q(X*)·X*, 0), exactly (no drift: the tampering suite's problem)."""
    p, X = c["problem"], [[Fraction(x) for x in row] for row in c["data"]["X_star"]]
    V, A = ([[Fraction(x) for x in row] for row in p[k]] for k in ("V", "A"))
    d = len(X)

    def mul(P, R):
        return [[sum(P[i][k] * R[k][j] for k in range(d)) for j in range(d)] for i in range(d)]

    M = mul(mul(mul(V, X), A), X)
    Q = [[M[i][j] + M[j][i] for j in range(d)] for i in range(d)]
    trQ = sum(Q[i][i] for i in range(d))
    r = [Q[i][j] - trQ * X[i][j] for i in range(d) for j in range(i, d)] + [Fraction(0)]
    W = [[Fraction(x) for x in row] for row in c["data"]["W"]]
    return sum(r[i] * W[i][j] * r[j] for i in range(len(r)) for j in range(len(r)))


# ------------------------------------------------------------------ one forgery per hypothesis
def test_ray_other_variant(ray):
    rejects(forge(ray, problem=_problem(ray, variant="masked")), r"not the quadratic softmax-type field")


def test_ray_schedule(ray):
    sched = _problem(ray, phase=[{"duration": "1/1000"}, {"duration": 1, "A": [["1", "0"], ["0", "2"]]}])
    rejects(forge(ray, problem=sched), r"covers constant parameters only")


def test_ray_tube_step_too_long(ray):
    steps = ray["data"]["steps"]
    rejects(forge(ray, data={"steps": [steps[0], steps[-1]]}), r"a priori \(Picard\) enclosure fails on step 1")


def test_ray_sigma0_zero(ray):
    """Σ₀ = 0 with the genuine tube and ellipsoid: Σ ≡ 0 is the equilibrium, the tube replays to 0."""
    zero = _problem(ray, initial={"cov": [["0", "0"], ["0", "0"]]})
    rejects(forge(ray, problem=zero), r"tr Σ\(t_N\) is not positive")


def test_ray_projective_step_too_long(proj):
    taus = proj["data"]["proj_steps"]
    rejects(forge(proj, data={"proj_steps": [taus[0], taus[-1]]}), r"projective tube's step 1 does not validate")
    # the continuation is one argument: half of it is refused, not silently skipped
    rejects(forge(proj, data={"proj_order": None}), r"proj_steps and proj_order go together")
    rejects(forge(proj, data={"proj_steps": None}), r"proj_steps and proj_order go together")


def test_ray_W_indefinite(ray):
    W = copy.deepcopy(ray["data"]["W"])
    W[-1][-1] = q(-Fraction(W[-1][-1]))
    rejects(forge(ray, data={"W": W}), r"W is not positive definite")


def test_ray_ellipsoid_leaves_the_box(ray):
    R = list(ray["data"]["R"])
    R[0] = q(Fraction(R[0]) / 4)     # a smaller box only helps every other check
    rejects(forge(ray, data={"R": R}), r"ellipsoid zᵀWz ≤ rho leaves the box in coordinate 0")


def test_ray_trace_not_positive_over_the_box(ray):
    """Diagonal radii 2 (the ellipsoid still inside): tr X ranges over [tr X* − 4, tr X* + 4] ∋ 0."""
    R = list(ray["data"]["R"])
    R[0] = R[2] = "2"
    rejects(forge(ray, data={"R": R}), r"tr X is not positive over the box")


def test_ray_growth_rate_not_positive_over_the_box(ray, pieces):
    """Off-diagonal radius 10: tr X is unchanged, but c = tr Q(X), quadratic in X₁₂, changes sign on the box."""
    R = list(ray["data"]["R"])
    R[1] = "10"
    rejects(forge(ray, data={"R": R}), r"growth rate c = tr Q\(X\) \+ u·tr L\(X\) is not positive")
    # alone: on the piecewise certificate the off-diagonal radius ×64 keeps the piecewise contraction
    # (only pieces meeting 𝓔 are examined; it passes within 8192 pieces) and tr X > 0, but c is not > 0 on H
    R = list(pieces["data"]["R"])
    R[1] = q(64 * Fraction(R[1]))
    rejects(forge(pieces, data={"R": R, "pieces": 8192}), r"growth rate c = tr Q\(X\) \+ u·tr L\(X\) is not positive")


def test_ray_contraction_rate_too_large(ray, pieces):
    mu = Fraction(ray["data"]["mu"])
    rejects(forge(ray, data={"mu": q(8 * mu)}), r"−\(MᵀW \+ WM\) − 2·mu·W ≻ 0 is not verified")
    # piecewise: the budget is part of the hypothesis
    rejects(forge(pieces, data={"pieces": 4}), r"piecewise contraction check needs more than 4 pieces")
    rejects(forge(pieces, data={"pieces": None}), r"−\(MᵀW \+ WM\) − 2·mu·W ≻ 0 is not verified")


def test_ray_residual_too_large(ray):
    """mu lowered below √(rᵀWr/rho) (the contraction only gets easier)."""
    rWr, rho = _residual_norm(ray), Fraction(ray["data"]["rho"])
    assert rWr > 0
    mu = Fraction(1, 2 ** 60)
    while mu * mu * rho < rWr:
        mu *= 2
    mu /= 4
    assert mu * mu * rho < rWr and mu < Fraction(ray["data"]["mu"])
    rejects(forge(ray, data={"mu": q(mu)}), r"residual is too large for the contraction rate")


def test_ray_tube_ends_outside_the_ellipsoid(ray):
    rejects(forge(ray, data={"steps": ray["data"]["steps"][:2]}), r"tube's end is not inside the certified ellipsoid")


def test_ray_bracket_tighter_than_proved(ray):
    lo, hi = ray["data"]["T_lo"], ray["data"]["T_hi"]
    for new_lo, new_hi in ((hi, hi), (lo, lo), (q((Fraction(lo) + Fraction(hi)) / 2), hi)):
        rejects(forge(ray, data={"T_lo": new_lo, "T_hi": new_hi}, params={"T_lo": new_lo, "T_hi": new_hi}),
                r"stored bracket \[T_lo, T_hi\] does not contain the derived one")
    rejects(forge(ray, data={"T_lo": hi, "T_hi": lo}, params={"T_lo": hi, "T_hi": lo}), r"T_lo > T_hi")
    # a wider bracket is a weaker, still true claim
    wide = q(Fraction(hi) * 2)
    accepts(forge(ray, data={"T_hi": wide}, params={"T_lo": lo, "T_hi": wide}))


# ------------------------------------------------------------------ the hunt: genuine data, another problem
@pytest.mark.parametrize("change", ["sigma0-singular", "sigma0-doubled", "sigma0-halved", "drift", "scale",
                                    "V-negated", "multihead"])
def test_ray_data_reused_with_another_problem(ray, change):
    p = ray["problem"]
    cov = [[Fraction(x) for x in row] for row in p["initial"]["cov"]]
    new = {
        "sigma0-singular": lambda: _problem(ray, initial={"cov": [["1", "0"], ["0", "0"]]}),
        "sigma0-doubled": lambda: _problem(ray, initial={"cov": [[q(2 * x) for x in row] for row in cov]}),
        "sigma0-halved": lambda: _problem(ray, initial={"cov": [[q(x / 2) for x in row] for row in cov]}),
        "drift": lambda: _problem(ray, F=[["-1", "0"], ["0", "-1"]]),
        "scale": lambda: _problem(ray, scale="1/2"),
        "V-negated": lambda: _problem(ray, V=[[q(-Fraction(x)) for x in row] for row in p["V"]]),
        "multihead": lambda: {"variant": "multihead", "d": 2, "initial": p["initial"],
                              "heads": [{"A": p["A"], "V": p["V"]}, {"A": p["A"], "V": p["V"]}]},
    }[change]()
    rejects(forge(ray, problem=new), r"^tube-ray certificate: ")


@pytest.mark.parametrize("what", ["proj", "pieces"])
def test_ray_drift_dropped_from_the_problem(proj, pieces, what):
    c = {"proj": proj, "pieces": pieces}[what]
    rejects(forge(c, problem=_problem(c, F=None)), r"^tube-ray certificate: ")
