"""Matrix expressions for a symbolic dimension d, their normal form and exact evaluation.

An expression is a JSON tree (safe to read from a file: no ``eval``)::

    ["sym", "A"]        a declared matrix symbol (shape from the declaration: d×d, d×1, k×d, …)
    ["scalar", "c"]     a declared scalar symbol (commutes with everything); "d" is the dimension
    ["num", "p/q"]      a rational number
    ["I"]               the identity
    ["+", e, …]  ["*", e, …]  ["T", e]  ["inv", e]  ["tr", e]  ["logdet", e]  ["ddt", e]

The **normal form** (:func:`normal`) is the expression modulo the ring axioms only —
associativity, distributivity, the unit I, rational coefficients and commuting scalars: a
noncommutative polynomial ``{(scalar letters, word): coefficient}``.  Its letters are matrix
symbols, transposed symbols (``Xᵀᵀ = X`` for a symbol X is built in) and *opaque atoms*
``(E)ᵀ``, ``(E)⁻¹``, ``tr(E)``, ``log det(E)``, ``d/dt(E)`` whose argument E is itself in normal form.  Every
other fact — pushing a transpose inside, cancelling M M⁻¹, cyclicity of the trace, the
product rule — is a named rule of :mod:`.rules`.  Two expressions are equal modulo the ring
axioms iff their normal forms are identical (docs/mathematics.md §10).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

import flint

from ....exact.rational import fmpq_of, frac_str
from ....spec.errors import CertificationFailed

__all__ = ["Decl", "normal", "key", "unkey", "to_term", "render", "render_poly", "evaluate", "evaluate_logs",
           "Unevaluable", "ONE", "inverse_atom", "transpose_atom", "typecheck", "is_zero", "padd", "pmul", "pscale", "MAX_DEPTH", "MAX_NODES"]

MAX_DEPTH = 60
MAX_NODES = 20000
MAX_TERMS = 5000     # terms of a normal form (expansion is bounded, so hostile input cannot hang)
MAX_WORD = 200       # letters of a word
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_']{0,39}")
_SHAPES = ("d", "k", "1")

ONE = {((), ()): Fraction(1)}


class Unevaluable(Exception):
    """An expression with an unexpanded d/dt atom (no value at a point)."""


@dataclass
class Decl:
    """The symbols of a proof: matrix symbols with shapes (rows, cols in "d", "k", "1") and
    scalar symbols ("d", the dimension, is always a scalar)."""

    matrices: dict = field(default_factory=dict)
    scalars: tuple = ()

    @classmethod
    def from_data(cls, data) -> "Decl":
        """The declaration read from its JSON form ``{"matrices": {name: [rows, cols]}, "scalars": [...]}``,
        validated (names, shapes in "d", "k", "1", at most 64 of each; "d" is reserved).

        Parameters
        ----------
        data : dict
            The JSON declaration.

        Returns
        -------
        Decl
            The declaration; raises CertificationFailed on a malformed one.
        """
        if not isinstance(data, dict) or set(data) - {"matrices", "scalars"}:
            raise CertificationFailed("matrix proof: symbols must be {matrices, scalars}")
        mats = data.get("matrices", {})
        scal = data.get("scalars", [])
        if not isinstance(mats, dict) or not isinstance(scal, list) or len(mats) > 64 or len(scal) > 64:
            raise CertificationFailed("matrix proof: malformed symbol declaration")
        out = {}
        for name, shape in mats.items():
            if not isinstance(name, str) or not _NAME.fullmatch(name) or name == "d":
                raise CertificationFailed(f"matrix proof: bad symbol name {str(name)[:40]!r}")
            if (not isinstance(shape, list) or len(shape) != 2 or any(s not in _SHAPES for s in shape)):
                raise CertificationFailed(f"matrix proof: bad shape for {name}")
            out[name] = tuple(shape)
        for s in scal:
            if not isinstance(s, str) or not _NAME.fullmatch(s) or s in out or s == "d":
                raise CertificationFailed(f"matrix proof: bad scalar name {str(s)[:40]!r}")
        return cls(out, tuple(scal))

    def to_data(self) -> dict:
        """The JSON form of the declaration (the inverse of :meth:`from_data`).

        Returns
        -------
        dict
            ``{"matrices": {name: [rows, cols]}, "scalars": [...]}``.
        """
        return {"matrices": {k: list(v) for k, v in self.matrices.items()}, "scalars": list(self.scalars)}


# ------------------------------------------------------------------------------------------
# polynomials: {(scalars: tuple, word: tuple): Fraction}
# ------------------------------------------------------------------------------------------
def canonical_order(k):
    """The sort key that puts monomials and words in one canonical order (their repr).

    Parameters
    ----------
    k : tuple
        A scalar tuple, a word or a (scalars, word) key.

    Returns
    -------
    str
        ``repr(k)``: a total order on keys, the same in every run.
    """
    return repr(k)


def key(poly) -> tuple:
    """A hashable canonical form of a polynomial (used inside atoms).

    Parameters
    ----------
    poly : dict
        A polynomial ``{(scalar letters, word): coefficient}``.

    Returns
    -------
    tuple
        Its (monomial, coefficient) pairs sorted by monomial.
    """
    return tuple(sorted(poly.items(), key=lambda kv: canonical_order(kv[0])))


def unkey(k) -> dict:
    """The polynomial of a canonical form (the inverse of :func:`key`).

    Parameters
    ----------
    k : tuple
        A canonical form from :func:`key`.

    Returns
    -------
    dict
        The polynomial ``{(scalar letters, word): coefficient}``.
    """
    return dict(k)


def padd(*polys) -> dict:
    """The sum p₁ + p₂ + … of polynomials (zero coefficients dropped).

    Parameters
    ----------
    *polys : dict
        Polynomials ``{(scalar letters, word): coefficient}``.

    Returns
    -------
    dict
        Their sum.
    """
    out: dict = {}
    for p in polys:
        for m, c in p.items():
            v = out.get(m, 0) + c
            if v:
                out[m] = v
            else:
                out.pop(m, None)
    return out


def pscale(p, c) -> dict:
    """The polynomial c·p.

    Parameters
    ----------
    p : dict
        A polynomial.
    c : Fraction or int
        A rational scalar.

    Returns
    -------
    dict
        c·p (the empty polynomial when c = 0).
    """
    c = Fraction(c)
    return {} if c == 0 else {m: v * c for m, v in p.items()}


def pmul(p, q) -> dict:
    """The noncommutative product p·q: words concatenate, scalar letters merge (they commute).

    Parameters
    ----------
    p, q : dict
        Polynomials.

    Returns
    -------
    dict
        p·q; raises CertificationFailed when the expansion or a word is too large.
    """
    if len(p) * len(q) > 4 * MAX_TERMS:
        raise CertificationFailed("matrix proof: expression too large when expanded")
    out: dict = {}
    for (s1, w1), c1 in p.items():
        for (s2, w2), c2 in q.items():
            if len(w1) + len(w2) > MAX_WORD or len(s1) + len(s2) > MAX_WORD:
                raise CertificationFailed("matrix proof: word too long")
            m = (tuple(sorted(s1 + s2, key=canonical_order)), w1 + w2)
            v = out.get(m, 0) + c1 * c2
            if v:
                out[m] = v
            else:
                out.pop(m, None)
    return out


def is_zero(p) -> bool:
    """Whether a polynomial is 0 (normal forms are canonical, so this is the empty dict).

    Parameters
    ----------
    p : dict
        A polynomial.

    Returns
    -------
    bool
        True iff p = 0.
    """
    return not p


def _letter(atom) -> dict:
    return {((), (atom,)): Fraction(1)}


def _scalar(atom) -> dict:
    return {((atom,), ()): Fraction(1)}


def _count(term, depth=0, budget=None):
    if budget is None:
        budget = [0]
    budget[0] += 1
    if depth > MAX_DEPTH or budget[0] > MAX_NODES:
        raise CertificationFailed("matrix proof: expression too deep or too large")
    if isinstance(term, list):
        for t in term[1:]:
            if isinstance(t, list):
                _count(t, depth + 1, budget)
    return budget[0]


def normal(term, decl: Decl) -> dict:
    """The normal form of a term modulo the ring axioms (see the module docstring).

    Parameters
    ----------
    term : list
        A JSON expression tree.
    decl : Decl
        The declared symbols.

    Returns
    -------
    dict
        The polynomial ``{(scalar letters, word): coefficient}``; raises CertificationFailed on a
        malformed, undeclared or too large term.
    """
    _count(term)
    return _normal(term, decl)


def _normal(t, decl):
    if not isinstance(t, list) or not t or not isinstance(t[0], str):
        raise CertificationFailed(f"matrix proof: malformed expression {str(t)[:60]}")
    op, args = t[0], t[1:]
    if op == "sym":
        if len(args) != 1 or args[0] not in decl.matrices:
            raise CertificationFailed(f"matrix proof: undeclared matrix symbol {str(args)[:40]}")
        return _letter(("s", args[0]))
    if op == "scalar":
        if len(args) != 1 or not (args[0] in decl.scalars or args[0] == "d"):
            raise CertificationFailed(f"matrix proof: undeclared scalar {str(args)[:40]}")
        return _scalar(("c", args[0]))
    if op == "num":
        from ..schema import parse_rat

        if len(args) != 1:
            raise CertificationFailed("matrix proof: num takes one rational")
        q = parse_rat(args[0], "num")
        return {((), ()): q} if q else {}
    if op == "I":
        if args:
            raise CertificationFailed("matrix proof: I takes no argument")
        return dict(ONE)
    parts = [_normal(a, decl) for a in args]
    if op == "+":
        return padd(*parts)
    if op == "*":
        out = dict(ONE)
        for p in parts:
            out = pmul(out, p)
        return out
    if len(parts) != 1:
        raise CertificationFailed(f"matrix proof: {op} takes one argument")
    (p,) = parts
    if op == "T":
        return transpose_atom(p)
    if op == "inv":
        if p == ONE:
            return dict(ONE)
        if len(p) == 1 and next(iter(p)) == ((), ()):  # a nonzero rational number
            return {((), ()): 1 / next(iter(p.values()))}
        return inverse_atom(p)
    if op == "tr":
        return _scalar(("tr", key(p))) if p else {}
    if op == "logdet":
        if not p:
            raise CertificationFailed("matrix proof: log det of 0")
        return _scalar(("ld", key(p)))
    if op == "ddt":
        return _letter(("d", key(p))) if p else {}
    raise CertificationFailed(f"matrix proof: unknown operator {op[:20]!r}")


def inverse_atom(p) -> dict:
    """(E)⁻¹ as it enters the normal form: I⁻¹ = I, q⁻¹ = 1/q for a rational q, and
    (qW)⁻¹ = q⁻¹(W)⁻¹ for a single word W with a rational coefficient q ≠ 1.

    Parameters
    ----------
    p : dict
        The normal form of E (nonzero).

    Returns
    -------
    dict
        The normal form of (E)⁻¹; raises CertificationFailed when E = 0.
    """
    if not p:
        raise CertificationFailed("matrix proof: inverse of 0")
    if p == ONE:
        return dict(ONE)
    if len(p) == 1:
        (m, c), = p.items()
        if m == ((), ()):
            return {((), ()): 1 / c}
        if c != 1:
            return {((), (("inv", key({m: Fraction(1)})),)): 1 / c}
    return _letter(("inv", key(p)))


def transpose_atom(p) -> dict:
    """(E)ᵀ as it enters the normal form: a symbol's transpose is the letter Xᵀ (and Xᵀᵀ = X);
    a scalar expression is its own transpose only through the rule ``transpose``; anything
    else stays the opaque atom (E)ᵀ.

    Parameters
    ----------
    p : dict
        The normal form of E.

    Returns
    -------
    dict
        The normal form of (E)ᵀ.
    """
    if len(p) == 1:
        (m, c), = p.items()
        s, w = m
        if not s and len(w) == 1 and w[0][0] in ("s", "t"):
            return {((), (("t" if w[0][0] == "s" else "s", w[0][1]),)): c}
        if not w:  # a pure scalar
            return dict(p)
    if not p:
        return {}
    return _letter(("T", key(p)))


def typecheck(p, decl: Decl, n: int = 2, k: int = 3):
    """The shape (rows, cols) of a polynomial at d = n, k = k (None: only multiples of I),
    raising CertificationFailed on a product or sum of incompatible shapes, or on the trace,
    inverse or log det of a non-square expression.  (I and numbers stand for the identity of
    whatever size their context needs; a shapeless expression is d×d.)

    Parameters
    ----------
    p : dict
        A polynomial.
    decl : Decl
        The declared symbols and their shapes.
    n : int
        The value of d.
    k : int
        The value of k.

    Returns
    -------
    tuple of int or None
        (rows, cols), or None when p is a multiple of I.
    """
    shape = None
    for (s, w), _ in p.items():
        for a in s:
            if a[0] in ("tr", "ld"):
                sh = typecheck(unkey(a[1]), decl, n, k)
                if sh is not None and sh[0] != sh[1]:
                    raise CertificationFailed("matrix proof: trace or log det of a non-square expression")
        cur = None
        for a in w:
            sh = _typed_letter(a, decl, n, k)
            if sh is None:
                continue
            if cur is not None and cur[1] != sh[0]:
                raise CertificationFailed("matrix proof: a product of incompatible shapes")
            cur = sh if cur is None else (cur[0], sh[1])
        if cur is not None:
            if shape is not None and shape != cur:
                raise CertificationFailed("matrix proof: a sum of incompatible shapes")
            shape = cur
    if shape is not None:  # identity-only words of a non-square sum are ill-typed
        if shape[0] != shape[1] and any(not w for (s, w), _ in p.items()):
            raise CertificationFailed("matrix proof: I added to a non-square expression")
    return shape


def _typed_letter(a, decl, n, k):
    tag = a[0]
    if tag in ("s", "t"):
        r, c = decl.matrices[a[1]]
        r, c = _dim(r, n, k), _dim(c, n, k)
        return (r, c) if tag == "s" else (c, r)
    sh = typecheck(unkey(a[1]), decl, n, k)
    if tag in ("inv", "d", "T") and sh is None:
        return None
    if tag == "inv" and sh[0] != sh[1]:
        raise CertificationFailed("matrix proof: inverse of a non-square expression")
    return (sh[1], sh[0]) if tag == "T" else sh


# ------------------------------------------------------------------------------------------
# back to terms; rendering
# ------------------------------------------------------------------------------------------
def _atom_term(a):
    tag = a[0]
    if tag == "s":
        return ["sym", a[1]]
    if tag == "t":
        return ["T", ["sym", a[1]]]
    if tag == "c":
        return ["scalar", a[1]]
    inner = to_term(unkey(a[1]))
    return {"T": ["T", inner], "inv": ["inv", inner], "tr": ["tr", inner], "d": ["ddt", inner],
            "ld": ["logdet", inner]}[tag]


def to_term(p) -> list:
    """A term whose normal form is ``p`` (a sum of products, coefficients first).

    Parameters
    ----------
    p : dict
        A polynomial.

    Returns
    -------
    list
        A JSON expression tree (``["num", "0"]`` for p = 0).
    """
    terms = []
    for (s, w), c in sorted(p.items(), key=lambda kv: canonical_order(kv[0])):
        factors = ([] if c == 1 else [["num", frac_str(c)]]) + [_atom_term(a) for a in s] + [_atom_term(a) for a in w]
        terms.append(factors[0] if len(factors) == 1 else (["I"] if not factors else ["*"] + factors))
    if not terms:
        return ["num", "0"]
    return terms[0] if len(terms) == 1 else ["+"] + terms


_GREEK = {"Sigma": "Σ", "alpha": "α", "Phi": "Φ", "Lambda": "Λ", "Gamma": "Γ", "Omega": "Ω", "Xi": "Ξ"}


def _name(n: str) -> str:
    base = n.rstrip("'")
    dots = len(n) - len(base)
    head, _, sub = base.partition("_")
    if head.endswith("0") and head[:-1] in _GREEK:
        head, zero = head[:-1], "₀"
    else:
        zero = ""
    s = _GREEK.get(head, head) + zero + (f"_{sub}" if sub else "")
    return s + ("̇" if dots == 1 else "'" * dots)


def _render_atom(a) -> str:
    tag = a[0]
    if tag in ("s", "c"):
        return _name(a[1])
    if tag == "t":
        return _name(a[1]) + "ᵀ"
    inner = render_poly(unkey(a[1]))
    simple = len(unkey(a[1])) == 1 and " " not in inner
    if tag == "T":
        return (inner if simple and len(inner) == 1 else f"({inner})") + "ᵀ"
    if tag == "inv":
        return (inner if simple and len(inner) == 1 else f"({inner})") + "⁻¹"
    if tag == "tr":
        return f"tr({inner})"
    if tag == "ld":
        return f"log det({inner})"
    return f"d/dt({inner})"


def render_poly(p) -> str:
    """The polynomial in words, e.g. ``VΣAΣ + ΣAᵀΣVᵀ``.

    Parameters
    ----------
    p : dict
        A polynomial.

    Returns
    -------
    str
        The sum of its monomials, shortest words first ("0" for p = 0).
    """
    if not p:
        return "0"
    out = []
    for (s, w), c in sorted(p.items(), key=lambda kv: (len(kv[0][1]), canonical_order(kv[0]))):
        body = "".join(_render_atom(a) for a in s + w) or "I"
        if body == "I" and s:
            body = "".join(_render_atom(a) for a in s)
        if c == 1:
            txt = body
        elif c == -1:
            txt = "-" + body
        else:
            txt = frac_str(c) + ("·" + body if body != "I" or s else "·I")
        out.append(txt)
    txt = " + ".join(out)
    return txt.replace("+ -", "− ")


def render(term, decl: Decl) -> str:
    """The normal form of a term, rendered by :func:`render_poly`.

    Parameters
    ----------
    term : list
        A JSON expression tree.
    decl : Decl
        The declared symbols.

    Returns
    -------
    str
        The rendered normal form, e.g. ``VΣAΣ + ΣAᵀΣVᵀ``.
    """
    return render_poly(normal(term, decl))


# ------------------------------------------------------------------------------------------
# exact evaluation at rational matrices (python-flint), for the numeric guard and witnesses
# ------------------------------------------------------------------------------------------
def _dim(s, n, k):
    return {"d": n, "k": k, "1": 1}[s]


def _shape_of_word(w, decl, n, k):
    for a in w:
        sh = _letter_shape(a, decl, n, k)
        if sh is not None:
            rows = sh[0]
            break
    else:
        return None
    for a in reversed(w):
        sh = _letter_shape(a, decl, n, k)
        if sh is not None:
            return rows, sh[1]
    return None


def _letter_shape(a, decl, n, k):
    tag = a[0]
    if tag == "s":
        r, c = decl.matrices[a[1]]
        return _dim(r, n, k), _dim(c, n, k)
    if tag == "t":
        r, c = decl.matrices[a[1]]
        return _dim(c, n, k), _dim(r, n, k)
    sh = poly_shape(unkey(a[1]), decl, n, k)
    if sh is None:
        return None
    return (sh[1], sh[0]) if tag == "T" else sh


def poly_shape(p, decl, n, k):
    """The (rows, cols) of a polynomial at dimension n (None: only identities — square).

    Parameters
    ----------
    p : dict
        A polynomial.
    decl : Decl
        The declared symbols and their shapes.
    n : int
        The value of d.
    k : int
        The value of k.

    Returns
    -------
    tuple of int or None
        (rows, cols) of its first shaped word, or None when it has only identities.
    """
    for (_, w), _ in p.items():
        sh = _shape_of_word(w, decl, n, k)
        if sh is not None:
            return sh
    return None


def evaluate(p, env: dict, decl: Decl, n: int, k: int | None = None, shape=None):
    """The exact value (``fmpq_mat``) of a polynomial with symbols bound in ``env``
    (name → fmpq_mat or fmpq); raises :class:`Unevaluable` on a d/dt atom and
    ZeroDivisionError on a singular inverse.

    Parameters
    ----------
    p : dict
        A polynomial.
    env : dict
        Symbol name → value (``fmpq_mat`` for a matrix, ``fmpq`` for a scalar).
    decl : Decl
        The declared symbols.
    n : int
        The value of d.
    k : int, optional
        The value of k (default n).
    shape : tuple of int, optional
        The (rows, cols) of the result (default: from :func:`poly_shape`, else n×n).

    Returns
    -------
    flint.fmpq_mat
        The exact value of p.
    """
    k = n if k is None else k
    sh = shape or poly_shape(p, decl, n, k) or (n, n)
    total = flint.fmpq_mat(sh[0], sh[1])
    for (s, w), c in p.items():
        coef = fmpq_of(c)
        for a in s:
            coef *= _eval_scalar(a, env, decl, n, k)
        if not w:
            M = flint.fmpq_mat(sh[0], sh[1], [1 if i == j else 0 for i in range(sh[0]) for j in range(sh[1])])
        else:
            M = None
            for idx, a in enumerate(w):
                L = _eval_letter(a, env, decl, n, k, sh[0] if idx == 0 else None)
                M = L if M is None else M * L
        total += M * coef
    return total


def evaluate_logs(p, env: dict, decl: Decl, n: int, k: int | None = None, shape=None) -> dict:
    """Like :func:`evaluate`, but a log det atom is kept as the formal symbol log q, q = the exact
    determinant of its argument (which must be > 0): the value is {(q₁, …, q_r): M} (the sorted
    q's of each product of log dets, M the exact matrix coefficient; zero coefficients dropped).
    Two such values are compared formally, so the guard checks rules that map a log det to the log
    det of a matrix with the same determinant (``sylvester``); log q₁ + log q₂ and log q₁q₂ count
    as different here — no rule produces either.

    Parameters
    ----------
    p : dict
        A polynomial.
    env : dict
        Symbol name → value (``fmpq_mat`` for a matrix, ``fmpq`` for a scalar).
    decl : Decl
        The declared symbols.
    n : int
        The value of d.
    k : int, optional
        The value of k (default n).
    shape : tuple of int, optional
        The (rows, cols) of the result (default: from :func:`poly_shape`, else n×n).

    Returns
    -------
    dict
        The formal value; raises :class:`Unevaluable` on a d/dt atom or a log det of a matrix
        whose determinant is not positive.
    """
    k = n if k is None else k
    sh = shape or poly_shape(p, decl, n, k) or (n, n)
    out: dict = {}
    for (s, w), c in p.items():
        logs = []
        for a in s:
            if a[0] == "ld":
                D = evaluate(unkey(a[1]), env, decl, n, k).det()
                if not D > 0:
                    raise Unevaluable("log det of a matrix whose determinant is not positive")
                logs.append(D)
        rest = {(tuple(x for x in s if x[0] != "ld"), w): c}
        M = evaluate(rest, env, decl, n, k, shape=sh)
        tag = tuple(sorted(logs))
        out[tag] = out[tag] + M if tag in out else M
    return {t: M for t, M in out.items() if any(x != 0 for x in M.entries())}


def _eval_scalar(a, env, decl, n, k):
    if a[0] == "c":
        return flint.fmpq(n) if a[1] == "d" else env[a[1]]
    if a[0] == "tr":
        M = evaluate(unkey(a[1]), env, decl, n, k)
        return sum((M[i, i] for i in range(M.nrows())), flint.fmpq(0))
    if a[0] == "ld":
        raise Unevaluable("log det has no rational value")
    raise CertificationFailed("matrix proof: malformed scalar atom")


def _eval_letter(a, env, decl, n, k, rows_hint):
    tag = a[0]
    if tag == "s":
        return env[a[1]]
    if tag == "t":
        return env[a[1]].transpose()
    if tag == "d":
        raise Unevaluable("d/dt atom")
    inner = unkey(a[1])
    sh = poly_shape(inner, decl, n, k) or (rows_hint or n, rows_hint or n)
    M = evaluate(inner, env, decl, n, k, shape=sh)
    if tag == "T":
        return M.transpose()
    if tag == "inv":
        if M.nrows() != M.ncols() or M.det() == 0:
            raise ZeroDivisionError("singular inverse")
        return M.inv()
    raise CertificationFailed("matrix proof: malformed letter")
