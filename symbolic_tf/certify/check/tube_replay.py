"""Checker-side replay of a validated Taylor tube of the covariance flow (shared by the kinds
``blowup-taylor-lmi`` (:mod:`symbolic_tf.certify.check.kinds.blowup_taylor_lmi`) and ``tube-basin``
(:mod:`symbolic_tf.certify.check.kinds.tube_basin`)).

Independent of the search (:mod:`symbolic_tf.certify.search.validated.flow`): the procedures below are
part of the kinds' definitions and recomputed here with this module's own code.  The flow is

    Σ̇ = f(Σ) = FΣ + ΣFᵀ + Σ_h (C_h Σ A_h Σ + Σ A_hᵀ Σ C_hᵀ)

(F = None or 0 without drift).  In arb balls, from the exact S_0 = Σ₀ along the stored exact times
0 = t_0 < … < t_N, every step [t_{i−1}, t_i] of length h runs:

* the deterministic inflate-and-iterate Picard test S + [0, h]·f(X) ⊆ X (at most
  :data:`PICARD_ROUNDS` rounds, X ← Y + [±(rad(Y)/8 + |Y|·2^(−40) + |S|_max·2^(−60))]; a failure
  rejects the certificate), Y = S + [0, h]·f(X);
* the Lagrange remainder Z = h^{k+1}·σ_{k+1}(Y) and the order-k Taylor map T_k by the recurrence
  σ_{n+1} = (M_n + M_nᵀ)/(n+1), M_n = Fσ_n + Σ_h Σ_{j≤n} C_h σ_j A_h σ_{n−j};
* "direct": S ← T_k(S) + Z.  "qr": with the parallelepiped c + B·r ∋ svec Σ and the hull
  H = S ∪ {c}, svec Σ(t_i) ∈ W + ([DT_k](H)·B)·r, W = svec(T_k(c) + Z) (the Jacobian from the
  variational recurrence δM_n = Fδσ_n + Σ_h Σ_j (C_h δσ_j A_h σ_{n−j} + C_h σ_j A_h δσ_{n−j}),
  its orders above the first p with a majorant tail ε ≤ 2⁻²⁴ replaced by ±ε, :func:`jacobian_series`);
  c' = mid W, B' = the Q of a float Householder QR of mid([DT_k]B) (columns ordered by
  length·width(r); any invertible B' is sound), r' = (B'⁻¹[DT_k]B)·r + B'⁻¹(W − c') with a ball
  inverse of the exact point matrix B', and S ← box(c' + B'r') ∩ (T_k(H) + Z).

Hence the solution exists on [0, t_N] and Σ(t_i) ∈ S_i for every i.

**The eigenframe** (:func:`lagrange_remainder`, :mod:`~symbolic_tf.certify.check.frame`).  The a
priori test and the remainder Z are computed for the rotated flow (heads QᵀC_hQ, QᵀA_hQ, drift QᵀFQ)
from the rotated box QᵀSQ — Q an exact rational orthogonal matrix near the eigenvectors of mid(S) —
and mapped back, Z = Q Z' Qᵀ: the change of variables Σ = QΣ'Qᵀ maps solutions to solutions and
Taylor coefficients covariantly, so this is the same enclosure argument in other coordinates, and it
keeps the cancellations of a nearly singular Σ that an entrywise box loses.  Any orthogonal Q is
sound, so the checker chooses its own.

**The high-order a priori enclosure** (``apriori="taylor"``, for the tubes whose certificate asks
for it).  The first-order Picard test needs h·‖∂f‖ ≲ 1 over the box, which caps the step far
below the accuracy of an order-k Taylor step where the flow is slow but its Jacobian large.
Instead, with P(S, J) = Σ_{n≤k} σ_n(S)·Jⁿ (J = [0, h], interval Horner; S is the box, or in
"qr" its hull with the parallelepiped's centre, whose coefficients the step computes anyway) and
the same deterministic inflate-and-iterate rounds, find X with

    P(S, J) + J^{k+1}·σ_{k+1}(X) ⊂ int X   (entrywise, ``arb.contains_interior``);

the Lagrange remainder is then Z = h^{k+1}·σ_{k+1}(X).  *Why.*  For y₀ ∈ S let t* be the largest
t ≤ h such that the solution exists on [0, t] with values in X (the set of such t is closed: f is
polynomial and X compact).  For t ≤ t*, each component of y(t) is its order-k Taylor polynomial
at 0 plus the Lagrange term tᵏ⁺¹·σ_{k+1}(y(ξ)) (ξ ∈ (0, t); the (k+1)-th coefficient of the
autonomous flow at y(ξ) ∈ X), so y(t) ∈ P(S, J) + J^{k+1}σ_{k+1}(X) ⊂ int X.  At t = 0 this puts
y₀ in int X, and if t* < h the solution stays in X a little beyond t* — so t* = h: the solution
exists on [0, h], stays in X, and its remainder at h lies in Z.  (Strictness matters: with a
non-strict inclusion the argument does not exclude leaving X through its boundary.)
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint

from ...exact.ball import arb_lower, arb_upper
from ...exact.definiteness import definiteness
from ...exact.precision import working_precision
from ...exact.rational import fmpq_of, frac_str
from .claims import Claim, Quantifier
from .frame import eigen_frame
from .krawczyk_box import initial_cov, rat

__all__ = ["TUBE_ORDER", "TUBE_STEPS", "PICARD_ROUNDS", "Field", "ball_flow", "flow_pairs", "tube_problem", "bracket_claim", "replay_stored", "replay_tube", "walk_tube", "replay_step", "lagrange_remainder", "start_state", "TubeState",
           "cauchy_sum", "svec_basis", "svec_pairs", "int_in", "step_range", "jacobian_series",
           "jacobian_terms", "JACOBIAN_TAIL", "norm_f", "trace"]

#: the budget of a stored point tube: its Taylor order and number of steps (a hostile certificate
#: cannot make the replay hang)
TUBE_ORDER, TUBE_STEPS = 60, 50_000

PICARD_ROUNDS = 12  # part of the kinds' definitions (the search runs the same procedure)




def flow_pairs(problem, fail):
    """Exact ([(C_h, A_h)], F or None) of an embedded (multi-head) softmax problem's covariance flow:
    C = V, or C_h = W_hV_h per head; A_h scaled by the temperature; F the drift (None if absent or
    zero; the bias b does not enter the covariance).  ``fail(message)`` must raise.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    tuple of (list of (flint.fmpq_mat, flint.fmpq_mat), flint.fmpq_mat or None)
        ([(C_h, A_h)], F).
    """
    from ...exact.rational import qmat
    from ...spec.errors import InvalidParameters
    from .flows import quadratic_heads

    if problem is None:
        fail("needs an embedded problem")
    try:
        pairs = quadratic_heads(problem)
    except InvalidParameters as exc:
        fail(exc.reason)
    F = None
    if problem.F is not None and any(e != 0 for row in problem.F for e in row):
        F = problem.exact.F
    return pairs, F


def tube_problem(cert, problem, fail, max_d=None, psd=False):
    """The common preconditions of the tube kinds: status PROVED, an embedded (multi-head) softmax
    problem (:func:`flow_pairs`), d ≤ ``max_d``, an exact symmetric Σ₀ (and Σ₀ ⪰ 0 when ``psd``).

    Parameters
    ----------
    cert : symbolic_tf.certify.check.certificate.Certificate
        The certificate.
    problem : symbolic_tf.spec.problem.Problem or None
        The embedded problem.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    max_d : int or None
        The largest admissible dimension (None: no limit here).
    psd : bool
        Whether Σ₀ must be positive semidefinite (decided exactly).

    Returns
    -------
    tuple of (list of (flint.fmpq_mat, flint.fmpq_mat), flint.fmpq_mat or None, flint.fmpq_mat)
        ([(C_h, A_h)], F, Σ₀).
    """
    if cert.status != "PROVED":
        fail("status must be PROVED")
    pairs, F = flow_pairs(problem, fail)
    if max_d is not None and problem.d > max_d:
        fail(f"d ≤ {max_d} only")
    S0 = initial_cov(problem, fail)
    if psd and not definiteness(S0).psd:
        fail("Σ₀ is not positive semidefinite")
    return pairs, F, S0


def bracket_claim(data, lo, hi, fail):
    """The BLOWUP claim for THIS Σ₀ with the stored bracket [T_lo, T_hi], after checking that it
    contains the derived one: T_lo ≤ T_hi, T_lo ≤ lower(lo) and T_hi ≥ upper(hi) (exact rational comparisons
    with the balls' end points).

    Parameters
    ----------
    data : dict
        The certificate's data (``T_lo``, ``T_hi``).
    lo, hi : flint.arb
        The derived lower and upper bounds of the blow-up time T*.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    symbolic_tf.certify.check.claims.Claim
        ``Claim("BLOWUP", THIS, {"T_lo", "T_hi"})``.
    """
    T_lo, T_hi = rat(data["T_lo"]), rat(data["T_hi"])
    if not (T_lo <= T_hi):
        fail("T_lo > T_hi")
    # exact rational comparison: a ball of T_lo at the context's precision could be wider than the bracket
    if not (T_lo <= arb_lower(lo) and T_hi >= arb_upper(hi)):
        fail("the stored bracket [T_lo, T_hi] does not contain the derived one")
    return Claim("BLOWUP", Quantifier.THIS, {"T_lo": frac_str(data["T_lo"]),
                                             "T_hi": frac_str(data["T_hi"])})


def int_in(x, name, lo, hi, fail):
    """x if it is an integer (not a bool) in [lo, hi], else ``fail``.

    Parameters
    ----------
    x : object
        The stored value.
    name : str
        Its name, for the failure message.
    lo, hi : int
        The inclusive range.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    int
        ``x`` itself.
    """
    if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
        fail(f"{name} must be an integer in [{lo}, {hi}], got {str(x)[:40]!r}")
    return x


def replay_point_tube(pairs, F, S0, data, fail):
    """The end-test precision ``prec`` (64…4096 bits) and the stored tube of a point certificate
    replayed from its exact Σ₀ within the point tubes' budget (:data:`TUBE_ORDER`,
    :data:`TUBE_STEPS`): the opening every point-tube kind shares.

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The exact heads (C_h, A_h).
    F : flint.fmpq_mat or None
        The exact drift.
    S0 : flint.fmpq_mat
        The exact Σ₀.
    data : dict
        The certificate's data (``prec`` and the stored tube).
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed`.

    Returns
    -------
    tuple of (int, flint.arb_mat, list of flint.fmpq)
        ``prec``, the end box S_N ∋ Σ(t_N) and the exact times.
    """
    prec = int_in(data["prec"], "prec", 64, 4096, fail)
    S_end, ts = replay_stored(pairs, F, S0, data, fail, TUBE_ORDER, TUBE_STEPS)
    return prec, S_end, ts


def replay_stored(pairs, F, S0, data, fail, max_order: int = 60, max_steps: int = 50_000, initial=None,
                  on_state=None):
    """Validate a certificate's stored tube (``steps``: exact times from 0, strictly increasing;
    ``order``; ``tube_prec``; ``method``) and replay it from the exact Σ₀ (:func:`replay_tube` at
    ``tube_prec`` bits).  Returns (the end box S_N, the exact times).

    Parameters
    ----------
    pairs : list of (flint.fmpq_mat, flint.fmpq_mat)
        The exact heads (C_h, A_h).
    F : flint.fmpq_mat or None
        The exact drift.
    S0 : flint.fmpq_mat or flint.arb_mat
        The exact Σ₀ (with ``initial``: a ball box containing the set of initial values).
    data : dict
        The certificate's data (``steps``, ``order``, ``tube_prec``, ``method``).
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    max_order : int
        The largest admissible Taylor order k.
    max_steps : int
        The largest admissible number of steps N.
    initial : tuple or None
        An initial parallelepiped for a set of Σ₀ (:func:`replay_tube`); ``S0`` is then its enclosing box.
    on_state : callable or None
        ``on_state(t_i, state)`` after each step and at t_0, with the :class:`TubeState` (:func:`replay_tube`).

    Returns
    -------
    tuple of (flint.arb_mat, list of flint.fmpq)
        The end box S_N ∋ Σ(t_N) and the exact times t_0 = 0 < … < t_N.
    """
    order = int_in(data["order"], "order", 1, max_order, fail)
    tprec = int_in(data["tube_prec"], "tube_prec", 53, 4096, fail)
    steps = data["steps"]
    if not isinstance(steps, list) or not steps or len(steps) > max_steps + 1:
        fail(f"steps must be a list of 1..{max_steps + 1} times")
    ts = []
    for x in steps:
        q = Fraction(x)
        ts.append(fmpq_of(q))
    if ts[0] != 0:
        fail("the first step time must be 0")
    if any(b <= a for a, b in zip(ts, ts[1:])):
        fail("step times must be strictly increasing")
    with working_precision(tprec):
        return replay_tube(Field(pairs, F), S0, ts, order, data["method"], fail, initial=initial, on_state=on_state), ts


def _acc(total, term):
    return term if total is None else total + term


def cauchy_sum(left, right, n, start=None):
    """``start`` + Σ_{j≤n} Σ_h left[j][h]·right[n−j]: the n-th coefficient of a product of two
    series of matrices (the left one given per head), summed in the order j, then h.

    One list of products and one ``sum``: the same operations in the same order as a loop of
    ``acc = acc + term``, with a quarter less Python overhead (the recurrences call this O(k) times
    per Taylor step).

    Parameters
    ----------
    left : list of list of flint.arb_mat
        left[j] = the heads' j-th left coefficients.
    right : list of flint.arb_mat
        The right coefficients, at least n + 1 of them.
    n : int
        The order.
    start : flint.arb_mat or None
        The term the sum starts from (None: the first product).

    Returns
    -------
    flint.arb_mat
        The sum.
    """
    terms = [L * right[n - j] for j in range(n + 1) for L in left[j]]
    return sum(terms, start) if start is not None else sum(terms[1:], terms[0])


def ball_flow(pairs, F=None) -> tuple:
    """A flow's exact pairs and drift with their arb balls (an all-zero drift is None).

    Parameters
    ----------
    pairs : list of (matrix, matrix)
        Exact (C_h, A_h).
    F : matrix or None
        The exact drift.

    Returns
    -------
    tuple
        (exact pairs as fmpq_mat, pairs as arb_mat, exact F or None, F as arb_mat or None).
    """
    none = F is None or all(e == 0 for e in F.entries())
    return ([(flint.fmpq_mat(C), flint.fmpq_mat(A)) for C, A in pairs],
            [(flint.arb_mat(C), flint.arb_mat(A)) for C, A in pairs],
            None if none else flint.fmpq_mat(F), None if none else flint.arb_mat(F))


class Field:
    """The covariance vector field and its Taylor and variational recurrences in arb balls;
    ``pairs`` are exact (C_h, A_h) matrices, ``F`` an exact matrix or None (all-zero: None)."""

    def __init__(self, pairs, F=None):
        self.exact_pairs, self.pairs, self.exact_F, self.F = ball_flow(pairs, F)
        self._ops = {}

    def frame(self, box):
        """The eigenframe of ``box`` for a step's a priori enclosure and remainder
        (:func:`~symbolic_tf.certify.check.frame.eigen_frame`), or None.

        Parameters
        ----------
        box : flint.arb_mat
            The step's starting box.

        Returns
        -------
        symbolic_tf.certify.check.frame.Frame or None
            The frame.
        """
        return eigen_frame(box)

    def _start(self, X):
        return None if self.F is None else self.F * X

    @staticmethod
    def vec(X):
        """The coordinates of the replay's parallelepiped: svec-upper of the symmetric X.

        Parameters
        ----------
        X : flint.arb_mat
            A symmetric d×d ball matrix.

        Returns
        -------
        flint.arb_mat
            The m×1 column, m = d(d+1)/2.
        """
        return _to_svec(X)

    @staticmethod
    def unvec(v, like):
        """The symmetric matrix with svec-upper coordinates v (the inverse of :meth:`vec`).

        Parameters
        ----------
        v : flint.arb_mat
            An m×1 column.
        like : flint.arb_mat
            A matrix of the result's size.

        Returns
        -------
        flint.arb_mat
            The symmetric matrix.
        """
        return _from_svec(v, like.nrows())

    def __call__(self, X):
        acc = self._start(X)
        for C, A in self.pairs:
            acc = _acc(acc, C * X * A * X)
        return acc + acc.transpose()

    def coefficients(self, X, upto):
        """Taylor coefficients 0..upto of the solution through X.

        The recurrence σ₀ = X, σ_{n+1} = (M_n + M_nᵀ)/(n + 1), M_n = Fσ_n + Σ_h Σ_{j≤n} C_hσ_jA_hσ_{n−j}.

        Parameters
        ----------
        X : flint.arb_mat
            The (ball) point the solution passes through.
        upto : int
            The highest order.

        Returns
        -------
        list of flint.arb_mat
            [σ₀, …, σ_upto].
        """
        out = [X]
        left = []   # left[j][h] = C_h σ_j A_h
        for n in range(upto):
            left.append([C * out[n] * A for C, A in self.pairs])
            acc = cauchy_sum(left, out, n, self._start(out[n]))
            out.append((acc + acc.transpose()) / (n + 1))
        return out

    def operators(self, d):
        """Exact linear maps of the variational recurrence as arb matrices at the working precision.

        Parameters
        ----------
        d : int
            The dimension (cached per (d, working precision)).

        Returns
        -------
        tuple of (flint.arb_mat, flint.arb_mat or None)
            ``lin`` (m²×m) with rows-of-Op(Y) = lin·svec(Y), where Op(Y) is the svec matrix of
            E ↦ Σ_h (C_h E A_h Y + C_h Y A_h E) + transpose (= DQ(Y)[E]), and ``drift`` the svec matrix
            of E ↦ FE + EFᵀ (None without drift).
        """
        key = (d, flint.ctx.prec)
        if key not in self._ops:
            dirs = svec_basis(d, flint.fmpq_mat)
            up = _upper(d)
            m = len(dirs)
            lin = flint.fmpq_mat(m * m, m)
            for f, Ef in enumerate(dirs):
                for c, Ec in enumerate(dirs):
                    acc = None
                    for C, A in self.exact_pairs:
                        acc = _acc(acc, C * Ec * A * Ef + C * Ef * A * Ec)
                    sym = acc + acc.transpose()
                    for r, (i, j) in enumerate(up):
                        lin[r * m + c, f] = sym[i, j]
            drift = None
            if self.exact_F is not None:
                drift = flint.fmpq_mat(m, m)
                for c, Ec in enumerate(dirs):
                    sym = self.exact_F * Ec + Ec * self.exact_F.transpose()
                    for r, (i, j) in enumerate(up):
                        drift[r, c] = sym[i, j]
                drift = flint.arb_mat(drift)
            self._ops[key] = (flint.arb_mat(lin), drift)
        return self._ops[key]

    # search/validated/flow.py has a float twin of this recursion: it stays apart (the checker never imports the search)
    def jacobian(self, sig, h):
        """svec Jacobian of the order-k Taylor map over the box sig[0]: with D_0 = I,
        D_{n+1} = (drift·D_n + Σ_{j≤n} Op(σ_{n−j})·D_j)/(n + 1), the result is Σ_n D_n hⁿ
        (:func:`jacobian_series` with G_0 = Op(σ_0) + drift, G_j = Op(σ_j)).

        Parameters
        ----------
        sig : list of flint.arb_mat
            The Taylor coefficients σ₀..σ_k over the box (from :meth:`coefficients`).
        h : flint.arb
            The step length.

        Returns
        -------
        flint.arb_mat
            The m×m ball Jacobian [DT_k] in svec coordinates, m = d(d+1)/2.
        """
        d = sig[0].nrows()
        lin, drift = self.operators(d)
        m = lin.ncols()
        k = len(sig) - 1
        G = [flint.arb_mat(m, m, (lin * _to_svec(s)).entries()) for s in sig[:k]]
        if drift is not None:
            G[0] = G[0] + drift
        return jacobian_series(G, h)


#: the tail Σ_{p<n≤k} D_n hⁿ of :func:`jacobian_series` is bounded by a majorant once it is below this.
#: ε only widens the Jacobian that multiplies the parallelepiped's coordinates (relative size ≲ 10⁻¹²),
#: so 2⁻²⁴ costs nothing measurable in width; against 2⁻³² it stops most projective steps at p = 9 instead
#: of 12–15 (measured on the general-V set: seed 1 #52 21.0 → 16.9 s, seed 0 #53 2.7 → 2.5 s, the same
#: steps and end widths)
JACOBIAN_TAIL = flint.fmpq(1, 2 ** 24)


def norm_f(M):
    """An exact upper bound of the Frobenius norm of every point matrix in the ball matrix M
    (submultiplicative, and a bound of every entry's modulus); +inf when it is not finite.

    Parameters
    ----------
    M : flint.arb_mat
        The ball matrix.

    Returns
    -------
    flint.arb
        The bound.
    """
    sq = trace(M.transpose() * M)
    if not sq.is_finite():
        return flint.arb("inf")
    return flint.arb(flint.arb(sq.upper()).sqrt().upper())


def trace(M):
    """tr M of a square arb or fmpq matrix.

    Parameters
    ----------
    M : flint.arb_mat or flint.fmpq_mat
        The matrix.

    Returns
    -------
    flint.arb or flint.fmpq
        The sum of its diagonal entries.
    """
    acc = M[0, 0]
    for i in range(1, M.nrows()):
        acc = acc + M[i, i]
    return acc


def jacobian_series(G, h):
    """An enclosure of J = Σ_{n=0}^{k} D_n hⁿ, where D_0 = I and D_{n+1} = Σ_{j≤n} G_j D_{n−j}/(n + 1)
    (k = len(G)): the Jacobian of an order-k Taylor map whose variational field has the Taylor
    coefficients G_j.  Part of the kinds' definitions (the search calls the same function).

    The D_n are computed in balls for n ≤ p and the rest is bounded by a majorant
    (:func:`jacobian_terms`), so J ∈ Σ_{n≤p} D_n hⁿ + [±ε] entrywise.

    Parameters
    ----------
    G : list of flint.arb_mat
        G_0, …, G_{k−1}, square, of one size.
    h : flint.arb
        The step length.

    Returns
    -------
    flint.arb_mat
        The ball Jacobian.
    """
    D, eps = jacobian_terms(G, h)
    J = _poly(D, h)
    if eps == 0:
        return J
    rad = flint.arb(0, eps.upper())
    return flint.arb_mat(J.nrows(), J.ncols(), [x + rad for x in J.entries()])


def jacobian_terms(G, h, norms=None):
    """The terms D_0, …, D_p of :func:`jacobian_series` in balls, and ε with
    ‖Σ_{p<n≤k} D_n hⁿ‖_F ≤ Σ_{p<n≤k} ‖D_n‖_F|h|ⁿ ≤ ε.

    With g_j ≥ ‖G_j‖_F and δ_n ≥ ‖D_n‖_F (the computed balls' bound for n ≤ p),
    δ_{n+1} = Σ_{j≤n} g_jδ_{n−j}/(n + 1) bounds ‖D_{n+1}‖_F by induction (the Frobenius norm is
    submultiplicative), and every entry of a matrix is at most its Frobenius norm in modulus.  p is
    the first of the orders 6, 9, 12, 15 with ε ≤ :data:`JACOBIAN_TAIL`, else p = k and ε = 0.
    The tail only widens the ball Jacobian, which multiplies the parallelepiped's (tiny) coordinates
    in Lohner's step, so a small ε costs nothing measurable; the saving is the O(k²) matrix
    products of the orders above p.

    Parameters
    ----------
    G : sequence of flint.arb_mat
        G_0, …, G_{k−1}, square, of one size (any object with ``len`` and indexing: G_j is read
        only for j ≤ p, so a lazy sequence saves building the others).
    h : flint.arb
        The step length.
    norms : list of flint.arb or None
        Upper bounds g_j ≥ ‖G_j‖_F of every point matrix in G_j (default: the balls' bounds).

    Returns
    -------
    tuple of (list of flint.arb_mat, flint.arb)
        [D_0, …, D_p] and the exact bound ε (0 when p = k).
    """
    k = len(G)
    D = [_identity(G[0].nrows())]
    g, delta = norms, [flint.arb(G[0].nrows()).sqrt()]
    habs = flint.arb(abs(h).upper())
    for n in range(k):
        if n in _TAIL_TRIES:
            if g is None:
                g = [norm_f(G[j]) for j in range(k)]
            delta.extend(norm_f(Dn) for Dn in D[len(delta):])
            eps = _majorant_tail(g, delta, habs)
            if eps <= JACOBIAN_TAIL:
                return D, eps
        acc = G[0] * D[n]
        for j in range(1, n + 1):
            acc += G[j] * D[n - j]
        D.append(acc / (n + 1))
    return D, flint.arb(0)


_TAIL_TRIES = (6, 9, 12, 15)   # the orders p at which jacobian_terms tries the majorant tail


def _majorant_tail(g, delta, habs):
    """ε = Σ_{p<n≤k} δ_n|h|ⁿ with δ_0..δ_p given and δ_{n+1} = Σ_{j≤n} g_jδ_{n−j}/(n + 1) beyond
    (:func:`jacobian_series`); an exact arb upper bound (+inf when a norm is infinite)."""
    k = len(g)
    delta = list(delta)
    eps = flint.arb(0)
    hp = habs ** len(delta)
    for n in range(len(delta) - 1, k):
        nxt = flint.arb(0)
        for j in range(n + 1):
            nxt += g[j] * delta[n - j]
        delta.append(nxt / (n + 1))
        eps += delta[-1] * hp
        hp = hp * habs
    if not eps.is_finite():
        return flint.arb("inf")
    return flint.arb(eps.upper())


def _poly(coeffs, h):
    """Σ_n coeffs[n]·h^n by Horner's rule (highest coefficient first)."""
    value = coeffs[len(coeffs) - 1]
    for n in reversed(range(len(coeffs) - 1)):
        value = value * h + coeffs[n]
    return value


def _upper(d):
    return [(i, j) for i in range(d) for j in range(i, d)]


def _to_svec(X):
    upper = _upper(X.nrows())
    return flint.arb_mat(len(upper), 1, [X[i, j] for i, j in upper])


def _from_svec(v, d):
    X = flint.arb_mat(d, d)
    for k, (i, j) in enumerate(_upper(d)):
        X[i, j] = v[k, 0]
        X[j, i] = v[k, 0]
    return X


def svec_pairs(d):
    """The svec-upper coordinates (i, j), i ≤ j, row-major: the coordinate of X on E_ij + E_ji is X_ij.

    Parameters
    ----------
    d : int
        The dimension.

    Returns
    -------
    list of (int, int)
        The m = d(d+1)/2 index pairs.
    """
    return _upper(d)


def svec_basis(d, mat=flint.arb_mat):
    """svec basis matrices E_k (``mat``: arb_mat or fmpq_mat), E_ii = e_ie_iᵀ, E_ij = e_ie_jᵀ + e_je_iᵀ (i < j).

    Parameters
    ----------
    d : int
        The dimension.
    mat : type
        The matrix type to build (``flint.arb_mat`` or ``flint.fmpq_mat``).

    Returns
    -------
    list
        The m = d(d+1)/2 basis matrices, in :func:`svec_pairs` order.
    """
    out = []
    for i, j in _upper(d):
        E = mat(d, d)
        E[i, j] = 1
        E[j, i] = 1
        out.append(E)
    return out


def _reflect_q(M):
    """Q of the Householder QR of a square float matrix (the search's deterministic procedure:
    reflections on rows k.., accumulated into Q from the right)."""
    m = len(M)
    R = [list(row) for row in M]
    Q = [[float(i == j) for j in range(m)] for i in range(m)]
    for k in range(m - 1):
        col = [R[i][k] for i in range(k, m)]
        norm = math.sqrt(sum(x * x for x in col))
        if norm == 0.0:
            continue
        u = col[:]
        u[0] -= -norm if col[0] >= 0 else norm
        uu = sum(x * x for x in u)
        if uu == 0.0:
            continue
        size = m - k
        for j in range(m):
            f = 2.0 * sum(u[i] * R[k + i][j] for i in range(size)) / uu
            for i in range(size):
                R[k + i][j] -= f * u[i]
        for i in range(m):
            f = 2.0 * sum(Q[i][k + l] * u[l] for l in range(size)) / uu
            for l in range(size):
                Q[i][k + l] -= f * u[l]
    return Q


def _identity(m):
    return flint.arb_mat([[int(i == j) for j in range(m)] for i in range(m)])


def _new_basis(A, r):
    """Lohner's QR basis: columns of mid(A) ordered by decreasing length·width(r_j), Q of their
    QR as an exact point matrix, and a ball enclosure of its inverse (identity if singular)."""
    m = A.nrows()
    Af = [[float(A[i, j].mid()) for j in range(m)] for i in range(m)]
    width = [float(r[j, 0].rad()) + abs(float(r[j, 0].mid())) for j in range(m)]
    weight = [math.sqrt(sum(Af[i][j] ** 2 for i in range(m))) * width[j] for j in range(m)]
    order = sorted(range(m), key=lambda j: (-weight[j], j))
    Q = _reflect_q([[Af[i][j] for j in order] for i in range(m)])
    if any(not math.isfinite(x) for row in Q for x in row):
        Q = [[float(i == j) for j in range(m)] for i in range(m)]
    B = flint.arb_mat(Q)
    try:
        return B, B.inv()
    except ZeroDivisionError:
        return _identity(m), _identity(m)


def _entries(X):
    n = X.nrows()
    return [(i, j) for i in range(n) for j in range(n)]


def _setup(S, h):
    """(J = [0, h], the entry indices, the absolute inflation 2⁻⁶⁰·max|S|) of an a priori test."""
    J = h.upper() * flint.arb(flint.fmpq(1, 2), flint.fmpq(1, 2))
    idx = _entries(S)
    top = max(abs(S[i, j]).upper() for i, j in idx)
    return J, idx, top * flint.arb(2) ** -60


def _inflated(Y, idx, tiny_abs):
    """One deterministic inflation round: Y + [±(rad(Y)/8 + |Y|·2⁻⁴⁰ + tiny_abs)] entrywise."""
    X = flint.arb_mat(Y.nrows(), Y.ncols())
    eighth = flint.fmpq(1, 8)
    for i, j in idx:
        e = Y[i, j]
        widen = e.rad() * eighth + abs(e.mid()) * flint.arb(2) ** -40 + tiny_abs
        X[i, j] = e + flint.arb(0, widen.upper())
    return X


def _picard(field, S, h):
    """Deterministic Picard test; returns Y = S + [0,h]·f(X) with S + [0,h]·f(X) ⊆ X, or None."""
    J, idx, tiny_abs = _setup(S, h)
    Y = S + field(S) * J
    for _ in range(PICARD_ROUNDS):
        X = _inflated(Y, idx, tiny_abs)
        Y = S + field(X) * J
        if any(not Y[i, j].is_finite() for i, j in idx):
            return None
        if all(X[i, j].contains(Y[i, j]) for i, j in idx):
            return Y
    return None


def step_range(field, S, h, order):
    """An enclosure of the whole step: every solution from the box S over [0, h].

    With Y the Picard box of :func:`_picard` (S + [0, h]·f(X) ⊆ X, so every solution from S stays in
    X on [0, h]), each component of y(s), s ∈ [0, h], is its order-k Taylor polynomial at 0 plus
    the Lagrange term s^{k+1}·σ_{k+1}(y(ξ)), y(ξ) ∈ Y: y(s) ∈ P(S, [0, h]) + [0, h]^{k+1}·σ_{k+1}(Y)
    (interval Horner over J = [0, h]) — far tighter than Y over a step on which the flow moves.

    Parameters
    ----------
    field : Field
        The vector field.
    S : flint.arb_mat
        The box at the start of the step.
    h : flint.arb
        The exact step length.
    order : int
        The Taylor order k.

    Returns
    -------
    flint.arb_mat or None
        The enclosure, or None when the Picard test fails on this step.
    """
    J = _setup(S, h)[0]
    sig = field.coefficients(S, order)
    remainder = lagrange_remainder(field, S, S, sig, J, order, "picard")
    return None if remainder is None else _poly(sig, J) + remainder


def lagrange_remainder(field, box, base, sig, h, order, apriori="picard"):
    """An enclosure of the Lagrange remainder h^{k+1}·σ_{k+1}(y(ξ)) of a step of length h (an exact
    arb, or the interval [0, h] for a whole-step range) from every point of ``box``: the a priori
    enclosure (``apriori`` "picard" from ``box``, or "taylor" from the coefficients ``sig`` over
    ``base``, module docstring) and the (k+1)-th coefficient over it — computed in the eigenframe
    of the box when the field has one (:meth:`Field.frame`, :mod:`~symbolic_tf.certify.check.frame`:
    R = TR'Tᵀ), else in the field's own coordinates; None when the a priori test fails.

    Parameters
    ----------
    field : Field
        The vector field (any object with ``__call__`` and ``coefficients``; with a ``frame``
        method it also has ``exact_pairs``, ``exact_F`` and the constructor ``(pairs, F)``).
    box : flint.arb_mat
        The enclosure at the start of the step.
    base : flint.arb_mat
        The box of ``sig`` (``box``, or in "qr" its hull with the parallelepiped's centre).
    sig : list of flint.arb_mat
        The Taylor coefficients σ_0..σ_k over ``base``.
    h : flint.arb
        The step length, or the interval [0, h].
    order : int
        The Taylor order k.
    apriori : str
        ``"picard"`` or ``"taylor"``.

    Returns
    -------
    flint.arb_mat or None
        The remainder's enclosure.
    """
    frame = field.frame(box) if hasattr(field, "frame") else None
    if frame is not None:   # the same field class, of the rotated exact heads and drift
        field = type(field)(frame.pairs(field.exact_pairs), frame.drift(field.exact_F))
        box, base, sig = frame.to(box), frame.to(base), [frame.to(s) for s in sig]
    if apriori == "taylor":
        found = _taylor_apriori(field, base, sig, h)
        if found is None:
            return None
        Z = found[1] * h ** (order + 1)
    else:
        Y = _picard(field, box, h)
        if Y is None:
            return None
        Z = field.coefficients(Y, order + 1)[order + 1] * h ** (order + 1)
    return Z if frame is None else frame.back(Z)


def _taylor_apriori(field, S, sig, h):
    """High-order a priori enclosure (module docstring, "taylor"): (X, σ_{k+1}(X)) with
    P(S, [0,h]) + [0,h]^{k+1}·σ_{k+1}(X) in the interior of X entrywise, where P is the order-k
    Taylor polynomial with the coefficients ``sig`` = σ_0..σ_k over the box S; or None.  The same
    deterministic inflate-and-iterate rounds as :func:`_picard`."""
    q = len(sig)
    J, idx, tiny_abs = _setup(S, h)
    P = _poly(sig, J)
    Jq = J ** q
    Y = P
    for _ in range(PICARD_ROUNDS):
        X = _inflated(Y, idx, tiny_abs)
        sq = field.coefficients(X, q)[q]
        Y = P + sq * Jq
        if any(not Y[i, j].is_finite() for i, j in idx):
            return None
        if all(X[i, j].contains_interior(Y[i, j]) for i, j in idx):
            return X, sq
    return None


def _approx(q) -> str:
    try:
        return f"{int(q.p) / int(q.q):.17g}"
    except OverflowError:
        return str(q)


def replay_tube(field, S0, ts, order, method, fail, on_step=None, initial=None, on_state=None):
    """The enclosure (arb_mat) of Σ(t_N) from the exact Σ₀ (fmpq_mat) along the exact times ``ts``
    (fmpq, ts[0] = 0), replayed at the current working precision as the kinds define it.  Calls
    ``on_step(t_i, S_i)`` for i = 0..N (S_0 = Σ₀) and ``fail(message)`` (which must raise) when a
    step does not validate.

    Parameters
    ----------
    field : Field
        The vector field (:class:`Field`, or any object with the same methods: ``__call__``,
        ``coefficients``, ``jacobian``, ``vec``, ``unvec``).
    S0 : flint.fmpq_mat or flint.arb_mat
        The exact Σ₀ (with ``initial``: a ball box containing the set of initial values).
    ts : list of flint.fmpq
        The exact times, ts[0] = 0, strictly increasing.
    order : int
        The Taylor order k.
    method : str
        ``"direct"`` or ``"qr"`` (the parallelepiped with a QR basis).
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).
    on_step : callable or None
        ``on_step(t_i, S_i)`` called after each step (and at t_0).
    initial : tuple or None
        ("qr") a parallelepiped (center, basis, coords), vec Σ₀ ∈ center + basis·coords, for a *set* of
        initial values contained in the box ``S0``; default: S0's midpoint, I and S0 − midpoint.
    on_state : callable or None
        ``on_state(t_i, state)`` with the whole :class:`TubeState` (box and parallelepiped), like ``on_step``.

    Returns
    -------
    flint.arb_mat
        The box S_N ∋ Σ(t_N).
    """
    def step_failed(i, why):
        fail(_STEP_FAILURES[why].format(i=i, a=_approx(ts[i - 1]), b=_approx(ts[i])))

    return walk_tube(field, start_state(field, S0, initial), ts, order, method, step_failed, on_step, on_state)


def walk_tube(field, state, ts, order, method, step_failed, on_step=None, on_state=None, apriori="picard"):
    """The end box of a tube replayed step by step from ``state`` along the exact times ``ts``.

    Parameters
    ----------
    field : Field
        The vector field (or any object with its methods).
    state : TubeState
        The state at ts[0] (:func:`start_state`).
    ts : list of flint.fmpq
        The exact times, strictly increasing.
    order : int
        The Taylor order k.
    method : str
        ``"direct"`` or ``"qr"``.
    step_failed : callable
        ``step_failed(i, why)`` raises when step i does not validate (``why``: :func:`replay_step`'s reason).
    on_step, on_state : callable or None
        Called as ``on_step(t_i, box)`` and ``on_state(t_i, state)`` for i = 0..N.
    apriori : str
        The steps' a priori enclosure (:func:`replay_step`).

    Returns
    -------
    flint.arb_mat
        The box at ts[-1].
    """
    if on_step is not None:
        on_step(ts[0], state.box)
    if on_state is not None:
        on_state(ts[0], state)
    for i in range(1, len(ts)):
        step = replay_step(field, state, flint.arb(ts[i] - ts[i - 1]), order, method, apriori)
        if isinstance(step, str):
            step_failed(i, step)
        state = step
        if on_step is not None:
            on_step(ts[i], state.box)
        if on_state is not None:
            on_state(ts[i], state)
    return state.box


_STEP_FAILURES = {
    "picard": "the a priori (Picard) enclosure fails on step {i} [{a}, {b}]",
    "disjoint": "step {i}: the parallelepiped and the direct enclosure are disjoint",
    "infinite": "the enclosure is not finite after step {i}",
}


class TubeState:
    """One enclosure of a replayed tube: the box, and ("qr") the parallelepiped center + basis·coords
    (in the field's ``vec`` coordinates) that it intersects; ``remainder`` is the Lagrange remainder
    of the step that produced it (None at the start)."""

    def __init__(self, box, center, basis, coords, remainder=None):
        self.box, self.center, self.basis, self.coords = box, center, basis, coords
        self.remainder = remainder


def start_state(field, S0, initial=None):
    """The :class:`TubeState` at the start: the box S0 and the parallelepiped ``initial`` or
    (S0's midpoint, I, S0 − midpoint).

    Parameters
    ----------
    field : Field
        The vector field (its ``vec`` coordinates).
    S0 : flint.fmpq_mat or flint.arb_mat
        The initial box.
    initial : tuple or None
        A parallelepiped (center, basis, coords) containing the initial set, or None.

    Returns
    -------
    TubeState
        The initial state.
    """
    box = flint.arb_mat(S0)
    v = field.vec(box)
    center = v.mid()
    basis, coords = _identity(v.nrows()), v - center
    if initial is not None:
        center, basis, coords = initial
    return TubeState(box, center, basis, coords)


def replay_step(field, state, h, order, method, apriori="picard"):
    """One validated step of length h (an exact arb) from ``state``, as the kinds define it (module
    docstring): the next :class:`TubeState`, or the reason it does not validate ("picard",
    "disjoint", "infinite").

    Parameters
    ----------
    field : Field
        The vector field.
    state : TubeState
        The enclosure at the start of the step.
    h : flint.arb
        The exact step length.
    order : int
        The Taylor order k.
    method : str
        ``"direct"`` or ``"qr"``.
    apriori : str
        The a priori enclosure: ``"picard"`` (first order) or ``"taylor"`` (order k + 1).

    Returns
    -------
    TubeState or str
        The enclosure at the end of the step, or the failure's key.
    """
    box = state.box
    center, basis, coords = state.center, state.basis, state.coords
    base = box    # "direct": the box; "qr": its hull with the parallelepiped's centre
    if method != "direct":
        Cm = field.unvec(center, box)
        base = flint.arb_mat(box.nrows(), box.ncols())
        for a, b in _entries(box):
            base[a, b] = box[a, b].union(Cm[a, b])
    sig = field.coefficients(base, order)
    remainder = lagrange_remainder(field, box, base, sig, h, order, apriori)
    if remainder is None:
        return "picard"
    if method == "direct":
        box = _poly(sig, h) + remainder
    else:
        direct = _poly(sig, h) + remainder
        Jac = field.jacobian(sig, h)
        image = field.vec(_poly(field.coefficients(Cm, order), h) + remainder)
        center = image.mid()
        A = Jac * basis
        basis, inverse = _new_basis(A, coords)
        coords = (inverse * A) * coords + inverse * (image - center)
        par = field.unvec(center + basis * coords, box)
        box = flint.arb_mat(box.nrows(), box.ncols())
        for a, b in _entries(par):
            try:
                box[a, b] = par[a, b].intersection(direct[a, b])
            except ValueError:
                return "disjoint"
    if any(not box[a, b].is_finite() for a, b in _entries(box)):
        return "infinite"
    return TubeState(box, center, basis, coords, remainder)
