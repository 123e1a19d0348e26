"""Checker-side Krawczyk box and basin-of-attraction checks of the drift model's equilibria (shared
by the kinds ``equilibrium-krawczyk`` (:mod:`symbolic_tf.certify.check.kinds.equilibrium_krawczyk`),
``equilibrium-basin`` (:mod:`symbolic_tf.certify.check.kinds.equilibrium_basin`) and ``tube-basin``
(:mod:`symbolic_tf.certify.check.kinds.tube_basin`)).

For Σ̇ = G(Σ) = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ in the coordinates δ = svec-upper(Δ) (Δ_ij, i ≤ j,
row-major; basis E_ii, E_ij + E_ji):

* :func:`krawczyk` — K(X) − x̃ = −Y·G(x̃) + (I − Y·DG(X))[−r, r]^m ⊂ (−r, r)^m (G(x̃) exact over ℚ,
  DG(X) the arb enclosure :func:`linearisation` over Σ ∈ X = Sigma_mid ± r) ⇒ X holds exactly one
  zero Σ* of G;
* :func:`check_basin` — the basin inequalities (see :mod:`symbolic_tf.certify.check.kinds.equilibrium_basin`): the
  Krawczyk box is PD, λ_lo > 0, W − λ_lo·D ⪰ 0, λ_hi·D − W ⪰ 0, normV2·I − VᵀV ⪰ 0,
  normA2·I − AᵀA ⪰ 0, c_Q ≥ 0, c_Q²λ_lo² ≥ 4λ_hi·normV2·normA2, κ > 0, 0 < ρ, 4c_Q²ρ < κ²,
  −(LᵀW + WL) − κW ≻ 0 over DG(X), and svec(Z − Σ)ᵀW svec(Z − Σ) < ρ for every Z in the given
  ball matrix (the point Σ₀ or a tube's end box) and every Σ ∈ X.

Helpers take a ``fail(message)`` callback (which must raise) so each kind keeps its own prefix.
"""
from __future__ import annotations


import flint

from ...exact.ball import ball_pd
from ...exact.definiteness import definiteness
from ...exact.precision import working_precision
from ...exact.rational import fmpq_of, parse_frac, qmat
from ...spec.errors import InvalidParameters
from .flows import single_quadratic_head

__all__ = ["rat", "square", "ball", "eye", "svec_index", "gram", "box", "drift_model", "initial_cov",
           "parse_box", "linearisation", "krawczyk", "check_basin"]


def rat(s) -> flint.fmpq:
    """An exact flint rational from an exact number or string.

    Parameters
    ----------
    s : int, str, fractions.Fraction
        Anything :class:`fractions.Fraction` reads exactly.

    Returns
    -------
    flint.fmpq
        The same number.
    """
    f = parse_frac(s)
    return fmpq_of(f)


def square(M, n, what, fail) -> flint.fmpq_mat:
    """The n×n exact matrix of a stored nested list (shape checked).

    Parameters
    ----------
    M : list of list
        The stored rows.
    n : int
        The required size.
    what : str
        The matrix's name, for the failure message.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    flint.fmpq_mat
        M exactly.
    """
    if not isinstance(M, list) or len(M) != n or any(not isinstance(r, list) or len(r) != n for r in M):
        fail(f"{what} must be a {n}×{n} matrix")
    return qmat(M)


def ball(M: flint.fmpq_mat) -> flint.arb_mat:
    """The exact matrix as a matrix of zero-radius arb balls.

    Parameters
    ----------
    M : flint.fmpq_mat
        An exact matrix.

    Returns
    -------
    flint.arb_mat
        M at the current working precision (entries rounded outward).
    """
    return flint.arb_mat(M.nrows(), M.ncols(), [flint.arb(M[i, j]) for i in range(M.nrows()) for j in range(M.ncols())])


def eye(n):
    """The exact identity I_n.

    Parameters
    ----------
    n : int
        The size.

    Returns
    -------
    flint.fmpq_mat
        I_n.
    """
    return flint.fmpq_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])


def svec_index(d):
    """The svec-upper coordinate order: (i, j), i ≤ j, row-major.

    Parameters
    ----------
    d : int
        The dimension.

    Returns
    -------
    list of (int, int)
        The m = d(d+1)/2 index pairs.
    """
    return [(i, j) for i in range(d) for j in range(i, d)]


def gram(d):
    """D = diag(1 on (i, i), 2 on (i, j), i < j): δᵀDδ = ‖Δ‖_F².

    Parameters
    ----------
    d : int
        The dimension.

    Returns
    -------
    flint.fmpq_mat
        The m×m diagonal D, m = d(d+1)/2.
    """
    idx = svec_index(d)
    m = len(idx)
    return flint.fmpq_mat(m, m, [(1 if idx[k][0] == idx[k][1] else 2) if k == l else 0
                                 for k in range(m) for l in range(m)])


