"""What the engines ask of a problem's variant, answered from the variants' declarations.

The certification routes, kinds and numeric shortcuts call these functions; none of them asks
for a variant by name (docs/architecture.md: variants declare, engines compute).  Each is the
function of :mod:`symbolic_tf.spec.heads` of the same name (documented there) with the variant
registry as its table; the checker's :mod:`symbolic_tf.certify.check.flows` asks the same
functions with its own table of trusted flows.

* ``quadratic_heads(problem)``: the exact (C_h, Ã_h) of each head, Σ̇ = Σ_h (C_hΣÃ_hΣ + ΣÃ_hᵀΣC_hᵀ) + FΣ + ΣFᵀ
  (a single-head variant contributes :meth:`Variant.quadratic_pair`; a composite one the pairs of its
  heads, C_h = W_hC_h');
* ``single_quadratic_head(problem)``: the one (C, Ã) of a single-head problem;
* ``quadratic_reason(problem, single=False)``: why the flow is not of that form, or None;
* ``growth_bound_of(problem)``: the declared growth bound (:attr:`Variant.growth_bound`), or None;
* ``single_quadratic_factor(name)``: :attr:`Variant.quadratic_factor` of a single-head variant, or None.
"""
from __future__ import annotations

from functools import partial

from ..spec import heads
from .registry import get

__all__ = ["quadratic_heads", "single_quadratic_head", "quadratic_reason", "growth_bound_of", "single_quadratic_factor"]

quadratic_heads = partial(heads.quadratic_heads, get=get)
single_quadratic_head = partial(heads.single_quadratic_head, get=get)
quadratic_reason = partial(heads.quadratic_reason, get=get)
growth_bound_of = partial(heads.growth_bound_of, get=get)
single_quadratic_factor = partial(heads.single_quadratic_factor, get=get)
