"""Matrix-form proofs as data, and their replay (the checker's side).

A proof is a JSON object::

    {"name": "...",
     "symbols": {"matrices": {"A": ["d", "d"], "x": ["d", "1"], ...}, "scalars": ["t"]},
     "hypotheses": {"symmetric": ["Sigma"], "positive": ["Sigma"],
                    "equations": [[lhs, rhs], ...], "derivatives": {"Sigma": ["sym", "Sigma'"], "A": ["num", "0"]}},
     "lhs": term, "rhs": term,
     "steps": [{"on": "lhs" | "rhs", "rule": "cancel", "args": {...}, "result": term}, ...]}

It states: *for every dimension d ≥ 1 and all real matrices of the declared shapes satisfying
the hypotheses (declared symmetric, declared positive definite, the equations; symbols with
a derivative are differentiable functions of t with those derivatives), wherever every
inverse written exists, lhs = rhs.*  :func:`replay` starts from the normal forms of both
sides, applies each step's rule (:mod:`.rules`) to the side it names, requires the result to
be exactly the stated ``result`` (modulo the ring axioms), and finally requires the two sides
to agree.  Every rule is a valid identity, so a replayed proof proves the statement for every d.

The **numeric guard** re-checks every step exactly at random rational points in d = 1…6
(symmetric / positive definite samples as declared; an equation whose left side is a symbol
defines it): each step's value must equal the value of the side it started from.  It guards
against a wrong rule implementation; it is not part of the logic.
"""
from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass

import flint

from ....spec.errors import CertificationFailed
from .rules import Context, apply_rule
from .terms import Decl, Unevaluable, evaluate, evaluate_logs, normal, render_poly, typecheck
from ....exact.rational import fmpq_of

__all__ = ["Statement", "replay", "guard", "statement_params", "check_witness",
           "MAX_STEPS"]

MAX_STEPS = 200


@dataclass
class Statement:
    name: str
    decl: Decl
    symmetric: tuple
    positive: tuple
    equations: list      # [(lhs term, rhs term)]
    derivatives: dict    # name -> term
    lhs: list
    rhs: list

    def context(self) -> Context:
        """The rule context of the hypotheses: the equations and the derivative table in normal form.

        Returns
        -------
        Context
            The declaration, symmetric symbols, equations (lhs, rhs) and derivatives (name → normal form).
        """
        eqs = [(normal(l_, self.decl), normal(r_, self.decl)) for l_, r_ in self.equations]
        ders = {k: normal(v, self.decl) for k, v in self.derivatives.items()}
        return Context(self.decl, self.symmetric, eqs, ders)


def _names(x, decl, what):
    if not isinstance(x, list) or len(x) > 64 or any(n not in decl.matrices for n in x):
        raise CertificationFailed(f"matrix proof: {what} must list declared matrix symbols")
    return tuple(x)


