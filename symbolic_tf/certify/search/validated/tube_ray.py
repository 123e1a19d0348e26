"""Blow-up of *this* Σ₀ along an attracting ray, with a bracket (issue 15 item 2 (i); kind
``tube-ray``).

For Σ̇ = L(Σ) + Q(Σ) (softmax or multi-head softmax, general V, affine drift F; Q homogeneous
quadratic) a blow-up Σ(t) ≈ C/(T* − t) is an equilibrium (X*, 0) of the projective field

    X' = Q(X) + u·L(X) − c·X,   u' = −c·u,   c = tr Q(X) + u·tr L(X)     (Σ = X/u, dτ = dt/u),

see :mod:`symbolic_tf.certify.check.kinds.tube_ray`.  When (X*, 0) is hyperbolically attracting, a quadratic
Lyapunov function E(z) = (z − z*)ᵀW(z − z*) certifies a forward-invariant ellipsoid on which the
growth rate c stays in [c_lo, c_hi] > 0; once the validated tube from Σ₀ (:mod:`.tube`) enters
it at t_N, T* ∈ [t_N + u₁/c_hi, t_N + u₁/c_lo] with u₁ = 1/tr Σ(t_N).  The tube continues until
the bracket is relatively narrower than ``rel_width`` (the width is of order u₁²).

The search tries two Lyapunov guesses, the perturbation-tolerant SDP one first
(:func:`.lyapunov.robust_lyapunov_guess`): a ray on the boundary of the cone Σ ⪰ 0 often has a
projective Jacobian far from normal, and the deviation from the ray only decays like u^(a/c), so the
tube must get very close to T* before the box check passes.  A float preview at tr Σ ≈ 10⁸ picks the
tube's first local tolerance (10⁻¹⁵, or 10⁻²⁰ when the preview fails), and a pass whose enclosure
grows too wide is repeated with the tighter one.  A nearest ray point that is indefinite is no limit
of Σ/tr Σ ⪰ 0: UNDECIDED at once (a rotating or recurrent blow-up).

Every float here (the float blow-up integration, Newton on the ray, the Lyapunov solve, the
radii) is a guess; the guesses are rounded to rationals and verified by the checker's own
procedure (:func:`symbolic_tf.certify.check.kinds.tube_ray.check_ray_end`), and the final certificate is
re-checked independently by :func:`symbolic_tf.certify.check.check`.
"""
from __future__ import annotations

import math
import time
from fractions import Fraction

import flint
import numpy as np

from ....exact.precision import working_precision
from ....exact.rational import dyadic, dyadic_matrix_str, fmpq_of, frac_str, qmat_to_float
from ....spec.verdict import UNDECIDED, Verdict
from .float_budget import guarded
from ..budget import remaining
from ...check.tube_replay import svec_pairs
from ....numeric.quadratic_field import FloatField
from ._float_field import float_blowup
from ._projective_tube import STEP_CAPS, SWITCH_WIDTH
from .tube_end import refuse

__all__ = ["KIND", "ProjectiveFollow", "find_ray_blowup", "follow_projective", "newton_ray"]

KIND = "tube-ray"
ARGUMENT = "validated-tube+projective-ray-lyapunov"
_CLAIM0 = "for this Σ₀: Σ(t) blows up in finite time along an attracting ray (validated tube + ray basin)"


# ----------------------------------------------------------------------------- float guesses
def newton_ray(ff: FloatField, X: np.ndarray, iters: int = 40):
    """Refine a ray point: X with tr X = 1 and Q(X) = tr Q(X)·X (Gauss–Newton on svec coordinates;
    a blow-up ray when tr Q(X) > 0, a collapsing one when tr Q(X) < 0).

    Parameters
    ----------
    ff : FloatField
        The float field (its Q and Jacobian).
    X : numpy.ndarray
        The starting guess (d×d, symmetric).
    iters : int
        The largest number of Gauss–Newton steps.

    Returns
    -------
    tuple of (numpy.ndarray, float)
        The refined X and the residual max|Q(X) − tr Q(X)·X|.
    """
    d = ff.d
    up = svec_pairs(d)
    m = len(up)

    def unpack(x):
        M = np.zeros((d, d))
        for k, (i, j) in enumerate(up):
            M[i, j] = M[j, i] = x[k]
        return M

    x = np.array([X[i, j] for i, j in up])
    for _ in range(iters):
        M = unpack(x)
        QX = ff.Q(M)
        G = QX - np.trace(QX) * M
        res = np.array([G[i, j] for i, j in up] + [np.trace(M) - 1.0])
        J = ff.jacobian(M)[:m, :m]
        Jt = np.vstack([J, [1.0 if i == j else 0.0 for i, j in up]])
        dx = np.linalg.lstsq(Jt, -res, rcond=None)[0]
        x = x + dx
        if np.abs(dx).max() < 1e-16 * max(1.0, np.abs(x).max()):
            break
    M = unpack(x)
    QX = ff.Q(M)
    return M, float(np.abs(QX - np.trace(QX) * M).max())


