r"""Real attention heads read as mean-field parameters, and the mean-field map of a real layer.

Head h of a layer has W_{Q,h}, W_{K,h}, W_{V,h} ∈ ℝ^{d_h×d} (rows h·d_h … of W_Q, W_K, W_V),
biases b_{Q,h}, b_{K,h}, b_{V,h} ∈ ℝ^{d_h}, and W_{O,h} ∈ ℝ^{d×d_h} (the matching columns
of the output projection).  Its logit for query x_i and key x_j is

.. math::

    \ell_{ij} = \frac{(W_{Q,h}x_i + b_{Q,h})\cdot(W_{K,h}x_j + b_{K,h})}{\sqrt{d_h}}
              = x_j^T A_h x_i + u_h^T x_j + r_h(x_i),

    A_h = \frac{W_{K,h}^T W_{Q,h}}{\sqrt{d_h}},\qquad
    u_h = \frac{W_{K,h}^T b_{Q,h}}{\sqrt{d_h}},\qquad
    r_h(x) = \frac{b_{K,h}\cdot(W_{Q,h}x + b_{Q,h})}{\sqrt{d_h}},

which is docs/mathematics.md §1's convention ⟨Qx, Ky⟩ = yᵀAx with Q = W_{Q,h}/d_h^{1/4},
K = W_{K,h}/d_h^{1/4} (query x, key y; the softmax variant's kernel e^{yᵀAx}).  The query-only
term r_h(x_i) cancels in the row softmax; the key bias therefore acts only through the
query-side constant, and the **query bias tilts the key law** by e^{u_hᵀy}.  The head's output
(after W_O) is

.. math::

    \text{head}_h(x_i) = \sum_j P_{ij}(C_h x_j + W_{O,h}b_{V,h}),\qquad C_h = W_{O,h}W_{V,h}

(P rows sum to 1, so the value bias is a constant shift), and the layer's attention branch is
attn(x) = Σ_h head_h(x) + b_O.

Mean-field limit on a Gaussian μ = N(α, Σ).  The tilting lemma (docs/mathematics.md §3) turns the key law
e^{yᵀ(A_h x + u_h)}μ(dy)/Z into N(α + Σ(A_h x + u_h), Σ), so the branch is affine,

.. math::

    \operatorname{attn}(x) = Jx + c,\quad J = \sum_h C_h \Sigma A_h,\quad
    c = \sum_h C_h(\alpha + \Sigma u_h) + W_O b_V + b_O .

J and the bias-free part Σ_h C_hα of c are taken from the toolkit's own derivation of the
multi-head closure (:func:`symbolic_tf.symbolic.moments.derive` ``("multihead", heads=H)``,
compiled by :mod:`symbolic_tf.numeric.codegen`, with W_h := W_{O,h}, V_h := W_{V,h}); the
bias terms Σ_h C_hΣu_h + W_O b_V + b_O are added here (the closure has no biases).  The
moment ODE α̇ = Jα + c, Σ̇ = JΣ + ΣJᵀ gives two one-step predictions of Y = x + ε·attn(x):

* ``euler`` — one explicit Euler step of size ε: α + ε(Jα + c), Σ + ε(JΣ + ΣJᵀ);
* ``pushforward`` — the exact image of N(α, Σ) under the affine map x ↦ (I + εJ)x + εc:
  α + ε(Jα + c), (I + εJ)Σ(I + εJ)ᵀ = euler + ε²JΣJᵀ.

A real layer is the pushforward only in the mean-field limit (infinitely many keys per
sequence); it differs from the ODE's Euler step by the discretisation term ε²JΣJᵀ.

Finite sequences.  A token attends to the n keys of *its own* sequence, whose empirical law
μ_s has moments (α_s, Σ_s).  :func:`sequence_closure` evaluates the same affine map with
(α_s, Σ_s) for every sequence s.  For an empirical measure this is exactly the first-order
expansion of the softmax around uniform weights: with ℓ_{ij} − ℓ̄_i = (x_j − α_s)ᵀ(A_hx_i + u_h),

.. math::

    \sum_j \tfrac1n\big(1 + ℓ_{ij} - \bar ℓ_i\big)x_j = α_s + Σ_s(A_hx_i + u_h),

so it is computed as (1/n) Σ_j (q_i·k̃_j/√d_h) ṽ_j with centred keys/values
k̃_j = W_K(x_j − α_s), ṽ_j = W_V(x_j − α_s) (cost O(n²d) per sequence, no d×d matrices).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..spec.errors import InvalidParameters

__all__ = ["HeadParams", "head_params", "layer_heads", "head_logits", "head_output", "closure_system",
           "attention_affine", "moment_step", "sequence_closure"]


@dataclass(frozen=True)
class HeadParams:
    """One head as mean-field data (float64 arrays holding the float32 weights exactly)."""

    layer: int
    head: int
    Wq: np.ndarray
    Wk: np.ndarray
    Wv: np.ndarray
    Wo: np.ndarray
    bq: np.ndarray
    bk: np.ndarray
    bv: np.ndarray

    @property
    def head_dim(self) -> int:
        """The head dimension d_h (rows of W_Q)."""
        return self.Wq.shape[0]

    @property
    def scale(self) -> float:
        """1/√d_h."""
        return 1.0 / np.sqrt(self.head_dim)

    @property
    def A(self) -> np.ndarray:
        """A_h = W_Kᵀ W_Q / √d_h (d×d, rank ≤ d_h)."""
        return self.scale * (self.Wk.T @ self.Wq)

    @property
    def C(self) -> np.ndarray:
        """C_h = W_O W_V (d×d, rank ≤ d_h): the value–output map."""
        return self.Wo @ self.Wv

    @property
    def u(self) -> np.ndarray:
        """u_h = W_Kᵀ b_Q / √d_h: the key tilt e^{u_hᵀy} created by the query bias."""
        return self.scale * (self.Wk.T @ self.bq)

    @property
    def value_shift(self) -> np.ndarray:
        """W_O b_V: the constant the value bias adds to the head's output."""
        return self.Wo @ self.bv

    def query_term(self, X: np.ndarray) -> np.ndarray:
        """r_h(x) = b_K·(W_Q x + b_Q)/√d_h for rows x of X (cancels in the softmax)."""
        return self.scale * ((X @ self.Wq.T + self.bq) @ self.bk)


