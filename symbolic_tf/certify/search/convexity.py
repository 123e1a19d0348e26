"""Certified non-convexity of the softmax interaction energy along Wasserstein geodesics (docs/mathematics.md §7).

E(μ) = ½∬ e^{yᵀAx} dμ dμ.  For μ = (1/n)Σδ_{x_i} and x_i ↦ x_i + sξ_i (any rational data):
the plan {(x_i, x_i + sξ_i)} is cyclically monotone for 0 ≤ s ≤ ε — along a cycle,
Σ⟨y_k, x_{k+1} − x_k⟩ = −½Σ|x_{k+1} − x_k|² + sΣ⟨ξ_k, x_{k+1} − x_k⟩, the first sum being < 0
unless all x_k of the cycle coincide, in which case both vanish — so s ↦ μ_s is a Wasserstein
geodesic on [0, ε] and

    d²E/ds²(0) = (1/(2n²)) Σ_{i,j} e^{x_jᵀAx_i}[(x_jᵀAξ_i + ξ_jᵀAx_i)² + 2ξ_jᵀAξ_i].

Search: multistart float optimisation of the ratio d²E/ds² / ∫|ξ|²dμ (positions kept in a box
by a tanh reparametrisation), then rounding to rationals with small denominators.  Proof:
the value is Σ c_ij e^{u_ij}/(2n²) with rational c_ij, u_ij, enclosed in an arb ball (256
bits); PROVED only if the whole ball is < 0.  The certificate (kind ``nonconvexity-witness``)
stores A, positions, displacements as "p/q" strings, the value ball and a rational upper
bound, so :mod:`symbolic_tf.certify.check.kinds.nonconvexity_witness` re-verifies it independently.

A negative second variation with ratio ≤ λ* < 0 disproves λ-convexity for every λ > λ*
(in particular geodesic convexity, λ = 0).  "No witness found" is numerical only (UNDECIDED).
"""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from ...exact.precision import working_precision
from ...exact.rational import fmpq_of, frac_str, fraction_of
from ...spec.verdict import PROVED, UNDECIDED, Verdict
from ..check.certificate import Certificate

__all__ = ["second_variation_float", "second_variation_ball", "find_nonconvexity_witness",
           "scan_nonconvexity", "diag_family", "rotation_family"]

KIND = "nonconvexity-witness"


def _A_fractions(A, d=None):
    if hasattr(A, "tolist") and not isinstance(A, (list, tuple)):
        A = A.tolist()
    if not isinstance(A, (list, tuple)):
        a = Fraction(A) if not hasattr(A, "p") else fraction_of(A)
        d = d or 1
        return [[a if i == j else Fraction(0) for j in range(d)] for i in range(d)]

    def fr(e):
        if hasattr(e, "p") and hasattr(e, "q") and not isinstance(e, Fraction):
            return fraction_of(e)
        return Fraction(e) if not isinstance(e, float) else Fraction(e).limit_denominator(10**9)

    M = [[fr(e) for e in row] for row in A]
    if any(len(r) != len(M) for r in M):
        raise ValueError("A must be square")
    if d is not None and d != len(M):
        raise ValueError(f"A is {len(M)}×{len(M)} but d = {d}")
    return M


def second_variation_float(A: np.ndarray, X: np.ndarray, Xi: np.ndarray) -> float:
    """d²E/ds²(0) in floats; X, Xi of shape (n, d).

    Parameters
    ----------
    A : ndarray, shape (d, d)
        The matrix A.
    X : ndarray, shape (n, d)
        Positions x_i.
    Xi : ndarray, shape (n, d)
        Displacements ξ_i.

    Returns
    -------
    float
        (1/(2n²)) Σ_{i,j} e^{x_jᵀAx_i}[(x_jᵀAξ_i + ξ_jᵀAx_i)² + 2ξ_jᵀAξ_i].
    """
    n = X.shape[0]
    P = X @ A @ Xi.T           # P[j, i] = x_jᵀ A ξ_i
    Q = Xi @ A @ X.T           # Q[j, i] = ξ_jᵀ A x_i
    R = Xi @ A @ Xi.T          # R[j, i] = ξ_jᵀ A ξ_i
    U = X @ A @ X.T            # U[j, i] = x_jᵀ A x_i  (y = x_j, x = x_i)
    return float(np.sum(np.exp(U) * ((P + Q) ** 2 + 2 * R)) / (2 * n * n))


def _dot(u, M, v):
    d = len(u)
    return sum((u[a] * M[a][b] * v[b] for a in range(d) for b in range(d)), Fraction(0))


def second_variation_ball(A, xs, xis, prec: int = 256):
    """Exact pieces and an arb ball of d²E/ds²(0) for rational data (lists of Fractions).

    Parameters
    ----------
    A : list of list of Fraction
        The matrix A.
    xs : list of list of Fraction
        Positions x_i.
    xis : list of list of Fraction
        Displacements ξ_i.
    prec : int
        arb working precision in bits.

    Returns
    -------
    flint.arb
        A ball containing d²E/ds²(0) (exact rational coefficients c_ij, u_ij; only the
        exponentials are enclosed).
    """
    n = len(xs)
    with working_precision(prec):
        total = flint.arb(0)
        for i in range(n):
            for j in range(n):
                u = _dot(xs[j], A, xs[i])
                c = (_dot(xs[j], A, xis[i]) + _dot(xis[j], A, xs[i])) ** 2 + 2 * _dot(xis[j], A, xis[i])
                if c:
                    total += flint.arb(fmpq_of(c)) * \
                        flint.arb(fmpq_of(u)).exp()
        return total / (2 * n * n)


