"""Certification routes as declarations, and the loop that runs them.

A route declares the regimes it can prove, its *exact* preconditions (``applies``: ``None``
when it applies, else the reason it does not) and ``search(problem, ctx) -> Verdict`` whose
PROVED evidence holds a certificate.  Each route is declared with :func:`declare` at the end
of the module that performs its search (under ``# ---- route ----``); :func:`registry` imports
those modules (:data:`SEARCH_MODULES`) once.  :func:`symbolic_tf.regimes.classify.classify`
loops over :func:`registry` in declared order and never names a route or a variant; it re-checks
every certificate with the independent checker and accepts a regime only when the checked
claim's quantifier covers the problem's Σ₀ (:meth:`symbolic_tf.certify.check.claims.Claim.covers`).
Adding a route = one :func:`declare` in a searching module (listed in :data:`SEARCH_MODULES`).
"""
from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["Route", "Context", "Outcome", "declare", "registry", "prepare", "prove", "needs", "searching", "tube_applies",
           "quadratic_family", "single_quadratic", "driftless_softmax_family", "single_head_drift", "tube_ready",
           "has_drift", "no_drift", "SEARCH_MODULES", "SHARPER"]

#: the modules of :mod:`symbolic_tf.certify.search` that declare routes; imported by name (not by an
#: import statement) so that a searching module may import this one without an import circle
SEARCH_MODULES = (
    "_stationary", "_uniform_vI", "riccati", "_bounded_riccati_vI", "_periodic_riccati_vI", "_stratum", "_rank_one_flow", "_growth", "matrix_proofs._growth", "_lmi",
    "_blowup_taylor_lmi", "_equilibrium_basin", "_equilibrium_krawczyk", "_trace_growth_lmi", "_schedule_phases",
    "validated._tube_basin", "validated._tube_cluster", "validated._tube_cluster_neutral", "validated.tube_collapse",
    "validated._tube_growth", "validated._tube_growth_neutral", "validated.tube_ray", "validated._tube_ray_cusp", "validated._tube_ray_collapse",
    "validated._tube_return", "validated._tube_rotation", "validated._tube_rotation_collapse",
    "validated._tube_rotation_return", "validated.tube_singular_equilibrium",
)


@dataclass
class Context:
    """What a search may use besides the problem: the mode, a float horizon hint and a cached
    float outlook (:meth:`float_outlook`)."""

    uniform: bool = False
    horizon: float | None = None
    #: uniform searches whose claim must still cover the problem's own Σ₀ (a point classification's
    #: fallback: a claim for a class of Σ₀ containing this one decides it)
    instance: bool = False
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
        from .budget import BudgetSpent

        key = problem.content_hash()
        if key not in self._outlook:
            try:
                self._outlook[key] = _float_outlook(problem, self.horizon or 50.0)
            except BudgetSpent:
                # the time budget ended the hint (it is asked outside a route too, after a proved claim):
                # no hint, not cached — the route loop's own budget check ends the search
                return "unknown"
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
        from ...spec.verdict import UNDECIDED, Verdict

        what = "blows up" if hopeless == "blowup" else "settles"
        return Verdict(UNDECIDED, "", reason=f"skipped: the float solution from Σ₀ {what} (a hint, not a proof)")


def _float_outlook(problem, horizon: float) -> str:
    import numpy as np

    try:
        from ...exact.rational import qmat_to_float
        from .validated.float_budget import solve_capped
        from ...numeric.quadratic_field import FloatField
        from .validated.tube import flow_data

        heads, F = flow_data(problem)
        d = problem.d
        rhs = FloatField(heads, F, d).sigma_rhs

        def level(k):
            def crossed(_t, y):
                return 10.0 ** k - abs(np.trace(y.reshape(d, d)))
            crossed.terminal = k == 8
            return crossed

        S0 = qmat_to_float(problem.exact.Sigma0)
        # a hint: a few tens of thousands of evaluations at most ("unknown" past them)
        sol = solve_capped(rhs, (0.0, horizon), S0.ravel(), rtol=1e-8, atol=1e-12,
                           events=[level(6), level(7), level(8)], max_evals=_OUTLOOK_EVALS)
        if sol.status == 1:
            # tr Σ reached 10⁸: a blow-up (tr Σ ~ 1/(T* − t)) crosses each decade faster than the
            # last; an exponential growth crosses them at a steady pace (a slow growth is no blow-up)
            t6, t7, t8 = (float(e[0]) if len(e) else None for e in sol.t_events)
            if t6 is not None and t7 is not None and t8 - t7 > 0.5 * (t7 - t6):
                return "unknown"
            return "blowup"
        y = sol.y[:, -1]
        if sol.status == 0 and np.all(np.isfinite(y)):
            if np.linalg.norm(rhs(0, y)) <= 1e-8 * max(np.linalg.norm(y), 1e-300):
                return "settles"
        return "unknown"
    except Exception:  # noqa: BLE001 - a hint only: any trouble means "unknown"
        return "unknown"


