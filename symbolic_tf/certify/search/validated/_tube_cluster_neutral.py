"""Clustering of *this* Σ₀ to a rank-one limit that is not hyperbolic (single-head softmax, d = 3,
no drift, general V; kind ``tube-cluster-neutral``, :mod:`symbolic_tf.certify.check.kinds.tube_cluster_neutral`).

The float solution is followed until it settles near a rank-one matrix; its top eigenvector fixes
a permutation frame (the limit's largest entry first).  In the chart of
:mod:`~symbolic_tf.certify.check.neutral_chart` the slow rest point θ* (the zero of φ on the
isotropic cone) is located in floats, r̃ is put on the cone there and t along it, and a Lyapunov
matrix of the fast Jacobian is chosen with a shifted Lyapunov equation.  A validated tube from Σ₀ is
then run (in t for a share of the budget, then continued in projective form, where the fast rates
do not grow with σ), and at (throttled) times its end box is tried as the entry of the region
certificate, with the region sized from the float picture (θ between the entry and θ*, with
margins beyond both and widened once beyond θ* to the overshoot the checker reports; s-width from
the transversal offset, k from the fast forcing).  Every float is a guess verified by the checker's
own procedure; the final certificate is re-checked independently.

The search is written once (:func:`find_chart_certificate`) for a :class:`ChartSearch`: the kind,
its slow mode and claim; :mod:`~symbolic_tf.certify.search.validated._tube_growth_neutral` uses it for growth.
"""
from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from ....exact.rational import dyadic, frac_str, qmat_to_float
from ....spec.verdict import PROVED, UNDECIDED, Verdict
from .float_budget import guarded

__all__ = ["KIND", "ChartSearch", "find_neutral_cluster", "find_chart_certificate"]

KIND = "tube-cluster-neutral"


class ChartSearch:
    """What a search in the chart looks for: the kind, its slow mode, its claim and words."""

    def __init__(self, kind, mode, claim, claim0, argument, note, grows,
                 configs=((3.0, 32, 0.15), (6.0, 64, 0.15), (3.0, 64, 0.6), (3.0, 128, 0.15),
                          (3.0, 256, 0.05, 0.2), (1.2, 256, 0.05, 0.5))):
        self.kind, self.mode, self.claim, self.claim0 = kind, mode, claim, claim0
        self.argument, self.note, self.grows, self.configs = argument, note, grows, configs


def _cluster_search():
    from ...check.claims import Claim, Quantifier
    from ...check.kinds.tube_cluster_neutral import CLUSTER

    return ChartSearch(KIND, CLUSTER, Claim("CLUSTERING", Quantifier.THIS, {"rank": 1}),
                       "for this Σ₀: the solution is global and Σ(t) converges to a rank-one limit (validated "
                       "tube + slow–fast funnel)", "validated-tube+slow-fast-funnel-at-a-neutral-rank-one-limit",
                       "a slow–fast funnel around a neutral rank-one limit (middle eigenvalue ~ 1/t, drift along "
                       "the isotropic cone to the zero of φ)", False)


def find_neutral_cluster(problem, *, order: int = 14, prec: int = 128, seconds: float = 20.0,
                         horizon: float = 400.0, max_steps: int = 40000) -> Verdict:
    """PROVED (CLUSTERING, rank 1, for this Σ₀) with a ``tube-cluster-neutral`` certificate, or
    UNDECIDED with the reason.  Never raises on float trouble.
    """
    return find_chart_certificate(problem, _cluster_search(), order=order, prec=prec, seconds=seconds,
                                  horizon=horizon, max_steps=max_steps)


def find_chart_certificate(problem, spec, *, order: int = 14, prec: int = 128, seconds: float = 20.0,
                           horizon: float = 400.0, max_steps: int = 40000) -> Verdict:
    """PROVED with a certificate of ``spec.kind``, or UNDECIDED with the reason: the search shared by
    the kinds built on the chart.  Never raises on float trouble.
    """
    return guarded(lambda t0: _find(problem, spec, order, prec, seconds, horizon, max_steps, t0),
                   spec.claim0, f"{spec.kind} search")


