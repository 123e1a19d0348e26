"""Which variant has which energy structure: kernel, gradient-flow metric, geodesic convexity.

The questions ``symtf energy``, ``symtf gradient-flow`` and ``symtf convexity`` ask, answered
by the engines of :mod:`.energy`, :mod:`.convexity` and :mod:`.convexity_bounds`:

* the interaction energy E(μ) = ½∬W(x, y)dμ(x)dμ(y) of a variant's kernel W (softmax
  W = e^{yᵀAx}, ℓ2 W = e^{−|Qx−Ky|²}) and its closed form on Gaussians;
* whether the variant's flow is the gradient flow of E for a metric (softmax: the twisted
  metric M = VA⁻¹, plain Wasserstein being M = I; Sinkhorn: Bures–Wasserstein);
* the second variation of E along a Bures–Wasserstein geodesic Σ_s = ((1−s)I + sT)Σ((1−s)I + sT)
  from Σ, decided exactly or by a ball excluding 0, and the twisted convexity witness.

Nothing here is keyed by a variant's name: a variant declares its energy kernel family
(:attr:`Variant.energy_kernel`) and the metrics whose gradient-flow structure it claims
(:attr:`Variant.gradient_flow_metrics`); the tables below are keyed by those declarations.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ..spec.errors import InvalidParameters
from ..spec.verdict import Verdict
from ..variants import get as get_variant, names as variant_names

__all__ = ["EnergyKernel", "ENERGY_KERNELS", "energy_kernel", "GRADIENT_FLOW_MAX_DIM", "GRADIENT_FLOW_METRICS",
           "decide_gradient_flow", "CONVEXITY_KERNELS", "require_convexity_kernel", "twisted_convexity",
           "gaussian_bw_second_variation"]


@dataclass(frozen=True)
class EnergyKernel:
    """A variant's interaction kernel W, as the energy engine knows it.

    Attributes
    ----------
    kernel : str
        The kernel's name for :func:`~symbolic_tf.symbolic.energy.gaussian_energy`.
    formula : str
        W(x, y) in words, e.g. ``"W(x, y) = e^{yᵀAx}"``.
    gaussian_dim : int or None
        The dimension of the Gaussian closed form when none is asked (None: matrix form,
        valid in every dimension).
    """

    kernel: str
    formula: str
    gaussian_dim: int | None


#: kernel family (a variant's declaration) → (W in words, dimension of the default closed form:
#: None = the matrix form, valid in every dimension)
ENERGY_KERNELS = {
    "bilinear": ("W(x, y) = e^{yᵀAx}", None),
    "l2-distance": ("W(x, y) = e^{−|Qx−Ky|²}", 1),
}

GRADIENT_FLOW_MAX_DIM = 4

#: the metrics whose gradient-flow structure the engine decides (a variant declares which it claims)
GRADIENT_FLOW_METRICS = ("twisted", "wasserstein", "bures-wasserstein")

#: the kernel families whose geodesic convexity is implemented
CONVEXITY_KERNELS = ("bilinear",)


def energy_kernel(variant: str) -> EnergyKernel:
    """The interaction kernel W of a variant, E(μ) = ½∬W(x, y)dμ(x)dμ(y).

    Parameters
    ----------
    variant : str
        A variant name.

    Returns
    -------
    EnergyKernel
        Its kernel; :class:`~symbolic_tf.spec.errors.InvalidParameters` (field ``variant``)
        when the variant has no energy implemented.
    """
    v = get_variant(variant)
    if v.energy_kernel not in ENERGY_KERNELS:
        have = ", ".join(n for n in variant_names() if get_variant(n).energy_kernel in ENERGY_KERNELS)
        raise InvalidParameters("variant", f"energies are implemented for {have}")
    formula, dim = ENERGY_KERNELS[v.energy_kernel]
    return EnergyKernel(v.name, formula, dim)


def decide_gradient_flow(variant: str, metric: str, d: int, symmetric: bool = False, A=None, V=None) -> Verdict:
    """Is the variant's flow the gradient flow of its interaction energy for ``metric``?

    Softmax with the twisted metric: Γ_μ = M∇δE/δμ / Z_μ with M = VA⁻¹
    (:func:`~symbolic_tf.symbolic.energy.softmax_is_twisted_gradient_flow`); plain Wasserstein
    is the twisted metric with M = I (V = A).  Sinkhorn with Bures–Wasserstein:
    :func:`~symbolic_tf.symbolic.energy.sinkhorn_bures_wasserstein_gradient_flow`.

    Parameters
    ----------
    variant : str
        ``"softmax"`` or ``"sinkhorn"``.
    metric : str
        ``"twisted"``, ``"wasserstein"`` or ``"bures-wasserstein"``.
    d : int
        The dimension (explicit symbolic entries, at most :data:`GRADIENT_FLOW_MAX_DIM`).
    symmetric : bool
        Restrict to symmetric A (softmax).
    A, V : sequence of sequence of rationals, optional
        A given pair (twisted metric only): decide the condition on M = VA⁻¹ for this pair
        (:func:`~symbolic_tf.symbolic.energy_monotone.twisted_gradient_flow_pair`); ``d`` is then
        the pair's size.

    Returns
    -------
    Verdict
        Decided exactly, or with numerical evidence where the engine says so.
        :class:`~symbolic_tf.spec.errors.InvalidParameters` (field ``d`` or ``metric``) for a
        dimension too large or a pair outside :data:`GRADIENT_FLOW_METRICS`.
    """
    from .energy import sinkhorn_bures_wasserstein_gradient_flow, softmax_is_twisted_gradient_flow

    if (A is None) != (V is None):
        raise InvalidParameters("V" if V is None else "A", "give both --A and --V (the pair whose condition is decided)")
    if A is not None and not (metric == "twisted" and metric in get_variant(variant).gradient_flow_metrics):
        raise InvalidParameters("metric", "a pair (A, V) is decided for the twisted metric of softmax attention "
                                "(--metric twisted)")
    if A is not None:
        from .energy_monotone import twisted_gradient_flow_pair

        return twisted_gradient_flow_pair(A, V)
    if d > GRADIENT_FLOW_MAX_DIM:
        raise InvalidParameters("d", f"gradient-flow decides d ≤ {GRADIENT_FLOW_MAX_DIM} "
                                f"(explicit symbolic entries), got {d}")
    claims = get_variant(variant).gradient_flow_metrics
    if metric not in claims or metric not in GRADIENT_FLOW_METRICS:
        have = "; ".join(f"{n} with {'|'.join(get_variant(n).gradient_flow_metrics)}" for n in variant_names()
                         if get_variant(n).gradient_flow_metrics)
        raise InvalidParameters("metric", f"available: {have}")
    if metric in ("twisted", "wasserstein"):  # the row-normalised bilinear kernel (twisted geometry M = VA⁻¹)
        v = softmax_is_twisted_gradient_flow(d=d, assume_symmetric=symmetric)
        if metric == "wasserstein":
            v.reason = ("plain Wasserstein is the twisted metric with M = I, i.e. V = A: " + v.reason)
    else:  # "bures-wasserstein": the entropic (bistochastic) coupling
        v = sinkhorn_bures_wasserstein_gradient_flow(d=d)
    return v


def require_convexity_kernel(variant: str) -> None:
    """Refuse a variant whose energy's geodesic convexity is not implemented.

    Parameters
    ----------
    variant : str
        A variant name; :class:`~symbolic_tf.spec.errors.InvalidParameters` (field
        ``variant``) unless its declared kernel family is in :data:`CONVEXITY_KERNELS`.
    """
    if get_variant(variant).energy_kernel not in CONVEXITY_KERNELS:
        raise InvalidParameters("variant", "convexity is implemented for the softmax kernel W = e^{yᵀAx}")


def _sympy_matrix(X) -> sp.Matrix:
    return sp.Matrix([[sp.Rational(e.numerator, e.denominator) for e in r] for r in X])


def twisted_convexity(A, V) -> Verdict:
    """Convexity of the softmax energy in the twisted geometry M = VA⁻¹ (exact matrices).

    Parameters
    ----------
    A, V : sequence of sequence of fractions.Fraction
        The attention and value matrices (d × d, exact).

    Returns
    -------
    Verdict
        :func:`~symbolic_tf.symbolic.convexity_bounds.twisted_convexity_witness` on them.
    """
    from .convexity_bounds import twisted_convexity_witness

    return twisted_convexity_witness(_sympy_matrix(A), _sympy_matrix(V))


def gaussian_bw_second_variation(A, Sigma, T) -> dict:
    """d²E/ds² at s = 0 along the Bures–Wasserstein geodesic from N(0, Σ) towards N(0, TΣT).

    E(μ) = ½∬e^{yᵀAx}dμdμ; the value is exact
    (:func:`~symbolic_tf.symbolic._convexity.second_variation_gaussian_bw`, simplified), its sign
    decided exactly (rational value) or by an arb ball excluding 0.

    Parameters
    ----------
    A, Sigma, T : sequence of sequence of fractions.Fraction
        Exact d × d matrices; Σ ≻ 0 and T symmetric positive definite (checked exactly here).

    Returns
    -------
    dict
        ``second_variation`` (the exact value as a string), ``sign`` (+1, −1, 0 or None when
        undecided), ``ball`` (an enclosure ``[mid, rad]`` when the value is not rational) and
        ``decided``.  :class:`~symbolic_tf.spec.errors.InvalidParameters` (field ``Sigma``)
        when the matrices do not fit, are not definite, or E(N(0, Σ)) = +∞.
    """
    from ..exact.congruence import is_symmetric, psd_decision
    from .ball import arb_to_pair, sign_of, to_arb
    from ._convexity import second_variation_gaussian_bw

    d = len(A)
    if len(Sigma) != d or len(T) != d:
        raise InvalidParameters("Sigma", f"Σ and T must be {d}×{d} like A")
    if (not (is_symmetric(Sigma) and psd_decision(Sigma).pd) or not is_symmetric(T)
            or not psd_decision(T).pd):
        raise InvalidParameters("Sigma", "Σ must be positive definite and T symmetric positive definite")
    try:
        val = sp.simplify(second_variation_gaussian_bw(_sympy_matrix(A), _sympy_matrix(Sigma), _sympy_matrix(T)))
    except InvalidParameters as exc:
        raise InvalidParameters("Sigma", exc.reason) from None
    if val.has(sp.nan, sp.zoo, sp.oo, -sp.oo) or not val.is_real:
        raise InvalidParameters("Sigma", f"the second variation is not a finite real number here ({val})")
    sg = sign_of(val)
    return {"second_variation": str(val), "sign": sg,
            "ball": arb_to_pair(to_arb(val)) if not val.is_Rational else None, "decided": sg is not None}
