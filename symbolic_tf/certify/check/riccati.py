"""What the V = vI (Riccati-linearisable) certificate kinds share: the problem-class hypotheses, the
factorisation Σ₀ = B·D·Bᵀ and the enclosure of W(t) = ∫₀ᵗ e^{Fᵀs} R e^{Fs} ds.

Re-derives from the embedded exact problem: R = v(A + Aᵀ) (A scaled by the temperature),
F, the factorisation Σ₀ = B D Bᵀ, and then each inequality exactly (fmpq) or with arb balls.
Independent of :mod:`symbolic_tf.certify.search.riccati` (which searched for the data): the
matrix exponential enclosure is recomputed here from scratch.  The kinds are
``blowup-riccati-vI``, ``global-riccati-vI``, ``equilibrium-drift-vI``, ``global-drift-vI``,
``growth-drift-vI-nsd`` and ``bounded-drift-vI-nsd`` (one module each in
:mod:`symbolic_tf.certify.check.kinds`).
"""
from __future__ import annotations

import flint

from ...exact.definiteness import definiteness
from ...exact.precision import working_precision
from ...exact.rational import Q, frac_str, qmat
from . import Hypothesis, refuse
from .krawczyk_box import drift_model

#: the factorisation Σ₀ = B·D·Bᵀ every kind with a Σ₀ stores
FACTOR_SCHEMA = {"v": "rat", "B": "rat[][]", "D": "rat[]"}

#: the forgeries of every hypothesis of these kinds (tests/soundness)
FORGERIES = "tests/soundness/forgeries/test_riccati.py::"

# the problem class every kind of this module needs (the Radon linearisation of docs/mathematics.md §4, §6)
ONE_SOFTMAX_HEAD = Hypothesis(
    "one-softmax-head", "The embedded problem is one softmax head (not ℓ2, Sinkhorn, multi-head…), so its covariance "
    "flow is Σ̇ = FΣ + ΣFᵀ + VΣÃΣ + ΣÃᵀΣVᵀ with Ã = τA (τ the temperature).", FORGERIES + "test_riccati_not_one_softmax_head")

CONSTANT_PARAMETERS = Hypothesis(
    "constant-parameters", "A, V, F do not depend on depth t (no schedule): the closed forms below integrate a "
    "time-invariant equation.", FORGERIES + "test_riccati_refuses_a_schedule")

V_SCALAR = Hypothesis(
    "V-scalar", "V = v·I exactly for the stored v, so with R = v(Ã + Ãᵀ) the flow is Σ̇ = FΣ + ΣFᵀ + ΣRΣ and "
    "P = Σ⁻¹ solves the linear Ṗ = −(FᵀP + PF) − R.", FORGERIES + "test_riccati_V_not_v_identity")

SIGMA0_GIVEN = Hypothesis(
    "sigma0-given", "The embedded problem states its Gaussian Σ₀ (a claim about this Σ₀ needs one).",
    FORGERIES + "test_riccati_this_sigma0_needs_sigma0")

SIGMA0_FACTOR = Hypothesis(
    "sigma0-factor", "Σ₀ = B·D·Bᵀ exactly with B a d×r matrix of full column rank and D = diag(D) ≻ 0; then "
    "r = rank Σ₀ and Σ(t) = e^{Ft}B X(t)⁻¹Bᵀe^{Fᵀt} with X(t) = D⁻¹ − BᵀW(t)B, W(t) = ∫₀ᵗe^{Fᵀs}Re^{Fs}ds, for as "
    "long as X(t) ≻ 0; since B has full column rank, Σ(t) blows up exactly when X(t) becomes singular.",
    FORGERIES + "test_riccati_factorisation_is_not_sigma0")

R_NSD = Hypothesis(
    "R-nsd", "R = v(Ã + Ãᵀ) ⪯ 0, so W(t) ⪯ 0, X(t) ⪰ D⁻¹ ≻ 0 for every factor of every Σ₀ ⪰ 0 (no blow-up) and "
    "Σ(t) ⪯ e^{Ft}Σ₀e^{Fᵀt}.", FORGERIES + "test_riccati_nsd_kinds_need_R_nsd")

#: the hypotheses the R ⪯ 0 kinds (bounded-drift-vI-nsd, growth-drift-vI-nsd) start with
NSD_HYPOTHESES = (ONE_SOFTMAX_HEAD, CONSTANT_PARAMETERS, V_SCALAR, R_NSD)


