"""Forgeries of ``tube-ray-collapse`` (kinds/ray_collapse.py): Σ(t) → 0 for this Σ₀ along an attracting
collapsing ray, through a validated tube into a contracting ellipsoid of the projective field Ψ.  One
forgery per hypothesis of the argument, every other field kept consistent, and the multi-field
forgeries tried while hunting for holes (genuine data reused with another embedded problem): all are
rejected, none was accepted before.

The genuine certificate is the tampering suite's (seed 0 #40 of the general-V set, d = 3), found by
the library's search in about half a second.
"""
from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from .forge import accepts, edited, forge, q, rejects

A = [["-2", "-1", "1"], ["-1/2", "-3/4", "-2"], ["5/4", "1", "-7/4"]]
V = [["2", "0", "-3/2"], ["1", "5/4", "-1"], ["0", "-1", "1"]]
S0 = [["114999/524288", "-39557/524288", "69633/524288"], ["-39557/524288", "57219/524288", "105/16384"],
      ["69633/524288", "105/16384", "63451/524288"]]
DOC = {"variant": "softmax", "d": 3, "A": A, "V": V, "initial": {"cov": S0}}


@pytest.fixture(scope="module")
def cert():
    from symbolic_tf.certify.search.validated._tube_ray_collapse import find_collapse_ray
    from symbolic_tf.spec.problem import parse_problem

    v = find_collapse_ray(parse_problem(DOC))
    assert v.status == "PROVED", v.reason
    c = v.evidence["certificate"]
    assert c["kind"] == "tube-ray-collapse"
    accepts(c)
    return c


def _problem(c, **changes):
    return edited(c["problem"], **changes)


def _residual_norm(c) -> Fraction:
    """rᵀWr for r = (Q(X*) − c̃(X*)·X*, 0), c̃(X) = tr Q(X) + κ(tr X − 1), exactly."""
    X = [[Fraction(x) for x in row] for row in c["data"]["X_star"]]
    Vq, Aq = ([[Fraction(x) for x in row] for row in c["problem"][k]] for k in ("V", "A"))
    d, kappa = len(X), Fraction(c["data"]["kappa"])

    def mul(P, R):
        return [[sum(P[i][k] * R[k][j] for k in range(d)) for j in range(d)] for i in range(d)]

    M = mul(mul(mul(Vq, X), Aq), X)
    Q = [[M[i][j] + M[j][i] for j in range(d)] for i in range(d)]
    ct = sum(Q[i][i] for i in range(d)) + kappa * (sum(X[i][i] for i in range(d)) - 1)
    r = [Q[i][j] - ct * X[i][j] for i in range(d) for j in range(i, d)] + [Fraction(0)]
    W = [[Fraction(x) for x in row] for row in c["data"]["W"]]
    return sum(r[i] * W[i][j] * r[j] for i in range(len(r)) for j in range(len(r)))


# ------------------------------------------------------------------ one forgery per hypothesis
def test_collapse_other_variant(cert):
    rejects(forge(cert, problem=_problem(cert, variant="masked")), r"not the quadratic softmax-type field")


def test_collapse_drift(cert):
    F = [["-1", "0", "0"], ["0", "-1", "0"], ["0", "0", "-1"]]
    rejects(forge(cert, problem=_problem(cert, F=F)), r"covers the flow without drift only")


def test_collapse_schedule(cert):
    sched = _problem(cert, phase=[{"duration": "1/1000"}, {"duration": 1, "V": [["1", "0", "0"], ["0", "1", "0"],
                                                                             ["0", "0", "1"]]}])
    rejects(forge(cert, problem=sched), r"covers constant parameters only")


def test_collapse_tube_step_too_long(cert):
    steps = cert["data"]["steps"]
    rejects(forge(cert, data={"steps": [steps[0], steps[-1]]}), r"a priori \(Picard\) enclosure fails on step 1")


def test_collapse_sigma0_zero(cert):
    zero = _problem(cert, initial={"cov": [["0"] * 3 for _ in range(3)]})
    rejects(forge(cert, problem=zero), r"tr Σ\(t_N\) is not positive")


