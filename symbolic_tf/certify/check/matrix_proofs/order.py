"""Operator inequalities for every dimension: theorems as chains of Loewner-order facts (and of
scalar facts about traces), each derived by a named rule from earlier facts and matrix-form
identities (docs/mathematics.md §10).

A theorem document::

    {"name": "...", "symbols": {...}, "hypotheses": {...},      # as in a proof (:mod:`.replay`)
     "identities": [proof, ...],                                # matrix-form proofs, replayed
     "facts": [{"fact": "pd" | "psd" | "nonneg", "expr": term, "by": rule, "from": [i, ...],
                "args": {...}}, ...],
     "conclusion": [i, ...]}

A matrix fact says that expr is a symmetric matrix with expr ≻ 0 ("pd") or expr ⪰ 0 ("psd"),
for every d and all real matrices satisfying the hypotheses (every rule below yields a
symmetric matrix); a scalar fact ("nonneg") says that the scalar expr (a polynomial in traces,
with no matrix letters outside them) is ≥ 0.  Facts are compared after pushing transposes to
the letters, writing the symmetric symbols untransposed and expanding traces (linearity,
cyclicity).  The rules (each a standard statement of linear algebra):

``hypothesis``   X ≻ 0 for a symbol X the hypotheses declare positive definite; I ≻ 0
``gram``         X Xᵀ ⪰ 0 for any X (args ``X``)
``congruence``   Y ⪰ 0 (or ≻ 0) ⇒ X Y Xᵀ ⪰ 0 for any X (args ``X``)
``sum``          Σ wᵢYᵢ with rational wᵢ > 0 is ⪰ 0 when every Yᵢ ⪰ 0, and ≻ 0 when moreover one
                 Yᵢ ≻ 0 (args ``weights``)
``inverse``      Y ≻ 0 ⇒ Y⁻¹ ≻ 0
``identity``     Y ⪰ 0 (≻ 0) and a replayed identity Y = Z (either side) ⇒ Z ⪰ 0 (≻ 0); the
                 identity's hypotheses must be among the theorem's (args ``identity``: index)
``weaken``       Y ≻ 0 ⇒ Y ⪰ 0
``commuting``    P ⪰ 0, Q ⪰ 0 (≻ 0 both: ≻ 0) and a replayed identity PQ = QP ⇒ PQ ⪰ 0 (commuting
                 symmetric matrices diagonalise in one basis; args ``identity``)
``trace_product`` P ⪰ 0, Q ⪰ 0 ⇒ tr(PQ) ≥ 0 (tr(PQ) = tr(P^{1/2}QP^{1/2})); a scalar fact
``square``       s² ≥ 0 for a real scalar expression s (args ``X``)

``sum`` and ``identity`` apply to scalar facts too (a sum of scalar facts only).
"""
from __future__ import annotations

from ....spec.errors import CertificationFailed
from .replay import parse_statement, replay, statement_params
from .rules import apply_rule
from .terms import normal, render_poly, typecheck

__all__ = ["replay_theorem", "theorem_params", "stored_theorem", "require_theorem", "THEOREM_DIR", "MAX_FACTS"]

MAX_FACTS = 64
_RELATION = {"pd": "≻", "psd": "⪰", "nonneg": "≥"}
THEOREM_DIR = __import__("pathlib").Path(__file__).resolve().parent / "theorems"
_REPLAYED: dict = {}


def stored_theorem(name: str):
    """The theorem ``theorems/<name>.json`` shipped with the checker, replayed once per process:
    (sha256 of the file, its claim parameters).  Raises CertificationFailed if it does not
    replay.

    Parameters
    ----------
    name : str
        The theorem's name (``[a-z0-9-]{1,40}``), e.g. ``"l2-growth"``.

    Returns
    -------
    tuple of (str, dict)
        The SHA-256 of the stored file and its claim parameters (:func:`theorem_params`).
    """
    import hashlib
    import json
    import re

    if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9-]{1,40}", name):
        raise CertificationFailed("theorem: bad theorem name")
    path = THEOREM_DIR / f"{name}.json"
    if not path.is_file():
        raise CertificationFailed(f"theorem: no stored theorem {name!r}")
    raw = path.read_bytes()
    sha = hashlib.sha256(raw).hexdigest()
    if sha not in _REPLAYED:
        st, concl = replay_theorem(json.loads(raw.decode("utf-8")))
        _REPLAYED[sha] = theorem_params(st, concl)
    return sha, _REPLAYED[sha]