class _Plan:
    """The float picture at the settled end: frame (permutation), r̃, t, θ*, W, μ."""

    def __init__(self, P, Vt, At, rq, tq, theta_star, W_str, Wf, mu):
        self.P, self.Vt, self.At, self.rq, self.tq = P, Vt, At, rq, tq
        self.rf, self.tf = [float(x) for x in rq], [float(x) for x in tq]
        self.mf = [-self.tf[1], self.tf[0]]
        self.theta_star, self.W_str, self.Wf, self.mu = theta_star, W_str, Wf, mu


def _plan(V, A, S_end, mode):
    """The float :class:`_Plan` at a settled float state, or the reason why not."""
    from scipy.optimize import brentq

    from ...check.neutral_chart import Chart, chart_of, cone_point
    from .lyapunov import lyapunov_guess

    _w, U = np.linalg.eigh(S_end)
    P = np.eye(3)[np.argsort(-np.abs(U[:, -1]))]
    Vt, At = (P @ V @ P.T).tolist(), (P @ A @ P.T).tolist()
    _sig, r, _z, _Z = chart_of((P @ S_end @ P.T).tolist())

    def tangent(rr):
        ch = Chart(Vt, At, rr)
        ga = np.array([ch.grad_a([1.0, 0.0]), ch.grad_a([0.0, 1.0])], dtype=float)
        return [dyadic(x, 20) for x in np.array([-ga[1], ga[0]]) / np.linalg.norm(ga)]

    rq, tq = [dyadic(x, 40) for x in r], tangent(r)
    for _ in range(2):
        rf, tf = [float(x) for x in rq], [float(x) for x in tq]
        mf = [-tf[1], tf[0]]
        ell = [x / (tf[0] ** 2 + tf[1] ** 2) for x in tf]

        def f(th):
            return mode.factor(Chart(Vt, At, cone_point(At, rf, tf, mf, th)[1]), ell)

        grid = np.linspace(-0.5, 0.5, 1001)
        vals = [f(x) for x in grid]
        roots = [brentq(f, grid[j], grid[j + 1], xtol=1e-15) for j in range(1000)
                 if np.isfinite(vals[j]) and np.isfinite(vals[j + 1]) and vals[j] * vals[j + 1] < 0]
        if not roots:
            return _no_rest_point(mode, Vt, At, rf, tf, mf, ell, grid)
        th = min(roots, key=abs)
        rq = [dyadic(x, 40) for x in cone_point(At, rf, tf, mf, th)[1]]
        tq = tangent([float(x) for x in rq])
    rf, tf = [float(x) for x in rq], [float(x) for x in tq]
    mf = [-tf[1], tf[0]]
    ell = [x / (tf[0] ** 2 + tf[1] ** 2) for x in tf]
    theta_star = brentq(lambda th: mode.factor(Chart(Vt, At, cone_point(At, rf, tf, mf, th)[1]), ell), -1e-3, 1e-3,
                        xtol=1e-16)
    M0 = _fast_jacobian(Vt, At, rf)
    ly = lyapunov_guess(M0, shift=0.5) if np.linalg.eigvals(M0).real.max() < 0 else None
    if ly is None:
        return "the fast variables are not attracted at the slow rest point"
    return _Plan(P, Vt, At, rq, tq, theta_star, ly.W_str, ly.W, ly.mu)


def _no_rest_point(mode, Vt, At, rf, tf, mf, ell, grid) -> str:
    """The reason when the mode's factor has no zero on the cone near the limit direction, saying
    whether the other factor of θ_T = φ·ℓᵀβ vanishes there instead: then the slow drift ends at the
    other mode's rest point (at a zero of ℓᵀβ with φ ≠ 0, log σ keeps drifting at the rate φs̃ in
    T = ∫ζ dt ~ log t: the rank-one part grows or decays like a power of t, no clustering limit)."""
    from ...check.neutral_chart import Chart, cone_point

    def other(th):
        return mode.cofactor(Chart(Vt, At, cone_point(At, rf, tf, mf, th)[1]), ell)

    with np.errstate(all="ignore"):
        vals = [other(x) for x in grid]
    changes = any(np.isfinite(a) and np.isfinite(b) and a * b < 0 for a, b in zip(vals, vals[1:]))
    why = "the slow field's factor has no zero on the isotropic cone near the limit direction"
    if changes:
        why += ("; the other factor of θ_T does: the slow drift ends at a rest point of the other neutral chart "
                "mode (clustering: φ = 0 there; growth or decay of the rank-one part like a power of t: ℓᵀβ = 0), "
                "not of this one")
    return why