def parse_statement(doc) -> Statement:
    """The statement of a proof document (symbols, hypotheses, lhs = rhs), validated: hypotheses name
    declared symbols, a positive definite symbol is also symmetric, the two sides of every
    identity and every derivative have matching shapes.

    Parameters
    ----------
    doc : dict
        The proof document (see the module docstring); its ``steps`` are not read.

    Returns
    -------
    Statement
        The parsed statement; raises CertificationFailed on a malformed one.
    """
    if not isinstance(doc, dict):
        raise CertificationFailed("matrix proof: not an object")
    decl = Decl.from_data(doc.get("symbols"))
    hyp = doc.get("hypotheses", {})
    if not isinstance(hyp, dict) or set(hyp) - {"symmetric", "positive", "equations", "derivatives"}:
        raise CertificationFailed("matrix proof: hypotheses are {symmetric, positive, equations, derivatives}")
    sym = _names(hyp.get("symmetric", []), decl, "symmetric")
    pos = _names(hyp.get("positive", []), decl, "positive")
    if any(n not in sym for n in pos):
        raise CertificationFailed("matrix proof: a positive definite symbol must also be declared symmetric")
    eqs = hyp.get("equations", [])
    if not isinstance(eqs, list) or len(eqs) > 64 or any(not isinstance(e, list) or len(e) != 2 for e in eqs):
        raise CertificationFailed("matrix proof: equations must be [lhs, rhs] pairs")
    ders = hyp.get("derivatives", {})
    if not isinstance(ders, dict) or any(k not in decl.matrices and k not in decl.scalars for k in ders):
        raise CertificationFailed("matrix proof: derivatives must map declared symbols to terms")
    name = doc.get("name", "")
    if not isinstance(name, str) or len(name) > 120:
        raise CertificationFailed("matrix proof: name must be a short string")
    st = Statement(name, decl, sym, pos, [tuple(e) for e in eqs], dict(ders), doc.get("lhs"), doc.get("rhs"))
    for a, b in [(st.lhs, st.rhs)] + st.equations:
        sa, sb = typecheck(normal(a, decl), decl), typecheck(normal(b, decl), decl)
        if sa is not None and sb is not None and sa != sb:
            raise CertificationFailed("matrix proof: the two sides of an identity have different shapes")
    for name_, t in st.derivatives.items():
        sh = typecheck(normal(t, decl), decl)
        own = None if name_ in decl.scalars else typecheck(normal(["sym", name_], decl), decl)
        if sh is not None and own is not None and sh != own:
            raise CertificationFailed(f"matrix proof: the derivative of {name_} has the wrong shape")
    return st


def _shape_text(shape):
    r, c = shape
    return "scalar" if (r, c) == ("1", "1") else f"{r}×{c}"


def statement_params(st: Statement) -> dict:
    """The claim's parameters, rendered from the statement (what a checker binds).

    Parameters
    ----------
    st : Statement
        A parsed statement.

    Returns
    -------
    dict
        ``{"name", "identity": "lhs = rhs", "symbols": "X (d×d), …", "hypotheses": [str, …]}``.
    """
    d = st.decl
    hyps = []
    if st.symmetric:
        hyps.append("symmetric: " + ", ".join(render_poly(normal(["sym", n], d)) for n in st.symmetric))
    if st.positive:
        hyps.append("positive definite: " + ", ".join(render_poly(normal(["sym", n], d)) for n in st.positive))
    for l_, r_ in st.equations:
        hyps.append(f"{render_poly(normal(l_, d))} = {render_poly(normal(r_, d))}")
    if st.derivatives:
        hyps.append("; ".join(f"d/dt {render_poly(normal(['sym', k], d)) if k in d.matrices else k} = "
                              f"{render_poly(normal(v, d))}" for k, v in sorted(st.derivatives.items())))
    symbols = ", ".join(f"{render_poly(normal(['sym', k], d))} ({_shape_text(v)})" for k, v in sorted(d.matrices.items()))
    return {"name": st.name, "identity": f"{render_poly(normal(st.lhs, d))} = {render_poly(normal(st.rhs, d))}",
            "symbols": symbols, "hypotheses": hyps}


def replay(doc) -> tuple[Statement, int]:
    """Replay a proof; returns (statement, number of steps) or raises CertificationFailed.

    Parameters
    ----------
    doc : dict
        The proof document (see the module docstring).

    Returns
    -------
    tuple of (Statement, int)
        The statement and the number of steps replayed.
    """
    st = parse_statement(doc)
    ctx = st.context()
    steps = doc.get("steps")
    if not isinstance(steps, list) or len(steps) > MAX_STEPS:
        raise CertificationFailed(f"matrix proof: steps must be a list of at most {MAX_STEPS}")
    cur = {"lhs": normal(st.lhs, st.decl), "rhs": normal(st.rhs, st.decl)}
    for i, step in enumerate(steps):
        if not isinstance(step, dict) or set(step) - {"on", "rule", "args", "result"}:
            raise CertificationFailed(f"matrix proof: step {i} must be {{on, rule, args, result}}")
        side = step.get("on", "lhs")
        if side not in cur:
            raise CertificationFailed(f"matrix proof: step {i}: 'on' is lhs or rhs")
        new = apply_rule(step.get("rule"), cur[side], ctx, step.get("args", {}))
        typecheck(new, st.decl)
        if normal(step.get("result"), st.decl) != new:
            raise CertificationFailed(f"matrix proof: step {i} ({str(step.get('rule'))[:30]}): the stated result is not "
                                      f"what the rule gives: {render_poly(new)[:200]}")
        cur[side] = new
    if cur["lhs"] != cur["rhs"]:
        raise CertificationFailed("matrix proof: the two sides do not meet: "
                                  f"{render_poly(cur['lhs'])[:200]} ≠ {render_poly(cur['rhs'])[:200]}")
    return st, len(steps)