def require_theorem(data: dict, name: str, statement: dict, kind: str) -> None:
    """Check that a certificate names the stored theorem ``name`` with the stored file's SHA-256
    (``data["theorem"]``, ``data["theorem_sha256"]``) and that the replayed theorem states exactly
    ``statement`` (:func:`stored_theorem`).

    Parameters
    ----------
    data : dict
        The certificate's data.
    name : str
        The theorem the kind needs.
    statement : dict
        The claim parameters the kind is defined by.
    kind : str
        The kind, for the failure messages.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        When the name, the SHA-256 or the replayed statement is not the expected one.
    """
    if data["theorem"] != name:
        raise CertificationFailed(f"{kind}: the claim needs theorem {name!r}")
    sha, params = stored_theorem(name)
    if data["theorem_sha256"] != sha:
        raise CertificationFailed(f"{kind}: the stored theorem {name!r} has another SHA-256")
    if params != statement:
        raise CertificationFailed(f"{kind}: the stored theorem does not state what this kind needs")


def _canon(p, ctx):
    p = apply_rule("transpose", p, ctx)
    if ctx.symmetric:
        p = apply_rule("symmetric", p, ctx, {"names": sorted(ctx.symmetric)})
    return apply_rule("trace", p, ctx)


def _is_scalar(p) -> bool:
    """A polynomial in traces: no matrix letter outside a trace, and some trace (a bare number is
    a multiple of I, a matrix)."""
    return bool(p) and all(not w for (_, w) in p) and any(s for (s, _) in p)


def _implies(derived: str, claimed: str) -> bool:
    return derived == claimed or (derived, claimed) == ("pd", "psd")


def _matrix_facts(prem) -> bool:
    return all(k in ("pd", "psd") for k, _ in prem)


def _included(sub, st):
    """The identity's hypotheses are among the theorem's (exactly, by normal form)."""
    for name, shape in sub.decl.matrices.items():
        if st.decl.matrices.get(name) != shape:
            raise CertificationFailed(f"theorem: identity symbol {name} is not a symbol of the theorem")
    if set(sub.decl.scalars) - set(st.decl.scalars):
        raise CertificationFailed("theorem: identity scalars are not the theorem's")
    if set(sub.symmetric) - set(st.symmetric) or set(sub.positive) - set(st.positive):
        raise CertificationFailed("theorem: an identity assumes more symmetry or definiteness than the theorem")
    mine = [(normal(a, st.decl), normal(b, st.decl)) for a, b in st.equations]
    for a, b in sub.equations:
        if (normal(a, st.decl), normal(b, st.decl)) not in mine:
            raise CertificationFailed("theorem: an identity uses an equation that is not a hypothesis of the theorem")
    if sub.derivatives:
        raise CertificationFailed("theorem: identities with derivatives are not allowed here")


def replay_theorem(doc):
    """Replay a theorem; returns (statement, list of (kind, normal form) facts).

    Parameters
    ----------
    doc : dict
        A theorem document (see the module docstring).

    Returns
    -------
    tuple of (Statement, list)
        The statement and the concluded facts, each ``(kind, normal form)`` with kind "pd" (≻ 0)
        or "psd" (⪰ 0); raises CertificationFailed when an identity or a fact does not check.
    """
    st = parse_statement({k: doc.get(k) for k in ("name", "symbols", "hypotheses")} | {"lhs": ["I"], "rhs": ["I"]})
    ctx = st.context()
    idents = doc.get("identities", [])
    facts = doc.get("facts")
    if not isinstance(idents, list) or len(idents) > 16 or not isinstance(facts, list) or not 1 <= len(facts) <= MAX_FACTS:
        raise CertificationFailed("theorem: identities (≤ 16) and facts (1..64) must be lists")
    eqs = []
    for i, pdoc in enumerate(idents):
        sub, _ = replay(pdoc)
        _included(sub, st)
        eqs.append((_canon(normal(sub.lhs, st.decl), ctx), _canon(normal(sub.rhs, st.decl), ctx)))
    out = []
    for i, f in enumerate(facts):
        if not isinstance(f, dict) or set(f) - {"fact", "expr", "by", "from", "args"}:
            raise CertificationFailed(f"theorem: fact {i} must be {{fact, expr, by, from, args}}")
        kind, by = f.get("fact"), f.get("by")
        frm, args = f.get("from", []), f.get("args", {})
        if kind not in ("pd", "psd", "nonneg") or not isinstance(frm, list) or not isinstance(args, dict):
            raise CertificationFailed(f"theorem: fact {i} is malformed")
        if any(isinstance(j, bool) or not isinstance(j, int) or not 0 <= j < i for j in frm):
            raise CertificationFailed(f"theorem: fact {i} may only use earlier facts")
        prem = [out[j] for j in frm]
        expr = _canon(normal(f.get("expr"), st.decl), ctx)
        sh = typecheck(expr, st.decl)
        if sh is not None and sh[0] != sh[1]:
            raise CertificationFailed(f"theorem: fact {i} is about a non-square expression")
        if (kind == "nonneg") != _is_scalar(expr):
            raise CertificationFailed(f"theorem: fact {i}: a scalar fact needs a scalar expression, and only it")
        derived = _derive(by, prem, args, st, ctx, eqs)
        if derived is None or derived[1] != expr or not _implies(derived[0], kind):
            raise CertificationFailed(f"theorem: fact {i} ({str(by)[:20]}) does not follow: "
                                      f"{render_poly(expr)[:120]}")
        out.append((kind, expr))
    concl = doc.get("conclusion")
    if not isinstance(concl, list) or not concl or any(isinstance(j, bool) or not isinstance(j, int)
                                                         or not 0 <= j < len(out) for j in concl):
        raise CertificationFailed("theorem: conclusion must list facts")
    return st, [out[j] for j in concl]