def _fast_jacobian(Vt, At, r):
    """The float Jacobian M₀ of the fast field at ζ̄ = 0 on the slow manifold over the chart point r
    (the fast field is affine in y there: its slopes are M₀'s columns)."""
    from ....exact.dual import Dual, slope
    from ...check.neutral_chart import Chart, fast_centre, fast_field

    ch = Chart(Vt, At, r)
    ac, ec = fast_centre(ch)
    yc, cols = [ac, ec[0], ec[1]], []
    for j in range(3):
        yd = [Dual(yc[n], 1.0 if n == j else 0.0) for n in range(3)]
        ff = fast_field(ch, 0.0, yd[0], [yd[1], yd[2]])
        cols.append([slope(ff["alpha_dot"]), slope(ff["eta_dot"][0]), slope(ff["eta_dot"][1])])
    return np.array(cols).T


def _entry_float(plan, S):
    """(ζ̄₁, θ₁, ê₁, B, max|ᾱ_c|, |∂_s a|) in floats at a 3×3 float Σ (ê₁ and B as vectors; None if
    the chart fails)."""
    from ....exact.dual import Dual, slope
    from ...check.neutral_chart import Chart, chart_of, fast_centre, fast_field

    Vt, At, rf, tf, mf = plan.Vt, plan.At, plan.rf, plan.tf, plan.mf
    sig, r, zeta, Z = chart_of((plan.P @ S @ plan.P.T).tolist())
    if not (sig > 0 and zeta > 0):
        return None
    zb = zeta / sig
    ch = Chart(Vt, At, r)
    y = [sig * ch.a / zeta, sig * (Z[0][0] - ch.Zh[0][0]) / zeta, sig * (Z[0][1] - ch.Zh[0][1]) / zeta]
    ac, ec = fast_centre(ch)
    yc = [ac, ec[0], ec[1]]
    eh = np.array([(y[n] - yc[n]) / zb for n in range(3)])
    th1 = float(np.dot(tf, np.array(r) - rf) / np.dot(tf, tf))
    fz = fast_field(ch, Dual(zb / 2, 1.0), yc[0], [yc[1], yc[2]])
    rho = [x.v for x in fz["rho"]]
    acD, ecD = fast_centre(Chart(Vt, At, [Dual(r[0], rho[0]), Dual(r[1], rho[1])]))
    B = np.array([slope(fz["alpha_dot"]) - slope(acD), slope(fz["eta_dot"][0]) - slope(ecD[0]),
                  slope(fz["eta_dot"][1]) - slope(ecD[1])])
    return zb, th1, eh, B, abs(ac), abs(ch.grad_a(mf))


def _region_data(plan, zb, th1, eh, B, ac, da, k_factor, pieces, margin=0.15, far=None):
    """The certificate's region fields from the float entry (a guess the checker verifies): Θ
    reaches ``margin``·gap beyond θ₁ and ``far``·gap (default ``margin``) beyond θ*, where the
    slow drift may overshoot by E·ζ̄₁/c."""
    from ...check.neutral_chart import Chart, cone_point, fast_centre

    ts = plan.theta_star
    gap = abs(th1 - ts)
    mg, mf = margin * gap + 1e-7, (margin if far is None else far) * gap + 1e-7
    lo, hi = (th1 - mg, ts + mf) if th1 < ts else (ts - mf, th1 + mg)
    W_str, Wf, mu = plan.W_str, plan.Wf, plan.mu
    ew, Bw = float(np.sqrt(eh @ Wf @ eh)), float(np.sqrt(B @ Wf @ B))
    acs = [abs(fast_centre(Chart(plan.Vt, plan.At, cone_point(plan.At, plan.rf, plan.tf, plan.mf, x)[1]))[0])
           for x in np.linspace(lo, hi, 17)]
    k = max(k_factor * Bw / float(mu), 2.0 * ew, 1e-3)
    ws = 3.0 * zb * (max(acs + [ac]) + zb * k * 3.0) / da + 1e-14
    eps = max(1e-13, 1e-9 * gap)
    return {"frame": [[frac_str(Fraction(int(round(x)))) for x in row] for row in plan.P],
            "r_tilde": [frac_str(x) for x in plan.rq], "t_dir": [frac_str(x) for x in plan.tq],
            "theta_box": [frac_str(dyadic(lo, 30)), frac_str(dyadic(hi, 30))], "s_width": frac_str(dyadic(ws, 20)),
            "theta_star": [frac_str(dyadic(ts - eps, 50)), frac_str(dyadic(ts + eps, 50))],
            "zeta_max": frac_str(dyadic(zb * 1.01, 24)), "W": W_str, "mu": frac_str(mu),
            "k": frac_str(dyadic(k, 20)), "pieces": pieces}