# ------------------------------------------------------------------------------------------
# exact evaluation at points: the numeric guard and counter-witnesses
# ------------------------------------------------------------------------------------------
def _rand_mat(rng, r, c):
    return flint.fmpq_mat(r, c, [flint.fmpq(rng.randint(-5, 5), rng.choice((1, 2, 3, 4))) for _ in range(r * c)])


def _dim(s, n):
    return {"d": n, "k": n + 1, "1": 1}[s]


def sample_point(st: Statement, n: int, rng):
    """Random exact values of the symbols satisfying the hypotheses, or None, and the
    indices of the equations that do *not* hold at the point (implicit equations such as a
    fixed point cannot be sampled rationally; the guard re-bases after using them).

    An equation whose one side is a symbol defines that symbol (left side first).

    Parameters
    ----------
    st : Statement
        A parsed statement.
    n : int
        The dimension d.
    rng : random.Random
        The source of the random rational entries.

    Returns
    -------
    tuple of (dict or None, tuple of int)
        ``(env, unsatisfied)``: symbol name → ``fmpq_mat`` / ``fmpq`` (None when the draw failed,
        e.g. a singular inverse), and the indices of the equations that do not hold at the point.
    """
    eq_defs = {}
    for l_, r_ in st.equations:
        for a, b in ((l_, r_), (r_, l_)):
            if isinstance(a, list) and len(a) == 2 and a[0] in ("sym", "scalar") and a[1] not in eq_defs:
                eq_defs[a[1]] = b
                break
    env = {}

    def draw(name, shape):
        M = _rand_mat(rng, _dim(shape[0], n), _dim(shape[1], n))
        if name in st.symmetric:
            M = M + M.transpose()
        if name in st.positive:
            L = _rand_mat(rng, n, n)
            M = L * L.transpose() + flint.fmpq_mat(n, n, [flint.fmpq(1, 2) if i == j else 0 for i in range(n) for j in range(n)])
        return M

    for name, shape in st.decl.matrices.items():
        if name not in eq_defs:
            env[name] = draw(name, shape)
    for s in st.decl.scalars:
        if s not in eq_defs:
            env[s] = flint.fmpq(rng.randint(-5, 5), rng.choice((1, 2, 3)))
    def define(pending):
        """Evaluate the definitions whose right sides are known, repeatedly; False on a singular inverse."""
        for _ in range(len(pending) + 1):
            for name, rhs in list(pending.items()):
                try:
                    val = evaluate(normal(rhs, st.decl), env, st.decl, n, n + 1, shape=target_shape(st, name, n))
                except (KeyError, Unevaluable):
                    continue
                except ZeroDivisionError:
                    return False
                env[name] = val[0, 0] if name in st.decl.scalars else val
                del pending[name]
        return True

    pending = dict(eq_defs)
    if not define(pending):
        return None, ()
    if pending:  # circular definitions: sample the first freely (its equation becomes implicit), then go on
        first = next(iter(pending))
        if first in st.decl.matrices:
            env[first] = draw(first, st.decl.matrices[first])
        else:
            env[first] = flint.fmpq(rng.randint(-5, 5), rng.choice((1, 2, 3)))
        del pending[first]
        if not define(pending):
            return None, ()
        for name in pending:
            env[name] = draw(name, st.decl.matrices.get(name, ("1", "1")))
    unsatisfied = []
    for i, (l_, r_) in enumerate(st.equations):
        try:
            a = evaluate(normal(l_, st.decl), env, st.decl, n, n + 1)
            b = evaluate(normal(r_, st.decl), env, st.decl, n, n + 1)
        except Unevaluable:
            continue
        except ZeroDivisionError:
            return None, ()
        if a != b:
            unsatisfied.append(i)
    for name in st.positive:  # a definition may have overwritten a positive symbol
        from ....exact.definiteness import definiteness

        if not definiteness(env[name]).pd:
            return None, ()
    return env, tuple(unsatisfied)