def _upper_fraction(ball) -> Fraction:
    """A rational ≥ every point of the ball (from arb's rounded-up upper endpoint)."""
    up = ball.upper()  # an arb with zero radius, exactly representable
    m, e = up.mid().man_exp()
    m, e = int(m), int(e)
    return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** (-e))


def _optimise(Af, n, d, rng, starts, box):
    """Multistart minimisation of the ratio d²E / ∫|ξ|² (numerical)."""
    from scipy.optimize import minimize

    def unpack(z):
        X = box * np.tanh(z[:n * d].reshape(n, d))
        Xi = z[n * d:].reshape(n, d)
        return X, Xi

    def f(z):
        X, Xi = unpack(z)
        nrm = np.mean(np.sum(Xi ** 2, axis=1))
        if nrm < 1e-12:
            return 0.0
        val = second_variation_float(Af, X, Xi) / nrm
        return val if np.isfinite(val) else 1e300

    best = []
    cands = [np.concatenate([np.zeros(n * d), rng.normal(size=n * d)]) for _ in range(2)]
    cands += [rng.normal(scale=0.8, size=2 * n * d) for _ in range(starts)]
    for z0 in cands:
        try:
            res = minimize(f, z0, method="L-BFGS-B", options={"maxiter": 200})
            z, fv = res.x, res.fun
        except (ValueError, FloatingPointError, OverflowError):
            z, fv = z0, f(z0)
        X, Xi = unpack(z)
        best.append((fv, X, Xi))
    best.sort(key=lambda t: t[0])
    return best


def _round(X, Xi, q):
    xs = [[Fraction(float(v)).limit_denominator(q) for v in row] for row in X]
    s = max(float(np.max(np.abs(Xi))), 1e-300)
    xis = [[Fraction(float(v) / s).limit_denominator(q) for v in row] for row in Xi]
    return xs, xis