def _derive(by, prem, args, st, ctx, eqs):
    d = st.decl
    if by == "hypothesis":
        if prem:
            return None
        e = args.get("symbol")
        if e == "I":
            return "pd", normal(["I"], d)
        if e in st.positive:
            return "pd", _canon(normal(["sym", e], d), ctx)
        return None
    if by == "gram":
        X = normal(args.get("X"), d)
        return "psd", _canon(_mul(X, _T(X, ctx)), ctx)
    if by == "congruence":
        if len(prem) != 1 or not _matrix_facts(prem):
            return None
        X = normal(args.get("X"), d)
        return "psd", _canon(_mul(_mul(X, prem[0][1]), _T(X, ctx)), ctx)
    if by == "sum":
        w = args.get("weights")
        if not isinstance(w, list) or len(w) != len(prem) or not prem:
            return None
        from ..schema import parse_rat
        from .terms import padd, pscale

        ws = [parse_rat(x, "weight") for x in w]
        if any(x <= 0 for x in ws):
            return None
        tot = _canon(padd(*[pscale(p[1], x) for p, x in zip(prem, ws)]), ctx)
        if all(p[0] == "nonneg" for p in prem):
            return "nonneg", tot
        if not _matrix_facts(prem):
            return None
        return ("pd" if any(p[0] == "pd" for p in prem) else "psd"), tot
    if by == "inverse":
        if len(prem) != 1 or prem[0][0] != "pd":
            return None
        from .terms import inverse_atom

        return "pd", _canon(inverse_atom(prem[0][1]), ctx)
    if by == "identity":
        j = args.get("identity")
        if len(prem) != 1 or isinstance(j, bool) or not isinstance(j, int) or not 0 <= j < len(eqs):
            return None
        a, b = eqs[j]
        y = prem[0][1]
        if y == a:
            return prem[0][0], b
        if y == b:
            return prem[0][0], a
        return None
    if by == "weaken":
        return ("psd", prem[0][1]) if len(prem) == 1 and _matrix_facts(prem) else None
    if by == "commuting":
        j = args.get("identity")
        if len(prem) != 2 or not _matrix_facts(prem) or isinstance(j, bool) or not isinstance(j, int) \
                or not 0 <= j < len(eqs):
            return None
        pq, qp = _canon(_mul(prem[0][1], prem[1][1]), ctx), _canon(_mul(prem[1][1], prem[0][1]), ctx)
        if eqs[j] not in ((pq, qp), (qp, pq)):
            return None
        return ("pd" if prem[0][0] == prem[1][0] == "pd" else "psd"), pq
    if by == "trace_product":
        if len(prem) != 2 or not _matrix_facts(prem):
            return None
        return "nonneg", _canon(_trace(_mul(prem[0][1], prem[1][1])), ctx)
    if by == "square":
        if prem:
            return None
        x = _canon(normal(args.get("X"), d), ctx)
        return ("nonneg", _canon(_mul(x, x), ctx)) if _is_scalar(x) else None
    raise CertificationFailed(f"theorem: unknown rule {str(by)[:30]!r}")


def _mul(a, b):
    from .terms import pmul

    return pmul(a, b)


def _trace(p):
    """The scalar tr(p), as one opaque atom (the ``trace`` rule of :func:`_canon` expands it)."""
    from fractions import Fraction

    from .terms import key

    return {((("tr", key(p)),), ()): Fraction(1)}


def _T(p, ctx):
    from .rules import transpose_poly

    return transpose_poly(p)


def theorem_params(st, concl) -> dict:
    """The claim parameters: the statement's symbols and hypotheses and the concluded facts.

    Parameters
    ----------
    st : Statement
        The theorem's statement.
    concl : list of tuple
        The concluded facts ``(kind, normal form)``.

    Returns
    -------
    dict
        ``{"name", "symbols", "hypotheses", "conclusions": ["E ≻ 0", …]}``.
    """
    base = statement_params(st)
    words = [f"{render_poly(e)} {_RELATION[k]} 0" for k, e in concl]
    return {"name": st.name, "symbols": base["symbols"], "hypotheses": base["hypotheses"], "conclusions": words}