def target_shape(st, name, n):
    """The shape of the declared symbol ``name`` at dimension n (scalars are 1×1).

    Parameters
    ----------
    st : object
        A proof state with its declarations ``st.decl``.
    name : str
        A declared matrix or scalar symbol.
    n : int
        The dimension d substituted for symbolic sizes.

    Returns
    -------
    tuple of int
        (rows, columns).
    """
    if name in st.decl.matrices:
        r, c = st.decl.matrices[name]
        return _dim(r, n), _dim(c, n)
    return 1, 1


def _value(p, env, st, n, shape):
    return evaluate_logs(p, env, st.decl, n, n + 1, shape=shape)


def guard(doc, dims=range(1, 7), seed: int | None = None, tries: int = 6) -> dict:
    """Re-check every step of a proof exactly at one random rational point per dimension.

    Returns ``{"points": k, "checked_steps": m, "skipped": s}``; raises CertificationFailed
    when a step's value differs from its side's starting value (a wrong rule).

    Parameters
    ----------
    doc : dict
        The proof document.
    dims : iterable of int
        The dimensions d at which to sample a point.
    seed : int, optional
        The random seed (default: from a hash of the document, so the guard is reproducible).
    tries : int
        The draws per dimension before the dimension is skipped.

    Returns
    -------
    dict
        ``{"points": k, "checked_steps": m, "skipped": s}``.
    """
    st = parse_statement(doc)
    ctx = st.context()
    if seed is None:
        seed = int(hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:8], 16)
    rng = random.Random(seed)
    points = checked = skipped = 0
    for n in dims:
        env = None
        for _ in range(tries):
            env, implicit = sample_point(st, n, rng)
            if env is not None:
                break
        if env is None:
            continue
        shape = None
        cur = {"lhs": normal(st.lhs, st.decl), "rhs": normal(st.rhs, st.decl)}
        try:
            from .terms import poly_shape

            shape = poly_shape(cur["lhs"], st.decl, n, n + 1) or poly_shape(cur["rhs"], st.decl, n, n + 1) or (n, n)
        except KeyError:
            shape = (n, n)
        ref = {}
        for side in cur:
            try:
                ref[side] = _value(cur[side], env, st, n, shape)
            except (Unevaluable, ZeroDivisionError):
                ref[side] = None
        points += 1
        for step in doc.get("steps", []):
            side = step.get("on", "lhs")
            cur[side] = apply_rule(step["rule"], cur[side], ctx, step.get("args", {}))
            try:
                val = _value(cur[side], env, st, n, shape)
            except (Unevaluable, ZeroDivisionError):
                skipped += 1
                continue
            if ref[side] is None or (step["rule"] == "substitute" and step.get("args", {}).get("equation") in implicit):
                ref[side] = val
                skipped += 1
                continue
            if ref[side] is None:
                ref[side] = val
                skipped += 1
                continue
            if val != ref[side]:
                raise CertificationFailed(f"matrix proof guard: step {step['rule']} changed the value at d = {n}")
            checked += 1
        if not implicit and ref["lhs"] is not None and ref["rhs"] is not None:
            if ref["lhs"] != ref["rhs"]:
                raise CertificationFailed(f"matrix proof guard: the two sides differ at d = {n}")
            checked += 1
    return {"points": points, "checked_steps": checked, "skipped": skipped}