def box(Smid, r):
    """The ball matrix X = Smid ± r (every entry widened by r).

    Parameters
    ----------
    Smid : flint.fmpq_mat
        The exact centre.
    r : flint.fmpq or fractions.Fraction
        The radius r > 0.

    Returns
    -------
    flint.arb_mat
        The entrywise box.
    """
    d = Smid.nrows()
    e = flint.arb(0, flint.arb(r).upper())
    return flint.arb_mat(d, d, [flint.arb(Smid[i, j]) + e for i in range(d) for j in range(d)])


def drift_model(problem, fail=None):
    """(F, V, A) exact (A = scale·A_problem, F = 0 without drift) of an embedded single-head softmax
    problem.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem.
    fail : callable, optional
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns);
        by default (the search side) the problem is refused with
        :class:`~symbolic_tf.spec.errors.InvalidParameters`.

    Returns
    -------
    tuple of (flint.fmpq_mat, flint.fmpq_mat, flint.fmpq_mat)
        (F, V, A).
    """
    if fail is None:
        def fail(msg):
            raise InvalidParameters("variant", msg)
    if problem is None:
        fail("needs an embedded problem")
    try:
        V, A = single_quadratic_head(problem)
    except InvalidParameters as exc:
        fail(f"needs one quadratic (softmax) head: {exc.reason}")
    d = problem.d
    F = problem.exact.F if problem.F is not None else flint.fmpq_mat(d, d)
    return F, V, A


def initial_cov(problem, fail):
    """The embedded problem's Σ₀ (exact, symmetric d×d).

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The embedded problem.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    flint.fmpq_mat
        Σ₀ (``fail`` when it is missing, not d×d or not symmetric).
    """
    if problem.cov is None:
        fail("the embedded problem has no Σ₀")
    d = problem.d
    S0 = problem.exact.Sigma0
    if S0.nrows() != d or S0.ncols() != d or S0 != S0.transpose():
        fail("Σ₀ must be a symmetric d×d matrix")
    return S0