_OUTLOOK_EVALS = 30_000  # right-hand-side evaluations of the float hint (per method)


@dataclass(frozen=True, eq=False)
class Route:
    """A declared route: ``name``, ``order`` (smaller first, then the name), ``regimes`` (what it
    can prove), ``applies(problem, ctx)`` (None, or the reason it does not apply),
    ``search(problem, ctx)`` (a Verdict), ``modes`` ("point" = the problem's Σ₀, "uniform" = every
    Σ₀), ``schedules`` (handles depth-dependent parameters, docs/schedules.md) and ``doc`` (one
    line: what it proves and when it applies)."""

    name: str
    order: int
    regimes: tuple
    applies: Callable
    search: Callable
    modes: tuple = ("point",)
    schedules: bool = False
    doc: str = ""

    def __repr__(self) -> str:
        return f"<route {self.name}>"


_ROUTES: dict[str, Route] = {}
_loaded = False


def declare(name: str, order: int, regimes: tuple, applies: Callable, search: Callable, *,
            modes: tuple = ("point",), schedules: bool = False, doc: str = "") -> Route:
    """Register a route (under its name).

    Parameters
    ----------
    name : str
        The route's name (the name of the certificate kind it proposes, where there is one).
    order : int
        Its place in the registry: smaller first, ties broken by name.
    regimes : tuple of str
        The regimes it can prove (empty for a side claim).
    applies : callable
        ``applies(problem, ctx)``: None when its exact preconditions hold, else the reason.
    search : callable
        ``search(problem, ctx)``: a Verdict, PROVED with ``evidence["certificate"]`` or UNDECIDED.
    modes : tuple of str
        ``"point"`` (the problem's Σ₀) and/or ``"uniform"`` (every Σ₀ of a class).
    schedules : bool
        True for a route of depth schedules (the others take constant problems only).
    doc : str
        One line: what the route proves and when it applies.

    Returns
    -------
    Route
        The registered route.
    """
    r = Route(name, order, tuple(regimes), applies, search, tuple(modes), schedules, doc)
    _ROUTES[name] = r
    return r


def registry() -> list[Route]:
    """Every declared route, in declared order.

    Returns
    -------
    list of Route
        The routes (every module of :data:`SEARCH_MODULES` imported once), sorted by ``(order, name)``.
    """
    global _loaded
    if not _loaded:
        package = __name__.rsplit(".", 1)[0]
        for mod in SEARCH_MODULES:
            importlib.import_module(f"{package}.{mod}")
        _loaded = True
    return sorted(_ROUTES.values(), key=lambda r: (r.order, r.name))


# ---- declaration shapes ---------------------------------------------------------------------
def needs(*conditions: Callable) -> Callable:
    """``applies`` from exact conditions of the problem alone, tried in turn.

    Parameters
    ----------
    *conditions : callable
        ``condition(problem) -> str | None`` (None when it holds, else the reason).

    Returns
    -------
    callable
        ``applies(problem, ctx)``: the first condition's reason, or None when all hold.
    """
    def applies(problem, ctx):
        for cond in conditions:
            why = cond(problem)
            if why is not None:
                return why
        return None

    return applies