def _parse_mat(rows, what):
    from ..schema import parse_rat

    if not isinstance(rows, list) or not rows or any(not isinstance(r, list) or len(r) != len(rows[0]) for r in rows):
        raise CertificationFailed(f"matrix proof witness: {what} must be a rectangular matrix")
    if len(rows) > 12 or len(rows[0]) > 12:
        raise CertificationFailed("matrix proof witness: at most 12×12")
    vals = [parse_rat(x, what) for r in rows for x in r]
    return flint.fmpq_mat(len(rows), len(rows[0]), [fmpq_of(v) for v in vals])


def check_witness(doc, witness) -> dict:
    """Decide a statement at an exact point: verify the point satisfies every hypothesis
    exactly (shapes, symmetry, positive definiteness, equations) and return the two sides'
    values; ``differs`` is True when lhs ≠ rhs there (so the identity is false).

    Parameters
    ----------
    doc : dict
        The proof document (its statement is used).
    witness : dict
        ``{"d": n (1…12), "values": {symbol: matrix or rational}}``, a value for every symbol.

    Returns
    -------
    dict
        ``{"lhs": value, "rhs": value, "differs": bool}`` (the sides differentiated when the
        statement has derivatives); raises CertificationFailed when the point violates a hypothesis
        or an inverse does not exist there.
    """
    from ....exact.definiteness import definiteness

    st = parse_statement(doc)
    if not isinstance(witness, dict) or set(witness) - {"d", "values"}:
        raise CertificationFailed("matrix proof witness: {d, values}")
    n = witness.get("d")
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 12:
        raise CertificationFailed("matrix proof witness: d must be an integer in 1..12")
    vals = witness.get("values")
    if not isinstance(vals, dict) or set(vals) != set(st.decl.matrices) | set(st.decl.scalars):
        raise CertificationFailed("matrix proof witness: a value for every symbol")
    env = {}
    for name, v in vals.items():
        if name in st.decl.scalars:
            from ..schema import parse_rat

            q = parse_rat(v, name)
            env[name] = fmpq_of(q)
            continue
        M = _parse_mat(v, name)
        if (M.nrows(), M.ncols()) != target_shape(st, name, n):
            raise CertificationFailed(f"matrix proof witness: {name} has the wrong shape")
        env[name] = M
    for name in st.symmetric:
        if env[name] != env[name].transpose():
            raise CertificationFailed(f"matrix proof witness: {name} is not symmetric")
    for name in st.positive:
        if not definiteness(env[name]).pd:
            raise CertificationFailed(f"matrix proof witness: {name} is not positive definite")
    ctx = st.context()
    try:
        for name, t in st.derivatives.items():  # a curve through the point that stays symmetric
            if name in st.symmetric:
                D = evaluate(normal(t, st.decl), env, st.decl, n, n + 1, shape=target_shape(st, name, n))
                if D != D.transpose():
                    raise CertificationFailed(f"matrix proof witness: the derivative of {name} is not symmetric")
        for l_, r_ in st.equations:
            if evaluate(normal(l_, st.decl), env, st.decl, n, n + 1) != evaluate(normal(r_, st.decl), env, st.decl, n, n + 1):
                raise CertificationFailed("matrix proof witness: an equation of the hypotheses fails at the point")
        sides = []
        for t in (st.lhs, st.rhs):
            p = apply_rule("differentiate", normal(t, st.decl), ctx) if st.derivatives else normal(t, st.decl)
            sides.append(p)
        # derivative symbols are bound by the equations (e.g. Σ̇ = …), so the sides evaluate
        vl = evaluate(sides[0], env, st.decl, n, n + 1)
        vr = evaluate(sides[1], env, st.decl, n, n + 1)
    except ZeroDivisionError:
        raise CertificationFailed("matrix proof witness: an inverse does not exist at the point") from None
    except Unevaluable:
        raise CertificationFailed("matrix proof witness: an expression has no value at a point") from None
    return {"lhs": vl, "rhs": vr, "differs": vl != vr}
