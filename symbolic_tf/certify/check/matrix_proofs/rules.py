"""The rewriting rules of matrix-form proofs; each is a matrix identity valid for every d.

A rule maps a normal form (:mod:`.terms`) to a normal form; it is applied everywhere — also
inside the arguments of inverse, transpose, trace and d/dt atoms — and is deterministic, so a
checker recomputes each step.  The rules and the identities they use (docs/mathematics.md §10):

``transpose``        (XY)ᵀ = YᵀXᵀ, (X + Y)ᵀ = Xᵀ + Yᵀ, (cX)ᵀ = cXᵀ, Xᵀᵀ = X, Iᵀ = I,
                     (X⁻¹)ᵀ = (Xᵀ)⁻¹, (d/dt X)ᵀ = d/dt Xᵀ: every opaque (E)ᵀ is pushed to the letters
``symmetric``        Xᵀ = X for the symbols the hypotheses declare symmetric
``scalar_transpose`` a 1×1 product equals its transpose: wᵀ (with the hypotheses' symmetric
                     symbols untransposed) replaces w when it is smaller in the canonical order
                     (so uᵀv and vᵀu, uᵀΣ⁻¹v and vᵀΣ⁻¹u get one form)
``cancel``           M M⁻¹ = M⁻¹ M = I for any polynomial M (also when M is a sum, matched
                     term by term across the expanded sum); optional ``M`` restricts it to one M
``inverse_product``  (X₁⋯X_m)⁻¹ = X_m⁻¹⋯X₁⁻¹ for square factors (the product being invertible,
                     so is each square factor: det is multiplicative); args ``factors``
``inverse_inverse``  (X⁻¹)⁻¹ = X
``push_through``     X(I + YX)⁻¹ = (I + XY)⁻¹X for any X (m×n), Y (n×m); args ``X``, ``Y``,
                     ``direction`` ("right": the left-hand form is rewritten, "left": the converse)
``sylvester``        log det(I + XY) = log det(I + YX) for any X (m×n), Y (n×m) (Sylvester's
                     determinant identity det(I_m + XY) = det(I_n + YX), so one side is defined
                     exactly when the other is); args ``X``, ``Y``: every log det(I + XY) is rewritten
``trace``            linearity tr(Σ cᵢWᵢ) = Σ cᵢ tr(Wᵢ), tr(I) = d, cyclicity tr(XY) = tr(YX)
                     (each word is rotated to its least rotation)
``trace_transpose``  tr(W) = tr(Wᵀ) (the least of the two forms, for words of symbol letters)
``differentiate``    d/dt of a product (Leibniz), d/dt X⁻¹ = −X⁻¹Ẋ X⁻¹, d/dt Xᵀ = Ẋᵀ,
                     d/dt tr X = tr Ẋ, d/dt log det X = tr(X⁻¹Ẋ) (X invertible, det X > 0), with the symbols' derivatives from the hypotheses
``insert_inverse``   E = M⁻¹ M E (``side`` "left") or E M M⁻¹ ("right"), for an M whose inverse
                     already occurs in E (so it exists wherever E is defined)
``substitute``       an equation of the hypotheses (or a proved lemma) used left to right
                     (``direction`` "lr") or right to left ("rl"); its replaced side must be a
                     single word, and every occurrence of that word is replaced

A rule that does not apply leaves the expression unchanged (the step then fails to match
its stated result, unless nothing was claimed to change).
"""
from __future__ import annotations

from fractions import Fraction

from ....spec.errors import CertificationFailed
from .terms import ONE, Decl, canonical_order, inverse_atom, key, normal, padd, pmul, poly_shape, pscale, transpose_atom, unkey

__all__ = ["RULES", "apply_rule", "Context", "transpose_poly"]

MAX_ROUNDS = 50


class Context:
    """What rules may use: the declaration, the symmetric symbols, the equations (list of
    (lhs, rhs) normal forms) and the derivative table (name → normal form)."""

    def __init__(self, decl: Decl, symmetric=(), equations=(), derivatives=None):
        self.decl = decl
        self.symmetric = frozenset(symmetric)
        self.equations = list(equations)
        self.derivatives = dict(derivatives or {})


