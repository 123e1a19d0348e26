r"""Whole attention layers as one multi-head Gaussian flow, certified where the toolkit reaches,
beside what the real layer does to Gaussian tokens.

The flow of a layer
-------------------
Head h of a layer has A_h = W_{K,h}ᵀW_{Q,h}/√d_h and the value–output map C_h = W_{O,h}W_{V,h}
(:mod:`symbolic_tf.models._heads`).  Its attention branch is the sum of its heads, so on a
Gaussian N(α, Σ) the covariance follows the multi-head closure (docs/mathematics.md §3)

.. math::

    \dot\Sigma = \sum_h \big(C_h\Sigma A_h\Sigma + \Sigma A_h^T\Sigma C_h^T\big),

the biases only moving the mean (the query bias tilts the key law, the value and output
biases shift it).  :func:`covariance_rhs` evaluates it through the factors
(ΣW_Kᵀ)(W_QΣ) (three d×d products per evaluation, every head at once).

The subspace the heads act on (exact reduction)
-----------------------------------------------
Let S ⊂ ℝ^d contain every range(C_h) and let Σ₀ be supported on S (range Σ₀ ⊆ S).  Every
term of Σ̇ has its range in range(C_h) + range(Σ) ⊆ S, so range Σ(t) ⊆ S for all t: the flow
stays on the set {Σ = BXBᵀ} for a basis B (d×r, any full column rank, not necessarily
orthonormal).  Writing C_hB = BC̃_h (C̃_h exists because range C_h ⊆ range B),

.. math::

    C_h (BXB^T) A_h (BXB^T) = B\,\big(\tilde C_h X \tilde A_h X\big)\,B^T,\qquad
    \tilde A_h = B^TA_hB,

so X follows the same multi-head flow in dimension r with (Ã_h, C̃_h): the reduction is exact,
not an approximation.  The scale 1/√d_h (irrational for d_h = 32) is carried by time-free
rescaling: X ↦ X' = X/√d_h turns (A_h, X) into (√d_h A_h, X'), so the exact problem handed to
the classifier uses the integer-valued Ã'_h = (W_{K,h}B)ᵀ(W_{Q,h}B) and the initial X'₀; the
real layer's initial covariance is Σ₀ = √d_h·BX'₀Bᵀ and T* is the same.

In a trained layer W_O is invertible and the heads' value maps together reach every direction:
S = ℝ^d (for all-MiniLM-L6-v2, r = 384 in every layer) and the reduction is the identity.  The
certification routes (uniform LMI certificates on svec(Σ), dimension r(r+1)/2 = 73 920 at
r = 384; validated tubes, d ≤ 6) are then out of reach and the verdict is UNDECIDED with that
reason and the numerical evidence below.  When the heads act on a small subspace (a pruned or
modified layer, :mod:`symbolic_tf.models.modified`), the reduced problem is built exactly
(dyadic weights, rank conditions decided in integer arithmetic) and classified by
:func:`symbolic_tf.classify`; its certificate is re-checked by ``symtf check``.

What the real layer does
------------------------
N Gaussian tokens N(m, S₀) in sequences of n tokens go through the layer's attention sub-block
alone (LayerNorm and MLP off), Y = X + ε·attn(X), repeated K times with the same layer (a
weight-tied stack, the Euler scheme of the attention dynamics at depth t = kε), and their
pooled covariance is compared with the float integration (RK4) of the flow above started from
the tokens' own covariance Σ̂₀: relative Frobenius error ‖Σ_tokens(t) − Σ_flow(t)‖/‖Σ_flow(t) − Σ̂₀‖
per depth (numerical evidence).  Each token attends to the n keys of its own sequence, so the
comparison also sees finite-n effects.  The largest one is the sequence's own mean x̄_s: with
attention near uniform, y_i ≈ x_i + εC x̄_s (C = Σ_h C_h), so the pooled covariance moves with
the empirical scatter of the few sequence means — a sampling term of order |C||Σ|/n that
vanishes in the mean-field limit but, for small tokens (MiniLM's word-embedding law has
tr Σ ≈ 1.2 over 384 dimensions, so the mean-field term CΣAΣ is second order in Σ), is ten times
the mean-field change at n = 512.  By default (``centre=True``) the tokens are therefore drawn as
m + Lz with every sequence's z centred (x̄_s = m exactly, which removes that term) and the
pooled z whitened, so that the tokens' covariance at t = 0 is Σ₀ itself (a certified T* about
Σ₀ then speaks about these tokens); the remaining error is the flow's (measured on MiniLM
layer 0: about 7 %, at ε = 0.1 and ε = 1 alike).

With ``drift=True`` the feed-forward branch is added under an assumption, stated as such: it
acts as its tangent at 0, MLP(x) ≈ ½W₂(W₁x + b₁) + b₂ (g'(0) = ½), i.e. the drift Fx + b of
docs/mathematics.md §6 with F = ½W₂W₁.  The real block then runs with that affine MLP (scaled
by ε like the attention) and the flow gets FΣ + ΣFᵀ.  The verdict is still the attention
flow's: a drift keeps the reduction exact only when S is F-invariant, which a trained layer's
F does not respect.  For a causal, windowed or rotary architecture the mean-field closure is not exact
(keys depend on the position) and the comparison says how far it is.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..exact.rational import fraction_of
from ..spec.errors import InvalidParameters
from ..spec.verdict import PROVED, UNDECIDED

__all__ = ["LayerFlow", "affine_drift", "layer_flow", "covariance_rhs", "integrate_covariance", "head_subspace",
           "reduced_problem", "layer_verdict", "measured_depth", "LayersReport", "layers_report"]

#: Largest reduced dimension handed to the classifier (its routes: LMI on svec, tubes d ≤ 6).
MAX_CERTIFY_DIM = 6


@dataclass(frozen=True)
class LayerFlow:
    """The float64 weights of one layer's attention (float32 values held exactly)."""

    layer: int
    Wq: np.ndarray
    Wk: np.ndarray
    Wv: np.ndarray
    Wo: np.ndarray
    num_heads: int

    @property
    def d(self) -> int:
        """The model dimension."""
        return self.Wq.shape[1]

    @property
    def head_dim(self) -> int:
        """d_h."""
        return self.Wq.shape[0] // self.num_heads

    def heads(self):
        """(A_h, C_h) of every head.

        Returns
        -------
        list of tuple of numpy.ndarray
            float64 d×d pairs, A_h = W_{K,h}ᵀW_{Q,h}/√d_h and C_h = W_{O,h}W_{V,h}.
        """
        dh, out = self.head_dim, []
        for h in range(self.num_heads):
            sl = slice(h * dh, (h + 1) * dh)
            out.append((self.Wk[sl].T @ self.Wq[sl] / np.sqrt(dh), self.Wo[:, sl] @ self.Wv[sl]))
        return out


