"""symbolic_tf — derive, verify and certify the mean-field dynamics of deep Transformers.

Tokens are a probability measure moved by self-attention; for Gaussian laws N(α, Σ) the flow
closes into Riccati-type ODEs for α and Σ (docs/mathematics.md).  The top-level API::

    import symbolic_tf as stf

    p = stf.Problem("softmax", A=[[1, 0], [0, 1]], V=[[1, 0], [0, 1]], cov=[[1, 0], [0, 1]])
    stf.derive("softmax")      # α̇ = V(I + ΣA)α, Σ̇ = VΣAΣ + ΣAᵀΣVᵀ
    c = stf.classify(p)        # BLOWUP (PROVED), T* ∈ [T_lo, T_hi], with a certificate
    stf.check(c.certificate)   # re-verified with exact/ball arithmetic only

Importing the package is cheap: SymPy, NumPy and friends load when a function is first used
(every name below is imported lazily).  The layers are described in docs/architecture.md.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .version import __version__

__all__ = [
    "__version__",
    # problems and the main verbs (symbolic_tf.api)
    "Problem", "load", "derive", "invariance", "rhs", "integrate", "classify", "check",
    "regime_map", "verify", "steer",
    # errors and the float warning (symbolic_tf.spec.errors)
    "SymtfError", "InvalidParameters", "ProblemFileError", "UnknownVariant", "NotGaussianClosed",
    "CertificationFailed", "ModelError", "FloatReadWarning",
    # plain data
    "Verdict", "MomentSystem",
]

_API = {"Problem", "load", "derive", "invariance", "rhs", "integrate", "classify", "check",
        "regime_map", "verify", "steer"}
_ERRORS = {"SymtfError", "InvalidParameters", "ProblemFileError", "UnknownVariant", "NotGaussianClosed",
           "CertificationFailed", "ModelError", "FloatReadWarning"}
_OTHER = {"Verdict": ("spec.verdict", "Verdict"), "MomentSystem": ("symbolic.moments", "MomentSystem")}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .api import (Problem, check, classify, derive, integrate, invariance, load, regime_map, rhs,
                      steer, verify)
    from .spec.errors import (CertificationFailed, FloatReadWarning, InvalidParameters, ModelError,
                              NotGaussianClosed, ProblemFileError, SymtfError, UnknownVariant)
    from .spec.verdict import Verdict
    from .symbolic.moments import MomentSystem


def __getattr__(name: str):
    """Import the public names on first use (PEP 562), so ``import symbolic_tf`` stays light."""
    import importlib

    if name in _API:
        value = getattr(importlib.import_module(".api", __name__), name)
    elif name in _ERRORS:
        value = getattr(importlib.import_module(".spec.errors", __name__), name)
    elif name in _OTHER:
        mod, attr = _OTHER[name]
        value = getattr(importlib.import_module(f".{mod}", __name__), attr)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