# ------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------
def _map_atoms(p, fn):
    """Apply ``fn`` (poly → poly) inside every atom, bottom-up; rebuild the atoms."""
    out = {}
    for (s, w), c in p.items():
        acc = {((), ()): c}
        for a in s:
            acc = pmul(acc, _rebuild(a, fn, scalar=True))
        for a in w:
            acc = pmul(acc, _rebuild(a, fn, scalar=False))
        out = padd(out, acc)
    return out


def _rebuild(a, fn, scalar):
    tag = a[0]
    if tag in ("s", "t", "c"):
        return {((a,), ()): Fraction(1)} if scalar else {((), (a,)): Fraction(1)}
    inner = fn(_map_atoms(unkey(a[1]), fn))
    if tag == "T":
        return transpose_atom(inner)
    if tag == "inv":
        return inverse_atom(inner)
    if tag == "tr":
        return {((("tr", key(inner)),), ()): Fraction(1)} if inner else {}
    if tag == "ld":
        if not inner:
            raise CertificationFailed("matrix proof: a rule produced log det of 0")
        return {((("ld", key(inner)),), ()): Fraction(1)}
    if tag == "d":
        return {((), (("d", key(inner)),)): Fraction(1)} if inner else {}
    raise CertificationFailed("matrix proof: malformed atom")


def _map_letters(q, f):
    """Replace every matrix letter a of every term by the polynomial f(a) (None: keep a)."""
    out = {}
    for (s, w), c in q.items():
        acc = {(s, ()): c}
        for a in w:
            r = f(a)
            acc = pmul(acc, {((), (a,)): Fraction(1)} if r is None else r)
        out = padd(out, acc)
    return out


def _everywhere(p, fn):
    """fn applied inside every atom and then at the top."""
    return fn(_map_atoms(p, fn))


def _letter_T(a) -> dict:
    tag = a[0]
    if tag == "s":
        return {((), (("t", a[1]),)): Fraction(1)}
    if tag == "t":
        return {((), (("s", a[1]),)): Fraction(1)}
    if tag == "T":
        return unkey(a[1])
    if tag == "inv":
        return {((), (("inv", key(transpose_poly(unkey(a[1])))),)): Fraction(1)}
    if tag == "d":
        return {((), (("d", key(transpose_poly(unkey(a[1])))),)): Fraction(1)}
    raise CertificationFailed("matrix proof: malformed letter")


def transpose_poly(p) -> dict:
    """Pᵀ with the transposes pushed to the letters (the ``transpose`` rule's identities).

    Parameters
    ----------
    p : dict
        A polynomial (normal form).

    Returns
    -------
    dict
        The normal form of pᵀ.
    """
    out = {}
    for (s, w), c in p.items():
        acc = {(s, ()): c}
        for a in reversed(w):
            acc = pmul(acc, _letter_T(a))
        out = padd(out, acc)
    return out


# ------------------------------------------------------------------------------------------
# the rules
# ------------------------------------------------------------------------------------------
def _fixpoint(p, fn):
    """fn applied everywhere until nothing changes (at most MAX_ROUNDS rounds)."""
    for _ in range(MAX_ROUNDS):
        new = _everywhere(p, fn)
        if new == p:
            return p
        p = new
    return p


def r_transpose(p, ctx, args):
    """Rule ``transpose``: every opaque (E)ᵀ pushed to the letters, (XY)ᵀ = YᵀXᵀ, (X + Y)ᵀ = Xᵀ + Yᵀ,
    (X⁻¹)ᵀ = (Xᵀ)⁻¹, (d/dt X)ᵀ = d/dt Xᵀ (to a fixed point).

    Parameters
    ----------
    p : dict
        The normal form to rewrite.
    ctx : Context
        The declaration, symmetric symbols, equations and derivatives of the hypotheses.
    args : dict
        The rule arguments (none are used).

    Returns
    -------
    dict
        The rewritten normal form (unchanged where the rule does not apply).
    """
    return _fixpoint(p, lambda q: _map_letters(q, lambda a: transpose_poly(unkey(a[1])) if a[0] == "T" else None))


