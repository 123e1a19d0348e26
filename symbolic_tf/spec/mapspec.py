"""Regime-map specifications: a base problem plus one 2-D slice (TOML or JSON).

A map spec names two scalar coordinates ``x`` and ``y`` and writes some entries of the base
problem as **affine** expressions in them (exact rationals; ``"1/2 + x"``, ``"-2*y"``,
``"0.1*x - y/3"``)::

    family = "parameter"          # or "cov" (entries of initial.cov) or "cov-disk"
    name = "softmax, V = I, diagonal of A"
    resolution = [16, 16]         # initial grid of cells
    max_depth = 4                 # quadtree refinement: cells down to 1/(16·2⁴) of each range
    point_budget = 2              # optional: seconds of classification per point verdict (default 2)
    [x]
    label = "A₁₁"
    range = [-1, 1]
    [y]
    label = "A₂₂"
    range = [-1, 1]
    [problem]                     # a problem document (see spec.problem) with affine leaves
    variant = "softmax"
    d = 2
    A = [["x", "1/2"], ["-1/2", "y"]]
    V = [[1, 0], [0, 1]]
    [problem.initial]
    cov = [[1, 0], [0, 1]]

Slice families
--------------
``parameter``
    coordinates enter the parameters (A, V, F, b, scale, heads); Σ₀ is fixed.
``cov``
    coordinates enter ``initial.cov`` (and ``initial.mean``) only; Σ₀ must be positive
    definite at every corner of the coordinate box (then on the whole box: Σ₀ is affine).
``cov-disk``
    d = 2 and trace-one Σ₀ = [[(1+u)/2, w/2], [w/2, (1−u)/2]] with (u, w) = (a − b, 2c) in
    the unit disk (Σ₀ ≻ 0 ⟺ u² + w² < 1), as in the reference experiments; the ranges must
    lie in [−1, 1] and cells outside the disk are not part of the map's domain.

Everything is parsed exactly; the expressions are parsed by a small recursive-descent parser
(no ``eval``), which refuses anything that is not affine in (x, y).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

from ..exact.rational import frac_str
from .errors import InvalidParameters
from .limits import MAX_DEPTH as MAX_NESTING, MAX_DIGITS, brief, int_digits_exceed
from .problem import parse_problem, read_document
from .rational import parse_rational_str, to_fraction

__all__ = ["FAMILIES", "MapSpec", "parse_map_spec", "load_map_spec", "parse_affine", "SCHEMA_SPEC"]

SCHEMA_SPEC = "symbolic_tf.map_spec/1"
FAMILIES = ("parameter", "cov", "cov-disk")
SPEC_FIELDS = ("family", "name", "description", "resolution", "max_depth", "point_budget", "x", "y", "problem",
               "schema")
#: the most seconds ``point_budget`` may give one point classification
MAX_POINT_BUDGET = 3600
MAX_DEPTH = 12
_DISK_COV = [["1/2 + x/2", "y/2"], ["y/2", "1/2 - x/2"]]

Affine = tuple  # (c0, cx, cy) Fractions


# ---------------------------------------------------------------------------------------
# affine expressions: numbers, x, y, + - * / and parentheses; products need a constant side
# ---------------------------------------------------------------------------------------
_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([xy])|([-+*/()]))")


def _tokens(s: str, field: str) -> list:
    out, pos = [], 0
    s = s.rstrip()
    while pos < len(s):
        m = _TOKEN.match(s, pos)
        if not m or m.end() == pos:
            raise InvalidParameters(field, f"cannot read {brief(s)} at {s[pos:pos + 8]!r}: only numbers, "
                                    "x, y, + - * / and parentheses are allowed")
        num, var, op = m.groups()
        out.append(("n", parse_rational_str(num, field)) if num else ("v", var) if var else ("o", op))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, toks, field, text):
        self.t, self.i, self.field, self.text = toks, 0, field, text
        self.depth = 0  # nesting of parentheses and signs (recursion is bounded by MAX_NESTING)

    def _bounded(self, a: Affine) -> Affine:
        """Refuse coefficients that outgrow the digit limit ("1e9999*1e9999*…")."""
        if any(int_digits_exceed(c.numerator) or int_digits_exceed(c.denominator) for c in a):
            self._err(f"a coefficient has more than {MAX_DIGITS} digits")
        return a

    def _err(self, msg):
        raise InvalidParameters(self.field, f"{brief(self.text)}: {msg}")

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else (None, None)

    def take(self):
        tok = self.peek()
        self.i += 1
        return tok

    def expr(self) -> Affine:
        a = self.term()
        while self.peek() in (("o", "+"), ("o", "-")):
            op = self.take()[1]
            b = self.term()
            a = self._bounded(tuple(p + q if op == "+" else p - q for p, q in zip(a, b)))
        return a

    def term(self) -> Affine:
        a = self.factor()
        while self.peek() in (("o", "*"), ("o", "/")):
            op = self.take()[1]
            b = self.factor()
            if op == "*":
                if b[1] == b[2] == 0:
                    a = tuple(p * b[0] for p in a)
                elif a[1] == a[2] == 0:
                    a = tuple(q * a[0] for q in b)
                else:
                    self._err("not affine in (x, y): a product of two non-constant terms")
            else:
                if b[1] != 0 or b[2] != 0:
                    self._err("not affine in (x, y): division by a non-constant term")
                if b[0] == 0:
                    self._err("division by zero")
                a = tuple(p / b[0] for p in a)
            a = self._bounded(a)
        return a

    def factor(self) -> Affine:
        self.depth += 1
        try:
            return self._factor()
        finally:
            self.depth -= 1

    def _factor(self) -> Affine:
        if self.depth > MAX_NESTING:
            self._err(f"nested too deeply (at most {MAX_NESTING} parentheses or signs)")
        kind, val = self.take()
        if kind == "o" and val in "+-":
            a = self.factor()
            return a if val == "+" else tuple(-p for p in a)
        if kind == "n":
            return (val, Fraction(0), Fraction(0))
        if kind == "v":
            return (Fraction(0), Fraction(1), Fraction(0)) if val == "x" else (Fraction(0), Fraction(0), Fraction(1))
        if (kind, val) == ("o", "("):
            a = self.expr()
            if self.take() != ("o", ")"):
                self._err("missing ')'")
            return a
        self._err("unexpected end" if kind is None else f"unexpected {val!r}")


def parse_affine(value: Any, field: str) -> Affine:
    """(c0, cx, cy) with value = c0 + cx·x + cy·y, exactly; numbers are constants.

    Parameters
    ----------
    value : number or str
        A number or a string affine in x and y (e.g. ``"1/2 + x - 3*y"``).
    field : str
        Name of the leaf, for error messages.

    Returns
    -------
    tuple of Fraction
        (c0, cx, cy).
    """
    if isinstance(value, str) and re.search(r"[xy]", value):
        p = _Parser(_tokens(value, field), field, value)
        a = p.expr()
        if p.i != len(p.t):
            p._err(f"unexpected {p.t[p.i][1]!r}")
        return a
    return (to_fraction(value, field), Fraction(0), Fraction(0))


def _walk(doc, path=""):
    """Yield (path, container, key, leaf) for every scalar leaf of a problem document."""
    if isinstance(doc, Mapping):
        for k, v in doc.items():
            yield from _walk_child(doc, k, v, f"{path}.{k}" if path else str(k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _walk_child(doc, i, v, f"{path}[{i}]")


def _walk_child(cont, key, v, path):
    if isinstance(v, (Mapping, list)):
        yield from _walk(v, path)
    else:
        yield path, cont, key, v


def _copy(doc):
    return json.loads(json.dumps(doc, default=str))


@dataclass
class MapSpec:
    """A parsed map spec.  ``leaves`` maps a leaf path of the problem document to its affine
    coefficients (only leaves that depend on x or y)."""

    family: str
    problem_doc: dict
    leaves: dict
    x_range: tuple
    y_range: tuple
    x_label: str
    y_label: str
    resolution: tuple
    max_depth: int
    name: str = ""
    description: str = ""
    point_budget: Fraction | None = None   # seconds per point classification (None: the map's default)

    # --- points --------------------------------------------------------------------
    def problem_doc_at(self, x, y) -> dict:
        """The problem document at the point (x, y): every affine leaf replaced by c0 + cx·x + cy·y.

        Parameters
        ----------
        x, y : number
            The point (read exactly as Fractions).

        Returns
        -------
        dict
            A copy of ``problem_doc`` with exact ``"p/q"`` strings at the affine leaves.
        """
        x, y = Fraction(x), Fraction(y)
        doc = _copy(self.problem_doc)
        for path, cont, key, leaf in list(_walk(doc)):
            if path in self.leaves:
                c0, cx, cy = self.leaves[path]
                cont[key] = frac_str(c0 + cx * x + cy * y)
        return doc

    def problem_at(self, x, y):
        """The exact problem at the point (x, y).

        Parameters
        ----------
        x, y : number
            The point (read exactly).

        Returns
        -------
        Problem
            ``parse_problem`` of :meth:`problem_doc_at`.
        """
        return parse_problem(self.problem_doc_at(x, y))

    def field_affine(self, name: str):
        """(C0, Cx, Cy) exact for a top-level matrix/vector/scalar field, or None if absent.

        Uses affinity: C0 = P(0, 0), Cx = P(1, 0) − C0, Cy = P(0, 1) − C0.

        Parameters
        ----------
        name : str
            A top-level field of the problem document (``"A"``, ``"V"``, ...).

        Returns
        -------
        tuple or None
            (C0, Cx, Cy) with P(x, y) = C0 + x·Cx + y·Cy, exact; None when the field is absent.
        """
        if name not in self.problem_doc:
            return None
        vals = []
        for pt in ((0, 0), (1, 0), (0, 1)):
            doc = self.problem_doc_at(*pt)
            vals.append(_exact(doc[name], name))
        c0, p1, p2 = vals
        return c0, _sub(p1, c0), _sub(p2, c0)

    def cov_affine(self):
        """(C0, Cx, Cy) for the initial covariance, Σ₀(x, y) = C0 + x·Cx + y·Cy, exact.

        Returns
        -------
        tuple or None
            The three exact matrices, or None when the problem has no ``initial.cov``.
        """
        if "cov" not in self.problem_doc.get("initial", {}):
            return None
        vals = [_exact(self.problem_doc_at(*pt)["initial"]["cov"], "initial.cov") for pt in ((0, 0), (1, 0), (0, 1))]
        return vals[0], _sub(vals[1], vals[0]), _sub(vals[2], vals[0])

    def depends_on_coordinates(self, prefix: str) -> bool:
        """Whether any leaf under ``prefix`` depends on x or y.

        Parameters
        ----------
        prefix : str
            A leaf path of the problem document (``"A"``, ``"initial.cov"``, ...).

        Returns
        -------
        bool
            True when a leaf at or below ``prefix`` is affine non-constant.
        """
        return any(p == prefix or p.startswith(prefix + ".") or p.startswith(prefix + "[") for p in self.leaves)

    # --- serialisation --------------------------------------------------------------
    def to_dict(self) -> dict:
        """The spec as a JSON-serialisable document (schema, family, name, ranges, problem).

        Returns
        -------
        dict
            ``load_map_spec`` reads it back (the ``schema`` key is dropped on reading).
        """
        return {"schema": SCHEMA_SPEC, "family": self.family, "name": self.name, "description": self.description,
                "resolution": list(self.resolution), "max_depth": self.max_depth,
                # only when set, so that the hash of a spec without it is unchanged
                **({"point_budget": frac_str(self.point_budget)} if self.point_budget is not None else {}),
                "x": {"label": self.x_label, "range": [frac_str(v) for v in self.x_range]},
                "y": {"label": self.y_label, "range": [frac_str(v) for v in self.y_range]},
                "problem": self.problem_doc}

    def content_hash(self) -> str:
        """SHA-256 of the canonical JSON of :meth:`to_dict` (sorted keys).

        Returns
        -------
        str
            The hexadecimal digest.
        """
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()


def _exact(v, field):
    if isinstance(v, list):
        return tuple(_exact(e, field) for e in v)
    return to_fraction(v, field)


def _sub(a, b):
    if isinstance(a, tuple):
        return tuple(_sub(p, q) for p, q in zip(a, b))
    return a - b


def _range(doc: Mapping, axis: str, default=None) -> tuple:
    tab = doc.get(axis)
    if tab is None:
        if default is None:
            raise InvalidParameters(axis, "missing (a table with label and range = [lo, hi])")
        tab = {}
    if not isinstance(tab, Mapping):
        raise InvalidParameters(axis, "expected a table with label and range = [lo, hi]")
    unknown = set(tab) - {"label", "range"}
    if unknown:
        raise InvalidParameters(axis, f"unknown field(s) {', '.join(sorted(unknown))} (allowed: label, range)")
    rng = tab.get("range", default)
    if not isinstance(rng, (list, tuple)) or len(rng) != 2:
        raise InvalidParameters(f"{axis}.range", "expected [lo, hi]")
    lo, hi = (to_fraction(v, f"{axis}.range") for v in rng)
    if not lo < hi:
        raise InvalidParameters(f"{axis}.range", f"empty range [{frac_str(lo)}, {frac_str(hi)}]: need lo < hi")
    label = tab.get("label", axis)
    if not isinstance(label, str):
        raise InvalidParameters(f"{axis}.label", "expected a string")
    return lo, hi, label


def parse_map_spec(doc: Mapping, base_dir: Path | None = None) -> MapSpec:
    """Validate a map-spec document into a :class:`MapSpec` (see the module docstring).

    Parameters
    ----------
    doc : Mapping
        The decoded spec document.
    base_dir : Path, optional
        The folder against which a ``problem`` given as a path is resolved (default ``.``).

    Returns
    -------
    MapSpec
        The validated spec.

    Raises
    ------
    InvalidParameters
        Unknown family or fields, empty ranges, non-affine expressions, a problem that is
        invalid at a corner of the box, or Σ₀ not positive definite on the slice.
    """
    if not isinstance(doc, Mapping):
        raise InvalidParameters("spec", "expected a table")
    unknown = set(doc) - set(SPEC_FIELDS)
    if unknown:
        raise InvalidParameters(sorted(unknown)[0], f"unknown field; allowed: {', '.join(SPEC_FIELDS)}")
    family = doc.get("family", "parameter")
    if family not in FAMILIES:
        raise InvalidParameters("family", f"unknown slice family {brief(family)}; known: {', '.join(FAMILIES)}")
    problem = doc.get("problem")
    if isinstance(problem, str):  # a path to a problem file, relative to the spec
        problem = read_document((base_dir or Path(".")) / problem)
    if not isinstance(problem, Mapping):
        raise InvalidParameters("problem", "missing: a base problem table (or a path to a problem file)")
    problem = _copy(problem)
    disk = family == "cov-disk"
    if disk:
        if problem.get("d") != 2:
            raise InvalidParameters("problem.d", "the cov-disk family is for d = 2")
        init = problem.setdefault("initial", {})
        if not isinstance(init, dict):
            raise InvalidParameters("problem.initial", "expected a table")
        if "cov" in init and init["cov"] != _DISK_COV:
            raise InvalidParameters("problem.initial.cov", "the cov-disk family sets Σ₀ = [[(1+u)/2, w/2], "
                                    "[w/2, (1−u)/2]] itself; remove cov")
        init["cov"] = _copy(_DISK_COV)
    x0, x1, xl = _range(doc, "x", ["-1", "1"] if disk else None)
    y0, y1, yl = _range(doc, "y", ["-1", "1"] if disk else None)
    if disk:
        xl = xl if "x" in doc and "label" in doc["x"] else "u = a − b"
        yl = yl if "y" in doc and "label" in doc["y"] else "w = 2c"
        if x0 < -1 or x1 > 1 or y0 < -1 or y1 > 1:
            raise InvalidParameters("x.range" if (x0 < -1 or x1 > 1) else "y.range",
                                    "the cov-disk coordinates (u, w) must lie in [−1, 1] (Σ₀ ≻ 0 ⟺ u² + w² < 1)")
    res = doc.get("resolution", [16, 16])
    if (not isinstance(res, (list, tuple)) or len(res) != 2
            or any(isinstance(r, bool) or not isinstance(r, int) or r < 1 or r > 4096 for r in res)):
        raise InvalidParameters("resolution", f"expected [nx, ny] with 1 ≤ n ≤ 4096, got {brief(res)}")
    depth = doc.get("max_depth", 4)
    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= MAX_DEPTH:
        raise InvalidParameters("max_depth", f"expected an integer in [0, {MAX_DEPTH}], got {brief(depth)}")
    for key in ("name", "description"):
        if key in doc and not isinstance(doc[key], str):
            raise InvalidParameters(key, "expected a string")
    point_budget = None
    if "point_budget" in doc:
        pb = doc["point_budget"]
        try:
            point_budget = None if isinstance(pb, bool) else to_fraction(pb, "point_budget")
        except InvalidParameters:
            point_budget = None
        if point_budget is None or not 0 < point_budget <= MAX_POINT_BUDGET:
            raise InvalidParameters("point_budget", f"expected a number of seconds in (0, {MAX_POINT_BUDGET}], "
                                    f"got {brief(pb)}")

    leaves = {}
    for path, _c, _k, leaf in _walk(problem):
        if isinstance(leaf, str) and re.search(r"[xy]", leaf) and path not in ("variant", "name", "description") \
                and not path.endswith(".variant"):
            leaves[path] = parse_affine(leaf, f"problem.{path}")
    if not leaves:
        raise InvalidParameters("problem", "no entry depends on the coordinates x, y: nothing to map")
    in_initial = [p for p in leaves if p.startswith("initial")]
    in_params = [p for p in leaves if not p.startswith("initial")]
    if family == "parameter" and in_initial:
        raise InvalidParameters(f"problem.{in_initial[0]}", "a parameter slice keeps the initial Gaussian fixed "
                                "(use family = \"cov\" for Σ₀ slices)")
    if family in ("cov", "cov-disk") and in_params:
        raise InvalidParameters(f"problem.{in_params[0]}", f"a {family} slice varies only the initial Gaussian")
    spec = MapSpec(family, problem, leaves, (x0, x1), (y0, y1), xl, yl, tuple(res), depth,
                   doc.get("name", ""), doc.get("description", ""), point_budget)
    # the problem must be valid on the whole box: affine entries, so the corners decide PSD of Σ₀
    corners = [(x0, y0), (x1, y0), (x0, y1), (x1, y1)]
    if not disk:
        for (cx, cy) in corners:
            try:
                p = spec.problem_at(cx, cy)
            except InvalidParameters as exc:
                raise InvalidParameters(f"problem.{exc.field}", f"at the corner (x, y) = ({frac_str(cx)}, "
                                        f"{frac_str(cy)}): {exc.reason}") from None
            if p.cov is None:
                raise InvalidParameters("problem.initial.cov", "needed: a map classifies the problem's Σ₀")
            from ..exact.congruence import psd_decision

            if not psd_decision(p.cov).pd:
                raise InvalidParameters("problem.initial.cov", f"not positive definite at the corner (x, y) = "
                                        f"({frac_str(cx)}, {frac_str(cy)}): regime maps need Σ₀ ≻ 0")
    else:
        spec.problem_at(Fraction(0), Fraction(0))  # the rest of the problem is checked at the centre
    return spec


def load_map_spec(path: str | Path) -> MapSpec:
    """Read a ``.toml`` or ``.json`` map spec.

    Parameters
    ----------
    path : str or Path
        The spec file; its folder resolves a ``problem`` path.

    Returns
    -------
    MapSpec
        The validated spec.
    """
    doc = read_document(path, "map spec")
    if not isinstance(doc, Mapping):
        raise InvalidParameters("spec", f"expected a table/object, got a {type(doc).__name__}")
    doc = dict(doc)
    doc.pop("schema", None)
    return parse_map_spec(doc, Path(path).parent)