# ----------------------------------------------------------------------------- the search
def find_ray_blowup(problem, *, order: int = 20, prec: int = 128, seconds: float = 6.0, rel_width: float = 5e-7,
                    horizon: float = 50.0, max_steps: int = 20000, projective_seconds: float = 12.0) -> Verdict:
    """PROVED (BLOWUP for this Σ₀, T* ∈ [T_lo, T_hi]) with a ``tube-ray`` certificate, or UNDECIDED
    with the reason.  Never raises on float trouble.

    ``seconds`` bounds the tube search (the independent check replays the tube at about the same
    cost); ``rel_width`` is the target relative width (T_hi − T_lo)/T_lo at which the tube stops.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem, with Σ₀.
    order : int
        The Taylor order k of the tube.
    prec : int
        The arb working precision in bits (tube and ball checks).
    seconds : float
        The wall-clock budget of the search.
    rel_width : float
        The target relative width (T_hi − T_lo)/T_lo at which the tube stops.
    horizon : float
        The end time of the float guess (SciPy) that precedes the tube.
    max_steps : int
        The largest number of tube steps.
    projective_seconds : float
        The budget of the projective continuation after a tube that missed the ray's basin.

    Returns
    -------
    symbolic_tf.spec.verdict.Verdict
        PROVED (BLOWUP, THIS, T* ∈ [T_lo, T_hi]) with ``evidence["certificate"]`` of kind ``tube-ray``,
        else UNDECIDED with the reason.
    """
    return guarded(lambda t0: _find(problem, order, prec, seconds, rel_width, horizon, max_steps, projective_seconds,
                                    t0),
                   _CLAIM0, "tube-ray search")