def find_nonconvexity_witness(A, n_points: int = 2, d: int | None = None, *, seed: int = 0,
                              starts: int = 8, box: float = 2.0, prec: int = 256,
                              optimise: bool = True) -> Verdict:
    """Search rational positions/displacements with d²E/ds²(0) < 0 and certify the sign.

    ``A`` is a rational square matrix (nested lists of ints/Fractions/"p/q"/SymPy Rationals)
    or a scalar (then A = a·I_d, d defaulting to 1).  PROVED: E is not geodesically convex
    (λ = 0 fails) and not λ-convex for any λ > ``lambda_bound`` (a certified negative
    rational); UNDECIDED: no witness found (numerical evidence only, never a proof of convexity).

    Parameters
    ----------
    A : matrix-like or number
        The rational matrix A, or a scalar a (A = a·I_d).
    n_points : int
        Number of atoms n.
    d : int, optional
        The dimension for a scalar A (default 1).
    seed : int
        Seed of the float search.
    starts : int
        Number of multistart optimisations.
    box : float
        Half-width of the position box of the search.
    prec : int
        arb precision (bits) of the enclosure.
    optimise : bool
        Run the float optimisation after the quick candidates (one Dirac moving along e_k).

    Returns
    -------
    Verdict
        PROVED with a ``nonconvexity-witness`` certificate and ``lambda_bound``, or UNDECIDED
        with the best float ratio as numerical evidence.
    """
    claim = "E(μ) = ½∬e^{yᵀAx}dμdμ is not geodesically convex (λ-convexity fails for λ ≥ 0)"
    Aq = _A_fractions(A, d)
    d = len(Aq)
    Af = np.array([[float(e) for e in row] for row in Aq])
    rng = np.random.default_rng(seed)
    tried = 0
    best_num = None
    # cheapest candidate first: one Dirac at 0 moving along ξ gives d²E = ξᵀAξ.
    quick = []
    for k in range(d):
        e = [Fraction(int(i == k)) for i in range(d)]
        quick.append(e)
        for m in range(k + 1, d):
            quick.append([Fraction(int(i == k)) + Fraction(int(i == m)) for i in range(d)])
            quick.append([Fraction(int(i == k)) - Fraction(int(i == m)) for i in range(d)])
    candidates = [([[Fraction(0)] * d for _ in range(n_points)], [v] + [[Fraction(0)] * d] * (n_points - 1))
                  for v in quick]

    def certify(xs, xis):
        ball = second_variation_ball(Aq, xs, xis, prec)
        if not ball < 0:
            return None
        norm2 = sum((v * v for xi in xis for v in xi), Fraction(0)) / len(xis)
        if norm2 == 0:
            return None
        up = _upper_fraction(ball)
        for k in (3, 6, 12):  # a short rational ≥ the ball when possible
            r = Fraction(-((-up * 10 ** k).__floor__()), 10 ** k)
            if r < 0:
                up = r
                break
        if up >= 0:
            return None
        return ball, up, norm2

    certified = []  # (lambda_bound, xs, xis, ball, up, norm2)

    def attempt(xs, xis):
        nonlocal tried
        tried += 1
        c = certify(xs, xis)
        if c:
            certified.append((c[1] / c[2], xs, xis) + c)
        return c

    for xs, xis in candidates:
        if attempt(xs, xis):
            break
    numerical = {}
    if optimise:
        opt = _optimise(Af, n_points, d, rng, starts, box)
        numerical["best_float_ratio"] = float(opt[0][0])
        for fv, X, Xi in opt[:4]:
            if fv >= 0:
                break
            for q in (1, 2, 4, 8, 16, 32, 64, 256, 1024):
                if attempt(*_round(X, Xi, q)) and q >= 16:
                    break
    found = min(certified, key=lambda t: t[0])[1:] if certified else None
    numerical["rational_candidates_tried"] = tried
    numerical["position_box"] = box  # the most negative ratio grows with the box (numerical)
    if found is None:
        return Verdict(UNDECIDED, claim, "nonconvexity-search", numerical=numerical,
                       reason=("no configuration with d²E/ds² < 0 found (numerical evidence only; "
                               "this does not prove convexity)"))
    xs, xis, ball, up, norm2 = found
    lam = up / norm2
    from ...symbolic.ball import arb_to_pair

    data = {"A": [[frac_str(e) for e in r] for r in Aq],
            "positions": [[frac_str(e) for e in x] for x in xs],
            "displacements": [[frac_str(e) for e in x] for x in xis],
            "value": arb_to_pair(ball), "value_upper": frac_str(up),
            "xi_norm2": frac_str(norm2), "lambda_bound": frac_str(lam), "prec": prec}
    from ..check.claims import Claim, Quantifier

    cert = Certificate(kind=KIND, claim=Claim("nonconvexity", Quantifier.NONE,
                                              {"A": data["A"], "lambda_bound": frac_str(lam)}),
                       status=PROVED, data=data)
    numerical["witness_ratio_float"] = float(lam)
    return Verdict(PROVED, claim, "nonconvexity-witness",
                   evidence={"certificate": cert.to_dict(), "lambda_bound": frac_str(lam),
                             "value_upper": frac_str(up)},
                   numerical=numerical,
                   reason=(f"μ = (1/{len(xs)})Σδ_{{x_i}} moved along ξ has d²E/ds²(0) ≤ {float(up):.6g} < 0 "
                           f"(arb ball); ratio ≤ {float(lam):.6g}, so λ-convexity fails for every λ > {float(lam):.6g}"))


def diag_family(values):
    """Grid A = diag(a, b) over rational a, b in ``values``: yields (label, A).

    Parameters
    ----------
    values : iterable of numbers
        The rational values of a and b.

    Yields
    ------
    (dict, list of list of Fraction)
        The label {"a", "b"} and A.
    """
    for a in values:
        for b in values:
            a_, b_ = Fraction(a), Fraction(b)
            yield {"a": frac_str(a_), "b": frac_str(b_)}, [[a_, Fraction(0)], [Fraction(0), b_]]


def rotation_family(r, thetas_cs):
    """A = r·[[c, −s], [s, c]] for rational (c, s) pairs (e.g. Pythagorean (3/5, 4/5)).

    Parameters
    ----------
    r : number
        The rational scale r.
    thetas_cs : iterable of (c, s)
        Rational cosine/sine pairs.

    Yields
    ------
    (dict, list of list of Fraction)
        The label {"r", "cos", "sin"} and A.
    """
    for c, s in thetas_cs:
        c, s, r_ = Fraction(c), Fraction(s), Fraction(r)
        yield {"r": frac_str(r_), "cos": frac_str(c), "sin": frac_str(s)}, [[r_ * c, -r_ * s], [r_ * s, r_ * c]]


def scan_nonconvexity(family, n_points: int = 2, **kw) -> list[dict]:
    """For each (label, A) of the family: PROVED non-convex (with certificate) or UNDECIDED.

    Parameters
    ----------
    family : iterable of (dict, matrix)
        (label, A) pairs, e.g. :func:`diag_family`.
    n_points : int
        Number of atoms.
    **kw
        Passed to :func:`find_nonconvexity_witness`.

    Returns
    -------
    list of dict
        Per A: the label, status, a one-line result, ``lambda_bound``, ``best_float_ratio`` and
        the verdict.
    """
    out = []
    for label, A in family:
        v = find_nonconvexity_witness(A, n_points=n_points, **kw)
        row = dict(label)
        row["status"] = v.status
        row["result"] = "PROVED non-convex (certified witness)" if v.status == PROVED else "no witness found (numerical)"
        row["lambda_bound"] = v.evidence.get("lambda_bound")
        row["best_float_ratio"] = v.numerical.get("best_float_ratio")
        row["verdict"] = v
        out.append(row)
    return out
