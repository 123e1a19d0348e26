"""Problem documents (TOML or JSON) parsed into exact :class:`Problem` objects.

A problem describes one mean-field Transformer and an initial Gaussian::

    variant = "softmax"          # a registered variant name
    d = 2
    A = [[1, "1/2"], [0, -1]]    # or Q and K (k×d each); A := KᵀQ (docs/mathematics.md §1)
    V = [[1, 0], [0, 1]]
    F = [[0, 0], [0, 0]]         # optional affine feed-forward drift F x + b
    b = [0, 0]
    scale = 1                    # temperature: A ↦ scale·A (ℓ2: exponent ↦ scale·exponent)
    sigmoid_bias = 0             # sigmoid only
    T = 1                        # optional horizon
    [[phase]]                    # optional depth schedule: duration + what changes (docs/schedules.md)
    [[heads]]                    # multi-head: each head has A (or Q, K), V, optional W, variant
    [initial]
    mean = [0, 0]
    cov = [[1, 0], [0, 1]]       # symmetric PSD, decided exactly
                                 # or a non-Gaussian law: law = "uniform_box" | "uniform_ball" |
                                 # "mixture" | "empirical" (symbolic_tf.spec.initial)
    [relu]                       # optional ReLU feed-forward W2·ReLU(W1 x + b1) (spec/relu.py)
    [masked]                     # masked only: positions = "uniform" | "grid:K", sink = m₀ (spec/masked.py)

Every number is parsed exactly (see :mod:`symbolic_tf.spec.rational`).  Variant-specific
requirements (which matrices a variant needs) are checked by ``symbolic_tf.variants.bind``;
this module checks the grammar: fields, shapes, finiteness, symmetry and PSD of ``cov``.
"""
from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from ..exact.congruence import is_symmetric, matmul, psd_decision, transpose
from ..exact.rational import fmpq_of, frac_str, qmat
from .errors import InvalidParameters, ProblemFileError
from .initial import InitialLaw, law_to_dict, parse_initial_law
from .limits import MAX_DIM, brief, load_json_text, load_toml_text, read_text_file
from .rational import to_fraction, to_matrix, to_vector
from .schedule import parse_schedule, schedule_to_dict

if TYPE_CHECKING:
    import flint

__all__ = ["Head", "Problem", "ExactProblem", "parse_problem", "load_problem", "problem_to_dict", "problem_text", "TOP_LEVEL_FIELDS"]

TOP_LEVEL_FIELDS = (
    "variant", "d", "A", "Q", "K", "V", "F", "b", "heads", "sigmoid_bias", "scale", "T",
    "initial", "name", "description", "relu", "phase", "masked",
)
HEAD_FIELDS = ("variant", "A", "Q", "K", "V", "W")
INITIAL_FIELDS = ("mean", "cov")


@dataclass(frozen=True)
class Head:
    """One attention head: its attention matrix A (or Q, K), value V and output weight W."""

    variant: str = "softmax"
    A: tuple | None = None
    Q: tuple | None = None
    K: tuple | None = None
    V: tuple | None = None
    W: tuple | None = None

    @property
    def attention(self) -> tuple | None:
        """A, or KᵀQ when only Q and K were given."""
        if self.A is not None:
            return self.A
        if self.Q is not None and self.K is not None:
            return matmul(transpose(self.K), self.Q)
        return None