def _find(problem, order, prec, seconds, rel_width, horizon, max_steps, projective_seconds, t0) -> Verdict:
    from ....exact.rational import qmat
    from ....spec.errors import CertificationFailed, InvalidParameters
    from ...check.claims import Claim, Quantifier
    from ...check.kinds.tube_ray import check_ray_end, check_ray_state
    from .lyapunov import (certify_and_check, ellipsoid_fields, lyapunov_guess, robust_lyapunov_guess,
                           stored_bracket, tube_fields, tube_missed, tube_summary)
    from .tube import flow_data, integrate_tube

    try:
        heads, F = flow_data(problem)
    except InvalidParameters as exc:
        return Verdict(UNDECIDED, _CLAIM0, reason=str(exc))
    if F is not None and all(e == 0 for e in F.entries()):
        F = None
    S0q = problem.exact.Sigma0
    if S0q != S0q.transpose():
        return Verdict(UNDECIDED, _CLAIM0, reason="Σ₀ is not symmetric")
    d = problem.d
    up = svec_pairs(d)
    ff = FloatField(heads, F, d)
    late = float_blowup(ff, qmat_to_float(S0q), horizon)
    numerical = {}
    if late is None:
        return Verdict(UNDECIDED, _CLAIM0, reason=f"no float blow-up up to t = {horizon:g}: no ray to certify",
                       numerical={"seconds": time.perf_counter() - t0})
    t_late, S_late = late
    numerical["float_T"] = t_late
    # Follow the float solution in projective coordinates past tr Σ = 10⁸ while its direction still turns:
    # Newton from a turning direction can land on a different rest point (seed 1688874118 #83: c ≈ −1.8).
    follow = follow_projective(ff, S_late)
    X_start = S_late / np.trace(S_late)
    if follow is not None:
        numerical.update(follow_tau=follow.tau, follow_residual=follow.residual, follow_c=follow.c)
        if follow.c_vanishes():
            return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                           reason=("the float projective solution's growth rate c = tr Q(X) + u·tr L(X) decays to "
                                   f"≈ {follow.c:.2g} by τ ≈ {follow.tau:.4g} while u = 1/tr Σ stays near "
                                   f"{follow.u:.2g}: the direction clusters onto a rest point with c = 0 (the "
                                   "isotropic cone), not onto a blow-up ray; the float blow-up may be an artefact"))
        X_start = follow.X
    X, res = newton_ray(ff, X_start)
    if follow is not None and follow.residual < _FOLLOW_RESIDUAL and np.abs(X - follow.X).max() > _NEAR_FOLLOW:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                       reason=("Newton's rest point of the projective field is not the one the float projective "
                               f"solution approaches (distance {np.abs(X - follow.X).max():.2g} from its direction at "
                               f"τ ≈ {follow.tau:.4g}): no ray to certify"))
    lam_min = float(np.linalg.eigvalsh(X).min())
    if not lam_min > -1e-9:
        numerical["ray_lambda_min"] = lam_min
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                       reason=("the float blow-up direction is not near a ray of the cone Σ ⪰ 0 (the nearest "
                               f"ray point is indefinite, λ_min ≈ {lam_min:.3g}): a rotating or recurrent blow-up"))
    # A ray needs the growth rate c = tr Q(X) > 0.  Newton may instead land on a rank-one point wwᵀ with
    # wᵀAw = 0, where Q vanishes: a rest point of the projective field with c = 0 (the isotropic cone is a
    # continuum of equilibria of Σ̇ = Q(Σ)), whose neighbourhood no hyperbolic certificate covers.
    c_ray = float(np.trace(ff.Q(X)))
    numerical["ray_growth_rate"] = c_ray
    if not c_ray > 1e-6 * max(1.0, float(np.abs(ff.dQ(X, X)).max())):
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                       reason=("the float solution's direction approaches a rest point X of the projective field "
                               f"with growth rate c = tr Q(X) ≈ {c_ray:.2g}, not clearly positive (near a rank-one "
                               "X = wwᵀ with wᵀAw = 0, Q vanishes): no blow-up ray; the limit is non-hyperbolic "
                               "(slow growth or clustering onto the isotropic cone) and the float blow-up may be an "
                               "artefact"))
    J = ff.jacobian(X)
    ev = np.linalg.eigvals(J)
    numerical.update(ray_residual=res, ray_spectral_abscissa=float(ev.real.max()))
    if not np.all(np.isfinite(J)) or res > 1e-10 or ev.real.max() >= -1e-9:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical,
                       reason=("the float blow-up has no hyperbolically attracting ray "
                               f"(ray residual {res:.2g}, spectral abscissa {ev.real.max():.3g}): "
                               "a rotating blow-up or a degenerate one"))
    # Lyapunov guesses, the most perturbation-tolerant first: near a ray on the boundary of the cone
    # Σ ⪰ 0 the Jacobian is far from normal and JᵀW + WJ = −I tolerates little variation over the box.
    guesses = [g for g in (robust_lyapunov_guess(J), lyapunov_guess(J)) if g is not None]
    if not guesses:
        return Verdict(UNDECIDED, _CLAIM0, numerical=numerical, reason="no float Lyapunov matrix / contraction rate")
    Xs_str = dyadic_matrix_str(X)
    Xs = qmat(Xs_str)
    floors = [_residual_energy(heads, F, Xs, g.Wq, d) for g in guesses]
    best = {}
    last_tr = [0.0]
    deadline = t0 + seconds
    ceilings = {}
    too_big = {}    # (guess, pieces) -> the smallest level whose contraction check failed

    def ceiling(g):
        """A level ρ = 2^e at which the end checks fail at the ray point itself while 2^(e−1) passes
        (bisection in e, once per guess; 16 when 16 passes, 0 when even the residual's floor fails): a
        level above it cannot pass with any end state (a larger ellipsoid has a larger box, so its
        contraction check is harder), so such end tests are skipped without their ball checks."""
        if g not in ceilings:
            guess, ex_res = guesses[g], floors[g]
            lo_e = math.floor(math.log2(max(4.0 * ex_res / float(guess.mu) ** 2, 1e-60)))

            def passes(e):
                data = ellipsoid_fields("X_star", Xs_str, guess, Fraction(2) ** e)
                try:
                    with working_precision(prec):
                        check_ray_state(heads, F, flint.arb_mat(Xs), flint.arb(0), flint.arb(0), data, prec, refuse)
                    return True
                except CertificationFailed:
                    return False

            lo, hi = lo_e, 4
            if passes(hi):
                ceilings[g] = 2.0 ** hi
            elif not passes(lo):
                ceilings[g] = 0.0
            else:
                while hi - lo > 1:
                    mid = (lo + hi) // 2
                    lo, hi = (mid, hi) if passes(mid) else (lo, mid)
                ceilings[g] = 2.0 ** hi
        return ceilings[g]

    def end_check(S, t, pieces=1, state=None):
        """The first guess whose ellipsoid certifies the box S at t (or, with ``state`` = (X₁, u₁, t₁),
        that projective end state): (data, lo, hi), or None."""
        if state is None:
            u1 = 1.0 / float(sum(S[i, i].mid() for i in range(d)))
            z = np.array([float(S[i, j].mid()) * u1 - X[i, j] for i, j in up] + [u1])
        else:
            z = np.array([float(state[0][i, j].mid()) - X[i, j] for i, j in up] + [float(state[1].mid())])
        for g, (guess, ex_res) in enumerate(zip(guesses, floors)):
            E1 = float(z @ guess.W @ z)
            # ρ: room for the tube's width and for the residual condition rᵀWr < μ²ρ
            rho = dyadic(max(1.5 * E1 + 1e-300, 4.0 * ex_res / float(guess.mu) ** 2), 30)
            if pieces == 1 and float(rho) > ceiling(g):
                continue
            if float(rho) >= too_big.get((g, pieces), math.inf):
                continue
            data = ellipsoid_fields("X_star", Xs_str, guess, rho)
            if pieces > 1:
                data["pieces"] = pieces
            try:
                if state is None:
                    return (data,) + tuple(check_ray_end(heads, F, S, t, data, prec, refuse))
                return (data,) + tuple(check_ray_state(heads, F, *state, data, prec, refuse))
            except CertificationFailed as exc:
                if _CONTRACTION_FAILS in str(exc) or _PIECES_FAIL in str(exc):
                    # the contraction part depends on the level alone: no larger level can pass it
                    too_big[(g, pieces)] = min(float(rho), too_big.get((g, pieces), math.inf))
                continue
        return None

    def attempt(S, t):
        trS = float(sum(S[i, i].mid() for i in range(d)))
        if not trS > 0 or trS < 2 * last_tr[0]:
            return False
        last_tr[0] = trS
        found = end_check(S, t)
        if found is None:
            return False
        data, lo, hi = found
        T_lo, T_hi, width = stored_bracket(lo, hi, 1.0, 60)
        if not best or width < best["width"]:
            best.update(data=dict(data, T_lo=frac_str(T_lo), T_hi=frac_str(T_hi)), t=t, width=width)
        return width <= rel_width

    def until(state, t):
        if time.perf_counter() > deadline:
            return bool(best)
        return attempt(state.S, t)

    # The end test needs the tube close to the ray in projective coordinates; when the ray attracts
    # slowly (deviation ∝ u^(a/c)) the default local tolerance leaves the enclosure too wide before
    # that, so a failed pass is repeated with a tighter one (the same stored-step format).
    # A float preview picks the first tolerance: if the float state at tr Σ ≈ 10⁸ (a point box) does not
    # pass the end test yet, the tube must go much closer to T* and the default tolerance cannot.
    with working_precision(prec):
        preview = end_check(flint.arb_mat(S_late.tolist()), Fraction(t_late))
    tols = _LOCAL_TOLS if preview is not None else _LOCAL_TOLS[1:]
    numerical["float_preview_enters"] = preview is not None
    # After a missed preview the projective continuation is the likely end, and it starts at the last
    # box of relative width ≤ SWITCH_WIDTH: the tube stops soon after that box (seed 0 #53: 334 → 238
    # steps, −0.2 s) instead of at its Picard failure.
    rel_stop = 1e-2 if preview is not None else _MISSED_PREVIEW_STOP
    tube, passes = None, 0
    for local_tol in tols:
        left = 0.5 * (seconds - (time.perf_counter() - t0))
        if tube is not None and (best or left < 0.25 or not _too_wide(tube.stop)):
            break
        last_tr[0] = 0.0
        tube = integrate_tube(heads, F, S0q, None, order=order, prec=prec, method="qr", max_steps=max_steps,
                              rel_tol=rel_stop, seconds=max(0.5, left), until=until, local_tol=local_tol, framed=True)
        passes += 1
    numerical.update(tube_summary(tube), passes=passes)
    # after a missed tube: pieces of the last boxes first with the small budget (cheap when it works;
    # after a missed preview the boxes are those near the switch, and it rarely does),
    # then the projective continuation (slower, but it reaches rays whose basin the covariance tube
    # cannot enter), then the large budget of pieces
    # (the two piecewise parts share one budget of _PIECE_SECONDS past the route's own)
    piece_left = 0.0
    if not best and tube is not None:
        piece_deadline = t0 + seconds + _PIECE_SECONDS
        _piecewise_retry(tube, end_check, best, piece_deadline, d, numerical, _PIECE_BUDGETS[:1])
        piece_left = piece_deadline - time.perf_counter()
    if not best and tube is not None:
        proj_seconds = projective_seconds
        left = remaining()
        if left is not None:   # the checker replays the projective steps at about the search's cost
            proj_seconds = min(proj_seconds, 0.5 * left)
        hopeless = _projective_hopeless(follow, X, up, guesses, ceiling, proj_seconds)
        if hopeless is not None:
            numerical["projective"] = hopeless
        else:
            _projective_retry(heads, F, tube, end_check, best, time.perf_counter() + proj_seconds, prec,
                              numerical)
    if not best and tube is not None and piece_left > 0:
        _piecewise_retry(tube, end_check, best, time.perf_counter() + piece_left, d, numerical, _PIECE_BUDGETS[1:])
    if not best:
        return tube_missed(tube, _CLAIM0, numerical, t0, "enter a certified ray basin", f"; float T* ≈ {t_late:.6g}")
    times, tube_data = tube_fields(tube, best["t"], order, prec)
    data = dict(best["data"], prec=prec, **tube_data)
    if "proj" in best:
        from ...check.certificate import vec_str

        data.update(proj_steps=vec_str(best["proj"]), proj_order=_PROJ_ORDER, proj_apriori="taylor")
    claim = Claim("BLOWUP", Quantifier.THIS, {"T_lo": data["T_lo"], "T_hi": data["T_hi"]})
    note = (f"validated order-{order} Taylor tube (qr, {prec} bits) over {len(times) - 1} steps to "
            f"t = {float(best['t']):.12g}, ending in the certified basin of the attracting ray (X*, 0) of the "
            "projective field")
    numerical["rel_width"] = best["width"]
    return certify_and_check(problem, KIND, claim, data, note, numerical, t0, ARGUMENT,
                             {"regime": "BLOWUP", "T_lo": data["T_lo"], "T_hi": data["T_hi"]},
                             f"validated tube from Σ₀ ({len(times) - 1} steps) into the certified basin of an "
                             f"attracting ray; relative bracket width {best['width']:.2g}")