def rational(s) -> flint.fmpq:
    """An exact rational from a certificate's number ("p/q" string or int).

    Parameters
    ----------
    s : str or int
        The stored number.

    Returns
    -------
    flint.fmpq
        Its exact value.
    """
    return Q(s)


def vI_setup(name, cert, problem):
    """(d, v, R, F, B, D) after the problem-class checks every V = vI kind starts with.

    Parameters
    ----------
    name : str
        The kind, for the messages.
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate (its data hold ``v`` and, for a Σ₀, ``B`` and ``D``).
    problem : symbolic_tf.spec.problem.Problem
        The embedded problem.

    Returns
    -------
    tuple
        d, v, R = v(Ã + Ãᵀ), F (fmpq_mat), B (fmpq_mat or None) and D (list of fmpq).
    """
    def fail(msg):
        refuse(f"{name} certificate: {msg}")
    F, V, A = drift_model(problem, fail)
    d = problem.d
    v = rational(cert.data["v"])
    if V != flint.fmpq_mat(d, d, [v if i == j else 0 for i in range(d) for j in range(d)]):
        fail(f"V is not v·I for the stored v = {frac_str(v)}")
    R = (A + A.transpose()) * v
    B = qmat(cert.data["B"]) if cert.data.get("B") else None
    D = [rational(x) for x in cert.data.get("D", [])]
    return d, v, R, F, B, D


def nsd_setup(name, cert, problem):
    """(d, F) after :func:`vI_setup` and the check R = v(A + Aᵀ) ⪯ 0 (hypothesis ``R-nsd``).

    Parameters
    ----------
    name : str
        The kind, for the messages.
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate (``cert.data["v"]`` is read).
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem.

    Returns
    -------
    tuple of (int, flint.fmpq_mat)
        The dimension d and the drift F.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When a check of :func:`vI_setup` fails or R is not negative semidefinite.
    """
    d, _, R, F, _, _ = vI_setup(name, cert, problem)
    if not definiteness(R).nsd:
        refuse(f"{name} certificate: R = v(A + Aᵀ) is not negative semidefinite")
    return d, F


def square(name, what, M, d):
    """``M`` after checking that it is d×d.

    Parameters
    ----------
    name : str
        The kind, for the message.
    what : str
        The matrix's name, for the message.
    M : flint.fmpq_mat
        The matrix.
    d : int
        The dimension.

    Returns
    -------
    flint.fmpq_mat
        ``M``.
    """
    if M.nrows() != d or M.ncols() != d:
        refuse(f"{name} certificate: {what} is not a {d}×{d} matrix")
    return M


def check_factor(name, problem, B, D, zero=None):
    """D⁻¹ after checking Σ₀ = B·D·Bᵀ exactly (B of full column rank, D > 0).

    Parameters
    ----------
    name : str
        The kind, for the messages.
    problem : symbolic_tf.spec.problem.Problem
        The embedded problem (its Σ₀).
    B : flint.fmpq_mat or None
        The d×r factor.
    D : list of flint.fmpq
        The diagonal.
    zero : str or None
        Why Σ₀ = 0 (the empty factor) is refused; None to allow it.

    Returns
    -------
    flint.fmpq_mat
        D⁻¹ (r×r; 0×0 for the empty factor).
    """
    d = problem.d
    if problem.cov is None:  # a non-Gaussian initial law: no Σ₀ for a claim about this Σ₀
        refuse(f"{name} certificate: the embedded problem states no Gaussian Σ₀")
    S0 = problem.exact.Sigma0
    r = len(D)
    if r == 0:
        if all(S0[i, j] == 0 for i in range(d) for j in range(d)):
            if zero is None:
                return flint.fmpq_mat(0, 0)
            refuse(f"{name} certificate: Σ₀ = 0 (the empty factorisation): {zero}")
        refuse(f"{name} certificate: empty factorisation B·D·Bᵀ = 0 but Σ₀ ≠ 0")
    if B is None or B.nrows() != d or B.ncols() != r:
        refuse(f"{name} certificate: the factorisation's B is not a {d}×{r} matrix (r = len(D))")
    if any(x <= 0 for x in D):
        refuse(f"{name} certificate: the factorisation's D is not positive")
    Dm = flint.fmpq_mat(r, r, [D[i] if i == j else 0 for i in range(r) for j in range(r)])
    if B * Dm * B.transpose() != S0:
        refuse(f"{name} certificate: the factorisation B·D·Bᵀ ≠ Σ₀")
    if B.rank() != r:
        refuse(f"{name} certificate: the factorisation's B is not of full column rank")
    return flint.fmpq_mat(r, r, [1 / D[i] if i == j else 0 for i in range(r) for j in range(r)])


