"""Writing matrix-form proofs: term constructors and a builder that applies the rules and
records each step with its result (the search side; :mod:`.replay` checks)."""
from __future__ import annotations

from fractions import Fraction

from ....exact.rational import frac_str
from ...check.matrix_proofs.replay import parse_statement, replay
from ...check.matrix_proofs.rules import apply_rule
from ...check.matrix_proofs.terms import normal, render_poly, to_term

__all__ = ["S", "sc", "num", "I", "add", "mul", "T", "inv", "tr", "logdet", "ddt", "neg", "sub", "Proof"]


def S(name):
    """The term of the matrix symbol ``name``."""
    return ["sym", name]


def sc(name):
    """The term of the scalar symbol ``name``."""
    return ["scalar", name]


def num(q):
    """The term of the rational number q."""
    return ["num", frac_str(Fraction(q))]


I = ["I"]


def add(*ts):
    """The term of the sum X₁ + X₂ + …."""
    return ["+", *ts]


def mul(*ts):
    """The term of the product X₁X₂⋯ (in this order)."""
    return ["*", *ts]


def T(t):
    """The term Xᵀ."""
    return ["T", t]


def inv(t):
    """The term X⁻¹."""
    return ["inv", t]


def tr(t):
    """The term tr(X)."""
    return ["tr", t]


def logdet(t):
    """The term log det(X)."""
    return ["logdet", t]


def ddt(t):
    """The term d/dt X."""
    return ["ddt", t]


def neg(t):
    """The term −X = (−1)·X."""
    return mul(num(-1), t)


def sub(a, b):
    """The term of the difference a − b = a + (−1)·b."""
    return add(a, neg(b))


class Proof:
    """Build a proof: declare the statement, then ``step(rule, on=…, **args)``.

    ``matrices`` maps names to shapes ("d", "k", "1"); ``equations`` are (lhs, rhs) terms.
    """

    def __init__(self, name, matrices, lhs, rhs, *, scalars=(), symmetric=(), positive=(), equations=(),
                 derivatives=None):
        self.doc = {"name": name,
                    "symbols": {"matrices": {k: list(v) for k, v in matrices.items()}, "scalars": list(scalars)},
                    "hypotheses": {"symmetric": list(symmetric), "positive": list(positive),
                                   "equations": [list(e) for e in equations],
                                   "derivatives": dict(derivatives or {})},
                    "lhs": lhs, "rhs": rhs, "steps": []}
        if not self.doc["hypotheses"]["derivatives"]:
            del self.doc["hypotheses"]["derivatives"]
        self.st = parse_statement(self.doc)
        self.ctx = self.st.context()
        self.cur = {"lhs": normal(lhs, self.st.decl), "rhs": normal(rhs, self.st.decl)}

    def step(self, rule, on="lhs", **args):
        """Apply a rule to one side and record the step with its result."""
        new = apply_rule(rule, self.cur[on], self.ctx, args)
        if new == self.cur[on]:
            raise ValueError(f"{self.doc['name']}: rule {rule} changed nothing on {on}: {render_poly(new)}")
        self.cur[on] = new
        self.doc["steps"].append({"on": on, "rule": rule, "args": args, "result": to_term(new)})
        return self

    def show(self) -> str:
        """The current state of the two sides."""
        return f"{render_poly(self.cur['lhs'])}  =?=  {render_poly(self.cur['rhs'])}"

    def done(self) -> dict:
        """The finished proof document, after checking that it replays."""
        replay(self.doc)
        return self.doc
