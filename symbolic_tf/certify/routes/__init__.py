"""Certification routes as declarations: one module per route, registered with :func:`route`.

A route declares the regimes it can prove, its *exact* preconditions (``applies``: ``None``
when it applies, else the reason it does not) and ``search(problem, ctx) -> Verdict`` whose
PROVED evidence holds a certificate.  :func:`symbolic_tf.regimes.classify.classify` loops over
:func:`registry` in declared order and never names a route or a variant; it re-checks every
certificate with the independent checker and accepts a regime only when the checked claim's
quantifier covers the problem's Σ₀ (:meth:`symbolic_tf.certify.claims.Claim.covers`).
Adding a route = adding one file here.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field

__all__ = ["Route", "Context", "route", "registry", "riccati_ready", "is_softmax_family"]


@dataclass
class Context:
    """What a search may use besides the problem: the mode and a float horizon hint."""

    uniform: bool = False
    horizon: float | None = None
    notes: list = field(default_factory=list)


class Route:
    """Base class: ``name``, ``order`` (smaller first), ``regimes`` (what it can prove),
    ``modes`` ("point" = the problem's Σ₀, "uniform" = every Σ₀)."""

    name = ""
    order = 100
    regimes: tuple = ()
    modes: tuple = ("point",)

    def applies(self, problem, ctx: Context) -> str | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def search(self, problem, ctx: Context):  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<route {self.name}>"


_ROUTES: dict[str, Route] = {}
_loaded = False


def route(cls):
    """Class decorator registering a route (instantiated once)."""
    inst = cls()
    _ROUTES[inst.name] = inst
    return cls


def registry() -> list[Route]:
    """Every registered route, in declared order."""
    global _loaded
    if not _loaded:
        for mod in pkgutil.iter_modules(__path__):
            importlib.import_module(f"{__name__}.{mod.name}")
        _loaded = True
    return sorted(_ROUTES.values(), key=lambda r: (r.order, r.name))


# ---- shared exact preconditions -------------------------------------------------------------
def is_softmax_family(problem) -> bool:
    return problem.variant == "softmax"


def riccati_ready(problem) -> str | None:
    """None when the problem is softmax with V = v·I (the Riccati-linearisable case)."""
    from ..riccati import scalar_of_identity

    if problem.variant != "softmax" or problem.heads:
        return "needs single-head softmax"
    if problem.A is None or problem.V is None:
        return "needs A and V"
    if scalar_of_identity(problem.V) is None:
        return "needs V = v·I"
    return None