def is_zero(M) -> bool:
    """Whether every entry of ``M`` is 0.

    Parameters
    ----------
    M : flint.fmpq_mat
        The matrix.

    Returns
    -------
    bool
        M = 0.
    """
    return all(M[i, j] == 0 for i in range(M.nrows()) for j in range(M.ncols()))


def _arb(x):
    return flint.arb(x)


def W_enclosure(F, R, t):
    """Enclosure of W(t) = ∫₀ᵗ e^{Fᵀs} R e^{Fs} ds for a ball t (Van Loan block exponential).

    Parameters
    ----------
    F, R : flint.fmpq_mat
        The drift and R = v(Ã + Ãᵀ).
    t : flint.arb
        The time (a ball).

    Returns
    -------
    flint.arb_mat
        A ball matrix containing W(s) for every s in t.
    """
    n = R.nrows()
    with working_precision(192):
        H = flint.arb_mat(2 * n, 2 * n)
        for i in range(n):
            for j in range(n):
                H[i, j] = -_arb(F[j, i])
                H[i, n + j] = _arb(R[i, j])
                H[n + i, n + j] = _arb(F[i, j])
        E = (H * t).exp()
        top = flint.arb_mat(n, n, [E[i, n + j] for i in range(n) for j in range(n)])
        eFt = flint.arb_mat(n, n, [E[n + i, n + j] for i in range(n) for j in range(n)])
        return eFt.transpose() * top


def X_centred_enclosure(F, R, B, Dinv, a, b, U):
    """Mean-value enclosure of UᵀX(t)U for every t in [a, b], X(t) = D⁻¹ − BᵀW(t)B.

    X′(t) = −Bᵀe^{Fᵀt}Re^{Ft}B, so for m = (a + b)/2 and h = b − a

        UᵀX(t)U ∈ UᵀX(m)U + [−h/2, h/2]·UᵀX′([a, b])U.

    In a frame U near the eigenvectors of X the small diagonal entry then has a width of order
    h·|slope of λ_min| + O(h²), where the direct enclosure X([a, b]) pays h·‖X′‖ in every entry
    (a shallow crossing of λ_min needs thousands of times fewer pieces).

    Parameters
    ----------
    F, R, B, Dinv : flint.fmpq_mat
        The drift, R = v(Ã + Ãᵀ), the factor B and D⁻¹ of Σ₀ = BDBᵀ.
    a, b : flint.fmpq
        The piece, a < b.
    U : flint.fmpq_mat
        The frame (r×r, invertible: UᵀXU ≻ 0 ⟺ X ≻ 0).

    Returns
    -------
    flint.arb_mat
        A ball matrix containing UᵀX(t)U for every t in [a, b].
    """
    with working_precision(192):
        m, h2 = (a + b) / 2, (b - a) / 2
        Bb, Ub = ball_matrix(B), ball_matrix(U)
        Xm = ball_matrix(Dinv) - Bb.transpose() * W_enclosure(F, R, flint.arb(m)) * Bb
        E = (ball_matrix(F) * flint.arb(m, flint.arb(h2).upper())).exp()
        Xp = -(Bb.transpose() * E.transpose() * ball_matrix(R) * E * Bb)
        return Ub.transpose() * (Xm + Xp * flint.arb(0, flint.arb(h2).upper())) * Ub


def ball_matrix(M):
    """The exact matrix ``M`` as a ball matrix.

    Parameters
    ----------
    M : flint.fmpq_mat
        The matrix.

    Returns
    -------
    flint.arb_mat
        Its entries as balls (exact at the working precision's rounding).
    """
    return flint.arb_mat(M.nrows(), M.ncols(), [_arb(M[i, j]) for i in range(M.nrows()) for j in range(M.ncols())])