_CONTRACTION_FAILS = "is not verified over the box"   # kinds.ray's failures of the contraction check
_PIECES_FAIL = "the piecewise contraction check needs more than"
_LOCAL_TOLS = (1e-15, 1e-20)   # the tube's per-step local tolerance, pass by pass
_MISSED_PREVIEW_STOP = 10 * SWITCH_WIDTH   # the tube's relative width stop after a missed float preview
_PIECE_SECONDS = 8.0           # the extra budget of the piecewise contraction check after a missed tube
_PIECE_BUDGETS = (256, 2048)   # pieces of the adaptive check (kinds.ray.check_contraction_pieces), in turn


def _piecewise_retry(tube, end_check, best, deadline, d, numerical, budgets):
    """After a tube that never entered a ray basin: test its last end boxes again with the contraction
    check done piecewise (the certificate's ``pieces``, at most each of ``budgets`` in turn).  A slowly
    attracting ray leaves the tube's end at a distance from the ray where the Jacobian's ball over the
    whole box is too coarse, although the inequality holds pointwise; adaptive pieces of the box shrink
    the ball where it matters.  Latest box first, one box per doubling of tr Σ, until ``deadline``; the
    first success fills ``best``."""
    from .lyapunov import stored_bracket

    cand, last = [], None
    for k in range(len(tube.ends) - 1, 0, -1):
        S = tube.ends[k]
        trS = float(sum(S[i, i].mid() for i in range(d)))
        if trS > 0 and (last is None or trS <= last / 2):
            cand.append((S, tube.times[k]))
            last = trS
        if len(cand) == 3:
            break
    tried = numerical.get("piecewise_retries", 0)
    for pieces in budgets:
        for S, t in cand:
            if time.perf_counter() > deadline:
                numerical["piecewise_retries"] = tried
                return
            tried += 1
            found = end_check(S, t, pieces)
            if found is not None:
                data, lo, hi = found
                T_lo, T_hi, width = stored_bracket(lo, hi, 1.0, 60)
                best.update(data=dict(data, T_lo=frac_str(T_lo), T_hi=frac_str(T_hi)), t=t, width=width)
                numerical.update(piecewise_retries=tried, pieces=pieces)
                return
    numerical["piecewise_retries"] = tried