def r_symmetric(p, ctx, args):
    """Rule ``symmetric``: Xᵀ = X for the given symbols, declared symmetric by the hypotheses.

    Parameters
    ----------
    p : dict
        The normal form to rewrite.
    ctx : Context
        The declaration, symmetric symbols, equations and derivatives of the hypotheses.
    args : dict
        The rule arguments: ``{"names": [...]}``, the symmetric symbols to untranspose

    Returns
    -------
    dict
        The rewritten normal form (unchanged where the rule does not apply).
    """
    names = args.get("names")
    if not isinstance(names, list) or any(n not in ctx.symmetric for n in names):
        raise CertificationFailed("matrix proof: symmetric: every name must be a symmetric symbol of the hypotheses")
    names = set(names)

    def fn(q):
        out = {}
        for (s, w), c in q.items():
            w2 = tuple(("s", a[1]) if a[0] == "t" and a[1] in names else a for a in w)
            out = padd(out, {(s, w2): c})
        return out
    return _everywhere(p, fn)


def _word_T(w):
    """The transposed word when every letter is a symbol or transposed symbol, else None."""
    out = []
    for a in reversed(w):
        if a[0] == "s":
            out.append(("t", a[1]))
        elif a[0] == "t":
            out.append(("s", a[1]))
        else:
            return None
    return tuple(out)


def _word_T_sym(w, ctx):
    """The transposed word (letters of any kind, with the hypotheses' symmetric symbols
    written untransposed), when it is again a single word; else None."""
    acc = {((), ()): Fraction(1)}
    for a in reversed(w):
        acc = pmul(acc, _letter_T(a))
    if ctx.symmetric:
        acc = r_symmetric(acc, ctx, {"names": sorted(ctx.symmetric)})
    if len(acc) != 1:
        return None
    (s, wt), c = next(iter(acc.items()))
    return wt if not s and c == 1 else None


def r_scalar_transpose(p, ctx, args):
    """Rule ``scalar_transpose``: a 1×1 word w is replaced by wᵀ (symmetric symbols
    untransposed) when that is smaller in the canonical order.

    Parameters
    ----------
    p : dict
        The normal form to rewrite.
    ctx : Context
        The declaration, symmetric symbols, equations and derivatives of the hypotheses.
    args : dict
        The rule arguments (none are used).

    Returns
    -------
    dict
        The rewritten normal form (unchanged where the rule does not apply).
    """
    decl = ctx.decl

    def fn(q):
        out = {}
        for (s, w), c in q.items():
            if w:
                sh = poly_shape({((), w): 1}, decl, 2, 3)
                wt = _word_T_sym(w, ctx)
                if sh == (1, 1) and wt is not None and canonical_order(wt) < canonical_order(w):
                    w = wt
            out = padd(out, {(s, w): c})
        return out
    return _everywhere(p, fn)


def _cancel_once(q, only=None):
    """One cancellation M·M⁻¹ → I or M⁻¹·M → I in the expanded sum q, or None
    (``only``: the key of the one M to cancel)."""
    items = sorted(q.items(), key=lambda kv: canonical_order(kv[0]))
    for (s, w), c in items:
        for i, a in enumerate(w):
            if a[0] != "inv" or (only is not None and a[1] != only):
                continue
            M = unkey(a[1])
            mons = sorted(M.items(), key=lambda kv: canonical_order(kv[0]))
            for side in ("left", "right"):
                for (ms, mw), mc in mons:
                    if ms:  # a scalar factor inside M: the match would need commuting it
                        continue
                    if side == "left":
                        if len(mw) > i or w[i - len(mw):i] != mw:
                            continue
                        u, v = w[:i - len(mw)], w[i + 1:]
                        mk = lambda m_w: u + m_w + (a,) + v  # noqa: E731
                    else:
                        if w[i + 1:i + 1 + len(mw)] != mw:
                            continue
                        u, v = w[:i], w[i + 1 + len(mw):]
                        mk = lambda m_w: u + (a,) + m_w + v  # noqa: E731
                    k = c / mc
                    needed = {}
                    ok = True
                    for (ns, nw), nc in mons:
                        if ns:
                            ok = False
                            break
                        t = (s, mk(nw))
                        needed[t] = needed.get(t, 0) + k * nc
                    if not ok:
                        continue
                    if all(q.get(t) == v_ for t, v_ in needed.items()):
                        out = dict(q)
                        for t in needed:
                            del out[t]
                        return padd(out, {(s, u + v): k})
    return None