def affine_drift(model, layer: int) -> np.ndarray:
    r"""F = ½W₂W₁: the linear part of the feed-forward branch replaced by its tangent at 0.

    g'(0) = ½ for both GELUs, so MLP(x) ≈ ½W₂(W₁x + b₁) + b₂ (an affine map, docs/mathematics.md §6's
    drift Fx + b); a gated block's tangent at 0 is zero (F = 0).

    Parameters
    ----------
    model : Encoder
        The model.
    layer : int
        0-based layer.

    Returns
    -------
    numpy.ndarray, shape (d, d)
        F in float64.
    """
    lw = model.layers[int(layer)]
    d = model.config.hidden_size
    if model.config.gated:
        return np.zeros((d, d))
    return 0.5 * np.asarray(lw.W2, np.float64) @ np.asarray(lw.W1, np.float64)


def layer_flow(model, layer: int) -> LayerFlow:
    """The attention weights of ``layer`` as a :class:`LayerFlow`.

    Parameters
    ----------
    model : Encoder
        A loaded model.
    layer : int
        0-based layer index.

    Returns
    -------
    LayerFlow
        W_Q, W_K, W_V, W_O in float64 (exact copies of the float32 weights).
    """
    L = model.config.num_layers
    if not 0 <= int(layer) < L:
        raise InvalidParameters("layers", f"layer indices must lie in 0..{L - 1}, got {layer}")
    lw = model.layers[int(layer)]
    f = lambda a: np.asarray(a, dtype=np.float64)  # noqa: E731
    return LayerFlow(int(layer), f(lw.Wq), f(lw.Wk), f(lw.Wv), f(lw.Wo), model.config.num_heads)