# The projective continuation's Taylor order, the largest Lagrange remainder radius of one of its steps
# and its step caps in τ, in turn.  The bracket needs only ≲ 10⁻⁷ relative, so the remainder may be
# loose: measured on the six projective rays of the general-V set, order 16 / 10⁻¹² / caps from 0.5
# take seed 0 #53 from 205 steps and 2.36 s (order 20 / 10⁻¹⁸ / caps from 0.25) to 149 steps and 1.8 s,
# with the bracket still ≤ 10⁻¹³ relative; seed 1 #52 needs the cap 0.25 (+0.6 s for the 0.5 try).
_PROJ_ORDER = 16
_PROJ_TOL = 1e-12
_PROJ_CAPS = (0.5,) + STEP_CAPS
_PROJ_WIDE = 1e-4          # stop when the projective enclosure is wider than this


def _projective_retry(heads, F, tube, end_check, best, deadline, prec, numerical):
    """After a tube that never entered a ray basin: continue it in projective coordinates
    (:mod:`~symbolic_tf.certify.search.validated._projective_tube`, the checker's own step).  The covariance tube's
    box grows relatively like δ/(T* − t) (δ its uncertainty about T*), so it cannot get close to a slowly
    attracting ray; in (X, u, s) the state stays of order one.  Switch at the last covariance box whose
    relative width is at most 10⁻¹², step adaptively with the high-order a priori enclosure (remainder
    radius ≤ 10⁻¹²), and test the end state each time u halves; the first success fills ``best`` (with the covariance switch time ``t`` and the
    projective times ``proj``)."""
    from .lyapunov import stored_bracket
    from ._projective_tube import integrate_projective_capped, switch_index

    k = switch_index(tube)
    if k == 0:
        numerical["projective"] = "no covariance box narrow enough to switch"
        return
    S_k, t_k = tube.ends[k], tube.times[k]
    t_arb = flint.arb(fmpq_of(t_k))
    last_u = [1.0 / float(sum(S_k[i, i].mid() for i in range(S_k.nrows())))]   # u = 1/tr Σ at the switch
    checks = [0]

    def until(Xb, ub, sb, tau):
        u_now = float(ub.mid())
        if not u_now <= 0.5 * last_u[0]:
            return False
        last_u[0] = u_now
        checks[0] += 1
        found = end_check(None, None, state=(Xb, ub, t_arb + sb))
        if found is None:
            return False
        data, lo, hi = found
        T_lo, T_hi, width = stored_bracket(lo, hi, 1.0, 60)
        best.update(data=dict(data, T_lo=frac_str(T_lo), T_hi=frac_str(T_hi)), t=t_k, width=width, proj=[tau])
        return True

    def fresh():
        last_u[0] = u_switch
        return until

    u_switch = last_u[0]
    run = integrate_projective_capped(heads, F, S_k, fresh, prec=tube.prec, order=_PROJ_ORDER, deadline=deadline,
                                      tol=_PROJ_TOL, wide=_PROJ_WIDE, apriori="taylor", caps=_PROJ_CAPS)
    if "proj" in best:
        best["proj"] = list(run.taus)
    stop = "entered the basin" if run.stop == "accepted by until" else run.stop
    numerical["projective"] = dict(run.summary(), switch_t=float(t_k), checks=checks[0], stop=stop, h_max=run.h_max)