def searching(find: Callable, *, unless: tuple = (), **options) -> Callable:
    """``search`` calling ``find(problem, **options)``, skipped in point mode when the float outlook
    of Σ₀ is one of ``unless`` (:meth:`Context.skip`: a search that cannot succeed).

    Parameters
    ----------
    find : callable
        ``find(problem, **options) -> Verdict``.
    unless : tuple of str
        Hopeless float outlooks: ``"blowup"`` and/or ``"settles"``.
    **options
        Passed on to ``find`` (e.g. a time budget ``seconds``).

    Returns
    -------
    callable
        ``search(problem, ctx)``.
    """
    def search(problem, ctx):
        for hopeless in unless:
            skipped = ctx.skip(problem, hopeless)
            if skipped:
                return skipped
        kw = dict(options)
        if "seconds" in kw:
            # under a classification budget a search may stretch its own limit into its share of
            # the budget, up to STRETCH times (a d = 3 tube needs longer than the default allows)
            from .budget import remaining

            share = remaining()
            if share is not None:
                kw["seconds"] = max(kw["seconds"], min(share, STRETCH * kw["seconds"]))
        return find(problem, **kw)

    return search


def tube_applies(drift: bool | None = None, *, single: bool = False, d: int | None = None,
                 d_max: int | None = None, what: str = "") -> Callable:
    """``applies`` of a validated-tube route: :func:`tube_ready` (after :func:`single_quadratic`
    when ``single``), then the dimension its certificate covers.

    Parameters
    ----------
    drift : bool or None
        As in :func:`tube_ready`.
    single : bool
        One quadratic head only.
    d : int or None
        The one dimension the certificate covers (reason ``"<what> covers d = <d>"``).
    d_max : int or None
        The largest dimension it covers (reason ``"<what> covers d ≤ <d_max>"``).
    what : str
        The certificate, as named in the reason.

    Returns
    -------
    callable
        ``applies(problem, ctx)``.
    """
    def applies(problem, ctx):
        why = single_quadratic(problem) if single else None
        if why is not None:
            return why
        why = tube_ready(problem, drift=drift)
        if why is not None:
            return why
        if d is not None and problem.d != d:
            return f"{what} covers d = {d}"
        if d_max is not None and problem.d > d_max:
            return f"{what} covers d ≤ {d_max}"
        return None

    return applies


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
    from ...variants import quadratic_reason

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
    from ...variants import quadratic_reason

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
    from .validated.tube import MAX_D

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


def has_drift(problem) -> str | None:
    """Why a route that needs a drift F does not apply, or None.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.

    Returns
    -------
    str or None
        None when the problem has a drift, else ``"needs a drift F"``.
    """
    return None if problem.has_drift else "needs a drift F"


def no_drift(problem) -> str | None:
    """Why a route for the flow without drift does not apply, or None.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.

    Returns
    -------
    str or None
        None when the problem has no drift, else ``"only without drift"``.
    """
    return "only without drift" if problem.has_drift else None


#: under a time budget one route may spend at most this fraction of what is left (and at least
#: MIN_ROUTE_SECONDS): a slow search that cannot finish no longer starves the routes after it
ROUTE_SHARE = 0.5
MIN_ROUTE_SECONDS = 2.0

#: how far a search's own time limit may stretch into its share of a classification budget
STRETCH = 3.0

#: regime -> the regimes that say more about the same solution (a limit says more than boundedness,
#: boundedness more than global existence); a point classification that proves the first keeps
#: searching for the others while its float solution settles and its budget lasts
SHARPER = {"GLOBAL_EXISTENCE": ("BOUNDED", "CLUSTERING", "EQUILIBRIUM"), "BOUNDED": ("CLUSTERING", "EQUILIBRIUM")}


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
    budget_spent: bool = False
    #: route name → wall seconds of its search and check (the routes tried, in order; measured costs)
    seconds: dict = field(default_factory=dict)


def prepare() -> list[Route]:
    """Import what the route loop needs (the searching modules, the errors it catches, the checker),
    so that a time budget measures searching, not imports.

    Returns
    -------
    list of Route
        :func:`registry`.
    """
    from ..check import derive  # noqa: F401 - imported for its cost, before any clock starts
    from .validated.lyapunov import caller_rechecks  # noqa: F401

    _route_errors()
    return registry()


@functools.lru_cache(maxsize=None)
def _route_errors():
    import numpy as np

    from ...spec.errors import SymtfError

    errs = [ArithmeticError, FloatingPointError, np.linalg.LinAlgError, ValueError, RuntimeError, MemoryError,
            SymtfError]
    try:
        import cvxpy

        errs.append(cvxpy.error.SolverError)
    except ImportError:  # pragma: no cover
        pass
    return tuple(errs)


