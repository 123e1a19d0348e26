"""Certification routes as declarations: one module per route, registered with :func:`route`.

A route declares the regimes it can prove, its *exact* preconditions (``applies``: ``None``
when it applies, else the reason it does not) and ``search(problem, ctx) -> Verdict`` whose
PROVED evidence holds a certificate.  :func:`symbolic_tf.regimes.classify.classify` loops over
:func:`registry` in declared order and never names a route or a variant; it re-checks every
certificate with the independent checker and accepts a regime only when the checked claim's
quantifier covers the problem's Σ₀ (:meth:`symbolic_tf.certify.check.claims.Claim.covers`).
Adding a route = adding one file here.
"""
from __future__ import annotations

import abc
import importlib
import pkgutil
from dataclasses import dataclass, field

__all__ = ["Route", "Context", "Outcome", "route", "registry", "prove", "riccati_ready", "quadratic_family", "single_quadratic",
           "driftless_softmax_family", "single_head_drift", "tube_ready"]


@dataclass
class Context:
    """What a search may use besides the problem: the mode, a float horizon hint and a cached
    float outlook (:meth:`float_outlook`)."""

    uniform: bool = False
    horizon: float | None = None
    notes: list = field(default_factory=list)
    _outlook: dict = field(default_factory=dict, repr=False)

    def float_outlook(self, problem) -> str:
        """A float hint about the problem's own Σ₀, never a proof: ``"blowup"`` (the float
        solution of the covariance flow passes tr Σ = 10⁸ before the horizon), ``"settles"``
        (it reaches the horizon with ‖Σ̇‖ ≤ 10⁻⁸·‖Σ‖) or ``"unknown"``.  Point-mode routes use it
        only to skip searches that cannot succeed (a global bound for a blowing-up Σ₀, a blow-up
        bracket for a settling one); a wrong hint costs a decision, never soundness.  Computed
        once per problem (softmax and multi-head softmax with Σ₀; "unknown" otherwise).

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem (its Σ₀ is integrated in floats up to ``self.horizon`` or 50).

        Returns
        -------
        str
            ``"blowup"``, ``"settles"`` or ``"unknown"``.
        """
        key = problem.content_hash()
        if key not in self._outlook:
            self._outlook[key] = _float_outlook(problem, self.horizon or 50.0)
        return self._outlook[key]

    def skip(self, problem, hopeless: str):
        """An UNDECIDED verdict when the float outlook is ``hopeless`` in point mode, else None.

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        hopeless : str
            The float outlook under which the route cannot succeed: ``"blowup"`` or ``"settles"``.

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict or None
            UNDECIDED with a "skipped: ..." reason, or None when the search should run (uniform mode, no
            Σ₀, or another outlook).
        """
        if self.uniform or problem.cov is None or self.float_outlook(problem) != hopeless:
            return None
        from ....spec.verdict import UNDECIDED, Verdict

        what = "blows up" if hopeless == "blowup" else "settles"
        return Verdict(UNDECIDED, "", reason=f"skipped: the float solution from Σ₀ {what} (a hint, not a proof)")


def _float_outlook(problem, horizon: float) -> str:
    import numpy as np

    try:
        from ....exact.rational import qmat, qmat_to_float
        from ..validated.float_budget import solve_capped
        from ..validated.float_field import FloatField
        from ..validated.tube import flow_data

        heads, F = flow_data(problem)
        d = problem.d
        rhs = FloatField(heads, F, d).sigma_rhs

        def big(_t, y):
            return 1e8 - abs(np.trace(y.reshape(d, d)))

        big.terminal = True
        S0 = qmat_to_float(qmat(problem.cov))
        sol = solve_capped(rhs, (0.0, horizon), S0.ravel(), rtol=1e-8, atol=1e-12, events=big)
        if sol.status == 1:
            return "blowup"
        y = sol.y[:, -1]
        if sol.status == 0 and np.all(np.isfinite(y)):
            if np.linalg.norm(rhs(0, y)) <= 1e-8 * max(np.linalg.norm(y), 1e-300):
                return "settles"
        return "unknown"
    except Exception:  # noqa: BLE001 - a hint only: any trouble means "unknown"
        return "unknown"


