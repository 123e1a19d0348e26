"""Boundary-heavy problem generators for the soundness suite and the soak runner.

One construction, two sources of randomness: :func:`problems` (a Hypothesis strategy, which
shrinks) and :func:`random_document` (a ``numpy.random.Generator``, for benchmarks/soak.py).
Both call :func:`build_document` with a ``pick(options)`` function, so the families are the
same.  Nothing is filtered out: singular A + Aᵀ, V = 0, rank-deficient Σ₀ (rank 0..d−1),
F with imaginary-axis spectrum, F = ±f·I, anti-Hurwitz F, etc., are all drawn on purpose.

Entries are small rationals (denominators ≤ 4, |entries| ≤ 2 for the free entries; products
such as B Bᵀ or L D Lᵀ may be a little larger).
"""
from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

__all__ = ["FAMILIES", "build_document", "problems", "random_document", "frac_str"]

SMALL = [Fraction(p, q) for q in (1, 2, 4) for p in range(-2 * q, 2 * q + 1)]
SMALL = sorted(set(SMALL))
NONZERO = [x for x in SMALL if x != 0]
POS = [x for x in SMALL if x > 0]
HALFS = [Fraction(-1), Fraction(-1, 2), Fraction(0), Fraction(1, 2), Fraction(1)]

FAMILIES = ("softmax_vI", "softmax_vI_drift", "softmax_V", "softmax_V_drift", "softmax_V0",
            "multihead", "l2", "sinkhorn")


def frac_str(x) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _mat(M):
    return [[frac_str(x) for x in row] for row in M]


def _zeros(d):
    return [[Fraction(0)] * d for _ in range(d)]


def _eye(d, c=1):
    return [[Fraction(c) if i == j else Fraction(0) for j in range(d)] for i in range(d)]


