r"""Lipschitz data of every attention variant on a ball: one declaration per variant (docs/stability.md §3).

For a variant and its float parameters, a declaration returns three bounds valid for every pair
of probability measures μ, ν supported in the ball B(R) = {|x| ≤ R} and every query x ∈ B(R):

* ``grow``:  |Γ_μ(x)| ≤ grow·R (the support radius then grows at most exponentially);
* ``lx(R)``: |Γ_μ(x) − Γ_μ(x')| ≤ lx(R)|x − x'| (Lipschitz in the token);
* ``lmu(R)``: |Γ_μ(x) − Γ_ν(x)| ≤ lmu(R)·W₁(μ, ν) (Lipschitz in the measure; masked attention:
  in the conditional distance, see :func:`masked`).

Both functions increase with R (vectorised over arrays of radii).  ‖·‖ is the spectral norm,
computed in floats and rounded up.  With a = ‖A‖, v = ‖V‖ (the value map):

============  ====  ===================  ============================================================
variant       grow  lx(R)                lmu(R)
============  ====  ===================  ============================================================
softmax       v     v a R²               v (1 + 2aR²) e^{2aR²}
ℓ2            v     v B R²               v (1 + 2(B + 2κ)R²) e^{ω R²},  B = 2s‖KᵀQ‖, κ = s‖K‖²,
                                         ω = min(2B + κ, s(‖Q‖ + ‖K‖)²)
Sinkhorn      v     v a R²               v e^{4aR²} (1 + 4aR² + aR²(1 + e^{2aR²}))
sigmoid       v     v a R²/4             v (1 + aR²/4)
masked        v     v a R²               v (1 + 2aR²) e^{2aR²} · m₀^{−1/p}  (m₀ = smallest cone mass)
multi-head    Σ_h   Σ_h                  Σ_h   (head h with the value map W_h V_h)
============  ====  ===================  ============================================================

Linear and unnormalised attention have no entry with a constant: their velocity is not bounded
by a multiple of the support radius (it grows like R³, resp. R e^{aR²}), so the radius bound
itself blows up at a finite depth; :class:`NoConstant` carries that reason.  A new variant is one
more declaration in :data:`DECLARATIONS` (a test checks each against finite differences).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = ["Lipschitz", "Context", "NoConstant", "DECLARATIONS", "lipschitz_data", "spectral_norm"]

_UP = 1 + 1e-12  # float spectral norms are rounded up by this factor


class NoConstant(Exception):
    """No stability constant for this variant; the message says why (one line)."""


@dataclass(frozen=True)
class Context:
    """What a bound depends on besides the parameters: the order p of W_p and, for masked attention,
    m₀ = the smallest λ-mass of a cone {s' ≤ s} (1 for the supremum-over-positions distance)."""

    p: float = 2.0
    cone_mass: float = 1.0


@dataclass(frozen=True)
class Lipschitz:
    """grow, lx(R), lmu(R) of the module docstring, with the norms they were built from."""

    grow: float
    lx: Callable
    lmu: Callable
    norms: dict = field(default_factory=dict)

    def __add__(self, other: "Lipschitz") -> "Lipschitz":
        """The data of Γ + Γ' (bounds add)."""
        return Lipschitz(self.grow + other.grow, lambda R: self.lx(R) + other.lx(R),
                         lambda R: self.lmu(R) + other.lmu(R), {**self.norms, **other.norms})


def spectral_norm(M) -> float:
    """‖M‖₂ in floats, rounded up."""
    return float(np.linalg.norm(np.asarray(M, dtype=float), 2)) * _UP


def _sq(R):
    return np.asarray(R, dtype=float) ** 2


def softmax(q: dict, ctx: Context) -> Lipschitz:
    """Softmax e^{yᵀAx}, row-normalised."""
    a, v = spectral_norm(q["A"]), spectral_norm(q["V"])
    return Lipschitz(v, lambda R: v * a * _sq(R), lambda R: v * (1 + 2 * a * _sq(R)) * np.exp(2 * a * _sq(R)),
                     {"A": a, "V": v})


def l2(q: dict, ctx: Context) -> Lipschitz:
    """ℓ2 e^{−s|Qx − Ky|²}, row-normalised: softmax with A' = 2sKᵀQ over μ reweighted by e^{−s|Ky|²}."""
    s = float(q.get("scale", 1.0))
    v, nQ, nK = spectral_norm(q["V"]), spectral_norm(q["Q"]), spectral_norm(q["K"])
    B = 2 * s * spectral_norm(np.asarray(q["K"]).T @ np.asarray(q["Q"]))
    kap = s * nK * nK
    omega = min(2 * B + kap, s * (nQ + nK) ** 2)
    return Lipschitz(v, lambda R: v * B * _sq(R),
                     lambda R: v * (1 + 2 * (B + 2 * kap) * _sq(R)) * np.exp(omega * _sq(R)),
                     {"V": v, "2s|K^T Q|": B, "s|K|^2": kap})


def sinkhorn(q: dict, ctx: Context) -> Lipschitz:
    """Sinkhorn (ε = 1): softmax with the bias g_μ(y) of the self-coupling's potential."""
    a, v = spectral_norm(q["A"]), spectral_norm(q["V"])

    def lmu(R):
        aR2 = a * _sq(R)
        return v * np.exp(4 * aR2) * (1 + 4 * aR2 + aR2 * (1 + np.exp(2 * aR2)))

    return Lipschitz(v, lambda R: v * a * _sq(R), lmu, {"A": a, "V": v})


def sigmoid(q: dict, ctx: Context) -> Lipschitz:
    """Sigmoid σ(yᵀAx + b₀), unnormalised over a probability measure: 0 < σ < 1, 0 < σ' ≤ 1/4."""
    a, v = spectral_norm(q["A"]), spectral_norm(q["V"])
    return Lipschitz(v, lambda R: v * a * _sq(R) / 4, lambda R: v * (1 + a * _sq(R) / 4), {"A": a, "V": v})


def masked(q: dict, ctx: Context) -> Lipschitz:
    """Causal softmax over the cone {s' ≤ s}: the softmax data, lmu divided by m₀^{1/p}."""
    base = softmax(q, ctx)
    factor = float(ctx.cone_mass) ** (-1.0 / float(ctx.p))
    return Lipschitz(base.grow, base.lx, lambda R: factor * base.lmu(R), {**base.norms, "m0^(-1/p)": factor})


def multihead(params: dict, ctx: Context) -> Lipschitz:
    """Σ_h W_h Γ^{(h)}: each head's own data with the value map W_h V_h, summed."""
    total = None
    for h, (sub, q) in enumerate(params["heads"]):
        one = lipschitz_data(sub.name, {**q, "V": np.asarray(q["W"]) @ np.asarray(q["V"])}, ctx)
        one = Lipschitz(one.grow, one.lx, one.lmu, {f"head{h}.{k}": x for k, x in one.norms.items()})
        total = one if total is None else total + one
    return total


def _refuse(reason: str):
    def declaration(q: dict, ctx: Context) -> Lipschitz:
        raise NoConstant(reason)

    return declaration


#: variant name → its declaration (parameters from ``Variant.numeric_params``, Context) → Lipschitz.
DECLARATIONS: dict[str, Callable[[dict, Context], Lipschitz]] = {
    "softmax": softmax,
    "l2": l2,
    "sinkhorn": sinkhorn,
    "sigmoid": sigmoid,
    "masked": masked,
    "multihead": multihead,
    "linear": _refuse("linear attention: |Γ_μ(x)| ≤ ‖V‖‖A‖R²|x| grows like the cube of the support radius, so the "
                      "radius bound blows up at a finite depth and the estimate gives no constant"),
    "unnormalised": _refuse("unnormalised attention: |Γ_μ(x)| ≤ ‖V‖R e^{‖A‖R²} grows faster than the support "
                            "radius, so the radius bound blows up at a finite depth and the estimate gives no constant"),
}


def lipschitz_data(name: str, params: dict, ctx: Context) -> Lipschitz:
    """The declaration of variant ``name`` applied to its float parameters; :class:`NoConstant` when none."""
    try:
        declaration = DECLARATIONS[name]
    except KeyError:
        raise NoConstant(f"no stability constant is derived for the variant {name!r} (docs/stability.md §3)") from None
    return declaration(params, ctx)