# The float projective follow: its end τ, the direction residual below which the follow has converged,
# the largest distance of Newton's rest point from the follow's end direction, and the cost model of the
# projective continuation (its largest step cap in τ, a lower bound of the seconds per validated step:
# measured 0.009–0.013 s in d = 3 on the undecided set of seed 1688874118).
_FOLLOW_TAU = 6000.0
_FOLLOW_RESIDUAL = 1e-9
_NEAR_FOLLOW = 1e-2   # a different rest point is O(0.1) away; 1e-4 slop is slow convergence to a degenerate one
_SECONDS_PER_STEP = 0.004
# the projective continuation's mean step in τ for the cost model: its adaptive cap (from 2, halved on a wide
# enclosure, regrown) took 2.4 on seed 1688874118 #110 (2520/1034) where the fixed cap 0.5 was the bound
_PROJ_MEAN_STEP = 1.0
_FOLLOW_EVALS = 40_000   # the follow's evaluation cap per method (≈ 1 s of float work in d = 3)


class ProjectiveFollow:
    """The float solution of the projective field X' = Q(X) + u·L(X) − c·X, u' = −c·u from a late float
    state: its τ grid, states (X, u) and growth rates, and its end (X, u, c, direction residual)."""

    def __init__(self, taus, Xs, us, cs, residual):
        self.taus, self.Xs, self.us, self.cs, self.residual = taus, Xs, us, cs, residual
        self.tau, self.X, self.u, self.c = float(taus[-1]), Xs[-1], float(us[-1]), float(cs[-1])

    def c_vanishes(self) -> bool:
        """Whether the growth rate decayed to (numerically) zero: c_end ≤ 10⁻⁶·max c along the follow
        with a converged direction — a rest point with c = 0, where u = 1/tr Σ tends to a positive limit.

        Returns
        -------
        bool
            True when the follow's direction settles on a rest point with c ≈ 0.
        """
        return self.residual < _FOLLOW_RESIDUAL and abs(self.c) <= 1e-6 * max(1.0, float(np.max(self.cs)))