def _clock() -> float:
    import time

    return time.perf_counter()


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

    from ...spec.errors import CertificationFailed
    from ...spec.verdict import PROVED
    from ..check import derive
    from ..check.claims import Quantifier
    from .validated.lyapunov import caller_rechecks
    from .validated.retime import checked_retimed

    from .budget import BudgetSpent, remaining, spent, suspended, time_budget

    mode = "uniform" if ctx.uniform else "point"
    errors = _route_errors()
    out = Outcome()
    routes = [r for r in registry() if mode in r.modes and r.schedules == problem.scheduled]
    held = None  # a proved global claim kept while later routes look for a sharper one (SHARPER)
    for i, r in enumerate(routes):
        if held is not None and not set(r.regimes) & set(SHARPER[held[1].regime.value]):
            continue
        if spent():  # the classification's time budget (search.budget): say what was not tried
            left = [q.name for q in routes[i:] if q.applies(problem, ctx) is None
                    and (held is None or set(q.regimes) & set(SHARPER[held[1].regime.value]))]
            if left and held is None:
                out.reasons.append("time budget spent before " + ", ".join(left) + " (not tried)")
            out.budget_spent = held is None
            break
        if r.applies(problem, ctx) is not None:
            continue
        t_route = _clock()
        try:
            # the searches leave the check to this loop, which runs it on every certificate below
            left = remaining()
            share = None if left is None else max(ROUTE_SHARE * left, MIN_ROUTE_SECONDS)
            with np.errstate(all="ignore"), warnings.catch_warnings(), caller_rechecks(), time_budget(share):
                warnings.simplefilter("ignore")
                v = r.search(problem, ctx)
        except errors as exc:
            out.reasons.append(f"{r.name}: gave up ({type(exc).__name__}: {str(exc)[:120]})")
            out.seconds[r.name] = out.seconds.get(r.name, 0.0) + _clock() - t_route
            continue
        except BudgetSpent:
            out.reasons.append(f"{r.name}: stopped by the time budget")
            out.seconds[r.name] = out.seconds.get(r.name, 0.0) + _clock() - t_route
            continue
        if v is None or v.status != PROVED:
            out.seconds[r.name] = out.seconds.get(r.name, 0.0) + _clock() - t_route
            if v is not None and v.reason:
                out.reasons.append(f"{r.name}: {v.reason}")
            continue
        cert_dict = v.evidence.get("certificate")
        try:
            with suspended():  # a certificate in hand is checked to the end
                cert_dict, cert, (status, claim, cert_problem) = checked_retimed(cert_dict, derive)
            if status != cert.status or not claim.same_as(cert.claim):
                raise CertificationFailed("the certificate's stated claim is not the checked one")
        except CertificationFailed as exc:  # a route bug: never report it as PROVED
            out.reasons.append(f"{r.name}: its certificate failed the independent check ({exc})")
            out.seconds[r.name] = out.seconds.get(r.name, 0.0) + _clock() - t_route
            continue
        out.seconds[r.name] = out.seconds.get(r.name, 0.0) + _clock() - t_route

        if status != PROVED:
            continue
        if claim.regime is None:
            out.side.append((r.name, claim, cert_dict))
            out.reasons.append(f"{r.name}: proved «{claim.text()}», which does not decide the regime of Σ₀")
            continue
        if ctx.uniform and not ctx.instance:
            if claim.quantifier is Quantifier.THIS:
                continue
        else:
            ok, why = claim.covers(problem, cert_problem)
            if not ok:
                out.side.append((r.name, claim, cert_dict))
                out.reasons.append(f"{r.name}: proved «{claim.text()}», which does not cover this Σ₀ ({why})")
                continue
        if held is not None:
            if claim.regime.value not in SHARPER[held[1].regime.value]:
                continue
            out.side.append((held[0], held[1], held[2]))  # the weaker claim, proved too
            held = None
        if (not ctx.uniform and claim.regime.value in SHARPER and problem.cov is not None
                and ctx.float_outlook(problem) == "settles"):
            # global existence (or boundedness) is proved, and the float solution settles: a limit may
            # be provable too — the later routes of sharper regimes get the rest of the budget
            held = (r.name, claim, cert_dict, v)
            continue
        out.route, out.claim, out.certificate, out.verdict = r.name, claim, cert_dict, v
        return out
    if held is not None:
        out.route, out.claim, out.certificate, out.verdict = held
    return out