def _find(problem, spec, order, prec, seconds, horizon, max_steps, t0) -> Verdict:
    from ....spec.errors import CertificationFailed
    from ....variants import get as get_variant
    from ...check.kinds.tube_cluster_neutral import check_neutral_end
    from ....numeric.quadratic_field import head_rhs
    from ._float_field import float_settle
    from .tube_end import refuse
    from .lyapunov import Throttle, certify_and_check, tube_fields, tube_missed, tube_summary
    from ._projective_tube import SWITCH_WIDTH
    from .tube import flow_inputs_or_stop, integrate_tube

    claim0 = spec.claim0
    if problem.d != 3 or get_variant(problem.variant).composite:
        return Verdict(UNDECIDED, claim0, reason=f"the {spec.kind} certificate covers one quadratic (softmax) head "
                       "in d = 3")
    heads, _F, S0q = flow_inputs_or_stop(problem, False, f"the {spec.kind} certificate covers the flow without drift")
    V, A = qmat_to_float(heads[0][0]), qmat_to_float(heads[0][1])
    if np.linalg.eigvalsh(A + A.T).min() >= 0 or np.linalg.eigvalsh(A + A.T).max() <= 0:
        return Verdict(UNDECIDED, claim0, reason="A + Aᵀ is not indefinite: no rank-one equilibria")

    if spec.grows:
        sol, S_end, slope = _scale_free_guess(V, A, qmat_to_float(S0q), horizon)
        if slope > 1e-4:
            return Verdict(UNDECIDED, claim0, numerical={"seconds": time.perf_counter() - t0, "scale_free_slope": slope},
                           reason="the float solution blows up (log tr Σ grows linearly in the scale-free time)")
    else:
        sol = float_settle(head_rhs(V, A, 3), qmat_to_float(S0q), horizon, rtol=1e-11, atol=1e-14)
        S_end = sol.y[:, -1].reshape(3, 3)
    numerical = {"seconds": time.perf_counter() - t0}
    if sol.status != 0 or not np.all(np.isfinite(S_end)) or np.trace(S_end) <= 0:
        return Verdict(UNDECIDED, claim0, numerical=numerical,
                       reason="the float solution does not settle (it blows up or fails)")
    ev = np.linalg.eigvalsh(S_end)
    numerical["float_eigenvalue_ratios"] = [float(ev[0] / ev[2]), float(ev[1] / ev[2])]
    if not ev[1] < 1e-2 * ev[2]:
        return Verdict(UNDECIDED, claim0, numerical=numerical, reason="the float solution does not approach rank one")
    plan = _plan(V, A, S_end, spec.mode)
    if isinstance(plan, str):
        return Verdict(UNDECIDED, claim0, numerical=numerical, reason=plan)
    found = {}
    gate = {"zeta": 0.02}

    def attempt(S, t, throttle):
        # a region check costs 0.1–2 s, so it runs on the throttle's schedule and only once the float
        # entry looks ready: ζ̄ below a gate that drops after each check the region was too coarse for
        if not throttle.due(t):
            return False
        Sf = np.array([[float(S[i, j].mid()) for j in range(3)] for i in range(3)])
        try:
            ent = _entry_float(plan, Sf)
        except (ZeroDivisionError, ValueError, FloatingPointError):
            return False
        if ent is None or not ent[0] < gate["zeta"]:
            return False
        configs, resized = list(spec.configs), False
        while configs:
            config = configs.pop(0)
            data, report = _region_data(plan, *ent, *config), {}
            try:
                check_neutral_end(heads, S, data, prec, refuse, spec.mode, report)
            except CertificationFailed as exc:
                found["last"] = str(exc)
                if "tube's end" in str(exc):
                    break
                if "theta_box" in str(exc) and "overshoot" in report and not resized:
                    # the slow drift may overshoot θ* by ε: once per entry, Θ reaches 1.5ε beyond θ*
                    resized = True
                    far = 1.5 * report["overshoot"] / max(abs(ent[1] - plan.theta_star), 1e-12)
                    configs.insert(0, (*config[:3], max(far, config[3] if len(config) > 3 else config[2])))
                continue
            found.update(data=data, t=t)
            return True
        gate["zeta"] = 0.6 * ent[0]
        return False

    # the tube in t gets a share of the budget — while it stays as narrow as the projective
    # continuation's start must be (SWITCH_WIDTH): past that width no entry has ever passed (ê's
    # sensitivity to Σ is of order 1/ζ̄³), and the continuation restarts from the last narrow box.
    # In t the fast rates grow with σ; in τ they do not, for a growing solution and for a clustering
    # one alike (seed 1 #7: 6,228 steps in t, 52 s; 29 in t and 494 projective steps, 23–32 s).
    # The tube in t takes framed steps first (flow.taylor_step: its switch box is what seed 0 #46
    # needs) and, when the continuation from it fails early, unframed (seed 1 #4).
    for framed in (True, False):
        found.clear()
        left = max(0.5, _T_SHARE * (seconds - (time.perf_counter() - t0)))
        throttle = Throttle(every=400)
        tube = integrate_tube(heads, None, S0q, None, order=order, prec=prec, method="qr", max_steps=max_steps,
                              rel_tol=SWITCH_WIDTH, seconds=left,
                              until=lambda state, t: attempt(state.S, t, throttle), local_tol=1e-14,
                              framed=framed)
        numerical.update(tube_summary(tube), framed_t=framed)
        if "data" in found:
            break
        gate["zeta"] = 0.02     # the tube in t failed for its width; the projective one is far narrower
        verdict = _continue_projective(problem, spec, heads, tube, attempt, found, order, prec, numerical, t0,
                                       seconds)
        if not framed or verdict.status == PROVED or seconds - (time.perf_counter() - t0) < _RETRY_SECONDS:
            return verdict
        numerical["framed_attempt"] = dict(numerical.pop("projective", {}))
    if "data" not in found:
        if "last" in found:
            numerical["last_region_failure"] = found["last"]
        return tube_missed(tube, claim0, numerical, t0, "enter a certified slow–fast region of the rank-one limit")
    times, tube_data = tube_fields(tube, found["t"], order, prec)
    data = dict(found["data"], prec=prec, **tube_data)
    note = (f"validated order-{order} Taylor tube over {len(times) - 1} steps to t = {float(found['t']):.10g}, "
            f"ending in {spec.note}")
    return certify_and_check(problem, spec.kind, spec.claim, data, note, numerical, t0, spec.argument,
                             {"regime": spec.claim.subject, **spec.claim.params},
                             f"validated tube from Σ₀ ({len(times) - 1} steps) into {spec.note}")