class ExactProblem:
    """The matrices of a :class:`Problem` as python-flint exact rationals, built once.

    ``problem.exact`` (cached on the problem) replaces repeated ``qmat(problem.A)``-style
    conversions.  Every attribute access returns a *fresh copy* (``fmpq_mat`` is mutable), so
    a caller may modify what it gets without touching the cache.  A field the problem does not
    have is ``None``.

    Attributes
    ----------
    A, Q, K, V, F : flint.fmpq_mat or None
        The problem's d × d matrices (A unscaled: the attention is ``A * scale``).
    b : flint.fmpq_mat or None
        The drift offset as a d × 1 column.
    Sigma0 : flint.fmpq_mat or None
        The initial covariance Σ₀ (``problem.cov``).
    mean : flint.fmpq_mat or None
        The initial mean as a d × 1 column.
    scale : flint.fmpq
        The attention scale.
    heads : tuple of (flint.fmpq_mat, flint.fmpq_mat)
        One pair (C_h, A_h) per ``[[heads]]`` entry: C_h = W_h V_h (V_h when W_h is absent),
        A_h its attention matrix (A, or KᵀQ), unscaled; ``None`` in place of a missing matrix.
    """

    _FIELDS = ("A", "Q", "K", "V", "F", "b", "Sigma0", "mean")

    def __init__(self, problem: "Problem"):
        import flint

        def col(v):
            return None if v is None else qmat([[x] for x in v])

        def mat(M):
            return None if M is None else qmat(M)

        self._m = {"A": mat(problem.A), "Q": mat(problem.Q), "K": mat(problem.K), "V": mat(problem.V),
                   "F": mat(problem.F), "b": col(problem.b), "Sigma0": mat(problem.cov), "mean": col(problem.mean)}
        self._scale = fmpq_of(problem.scale)
        heads = []
        for h in problem.heads:
            C = mat(h.V)
            if C is not None and h.W is not None:
                C = qmat(h.W) * C
            heads.append((C, mat(h.attention)))
        self._heads = tuple(heads)

    def __getattr__(self, name):
        import flint

        if name in ExactProblem._FIELDS:
            M = self._m[name]
            return None if M is None else flint.fmpq_mat(M)
        raise AttributeError(name)

    @property
    def scale(self) -> flint.fmpq:
        """The attention scale as an exact rational."""
        return self._scale

    @property
    def heads(self) -> tuple:
        """Fresh copies of the heads' (C_h, A_h) pairs (see the class docstring)."""
        import flint

        return tuple(tuple(None if M is None else flint.fmpq_mat(M) for M in pair) for pair in self._heads)