def test_collapse_W_indefinite(cert):
    W = copy.deepcopy(cert["data"]["W"])
    W[-1][-1] = q(-Fraction(W[-1][-1]))
    rejects(forge(cert, data={"W": W}), r"W is not positive definite")


def test_collapse_ellipsoid_leaves_the_box(cert):
    R = list(cert["data"]["R"])
    R[2] = q(Fraction(R[2]) / 4)     # a smaller box only helps every other check
    rejects(forge(cert, data={"R": R}), r"ellipsoid zᵀWz ≤ rho leaves the box in coordinate 2")


def test_collapse_rate_not_negative_over_the_box(cert):
    """Radii 1 for X (the ellipsoid still inside; v's radius kept): c̃ = tr Q(X) + κ(tr X − 1) takes both
    signs on that box."""
    R = ["1"] * (len(cert["data"]["R"]) - 1) + cert["data"]["R"][-1:]
    rejects(forge(cert, data={"R": R}), r"rate c̃ = tr Q\(X\) \+ κ\(tr X − 1\) is not negative")


def test_collapse_contraction_rate_too_large(cert):
    mu = Fraction(cert["data"]["mu"])
    rejects(forge(cert, data={"mu": q(8 * mu)}), r"−\(MᵀW \+ WM\) − 2·mu·W ≻ 0 is not verified")
    rejects(forge(cert, data={"mu": q(8 * mu), "pieces": 8}), r"piecewise contraction check needs more than 8 pieces")


def test_collapse_residual_too_large(cert):
    """mu lowered below √(rᵀWr/rho) (the contraction only gets easier)."""
    rWr, rho = _residual_norm(cert), Fraction(cert["data"]["rho"])
    assert rWr > 0
    mu = Fraction(1, 2 ** 80)
    while mu * mu * rho < rWr:
        mu *= 2
    mu /= 4
    assert mu * mu * rho < rWr and mu < Fraction(cert["data"]["mu"])
    rejects(forge(cert, data={"mu": q(mu)}), r"residual is too large for the contraction rate")


def test_collapse_tube_ends_outside_the_ellipsoid(cert):
    """Σ₀ = I/4 with an empty tube (steps = [0], which replays trivially): X₁ = I/3 is far from X_star."""
    quarter = [["1/4" if i == j else "0" for j in range(3)] for i in range(3)]
    rejects(forge(cert, problem=_problem(cert, initial={"cov": quarter}), data={"steps": ["0"]}),
            r"tube's end is not inside the certified ellipsoid")


def test_collapse_genuine_data_prove_the_tube_prefix(cert):
    """Σ₀ was started near the ray: the tube may be cut anywhere (the end stays inside 𝓔) — a sound,
    and the same, claim; the hunt's 'truncated tube' is no forgery here."""
    accepts(forge(cert, data={"steps": ["0"]}))


# ------------------------------------------------------------------ the hunt: genuine data, another problem
@pytest.mark.parametrize("change", ["sigma0-singular", "scale", "V-negated", "A-transposed", "multihead"])
def test_collapse_data_reused_with_another_problem(cert, change):
    p = cert["problem"]
    new = {
        "sigma0-singular": lambda: _problem(cert, initial={"cov": [["1", "0", "0"], ["0", "0", "0"], ["0", "0", "0"]]}),
        "scale": lambda: _problem(cert, scale="2"),
        "V-negated": lambda: _problem(cert, V=[[q(-Fraction(x)) for x in row] for row in p["V"]]),
        "A-transposed": lambda: _problem(cert, A=[list(r) for r in zip(*p["A"])]),
        "multihead": lambda: {"variant": "multihead", "d": 3, "initial": p["initial"],
                              "heads": [{"A": p["A"], "V": p["V"]}, {"A": p["A"], "V": p["V"]}]},
    }[change]()
    rejects(forge(cert, problem=new), r"^tube-ray-collapse certificate: ")