def follow_projective(ff: FloatField, S_late: np.ndarray, tau_max: float = _FOLLOW_TAU) -> ProjectiveFollow | None:
    """Follow a late float blow-up state in projective coordinates (Σ = X/u, dτ = dt/u):

        X' = Q(X) + u·L(X) − c·X,   u' = −c·u,   c = tr Q(X) + u·tr L(X),

    from X = S/tr S, u = 1/tr S, with DOP853 up to ``tau_max`` or until both the direction residual
    max|Q(X) − tr Q(X)·X| and u are below 10⁻¹³ (the direction has settled on its rest point).  A float
    guess; nothing is decided here.

    Parameters
    ----------
    ff : FloatField
        The float field.
    S_late : numpy.ndarray
        The late float state Σ (d×d, tr Σ > 0).
    tau_max : float
        The largest projective time.

    Returns
    -------
    ProjectiveFollow or None
        The follow (grid, states, rates, end), or None when the float integration fails.
    """
    from .float_budget import FloatBudgetExceeded, solve_capped

    d = ff.d
    tr = float(np.trace(S_late))
    if not tr > 0 or not np.all(np.isfinite(S_late)):
        return None

    def split(y):
        M = y[:-1].reshape(d, d)
        return 0.5 * (M + M.T), y[-1]

    def rhs(_tau, y):
        M, u = split(y)
        QX, LX = ff.Q(M), ff.L(M)
        c = np.trace(QX) + u * np.trace(LX)
        return np.concatenate([(QX + u * LX - c * M).ravel(), [-c * u]])

    def settled(_tau, y):
        M, u = split(y)
        QX = ff.Q(M)
        return max(float(np.abs(QX - np.trace(QX) * M).max()), abs(float(u))) - 1e-13

    settled.terminal = True
    y0 = np.concatenate([(S_late / tr).ravel(), [1.0 / tr]])
    try:
        with np.errstate(all="ignore"):
            sol = solve_capped(rhs, (0.0, tau_max), y0, rtol=1e-10, atol=1e-14, events=settled,
                               max_evals=_FOLLOW_EVALS)
    except (ArithmeticError, ValueError, np.linalg.LinAlgError, FloatBudgetExceeded):
        return None   # a follow that is too costly (a non-hyperbolic, slowly settling direction) is no guess
    if sol.status == -1 or not np.all(np.isfinite(sol.y)):
        return None
    Xs, us, cs = [], [], []
    for y in sol.y.T:
        M, u = split(y)
        Xs.append(M)
        us.append(u)
        cs.append(float(np.trace(ff.Q(M)) + u * np.trace(ff.L(M))))
    QX = ff.Q(Xs[-1])
    return ProjectiveFollow(np.asarray(sol.t), Xs, np.asarray(us), np.asarray(cs),
                            float(np.abs(QX - np.trace(QX) * Xs[-1]).max()))


