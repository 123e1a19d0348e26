"""Non-Gaussian initial laws declared in a problem file's ``[initial]`` table (docs/stability.md).

A Gaussian initial law is written as before (``mean``, ``cov``).  A non-Gaussian law names
itself with ``law``::

    [initial]                       # uniform on a box  ∏ [low_i, high_i]
    law = "uniform_box"
    low = [-1, "-1/2"]
    high = [1, "1/2"]

    [initial]                       # uniform on the ball |x − center| ≤ radius
    law = "uniform_ball"
    center = [0, 0]
    radius = "3/2"

    [initial]                       # a Gaussian mixture Σ_k w_k N(m_k, S_k)
    law = "mixture"
    weights = ["1/3", "2/3"]
    means = [[-1, 0], [1, 0]]
    covs = [[[1, 0], [0, 1]], [["1/2", 0], [0, 1]]]

    [initial]                       # the empirical measure of a point cloud (N × d)
    law = "empirical"
    file = "cloud.npy"              # or .csv (one token per line, d numbers); a relative path is
                                    # read from the problem file's folder
    sha256 = "…"                    # optional; written by serialisation, checked when present

Every number is exact (:mod:`symbolic_tf.spec.rational`).  An empirical cloud is read when
the problem is parsed (missing file, malformed CSV, NaN, wrong width → one-line
:class:`InvalidParameters`); the law keeps its float64 points and the SHA-256 of the file, and
the problem's content hash covers that digest.  Sampling is numeric and lives in
:mod:`symbolic_tf.numeric.laws`; this module only parses, validates and serialises.

The Gaussian moment ODEs and their certificates apply to Gaussian data only: :func:`require_gaussian`
raises :class:`~symbolic_tf.spec.errors.NotGaussianClosed` for any declared non-Gaussian law.
"""
from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping

from ..exact.rational import frac_str
from .errors import InvalidParameters, NotGaussianClosed
from .limits import MAX_MAP_FILE_BYTES, MAX_TOKENS, brief, read_text_file
from .rational import to_fraction, to_matrix, to_vector

__all__ = ["InitialLaw", "LAWS", "LAW_FIELDS", "parse_initial_law", "law_to_dict", "require_gaussian"]

#: The declarable non-Gaussian laws and the fields each takes (besides ``law``).
LAW_FIELDS = {
    "uniform_box": ("low", "high"),
    "uniform_ball": ("center", "radius"),
    "mixture": ("weights", "means", "covs"),
    "empirical": ("file", "sha256"),
}
LAWS = tuple(LAW_FIELDS)

MAX_COMPONENTS = 64


@dataclass(frozen=True)
class InitialLaw:
    """A non-Gaussian initial law (exact parameters; an empirical cloud as float64 points).

    Attributes
    ----------
    kind : str
        One of :data:`LAWS`.
    params : tuple of (name, value) pairs
        Exact parameters: ``low``/``high`` or ``center``/``radius`` (tuples of Fraction,
        Fraction), ``weights``/``means``/``covs`` (tuples), or ``file``/``sha256`` (str).
    points : numpy.ndarray or None
        The cloud of an empirical law (read-only, shape (N, d)); excluded from ``==``, which
        compares the file's digest instead.
    """

    kind: str
    params: tuple
    points: Any = field(default=None, compare=False, repr=False)

    def get(self, name: str):
        """The exact parameter ``name`` of the law.

        Parameters
        ----------
        name : str
            A parameter of :attr:`params` (``"low"``, ``"means"``, ``"file"``, ...).

        Returns
        -------
        object
            Its value (KeyError when absent).
        """
        return dict(self.params)[name]

    @property
    def compact(self) -> bool:
        """The support is bounded (box, ball, empirical cloud); a mixture's is not."""
        return self.kind != "mixture"