_T_SHARE = 0.1      # the largest share of the budget for the tube in t
_RETRY_SECONDS = 20.0   # the least time left for the unframed retry of the tubes
_PROJ_ORDER = 20     # the Taylor order of the projective continuation
_PROJ_TOL = 1e-15    # the largest Lagrange remainder radius of one of its steps (1e-14 is too wide for seed 1 #4 of the soak set, 1e-16 too slow for seed 0 #1)
_PROJ_WIDE = 1e-9    # stop when its X is wider than this (the chart's ê has sensitivity ~ 1/ζ̄³)


def _continue_projective(problem, spec, heads, tube, attempt, found, order, prec, numerical, t0, seconds) -> Verdict:
    """After a tube in t that missed: its continuation in projective (scale-free) form
    (:mod:`~symbolic_tf.certify.search.validated._projective_tube`; the kinds' check 1′), from the last box of
    relative width ≤ 10⁻¹² (Σ₀ itself if none).  In t the fast rates grow with σ and an explicit
    tube stalls; in τ (dτ = tr Σ dt) they stay of order one.  The chart of X = Σ/tr Σ is Σ's chart
    (it is scale-free), so ``attempt`` runs on X's box.  The steps use the high-order a priori
    enclosure (``proj_apriori`` "taylor"): the first-order Picard test caps them at h·‖∂f‖ ≲ 1, well
    below the accuracy limit of the order-20 series here."""
    from ...check.certificate import vec_str
    from .lyapunov import Throttle, certify_and_check, tube_fields
    from ._projective_tube import integrate_projective_capped, switch_index

    def fresh():
        throttle = Throttle(every=400)
        return lambda X, u, s, tau: attempt(X, tau, throttle)

    k = switch_index(tube)
    run = integrate_projective_capped(heads, None, tube.ends[k], fresh, prec=prec, order=_PROJ_ORDER,
                                      deadline=t0 + seconds, tol=_PROJ_TOL, wide=_PROJ_WIDE, apriori="taylor",
                                      watch_time=False)
    numerical["projective"] = dict(run.summary(), switch_t=float(tube.times[k]), h_max=run.h_max)
    if "data" not in found:
        if "last" in found:
            numerical["last_region_failure"] = found["last"]
        numerical["seconds"] = time.perf_counter() - t0
        return Verdict(UNDECIDED, spec.claim0, numerical=numerical,
                       reason=f"neither the tube in t ({numerical.get('stop', '?')}) nor its projective continuation "
                              f"({run.stop}, τ = {float(run.taus[-1]):.4g}) entered a certified slow–fast region of "
                              "the rank-one part")
    times, tube_data = tube_fields(tube, tube.times[k], order, prec)
    data = dict(found["data"], prec=prec, **tube_data, proj_steps=vec_str(run.taus), proj_order=_PROJ_ORDER,
                proj_apriori="taylor")
    note = (f"validated order-{order} Taylor tube over {len(times) - 1} steps to t = {float(tube.times[k]):.10g}, "
            f"continued by an order-{_PROJ_ORDER} tube of the projective flow over {len(run.taus) - 1} steps to "
            f"τ = {float(run.taus[-1]):.10g} (dτ = tr Σ dt), ending in {spec.note}")
    return certify_and_check(problem, spec.kind, spec.claim, data, note, numerical, t0, spec.argument,
                             {"regime": spec.claim.subject, **spec.claim.params},
                             f"validated tube from Σ₀ ({len(times) - 1} steps in t, {len(run.taus) - 1} projective) "
                             f"into {spec.note}")