def head_params(model, layer: int, head: int) -> HeadParams:
    """Extract head ``head`` of layer ``layer`` (0-based) as :class:`HeadParams`."""
    cfg = model.config
    if not 0 <= layer < cfg.num_layers:
        raise InvalidParameters("layer", f"expected 0..{cfg.num_layers - 1}, got {layer}")
    if not 0 <= head < cfg.num_heads:
        raise InvalidParameters("head", f"expected 0..{cfg.num_heads - 1}, got {head}")
    lw = model.layers[layer]
    sl = slice(head * cfg.head_dim, (head + 1) * cfg.head_dim)
    f = lambda a: np.asarray(a, dtype=np.float64)  # noqa: E731  (float32 → float64 is exact)
    return HeadParams(layer, head, f(lw.Wq[sl]), f(lw.Wk[sl]), f(lw.Wv[sl]), f(lw.Wo[:, sl]),
                      f(lw.bq[sl]), f(lw.bk[sl]), f(lw.bv[sl]))


def layer_heads(model, layer: int) -> list[HeadParams]:
    """All heads of one layer."""
    return [head_params(model, layer, h) for h in range(model.config.num_heads)]


def head_logits(hp: HeadParams, Xq: np.ndarray, Xk: np.ndarray) -> np.ndarray:
    r"""ℓ_{ij} = x_jᵀA_hx_i + u_hᵀx_j + r_h(x_i) for queries Xq (n×d), keys Xk (m×d) → (n, m)."""
    return Xq @ hp.A.T @ Xk.T + (Xk @ hp.u)[None, :] + hp.query_term(Xq)[:, None]


def head_output(hp: HeadParams, Xq: np.ndarray, Xk: np.ndarray) -> np.ndarray:
    r"""head_h(x_i) = Σ_j softmax_j(ℓ_{ij}) C_h x_j + W_O b_V for queries Xq and keys Xk → (n, d)."""
    L = head_logits(hp, Xq, Xk)
    L = L - L.max(axis=1, keepdims=True)
    P = np.exp(L)
    P /= P.sum(axis=1, keepdims=True)
    return (P @ Xk) @ hp.C.T + hp.value_shift