def r_cancel(p, ctx, args):
    """Rule ``cancel``: M M⁻¹ = M⁻¹ M = I, repeated to a fixed point.

    Parameters
    ----------
    p : dict
        The normal form to rewrite.
    ctx : Context
        The declaration, symmetric symbols, equations and derivatives of the hypotheses.
    args : dict
        The rule arguments: ``{"M": term}`` (optional) restricts the cancellation to that M

    Returns
    -------
    dict
        The rewritten normal form (unchanged where the rule does not apply).
    """
    only = None
    if "M" in args:
        m = normal(args["M"], ctx.decl)
        inv_m = inverse_atom(m)
        (ms, mw), _ = next(iter(inv_m.items()))
        if len(inv_m) != 1 or ms or len(mw) != 1 or mw[0][0] != "inv":
            raise CertificationFailed("matrix proof: cancel: M must be a matrix expression")
        only = mw[0][1]

    def fn(q):
        for _ in range(MAX_ROUNDS):
            nq = _cancel_once(q, only)
            if nq is None:
                return q
            q = nq
        return q
    return _fixpoint(p, fn)


def _term_arg(args, name, ctx):
    if name not in args:
        raise CertificationFailed(f"matrix proof: missing argument {name!r}")
    return normal(args[name], ctx.decl)


def _square(p, decl):
    sh = poly_shape(p, decl, 2, 3)
    return sh is None or sh[0] == sh[1]


def r_inverse_product(p, ctx, args):
    """Rule ``inverse_product``: (X₁⋯X_m)⁻¹ = X_m⁻¹⋯X₁⁻¹ for 2…8 square nonzero factors.

    Parameters
    ----------
    p : dict
        The normal form to rewrite.
    ctx : Context
        The declaration, symmetric symbols, equations and derivatives of the hypotheses.
    args : dict
        The rule arguments: ``{"factors": [term, ...]}``, the factors X₁, …, X_m

    Returns
    -------
    dict
        The rewritten normal form (unchanged where the rule does not apply).
    """
    fs = args.get("factors")
    if not isinstance(fs, list) or not 2 <= len(fs) <= 8:
        raise CertificationFailed("matrix proof: inverse_product needs 2..8 factors")
    factors = [normal(f, ctx.decl) for f in fs]
    if any(not f or not _square(f, ctx.decl) for f in factors):
        raise CertificationFailed("matrix proof: inverse_product: every factor must be square and nonzero")
    prod = dict(ONE)
    for f in factors:
        prod = pmul(prod, f)
    prod = r_cancel(prod, ctx, {})
    target = ("inv", key(prod))
    repl = dict(ONE)
    for f in reversed(factors):
        repl = pmul(repl, _rebuild(("inv", key(f)), lambda x: x, scalar=False))

    def fn(q):
        return _replace_letter(q, target, repl)
    return _everywhere(p, fn)


def _replace_letter(q, target, repl):
    return _map_letters(q, lambda a: repl if a == target else None)


def _double_inverse(a):
    """X for the letter (X⁻¹)⁻¹ (X a single inverse letter), else None."""
    if a[0] != "inv":
        return None
    inner = unkey(a[1])
    if len(inner) == 1:
        (ms, mw), mc = next(iter(inner.items()))
        if not ms and mc == 1 and len(mw) == 1 and mw[0][0] == "inv":
            return unkey(mw[0][1])
    return None