@dataclass(frozen=True)
class Problem:
    """An exact problem: parameters and initial Gaussian, all entries ``Fraction``.

    Matrices are tuples of row tuples; vectors are tuples.  ``A`` is always filled when
    ``Q`` and ``K`` are given (A = KᵀQ).
    """

    variant: str
    d: int
    A: tuple | None = None
    Q: tuple | None = None
    K: tuple | None = None
    V: tuple | None = None
    F: tuple | None = None
    b: tuple | None = None
    heads: tuple = ()
    sigmoid_bias: Fraction = Fraction(0)
    scale: Fraction = Fraction(1)
    T: Fraction | None = None
    mean: tuple | None = None
    cov: tuple | None = None
    name: str | None = None
    description: str | None = None
    relu: Any = None  # a spec.relu.ReLUTerm: the non-affine feed-forward W2·ReLU(W1 x + b1)
    given_A: bool = field(default=False, compare=False)
    initial_law: InitialLaw | None = None  # a non-Gaussian initial law (then mean, cov are None)
    schedule: Any = None  # a spec.schedule.Schedule when parameters depend on depth t
    masked: Any = None  # a spec.masked.PositionMarginal: the position law of masked attention

    @property
    def scheduled(self) -> bool:
        """Do the parameters depend on depth t (docs/schedules.md)?"""
        return self.schedule is not None

    @property
    def has_drift(self) -> bool:
        """True when the problem has a drift term (F or b given)."""
        return self.F is not None or self.b is not None

    @functools.cached_property
    def exact(self) -> ExactProblem:
        """The problem's matrices as exact python-flint rationals, converted once (cached).

        Returns
        -------
        ExactProblem
            Copies of A, Q, K, V, F, b, Σ₀, mean and the heads' pairs as ``fmpq_mat``.
        """
        return ExactProblem(self)

    def __getstate__(self):
        """Pickle the fields only (the cached :attr:`exact` view holds unpicklable flint objects)."""
        state = dict(self.__dict__)
        state.pop("exact", None)
        return state

    def content_hash(self) -> str:
        """SHA-256 of the canonical JSON of the exact problem (certificates refer to it).

        Equal problems hash equally: whether A was spelled out next to Q, K (``given_A``,
        excluded from ``==``) does not change the hash.

        Returns
        -------
        str
            The hexadecimal SHA-256 digest.
        """
        canonical = replace(self, given_A=False)
        blob = json.dumps(problem_to_dict(canonical), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()

    def numeric_params(self) -> dict:
        """The problem's parameters as float arrays, for the numeric layer (computing, never deciding).

        Each exact entry p/q becomes the float nearest to it (``float(Fraction)``, correctly
        rounded).

        Returns
        -------
        dict
            ``"A"``, ``"Q"``, ``"K"``, ``"V"``, ``"F"`` : 2-D arrays (only the matrices the problem
            sets); ``"b"``, ``"mean"`` : 1-D arrays (when set); ``"cov"`` : 2-D array (when set);
            ``"scale"`` (τ) and ``"sigmoid_bias"`` : floats.
        """
        import numpy as np

        out: dict[str, Any] = {}
        for name in ("A", "Q", "K", "V", "F", "cov"):
            M = getattr(self, name)
            if M is not None:
                out[name] = np.array([[float(e) for e in row] for row in M], dtype=float)
        for name in ("b", "mean"):
            v = getattr(self, name)
            if v is not None:
                out[name] = np.array([float(e) for e in v], dtype=float)
        out["scale"] = float(self.scale)
        out["sigmoid_bias"] = float(self.sigmoid_bias)
        return out


def _mat_out(M):
    return None if M is None else [[frac_str(x) for x in row] for row in M]


def _vec_out(v):
    return None if v is None else [frac_str(x) for x in v]


def problem_to_dict(p: Problem) -> dict:
    """Serialise exactly (entries as "p/q" strings); ``parse_problem`` inverts it.

    Parameters
    ----------
    p : Problem
        The problem.

    Returns
    -------
    dict
        A JSON-serialisable document (rationals as ``"p/q"`` strings).
    """
    out: dict[str, Any] = {"variant": p.variant, "d": p.d}
    if p.Q is not None and not p.given_A:
        out["Q"], out["K"] = _mat_out(p.Q), _mat_out(p.K)
    elif p.A is not None:
        out["A"] = _mat_out(p.A)
        if p.Q is not None:
            out["Q"], out["K"] = _mat_out(p.Q), _mat_out(p.K)
    for key in ("V", "F"):
        if getattr(p, key) is not None:
            out[key] = _mat_out(getattr(p, key))
    if p.b is not None:
        out["b"] = _vec_out(p.b)
    if p.heads:
        hs = []
        for h in p.heads:
            hd: dict[str, Any] = {"variant": h.variant}
            for key in ("A", "Q", "K", "V", "W"):
                if getattr(h, key) is not None:
                    hd[key] = _mat_out(getattr(h, key))
            hs.append(hd)
        out["heads"] = hs
    if p.sigmoid_bias != 0:
        out["sigmoid_bias"] = frac_str(p.sigmoid_bias)
    if p.scale != 1:
        out["scale"] = frac_str(p.scale)
    if p.T is not None:
        out["T"] = frac_str(p.T)
    if p.initial_law is not None:
        out["initial"] = law_to_dict(p.initial_law)
    elif p.mean is not None or p.cov is not None:
        init = {}
        if p.mean is not None:
            init["mean"] = _vec_out(p.mean)
        if p.cov is not None:
            init["cov"] = _mat_out(p.cov)
        out["initial"] = init
    if p.relu is not None:
        from .relu import relu_to_dict

        out["relu"] = relu_to_dict(p.relu)
    if p.masked is not None:
        from .masked import masked_to_dict

        out["masked"] = masked_to_dict(p.masked)
    if p.name is not None:
        out["name"] = p.name
    if p.description is not None:
        out["description"] = p.description
    if p.schedule is not None:
        schedule_to_dict(p.schedule, out)
    return out


def _check_fields(doc: Mapping, allowed, where: str) -> None:
    if not isinstance(doc, Mapping):
        raise InvalidParameters(where or "problem", f"expected a table/object, got {type(doc).__name__}")
    for key in doc:
        if key not in allowed:
            name = f"{where}.{key}" if where else str(key)
            raise InvalidParameters(name, f"unknown field; allowed fields: {', '.join(allowed)}")


def _attention(doc: Mapping, where: str, d: int):
    """Parse A or (Q, K); return (A, Q, K, given_A)."""
    pre = f"{where}." if where else ""
    A = Q = K = None
    if "A" in doc:
        A = to_matrix(doc["A"], f"{pre}A", (d, d))
    if ("Q" in doc) != ("K" in doc):
        missing = "K" if "Q" in doc else "Q"
        raise InvalidParameters(f"{pre}{missing}", "Q and K must be given together")
    if "Q" in doc:
        Q = to_matrix(doc["Q"], f"{pre}Q", (None, d))
        K = to_matrix(doc["K"], f"{pre}K", (len(Q), d))
        QK = matmul(transpose(K), Q)
        if A is not None and A != QK:
            raise InvalidParameters(f"{pre}A", "both A and Q, K given but A != KᵀQ")
        given = A is not None
        A = QK
        return A, Q, K, given
    return A, Q, K, A is not None


def parse_problem(doc: Mapping, base_dir: str | Path | None = None) -> Problem:
    """Validate a problem document (already decoded from TOML/JSON) into a :class:`Problem`.

    ``base_dir`` resolves a relative ``[initial] file`` (an empirical cloud); the current
    directory when None.

    Parameters
    ----------
    doc : Mapping
        The decoded document.
    base_dir : str or Path, optional
        The folder against which a relative ``[initial] file`` is resolved.

    Returns
    -------
    Problem
        The validated, exact problem.

    Raises
    ------
    InvalidParameters
        With the offending field's name first in the message.
    """
    _check_fields(doc, TOP_LEVEL_FIELDS, "")
    if "variant" not in doc:
        raise InvalidParameters("variant", "missing (e.g. variant = \"softmax\")")
    variant = doc["variant"]
    if not isinstance(variant, str) or not variant.strip():
        raise InvalidParameters("variant", f"expected a variant name, got {brief(variant)}")
    variant = variant.strip().lower()
    if "d" not in doc:
        raise InvalidParameters("d", "missing (the token dimension)")
    d = doc["d"]
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise InvalidParameters("d", f"expected a positive integer, got {brief(d)}")
    if d > MAX_DIM:
        raise InvalidParameters("d", f"at most {MAX_DIM} (got {brief(d)})")

    schedule, at0 = parse_schedule(doc, d)
    if schedule is not None:  # read the values at t = 0 in place of the written entries
        doc = {**{k: v for k, v in doc.items() if k != "phase"}, **at0}
    A, Q, K, given_A = _attention(doc, "", d)
    V = to_matrix(doc["V"], "V", (d, d)) if "V" in doc else None
    F = to_matrix(doc["F"], "F", (d, d)) if "F" in doc else None
    b = to_vector(doc["b"], "b", d) if "b" in doc else None

    heads = []
    if "heads" in doc:
        raw = doc["heads"]
        if not isinstance(raw, (list, tuple)) or not raw:
            raise InvalidParameters("heads", "expected a non-empty array of tables")
        for i, h in enumerate(raw):
            where = f"heads[{i}]"
            _check_fields(h, HEAD_FIELDS, where)
            hv = h.get("variant", "softmax")
            if not isinstance(hv, str) or not hv.strip():
                raise InvalidParameters(f"{where}.variant", f"expected a name, got {brief(hv)}")
            hA, hQ, hK, _ = _attention(h, where, d)
            if hA is None:
                raise InvalidParameters(f"{where}.A", "missing (give A, or Q and K)")
            if "V" not in h:
                raise InvalidParameters(f"{where}.V", "missing")
            hV = to_matrix(h["V"], f"{where}.V", (d, d))
            hW = to_matrix(h["W"], f"{where}.W", (d, d)) if "W" in h else None
            heads.append(Head(hv.strip().lower(), hA, hQ, hK, hV, hW))

    sigmoid_bias = to_fraction(doc.get("sigmoid_bias", 0), "sigmoid_bias")
    scale = to_fraction(doc.get("scale", 1), "scale")
    if scale <= 0:
        raise InvalidParameters("scale", f"must be positive, got {frac_str(scale)}")
    T = None
    if "T" in doc:
        T = to_fraction(doc["T"], "T")
        if T <= 0:
            raise InvalidParameters("T", f"horizon must be positive, got {frac_str(T)}")

    mean = cov = law = None
    if "initial" in doc and isinstance(doc["initial"], Mapping) and "law" in doc["initial"]:
        law = parse_initial_law(doc["initial"], d, check_covariance, base_dir)
    elif "initial" in doc:
        init = doc["initial"]
        _check_fields(init, INITIAL_FIELDS, "initial")
        if "mean" in init:
            mean = to_vector(init["mean"], "initial.mean", d)
        if "cov" in init:
            cov = to_matrix(init["cov"], "initial.cov", (d, d))
            check_covariance(cov, "initial.cov")
    for key in ("name", "description"):
        if key in doc and not isinstance(doc[key], str):
            raise InvalidParameters(key, "expected a string")
    relu = None
    if "relu" in doc:
        from .relu import parse_relu

        relu = parse_relu(doc["relu"], d)
    masked = None
    if "masked" in doc:
        from .masked import parse_masked

        masked = parse_masked(doc["masked"])
    return Problem(
        variant=variant, d=d, A=A, Q=Q, K=K, V=V, F=F, b=b, heads=tuple(heads),
        sigmoid_bias=sigmoid_bias, scale=scale, T=T, mean=mean, cov=cov,
        name=doc.get("name"), description=doc.get("description"), relu=relu, given_A=given_A, initial_law=law,
        schedule=schedule, masked=masked,
    )


def check_covariance(cov, field_name: str) -> None:
    """Raise unless ``cov`` is symmetric positive semidefinite (decided exactly).

    Parameters
    ----------
    cov : tuple of tuple of Fraction
        A square exact matrix.
    field_name : str
        Name used in the error message.

    Raises
    ------
    InvalidParameters
        Not symmetric (naming an entry), or not PSD (with a rational v such that vᵀ·cov·v < 0).
    """
    n = len(cov)
    if not is_symmetric(cov):
        i, j = next((i, j) for i in range(n) for j in range(i) if cov[i][j] != cov[j][i])
        raise InvalidParameters(
            field_name,
            f"not symmetric: entry [{i}][{j}] = {frac_str(cov[i][j])} but "
            f"[{j}][{i}] = {frac_str(cov[j][i])}",
        )
    res = psd_decision(cov)
    if not res.psd:
        w = "[" + ", ".join(frac_str(x) for x in res.witness) + "]"
        raise InvalidParameters(
            field_name, f"not positive semidefinite: vᵀ·cov·v < 0 for the rational v = {w}"
        )


def read_document(path: str | Path, what: str = "problem file") -> Mapping:
    """Read and decode a ``.toml`` or ``.json`` document (by extension; TOML otherwise tried
    first), with one-line errors and the input limits of :mod:`symbolic_tf.spec.limits`
    (file size, UTF-8, nesting, digits, JSON constants).

    Parameters
    ----------
    path : str or Path
        The file.
    what : str
        What the file is, for error messages.

    Returns
    -------
    Mapping
        The decoded document (any JSON value; callers check it is a table).
    """
    text = read_text_file(path, what)
    return decode_document(text, Path(path).suffix.lower(), str(path))


def load_problem(path: str | Path) -> Problem:
    """Read a ``.toml`` or ``.json`` problem file (by extension; TOML otherwise tried first).

    Parameters
    ----------
    path : str or Path
        The problem file; its folder resolves a relative ``[initial] file``.

    Returns
    -------
    Problem
        The validated problem.
    """
    return parse_problem(read_document(path), base_dir=Path(path).parent)


def decode_document(text: str, suffix: str, label: str) -> Mapping:
    """Decode TOML or JSON text within the input limits; floats in JSON keep their exact
    binary value.  The result may be any JSON value (callers check it is a table).

    Parameters
    ----------
    text : str
        The document text.
    suffix : str
        The lower-case file extension: ``".json"`` is JSON only, ``".toml"`` TOML only, anything
        else tries TOML then JSON.
    label : str
        The document's name, for error messages.

    Returns
    -------
    Mapping
        The decoded value.
    """
    if suffix == ".json":
        return load_json_text(text, label)
    try:
        return load_toml_text(text, label)
    except ProblemFileError:
        if suffix == ".toml":
            raise
    try:
        return load_json_text(text, label)
    except ProblemFileError as exc:
        if "invalid JSON" in str(exc):
            raise ProblemFileError(f"{label}: neither valid TOML nor valid JSON") from None
        raise


def with_updates(p: Problem, **kw) -> Problem:
    """A copy of ``p`` with fields replaced (no re-validation of untouched fields).

    Parameters
    ----------
    p : Problem
        The problem.
    **kw
        Field name → new value.

    Returns
    -------
    Problem
        The updated copy.
    """
    return replace(p, **kw)


def _toml_value(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise TypeError(f"no TOML form for {type(v).__name__}")
    return json.dumps(v) if isinstance(v, str) else str(v)  # JSON strings are TOML basic strings


def problem_text(problem, suffix: str = ".toml") -> str:
    """A problem file's text (``.json`` → JSON, else TOML), e.g. a steering schedule.

    Parameters
    ----------
    problem : Problem
        The problem to write.
    suffix : str
        ``".json"`` (case-insensitive) for JSON; anything else gives TOML.

    Returns
    -------
    str
        The file's text; it reads back to an equal problem with :func:`parse_problem`.
    """
    doc = problem_to_dict(problem)
    if suffix.lower() == ".json":
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    tables = {k: doc.pop(k) for k in ("initial", "heads", "phase", "masked") if k in doc}
    lines = [f"{k} = {_toml_value(v)}" for k, v in doc.items()]
    for name in ("initial", "masked"):
        if name in tables:
            lines += ["", f"[{name}]"] + [f"{k} = {_toml_value(v)}" for k, v in tables[name].items()]
    for name in ("heads", "phase"):
        for row in tables.get(name, []):
            lines += ["", f"[[{name}]]"] + [f"{k} = {_toml_value(v)}" for k, v in row.items()]
    return "\n".join(lines) + "\n"