def parse_box(data, d, fail):
    """(Sigma_mid, r, Y) of a Krawczyk box: Sigma_mid symmetric d×d, r > 0, Y m×m (m = d(d+1)/2).

    Parameters
    ----------
    data : dict
        The certificate's data.
    d : int
        The dimension.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    tuple of (flint.fmpq_mat, flint.fmpq, flint.fmpq_mat)
        (Sigma_mid, r, Y).
    """
    S = square(data["Sigma_mid"], d, "Sigma_mid", fail)
    if S != S.transpose():
        fail("Sigma_mid is not symmetric")
    r = rat(data["r"])
    if not r > 0:
        fail("the box radius r must be positive")
    Y = square(data["Y"], d * (d + 1) // 2, "Y", fail)
    return S, r, Y


def linearisation(Sb, F, V, A, d):
    """Columns: coordinates of DG(Σ)[E_k] for the basis E_k, Σ in the ball matrix Sb.

    Parameters
    ----------
    Sb : flint.arb_mat
        The ball matrix X over which Σ ranges.
    F, V, A : flint.fmpq_mat
        The exact drift model.
    d : int
        The dimension.

    Returns
    -------
    flint.arb_mat
        The m×m enclosure of DG(Σ)[E] = FE + EFᵀ + VEAΣ + VΣAE + EAᵀΣVᵀ + ΣAᵀEVᵀ for Σ ∈ Sb, in svec-upper
        coordinates (column k for E_k).
    """
    idx = svec_index(d)
    m = len(idx)
    Fb, Vb, Ab = ball(F), ball(V), ball(A)
    L = flint.arb_mat(m, m)
    for col, (i, j) in enumerate(idx):
        E = flint.arb_mat(d, d)
        E[i, j] = 1
        E[j, i] = 1
        T = Fb * E + E * Fb.transpose() + Vb * E * Ab * Sb + Vb * Sb * Ab * E \
            + E * Ab.transpose() * Sb * Vb.transpose() + Sb * Ab.transpose() * E * Vb.transpose()
        for row, (p, q) in enumerate(idx):
            L[row, col] = T[p, q]
    return L


def krawczyk(F, V, A, S, r, Y, fail):
    """The Krawczyk test for the box S ± r (exact S, r > 0, Y) at the current working precision;
    returns (the ball matrix X = S ± r, DG(X)).

    Parameters
    ----------
    F, V, A : flint.fmpq_mat
        The exact drift model.
    S : flint.fmpq_mat
        The exact box centre Sigma_mid.
    r : flint.fmpq
        The box radius r > 0.
    Y : flint.fmpq_mat
        The exact preconditioner (≈ DG(S)⁻¹), m×m.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    tuple of (flint.arb_mat, flint.arb_mat)
        (X, DG(X)) once −Y·G(S) + (I − Y·DG(X))[−r, r]^m ⊂ (−r, r)^m, which proves exactly one zero Σ*
        of G in X.
    """
    d = S.nrows()
    m = d * (d + 1) // 2
    Gx = F * S + S * F.transpose() + V * S * A * S + S * A.transpose() * S * V.transpose()  # exact
    g = flint.fmpq_mat(m, 1, [Gx[i, j] for i, j in svec_index(d)])
    YG = Y * g
    Sb = box(S, r)
    L = linearisation(Sb, F, V, A, d)
    C = ball(eye(m)) - ball(Y) * L
    rb = flint.arb(r)
    w = flint.arb(0, rb.upper())
    for i in range(m):
        k = -flint.arb(YG[i, 0])
        for j in range(m):
            k += C[i, j] * w
        if not (k < rb and k > -rb):
            fail(f"Krawczyk test fails in coordinate {i}: K(X) is not inside the open box")
    return Sb, L


def check_basin(data, F, V, A, d, Z, prec, what, fail):
    """The basin checks of ``equilibrium-basin`` for ``Z`` (exact or a ball matrix; ``what`` names it in
    the failure message) against the stored data (Sigma_mid, r, Y, W, kappa, c_Q, rho, lam_lo,
    lam_hi, normV2, normA2); the ball part at ``prec`` bits.

    Parameters
    ----------
    data : dict
        The stored basin data.
    F, V, A : flint.fmpq_mat
        The exact drift model.
    d : int
        The dimension.
    Z : flint.fmpq_mat or flint.arb_mat
        The point (Σ₀) or ball box (a tube's end) that must lie in the basin.
    prec : int
        The arb precision in bits.
    what : str
        Z's name in the failure message.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    """
    m = d * (d + 1) // 2
    S, r, Y = parse_box(data, d, fail)
    W = square(data["W"], m, "W", fail)
    if W != W.transpose():
        fail("W is not symmetric")
    kappa, cQ, rho = (parse_frac(data[k]) for k in ("kappa", "c_Q", "rho"))
    lo, hi, nV, nA = (parse_frac(data[k]) for k in ("lam_lo", "lam_hi", "normV2", "normA2"))

    # --- exact scalar inequalities
    if not lo > 0:
        fail("lam_lo must be positive")
    if nV < 0 or nA < 0 or cQ < 0:
        fail("normV2, normA2 and c_Q must be ≥ 0")
    if cQ * cQ * lo * lo < 4 * hi * nV * nA:
        fail("c_Q does not bound the quadratic remainder: c_Q²·lam_lo² < 4·lam_hi·normV2·normA2")
    if not kappa > 0:
        fail("kappa must be positive")
    if not (rho > 0 and 4 * cQ * cQ * rho < kappa * kappa):
        fail("the level rho is not inside the region of decay: need 0 < rho and 4·c_Q²·rho < kappa²")

    # --- exact matrix inequalities
    Dg = gram(d)
    if not definiteness(W - rat(lo) * Dg).psd:
        fail("W − lam_lo·D is not PSD")
    if not definiteness(rat(hi) * Dg - W).psd:
        fail("lam_hi·D − W is not PSD")
    if not definiteness(rat(nV) * eye(d) - V.transpose() * V).psd:
        fail("normV2 is not an upper bound of ‖V‖₂²")
    if not definiteness(rat(nA) * eye(d) - A.transpose() * A).psd:
        fail("normA2 is not an upper bound of ‖A‖₂²")

    with working_precision(prec):
        # --- Krawczyk: exactly one zero Σ* of G in X, every Σ in X PD
        Sb, L = krawczyk(F, V, A, S, r, Y, fail)
        if ball_pd(Sb) is not True:
            fail("the box Sigma_mid ± r is not certified positive definite")
        # --- decay of the linear part in the W norm: −(LᵀW + WL) − κW ≻ 0 on DG(X)
        Wb = ball(W)
        M = (L.transpose() * Wb + Wb * L) * (-1) - Wb * flint.arb(rat(kappa))
        if ball_pd(M) is not True:
            fail("−(LᵀW + WL) − kappa·W is not certified PD over DG(X)")
        # --- Z inside the level set for every Σ* in X
        if isinstance(Z, flint.fmpq_mat):
            Z = ball(Z)
        delta = flint.arb_mat(m, 1, [Z[i, j] - Sb[i, j] for i, j in svec_index(d)])
        E = (delta.transpose() * Wb * delta)[0, 0]
        if not E < flint.arb(rat(rho)):
            fail(f"{what} is not certified inside the level set {{δᵀWδ < rho}} around every Σ in the "
                 "Krawczyk box")