def r_inverse_inverse(p, ctx, args):
    """Rule ``inverse_inverse``: (X⁻¹)⁻¹ = X.

    Parameters
    ----------
    p : dict
        The normal form to rewrite.
    ctx : Context
        The declaration, symmetric symbols, equations and derivatives of the hypotheses.
    args : dict
        The rule arguments (none are used).

    Returns
    -------
    dict
        The rewritten normal form (unchanged where the rule does not apply).
    """
    return _everywhere(p, lambda q: _map_letters(q, _double_inverse))


def _monomial_word(p, what):
    if len(p) != 1:
        raise CertificationFailed(f"matrix proof: {what} must be a single word")
    (s, w), c = next(iter(p.items()))
    if s or c != 1 or not w:
        raise CertificationFailed(f"matrix proof: {what} must be a single word with coefficient 1")
    return w


def r_push_through(p, ctx, args):
    """Rule ``push_through``: X(I + YX)⁻¹ = (I + XY)⁻¹X (direction "right") or the converse
    ("left"), for a single word X.

    Parameters
    ----------
    p : dict
        The normal form to rewrite.
    ctx : Context
        The declaration, symmetric symbols, equations and derivatives of the hypotheses.
    args : dict
        The rule arguments: ``{"X": term, "Y": term, "direction": "right" | "left"}``

    Returns
    -------
    dict
        The rewritten normal form (unchanged where the rule does not apply).
    """
    X = _term_arg(args, "X", ctx)
    Y = _term_arg(args, "Y", ctx)
    direction = args.get("direction", "right")
    if direction not in ("right", "left"):
        raise CertificationFailed("matrix proof: push_through direction is 'right' or 'left'")
    xw = _monomial_word(X, "push_through X")
    inner_yx = ("inv", key(padd(ONE, pmul(Y, X))))
    inner_xy = ("inv", key(padd(ONE, pmul(X, Y))))
    n = len(xw)

    def fn(q):
        out = {}
        for (s, w), c in q.items():
            i = 0
            w = list(w)
            res = []
            while i < len(w):
                if direction == "right" and w[i:i + n] == list(xw) and i + n < len(w) and w[i + n] == inner_yx:
                    res += [inner_xy] + list(xw)
                    i += n + 1
                elif direction == "left" and w[i] == inner_xy and w[i + 1:i + 1 + n] == list(xw):
                    res += list(xw) + [inner_yx]
                    i += n + 1
                else:
                    res.append(w[i])
                    i += 1
            out = padd(out, {(s, tuple(res)): c})
        return out
    return _everywhere(p, fn)


def r_sylvester(p, ctx, args):
    """Rule ``sylvester``: log det(I + XY) = log det(I + YX) (Sylvester's determinant identity
    det(I_m + XY) = det(I_n + YX) for X m×n, Y n×m; the two determinants are equal, so one log det
    is defined — det > 0 — exactly when the other is).

    Parameters
    ----------
    p : dict
        The normal form to rewrite.
    ctx : Context
        The declaration, symmetric symbols, equations and derivatives of the hypotheses.
    args : dict
        The rule arguments: ``{"X": term, "Y": term}``; every log det whose argument is the normal
        form of I + XY becomes log det(I + YX).

    Returns
    -------
    dict
        The rewritten normal form (unchanged where the rule does not apply).
    """
    X = _term_arg(args, "X", ctx)
    Y = _term_arg(args, "Y", ctx)
    if not (X and Y):
        raise CertificationFailed("matrix proof: sylvester needs nonzero X and Y")
    source = ("ld", key(padd(ONE, pmul(X, Y))))
    target = ("ld", key(padd(ONE, pmul(Y, X))))

    def fn(q):
        out = {}
        for (s, w), c in q.items():
            acc = {((), w): c}
            for a in s:
                acc = pmul({((target if a == source else a,), ()): Fraction(1)}, acc)
            out = padd(out, acc)
        return out
    return _everywhere(p, fn)


