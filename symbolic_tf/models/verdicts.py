r"""Certified statements about real attention heads, decided exactly on the float32 weights.

Every float32 weight is a dyadic rational; a block of them is held exactly as an integer
matrix N with W = N·2^{-s} (:func:`dyadic`).  Positive scale factors (2^{-s}, 1/√d_h — the
latter irrational for d_h = 32) never change a sign, an inertia or a definiteness, so every
decision below is about integer matrices.  No floating-point number decides anything; floats
only *guide* (which row to drop, which vector to try) and are reported as numerical evidence.

Exact inertia of A_h + A_hᵀ in d = 384 through a 2d_h × 2d_h matrix
---------------------------------------------------------------------
With K = W_{K,h}, Q = W_{Q,h} (d_h × d) and M = [K; Q] (2d_h × d),

.. math::

    S := \sqrt{d_h}\,(A_h + A_h^T) = K^TQ + Q^TK = M^T E M,\qquad
    E = \begin{pmatrix} 0 & I \\ I & 0 \end{pmatrix}.

S vanishes on ker M and maps into R = range Mᵀ, so its inertia is that of the quadratic form
S|_R plus d − dim R zeros.  The map y ↦ Mᵀy from ℝ^{2d_h} onto R pulls S|_R back to
yᵀ(MMᵀ)E(MMᵀ)y; pulling back through a surjection keeps n₊ and n₋ (it only adds zeros).  Hence

.. math::

    n_\pm(A_h + A_h^T) = n_\pm(G E G),\qquad G = MM^T\in\mathbb Z^{2d_h\times 2d_h},
    \qquad n_0 = d - n_+ - n_-,

decided by :func:`symbolic_tf.exact.definiteness.inertia` (Descartes' rule on the exact
characteristic polynomial).  (When M has full row rank 2d_h, Sylvester's law gives directly
n₊ = n₋ = d_h, E's inertia.)  The same reduction with U = K W_{V,h}ᵀ W_{O,h}ᵀ in place of K
gives the inertia of C_hA_h + A_hᵀC_hᵀ = (UᵀQ + QᵀU)/√d_h (C_h = W_{O,h}W_{V,h}).

Rational witnesses: a float eigenvector of the extreme eigenvalue, rounded to x ∈ 2^{-20}ℤ^d,
with xᵀSx = 2(Kx)·(Qx) evaluated in integers; kept only if its sign is the claimed one.

Rank-one blow-up of the head's own Gaussian flow (V = C_h, A = A_h)
-------------------------------------------------------------------
For Σ = wwᵀ the flow Σ̇ = VΣAΣ + ΣAᵀΣVᵀ reads ẇ = (wᵀAw)Vw.  If Vu = vu (real v, u ≠ 0)
then w = φu with φ̇ = v(uᵀAu)φ³, so for Σ₀ = uuᵀ/|u|² (unit variance along the line)

.. math::

    \Sigma(t) = \frac{\hat u\hat u^T}{1 - 2 v\,a\,t},\qquad a = \hat u^TA\hat u,
    \qquad T^* = \frac{1}{2va}\ \text{ if } va > 0,\ \text{ else } \Sigma(t)\to 0\ (t\to\infty).

The real eigenvectors of C_h (for v ≠ 0) are u = W_{O,h}z with z an eigenvector of the
d_h × d_h matrix W_{V,h}W_{O,h} (same nonzero spectrum).  Its characteristic polynomial is
computed exactly; real roots are isolated by FLINT (``fmpz_poly.complex_roots``: real roots
come with an exactly zero imaginary part, each enclosed in a ball containing exactly one
root).  For a simple real root v the eigenvector is enclosed by fixing one coordinate z_k = 1
and solving the remaining d_h − 1 equations (one redundant row dropped) in ball arithmetic
(``arb_mat.solve`` encloses the solution for every matrix in the ball, hence the true one).
The sign of v·(Ku)·(Qu) is then certified when its ball excludes 0.

Verdicts per head (:class:`~symbolic_tf.spec.verdict.Verdict`):

* ``symA_nsd`` — "A_h + A_hᵀ ⪯ 0" (the clustering condition of docs/mathematics.md §4 for V = I);
* ``identity_value_blowup`` — "with V = I the Gaussian flow of A_h blows up in finite time from
  every Σ₀ ≻ 0": docs/mathematics.md §4 gives Σ(t)⁻¹ = Σ₀⁻¹ − t(A + Aᵀ), singular first at
  T* = 1/λ_max(Σ₀^{1/2}(A+Aᵀ)Σ₀^{1/2}), finite iff n₊(A + Aᵀ) > 0 (Sylvester);
* ``conjecture_hypothesis`` — "C_hA_h + A_hᵀC_hᵀ ⪯ 0" (hypothesis of docs/mathematics.md §4's conjecture);
* ``head_blowup`` — "the single-head Gaussian flow (A_h, V = C_h) blows up in finite time from
  some Σ₀ ⪰ 0": PROVED by a certified rank-one eigenline, otherwise UNDECIDED (the uniform
  LMI certificates of :mod:`symbolic_tf.certify.search._lmi` live on svec(Σ), dimension d(d+1)/2 =
  73 920 here — out of reach).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import flint
import numpy as np

from ..exact.definiteness import inertia
from ..exact.precision import working_precision
from ..spec.verdict import PROVED, REFUTED, UNDECIDED, Verdict
from ..exact.rational import arb_mid_fraction, fmpq_of

__all__ = ["dyadic", "exact_sym_inertia", "eigenlines", "head_verdicts", "HeadsReport", "heads_report",
           "checkpoint_source",
           "CATEGORIES"]

#: Categories of the head's own flow (``head_blowup``), in heatmap order.
CATEGORIES = ("blowup_rank_one_line", "collapse_on_real_eigenlines", "no_real_eigenline")

_WITNESS_BITS = 20
_PREC = 256


def dyadic(X) -> tuple[list[list[int]], int]:
    """Exact integers N and a shift s with X = N·2^{-s} entrywise (X float32 or float64 values).

    Parameters
    ----------
    X : array_like, shape (m, n)
        Finite float32 or float64 values (raises ValueError otherwise).

    Returns
    -------
    tuple of (list of list of int, int)
        (N, s) with the smallest such s (s = 0 for the zero matrix).
    """
    X = np.asarray(X, dtype=np.float64)
    if not np.all(np.isfinite(X)):
        raise ValueError("dyadic: entries must be finite")
    m, e = np.frexp(X)                     # X = m·2^e, 0.5 ≤ |m| < 1, exact
    mi = np.ldexp(m, 53).astype(np.int64)  # exact: a float64 significand has 53 bits
    ee = e.astype(np.int64) - 53
    nz = mi != 0
    if not np.any(nz):
        return [[0] * X.shape[1] for _ in range(X.shape[0])], 0
    tz = np.zeros_like(mi)                 # trailing zero bits of each significand
    rest = np.abs(mi[nz])
    t = np.zeros_like(rest)
    while np.any((rest & 1) == 0):
        even = (rest & 1) == 0
        rest = np.where(even, rest >> 1, rest)
        t += even
    tz[nz] = t
    mi, ee = np.where(nz, mi >> tz, 0), ee + tz   # m·2^e with odd integer m
    s = int(-ee[nz].min())
    rows = [[int(a) << int(b + s) if a else 0 for a, b in zip(ra, rb)] for ra, rb in zip(mi, ee)]
    return rows, s


def _zmat(rows) -> flint.fmpz_mat:
    return flint.fmpz_mat(rows)


def _shifted(rows, by: int):
    return [[v << by for v in r] for r in rows] if by else rows


def _stack_common(top, s_top: int, bottom, s_bot: int):
    """[top; bottom] over a common denominator 2^{max(s_top, s_bot)}."""
    s = max(s_top, s_bot)
    return _shifted(top, s - s_top) + _shifted(bottom, s - s_bot), s


def _E(k: int) -> flint.fmpz_mat:
    return flint.fmpz_mat(2 * k, 2 * k, [1 if (j == i + k or i == j + k) else 0
                                         for i in range(2 * k) for j in range(2 * k)])


def exact_sym_inertia(L_rows, R_rows, d: int) -> tuple[int, int, int]:
    r"""Exact inertia of LᵀR + RᵀL (d × d) for integer L, R (k × d) via n±(GEG), G = MMᵀ.

    Parameters
    ----------
    L_rows, R_rows : list of list of int
        The integer matrices L, R (k × d), e.g. W_K and W_Q as dyadic integers.
    d : int
        The dimension d.

    Returns
    -------
    tuple of (int, int, int)
        (n₊, n₋, n₀) of LᵀR + RᵀL, exact.
    """
    k = len(L_rows)
    M = _zmat(L_rows + R_rows)
    G = M * M.transpose()
    GEG = G * _E(k) * G
    pos, neg, _ = inertia(flint.fmpq_mat(GEG))
    return pos, neg, d - pos - neg


def _witness(L: flint.fmpz_mat, R: flint.fmpz_mat, x: np.ndarray, sign: int):
    """x rounded to 2^{-20}ℤ^d; kept if sign·xᵀ(LᵀR + RᵀL)x = sign·2(Lx)·(Rx) > 0 exactly."""
    xi = np.rint(x / np.abs(x).max() * 2**_WITNESS_BITS).astype(np.int64)
    v = flint.fmpz_mat([[int(t)] for t in xi])
    val = ((L * v).transpose() * (R * v))[0, 0]
    return [int(t) for t in xi] if sign * val > 0 else None


@dataclass
class Eigenline:
    """A simple real eigenvalue v ≠ 0 of C_h with its certified line dynamics."""

    v: str                  # ball of the eigenvalue
    sign_va: int | None     # +1 blow-up, −1 collapse, None undecided
    T_star: str | None      # ball of T* for Σ₀ = ûûᵀ (blow-up lines)
    v_float: float = 0.0
    T_float: float | None = None
    cert: dict | None = None  # v ∈ (v_lo, v_hi) by a sign change of the exact charpoly, k, r

    def to_dict(self) -> dict:
        """The JSON face of the eigenline.

        Returns
        -------
        dict
            ``{"v", "v_float", "sign_v_a", "T_star_unit", "T_star_float"}``.
        """
        return {"v": self.v, "v_float": self.v_float, "sign_v_a": self.sign_va, "T_star_unit": self.T_star,
                "T_star_float": self.T_float}


def eigenlines(hp) -> tuple[list[Eigenline], dict]:
    r"""Certified real eigenlines of C_h = W_O W_V and the sign of v·ûᵀA_hû on each.

    Parameters
    ----------
    hp : HeadParams
        The head.

    Returns
    -------
    lines : list of Eigenline
    info : dict
        Counts of real / non-real / multiple / zero roots of the d_h × d_h charpoly.
    """
    V, sV = dyadic(hp.Wv)
    O, sO = dyadic(hp.Wo)
    K, sK = dyadic(hp.Wk)
    Q, sQ = dyadic(hp.Wq)
    Vm, Om, Km, Qm = _zmat(V), _zmat(O), _zmat(K), _zmat(Q)
    VU = Vm * Om                                  # = 2^{sV+sO} W_V W_O
    p = VU.charpoly()
    Vf = np.array([[int(VU[i, j]) for j in range(VU.ncols())] for i in range(VU.nrows())], dtype=np.float64)
    lam_f, Zr = np.linalg.eig(Vf)
    lam_l, Wl = np.linalg.eig(Vf.T)
    n = VU.nrows()
    lines, info = [], {"real_simple": 0, "real_multiple": 0, "nonreal": 0, "zero": 0}
    with working_precision(_PREC):
        Oa = flint.arb_mat(Om)
        Ka, Qa = flint.arb_mat(Km), flint.arb_mat(Qm)
        scale = flint.arb(2) ** (sV + sO)         # v = λ_int / 2^{sV+sO}
        for root, mult in p.complex_roots():
            if not root.imag == 0:
                info["nonreal"] += mult
                continue
            lam = root.real
            if lam.contains(0):
                info["zero"] += mult
                continue
            if mult > 1:
                info["real_multiple"] += mult
                continue
            info["real_simple"] += 1
            mid = float(lam.mid())
            i = int(np.argmin(np.abs(lam_f - mid)))
            j = int(np.argmin(np.abs(lam_l - mid)))
            k = int(np.argmax(np.abs(Zr[:, i])))    # fix z_k = 1
            r = int(np.argmax(np.abs(Wl[:, j])))    # drop a row that depends on the others
            rows = [a for a in range(n) if a != r]
            cols = [b for b in range(n) if b != k]
            Mred = flint.arb_mat(n - 1, n - 1, [VU[a, b] - (lam if a == b else 0) for a in rows for b in cols])
            rhs = flint.arb_mat(n - 1, 1, [-(VU[a, k] - (lam if a == k else 0)) for a in rows])
            try:
                zc = Mred.solve(rhs)
            except ZeroDivisionError:
                lines.append(Eigenline((lam / scale).str(15), None, None, mid / 2.0 ** (sV + sO)))
                continue
            z = flint.arb_mat(n, 1)
            it = iter(range(n - 1))
            for b in range(n):
                z[b, 0] = flint.arb(1) if b == k else zc[next(it), 0]
            u = Oa * z
            a = ((Ka * u).transpose() * (Qa * u))[0, 0]   # 2^{sK+sQ+2sO}(ûᵀ√d_h A û)|u|²-ish
            prod = lam * a
            sign = 1 if prod > 0 else (-1 if prod < 0 else None)
            T = Tf = cert = None
            if sign == 1:
                cert = _sign_change_interval(p, lam, sV + sO)
                if cert is None:  # no exact sign change found: leave the line undecided
                    sign = None
                else:
                    cert.update({"k": k, "r": r})
            if sign == 1:
                un2 = (u.transpose() * u)[0, 0]
                v_true = lam / scale
                a_true = a / (flint.arb(2) ** (sK + sQ) * un2 * flint.arb(hp.head_dim).sqrt())
                Tb = 1 / (2 * v_true * a_true)
                T, Tf = Tb.str(15), float(Tb.mid())
            lines.append(Eigenline((lam / scale).str(15), sign, T, mid / 2.0 ** (sV + sO), Tf, cert))
    return lines, info


def _sign_change_interval(p, lam: flint.arb, shift: int) -> dict | None:
    """Rationals v_lo < v_hi of one sign, bracketing the root λ/2^shift, with an exact sign change
    of the integer charpoly p at λ = v·2^shift (so a real eigenvalue of W_V W_O lies between)."""
    lo, hi = arb_mid_fraction(lam.lower()), arb_mid_fraction(lam.upper())
    P = flint.fmpq_poly(p)
    for widen in (Fraction(0), Fraction(1, 10**12), Fraction(1, 10**8)):
        w = (hi - lo) + abs(hi) * widen
        a, b = lo - w, hi + w
        if a * b <= 0:
            return None
        fa, fb = P(fmpq_of(a)), P(fmpq_of(b))
        if fa * fb < 0:
            sc = Fraction(2) ** shift
            return {"v_lo": str(a / sc), "v_hi": str(b / sc)}
    return None


def _fmt_inertia(t) -> str:
    return f"(n+, n-, n0) = ({t[0]}, {t[1]}, {t[2]})"


def checkpoint_source(model) -> dict:
    """Where a loaded model's weights live (file + SHA-256), for head certificates.

    Parameters
    ----------
    model : BertEncoder
        The loaded model (its folder holds ``model.safetensors``).

    Returns
    -------
    dict
        ``{"model_file": resolved path, "sha256": hex digest}``.
    """
    from ..atomic import file_sha256

    path = (model.path / "model.safetensors").resolve()
    return {"model_file": str(path), "sha256": file_sha256(path)}


def _witness_certificates(hp, source: dict, x: list, which: str = "A") -> dict:
    """``head-symA-witness`` certificates (re-checked by :mod:`symbolic_tf.certify.check.kinds.head_symA_witness`
    from the checkpoint file itself) for the verdicts a positive witness x decides: for
    xᵀ(A_h + A_hᵀ)x > 0 (``which="A"``) the first two, for xᵀ(C_hA_h + A_hᵀC_hᵀ)x > 0 the third."""
    from ..certify.check.certificate import Certificate

    base = {**source, "layer": hp.layer, "head": hp.head, "head_dim": hp.head_dim, "x": list(x)}
    claims = ({"symA_nsd": ("REFUTED", "A_h + A_hᵀ ⪯ 0"),
               "identity_value_blowup": ("PROVED", "with V = I the Gaussian flow of A_h blows up in finite time "
                                                    "from every Σ₀ ≻ 0")} if which == "A" else
              {"conjecture_hypothesis": ("REFUTED", "C_hA_h + A_hᵀC_hᵀ ⪯ 0")})
    from ..certify.check.claims import Claim, Quantifier

    def claim(k):
        return Claim("head-property", Quantifier.NONE,
                     {"sha256": source["sha256"], "layer": hp.layer, "head": hp.head, "head_dim": hp.head_dim,
                      "verdict": k})

    return {k: Certificate(kind="head-symA-witness", claim=claim(k), status=st,
                           data={**base, "verdict": k}).to_dict() for k, (st, c) in claims.items()}


def head_verdicts(hp, *, witnesses: bool = True, source: dict | None = None) -> dict:
    """All exact verdicts of one head (module docstring) plus float spectra as numerical evidence.

    With ``source`` (:func:`checkpoint_source`) and a positive witness, the verdicts decided by
    it carry certificates that ``symtf check`` re-verifies from the checkpoint file.

    Parameters
    ----------
    hp : HeadParams
        The head.
    witnesses : bool
        Compute rational witness vectors x ∈ 2^-20 ℤ^d for the inertia claims.
    source : dict, optional
        The checkpoint's file and SHA-256 (:func:`checkpoint_source`).

    Returns
    -------
    dict
        layer, head, spectrum_symA (float), trace_C, category (one of :data:`CATEGORIES`) and
        verdicts (name → Verdict dict): symA_nsd, identity_value_blowup,
        conjecture_hypothesis, head_blowup.
    """
    d = hp.Wq.shape[1]
    K, sK = dyadic(hp.Wk)
    Q, sQ = dyadic(hp.Wq)
    V, sV = dyadic(hp.Wv)
    O, sO = dyadic(hp.Wo)
    A = hp.A
    symA = 0.5 * (A + A.T)
    lam, vec = np.linalg.eigh(symA)
    spectrum = {"lambda_max": float(lam[-1]), "lambda_min": float(lam[0]),
                "numerical_rank": int(np.sum(np.abs(lam) > 1e-10 * np.abs(lam).max())),
                "top": [float(x) for x in lam[::-1][:5]]}
    iA = exact_sym_inertia(K, Q, d)
    Km, Qm = _zmat(K), _zmat(Q)
    wit = {}
    if witnesses and iA[0]:
        wit["positive"] = _witness(Km, Qm, vec[:, -1], +1)
    if witnesses and iA[1]:
        wit["negative"] = _witness(Km, Qm, vec[:, 0], -1)
    how = "exact inertia of GEG (G = MMᵀ, M = [W_K; W_Q] as integers), Descartes on its charpoly"
    evA = {"inertia": list(iA), "method": how}
    if wit:
        evA["witness_scale"] = f"2^-{_WITNESS_BITS} (x = ints / 2^{_WITNESS_BITS}; xᵀ(A+Aᵀ)x ∝ (W_K x)·(W_Q x))"
        evA["witnesses"] = wit
    out = {}
    out["symA_nsd"] = Verdict(
        PROVED if iA[0] == 0 else REFUTED, "A_h + A_hᵀ ⪯ 0 (docs/mathematics.md §4 clustering condition for V = I)",
        "exact-inertia", evA, {"lambda_max_symA": spectrum["lambda_max"]},
        f"A_h + A_hᵀ: {_fmt_inertia(iA)} (exact)")
    certs = (_witness_certificates(hp, source, wit["positive"])
             if source is not None and wit.get("positive") else {})
    if certs:
        out["symA_nsd"].evidence["certificate"] = certs["symA_nsd"]
    if iA[0] > 0:
        out["identity_value_blowup"] = Verdict(
            PROVED, "with V = I the Gaussian flow of A_h blows up in finite time from every Σ₀ ≻ 0",
            "closed-form (docs/mathematics.md §4) + exact inertia", {"inertia": list(iA)}, {},
            f"Σ(t)⁻¹ = Σ₀⁻¹ − t(A+Aᵀ) loses definiteness at T* = 1/λ_max(Σ₀^½(A+Aᵀ)Σ₀^½) < ∞ "
            f"since n₊(A+Aᵀ) = {iA[0]} > 0")
        if certs:
            out["identity_value_blowup"].evidence["certificate"] = certs["identity_value_blowup"]
    else:
        out["identity_value_blowup"] = Verdict(
            REFUTED, "with V = I the Gaussian flow of A_h blows up in finite time from every Σ₀ ≻ 0",
            "closed-form (docs/mathematics.md §4) + exact inertia", {"inertia": list(iA)}, {},
            "A + Aᵀ ⪯ 0: Σ(t)⁻¹ = Σ₀⁻¹ − t(A+Aᵀ) ⪰ Σ₀⁻¹ for all t ≥ 0 (global solution)")
    # C_h A_h + (C_h A_h)^T ∝ U^T Q + Q^T U with U = K W_V^T W_O^T (integers at scale sK+sV+sO)
    KV = Km * _zmat(V).transpose()                 # d_h × d_h
    Um = KV * _zmat(O).transpose()                 # d_h × d
    U = [[int(Um[i, j]) for j in range(Um.ncols())] for i in range(Um.nrows())]
    U2, Q2 = U, Q
    sU = sK + sV + sO
    if sU > sQ:
        Q2 = _shifted(Q, sU - sQ)
    elif sQ > sU:
        U2 = _shifted(U, sQ - sU)
    iCA = exact_sym_inertia(U2, Q2, d)
    CA = hp.C @ A
    lamCA = np.linalg.eigvalsh(CA + CA.T)
    out["conjecture_hypothesis"] = Verdict(
        PROVED if iCA[0] == 0 else REFUTED,
        "C_hA_h + A_hᵀC_hᵀ ⪯ 0 (hypothesis of the docs/mathematics.md §4 conjecture: bounded, rank-deficient limit)",
        "exact-inertia", {"inertia": list(iCA), "method": how.replace("W_K", "W_K W_Vᵀ W_Oᵀ")},
        {"lambda_max": float(lamCA[-1]), "lambda_min": float(lamCA[0])},
        f"C_hA_h + A_hᵀC_hᵀ: {_fmt_inertia(iCA)} (exact)")
    if source is not None and witnesses and iCA[0] > 0:
        lamv, vecs = np.linalg.eigh(CA + CA.T)
        xCA = _witness(_zmat(U2), _zmat(Q2), vecs[:, -1], +1)
        if xCA is not None:
            ev = out["conjecture_hypothesis"].evidence
            ev["witnesses"] = {"positive": xCA}
            ev["certificate"] = _witness_certificates(hp, source, xCA, which="CA")["conjecture_hypothesis"]
    lines, info = eigenlines(hp)
    blow = [ln for ln in lines if ln.sign_va == 1]
    coll = [ln for ln in lines if ln.sign_va == -1]
    claim = "the single-head Gaussian flow (A = A_h, V = C_h) blows up in finite time from some Σ₀ ⪰ 0"
    ev = {"eigenlines": [ln.to_dict() for ln in lines], "charpoly_roots": info}
    if blow:
        best = min(blow, key=lambda ln: ln.T_float)
        out["head_blowup"] = Verdict(
            PROVED, claim, "rank-one eigenline (closed form) + exact charpoly roots + ball eigenvector", ev, {},
            f"Σ₀ = ûûᵀ on a real eigenline of C_h (v = {best.v_float:.4g}, certified v·ûᵀA_hû > 0): "
            f"Σ(t) = ûûᵀ/(1 − 2v·a·t), T* ∈ {best.T_star}; {len(blow)} of {len(lines)} real eigenlines blow up")
        if source is not None:
            from ..certify.check.certificate import Certificate
            from ..certify.check.claims import Claim, Quantifier
            from ..exact.rational import frac_str

            cl = Claim("head-eigenline-blowup", Quantifier.NONE,
                       {"sha256": source["sha256"], "layer": hp.layer, "head": hp.head, "head_dim": hp.head_dim,
                        "v_lo": frac_str(Fraction(best.cert["v_lo"])), "v_hi": frac_str(Fraction(best.cert["v_hi"]))})
            out["head_blowup"].evidence["certificate"] = Certificate(
                kind="head-eigenline-blowup", claim=cl, status=PROVED,
                data={**source, "layer": hp.layer, "head": hp.head, "head_dim": hp.head_dim, **best.cert}).to_dict()
        category = CATEGORIES[0]
    elif lines:
        undecided = len(lines) - len(coll)
        out["head_blowup"] = Verdict(
            UNDECIDED, claim, "", ev, {},
            f"all {len(coll)} certified real eigenlines of C_h collapse (v·ûᵀA_hû < 0)"
            + (f", {undecided} undecided" if undecided else "")
            + "; full-rank Σ₀ not decided (the LMI certificates need svec dimension d(d+1)/2 = "
            f"{d * (d + 1) // 2})")
        category = CATEGORIES[1]
    else:
        out["head_blowup"] = Verdict(
            UNDECIDED, claim, "", ev, {},
            f"C_h has no simple real nonzero eigenvalue (roots: {info}); full-rank Σ₀ not decided "
            f"(the LMI certificates need svec dimension {d * (d + 1) // 2})")
        category = CATEGORIES[2]
    return {"layer": hp.layer, "head": hp.head, "spectrum_symA": spectrum,
            "trace_C": float(np.trace(hp.C)), "category": category,
            "verdicts": {k: v.to_dict() for k, v in out.items()}}


@dataclass
class HeadsReport:
    """Per-head verdicts of a model (:func:`heads_report`)."""

    model: dict
    num_layers: int
    num_heads: int
    heads: list
    categories: tuple = CATEGORIES
    figures: list = field(default_factory=list)

    def counts(self) -> dict:
        """How many heads got each status, per verdict, and each category.

        Returns
        -------
        dict
            Verdict name → {status → number of heads}, and ``"category"`` → {category → number}.
        """
        out = {}
        for h in self.heads:
            for k, v in h["verdicts"].items():
                out.setdefault(k, {}).setdefault(v["status"], 0)
                out[k][v["status"]] += 1
        out["category"] = {c: sum(1 for h in self.heads if h["category"] == c) for c in self.categories}
        return out

    def to_dict(self, *, witnesses: bool = True) -> dict:
        """The JSON face of the report.

        Parameters
        ----------
        witnesses : bool
            Keep the witness vectors in the verdicts' evidence (False drops them).

        Returns
        -------
        dict
            ``{"model", "counts", "heads", "figures", "notes"}``.
        """
        heads = self.heads
        if not witnesses:
            heads = [{**h, "verdicts": {k: {**v, "evidence": {e: x for e, x in v["evidence"].items()
                                                              if e != "witnesses"}}
                                        for k, v in h["verdicts"].items()}} for h in heads]
        return {"model": self.model, "counts": self.counts(), "heads": heads,
                "figures": [str(f) for f in self.figures],
                "notes": ["A_h = W_Kᵀ W_Q/√d_h (logit yᵀA_hx, query x, key y), C_h = W_O,h W_V,h; "
                          "statuses decided exactly on the float32 weights' dyadic values; "
                          "spectra are numerical evidence",
                          "the d×d matrices themselves are not stored: "
                          "symbolic_tf.models._heads.head_params(model, layer, head).A / .C"]}

    def table(self) -> str:
        """The report as a text table: one line per head (λ_max, λ_min of sym A, the exact inertias of
        A + Aᵀ and CA + (CA)ᵀ, the head flow's status and its eigenlines), then the counts.

        Returns
        -------
        str
            The table.
        """
        lines = [f"{self.model.get('name', '')}: {len(self.heads)} heads "
                 f"(A_h = W_Kᵀ W_Q/√d_h, C_h = W_O W_V; statuses exact on the float32 weights)",
                 f"{'L':>2} {'h':>3} {'λmax symA':>10} {'λmin symA':>10} {'inertia A+Aᵀ':>15} {'inertia CA+(CA)ᵀ':>17}"
                 f" {'head flow (V = C_h)':<22} detail"]
        for h in self.heads:
            v = h["verdicts"]
            iA = v["symA_nsd"]["evidence"]["inertia"]
            iC = v["conjecture_hypothesis"]["evidence"]["inertia"]
            hb = v["head_blowup"]
            lines_ = hb["evidence"]["eigenlines"]
            nb = sum(1 for ln in lines_ if ln["sign_v_a"] == 1)
            if hb["status"] == PROVED:
                T = min(ln["T_star_float"] for ln in lines_ if ln["sign_v_a"] == 1)
                detail = f"{nb}/{len(lines_)} real eigenlines blow up, min T* ≈ {T:.3g}"
            else:
                detail = f"{len(lines_)} real eigenlines, none blows up"
            status = "BLOWUP (PROVED)" if hb["status"] == PROVED else hb["status"]
            lines.append(f"{h['layer']:>2} {h['head']:>3} {h['spectrum_symA']['lambda_max']:>10.4g} "
                         f"{h['spectrum_symA']['lambda_min']:>10.4g} {str(tuple(iA)):>15} {str(tuple(iC)):>17}"
                         f" {status:<22} {detail}")
        lines.append("")
        for k, c in self.counts().items():
            lines.append(f"{k}: " + ", ".join(f"{s} {n}" for s, n in c.items()))
        if self.figures:
            lines.append("figure: " + ", ".join(str(f) for f in self.figures))
        return "\n".join(lines)


def _verdicts_task(hp, witnesses: bool, source: dict | None = None) -> dict:
    return head_verdicts(hp, witnesses=witnesses, source=source)


def heads_report(model=None, *, layers=None, heads=None, witnesses: bool = True, workers: int = 1,
                 out_dir=None) -> HeadsReport:
    """Exact verdicts for the chosen heads (default: every head of every layer).

    Parameters
    ----------
    model : BertEncoder, optional
        Default: the shipped all-MiniLM-L6-v2.
    layers, heads : iterable of int, optional
        0-based layer / head indices.
    witnesses : bool
        Compute rational witness vectors for the inertia claims.
    workers : int
        Heads are independent: > 1 runs them in a process pool
        (:func:`symbolic_tf.regimes.executors.make_executor`).
    out_dir : path, optional
        Write ``heads.json`` and ``heads_heatmap.png`` there (atomically).

    Returns
    -------
    HeadsReport
        The per-head verdicts (with the figures written, when ``out_dir`` is given).
    """
    from ..spec.errors import InvalidParameters
    from ._heads import head_params
    from .loader import load_bert

    model = load_bert() if model is None else model
    cfg = model.config
    Ls = list(range(cfg.num_layers)) if layers is None else sorted({int(i) for i in layers})
    Hs = list(range(cfg.num_heads)) if heads is None else sorted({int(i) for i in heads})
    if not Ls or Ls[0] < 0 or Ls[-1] >= cfg.num_layers:
        raise InvalidParameters("layers", f"layer indices must lie in 0..{cfg.num_layers - 1}")
    if not Hs or Hs[0] < 0 or Hs[-1] >= cfg.num_heads:
        raise InvalidParameters("heads", f"head indices must lie in 0..{cfg.num_heads - 1}")
    from ..regimes.executors import make_executor

    # the kernel's head checkers read BERT's tensor names: certificates for BERT checkpoints only
    source = checkpoint_source(model) if witnesses and cfg.model_type == "bert" else None
    tasks = [(head_params(model, L, h), witnesses, source) for L in Ls for h in Hs]
    rows: list = [None] * len(tasks)
    with make_executor(workers=min(workers, len(tasks))) as ex:
        from ..display import progress

        for i, res in progress(ex.map_unordered(_verdicts_task, tasks), total=len(tasks), desc="heads",
                               unit="head"):
            rows[i] = res
    rep = HeadsReport({**cfg.to_dict(), "path": str(model.path)}, cfg.num_layers, cfg.num_heads, rows)
    if out_dir is not None:
        from pathlib import Path

        from ..atomic import write_json_atomic
        from ._figures import heads_figure

        out = Path(out_dir)
        rep.figures = heads_figure(rep, out / "heads_heatmap")
        from ..display import tagged

        write_json_atomic(out / "heads.json", tagged("heads", rep.to_dict()))
    return rep
