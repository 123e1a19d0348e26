"""Validated tubes: rigorous ball enclosures of the covariance flow Σ(t) on [0, T].

See :func:`enclose`.  The integration (Picard a-priori enclosure, order-k Taylor step with a
Lagrange remainder over the Picard box, Lohner QR wrapping control) is
:mod:`symbolic_tf.certify.search.validated.flow`; the step-size choice follows
:mod:`symbolic_tf.certify.search._blowup_taylor_lmi` (root test on the Taylor coefficients for the distance to the
nearest singularity, then shrink until the remainder's radius is below 10⁻¹⁵·‖Σ‖_max), with
dyadic step lengths so that every step time is an exact rational.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import flint

from ....exact.precision import working_precision
from ..budget import check_budget
from ....spec.errors import InvalidParameters
from ....variants import quadratic_heads
from .flow import (Flow, State, arb_of, dyadic_down, initial_state, max_mid, max_rad, prepare_step, singularity_distance, svec_basis,
                   taylor_step)

__all__ = ["Tube", "enclose", "flow_data", "psd_flow_inputs", "integrate_tube", "MAX_D"]

MAX_D = 6
_STEP_TOL = 1e-15
_LOCAL_TOL = 1e-15
_MAX_RETRIES = 8


@dataclass
class Tube:
    """A validated enclosure of Σ(t).

    Attributes
    ----------
    times : list of Fraction
        Exact step times 0 = t_0 < t_1 < … < t_N.
    ends : list of flint.arb_mat
        ends[k] ∋ Σ(t_k) (k = 0..N).
    boxes : list of flint.arb_mat
        boxes[k] ∋ Σ(t) for every t ∈ [t_k, t_{k+1}] (the Picard a-priori enclosures, k < N).
    T : Fraction or None
        The requested end time.
    complete : bool
        True when t_N = T (the enclosure reached the end); otherwise ``stop`` says why it
        stopped (the solution is still enclosed up to t_N).
    stop : str
    order, prec, method : the integration parameters (stored in certificates; replayed exactly).
    seconds : float
    """

    times: list
    ends: list
    boxes: list
    T: Fraction | None
    complete: bool
    stop: str
    order: int
    prec: int
    method: str
    seconds: float = 0.0
    info: dict = field(default_factory=dict)

    @property
    def t_final(self) -> Fraction:
        """The last step time t_N (exact)."""
        return self.times[-1]

    @property
    def final(self):
        """The ball matrix enclosing Σ(t_N)."""
        return self.ends[-1]

    @property
    def steps(self) -> int:
        """The number of steps N."""
        return len(self.times) - 1

    def widths(self) -> list[float]:
        """Max entry radius of the enclosure at every step end.

        Returns
        -------
        list of float
            max_ij rad(ends[k]_ij) for k = 0..N.
        """
        return [max_rad(S) for S in self.ends]

    def box_widths(self) -> list[float]:
        """Max entry radius of every Picard box.

        Returns
        -------
        list of float
            max_ij rad(boxes[k]_ij) for k = 0..N − 1.
        """
        return [max_rad(S) for S in self.boxes]

    @staticmethod
    def mid_rad(S):
        """(midpoints, radii) as float lists of a ball matrix.

        Parameters
        ----------
        S : flint.arb_mat
            A square ball matrix.

        Returns
        -------
        tuple of (list of list of float, list of list of float)
            The entries' midpoints and radii.
        """
        d = S.nrows()
        return ([[float(S[i, j].mid()) for j in range(d)] for i in range(d)],
                [[float(S[i, j].rad()) for j in range(d)] for i in range(d)])

    def to_dict(self) -> dict:
        """A JSON-ready summary: end times, completion, stop reason, parameters and the final enclosure.

        Returns
        -------
        dict
            ``T``, ``t_final`` (exact strings), ``t_final_float``, ``complete``, ``stop``, ``steps``, ``order``,
            ``prec``, ``method``, ``Sigma_mid``/``Sigma_rad`` of Σ(t_N), ``max_radius`` and ``seconds``.
        """
        mid, rad = self.mid_rad(self.final)
        return {"T": None if self.T is None else str(self.T), "t_final": str(self.t_final),
                "t_final_float": float(self.t_final), "complete": self.complete, "stop": self.stop,
                "steps": self.steps, "order": self.order, "prec": self.prec, "method": self.method,
                "Sigma_mid": mid, "Sigma_rad": rad, "max_radius": max(max(r) for r in rad),
                "seconds": self.seconds}


def flow_data(problem):
    """Exact (heads [(C_h, A_h)], F or None) of the covariance flow; raises InvalidParameters
    (NotGaussianClosed for a ReLU feed-forward term).

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem: constant parameters, Gaussian initial law with Σ₀, d ≤ MAX_D.

    Returns
    -------
    tuple of (list of (flint.fmpq_mat, flint.fmpq_mat), flint.fmpq_mat or None)
        ([(C_h, A_h)], F).
    """
    from ....spec.relu import refuse_relu

    refuse_relu(problem, "a validated tube of the moment ODE")
    d = problem.d
    if problem.schedule is not None:
        raise InvalidParameters("phase", "validated tubes take constant parameters; `symtf classify` certifies "
                                "a depth schedule phase by phase")
    if d > MAX_D:
        raise InvalidParameters("d", f"validated tubes support d ≤ {MAX_D}, got {d}")
    from ....spec.initial import require_gaussian

    require_gaussian(problem, "a validated tube of the moment ODE")
    if problem.cov is None:
        raise InvalidParameters("initial.cov", "a validated tube starts from the problem's Σ₀")
    try:
        heads = quadratic_heads(problem)
    except InvalidParameters as exc:
        raise InvalidParameters(exc.field, f"validated tubes cover the quadratic (softmax-type) covariance flow "
                                f"only: {exc.reason}") from None
    F = problem.exact.F
    return heads, F


def psd_flow_inputs(problem, drift: bool, drift_reason: str):
    """The exact inputs of a tube-end search whose certificate needs Σ₀ ⪰ 0 and either a drift
    F ≠ 0 (``drift`` True) or none (``drift`` False): ([(C_h, A_h)], F, Σ₀), or the reason why not.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The problem.
    drift : bool
        Whether the certificate needs a nonzero drift F (True) or no drift (False).
    drift_reason : str
        The reason returned when the drift is not as required.

    Returns
    -------
    tuple of (list of (flint.fmpq_mat, flint.fmpq_mat), flint.fmpq_mat or None, flint.fmpq_mat) or str
        ([(C_h, A_h)], F, Σ₀) (:func:`flow_data`), or the reason: flow_data's InvalidParameters,
        ``drift_reason``, or "Σ₀ is not symmetric positive semidefinite" (decided exactly).
    """
    from ....exact.definiteness import definiteness

    try:
        heads, F = flow_data(problem)
    except InvalidParameters as exc:
        return str(exc)
    if (F is not None and any(e != 0 for e in F.entries())) != drift:
        return drift_reason
    S0q = problem.exact.Sigma0
    if S0q != S0q.transpose() or not definiteness(S0q).psd:
        return "Σ₀ is not symmetric positive semidefinite"
    return heads, F, S0q



def flow_inputs_or_stop(problem, drift: bool, drift_reason: str):
    """:func:`psd_flow_inputs`, or :class:`~.float_budget.Undecided` with its reason (inside a guarded search).

    Parameters
    ----------
    problem : Problem
        The problem.
    drift : bool
        Whether the certificate needs a drift F ≠ 0 (True) or none (False).
    drift_reason : str
        The reason given when the drift condition fails.

    Returns
    -------
    tuple
        ([(C_h, A_h)], F, Σ₀) exactly.
    """
    from .float_budget import Undecided

    inputs = psd_flow_inputs(problem, drift, drift_reason)
    if isinstance(inputs, str):
        raise Undecided(inputs)
    return inputs


def integrate_tube(heads, F, S0q, T, *, order=20, prec=128, method="qr", max_steps=20000, rel_tol=1e-2,
                   seconds=None, until=None, local_tol=_LOCAL_TOL, start=None, framed=False) -> Tube:
    """The integration loop behind :func:`enclose` (exact inputs: fmpq heads, F, Σ₀).

    ``T`` (Fraction or None = no end time), ``local_tol`` (target radius of each step's Lagrange
    remainder relative to ‖Σ‖_max; the step times are all a checker needs), ``rel_tol`` (stop when the enclosure's max radius
    exceeds rel_tol·max(1, ‖Σ‖_max)), ``seconds`` (wall-clock limit), ``until(state, t)``
    (stop as soon as it returns true; called after every step).

    Parameters
    ----------
    heads : list of (flint.fmpq_mat, flint.fmpq_mat)
        The exact (C_h, A_h).
    F : flint.fmpq_mat or None
        The exact drift.
    S0q : flint.fmpq_mat
        The exact Σ₀.
    T : fractions.Fraction or None
        The end time, or None for no end time.
    order : int
        The Taylor order k.
    prec : int
        The arb working precision in bits.
    method : str
        ``"qr"`` or ``"direct"``.
    max_steps : int
        The largest number of steps.
    rel_tol : float
        The relative width at which the tube stops.
    seconds : float or None
        The wall-clock limit.
    until : callable or None
        ``until(state, t)``: stop when it returns true.
    local_tol : float
        The relative target radius of each step's Lagrange remainder.
    start : tuple or None
        ("qr") an initial parallelepiped (center, basis, coords) of a *set* of initial values contained
        in the box ``S0q`` (an arb_mat); default: the box's midpoint, I and the box − midpoint.
    framed : bool
        Each step's Picard box and remainder in the eigenframe of its box (:func:`.flow.taylor_step`).

    Returns
    -------
    Tube
        The tube; ``complete`` when it reached T, else ``stop`` says why it stopped.
    """
    t_start = time.perf_counter()
    with working_precision(prec):
        flow = Flow(heads, F)
        S = flint.arb_mat(S0q)
        state = initial_state(S, method)
        if start is not None and method == "qr":
            state = State(S, *start)
        basis = svec_basis(S.nrows())
        t = Fraction(0)
        times, ends, boxes = [t], [S], []
        theta = min(0.25, _STEP_TOL ** (1.0 / (order + 1)))
        h_prev = None
        stop, complete = "max_steps", False
        if until is not None and until(state, t):
            stop = "condition met at t = 0"
        elif T is not None and T == 0:
            stop, complete = "T = 0", True
        else:
            while len(times) - 1 < max_steps:
                if seconds is not None and time.perf_counter() - t_start > seconds:
                    stop = f"time limit {seconds:g} s"
                    break
                check_budget()
                pre = prepare_step(state, flow, order, method)
                rho = singularity_distance(S, flow, order, pre["centre"])
                h = theta * rho if math.isfinite(rho) else (h_prev * 2 if h_prev else 1.0)
                if h_prev is not None:
                    h = min(h, 4 * h_prev)
                last = False
                if T is not None and Fraction(h) >= T - t:
                    h, last = None, True
                step, err, hq = None, math.inf, Fraction(0)
                s_scale = max(max_mid(S), 1e-300)
                for attempt in range(_MAX_RETRIES + 1):
                    if last:
                        hq = T - t
                    else:
                        hq = dyadic_down(h)
                    if hq <= 0:
                        break
                    step = taylor_step(state, arb_of(hq), flow, order, method, basis, pre, framed)
                    if step is None:
                        h, last = float(hq) / 2, False
                        continue
                    err = step.zrad / s_scale
                    if err > local_tol and attempt < _MAX_RETRIES:
                        h = float(hq) * max(0.2, 0.9 * (local_tol / err) ** (1.0 / (order + 1)))
                        last = False
                        step = None
                        continue
                    break
                if step is None:
                    stop = (f"no validated step from t ≈ {float(t):.6g} after {_MAX_RETRIES} reductions "
                            "(the Picard enclosure fails: blow-up ahead?)")
                    break
                grow = 1.5 if err == 0 else min(1.5, 0.9 * (local_tol / err) ** (1.0 / (order + 1)))
                if math.isfinite(rho) and not last:
                    theta = min(0.25, float(hq) / rho * max(grow, 0.2))
                S_new = step.S
                d = S.nrows()
                if not all(S_new[i, j].is_finite() for i in range(d) for j in range(d)):
                    stop = f"enclosure not finite after t ≈ {float(t):.6g}"
                    break
                state, S, t, h_prev = step, S_new, t + hq, float(hq)
                times.append(t)
                ends.append(S)
                boxes.append(step.picard)
                if T is not None and t == T:
                    stop, complete = "reached T", True
                    break
                rw = max_rad(S) / max(1.0, max_mid(S))
                if rw > rel_tol:
                    stop = (f"enclosure width {rw:.3g} > {rel_tol:g} (relative) at t ≈ {float(t):.6g}: "
                            "the enclosure is too wide to continue")
                    break
                if until is not None and until(state, t):
                    stop = f"condition met at t ≈ {float(t):.6g}"
                    break
    return Tube(times, ends, boxes, T, complete, stop, order, prec, method, time.perf_counter() - t_start)


def _to_T(T) -> Fraction:
    if isinstance(T, bool):
        raise InvalidParameters("T", "expected a number")
    try:
        q = Fraction(T) if not isinstance(T, float) else Fraction(T)
    except (ValueError, TypeError, ZeroDivisionError, OverflowError):
        raise InvalidParameters("T", f"expected an exact number, got {str(T)[:40]!r}") from None
    if isinstance(T, float) and not math.isfinite(T):
        raise InvalidParameters("T", "must be finite")
    if q < 0:
        raise InvalidParameters("T", f"must be ≥ 0, got {str(T)[:40]}")
    return q


def enclose(problem, T, *, order: int = 20, prec: int = 128, method: str = "qr", max_steps: int = 20000,
            rel_tol: float = 1e-2, seconds: float | None = None) -> Tube:
    """A validated tube around the covariance flow from the problem's Σ₀ on [0, T].

    The flow is Σ̇ = FΣ + ΣFᵀ + Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) of single-head softmax (C = V) or
    multi-head softmax (C_h = W_hV_h), with the affine drift F (0 if absent; the bias b does
    not enter the covariance), A_h scaled by the temperature; d ≤ 6.

    Parameters
    ----------
    problem : Problem with ``initial.cov``.
    T : end time (an exact rational: int, Fraction, "p/q" or decimal string; floats are taken
        exactly).
    order : Taylor order k (1..60).
    prec : working precision in bits (53..4096).
    method : "qr" (Lohner's QR parallelepipeds intersected with boxes) or "direct" (boxes).
    max_steps, rel_tol, seconds : stop early after this many steps, once the enclosure's max
        radius exceeds rel_tol·max(1, ‖Σ‖_max), or after this many wall-clock seconds.

    Returns
    -------
    Tube
        Exact step times, the Picard boxes (Σ(t) ∈ boxes[k] on [t_k, t_{k+1}]) and the step-end
        enclosures; ``complete`` is False when it stopped early (``stop`` says where and why:
        blow-up ahead, width explosion, limits).

    Raises
    ------
    InvalidParameters
        Not a (multi-head) softmax problem, no Σ₀, d > 6, bad T/order/prec/method.
    """

    if method not in ("qr", "direct"):
        raise InvalidParameters("method", f"must be 'qr' or 'direct', not {str(method)[:40]!r}")
    if isinstance(order, bool) or not isinstance(order, int) or not 1 <= order <= 60:
        raise InvalidParameters("order", f"must be an integer in [1, 60], got {order!r}")
    if isinstance(prec, bool) or not isinstance(prec, int) or not 53 <= prec <= 4096:
        raise InvalidParameters("prec", f"must be an integer in [53, 4096], got {prec!r}")
    Tq = _to_T(T)
    heads, F = flow_data(problem)
    S0 = problem.exact.Sigma0
    if S0 != S0.transpose():
        raise InvalidParameters("initial.cov", "Σ₀ must be symmetric")
    return integrate_tube(heads, F, S0, Tq, order=order, prec=prec, method=method, max_steps=max_steps,
                          rel_tol=rel_tol, seconds=seconds)