def _rotations(w):
    return [w[i:] + w[:i] for i in range(len(w))] or [w]


def _inverse_pair(a, b):
    """True when b = a⁻¹ or a = b⁻¹ for a single-word a (resp. b) with coefficient 1."""
    for x, y in ((a, b), (b, a)):
        if y[0] == "inv":
            inner = unkey(y[1])
            if len(inner) == 1:
                (ms, mw), mc = next(iter(inner.items()))
                if not ms and mc == 1 and mw == (x,):
                    return True
    return False


def _cyclic_cancel(w):
    """Cancel X X⁻¹ pairs in a trace word, cyclically (tr(X⁻¹WX) = tr(W))."""
    w = list(w)
    changed = True
    while changed and len(w) >= 2:
        changed = False
        for i in range(len(w)):
            j = (i + 1) % len(w)
            if _inverse_pair(w[i], w[j]):
                w = [a for k, a in enumerate(w) if k not in (i, j)]
                changed = True
                break
    return tuple(w)


def r_trace(p, ctx, args):
    """Rule ``trace``: tr(Σ cᵢWᵢ) = Σ cᵢ tr(Wᵢ), tr(I) = d, and tr(XY) = tr(YX) (each word rotated to
    its least rotation, with M M⁻¹ cancelled cyclically).

    Parameters
    ----------
    p : dict
        The normal form to rewrite.
    ctx : Context
        The declaration, symmetric symbols, equations and derivatives of the hypotheses.
    args : dict
        The rule arguments (none are used).

    Returns
    -------
    dict
        The rewritten normal form (unchanged where the rule does not apply).
    """
    decl = ctx.decl

    def trace_of(inner):
        sh = poly_shape(inner, decl, 2, 3)
        if sh is not None and sh[0] != sh[1]:
            raise CertificationFailed("matrix proof: trace of a non-square expression")
        out = {}
        def identity_trace(s, c):
            """tr of c·I: the identity has the size of the traced expression (d when shapeless)."""
            if sh is not None and sh[0] == 1:
                return {(s, ()): c}
            if sh is not None and sh[0] != 2:
                raise CertificationFailed("matrix proof: tr(I) of a k×k identity")
            return {(tuple(sorted(s + (("c", "d"),), key=canonical_order)), ()): c}

        for (s, w), c in inner.items():
            if not w:
                out = padd(out, identity_trace(s, c))
                continue
            w = _cyclic_cancel(w)
            if not w:
                out = padd(out, identity_trace(s, c))
                continue
            wmin = min(_rotations(w), key=canonical_order)
            atom = ("tr", key({((), wmin): Fraction(1)}))
            out = padd(out, {(tuple(sorted(s + (atom,), key=canonical_order)), ()): c})
        return out

    def fn(q):
        out = {}
        for (s, w), c in q.items():
            acc = {((), w): c}
            for a in s:
                if a[0] == "tr":
                    acc = pmul(acc, trace_of(unkey(a[1])))
                else:
                    acc = pmul(acc, {((a,), ()): Fraction(1)})
            out = padd(out, acc)
        return out
    return _everywhere(p, fn)


def r_trace_transpose(p, ctx, args):
    """Rule ``trace_transpose``: tr(W) = tr(Wᵀ), the least of the rotations of W and Wᵀ, for a
    word W of symbol letters.

    Parameters
    ----------
    p : dict
        The normal form to rewrite.
    ctx : Context
        The declaration, symmetric symbols, equations and derivatives of the hypotheses.
    args : dict
        The rule arguments (none are used).

    Returns
    -------
    dict
        The rewritten normal form (unchanged where the rule does not apply).
    """
    def fn(q):
        out = {}
        for (s, w), c in q.items():
            s2 = []
            for a in s:
                if a[0] == "tr":
                    inner = unkey(a[1])
                    if len(inner) == 1:
                        (ms, mw), mc = next(iter(inner.items()))
                        wt = _word_T(mw)
                        if not ms and mc == 1 and wt is not None:
                            best = min(_rotations(mw) + _rotations(wt), key=canonical_order)
                            a = ("tr", key({((), best): Fraction(1)}))
                s2.append(a)
            out = padd(out, {(tuple(sorted(s2, key=canonical_order)), w): c})
        return out
    return _everywhere(p, fn)


