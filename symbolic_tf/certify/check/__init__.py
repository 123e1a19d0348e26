"""The independent checker: ``check(cert)`` re-derives a certificate's claim from its data.

Each certificate kind is one module of :mod:`symbolic_tf.certify.check.kinds` that declares, with
:func:`kind`, its data schema (fields, types, size limits — :mod:`~symbolic_tf.certify.check.schema`)
and its *derivation*: a function ``(cert, problem) -> (status, Claim)`` that re-verifies every
inequality with exact rationals (python-flint ``fmpq``) or arb balls from the stored data and
the embedded exact problem, and returns the claim those data prove.  It imports nothing from
the code that *searched* for the certificate (LMI solvers, integrators, root finders), only
the arithmetic primitives of :mod:`symbolic_tf.exact`.

:func:`check` then *binds meaning*: the file's ``status`` must equal the derived status, its
``claim`` (subject, quantifier, parameters and rendered text) must equal the derived claim,
and the embedded problem must hash to ``problem_hash``.  Anything else is rejected with
:class:`~symbolic_tf.spec.errors.CertificationFailed`: a flipped status, a claim replaced by
another sentence, a bracket stated tighter than the data prove.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable

from ...spec.errors import CertificationFailed
from .certificate import Certificate
from .claims import Claim, use_kind_loader
from .schema import validate

__all__ = ["check", "kind", "KindDecl", "Hypothesis", "CheckResult", "kind_names", "declaration", "refuse",
           "cell_checker_of", "embedded_certificates", "refusal"]


@dataclass(frozen=True)
class Hypothesis:
    """One hypothesis of a kind's argument, checked from the data by the kind's checker.

    ``statement`` is the mathematics in words; ``forgery`` names the test
    (``tests/…/file.py::test_name``) that forges a certificate violating this hypothesis alone,
    every other field kept consistent, and asserts the checker rejects it naming this failure.
    The kind's documentation page lists them (docs/_generate.py).
    """

    id: str
    statement: str
    forgery: str


@dataclass(frozen=True)
class KindDecl:
    """A registered certificate kind: its name, data schema, claim derivation, the
    hypotheses of its argument and its role in regime maps (``cell_checker``: for a kind whose
    certificates are cells of a map, the class ``cell_checker(spec)`` whose ``check(cell, point=False)``
    re-verifies one cell of that map; None for every other kind)."""

    name: str
    schema: dict
    derive: Callable
    needs_problem: bool = True
    schedules: bool = False  # may the embedded problem have depth-dependent parameters?
    hypotheses: tuple = ()
    cell_checker: Callable | None = None


_KINDS: dict[str, KindDecl] = {}
_loaded = False


def kind(name: str, schema: dict, *, needs_problem: bool = True, schedules: bool = False,
         hypotheses: tuple = (), cell_checker: Callable | None = None):
    """Decorator declaring a certificate kind; the function derives ``(status, Claim)``.
    Only a kind declared with ``schedules=True`` accepts a problem whose parameters depend on
    depth t (every other derivation assumes constant parameters).

    Parameters
    ----------
    name : str
        The kind's name (the certificate's ``kind`` field).
    schema : dict
        The data schema (:func:`~symbolic_tf.certify.check.schema.validate`).
    needs_problem : bool
        Whether a certificate of this kind must embed its problem (else it must not).
    schedules : bool
        Whether the embedded problem may have a depth schedule.
    hypotheses : tuple of Hypothesis
        The hypotheses of the kind's argument, each verified by ``fn`` from the data.
    cell_checker : callable, optional
        For a kind whose certificates are cells of a regime map: ``cell_checker(spec)`` builds the
        checker of the cells of one map spec (its ``check(cell, point=False)`` re-verifies a cell).

    Returns
    -------
    callable
        The decorator; it registers ``fn(cert, problem) -> (status, Claim)`` and returns it
        unchanged.
    """
    def deco(fn):
        _KINDS[name] = KindDecl(name, schema, fn, needs_problem, schedules, tuple(hypotheses), cell_checker)
        return fn
    return deco


def _load():
    global _loaded
    if not _loaded:
        pkg = importlib.import_module(f"{__name__}.kinds")

        for mod in pkgutil.iter_modules(pkg.__path__):
            importlib.import_module(f"{pkg.__name__}.{mod.name}")
        _loaded = True


# a property claim's words are declared in the module of its kind: a claim loads the kinds to render
use_kind_loader(_load)


def refuse(msg):
    """Reject a certificate with the failed hypothesis as the message (:func:`refusal` adds the kind).

    Parameters
    ----------
    msg : str
        The failed hypothesis in words.

    Raises
    ------
    CertificationFailed
        Always.
    """
    raise CertificationFailed(msg)


def refusal(name: str) -> Callable:
    """The ``fail(msg)`` of a kind: it raises ``CertificationFailed("<name> certificate: <msg>")``.

    Parameters
    ----------
    name : str
        The kind's name (the messages' prefix).

    Returns
    -------
    callable
        ``fail(msg)``, which never returns.
    """
    def fail(msg):
        raise CertificationFailed(f"{name} certificate: {msg}")

    return fail


def kind_names() -> list[str]:
    """The names of all registered certificate kinds (loading every module of
    :mod:`symbolic_tf.certify.check.kinds`).

    Returns
    -------
    list of str
        Sorted.
    """
    _load()
    return sorted(_KINDS)


def declaration(name: str) -> KindDecl:
    """The declaration of a registered kind.

    Parameters
    ----------
    name : str
        The kind.

    Returns
    -------
    KindDecl
        Its name, schema, derivation and flags (CertificationFailed for an unknown kind).
    """
    _load()
    if name not in _KINDS:
        raise CertificationFailed(f"certificate: unknown kind {str(name)[:60]!r}; known: {', '.join(sorted(_KINDS))}")
    return _KINDS[name]


def cell_checker_of(name: str) -> Callable | None:
    """The map role of a kind: the checker class of its map cells, or None when the kind is unknown
    or its certificates are not cells of a map.

    Parameters
    ----------
    name : str
        The kind.

    Returns
    -------
    callable or None
        ``cell_checker(spec)`` (see :func:`kind`), or None.
    """
    _load()
    decl = _KINDS.get(name)
    return decl.cell_checker if decl is not None else None


# alike in shape only to control.schedule.Phase (a plain dataclass of a few fields): nothing to share
@dataclass
class CheckResult:
    ok: bool
    kind: str
    claim: Claim
    status: str
    reason: str = ""

    def __repr__(self) -> str:
        text = self.claim.text() if hasattr(self.claim, "text") else str(self.claim)
        return f"CheckResult(ok={self.ok}, kind={self.kind!r}, {self.status}: {text})"

    def _repr_latex_(self) -> str:  # Jupyter
        from ...spec.verdict import latex_verdict

        text = self.claim.text() if hasattr(self.claim, "text") else str(self.claim)
        return latex_verdict("verified", f" ({self.kind}): ", self.status, f": {text}")

    @property
    def claim_text(self) -> str:
        """The verified claim rendered as text."""
        return self.claim.text()


def derive(c: Certificate):
    """(status, Claim, embedded problem) re-derived from a certificate's data alone.

    Parameters
    ----------
    c : Certificate
        A structurally valid certificate.

    Returns
    -------
    (str, Claim, Problem or None)
        The derived status, the derived claim and the embedded problem.

    Raises
    ------
    CertificationFailed
        Unknown kind, data violating the schema, a missing or forbidden embedded problem, a
        schedule the kind does not cover, a failed derivation or malformed data.
    """
    decl = declaration(c.kind)
    validate(c.data, decl.schema)
    problem = c.parsed_problem()
    if decl.needs_problem and problem is None:
        raise CertificationFailed(f"certificate ({c.kind}): needs the embedded problem")
    if not decl.needs_problem and (c.problem is not None or c.problem_hash is not None):
        raise CertificationFailed(f"certificate ({c.kind}): this kind embeds no problem")
    if problem is not None and problem.schedule is not None and not decl.schedules:
        raise CertificationFailed(f"certificate ({c.kind}): this kind covers constant parameters only, "
                                  "the embedded problem has a depth schedule")
    try:
        status, claim = decl.derive(c, problem)
    except CertificationFailed:
        raise
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError, AttributeError, OverflowError) as exc:
        raise CertificationFailed(f"certificate ({c.kind}): malformed data: {type(exc).__name__}: {str(exc)[:200]}") from None
    return status, claim, problem


def check(cert: Certificate | dict) -> CheckResult:
    """Verify a certificate; raises :class:`CertificationFailed` unless its data prove exactly
    the stated claim with the stated status.

    Parameters
    ----------
    cert : Certificate or dict
        The certificate (a dict is read with :meth:`Certificate.from_dict`).

    Returns
    -------
    CheckResult
        ``ok=True`` with the kind, the claim and the status.
    """
    c = cert if isinstance(cert, Certificate) else Certificate.from_dict(cert)
    if c.status not in ("PROVED", "REFUTED"):
        raise CertificationFailed(f"certificate: status must be PROVED or REFUTED, not {str(c.status)[:40]!r}")
    status, claim, _ = derive(c)
    if status != c.status:
        raise CertificationFailed(f"certificate ({c.kind}): the data give status {status}, the file states {c.status}")
    if not claim.same_as(c.claim):
        raise CertificationFailed(f"certificate ({c.kind}): the stated claim is not the one the data prove; "
                                  f"stated «{c.claim.text()[:300]}», proved «{claim.text()[:300]}»")
    return CheckResult(True, c.kind, claim, status, "verified")


def embedded_certificates(doc) -> list[dict]:
    """Every certificate (schema ``symbolic_tf.certificate/2``) nested anywhere in a JSON
    document, e.g. the per-head certificates of ``heads.json``.

    Parameters
    ----------
    doc : object
        A decoded JSON value.

    Returns
    -------
    list of dict
        The certificate objects found (not descending into a certificate).
    """
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