def closure_system(num_heads: int):
    """The toolkit's multi-head softmax moment system, derived symbolically and compiled."""
    from ..numeric.codegen import compile_system
    from ..symbolic.systems import system_for

    return compile_system(system_for("multihead", heads=num_heads))


def attention_affine(model, layer: int, mean, cov) -> tuple[np.ndarray, np.ndarray]:
    r"""The mean-field attention branch on N(mean, cov) as x ↦ Jx + c (module docstring)."""
    heads = layer_heads(model, layer)
    a = np.asarray(mean, dtype=np.float64)
    S = np.asarray(cov, dtype=np.float64)
    d = model.config.hidden_size
    if a.shape != (d,) or S.shape != (d, d):
        raise InvalidParameters("mean/cov", f"expected shapes ({d},) and ({d}, {d}), got {a.shape} and {S.shape}")
    system = closure_system(len(heads))
    params = {}
    for i, hp in enumerate(heads, start=1):
        params[f"A_{i}"], params[f"V_{i}"], params[f"W_{i}"] = hp.A, hp.Wv, hp.Wo
    J, c = system.J_c(a, S, params)
    lw = model.layers[layer]
    bias = sum(hp.Wo @ (hp.Wv @ (S @ hp.u)) for hp in heads)
    bias = bias + np.asarray(lw.Wo, np.float64) @ np.asarray(lw.bv, np.float64) + np.asarray(lw.bo, np.float64)
    return J[0], c[0] + bias


def moment_step(model, layer: int, mean, cov, *, eps: float = 1.0) -> dict:
    r"""One-step predictions of the moments of Y = x + ε·attn(x), x ~ N(mean, cov)."""
    a = np.asarray(mean, dtype=np.float64)
    S = np.asarray(cov, dtype=np.float64)
    J, c = attention_affine(model, layer, a, S)
    JS = J @ S
    a1 = a + eps * (J @ a + c)
    S_euler = S + eps * (JS + JS.T)
    S_push = S_euler + eps * eps * (JS @ J.T)
    return {"euler": (a1, 0.5 * (S_euler + S_euler.T)), "pushforward": (a1, 0.5 * (S_push + S_push.T))}


def sequence_closure(model, layer: int, H, *, eps: float = 1.0) -> np.ndarray:
    r"""Mean-field prediction of Y = x + ε·attn(x) with each sequence's own key law.

    For every sequence s (a row block of H) and token i:

    .. math::

        \hat Y_i = x_i + ε\Big(\sum_h W_{O,h}\big[W_{V,h}(α_s + Σ_s(A_hx_i + u_h)) + b_{V,h}\big]
                  + b_O\Big),

    α_s, Σ_s the empirical mean and population covariance of the sequence (module docstring).
    """
    X = np.asarray(H, dtype=np.float64)
    cfg = model.config
    if X.ndim != 3 or X.shape[-1] != cfg.hidden_size:
        raise InvalidParameters("H", f"expected shape (B, n, {cfg.hidden_size}), got {X.shape}")
    lw = model.layers[layer].cast(np.float64)
    B, n, d = X.shape
    nh, dh = cfg.num_heads, cfg.head_dim
    split = lambda Z: np.ascontiguousarray(Z.reshape(B, n, nh, dh).transpose(0, 2, 1, 3))  # noqa: E731
    a = X.mean(axis=1, keepdims=True)
    Xc = X - a
    q = split((X @ lw.Wq.T + lw.bq) / np.sqrt(dh))
    k = split(Xc @ lw.Wk.T)
    v = split(Xc @ lw.Wv.T)
    vbar = split(np.broadcast_to(a @ lw.Wv.T + lw.bv, (B, n, d)))
    ctx = vbar + (q @ k.transpose(0, 1, 3, 2)) @ v / n
    attn = ctx.transpose(0, 2, 1, 3).reshape(B, n, d) @ lw.Wo.T + lw.bo
    return X + eps * attn
