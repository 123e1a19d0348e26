"""The :class:`Variant` declaration interface and the registry.

Variants *declare*; engines compute.  A concrete variant states

* its kernel k(x, y) as a SymPy expression in the column vectors ``x`` (query) and ``y``
  (key) and its parameter matrices (``MatrixSymbol`` in matrix form, explicit matrices at a
  concrete d) — e.g. softmax: ``exp(τ·yᵀAx)``;
* its normalisation: ``row`` (Γ = V∫k y dμ / ∫k dμ), ``none`` (Γ = V∫k y dμ) or
  ``bistochastic`` (Γ = V∫y π(dy|x), π the entropic self-coupling with kernel k);
* whether it is causal (masked);
* the parameters it needs and its numeric token velocity for a point cloud.

``symbolic_tf.symbolic`` derives the Gaussian closure from that declaration alone.  Adding a
variant = adding one module to this package that subclasses :class:`Variant` and decorates
it with :func:`register`.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from fractions import Fraction
from typing import Any, ClassVar, Mapping

from ..spec.errors import InvalidParameters, UnknownVariant
from ..spec.heads import quadratic_pair

__all__ = ["Variant", "register", "lookup", "registered", "unregister", "bilinear", "ROW", "NONE", "BISTOCHASTIC"]

ROW = "row"
NONE = "none"
BISTOCHASTIC = "bistochastic"

def bilinear(x, y, P):
    """τ·⟨Qx, Ky⟩ = τ·yᵀAx as a SymPy scalar (a trace, so matrix calculus applies).

    Parameters
    ----------
    x, y : sympy.Matrix or MatrixSymbol, shape (d, 1)
        Query and key token.
    P : Mapping
        Symbolic parameters with ``"A"`` and ``"scale"`` (τ).

    Returns
    -------
    sympy.Expr
        ``P["scale"] * Trace(yᵀ A x)``.
    """
    import sympy as sp

    return P["scale"] * sp.Trace(y.T * P["A"] * x)


_REGISTRY: dict[str, type["Variant"]] = {}
_ALIASES: dict[str, str] = {}
class Variant(ABC):
    """An attention variant: a declaration the symbolic and numeric engines consume.

    Class attributes
    ----------------
    name : str
        Registry key (``"softmax"``).
    summary : str
        One line with the velocity field.
    reference : str
        Where the formula comes from.
    normalisation : {"row", "none", "bistochastic"}
    matrices : tuple of str
        Parameter matrices the kernel/value use (``("A", "V")``; ℓ2 uses ``("Q", "K", "V")``).
    scalars : tuple of str
        Scalar parameters (``"scale"`` always; ``"sigmoid_bias"`` for sigmoid).
    causal : bool
        Tokens carry a position and attend to the past cone only.
    expected_closed : bool
        What docs/mathematics.md §3 states; the engine *decides* it, tests compare the two.
    """

    name: ClassVar[str]
    summary: ClassVar[str]
    reference: ClassVar[str] = "docs/mathematics.md §2"
    normalisation: ClassVar[str] = ROW
    matrices: ClassVar[tuple[str, ...]] = ("A", "V")
    scalars: ClassVar[tuple[str, ...]] = ("scale",)
    causal: ClassVar[bool] = False
    composite: ClassVar[bool] = False
    expected_closed: ClassVar[bool] = True
    aliases: ClassVar[tuple[str, ...]] = ()
    order: ClassVar[int] = 100  # listing order in `symtf variants`

    # ----- symbolic declaration -------------------------------------------------------
    @abstractmethod
    def kernel(self, x, y, P: Mapping[str, Any]):
        """k(x, y) as a scalar SymPy expression.

        ``x`` and ``y`` are d×1 matrices (``MatrixSymbol`` or explicit); ``P`` maps the names
        in :attr:`matrices` and :attr:`scalars` to SymPy objects.  A 1×1 matrix expression
        must be reduced to a scalar with ``sympy.Trace`` (which SymPy can
        differentiate with respect to matrix symbols; ``[0, 0]`` it cannot).

        Parameters
        ----------
        x, y : sympy.Matrix or MatrixSymbol, shape (d, 1)
            Query and key token.
        P : Mapping
            Parameter name → SymPy object.

        Returns
        -------
        sympy.Expr
            The scalar kernel k(x, y).
        """

    def value(self, P: Mapping[str, Any]):
        """The value matrix applied to the attended mean (``V``).

        Parameters
        ----------
        P : Mapping
            Parameter name → SymPy object.

        Returns
        -------
        sympy.Matrix or MatrixSymbol
            ``P["V"]``.
        """
        return P["V"]

    # ----- structure the engines consult (declared, never looked up by name) ----------
    #: Name of the exponential growth bound this variant's covariance velocity obeys for every
    #: Σ ⪰ 0 (a key of the growth-bound registry in :mod:`symbolic_tf.certify.search._growth`), or None.
    growth_bound: ClassVar[str | None] = None
    #: Assumptions under which the derived moment system holds, beyond Σ ⪰ 0.
    moment_assumptions: ClassVar[tuple[str, ...]] = ()
    #: The family of the interaction energy ½∬W dμdμ whose (twisted) gradient flow this attention
    #: is, W the variant's own kernel at τ = 1 (:mod:`symbolic_tf.symbolic.energy`):
    #: ``"bilinear"`` (W = e^{yᵀAx}: also the dimension-free matrix form), ``"l2-distance"``
    #: (W = e^{−|Qx−Ky|²}); None when the variant declares no such energy.
    energy_kernel: ClassVar[str | None] = None
    #: Metrics for which the variant's flow is claimed to be the gradient flow of an energy
    #: (``"twisted"``, ``"wasserstein"``: the bilinear energy, twisted by M = VA⁻¹;
    #: ``"bures-wasserstein"``: the entropic self-transport value); the engine decides each claim.
    gradient_flow_metrics: ClassVar[tuple[str, ...]] = ()

    #: The covariance flow of one head is the quadratic Riccati field Σ̇ = CΣÃΣ + ΣÃᵀΣCᵀ with
    #: C the value matrix and Ã = quadratic_factor·τ·A (softmax: 1, docs/mathematics.md §3) — the
    #: form the LMI, tube, Radon and equilibrium certificates are built on; None otherwise.
    quadratic_factor: ClassVar[Fraction | None] = None

    def quadratic_pair(self, P: Mapping[str, Any]):
        """(C, Ã) of the quadratic covariance field Σ̇ = CΣÃΣ + ΣÃᵀΣCᵀ, if declared.

        Parameters
        ----------
        P : mapping
            The head's exact parameters (rows of Fractions and the temperature ``scale``;
            see :meth:`exact_params`).

        Returns
        -------
        tuple of (list of rows, list of rows) or None
            C = V and Ã = :attr:`quadratic_factor`·τ·A exactly, or None when the variant's
            covariance flow is not of that form.
        """
        return quadratic_pair(self.quadratic_factor, P)

    # ----- numeric declaration --------------------------------------------------------
    @abstractmethod
    def velocity(self, Xq, Y, params: Mapping[str, Any], w=None, **kw):
        """Γ_{μ^N}(x) at the rows of ``Xq`` for μ^N = Σ_j w_j δ_{y_j} (float64 arrays).

        ``params`` maps names to float arrays/scalars (``A`` already multiplied by ``scale``
        where the variant says so; see :meth:`numeric_params`).

        Parameters
        ----------
        Xq : ndarray, shape (M, d)
            Query points.
        Y : ndarray, shape (N, d)
            Support of μ^N.
        params : Mapping
            Float parameters from :meth:`numeric_params`.
        w : ndarray, shape (N,), optional
            Non-negative weights with positive sum (default uniform).
        **kw
            Variant-specific options (e.g. ``chunk``; token positions for the masked variant).

        Returns
        -------
        ndarray, shape (M, d)
            Γ at each query.
        """

    def numeric_params(self, P: Mapping[str, Any]) -> dict:
        """Float parameters for :meth:`velocity` from exact ones (applies ``scale``).

        Parameters
        ----------
        P : Mapping
            Exact parameters (from :meth:`exact_params`): matrices as nested rows, scalars.

        Returns
        -------
        dict
            Scalars (``scale``, ``sigmoid_bias``) as floats, matrices as float64 arrays, ``A``
            replaced by τ·A when ``scale`` is present; None entries dropped.
        """
        import numpy as np

        out = {}
        for k, v in P.items():
            if k in ("scale", "sigmoid_bias"):
                out[k] = float(v)
            elif v is not None:
                out[k] = np.array([[float(e) for e in row] for row in v], dtype=float)
        if "A" in out and "scale" in out:
            out["A"] = out["scale"] * out["A"]
        return out

    # ----- problem binding ------------------------------------------------------------
    def check_problem(self, problem) -> None:
        """Raise :class:`InvalidParameters` if ``problem`` lacks what this variant needs.

        Parameters
        ----------
        problem : Problem
            The problem (its matrices, ``heads`` and ``sigmoid_bias`` are checked).
        """
        for m in self.matrices:
            if m == "A":
                if problem.A is None:
                    raise InvalidParameters("A", f"variant {self.name!r} needs A (or Q and K)")
            elif getattr(problem, m) is None:
                extra = " (ℓ2 uses the query/key matrices themselves)" if m in "QK" else ""
                raise InvalidParameters(m, f"variant {self.name!r} needs {m}{extra}")
        if problem.heads and not self.composite:
            raise InvalidParameters("heads", f"variant {self.name!r} is single-head; use variant = \"multihead\"")
        if problem.sigmoid_bias != 0 and "sigmoid_bias" not in self.scalars:
            raise InvalidParameters("sigmoid_bias", f"only meaningful for the sigmoid variant, not {self.name!r}")
        if getattr(problem, "masked", None) is not None and not self.causal:
            raise InvalidParameters("masked", f"the [masked] table sets token positions; variant {self.name!r} has "
                                              "none (use variant = \"masked\")")

    def exact_params(self, problem) -> dict:
        """Exact parameter values (Fractions) keyed like :attr:`matrices`/:attr:`scalars`.

        Parameters
        ----------
        problem : Problem
            The problem.

        Returns
        -------
        dict
            Name → exact value (tuples of Fractions, a Fraction, or None) for every name in
            :attr:`matrices` and :attr:`scalars`.
        """
        P: dict[str, Any] = {m: getattr(problem, m) for m in self.matrices}
        for s in self.scalars:
            P[s] = getattr(problem, s)
        return P

    def __repr__(self) -> str:
        return f"<variant {self.name}>"


def register(cls: type[Variant]) -> type[Variant]:
    """Class decorator: add a variant to the registry under ``cls.name`` (and its aliases).

    Parameters
    ----------
    cls : type
        A :class:`Variant` subclass.

    Returns
    -------
    type
        ``cls`` unchanged.
    """
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise RuntimeError(f"variant {cls.name!r} registered twice")
    _REGISTRY[cls.name] = cls
    for a in cls.aliases:
        _ALIASES[a] = cls.name
    return cls


def lookup(name: str) -> "Variant":
    """The registered variant called ``name`` (case-insensitive, aliases allowed), without
    discovering modules: :func:`symbolic_tf.variants.get` imports every variant module first.

    Parameters
    ----------
    name : str
        A variant name or alias.

    Returns
    -------
    Variant
        An instance of the registered class.

    Raises
    ------
    UnknownVariant
        If no such variant is registered.
    """
    key = str(name).strip().lower()
    key = _ALIASES.get(key, key)
    if key not in _REGISTRY:
        raise UnknownVariant(str(name), list(_REGISTRY))
    return _REGISTRY[key]()


def registered() -> list[str]:
    """Names registered so far, in listing order (``order``, then name).

    Returns
    -------
    list of str
        The registry's keys.
    """
    return sorted(_REGISTRY, key=lambda n: (_REGISTRY[n].order, n))


def unregister(name: str) -> None:
    """Remove a variant from the registry (and its aliases); for tests of new variants.

    Parameters
    ----------
    name : str
        The registry key.
    """
    cls = _REGISTRY.pop(name, None)
    if cls is not None:
        for a in cls.aliases:
            _ALIASES.pop(a, None)