def _file_cloud(path: str, d: int) -> tuple[Any, str]:
    """Read a .npy or .csv cloud of shape (N, d); return (read-only float64 array, sha256)."""
    import numpy as np

    where = "initial.file"
    try:
        st = os.stat(path)
    except (OSError, ValueError) as exc:
        raise InvalidParameters(where, f"cannot read {path!r}: {getattr(exc, 'strerror', None) or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InvalidParameters(where, f"{path!r} is a directory")
    if st.st_size > MAX_MAP_FILE_BYTES:
        raise InvalidParameters(where, f"{path!r} has {st.st_size} bytes (at most {MAX_MAP_FILE_BYTES})")
    if path.lower().endswith(".npy"):
        try:
            with open(path, "rb") as fh:
                raw = fh.read(MAX_MAP_FILE_BYTES + 1)
            if len(raw) > MAX_MAP_FILE_BYTES:
                raise ValueError(f"more than {MAX_MAP_FILE_BYTES} bytes")
            import io

            X = np.load(io.BytesIO(raw), allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:
            raise InvalidParameters(where, f"{path!r} is not a readable .npy array ({exc})") from None
        if X.dtype.kind not in "fiu":
            raise InvalidParameters(where, f"{path!r} holds {X.dtype} entries, expected numbers")
    elif path.lower().endswith(".csv"):
        try:
            text = read_text_file(path, "cloud file", MAX_MAP_FILE_BYTES)
        except Exception as exc:  # ProblemFileError: one line already
            raise InvalidParameters(where, str(exc)) from None
        raw = text.encode()
        rows = []
        for i, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                rows.append([float(x) for x in line.split(",")])
            except ValueError:
                raise InvalidParameters(where, f"{path!r} line {i}: expected {d} comma-separated numbers, "
                                               f"got {brief(line)}") from None
            if len(rows[-1]) != d:
                raise InvalidParameters(where, f"{path!r} line {i}: expected {d} numbers, got {len(rows[-1])}")
        X = np.array(rows, dtype=np.float64).reshape(-1, d)
    else:
        raise InvalidParameters(where, f"{path!r}: expected a .npy or .csv file")
    X = np.array(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != d or X.shape[0] < 1:
        raise InvalidParameters(where, f"{path!r}: expected shape (N, {d}) with N >= 1, got {X.shape}")
    if X.shape[0] > MAX_TOKENS:
        raise InvalidParameters(where, f"{path!r}: {X.shape[0]} points (at most {MAX_TOKENS})")
    if not np.all(np.isfinite(X)):
        raise InvalidParameters(where, f"{path!r}: entries must be finite (found nan or inf)")
    X.setflags(write=False)
    return X, hashlib.sha256(raw).hexdigest()


def parse_initial_law(init: Mapping, d: int, check_covariance: Callable, base_dir=None) -> InitialLaw:
    """Parse an ``[initial]`` table that names a ``law`` (see the module docstring).

    A relative ``file`` is resolved against ``base_dir`` (the problem file's folder) when given.

    ``check_covariance(cov, field)`` is the problem parser's exact PSD check (passed in, so
    this module does not import the problem module).

    Parameters
    ----------
    init : Mapping
        The ``[initial]`` table, with a ``law`` key.
    d : int
        The token dimension.
    check_covariance : callable
        ``check_covariance(cov, field)``, raising unless cov is symmetric PSD.
    base_dir : str or Path, optional
        The folder against which a relative ``file`` is resolved.

    Returns
    -------
    InitialLaw
        The validated law (exact parameters; the points of an empirical cloud).
    """
    kind = init["law"]
    if not isinstance(kind, str) or kind not in LAW_FIELDS:
        raise InvalidParameters("initial.law", f"expected one of {', '.join(LAWS)} "
                                               f"(or no law for a Gaussian), got {brief(kind)}")
    allowed = ("law",) + LAW_FIELDS[kind]
    for key in init:
        if key not in allowed:
            raise InvalidParameters(f"initial.{key}", f"unknown field for law {kind!r}; allowed: {', '.join(allowed)}")
    missing = [k for k in LAW_FIELDS[kind] if k not in init and k != "sha256"]
    if missing:
        needs = ", ".join(k for k in LAW_FIELDS[kind] if k != "sha256")
        raise InvalidParameters(f"initial.{missing[0]}", f"missing (law {kind!r} needs {needs})")
    if kind == "uniform_box":
        low = to_vector(init["low"], "initial.low", d)
        high = to_vector(init["high"], "initial.high", d)
        bad = [i for i in range(d) if not low[i] < high[i]]
        if bad:
            raise InvalidParameters("initial.high", f"need low < high in every coordinate (coordinate {bad[0]})")
        return InitialLaw(kind, (("low", low), ("high", high)))
    if kind == "uniform_ball":
        center = to_vector(init["center"], "initial.center", d)
        radius = to_fraction(init["radius"], "initial.radius")
        if radius <= 0:
            raise InvalidParameters("initial.radius", f"must be positive, got {frac_str(radius)}")
        return InitialLaw(kind, (("center", center), ("radius", radius)))
    if kind == "mixture":
        raw_w, raw_m, raw_c = init["weights"], init["means"], init["covs"]
        if not isinstance(raw_w, (list, tuple)) or not 1 <= len(raw_w) <= MAX_COMPONENTS:
            raise InvalidParameters("initial.weights", f"expected 1 to {MAX_COMPONENTS} weights")
        K = len(raw_w)
        weights = to_vector(raw_w, "initial.weights", K)
        if any(w <= 0 for w in weights) or sum(weights) != 1:
            raise InvalidParameters("initial.weights", "weights must be positive and sum to 1 exactly")
        means = to_matrix(raw_m, "initial.means", (K, d))
        if not isinstance(raw_c, (list, tuple)) or len(raw_c) != K:
            raise InvalidParameters("initial.covs", f"expected {K} covariance matrices (one per weight)")
        covs = tuple(to_matrix(c, f"initial.covs[{k}]", (d, d)) for k, c in enumerate(raw_c))
        for k, c in enumerate(covs):
            check_covariance(c, f"initial.covs[{k}]")
        return InitialLaw(kind, (("weights", weights), ("means", means), ("covs", covs)))
    path = init["file"]
    if not isinstance(path, str) or not path:
        raise InvalidParameters("initial.file", f"expected a file name, got {brief(path)}")
    X, digest = _file_cloud(path if base_dir is None else os.path.join(base_dir, path), d)
    if "sha256" in init and init["sha256"] != digest:
        raise InvalidParameters("initial.sha256", f"{path!r} has SHA-256 {digest}, not the declared {brief(init['sha256'])}")
    return InitialLaw(kind, (("file", path), ("sha256", digest)), points=X)


def law_to_dict(law: InitialLaw) -> dict:
    """Serialise exactly (``parse_initial_law`` inverts it).

    Parameters
    ----------
    law : InitialLaw
        The law.

    Returns
    -------
    dict
        The ``[initial]`` table (rationals as ``"p/q"`` strings).
    """
    out: dict[str, Any] = {"law": law.kind}
    for name, value in law.params:
        if isinstance(value, str):
            out[name] = value
        elif isinstance(value, Fraction):
            out[name] = frac_str(value)
        elif name == "covs":
            out[name] = [[[frac_str(x) for x in row] for row in c] for c in value]
        elif name == "means":
            out[name] = [[frac_str(x) for x in row] for row in value]
        else:
            out[name] = [frac_str(x) for x in value]
    return out


def require_gaussian(problem, what: str = "the Gaussian moment ODE") -> None:
    """Raise :class:`NotGaussianClosed` when the problem declares a non-Gaussian initial law.

    Parameters
    ----------
    problem : Problem
        The problem.
    what : str
        The method that needs a Gaussian law, for the message.
    """
    law = getattr(problem, "initial_law", None)
    if law is not None:
        raise NotGaussianClosed(
            f"initial.law: {what} needs a Gaussian initial law, but the problem declares {law.kind!r}; "
            "use the token simulation (`symtf meanfield`, `symtf stability`) for non-Gaussian data")