def _mm(A, B):
    return [[sum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def _T(A):
    return [list(r) for r in zip(*A)]


def _add(A, B):
    return [[a + b for a, b in zip(ra, rb)] for ra, rb in zip(A, B)]


def _rand(pick, d, k=None, pool=SMALL):
    k = d if k is None else k
    return [[pick(pool) for _ in range(k)] for _ in range(d)]


def _skew(pick, d):
    K = _zeros(d)
    for i in range(d):
        for j in range(i + 1, d):
            x = pick(SMALL)
            K[i][j], K[j][i] = x, -x
    return K


def _sym_with_signs(pick, d, kind):
    """S = L D Lᵀ with prescribed inertia: pd, nd, psd_singular, nsd_singular, indefinite, zero."""
    L = _eye(d)
    for i in range(d):
        for j in range(i):
            L[i][j] = pick(HALFS)
    if kind == "zero":
        return _zeros(d)
    signs = {"pd": [1] * d, "nd": [-1] * d}.get(kind)
    if signs is None:
        if kind == "psd_singular":
            signs = [1] * d
            signs[pick(list(range(d)))] = 0
        elif kind == "nsd_singular":
            signs = [-1] * d
            signs[pick(list(range(d)))] = 0
        else:  # indefinite (in d = 1: a random sign)
            signs = [pick([-1, 0, 1]) for _ in range(d)]
            if d >= 2:
                signs[0], signs[1] = 1, -1
    D = [[Fraction(signs[i]) * pick(POS) if i == j else Fraction(0) for j in range(d)] for i in range(d)]
    return _mm(_mm(L, D), _T(L))


def _attention(pick, d):
    """A with A + Aᵀ of a chosen inertia (A = S/2 + skew), or a free random A."""
    kind = pick(["pd", "nd", "psd_singular", "nsd_singular", "indefinite", "zero", "free", "free"])
    if kind == "free":
        return _rand(pick, d)
    S = _sym_with_signs(pick, d, kind)
    K = _skew(pick, d) if pick([True, False]) else _zeros(d)
    return [[S[i][j] / 2 + K[i][j] for j in range(d)] for i in range(d)]


def _drift(pick, d):
    kind = pick(["zero", "fI", "fI", "skew", "anti_hurwitz", "hurwitz", "free", "skew_plus_fI"])
    if kind == "zero":
        return _zeros(d)
    if kind == "fI":
        return _eye(d, pick(NONZERO))
    if kind == "skew":
        return _skew(pick, d)
    if kind in ("anti_hurwitz", "hurwitz"):
        sgn = 1 if kind == "anti_hurwitz" else -1
        M = _zeros(d)
        for i in range(d):
            M[i][i] = sgn * pick(POS)
            for j in range(i + 1, d):
                M[i][j] = pick(SMALL)
        return M
    if kind == "skew_plus_fI":
        return _add(_skew(pick, d), _eye(d, pick(NONZERO)))
    return _rand(pick, d)


def _cov(pick, d):
    kind = pick(["I", "rank", "rank", "diag"])
    if kind == "I":
        return _eye(d)
    if kind == "diag":
        return [[pick([Fraction(0)] + POS) if i == j else Fraction(0) for j in range(d)] for i in range(d)]
    k = pick(list(range(d + 1)))  # rank 0..d (0..d−1 are the rank-deficient cases)
    if k == 0:
        return _zeros(d)
    B = _rand(pick, d, k)
    return _mm(B, _T(B))


def _value(pick, d):
    kind = pick(["vI", "free", "free", "zero", "upper"])
    if kind == "vI":
        return _eye(d, pick(HALFS))
    if kind == "zero":
        return _zeros(d)
    if kind == "upper":
        return [[pick(SMALL) if j >= i else Fraction(0) for j in range(d)] for i in range(d)]
    return _rand(pick, d)


def build_document(pick, family: str | None = None) -> dict:
    """A problem document of ``family`` (drawn if None); ``pick(options)`` chooses one option."""
    family = family or pick(list(FAMILIES))
    d = pick([1, 2, 2, 2, 3, 3, 4])
    doc: dict = {"d": d}
    if family.startswith("softmax"):
        doc["variant"] = "softmax"
        doc["A"] = _mat(_attention(pick, d))
        if family.startswith("softmax_vI"):
            doc["V"] = _mat(_eye(d, pick(HALFS)))
        elif family == "softmax_V0":
            doc["V"] = _mat(_zeros(d))
        else:
            doc["V"] = _mat(_value(pick, d))
        if family.endswith("drift") or (family == "softmax_V0" and pick([True, False])):
            doc["F"] = _mat(_drift(pick, d))
            doc["b"] = [frac_str(pick(SMALL)) for _ in range(d)]
    elif family == "multihead":
        doc["variant"] = "multihead"
        heads = []
        for _ in range(2):
            h = {"A": _mat(_attention(pick, d)), "V": _mat(_value(pick, d))}
            if pick([False, False, True]):
                h["W"] = _mat(_rand(pick, d))
            heads.append(h)
        doc["heads"] = heads
    elif family == "l2":
        doc["variant"] = "l2"
        k = pick([d, d, 1])
        doc["Q"] = _mat(_rand(pick, k, d))
        K = _rand(pick, k, d) if pick([True, False]) else [[Fraction(int(i == j)) for j in range(d)] for i in range(k)]
        doc["K"] = _mat(K)
        doc["V"] = _mat(_value(pick, d))
    elif family == "sinkhorn":
        doc["variant"] = "sinkhorn"
        doc["A"] = _mat(_attention(pick, d))
        doc["V"] = _mat(_value(pick, d))
    else:
        raise ValueError(family)
    if family in ("l2", "sinkhorn") and pick([False, False, True]):
        doc["F"] = _mat(_drift(pick, d))
    if pick([False, False, False, True]):
        doc["scale"] = frac_str(pick(POS))
    doc["initial"] = {"mean": ["0"] * d, "cov": _mat(_cov(pick, d))}
    return doc


@st.composite
def problems(draw, family: str | None = None):
    """Hypothesis strategy of problem documents (dicts; parse with ``parse_problem``)."""
    def pick(options):
        return draw(st.sampled_from(list(options)))

    return build_document(pick, family)


def random_document(rng, family: str | None = None) -> dict:
    """The same construction driven by a ``numpy.random.Generator``."""
    def pick(options):
        options = list(options)
        return options[int(rng.integers(len(options)))]

    return build_document(pick, family)
