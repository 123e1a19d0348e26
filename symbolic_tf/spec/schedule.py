r"""Depth-dependent parameters: piecewise-constant phases and polynomial-in-t entries.

A problem file may let its parameters ``A``, ``V``, ``F`` and ``b`` depend on the depth t
(docs/schedules.md):

* **polynomial entries** — any entry of these matrices may be a string that is a polynomial
  in ``t`` with rational coefficients, e.g. ``A = [["1 + t", 0], [0, "-1"]]``; it is read
  exactly (``"t/3 + 1/2*t^2"``; ``^`` and ``**`` with a non-negative integer exponent,
  division by a nonzero constant only).  Anything else (``"1/t"``, ``"sin(t)"``, ``"t^(1/2)"``)
  is rejected with :class:`~symbolic_tf.spec.errors.InvalidParameters`;
* **heads** — in a multi-head problem each head's ``A``, ``V``, ``W`` may be polynomial too, and a
  phase changes heads with ``heads = [{…}, …]`` (one table per head, in order; ``[[phase.heads]]``
  in TOML); their scheduled names are ``heads[i].A`` (:func:`head_key`);
* **phases** — an array of tables ``[[phase]]``, each with an exact ``duration`` > 0 and the
  parameters that change at its start::

      A = [[1, 0], [0, 1]]          # the values before the first change
      V = [[1, 0], [0, 1]]
      [[phase]]                     # phase 1 covers depths [0, 1/2)
      duration = "1/2"
      [[phase]]                     # phase 2 covers [1/2, 3/2) and continues afterwards
      duration = 1
      A = [[-1, 0], [0, -1]]

The parameters on phase k are the top-level values updated by phases 1, …, k (a phase names
only what changes); a phase may change only parameters that have a value from t = 0 on — given
at top level or by the first phase, which starts at t = 0 (so a schedule whose phases all set
``A`` needs no top-level ``A``) — and ``A`` only when it is given as ``A`` (not as ``Q`` and ``K``).  Phase k covers [τ_{k−1}, τ_k) with
τ_k = duration_1 + … + duration_k; **the last phase continues after τ_n**, so the flow is
defined for every t ≥ 0 and the regime of Σ₀ is the regime of this continued flow.  The
variable t of a polynomial entry is the depth itself (not the time since the phase started).

Representation: a parameter is a nested tuple (matrix or vector) whose leaves are coefficient
tuples ``(c₀, c₁, …, c_n)`` of Fractions (p(t) = Σ c_k t^k, no trailing zeros; the zero
polynomial is ``(0,)``).  :meth:`Schedule.sympy` gives the SymPy ``Poly`` in t over ℚ.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Mapping

from ..exact.rational import frac_str
from .errors import InvalidParameters
from .limits import brief
from .rational import parse_rational_str, to_fraction

__all__ = ["Phase", "Schedule", "Segment", "SCHEDULED", "HEAD_SCHEDULED", "PHASE_FIELDS", "head_key", "split_key", "MAX_PHASES", "MAX_DEGREE",
           "parse_polynomial", "parse_schedule", "schedule_to_dict", "problem_at", "segments", "poly_str",
           "poly_eval", "param_at", "leaves"]

#: the parameters a schedule may move: the problem's, and each head's (``heads[i].A``, …)
SCHEDULED = ("A", "V", "F", "b")
HEAD_SCHEDULED = ("A", "V", "W")
PHASE_FIELDS = ("duration",) + SCHEDULED + ("heads",)
MAX_PHASES = 1000
MAX_DEGREE = 32
_MAX_PARENS = 32
_MAX_POLY_CHARS = 4000

Poly = tuple  # (c0, c1, ..., cn) of Fractions


# ---------------------------------------------------------------------------------------------
# polynomials in t
# ---------------------------------------------------------------------------------------------
def _trim(c: list) -> tuple:
    while len(c) > 1 and c[-1] == 0:
        c.pop()
    return tuple(c)


def _add(p, q, sign=1):
    n = max(len(p), len(q))
    return _trim([(p[i] if i < len(p) else 0) + sign * (q[i] if i < len(q) else 0) for i in range(n)])


def _mul(p, q):
    out = [Fraction(0)] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        if a:
            for j, b in enumerate(q):
                out[i + j] += a * b
    return _trim(out)


# the variable t as a word of its own: "1 + t", "sin(t)" — not the t of "Infinity"
_HAS_T = re.compile(r"(?<![A-Za-z_])t(?![A-Za-z_])")
_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|(?P<op>\*\*|[-+*/^()])|(?P<t>t)\b)")


class _PolyParser:
    """Recursive descent over: expr := term (± term)*; term := unary ((*|/|implicit) unary)*;
    unary := ± unary | power; power := atom ((^|**) integer)?; atom := number | t | (expr)."""

    def __init__(self, text: str, field: str):
        self.text, self.field, self.pos, self.depth = text, field, 0, 0
        self.toks = []
        while self.pos < len(text):
            if text[self.pos:].strip() == "":
                break
            m = _TOKEN.match(text, self.pos)
            if not m or m.end() == self.pos:
                self._fail(f"unexpected {text[self.pos:].strip()[:12]!r}")
            kind = m.lastgroup
            self.toks.append((kind, m.group(kind)))
            self.pos = m.end()
        self.i = 0

    def _fail(self, why: str):
        raise InvalidParameters(self.field, f"not a polynomial in t with rational coefficients: "
                                f"{brief(self.text)} ({why}; allowed: numbers, t, + - * ^, "
                                f"division by a nonzero constant)")

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self):
        tok = self.peek()
        self.i += 1
        return tok

    def parse(self) -> Poly:
        p = self.expr()
        if self.i != len(self.toks):
            self._fail(f"unexpected {self.peek()[1]!r}")
        return p

    def expr(self):
        p = self.term()
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            p = _add(p, self.term(), 1 if op == "+" else -1)
        return p

    def term(self):
        p = self.unary()
        while True:
            kind, val = self.peek()
            if val in ("*", "/"):
                self.take()
                q = self.unary()
                if val == "*":
                    p = _mul(p, q)
                else:
                    if len(q) > 1:
                        self._fail("division by a non-constant")
                    if q[0] == 0:
                        self._fail("division by zero")
                    p = tuple(c / q[0] for c in p)
            elif kind == "t" or val == "(":
                p = _mul(p, self.unary())
            else:
                break
            if len(p) - 1 > MAX_DEGREE:
                self._fail(f"degree above {MAX_DEGREE}")
        return p

    def unary(self):
        val = self.peek()[1]
        if val in ("+", "-"):
            self.take()
            self.depth += 1
            if self.depth > _MAX_PARENS:
                self._fail("nested too deeply")
            p = self.unary()
            self.depth -= 1
            return p if val == "+" else tuple(-c for c in p)
        return self.power()

    def power(self):
        p = self.atom()
        if self.peek()[1] in ("^", "**"):
            self.take()
            kind, val = self.take()
            if kind != "num" or not val.isdigit():
                self._fail("exponents must be non-negative integers")
            n = int(val) if len(val) <= 3 else MAX_DEGREE + 1
            if (len(p) - 1) * n > MAX_DEGREE:
                self._fail(f"degree above {MAX_DEGREE}")
            out: Poly = (Fraction(1),)
            for _ in range(n):
                out = _mul(out, p)
            p = out
        return p

    def atom(self):
        kind, val = self.take()
        if kind == "num":
            return (parse_rational_str(val, self.field),)
        if kind == "t":
            return (Fraction(0), Fraction(1))
        if val == "(":
            self.depth += 1
            if self.depth > _MAX_PARENS:
                self._fail("nested too deeply")
            p = self.expr()
            self.depth -= 1
            if self.take()[1] != ")":
                self._fail("unbalanced parentheses")
            return p
        self._fail("unexpected end" if val is None else f"unexpected {val!r}")


def parse_polynomial(value: Any, field: str) -> Poly:
    """Read one entry exactly: a number (:func:`~symbolic_tf.spec.rational.to_fraction`) or a
    string polynomial in t; returns its coefficient tuple (c₀, …, c_n).

    Parameters
    ----------
    value : number or str
        A number, or a string polynomial in ``t`` with rational coefficients.
    field : str
        Name of the entry, for error messages.

    Returns
    -------
    tuple of Fraction
        The coefficients (c₀, …, c_n) of p(t) = Σ c_k t^k (``(c₀,)`` for a constant).

    Raises
    ------
    InvalidParameters
        A non-polynomial expression, a degree above :data:`MAX_DEGREE`, a malformed number.
    """
    if isinstance(value, str) and _HAS_T.search(value):
        if len(value) > _MAX_POLY_CHARS:
            raise InvalidParameters(field, f"polynomial too long ({len(value)} characters, at most {_MAX_POLY_CHARS})")
        coeffs = _PolyParser(value, field).parse()
        return tuple(to_fraction(c, field) for c in coeffs)
    return (to_fraction(value, field),)


def poly_str(p: Poly) -> str | None:
    """Canonical text of a polynomial ("1/2 + 3*t^2"); a constant stays a number string.

    Parameters
    ----------
    p : tuple of Fraction
        Coefficients (c₀, …, c_n).

    Returns
    -------
    str
        The canonical text (``frac_str`` of c₀ for a constant).
    """
    if len(p) == 1:
        return frac_str(p[0])
    terms = []
    for k, c in enumerate(p):
        if c == 0:
            continue
        mono = "" if k == 0 else ("t" if k == 1 else f"t^{k}")
        cs = frac_str(c)
        terms.append(cs if not mono else (mono if c == 1 else (f"-{mono}" if c == -1 else f"{cs}*{mono}")))
    return " + ".join(terms).replace("+ -", "- ")


def poly_eval(p: Poly, t):
    """p(t) by Horner (exact for a Fraction t, float for a float t).

    Parameters
    ----------
    p : tuple of Fraction
        Coefficients (c₀, …, c_n).
    t : Fraction or float
        The depth.

    Returns
    -------
    Fraction or float
        p(t) = Σ c_k t^k.
    """
    acc = p[-1]
    for c in reversed(p[:-1]):
        acc = acc * t + c
    return acc


def _read_param(name: str, value: Any, field: str, d: int):
    """A matrix (d×d) or, for ``b``, a vector (d) of polynomials (numpy/SymPy via ``tolist``)."""
    if not isinstance(value, (list, tuple, str)) and callable(getattr(value, "tolist", None)):
        value = value.tolist()
        if name == "b" and value and all(isinstance(r, list) and len(r) == 1 for r in value):
            value = [r[0] for r in value]  # a column vector
    if name == "b":
        if not isinstance(value, (list, tuple)) or len(value) != d:
            raise InvalidParameters(field, f"expected a list of {d} entries")
        return tuple(parse_polynomial(v, f"{field}[{i}]") for i, v in enumerate(value))
    if d == 1 and not isinstance(value, (list, tuple)):
        return ((parse_polynomial(value, field),),)
    if not isinstance(value, (list, tuple)) or len(value) != d or any(
            not isinstance(r, (list, tuple)) or len(r) != d for r in value):
        raise InvalidParameters(field, f"expected a {d}x{d} matrix (a list of {d} rows of {d} entries)")
    return tuple(tuple(parse_polynomial(v, f"{field}[{i}][{j}]") for j, v in enumerate(r)) for i, r in enumerate(value))


def leaves(param):
    """The polynomial coefficient tuples of a scheduled matrix/vector, row by row.

    Parameters
    ----------
    param : tuple
        A scheduled matrix (tuple of rows) or vector of coefficient tuples.

    Yields
    ------
    tuple of Fraction
        Each entry's coefficient tuple.
    """
    for x in param:
        if isinstance(x[0], Fraction):
            yield x
        else:
            yield from leaves(x)


def _is_constant(param) -> bool:
    return all(len(p) == 1 for p in leaves(param))


def param_at(param, t):
    """A scheduled parameter at depth t (exact for a Fraction t, float for a float).

    Parameters
    ----------
    param : tuple
        A scheduled matrix or vector of coefficient tuples.
    t : Fraction or float
        The depth.

    Returns
    -------
    tuple
        The matrix (tuple of rows) or vector of the entries p(t).
    """
    if param and isinstance(param[0][0], Fraction):
        return tuple(poly_eval(p, t) for p in param)
    return tuple(tuple(poly_eval(p, t) for p in row) for row in param)


def _out(param):
    if param and isinstance(param[0][0], Fraction):
        return [poly_str(p) for p in param]
    return [[poly_str(p) for p in row] for row in param]


# ---------------------------------------------------------------------------------------------
# the schedule
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Phase:
    """One phase: its exact duration and the parameters that change at its start
    (name → matrix/vector of polynomial coefficient tuples, sorted by name)."""

    duration: Fraction
    changes: tuple = ()

    def get(self, name):
        """The change of parameter ``name`` at this phase's start, or None when it does not change.

        Parameters
        ----------
        name : str
            A scheduled parameter (``"A"``, ``"V"``, ``"F"``, ``"b"``).

        Returns
        -------
        tuple or None
            Its matrix/vector of coefficient tuples.
        """
        return dict(self.changes).get(name)


@dataclass(frozen=True)
class Segment:
    """A maximal depth interval [t0, t1) on which the parameters are one function of t.

    ``t1`` is None for the last segment (it continues for ever); ``params`` maps each scheduled
    name to its matrix/vector of polynomials (the *global* depth t); ``constant`` says no entry
    depends on t."""

    t0: Fraction
    t1: Fraction | None
    params: tuple
    constant: bool

    def get(self, name):
        """Parameter ``name`` on this segment, or None when it is not scheduled.

        Parameters
        ----------
        name : str
            A scheduled parameter (``"A"``, ``"V"``, ``"F"``, ``"b"``).

        Returns
        -------
        tuple or None
            Its matrix/vector of coefficient tuples (polynomials in the global depth t).
        """
        return dict(self.params).get(name)


@dataclass(frozen=True)
class Schedule:
    """The depth dependence of a problem: the top-level scheduled parameters as written
    (``base``: name → polynomial matrix/vector) and the phases.

    The :class:`~symbolic_tf.spec.problem.Problem` fields ``A``, ``V``, ``F``, ``b`` of a
    scheduled problem hold the values at depth t = 0 (so shape checks and variant
    requirements see real matrices); :func:`problem_at` gives the constant problem at any t.
    """

    base: tuple = ()
    phases: tuple = ()

    @property
    def end(self) -> Fraction:
        """τ_n, the sum of the durations (0 without phases)."""
        return sum((ph.duration for ph in self.phases), Fraction(0))

    def resolved(self) -> list[tuple[Fraction, Fraction | None, dict]]:
        """[(start, end or None, parameters)] per phase (one entry without phases).

        Returns
        -------
        list of (Fraction, Fraction or None, dict)
            Per phase k: τ_{k−1}, τ_k (None for the last phase, which continues) and the parameters
            in force (the base updated by phases 1, …, k); ``[(0, None, base)]`` without phases.
        """
        cur = dict(self.base)
        if not self.phases:
            return [(Fraction(0), None, cur)]
        out, t = [], Fraction(0)
        for k, ph in enumerate(self.phases):
            cur = {**cur, **dict(ph.changes)}
            t1 = t + ph.duration
            out.append((t, None if k == len(self.phases) - 1 else t1, dict(cur)))
            t = t1
        return out

    def params_at(self, t, phase_of=None) -> dict:
        """name → parameter value at depth t ≥ 0 (right-continuous at the phase boundaries).

        ``phase_of``: take the phase containing this depth instead of t's (a Runge–Kutta step
        [t_n, t_n + h] evaluates its stages with the phase of t_n, the left limit at its end).

        Parameters
        ----------
        t : Fraction or float
            The depth t ≥ 0 at which the polynomials are evaluated.
        phase_of : Fraction or float, optional
            The depth that selects the phase (default t).

        Returns
        -------
        dict
            Parameter name → matrix/vector evaluated at t (exact for a Fraction t).
        """
        where = t if phase_of is None else phase_of
        for t0, t1, prm in self.resolved():
            if t1 is None or where < t1:
                return {k: param_at(v, t) for k, v in prm.items()}
        raise AssertionError("unreachable: the last phase has no end")


def segments(schedule: Schedule) -> list[Segment]:
    """The maximal intervals of one parameter function: consecutive phases whose resolved
    parameters are equal are merged (so a schedule that never changes is one segment).

    Parameters
    ----------
    schedule : Schedule
        The schedule.

    Returns
    -------
    list of Segment
        The segments in depth order; the last one has ``t1 = None``.
    """
    out: list[Segment] = []
    for t0, t1, prm in schedule.resolved():
        items = tuple(sorted(prm.items()))
        if out and out[-1].params == items:
            out[-1] = replace(out[-1], t1=t1)
            continue
        out.append(Segment(t0, t1, items, all(_is_constant(v) for v in prm.values())))
    return out


def problem_at(problem, t, phase_of=None):
    """The constant problem whose parameters are ``problem``'s at depth t (no schedule);
    ``phase_of`` as :meth:`Schedule.params_at`.

    Parameters
    ----------
    problem : Problem
        A problem, scheduled or not.
    t : number
        The depth t ≥ 0 (read exactly).
    phase_of : number, optional
        The depth that selects the phase (default t).

    Returns
    -------
    Problem
        ``problem`` itself when it has no schedule; otherwise a copy with ``schedule=None`` and
        A, V, F, b evaluated at t.
    """
    t = to_fraction(t, "t")
    if t < 0:
        raise InvalidParameters("t", f"depths are ≥ 0, got {frac_str(t)}")
    sch = problem.schedule
    if sch is None:
        return problem
    vals = sch.params_at(t, None if phase_of is None else to_fraction(phase_of, "t"))
    heads = list(problem.heads)
    for k in [k for k in vals if split_key(k)[0] is not None]:
        i, name = split_key(k)
        heads[i] = replace(heads[i], **{name: vals.pop(k)})
    return replace(problem, schedule=None, heads=tuple(heads), **vals)


# ---------------------------------------------------------------------------------------------
# reading and writing
# ---------------------------------------------------------------------------------------------
def _scheduled_text(value) -> bool:
    if isinstance(value, str):
        return _HAS_T.search(value) is not None
    if isinstance(value, (list, tuple)):
        return any(_scheduled_text(v) for v in value)
    if isinstance(value, Mapping):
        return any(_scheduled_text(v) for v in value.values())
    return False


def head_key(i: int, name: str) -> str:
    """The schedule's name of head i's parameter (``"heads[0].A"``).

    Parameters
    ----------
    i : int
        The head's index in ``[[heads]]`` (from 0).
    name : str
        One of :data:`HEAD_SCHEDULED`.

    Returns
    -------
    str
        ``f"heads[{i}].{name}"``.
    """
    return f"heads[{i}].{name}"


def split_key(key: str) -> tuple[int | None, str]:
    """(head index or None, parameter name) of a scheduled name.

    Parameters
    ----------
    key : str
        ``"A"`` or ``"heads[1].V"``.

    Returns
    -------
    (int or None, str)
        ``(None, "A")`` or ``(1, "V")``.
    """
    if key.startswith("heads["):
        i, _, name = key[len("heads["):].partition("].")
        return int(i), name
    return None, key


def _written(doc: Mapping) -> dict:
    """Scheduled name → the value written at top level (problem parameters and each head's)."""
    out = {k: doc[k] for k in SCHEDULED if k in doc}
    heads = doc.get("heads")
    if isinstance(heads, (list, tuple)):
        for i, h in enumerate(heads):
            if isinstance(h, Mapping):
                out.update({head_key(i, k): h[k] for k in HEAD_SCHEDULED if k in h})
    return out


def _phase_changes(ph: Mapping, where: str, n_heads: int) -> dict:
    """Scheduled name → (field name for messages, written value) of one phase's changes."""
    out = {k: (f"{where}.{k}", ph[k]) for k in SCHEDULED if k in ph}
    if "heads" in ph:
        hs = ph["heads"]
        if not n_heads:
            raise InvalidParameters(f"{where}.heads", "the problem has no [[heads]] to change")
        if not isinstance(hs, (list, tuple)) or len(hs) != n_heads:
            raise InvalidParameters(f"{where}.heads", f"expected an array of {n_heads} tables, one per head "
                                    "(an empty table keeps a head)")
        for i, h in enumerate(hs):
            if not isinstance(h, Mapping):
                raise InvalidParameters(f"{where}.heads[{i}]", f"expected a table, got {type(h).__name__}")
            for key in h:
                if key not in HEAD_SCHEDULED:
                    raise InvalidParameters(f"{where}.heads[{i}].{key}", "unknown field; a phase changes a head's "
                                            + ", ".join(HEAD_SCHEDULED))
            out.update({head_key(i, k): (f"{where}.heads[{i}].{k}", h[k]) for k in HEAD_SCHEDULED if k in h})
    return out


def _uses_QK(doc: Mapping, key: str) -> bool:
    i, name = split_key(key)
    if name != "A":
        return False
    table = doc if i is None else doc["heads"][i]
    return "Q" in table or "K" in table


def parse_schedule(doc: Mapping, d: int) -> tuple[Schedule | None, dict]:
    """Read the schedule of a problem document.

    Parameters
    ----------
    doc : Mapping
        The problem document (decoded TOML/JSON).
    d : int
        The token dimension.

    Returns
    -------
    (Schedule or None, dict)
        None and {} for a constant problem (no ``phase``, no polynomial entry); otherwise the
        schedule and the values at t = 0 of the scheduled top-level parameters (exact
        matrices/vectors; ``heads``: the head tables with their values at t = 0), which the
        caller reads in place of the written entries.

    Raises
    ------
    InvalidParameters
        Malformed phases or entries (one line, starting with the field name).
    """
    raw = doc.get("phase")
    written = _written(doc)
    poly = [k for k, v in written.items() if _scheduled_text(v)]
    if raw is None and not poly:
        return None, {}
    for k in poly:
        if _uses_QK(doc, k):
            raise InvalidParameters(k, "a polynomial A needs A itself, not Q and K")
    heads = doc.get("heads")
    n_heads = len(heads) if isinstance(heads, (list, tuple)) else 0
    base = {k: _read_param(split_key(k)[1], v, k, d) for k, v in written.items()}
    phases = []
    if raw is not None:
        if not isinstance(raw, (list, tuple)) or not raw:
            raise InvalidParameters("phase", "expected a non-empty array of tables ([[phase]])")
        if len(raw) > MAX_PHASES:
            raise InvalidParameters("phase", f"at most {MAX_PHASES} phases (got {len(raw)})")
        first: set = set()
        for i, ph in enumerate(raw):
            where = f"phase[{i}]"
            if not isinstance(ph, Mapping):
                raise InvalidParameters(where, f"expected a table, got {type(ph).__name__}")
            for key in ph:
                if key not in PHASE_FIELDS:
                    raise InvalidParameters(f"{where}.{key}", f"unknown field; allowed fields: {', '.join(PHASE_FIELDS)}")
            if "duration" not in ph:
                raise InvalidParameters(f"{where}.duration", "missing (an exact positive depth, e.g. \"1/2\")")
            dur = to_fraction(ph["duration"], f"{where}.duration")
            if dur <= 0:
                raise InvalidParameters(f"{where}.duration", f"must be positive, got {frac_str(dur)}")
            changes = {}
            for k, (field, value) in _phase_changes(ph, where, n_heads).items():
                if k not in written and k not in first and i > 0:
                    name = split_key(k)[1]
                    raise InvalidParameters(field, f"{name} is not set at top level nor by the first phase "
                                            "(which starts at t = 0); give its value from t = 0 on in one of them "
                                            "(e.g. zeros)")
                if _uses_QK(doc, k):
                    raise InvalidParameters(field, "a scheduled A needs A itself at top level, not Q and K")
                changes[k] = _read_param(split_key(k)[1], value, field, d)
            if i == 0:  # a value from t = 0 on that the top level does not give is the base value
                first = set(changes)
                for k in [k for k in changes if k not in written]:
                    base[k] = changes.pop(k)
            phases.append(Phase(dur, tuple(sorted(changes.items()))))
    sch = Schedule(tuple(sorted(base.items())), tuple(phases))
    at0 = sch.params_at(Fraction(0))
    out = {k: v for k, v in at0.items() if split_key(k)[0] is None}
    if n_heads:
        out["heads"] = [dict(h) for h in heads]
        for k, v in at0.items():
            i, name = split_key(k)
            if i is not None:
                out["heads"][i][name] = [list(r) for r in v]
    return sch, out


def schedule_to_dict(schedule: Schedule, out: dict) -> dict:
    """Write a schedule into a serialised problem (in place): the scheduled top-level entries
    as written (polynomials as canonical strings) and the ``phase`` array.

    Parameters
    ----------
    schedule : Schedule
        The schedule to write.
    out : dict
        A serialised problem, updated in place.

    Returns
    -------
    dict
        ``out``.
    """
    for k, v in schedule.base:
        i, name = split_key(k)
        (out if i is None else out["heads"][i])[name] = _out(v)
    if schedule.phases:
        n_heads = len(out.get("heads", ()))
        out["phase"] = []
        for ph in schedule.phases:
            row = {"duration": frac_str(ph.duration)}
            hs = [{} for _ in range(n_heads)]
            for k, v in ph.changes:
                i, name = split_key(k)
                (row if i is None else hs[i])[name] = _out(v)
            if any(hs):
                row["heads"] = hs
            out["phase"].append(row)
    return out