def _scale_free_guess(V, A, S0, horizon, s_max=1e7):
    """The float solution of a growing flow in scale-free form: N = Σ/tr Σ, u = log tr Σ and t as
    functions of s with ds = tr Σ dt (dN/ds = Q(N) − tr Q(N)·N, du/ds = tr Q(N), dt/ds = e^{−u}),
    up to t = horizon or s = s_max — the growth's stiffness in t is gone.  A blow-up shows as u
    growing linearly in s (Σ ~ C/(T* − t) gives u ~ s/tr C), exponential growth as du/ds → 0.
    Returns (SciPy solution, Σ at the end, the mean du/ds over the second half of the s-range)."""
    from scipy.integrate import solve_ivp

    from .float_budget import capped

    def rhs(_s, y):
        N = y[:9].reshape(3, 3)
        H = V @ N @ A @ N
        Q = H + H.T
        tq = np.trace(Q)
        return np.concatenate([(Q - tq * N).ravel(), [tq, np.exp(-y[9])]])

    def late(_s, y):
        return horizon - y[10]

    late.terminal = True
    tr = np.trace(S0)
    y, s0, slope, sol = np.concatenate([(S0 / tr).ravel(), [np.log(tr), 0.0]]), 0.0, 0.0, None
    field = capped(rhs)
    for s1 in (s_max / 2, s_max):
        with np.errstate(all="ignore"):
            sol = solve_ivp(field, (s0, s1), y, method="LSODA", rtol=1e-11, atol=1e-14, events=late)
        slope = (sol.y[9, -1] - y[9]) / max(sol.t[-1] - s0, 1e-300)
        y, s0 = sol.y[:, -1], sol.t[-1]
        if sol.status != 0:
            break
    if sol.status == 1:      # reached the horizon in t
        sol.status = 0
    return sol, np.exp(y[9]) * y[:9].reshape(3, 3), slope


# ---- route ----
from ..routes import declare, searching, tube_applies  # noqa: E402 - the route is declared after its search

# a long, stiff tube: after every other tube route
declare("tube-cluster-neutral", 63, ("CLUSTERING",),
        tube_applies(False, single=True, d=3, what="the chart of a rank-one limit"),
        searching(find_neutral_cluster, unless=("blowup",), seconds=90.0),
        doc="CLUSTERING (rank 1) of this Σ₀: a validated tube enters a slow–fast funnel around a rank-one limit; one "
            "quadratic head, no drift, d = 3.")
