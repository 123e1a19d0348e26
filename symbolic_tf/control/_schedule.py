"""Piecewise-constant control schedules: phases, results, and their reference simulation.

A schedule is a list of :class:`Phase` (duration and exact rational controls F, b, A, V of the
Alcalde–Ji–Zuazua model, docs/mathematics.md §6)

    α̇ = (F + V)α + VΣAα + b,    Σ̇ = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ.

The constructive routes (:mod:`.steer`, :mod:`.restricted`) return a :class:`BuiltSchedule`;
:func:`simulate_schedule` integrates a schedule phase by phase with the high-precision
reference integrator; :class:`SteeringResult` is the outcome of :func:`.steer.steer`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import mpmath

from ..exact.rational import frac_str
from ..exact.sympy_bridge import mpf_fraction
from ..spec.problem import Problem
from ..spec.verdict import Verdict
from ._mpmatrix import DPS, mp_matrix, mp_vector

__all__ = ["zero_matrix", "identity_matrix", "sq_norm", "matrix_strings", "Phase", "SteeringResult",
           "BuiltSchedule", "bias_phase", "simulate_schedule"]


def zero_matrix(d: int) -> tuple:
    """The d×d zero matrix of Fractions."""
    return tuple(tuple(Fraction(0) for _ in range(d)) for _ in range(d))


def identity_matrix(d: int) -> tuple:
    """The d×d identity matrix of Fractions."""
    return tuple(tuple(Fraction(int(i == j)) for j in range(d)) for i in range(d))


def sq_norm(X) -> Fraction:
    """Exact squared norm: ‖X‖_F² = Σ x_ij² of a matrix, ‖x‖² of a vector, 0 for ``None``."""
    if X is None:
        return Fraction(0)
    if X and isinstance(X[0], tuple):
        return sum((e * e for r in X for e in r), Fraction(0))
    return sum((e * e for e in X), Fraction(0))


def matrix_strings(M) -> list:
    """An exact matrix as rows of "p/q" strings (:func:`symbolic_tf.exact.rational.frac_str`)."""
    return [[frac_str(e) for e in r] for r in M]


@dataclass
class Phase:
    """One constant-control phase: duration and exact rational (F, b, A, V)."""

    duration: Fraction
    F: tuple
    b: tuple
    A: tuple
    V: tuple
    role: str = ""

    def to_dict(self) -> dict:
        """The phase as JSON-ready strings."""
        return {"duration": frac_str(self.duration), "F": matrix_strings(self.F),
                "b": [frac_str(e) for e in self.b], "A": matrix_strings(self.A),
                "V": matrix_strings(self.V), "role": self.role}

    def free_norm_sq(self) -> Fraction:
        """Squared norm of the free controls: max of ‖F‖_F², ‖A‖_F², ‖b‖², and ‖V‖_F² unless V
        is the fixed value I or 0.
        """
        d = len(self.F)
        vs = Fraction(0) if self.V in (identity_matrix(d), zero_matrix(d)) else sq_norm(self.V)
        return max(sq_norm(self.F), sq_norm(self.A), sq_norm(self.b), vs)


@dataclass
class SteeringResult:
    """Outcome of :func:`symbolic_tf.control.steer.steer`.

    verdict : Verdict (PROVED: the schedule reaches the target within ``certified_bound``, or
        exactly; REFUTED: unreachable, with the exact reason; UNDECIDED: e.g. max_norm).
    schedule : list of Phase (empty unless a schedule was constructed).
    predicted_end : (mean, cov) the construction predicts (exact Fractions when ``exact``).
    numerical_error : float | None — ‖(α(T), Σ(T)) − target‖ (Euclid/Frobenius, combined)
        from the high-precision reference integrator, phase by phase.
    certified_bound : dict | None — rigorous bounds {"cov": ..., "mean": ...} (None entries
        with ``certified_reason`` when not certified).
    exact : bool — every schedule entry is the exact construction (no rounding).
    strategy : str — "attention", "feedforward", "attention-only", "rank-deficient",
        "feedforward-rank", "attention-rank", "zero-covariance", "optimised", or the
        obstruction ("rank-obstruction", "attention-obstruction", "norm-obstruction").
    optimisation : dict | None — for strategy "optimised": phases, parameters, evaluations,
        seed, timing and the residual (reference integration); numerical evidence only.
    """

    verdict: Verdict
    schedule: list = field(default_factory=list)
    predicted_end: tuple | None = None
    numerical_error: float | None = None
    certified_bound: dict | None = None
    certified_reason: str = ""
    exact: bool = True
    strategy: str = ""
    notes: list = field(default_factory=list)
    optimisation: dict | None = None

    def to_dict(self) -> dict:
        """The result as JSON-ready data."""
        pe = None
        if self.predicted_end is not None:
            m, c = self.predicted_end
            pe = {"mean": [frac_str(e) for e in m], "cov": matrix_strings(c)}
        return {"verdict": self.verdict.to_dict(),
                "schedule": [p.to_dict() for p in self.schedule],
                "predicted_end": pe, "numerical_error": self.numerical_error,
                "certified_bound": self.certified_bound,
                "certified_reason": self.certified_reason, "exact": self.exact,
                "strategy": self.strategy, "notes": list(self.notes),
                "optimisation": self.optimisation}


@dataclass
class BuiltSchedule:
    """A constructed schedule before verification: predicted end, exactness and certificate."""

    schedule: list
    pred: tuple
    strategy: str
    exact: bool
    cert: dict | None
    cert_reason: str = ""
    notes: list = field(default_factory=list)


def bias_phase(a_from, a_to, dur: Fraction, d: int, role: str) -> Phase:
    """The bias phase F = V = A = 0, b = (a_to − a_from)/dur: Σ̇ = 0 and α moves linearly."""
    b = tuple((y - x) / dur for x, y in zip(a_from, a_to))
    return Phase(dur, zero_matrix(d), b, zero_matrix(d), zero_matrix(d), role)


def simulate_schedule(schedule, mean0, cov0, dps: int = 30):
    """Integrate a schedule phase by phase with the reference integrator (softmax with drift).

    Each phase starts from the previous end point rounded exactly to rationals
    (:func:`symbolic_tf.exact.sympy_bridge.mpf_fraction`, Σ symmetrised).
    """
    with mpmath.workdps(DPS):
        return _simulate(schedule, mean0, cov0, dps)


def _simulate(schedule, mean0, cov0, dps):
    from ..numeric.reference import reference_solve
    from ..symbolic.moments import problem_env
    from ..symbolic.systems import system_for

    system = system_for("softmax", drift=True, scale=None)
    d = len(cov0)
    mean = tuple(mean0)
    cov = tuple(tuple(r) for r in cov0)
    a_end = mp_vector(mean)
    s_end = mp_matrix(cov)
    for ph in schedule:
        p = Problem(variant="softmax", d=d, A=ph.A, V=ph.V, F=ph.F, b=ph.b,
                    T=ph.duration, mean=mean, cov=cov)
        sol = reference_solve(system, problem_env(p, system), d, ph.duration, dps=dps,
                              times=[ph.duration], k=d)
        if sol.blowup:
            raise RuntimeError(f"reference integration blew up in phase {ph.role}: {sol.reason}")
        a_end, s_end = sol.alpha_end, sol.Sigma_end
        mean = tuple(mpf_fraction(mpmath.mpf(a_end[i])) for i in range(d))
        cov = tuple(tuple(mpf_fraction(mpmath.mpf((s_end[i, j] + s_end[j, i]) / 2)) for j in range(d))
                    for i in range(d))
    return a_end, s_end
