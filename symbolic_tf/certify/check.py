"""The independent checker: ``check(cert)`` re-verifies a certificate from its data alone.

Each certificate kind has one checker module in :mod:`symbolic_tf.certify.checks`
(registered with :func:`checker`).  A checker re-derives every inequality with exact
rationals (python-flint ``fmpq``) or arb balls from the stored data and the embedded exact
problem; it imports nothing from the code that *searched* for the certificate (LMI solvers,
integrators, root finders), only the arithmetic primitives of :mod:`symbolic_tf.certify.exact`.
A failed check raises :class:`~symbolic_tf.spec.errors.CertificationFailed` with the reason.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable

from ..spec.errors import CertificationFailed
from .certificate import Certificate

__all__ = ["check", "checker", "CheckResult", "kinds", "embedded_certificates"]

_CHECKERS: dict[str, Callable] = {}
_loaded = False


def checker(kind: str):
    """Decorator registering the checker of a certificate kind."""
    def deco(fn):
        _CHECKERS[kind] = fn
        return fn
    return deco


def _load():
    global _loaded
    if not _loaded:
        from . import checks

        for mod in pkgutil.iter_modules(checks.__path__):
            importlib.import_module(f"{checks.__name__}.{mod.name}")
        _loaded = True


def kinds() -> list[str]:
    _load()
    return sorted(_CHECKERS)


@dataclass
class CheckResult:
    ok: bool
    kind: str
    claim: str
    status: str
    reason: str = ""


def check(cert: Certificate | dict) -> CheckResult:
    """Verify a certificate; raises :class:`CertificationFailed` if anything is inconsistent."""
    _load()
    c = cert if isinstance(cert, Certificate) else Certificate.from_dict(cert)
    if c.status not in ("PROVED", "REFUTED"):
        raise CertificationFailed(f"certificate: status must be PROVED or REFUTED, not {c.status!r}")
    fn = _CHECKERS.get(c.kind)
    if fn is None:
        raise CertificationFailed(f"certificate: unknown kind {c.kind!r}; known: {', '.join(sorted(_CHECKERS))}")
    problem = c.parsed_problem()
    try:
        fn(c, problem)
    except CertificationFailed:
        raise
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError, AttributeError) as exc:
        raise CertificationFailed(f"certificate ({c.kind}): malformed data: {type(exc).__name__}: {exc}") from None
    return CheckResult(True, c.kind, c.claim, c.status, "verified")


def embedded_certificates(doc) -> list[dict]:
    """Every certificate (schema ``symbolic_tf.certificate/1``) nested anywhere in a JSON
    document, e.g. the per-head certificates of ``heads.json``."""
    from .certificate import SCHEMA

    found, stack = [], [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("schema") == SCHEMA and "kind" in node:
                found.append(node)
                continue
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found