def covariance_rhs(flow: LayerFlow, S: np.ndarray) -> np.ndarray:
    r"""Σ̇ = Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) of the layer's multi-head flow.

    Computed as M = Σ_h W_{O,h}W_{V,h}(ΣW_{K,h}ᵀ)(W_{Q,h}Σ)/√d_h, Σ̇ = M + Mᵀ.

    Parameters
    ----------
    flow : LayerFlow
        The layer.
    S : numpy.ndarray, shape (d, d)
        The covariance Σ.

    Returns
    -------
    numpy.ndarray, shape (d, d)
        Σ̇ (symmetric).
    """
    nh, dh = flow.num_heads, flow.head_dim
    KS = flow.Wk @ S                        # rows W_{K,h}Σ
    QS = flow.Wq @ S
    # per head: W_{V,h}(ΣW_{K,h}ᵀ) is dh×dh, then times W_{Q,h}Σ (dh×d)
    G = np.einsum("hid,hjd->hij", flow.Wv.reshape(nh, dh, -1), KS.reshape(nh, dh, -1))
    inner = np.einsum("hij,hjd->hid", G, QS.reshape(nh, dh, -1)).reshape(nh * dh, -1)
    M = flow.Wo @ inner / np.sqrt(dh)
    return M + M.T


def integrate_covariance(flow: LayerFlow, S0, T: float, steps: int, *, F=None) -> np.ndarray:
    r"""RK4 integration of :func:`covariance_rhs` on [0, T] in ``steps`` equal steps.

    Parameters
    ----------
    flow : LayerFlow
        The layer.
    S0 : array_like, shape (d, d)
        Σ₀.
    T : float
        Horizon (depth).
    steps : int
        Number of steps.
    F : array_like, shape (d, d), optional
        A drift: FΣ + ΣFᵀ is added (:func:`affine_drift`).

    Returns
    -------
    numpy.ndarray, shape (steps + 1, d, d)
        Σ at t_k = kT/steps (non-finite entries once the float solution overflows).
    """
    S = np.array(S0, dtype=np.float64)
    rhs = covariance_rhs
    if F is not None:
        Fm = np.asarray(F, dtype=np.float64)

        def rhs(fl, X):
            FX = Fm @ X
            return covariance_rhs(fl, X) + FX + FX.T
    h = float(T) / steps
    out = [S.copy()]
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(steps):
            k1 = rhs(flow, S)
            k2 = rhs(flow, S + 0.5 * h * k1)
            k3 = rhs(flow, S + 0.5 * h * k2)
            k4 = rhs(flow, S + h * k3)
            S = S + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
            S = 0.5 * (S + S.T)
            out.append(S.copy())
    return np.array(out)