def _projective_hopeless(follow, X, up, guesses, ceiling, seconds):
    """A float pre-check of the projective continuation: None when it may reach a certified level within
    ``seconds``, else the reason it cannot.  Its end test passes only at a level ρ ≥ 1.5·zᵀWz below the
    guess's ceiling (z = (X − X*, u)); along the float follow from tr Σ = 10⁸ (later than the tube's switch,
    so a lower bound of the τ needed) find the first τ where that holds, and compare the steps of at most
    the adaptive cap's mean step (:data:`_PROJ_MEAN_STEP`) that τ needs with what ``seconds`` affords."""
    if follow is None:
        return None
    cap = _PROJ_MEAN_STEP
    tau_need = None
    for g, guess in enumerate(guesses):
        top = ceiling(g)
        if not top > 0:
            continue
        for tau, Xk, uk in zip(follow.taus, follow.Xs, follow.us):
            z = np.array([Xk[i, j] - X[i, j] for i, j in up] + [uk])
            if 1.5 * float(z @ guess.W @ z) <= top:
                tau_need = tau if tau_need is None else min(tau_need, tau)
                break
    if tau_need is None:
        return (f"skipped: the float projective follow does not reach a certifiable level of the ray's basin by "
                f"τ ≈ {follow.tau:.4g} (growth rate c ≈ {follow.c:.2g}): the ray attracts too slowly")
    steps = tau_need / cap
    if steps * _SECONDS_PER_STEP > seconds:
        return (f"skipped: the float projective follow reaches a certifiable level only at τ ≈ {tau_need:.4g} past "
                f"tr Σ = 10⁸ (≈ {steps:.0f} validated steps, more than {seconds:.0f} s afford)")
    return None


def _too_wide(stop: str) -> bool:
    """Whether a tube stopped because its enclosure grew too wide (not for time or step limits)."""
    return stop.startswith("enclosure width") or stop.startswith("no validated step")


def _residual_energy(heads, F, Xs, W, d) -> float:
    """rᵀWr (float) for the exact residual r = (Q(X*) − tr Q(X*)·X*, 0)."""
    from ...check.kinds.tube_ray import ProjectiveField

    ex = ProjectiveField(heads, F, flint.fmpq_mat)
    QX = ex.Q(Xs)
    rX = QX - Xs * sum((QX[i, i] for i in range(d)), flint.fmpq(0))
    m = d * (d + 1) // 2
    rv = flint.fmpq_mat(m + 1, 1, [rX[i, j] for i, j in svec_pairs(d)] + [0])
    e = (rv.transpose() * W * rv)[0, 0]
    return int(e.p) / int(e.q)


# ---- route ----
from ..routes import declare, tube_applies  # noqa: E402 - the route is declared after its search


def _ray_search(problem, ctx):
    # a slowly attracting ray in d = 3 is reached at τ ≈ 440 (seed 1 #52 of the general-V set)
    small = problem.d <= 2
    return ctx.skip(problem, "settles") or find_ray_blowup(problem, seconds=16.0 if small else 25.0,
                                                           projective_seconds=12.0 if small else 60.0)


# after the global blow-up LMI (50), which decides every Σ₀ at once when it applies
declare("tube-ray", 60, ("BLOWUP",), tube_applies(), _ray_search,
        doc="BLOWUP of this Σ₀ with a bracket: a validated tube enters the basin of an attracting ray of the "
            "projective field; quadratic flows, drift or not.")