class Route(abc.ABC):
    """Abstract base: ``name``, ``order`` (smaller first), ``regimes`` (what it can prove),
    ``modes`` ("point" = the problem's Σ₀, "uniform" = every Σ₀).  A concrete route defines
    :meth:`applies` and :meth:`search`; :func:`route` refuses a class that does not."""

    name = ""
    order = 100
    regimes: tuple = ()
    modes: tuple = ("point",)
    schedules: bool = False  #: handles depth-dependent parameters (docs/schedules.md)

    @abc.abstractmethod
    def applies(self, problem, ctx: Context) -> str | None:
        """None when the route's exact preconditions hold, else the reason they do not.

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem.
        ctx : Context
            The search context.

        Returns
        -------
        str or None
            None when the route applies, else the reason.
        """

    @abc.abstractmethod
    def search(self, problem, ctx: Context):
        """A Verdict: PROVED with ``evidence["certificate"]``, or UNDECIDED with the reason.

        Parameters
        ----------
        problem : symbolic_tf.spec.problem.Problem
            The problem (its preconditions hold).
        ctx : Context
            The search context.

        Returns
        -------
        symbolic_tf.spec.verdict.Verdict
            PROVED with the certificate in its evidence, or UNDECIDED with the reason.
        """

    def __repr__(self) -> str:
        return f"<route {self.name}>"


_ROUTES: dict[str, Route] = {}
_loaded = False


def route(cls):
    """Class decorator registering a route (instantiated once).

    Parameters
    ----------
    cls : type
        A concrete :class:`Route` subclass; it is instantiated once and registered under its ``name``.

    Returns
    -------
    type
        ``cls`` itself, unchanged.
    """
    inst = cls()
    _ROUTES[inst.name] = inst
    return cls


def registry() -> list[Route]:
    """Every registered route, in declared order.

    Returns
    -------
    list of Route
        The registered routes (every module of this package imported once), sorted by
        ``(order, name)``.
    """
    global _loaded
    if not _loaded:
        for mod in pkgutil.iter_modules(__path__):
            importlib.import_module(f"{__name__}.{mod.name}")
        _loaded = True
    return sorted(_ROUTES.values(), key=lambda r: (r.order, r.name))


# ---- shared exact preconditions -------------------------------------------------------------
# They consult the variants' declarations (symbolic_tf.variants.quadratic_heads); none names a variant.
def quadratic_family(problem) -> str | None:
    """Why the problem's covariance flow is not a sum of quadratic fields, or None when it is.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.

    Returns
    -------
    str or None
        None when Σ̇ = Σ_h (C_hΣÃ_hΣ + ΣÃ_hᵀΣC_hᵀ) + FΣ + ΣFᵀ (softmax, multi-head softmax), else
        the reason in one line.
    """
    from ....variants import quadratic_reason

    return quadratic_reason(problem)


def single_quadratic(problem) -> str | None:
    """Why the problem is not one quadratic head (single-head softmax), or None.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.

    Returns
    -------
    str or None
        None for a single-head variant with a quadratic covariance flow, else the reason.
    """
    from ....variants import quadratic_reason

    return quadratic_reason(problem, single=True)


def driftless_softmax_family(problem) -> str | None:
    """Why the LMI routes do not apply (quadratic flow without drift), or None.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.

    Returns
    -------
    str or None
        None for a quadratic flow (softmax / multi-head softmax) without drift.
    """
    why = quadratic_family(problem)
    if why is not None:
        return why
    return "only without drift" if problem.has_drift else None


def single_head_drift(problem) -> str | None:
    """Why the equilibrium routes do not apply (one quadratic head with a drift F), or None.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.

    Returns
    -------
    str or None
        None for the drift model with one quadratic (softmax) head.
    """
    why = single_quadratic(problem)
    if why is not None:
        return why
    return None if problem.has_drift else "needs a drift F"


def tube_ready(problem, drift: bool | None = None) -> str | None:
    """Why a validated tube cannot start from the problem's Σ₀, or None.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.
    drift : bool or None
        True: the route needs a drift F; False: it covers the flow without drift; None: either.

    Returns
    -------
    str or None
        None for a quadratic flow (softmax or multi-head softmax), d ≤ the tubes' limit, Σ₀
        given, and the drift requirement met; else the reason.
    """
    from ..validated.tube import MAX_D

    why = quadratic_family(problem)
    if why is not None:
        return why
    if drift is True and not problem.has_drift:
        return "needs a drift F"
    if drift is False and problem.has_drift:
        return "covers the flow without drift"
    if problem.cov is None:
        return "needs the problem's Σ₀"
    if problem.d > MAX_D:
        return f"validated tubes cover d ≤ {MAX_D}"
    return None