def head_subspace(flow: LayerFlow, rtol: float = 1e-9) -> tuple[int, np.ndarray]:
    r"""The numerical dimension r of S = Σ_h range(C_h) and an orthonormal basis of it (float).

    Parameters
    ----------
    flow : LayerFlow
        The layer.
    rtol : float
        Singular values below rtol·σ_max count as zero.

    Returns
    -------
    tuple of (int, numpy.ndarray)
        r and a d×r orthonormal basis (numerical evidence; the exact reduction re-decides it).
    """
    M = np.concatenate([C for _, C in flow.heads()], axis=1)
    U, s, _ = np.linalg.svd(M, full_matrices=False)
    if s.size == 0 or s[0] == 0:
        return 0, U[:, :0]
    r = int(np.sum(s > rtol * s[0]))
    return r, U[:, :r]


def _fmpz(X):
    import flint

    from .verdicts import dyadic

    rows, s = dyadic(X)
    return flint.fmpz_mat(rows), s


def _qmat(M) -> list:
    return [[fraction_of(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())]


def reduced_problem(flow: LayerFlow, basis=None, *, cov0=None):
    r"""The exact multi-head problem of the layer on S = Σ_h range(C_h) (module docstring).

    Parameters
    ----------
    flow : LayerFlow
        The layer.
    basis : array_like, shape (d, r), optional
        A basis B of S with float32-representable entries (default: r independent columns of
        the exact matrices C_h, chosen by pivoted QR).
    cov0 : array_like, shape (r, r), optional
        X'₀ in B-coordinates (rational or float, read exactly; default I_r).

    Returns
    -------
    tuple
        (Problem, info) with info = {"r", "basis" (float), "sigma0_scale": √d_h, "how"}; the
        problem's covariance flow is the layer's on {BXBᵀ} with X = X'·√d_h.

    Raises
    ------
    InvalidParameters
        When B is not of full column rank or some range(C_h) is not inside span B (decided
        exactly).
    """
    import flint

    from ..spec.problem import parse_problem

    nh, dh, d = flow.num_heads, flow.head_dim, flow.d
    Oz, sO = _fmpz(flow.Wo)
    Vz, sV = _fmpz(flow.Wv)
    Kz, sK = _fmpz(flow.Wk)
    Qz, sQ = _fmpz(flow.Wq)
    Cs = []  # exact C_h up to the positive factor 2^{-(sO+sV)}
    for h in range(nh):
        Oh = flint.fmpz_mat([[Oz[i, j] for j in range(h * dh, (h + 1) * dh)] for i in range(d)])
        Vh = flint.fmpz_mat([[Vz[i, j] for j in range(d)] for i in range(h * dh, (h + 1) * dh)])
        Cs.append(Oh * Vh)
    if basis is None:
        import scipy.linalg

        Cf = np.concatenate([C for _, C in flow.heads()], axis=1)
        r, _ = head_subspace(flow)
        _, _, piv = scipy.linalg.qr(Cf, pivoting=True, mode="economic")
        cols = sorted(int(p) for p in piv[:r])
        B = flint.fmpz_mat([[Cs[c // d][i, c % d] for c in cols] for i in range(d)])
        Bf = np.array([[float(Cf[i, c]) for c in cols] for i in range(d)])
        sB = sO + sV                     # B = B_int·2^{-sB}: the exact columns of the C_h
        how = f"columns {cols} of [C_1 … C_H] (exact)"
    else:
        Bf = np.asarray(basis, dtype=np.float64)
        if Bf.ndim != 2 or Bf.shape[0] != d:
            raise InvalidParameters("basis", f"expected shape ({d}, r), got {Bf.shape}")
        B, sB = _fmpz(Bf)
        how = "given basis (its float values read exactly)"
    r = B.ncols()
    if r == 0 or B.rank() != r:
        raise InvalidParameters("basis", "the basis must have full column rank")
    for h, C in enumerate(Cs):
        both = flint.fmpz_mat([[B[i, j] for j in range(r)] + [C[i, j] for j in range(d)] for i in range(d)])
        if both.rank() != r:
            raise InvalidParameters("basis", f"range(C_{h}) is not inside span B (exact rank test)")
    # C̃_h from r rows where B is invertible: C_h B = B C̃_h  ⇒  C̃_h = B[rows]⁻¹ (C_h B)[rows]
    import scipy.linalg

    _, _, prow = scipy.linalg.qr(Bf.T, pivoting=True, mode="economic")
    rows = sorted(int(p) for p in prow[:r])
    Brows = flint.fmpq_mat(flint.fmpz_mat([[B[i, j] for j in range(r)] for i in rows]))
    if Brows.rank() != r:
        raise InvalidParameters("basis", "no invertible r×r block of B found")
    Binv = Brows.inv()
    scaleC = flint.fmpq(1, 2 ** (sO + sV))
    scaleA = flint.fmpq(1, 2 ** (sK + sQ + 2 * sB))
    heads = []
    for h in range(nh):
        CB = Cs[h] * B
        Ct = Binv * flint.fmpq_mat(flint.fmpz_mat([[CB[i, j] for j in range(r)] for i in rows])) * scaleC
        Kh = flint.fmpz_mat([[Kz[i, j] for j in range(d)] for i in range(h * dh, (h + 1) * dh)]) * B
        Qh = flint.fmpz_mat([[Qz[i, j] for j in range(d)] for i in range(h * dh, (h + 1) * dh)]) * B
        At = flint.fmpq_mat(Kh.transpose() * Qh) * scaleA
        heads.append({"A": [[str(x) for x in row] for row in _qmat(At)],
                      "V": [[str(x) for x in row] for row in _qmat(Ct)]})
    if cov0 is None:
        X0 = [["1" if i == j else "0" for j in range(r)] for i in range(r)]
    else:
        c = np.asarray(cov0, dtype=object)
        X0 = [[str(Fraction(x) if not isinstance(x, str) else Fraction(x)) for x in row] for row in c]
    doc = {"variant": "multihead", "d": r, "heads": heads,
           "initial": {"mean": ["0"] * r, "cov": X0},
           "name": f"layer {flow.layer} on the {r}-dimensional span of its value maps"}
    return parse_problem(doc), {"r": r, "basis": Bf, "sigma0_scale": float(np.sqrt(dh)), "how": how}


def layer_verdict(flow: LayerFlow, *, max_dim: int = MAX_CERTIFY_DIM, basis=None, cov0=None,
                  uniform: bool = False) -> dict:
    r"""Certified regime of the layer's multi-head flow, or UNDECIDED with the reason.

    Parameters
    ----------
    flow : LayerFlow
        The layer.
    max_dim : int
        Largest reduced dimension r handed to the classifier.
    basis, cov0 : optional
        Passed to :func:`reduced_problem`.
    uniform : bool
        Ask the classifier for a claim over a class of Σ₀ (every Σ₀ ≻ 0 on S …).

    Returns
    -------
    dict
        status, regime, claim, reason, route, r, d, certificate (dict or None), problem (the
        reduced problem as a document, when built), sigma0_scale.
    """
    from ..spec.problem import problem_to_dict

    r, _ = head_subspace(flow) if basis is None else (np.asarray(basis).shape[1], None)
    d = flow.d
    out = {"layer": flow.layer, "d": d, "r": r, "status": UNDECIDED, "regime": "UNDECIDED", "claim": None,
           "route": None, "certificate": None, "problem": None, "sigma0_scale": float(np.sqrt(flow.head_dim))}
    if r > max_dim:
        out["reason"] = (f"the heads' value maps span r = {r} of d = {d} dimensions"
                         + (" (no reduction: S = ℝ^d)" if r == d else "")
                         + f"; the certification routes reach r ≤ {max_dim} here (uniform LMI certificates need "
                         f"svec dimension r(r+1)/2 = {r * (r + 1) // 2}; validated tubes d ≤ 6)")
        return out
    from ..regimes.classify import classify

    problem, info = reduced_problem(flow, basis, cov0=cov0)
    c = classify(problem, uniform=uniform)
    out.update({"status": c.status, "regime": str(c.regime), "route": c.route, "reason": c.reason,
                "claim": (c.claim_data.text() if c.claim_data is not None else None),
                "certificate": c.certificate, "problem": problem_to_dict(problem),
                "T_lo": (float(Fraction(c.T_lo)) if getattr(c, "T_lo", None) is not None else None),
                "T_hi": (float(Fraction(c.T_hi)) if getattr(c, "T_hi", None) is not None else None),
                "basis_how": info["how"]})
    return out


def _matched_tokens(mean, cov, samples: int, seq_len: int, seed: int, centre: bool) -> np.ndarray:
    """Gaussian tokens m + Lz (L = UΛ^{1/2} on the range of cov), every sequence centred (z̄_s = 0) and
    the pooled z whitened, so the tokens' pooled mean and covariance are exactly (m, cov)."""
    from .probe import gaussian_tokens

    m = np.asarray(mean, dtype=np.float64)
    S = np.asarray(cov, dtype=np.float64)
    d = m.shape[0]
    gaussian_tokens(m, S, 1, np.random.default_rng(0))          # the same checks of (mean, cov)
    lam, U = np.linalg.eigh(0.5 * (S + S.T))
    keep = lam > 1e-12 * max(lam.max(), 0.0)
    L = U[:, keep] * np.sqrt(lam[keep])
    r = L.shape[1]
    z = np.random.default_rng(seed).standard_normal((samples // seq_len, seq_len, r))
    if centre:
        z -= z.mean(axis=1, keepdims=True)
        zf = z.reshape(samples, r)
        if samples > r:
            w, Q = np.linalg.eigh(zf.T @ zf / samples)
            zf = zf @ (Q / np.sqrt(w)) @ Q.T
        z = zf.reshape(samples // seq_len, seq_len, r)
    return m + (z @ L.T).reshape(samples // seq_len, seq_len, d)


def measured_depth(model, layer: int, mean, cov, *, T: float = 1.0, steps: int = 10, samples: int = 4096,
                   seq_len: int = 512, seed: int = 0, rk_substeps: int = 4, centre: bool = True,
                   drift: bool = False) -> dict:
    r"""The attention sub-block repeated ``steps`` times at ε = T/steps on Gaussian tokens, against
    the flow integrated from the same Σ₀ (module docstring; numerical evidence).

    Parameters
    ----------
    model : Encoder
        The model.
    layer : int
        0-based layer index.
    mean, cov : array_like
        The Gaussian tokens' law N(mean, cov) (cov may be singular).
    T : float
        Depth.
    steps : int
        Euler steps of the real sub-block (ε = T/steps).
    samples, seq_len : int
        Tokens in total and per sequence.
    seed : int
        Seed of the tokens.
    rk_substeps : int
        RK4 steps of the flow per Euler step.
    centre : bool
        Centre every sequence on the law's mean and match the pooled covariance to ``cov``
        exactly at t = 0 (module docstring).
    drift : bool
        Assume the feed-forward acts as its tangent at 0: the real block runs with
        ``mlp="affine"`` (scaled by ε like the attention) and the flow gets the drift
        F = ½W₂W₁ (:func:`affine_drift`).

    Returns
    -------
    dict
        t; tr Σ of the flow (started from the tokens' own covariance Σ̂₀) and of the tokens;
        the relative changes ‖Σ(t) − Σ̂₀‖_F/‖Σ̂₀‖_F of both; the relative errors
        ‖Σ_tokens − Σ_flow‖_F/‖Σ_flow − Σ̂₀‖_F; the sampling error ‖Σ̂₀ − Σ₀‖_F/‖Σ₀‖_F; seconds.
    """
    from ._forward import encoder_layer

    t0 = time.perf_counter()
    d = model.config.hidden_size
    if samples % seq_len or seq_len < 2:
        raise InvalidParameters("samples", "samples must be a multiple of seq_len ≥ 2")
    flow = layer_flow(model, layer)
    X = _matched_tokens(mean, cov, samples, seq_len, seed, centre)
    lw = model.layers[layer].cast(np.float64)
    eps = float(T) / steps
    covs = []
    for k in range(steps + 1):
        covs.append(np.cov(X.reshape(samples, d).T, bias=True))
        if k < steps:
            X = encoder_layer(lw, X, config=model.config, layernorm=False, mlp="affine" if drift else "off",
                              attn_scale=eps, mlp_scale=eps).out
    covs = np.array(covs)
    # the flow starts from the tokens' own covariance: the comparison is about the dynamics,
    # not about the sampling error of Σ̂₀ (reported separately)
    F = affine_drift(model, layer) if drift else None
    traj = integrate_covariance(flow, covs[0], T, steps * rk_substeps, F=F)[::rk_substeps]
    S0 = np.asarray(cov, dtype=np.float64)
    n0 = float(np.linalg.norm(covs[0]))
    with np.errstate(over="ignore", invalid="ignore"):
        change_flow = np.linalg.norm(traj - traj[0], axis=(1, 2))
        change_tok = np.linalg.norm(covs - covs[0], axis=(1, 2))
        err = np.linalg.norm(covs - traj, axis=(1, 2)) / np.maximum(change_flow, n0 * 1e-12)
    return {"layer": layer, "T": float(T), "steps": steps, "drift": bool(drift), "t": [k * eps for k in range(steps + 1)],
            "trace_flow": [float(np.trace(S)) for S in traj], "trace_tokens": [float(np.trace(S)) for S in covs],
            "change_flow": [float(c / n0) for c in change_flow], "change_tokens": [float(c / n0) for c in change_tok],
            "rel_error": [float(e) for e in err],
            "sampling_noise": float(np.linalg.norm(covs[0] - S0) / np.linalg.norm(S0)),
            "seconds": time.perf_counter() - t0}


@dataclass
class LayersReport:
    """Per-layer verdicts and measurements (:func:`layers_report`)."""

    model: dict
    settings: dict
    rows: list
    figures: list = field(default_factory=list)

    def to_dict(self) -> dict:
        """The JSON face (certificates embedded: ``symtf check layers.json`` re-verifies them).

        Returns
        -------
        dict
            ``{"model", "settings", "layers", "figures", "notes"}``.
        """
        return {"model": self.model, "settings": self.settings, "layers": self.rows,
                "figures": [str(f) for f in self.figures],
                "notes": ["flow: Σ̇ = Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ), A_h = W_Kᵀ W_Q/√d_h, C_h = W_O,h W_V,h "
                          "(docs/mathematics.md §3); r = dim Σ_h range(C_h); a verdict is certified only on "
                          "the exact reduced problem (Σ₀ supported on that span)",
                          "measured: the attention sub-block alone (LayerNorm and MLP off) repeated at step "
                          "ε = T/steps on Gaussian tokens, against the flow's RK4 integration (numerical "
                          "evidence)"]}

    def table(self) -> str:
        """One line per layer: r, the verdict, the measured-vs-flow error at depth T, time, memory.

        Returns
        -------
        str
            The table.
        """
        s = self.settings
        lines = [f"{self.model.get('name', '')} ({self.model.get('model_type', '')}): every head of a layer "
                 f"as one multi-head Gaussian flow; depth T = {s['T']} in {s['steps']} steps, "
                 f"{s['samples']} tokens ({s['seq_len']} per sequence); |ΔΣ|/|Σ₀| at T of the flow and of "
                 "the tokens, their relative difference (numerical evidence)",
                 f"{'L':>2} {'r':>4} {'verdict':<26} {'|ΔΣ| flow':>10} {'tokens':>8} {'rel.err':>8} "
                 f"{'s':>6} {'MiB':>6}  reason / claim"]
        for row in self.rows:
            m = row["measured"]
            v = row["verdict"]
            verdict = f"{v['regime']} ({v['status']})" if v["status"] == PROVED else v["status"]
            lines.append(f"{row['layer']:>2} {v['r']:>4} {verdict:<26} {m['change_flow'][-1]:>10.3g} "
                         f"{m['change_tokens'][-1]:>8.3g} {m['rel_error'][-1]:>8.3g} {row['seconds']:>6.1f} "
                         f"{row['peak_mib']:>6.0f}  {v.get('claim') or v.get('reason', '')}")
        if self.figures:
            lines.append("figure: " + ", ".join(str(f) for f in self.figures))
        return "\n".join(lines)


def layers_report(model=None, *, layers=None, T: float = 1.0, steps: int = 10, samples: int = 4096,
                  seq_len: int = 512, seed: int = 0, mean=None, cov=None, max_dim: int = MAX_CERTIFY_DIM,
                  drift: bool = False, out_dir=None) -> LayersReport:
    r"""Every chosen layer: its multi-head flow's verdict and the real sub-block against the flow.

    Parameters
    ----------
    model : Encoder, optional
        Default: the shipped all-MiniLM-L6-v2.
    layers : iterable of int, optional
        0-based layers (default all).
    T, steps : float, int
        Depth and number of repeated sub-block steps (ε = T/steps).
    samples, seq_len, seed : int
        The Gaussian tokens.
    mean, cov : array_like, optional
        Their law (default: the architecture's, :func:`symbolic_tf.models.probe.default_input_moments`).
    max_dim : int
        Largest reduced dimension certified.
    drift : bool
        Compare with the feed-forward's affine part as a drift (an assumption: the MLP acts as
        its tangent at 0; :func:`measured_depth`).  The verdict stays the attention flow's.
    out_dir : path, optional
        Write ``layers.json`` (certificates embedded) and ``layers.png``.

    Returns
    -------
    LayersReport
        Per layer: verdict (:func:`layer_verdict`), measurement (:func:`measured_depth`), seconds
        and peak traced memory (MiB).
    """
    import tracemalloc

    from .loader import load_model
    from .probe import default_input_moments

    model = load_model() if model is None else model
    L = model.config.num_layers
    idx = list(range(L)) if layers is None else sorted({int(i) for i in layers})
    if not idx or idx[0] < 0 or idx[-1] >= L:
        raise InvalidParameters("layers", f"layer indices must lie in 0..{L - 1}")
    if T <= 0 or steps < 1:
        raise InvalidParameters("T", f"need T > 0 and steps ≥ 1, got T = {T}, steps = {steps}")
    if mean is None or cov is None:
        m0, S0 = default_input_moments(model)
        mean = m0 if mean is None else mean
        cov = S0 if cov is None else cov
    rows = []
    from ..display import progress

    for i in progress(idx, desc="layers", unit="layer"):
        tracemalloc.start()
        t0 = time.perf_counter()
        flow = layer_flow(model, i)
        verdict = layer_verdict(flow, max_dim=max_dim)
        meas = measured_depth(model, i, mean, cov, T=T, steps=steps, samples=samples, seq_len=seq_len, seed=seed,
                              drift=drift)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rows.append({"layer": i, "verdict": verdict, "measured": meas, "seconds": time.perf_counter() - t0,
                     "peak_mib": peak / 2**20})
    settings = {"T": T, "steps": steps, "samples": samples, "seq_len": seq_len, "seed": seed, "layers": idx,
                "max_dim": max_dim, "drift": drift}
    rep = LayersReport({**model.config.to_dict(), "path": str(model.path)}, settings, rows)
    if out_dir is not None:
        from pathlib import Path

        from ..atomic import write_json_atomic
        from ..display import tagged
        from ._figures import layers_figure

        out = Path(out_dir)
        rep.figures = layers_figure(rep, out / "layers")
        write_json_atomic(out / "layers.json", tagged("layers", rep.to_dict()))
    return rep