def _deriv_letter(a, ctx, scalar):
    tag = a[0]
    if tag in ("s", "t", "c"):
        name = a[1]
        if tag == "c" and name == "d":
            return {}
        if name not in ctx.derivatives:
            raise CertificationFailed(f"matrix proof: differentiate: no derivative declared for {name}")
        dv = ctx.derivatives[name]
        return transpose_poly(dv) if tag == "t" else dv
    inner = unkey(a[1])
    if tag == "inv":
        me = {((), (a,)): Fraction(1)}
        return pscale(pmul(pmul(me, _deriv(inner, ctx)), me), -1)
    if tag == "T":
        return transpose_atom(_deriv(inner, ctx))
    if tag == "tr":
        di = _deriv(inner, ctx)
        return {((("tr", key(di)),), ()): Fraction(1)} if di else {}
    if tag == "ld":  # d/dt log det X = tr(X⁻¹Ẋ)
        di = pmul(inverse_atom(inner), _deriv(inner, ctx))
        return {((("tr", key(di)),), ()): Fraction(1)} if di else {}
    raise CertificationFailed("matrix proof: differentiate: second derivatives are not supported")


def _deriv(p, ctx):
    out = {}
    for (s, w), c in p.items():
        for i, a in enumerate(s):
            rest = {(s[:i] + s[i + 1:], w): c}
            out = padd(out, pmul(_deriv_letter(a, ctx, True), rest))
        for j, a in enumerate(w):
            left = {(s, w[:j]): c}
            right = {((), w[j + 1:]): Fraction(1)}
            out = padd(out, pmul(pmul(left, _deriv_letter(a, ctx, False)), right))
    return out


def r_differentiate(p, ctx, args):
    """Rule ``differentiate``: d/dt expanded by the Leibniz rule, d/dt X⁻¹ = −X⁻¹Ẋ X⁻¹,
    d/dt Xᵀ = Ẋᵀ, d/dt tr X = tr Ẋ, d/dt log det X = tr(X⁻¹Ẋ), with Ẋ from the derivative table.

    Parameters
    ----------
    p : dict
        The normal form to rewrite.
    ctx : Context
        The declaration, symmetric symbols, equations and derivatives of the hypotheses.
    args : dict
        The rule arguments (none are used).

    Returns
    -------
    dict
        The rewritten normal form (unchanged where the rule does not apply).
    """
    return _everywhere(p, lambda q: _map_letters(q, lambda a: _deriv(unkey(a[1]), ctx) if a[0] == "d" else None))


def r_substitute(p, ctx, args):
    """Rule ``substitute``: every occurrence of the word on one side of an equation of the
    hypotheses replaced by the other side (for a single symbol X, also Xᵀ by the transposed side).

    Parameters
    ----------
    p : dict
        The normal form to rewrite.
    ctx : Context
        The declaration, symmetric symbols, equations and derivatives of the hypotheses.
    args : dict
        The rule arguments: ``{"equation": index into ctx.equations, "direction": "lr" | "rl"}``

    Returns
    -------
    dict
        The rewritten normal form (unchanged where the rule does not apply).
    """
    idx = args.get("equation")
    direction = args.get("direction", "lr")
    if isinstance(idx, bool) or not isinstance(idx, int) or not 0 <= idx < len(ctx.equations):
        raise CertificationFailed("matrix proof: substitute: no such equation")
    if direction not in ("lr", "rl"):
        raise CertificationFailed("matrix proof: substitute direction is 'lr' or 'rl'")
    lhs, rhs = ctx.equations[idx]
    if direction == "rl":
        lhs, rhs = rhs, lhs
    pat = _monomial_word(lhs, "the replaced side of an equation")
    n = len(pat)
    # a single symbol X: its transpose Xᵀ is replaced by the transposed right side
    tpat = ("t", pat[0][1]) if n == 1 and pat[0][0] == "s" else None
    trhs = transpose_poly(rhs) if tpat else None

    def fn(q):
        out = {}
        for (s, w), c in q.items():
            acc = {(s, ()): c}
            i = 0
            while i < len(w):
                if w[i:i + n] == pat:
                    acc = pmul(acc, rhs)
                    i += n
                elif tpat is not None and w[i] == tpat:
                    acc = pmul(acc, trhs)
                    i += 1
                else:
                    acc = pmul(acc, {((), (w[i],)): Fraction(1)})
                    i += 1
            out = padd(out, acc)
        return out
    return _everywhere(p, fn)


