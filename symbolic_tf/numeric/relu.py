r"""ReLU feed-forward tokens: the drift, its Gaussian linearisation and the short-time estimate.

Tokens move by ẋ = Γ_μ(x) + F x + b + g(x) with the ReLU term of the problem's ``[relu]``
table (:mod:`symbolic_tf.spec.relu`),

.. math::

    g(x) = W_2\,\mathrm{ReLU}(W_1 x + b_1).

g is not affine, so a Gaussian law does not stay Gaussian (docs/masked_relu.md §5).  This module
gives

* :func:`~symbolic_tf.numeric._feedforward.relu_drift` — g as a float hook for the token simulator;
* :func:`gaussian_linearisation` — the L²(N(α, Σ))-projection ℓ(x) = F_ℓ x + b_ℓ of g onto
  affine maps.  With z = W₁x + b₁ ~ N(m, C), m = W₁α + b₁, C = W₁ΣW₁ᵀ, a_i = m_i/√C_ii and
  D = diag(Φ(a_i)) (Stein's lemma: Cov(ReLU(z_i), x) = Φ(a_i)(W₁Σ)_i),

  .. math::

      F_ℓ = W_2 D W_1, \qquad b_ℓ = W_2\big(E\,\mathrm{ReLU}(z) - D(m - b_1)\big),
      \qquad E\,\mathrm{ReLU}(z_i) = m_i Φ(a_i) + \sqrt{C_{ii}}\, φ(a_i);

* :func:`residual_norm` — ‖M r‖_{L²(N(α,Σ))} of the non-affine residual r = g − ℓ, for a weight
  matrix M (I, or Σ^{-1/2} for whitened units):

  .. math::

      ‖M r‖^2 = \operatorname{tr}\big(M W_2 (\operatorname{Cov} \mathrm{ReLU}(z) - D C D) W_2^T M^T\big),

  the off-diagonal E[ReLU(z_i)ReLU(z_j)] by a one-dimensional quadrature of the closed-form
  conditional mean E[ReLU(z_j) | z_i];
* :func:`relu_departure` — the experiment: tokens with the ReLU term beside their *affine twin*
  (the same tokens with g replaced by ℓ, a Gaussian-preserving drift model), the probe's
  Gaussianity metrics against the noise floor, and the coupled departure
  ‖Σ₀^{-1/2}(x_i^{ReLU}(t) − x_i^{twin}(t))‖_{L²} beside the first-order estimate
  t·‖Σ₀^{-1/2} r‖, and the sliced W₂ of the whitened cloud beside the noise floor plus
  t·‖Σ₀^{-1/2} r‖/√d (sliced W₂ ≤ W₂/√d; all numerical evidence).

Short-time estimate (derived in docs/masked_relu.md §5): at first order in t,
W₂(μ_t, Ĝ_t) ≤ t‖r‖_{L²(μ₀)} + O(t²) for the moment-matched Gaussian Ĝ_t, and the coupled
departure equals t‖r‖_{L²(μ₀^N)} + O(t²).  ‖r‖ → 0 as the kinks {(W₁x + b₁)_i = 0} leave the
bulk of μ₀ (|a_i| → ∞): the ReLU is then affine (0 or the identity) on almost all the mass.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..spec.errors import InvalidParameters
from ._feedforward import relu_arrays, relu_drift

__all__ = ["ReLULinearisation", "gaussian_linearisation", "residual_norm", "affine_twin",
           "relu_departure", "ReLUDeparture"]


@dataclass(frozen=True)
class ReLULinearisation:
    """The affine L²(N(α, Σ)) projection F x + b of W₂ReLU(W₁x + b₁), with its ingredients."""

    F: np.ndarray
    b: np.ndarray
    m: np.ndarray        # mean of z = W₁x + b₁
    C: np.ndarray        # covariance of z
    phi: np.ndarray      # Φ(a_i) = P(z_i > 0), the diagonal of D
    mean_relu: np.ndarray  # E ReLU(z)


def _moments(mean, cov, d):
    mean = np.zeros(d) if mean is None else np.asarray([float(e) for e in mean], dtype=float)
    if cov is None:
        raise InvalidParameters("initial.cov", "needed for the Gaussian linearisation of the ReLU term")
    cov = np.asarray([[float(e) for e in row] for row in cov], dtype=float)
    return mean, cov


def gaussian_linearisation(relu, mean, cov) -> ReLULinearisation:
    """The L²(N(mean, cov))-best affine approximation ℓ(x) = Fx + b of W₂ReLU(W₁x + b₁) (module
    docstring).

    Parameters
    ----------
    relu : symbolic_tf.spec.relu.ReLUTerm
    mean : sequence or None
        The Gaussian's mean (0 when None).
    cov : sequence of sequences
        The Gaussian's covariance.

    Returns
    -------
    ReLULinearisation
    """
    from scipy.special import ndtr

    W1, b1, W2 = relu_arrays(relu)
    alpha, Sigma = _moments(mean, cov, W1.shape[1])
    m = W1 @ alpha + b1
    C = W1 @ Sigma @ W1.T
    sd = np.sqrt(np.clip(np.diag(C), 0.0, None))
    phi, mean_relu = np.empty_like(m), np.empty_like(m)
    for i in range(len(m)):
        if sd[i] > 0:
            a = m[i] / sd[i]
            phi[i] = ndtr(a)
            mean_relu[i] = m[i] * phi[i] + sd[i] * math.exp(-0.5 * a * a) / math.sqrt(2 * math.pi)
        else:  # z_i is the constant m_i: ReLU is affine (0 or identity) on the whole law
            phi[i] = 1.0 if m[i] > 0 else 0.0
            mean_relu[i] = max(m[i], 0.0)
    F = W2 @ (phi[:, None] * W1)
    b = W2 @ (mean_relu - phi * (m - b1))
    return ReLULinearisation(F, b, m, C, phi, mean_relu)


def _relu_second_moment(mi, mj, cii, cjj, cij) -> float:
    """E[ReLU(z_i) ReLU(z_j)] for (z_i, z_j) ~ N((m_i, m_j), [[c_ii, c_ij], [c_ij, c_jj]])."""
    from scipy.integrate import quad
    from scipy.special import ndtr

    if cii <= 0:
        return max(mi, 0.0) * (max(mj, 0.0) if cjj <= 0 else mj * ndtr(mj / math.sqrt(cjj))
                               + math.sqrt(cjj) * math.exp(-0.5 * mj * mj / cjj) / math.sqrt(2 * math.pi))
    si = math.sqrt(cii)
    beta = cij / cii
    tau = math.sqrt(max(cjj - cij * cij / cii, 0.0))

    def cond_relu_mean(zi):  # E[ReLU(z_j) | z_i]
        mu = mj + beta * (zi - mi)
        if tau == 0.0:
            return max(mu, 0.0)
        return mu * ndtr(mu / tau) + tau * math.exp(-0.5 * (mu / tau) ** 2) / math.sqrt(2 * math.pi)

    def integrand(u):  # u = (z_i − m_i)/s_i, standard normal
        zi = mi + si * u
        return zi * cond_relu_mean(zi) * math.exp(-0.5 * u * u) / math.sqrt(2 * math.pi)

    val, _ = quad(integrand, -mi / si, np.inf, epsabs=1e-14, epsrel=1e-12, limit=200)
    return float(val)


def residual_norm(relu, mean, cov, weight=None) -> float:
    r"""‖M (g − ℓ)‖_{L²(N(mean, cov))} of the non-affine residual of the ReLU term.

    Parameters
    ----------
    relu : ReLUTerm
    mean, cov : the Gaussian (exact or float entries)
    weight : array_like (d, d), optional
        M; default the identity.  ``Σ^{-1/2}`` gives the residual in whitened units.

    Returns
    -------
    float
        √tr(M W₂ (Cov ReLU(z) − D C D) W₂ᵀ Mᵀ), computed as in the module docstring.
    """
    lin = gaussian_linearisation(relu, mean, cov)
    _, _, W2 = relu_arrays(relu)
    m, C, phi, er = lin.m, lin.C, lin.phi, lin.mean_relu
    k = len(m)
    S = np.empty((k, k))
    for i in range(k):
        for j in range(i, k):
            e = _relu_second_moment(m[i], m[j], C[i, i], C[j, j], C[i, j])
            S[i, j] = S[j, i] = e - er[i] * er[j]
    K = S - phi[:, None] * C * phi[None, :]
    M = np.eye(W2.shape[0]) if weight is None else np.asarray(weight, dtype=float)
    B = M @ W2
    return float(math.sqrt(max(np.trace(B @ K @ B.T), 0.0)))


def _inv_sqrt(S: np.ndarray) -> np.ndarray:
    lam, U = np.linalg.eigh(0.5 * (S + S.T))
    if lam.min() <= 1e-12 * max(lam.max(), 1e-300):
        raise InvalidParameters("initial.cov", "whitened units need a nonsingular Σ₀")
    return (U / np.sqrt(lam)) @ U.T


def affine_twin(problem, lin: ReLULinearisation):
    """``problem`` with its ReLU term replaced by the affine drift ℓ (added to F, b).

    The float entries of ℓ enter exactly (a float is its dyadic rational): the twin is an
    affine-drift problem whose flow keeps Gaussians Gaussian (docs/mathematics.md §6).

    Parameters
    ----------
    problem : Problem
        With a ReLU term.
    lin : ReLULinearisation

    Returns
    -------
    Problem
    """
    from ..spec.problem import with_updates

    d = problem.d
    F0 = problem.F or tuple((Fraction(0),) * d for _ in range(d))
    b0 = problem.b or (Fraction(0),) * d
    F = tuple(tuple(F0[i][j] + Fraction(float(lin.F[i, j])) for j in range(d)) for i in range(d))
    b = tuple(b0[i] + Fraction(float(lin.b[i])) for i in range(d))
    return with_updates(problem, F=F, b=b, relu=None)


@dataclass
class ReLUDeparture:
    """Outcome of :func:`relu_departure` (numerical evidence; JSON face :meth:`to_dict`)."""

    settings: dict
    t: list
    coupled: list            # ‖Σ₀^{-1/2}(X_relu − X_twin)‖_{L²(μ^N)}
    estimate: list           # t·‖Σ₀^{-1/2} r‖_{L²(N(α,Σ₀))}
    residual: float          # ‖Σ₀^{-1/2} r‖
    residual_empirical: float  # the same norm on the sampled X0 (the exact slope of `coupled` at 0)
    metrics: list            # probe metrics of the ReLU cloud per saved time
    twin_metrics: list       # ... of the affine twin (a Gaussian-preserving control)
    floor: dict
    linearisation: dict
    sliced_estimate: list    # noise-floor mean + t‖Σ₀^{-1/2} r‖/√d: first-order upper estimate of the sliced W₂
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        """The report as JSON-ready data.

        Returns
        -------
        dict
        """
        return {"settings": self.settings, "t": self.t, "coupled_departure": self.coupled,
                "first_order_estimate": self.estimate, "residual_norm_whitened": self.residual,
                "residual_norm_whitened_sample": self.residual_empirical, "metrics": self.metrics,
                "twin_metrics": self.twin_metrics, "noise_floor": self.floor,
                "linearisation": self.linearisation, "sliced_w2_estimate": self.sliced_estimate,
                "notes": self.notes,
                "label": "numerical evidence"}


def relu_departure(problem, *, N: int = 2000, T=None, steps: int = 40, save_every: int = 4, seed: int = 0,
                   floor_repeats: int = 8, directions: int = 128) -> ReLUDeparture:
    """Run the ReLU tokens and their affine twin from the same sample; measure the departure.

    See the module docstring (numerical evidence).

    Parameters
    ----------
    problem : Problem
        With a ReLU term and an initial Gaussian.
    N : int
        Tokens.
    T : float, optional
        Depth; defaults to the problem's T, else 1.
    steps, save_every : int
        RK4 steps and the saving stride.
    seed, floor_repeats, directions : int
        Sampling seed, repeats of the Gaussian noise floor, slicing directions.

    Returns
    -------
    ReLUDeparture
    """
    from .departure import cloud_metrics, noise_floor
    from .particles import sample_initial, simulate

    if getattr(problem, "relu", None) is None:
        raise InvalidParameters("relu", "the problem has no [relu] table (W1, b1, W2)")
    if problem.cov is None:
        raise InvalidParameters("initial.cov", "needed to sample the initial tokens")
    T = float(problem.T) if T is None and problem.T is not None else (1.0 if T is None else float(T))
    X0, pos = sample_initial(problem, N, seed)
    lin = gaussian_linearisation(problem.relu, problem.mean, problem.cov)
    alpha, Sigma0 = _moments(problem.mean, problem.cov, problem.d)
    Wh = _inv_sqrt(Sigma0)
    twin = affine_twin(problem, lin)
    run = simulate(problem, X0, T, steps=steps, positions=pos, save_every=save_every)
    rtwin = simulate(twin, X0, T, steps=steps, positions=pos, save_every=save_every)
    n = min(len(run.t), len(rtwin.t))
    resid = residual_norm(problem.relu, problem.mean, problem.cov, weight=Wh)
    g = relu_drift(problem)
    R0 = (g(X0) - (X0 @ lin.F.T + lin.b)) @ Wh.T
    resid_emp = float(np.sqrt(np.mean(np.sum(R0 * R0, axis=1))))
    coupled, est, mets, tmets = [], [], [], []
    for k in range(n):
        D = (run.X[k] - rtwin.X[k]) @ Wh.T
        coupled.append(float(np.sqrt(np.mean(np.sum(D * D, axis=1)))))
        est.append(float(run.t[k]) * resid)
        mets.append(cloud_metrics(run.X[k], seed=seed + 1000 + k, directions=directions))
        tmets.append(cloud_metrics(rtwin.X[k], seed=seed + 1000 + k, directions=directions))
    rank = mets[0]["rank"]
    floor = noise_floor(N, rank, repeats=floor_repeats, seed=seed, directions=directions)
    # sliced W₂ ≤ W₂/√d (uniform directions) and the triangle inequality through the population laws
    sliced_est = [floor["sliced_w2"]["mean"] + e / math.sqrt(problem.d) for e in est]
    notes = []
    if run.nonfinite or rtwin.nonfinite:
        notes.append(f"a run left the float range at t = {min(run.t_final, rtwin.t_final):.4g} (blow-up)")
    settings = {"N": N, "T": T, "steps": steps, "save_every": save_every, "seed": seed,
                "floor_repeats": floor_repeats, "directions": directions, "method": run.method,
                "problem_hash": problem.content_hash()}
    linear = {"F": lin.F.tolist(), "b": lin.b.tolist(), "P(z > 0)": lin.phi.tolist(),
              "E ReLU(z)": lin.mean_relu.tolist()}
    return ReLUDeparture(settings, [float(x) for x in run.t[:n]], coupled, est, resid, resid_emp, mets, tmets,
                         floor, linear, sliced_est, notes)
