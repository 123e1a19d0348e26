"""Does a problem's flow have moment ODEs?  The question asked before evaluating them.

The moment ODEs (α̇, Σ̇) exist when the flow keeps Gaussians Gaussian: every head of a
multi-head problem must be Gaussian-closed (their moment systems are summed), and a variant
not expected to be closed must be PROVED closed by :func:`~.closure.decide_invariance`.
"""
from __future__ import annotations

from ..spec.errors import InvalidParameters
from ..spec.verdict import Verdict

__all__ = ["moment_ode_obstruction"]


def moment_ode_obstruction(problem) -> Verdict | None:
    """Why the problem's flow has no moment ODEs, or None when it has them.

    Parameters
    ----------
    problem : Problem
        A loaded problem (its variant is bound and checked here).

    Returns
    -------
    Verdict or None
        None when the moment ODEs exist; else the (not PROVED) invariance verdict of a variant
        that does not keep Gaussians Gaussian.  A multi-head problem with a head that is not
        Gaussian-closed raises :class:`~symbolic_tf.spec.errors.InvalidParameters` (field
        ``heads[i].variant``): the multi-head flow has no moment system to sum.
    """
    from ..variants import bind
    from .closure import decide_invariance

    variant = bind(problem)
    if variant.composite:  # a head that is not Gaussian-closed has no moment system to sum
        for i, head in enumerate(problem.heads):
            hv = decide_invariance(head.variant)
            if hv.status != "PROVED":
                raise InvalidParameters(
                    f"heads[{i}].variant",
                    f"head variant {head.variant!r} is not Gaussian-closed ({hv.status}), so the "
                    f"multi-head flow has no moment ODEs: {hv.reason}")
    if variant.expected_closed is False:
        verdict = decide_invariance(variant)
        if verdict.status != "PROVED":
            return verdict
    return None