def riccati_ready(problem) -> str | None:
    """Why the Radon linearisation does not apply (one quadratic head with V = v·I), or None.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.

    Returns
    -------
    str or None
        None when the covariance flow is one quadratic head whose value matrix is v·I.
    """
    from ..riccati import radon_pair

    why = single_quadratic(problem)
    if why is not None:
        return why
    return None if radon_pair(problem) is not None else "needs V = v·I"


@dataclass
class Outcome:
    """What :func:`prove` found: the route, the checked claim covering the problem (or None),
    its certificate and verdict, proved side claims, and the reasons of the routes that passed."""

    route: str | None = None
    claim: object = None
    certificate: dict | None = None
    verdict: object = None
    side: list = field(default_factory=list)
    reasons: list = field(default_factory=list)


def _route_errors():
    import numpy as np

    from ....spec.errors import SymtfError

    errs = [ArithmeticError, FloatingPointError, np.linalg.LinAlgError, ValueError, RuntimeError, MemoryError,
            SymtfError]
    try:
        import cvxpy

        errs.append(cvxpy.error.SolverError)
    except ImportError:  # pragma: no cover
        pass
    return tuple(errs)


def prove(problem, ctx: Context) -> Outcome:
    """Run the registry in declared order; the first route whose certificate passes the
    independent checker with a claim covering the problem's Σ₀ (or, in uniform mode, a class
    of Σ₀) wins.  Float trouble inside a route makes it pass with a reason.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.
    ctx : Context
        The search context; ``ctx.uniform`` selects the uniform mode (class claims only).

    Returns
    -------
    Outcome
        The winning route, its checked claim, certificate and verdict (all None when no route
        decides), the proved side claims and the reasons of the routes that passed.
    """
    import warnings

    import numpy as np

    from ....spec.errors import CertificationFailed
    from ....spec.verdict import PROVED
    from ...check.certificate import Certificate
    from ...check import derive
    from ...check.claims import Quantifier
    from ..validated.lyapunov import caller_rechecks

    mode = "uniform" if ctx.uniform else "point"
    errors = _route_errors()
    out = Outcome()
    for r in registry():
        if mode not in r.modes or r.schedules != problem.scheduled or r.applies(problem, ctx) is not None:
            continue
        try:
            # the searches leave the check to this loop, which runs it on every certificate below
            with np.errstate(all="ignore"), warnings.catch_warnings(), caller_rechecks():
                warnings.simplefilter("ignore")
                v = r.search(problem, ctx)
        except errors as exc:
            out.reasons.append(f"{r.name}: gave up ({type(exc).__name__}: {str(exc)[:120]})")
            continue
        if v is None or v.status != PROVED:
            if v is not None and v.reason:
                out.reasons.append(f"{r.name}: {v.reason}")
            continue
        cert_dict = v.evidence.get("certificate")
        try:
            cert = Certificate.from_dict(cert_dict)
            status, claim, cert_problem = derive(cert)
            if status != cert.status or not claim.same_as(cert.claim):
                raise CertificationFailed("the certificate's stated claim is not the checked one")
        except CertificationFailed as exc:  # a route bug: never report it as PROVED
            out.reasons.append(f"{r.name}: its certificate failed the independent check ({exc})")
            continue
        if status != PROVED:
            continue
        if claim.regime is None:
            out.side.append((r.name, claim, cert_dict))
            out.reasons.append(f"{r.name}: proved «{claim.text()}», which does not decide the regime of Σ₀")
            continue
        if ctx.uniform:
            if claim.quantifier is Quantifier.THIS:
                continue
        else:
            ok, why = claim.covers(problem, cert_problem)
            if not ok:
                out.side.append((r.name, claim, cert_dict))
                out.reasons.append(f"{r.name}: proved «{claim.text()}», which does not cover this Σ₀ ({why})")
                continue
        out.route, out.claim, out.certificate, out.verdict = r.name, claim, cert_dict, v
        return out
    return out