def r_insert_inverse(p, ctx, args):
    """Rule ``insert_inverse``: E = M⁻¹ M E (side "left") or E M M⁻¹ ("right"), for a square M
    whose inverse already occurs in E.

    Parameters
    ----------
    p : dict
        The normal form to rewrite.
    ctx : Context
        The declaration, symmetric symbols, equations and derivatives of the hypotheses.
    args : dict
        The rule arguments: ``{"M": term, "side": "left" | "right"}``

    Returns
    -------
    dict
        The rewritten normal form (unchanged where the rule does not apply).
    """
    M = _term_arg(args, "M", ctx)
    side = args.get("side", "left")
    if side not in ("left", "right"):
        raise CertificationFailed("matrix proof: insert_inverse side is 'left' or 'right'")
    inv = inverse_atom(M)
    if len(inv) == 1 and next(iter(inv)) != ((), ()):
        (ms, mw), _ = next(iter(inv.items()))
        letter = mw[0] if mw else None
    else:
        letter = None
    used = letter is not None and any(letter in w for (_, w) in _all_words(p))
    if not used:
        raise CertificationFailed("matrix proof: insert_inverse: M⁻¹ must already occur in the expression")
    msh = poly_shape(M, ctx.decl, 2, 3) or (2, 2)
    psh = poly_shape(p, ctx.decl, 2, 3) or (2, 2)
    if msh[0] != msh[1] or msh[0] != (psh[0] if side == "left" else psh[1]):
        raise CertificationFailed("matrix proof: insert_inverse: M must be square of the size of the expression")
    return pmul(pmul(inv, M), p) if side == "left" else pmul(pmul(p, M), inv)


def _all_words(p):
    for (s, w), c in p.items():
        yield s, w
        for a in s + w:
            if a[0] in ("T", "inv", "tr", "d", "ld"):
                yield from _all_words(unkey(a[1]))


RULES = {
    "transpose": r_transpose,
    "symmetric": r_symmetric,
    "scalar_transpose": r_scalar_transpose,
    "cancel": r_cancel,
    "inverse_product": r_inverse_product,
    "inverse_inverse": r_inverse_inverse,
    "push_through": r_push_through,
    "sylvester": r_sylvester,
    "trace": r_trace,
    "trace_transpose": r_trace_transpose,
    "differentiate": r_differentiate,
    "substitute": r_substitute,
    "insert_inverse": r_insert_inverse,
}


def apply_rule(name, p, ctx: Context, args=None) -> dict:
    """The normal form after applying rule ``name`` (with ``args``) everywhere in ``p``.

    Parameters
    ----------
    name : str
        A rule name, a key of ``RULES``.
    p : dict
        The normal form to rewrite.
    ctx : Context
        What the rule may use (declaration, symmetric symbols, equations, derivatives).
    args : dict, optional
        The rule arguments.

    Returns
    -------
    dict
        The rewritten normal form; raises CertificationFailed on an unknown rule or bad arguments.
    """
    if name not in RULES:
        raise CertificationFailed(f"matrix proof: unknown rule {str(name)[:40]!r}; known: {', '.join(RULES)}")
    args = args or {}
    if not isinstance(args, dict):
        raise CertificationFailed("matrix proof: rule arguments must be an object")
    return RULES[name](p, ctx, args)
