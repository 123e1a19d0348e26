"""The paper's conventions: scalings per variant, the Σ₀ grid, draws, step sizes and sizes.

Conventions (as in the paper's reference code, github.com/vcastin/2025-transformers-PDEs,
``utils.py`` / ``2d_plots.py`` / ``histograms.py``):

* softmax: A = KᵀQ/√d (passed as ``A``; temperature τ = 1);
* ℓ2: weight exp(−|Qx − Ky|²/√d), i.e. the library's ℓ2 system with τ = 1/√d (identical to
  passing Q/d^{1/4}, K/d^{1/4} with τ = 1).  The reference code instead uses
  J = 2VΣ(I + 2KᵀKΣ)⁻¹·KᵀQ/√d, which is the ℓ2 closure of exp(−|Qx/√d − Ky|²) (only Q scaled);
  ``l2_convention="reference"`` selects that one;
* multi-head with H heads: W = I split in H row blocks of size k = d // H, head h uses the
  rows of block h of Q, K, V: A_h = K_hᵀQ_h/√k, C_h = W_hV_h = P_hV with P_h the coordinate
  projector of block h (library parameters A_h, V_h = V, W_h = P_h; τ = 1); a block with no
  rows of Q gives an empty head (A_h = 0);
* Sinkhorn (ε = 1): A = KᵀQ, no scaling;
* initial covariances in d = 2: Σ₀ = [[a, c], [c, b]] of trace 1 with (u, w) = (a − b, 2c)
  on an n×n grid of the square [−h, h]², kept when u² + w² < 1 (then Σ₀ ≻ 0);
  a = (1 + u)/2, b = (1 − u)/2, c = w/2.

The per-variant choices of the experiments are tables keyed by variant (:data:`SCALINGS`,
:data:`BATCHED_SCALINGS`, :data:`DISPLAY_NAMES`, :func:`finite_time_blowup`,
:data:`BLOWUP_HORIZON_FACTOR`): the code that runs the experiments looks them up and never
asks which variant it holds.

Randomness: experiment ``i`` draws its matrices from ``numpy.random.default_rng([seed, i])``
(:func:`experiment_rng`).  :func:`reference_draws` redraws the reference code's own matrices
with numpy's legacy ``RandomState`` and the reference seeds (35, 36, 32, 33).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = [
    "PAPER", "EXPERIMENTS", "CONVENTIONS", "RTOL", "ATOL", "BLOWUP_NORM", "T_SCREEN", "QUICK", "FULL",
    "SCALINGS", "BATCHED_SCALINGS", "DISPLAY_NAMES", "finite_time_blowup", "BLOWUP_HORIZON_FACTOR",
    "RANK_DECAY_PREFIX", "attention_params", "batched_params", "trace_one_grid", "experiment_rng",
    "rng_text", "draw_until", "indefinite", "positive", "reference_draws",
]

PAPER = {
    "title": "A Unified Perspective on the Dynamics of Deep Transformers",
    "authors": "Valérie Castin, Pierre Ablin, José Antonio Carrillo, Gabriel Peyré",
    "arxiv": "2501.18322",
    "reference_code": "https://github.com/vcastin/2025-transformers-PDEs (utils.py, 2d_plots.py, histograms.py)",
}

EXPERIMENTS = ("zero", "line", "plane", "two_lines", "blowup", "mixed", "ranks")

#: the conventions as recorded in the JSON summary of a run
CONVENTIONS = {
    "softmax": "A = KᵀQ/√d, τ = 1",
    "l2": "weight exp(−|Qx − Ky|²/√d): τ = 1/√d (≡ Q/d^{1/4}, K/d^{1/4}); reference code: exp(−|Qx/√d − Ky|²)",
    "multihead": "W = I split in H row blocks of size k = d//H; A_h = K_hᵀQ_h/√k, C_h = P_hV",
    "sinkhorn": "A = KᵀQ (no scaling), ε = 1",
    "grid": "trace-one Σ₀ with (a − b, 2c) on an n×n grid, kept inside the unit disk",
}

# integrator tolerances and the norm bound that stops a growing member
RTOL, ATOL = 1e-10, 1e-12
BLOWUP_NORM = 1e8
#: horizon of the coarse screen that selects a draw (experiments 4 and 6)
T_SCREEN = 100.0

#: grid sizes of ``run(quick=True)`` and of the paper (``quick=False``)
QUICK = {
    "zero": {"n": 6},
    "line": {"n": 6},
    "plane": {"n": 6, "m3": 30},
    "two_lines": {"n": 10},
    "blowup": {"n": 14},
    "mixed": {"n": 12},
    "ranks": {"n_draws": 30, "max_steps": 2500},
}
FULL = {
    "zero": {"n": 10},
    "line": {"n": 10},
    "plane": {"n": 10, "m3": 100},
    "two_lines": {"n": 20},
    "blowup": {"n": 40},
    "mixed": {"n": 30},
    "ranks": {"n_draws": 100},
}

#: figure titles of the variants (multi-head is run with H = 2 throughout)
DISPLAY_NAMES = {"softmax": "softmax", "l2": "ℓ2", "sinkhorn": "Sinkhorn", "multihead": "multi-head (H = 2)"}

def finite_time_blowup(variant: str) -> bool:
    """Whether the Gaussian flow of a variant can blow up in finite time.

    A variant that declares an exponential growth bound (:attr:`Variant.growth_bound`: ℓ2 with
    K invertible, as in the paper's parameters, and Sinkhorn; docs/mathematics.md §4) cannot, so
    a stopped member there only means the norm bound was reached.

    Parameters
    ----------
    variant : str
        A registered variant name.

    Returns
    -------
    bool
        False when the variant declares a growth bound, True otherwise.
    """
    from ...variants import get

    return get(variant).growth_bound is None

#: experiment 5: horizon of each variant, as a multiple of max T*_softmax over the grid
#: (None: the growth horizon ``T_growth``)
BLOWUP_HORIZON_FACTOR = {"softmax": 1.2, "multihead": 3.0, "l2": None, "sinkhorn": None}

#: experiment 7: the runs whose eigenvalue decay is drawn (softmax, V = I: the exact limit is known)
RANK_DECAY_PREFIX = "softmax/V=I/"


# ----------------------------------------------------------------------------------------
# scalings of the attention parameters
# ----------------------------------------------------------------------------------------
def _softmax(Q, K, V, d, heads, l2_convention):
    return {"A": K.T @ Q / math.sqrt(d), "V": V, "tau": 1.0}


def _sinkhorn(Q, K, V, d, heads, l2_convention):
    return {"A": K.T @ Q, "V": V, "tau": 1.0}


def _l2(Q, K, V, d, heads, l2_convention):
    if l2_convention == "sqrt_d":
        return {"Q": Q, "K": K, "V": V, "tau": 1.0 / math.sqrt(d)}
    if l2_convention == "reference":
        return {"Q": Q / math.sqrt(d), "K": K, "V": V, "tau": 1.0}
    raise ValueError(f"unknown l2_convention {l2_convention!r}")


def _multihead(Q, K, V, d, heads, l2_convention):
    k = d // heads
    out = {"tau": 1.0}
    for h in range(heads):
        rows = slice(k * h, k * (h + 1))
        Qh, Kh = Q[rows], K[rows]
        A_h = Kh.T @ Qh / math.sqrt(k) if Qh.shape[0] else np.zeros((d, d))
        P = np.zeros((d, d))
        idx = np.arange(d)[rows]
        P[idx, idx] = 1.0
        out[f"A_{h + 1}"], out[f"V_{h + 1}"], out[f"W_{h + 1}"] = A_h, V, P
    return out


#: variant → builder(Q, K, V, d, heads, l2_convention) of the compiled system's float parameters
SCALINGS = {"softmax": _softmax, "sinkhorn": _sinkhorn, "l2": _l2, "multihead": _multihead}


def _softmax_batched(Qs, Ks, Vb, d, l2_convention):
    return {"A": np.swapaxes(Ks, 1, 2) @ Qs / math.sqrt(d), "V": Vb, "tau": 1.0}


def _l2_batched(Qs, Ks, Vb, d, l2_convention):
    if l2_convention == "reference":
        return {"Q": Qs / math.sqrt(d), "K": Ks, "V": Vb, "tau": 1.0}
    return {"Q": Qs, "K": Ks, "V": Vb, "tau": 1.0 / math.sqrt(d)}


#: variant → builder(Qs, Ks, Vb, d, l2_convention) of batched parameters (experiment 7)
BATCHED_SCALINGS = {"softmax": _softmax_batched, "l2": _l2_batched}


def attention_params(variant: str, Q, K, V, *, heads: int = 2, l2_convention: str = "sqrt_d") -> dict:
    """Float parameters of the compiled system for the paper's scalings (module docstring).

    Parameters
    ----------
    variant : str
        A key of :data:`SCALINGS`: "softmax" (A = KᵀQ/√d), "l2" (τ = 1/√d), "sinkhorn"
        (A = KᵀQ) or "multihead" (H = ``heads`` softmax heads, A_h = K_hᵀQ_h/√k, W_h = P_h).
    Q, K, V : array_like
        Query (k × d), key (k × d) and value (d × d) matrices.
    heads : int, optional
        Number of heads of "multihead".
    l2_convention : {"sqrt_d", "reference"}, optional
        The ℓ2 scaling: exp(−|Qx − Ky|²/√d), or the reference code's exp(−|Qx/√d − Ky|²).

    Returns
    -------
    dict
        Parameter name → float array (and ``tau``), as :func:`symbolic_tf.numeric.integrate.integrate`
        takes them.

    Raises
    ------
    ValueError
        For a variant without a scaling or an unknown ``l2_convention``.
    """
    Q, K, V = (np.atleast_2d(np.asarray(M, dtype=float)) for M in (Q, K, V))
    d = Q.shape[1]
    try:
        build = SCALINGS[variant]
    except KeyError:
        raise ValueError(f"unknown variant {variant!r}") from None
    return build(Q, K, V, d, heads, l2_convention)


def batched_params(variant: str, Qs, Ks, Vb, d: int, l2_convention: str) -> dict:
    """Batched float parameters (one (Q, K, V) per member) for the paper's scalings.

    Parameters
    ----------
    variant : str
        A key of :data:`BATCHED_SCALINGS` ("softmax": A = KᵀQ/√d; "l2": τ = 1/√d, or Q/√d
        with ``l2_convention="reference"``).
    Qs, Ks : numpy.ndarray, shape (B, k, d)
        Queries and keys per member.
    Vb : numpy.ndarray, shape (B, d, d)
        Values per member.
    d : int
        Dimension.
    l2_convention : str
        "reference" for the reference code's ℓ2 scaling, anything else for τ = 1/√d.

    Returns
    -------
    dict
        Parameter name → batched float array (and ``tau``).

    Raises
    ------
    ValueError
        For a variant without a batched scaling.
    """
    try:
        build = BATCHED_SCALINGS[variant]
    except KeyError:
        raise ValueError(variant) from None
    return build(Qs, Ks, Vb, d, l2_convention)


# ----------------------------------------------------------------------------------------
# initial covariances and draws
# ----------------------------------------------------------------------------------------
def trace_one_grid(n: int, half_width: float = 0.5):
    """Σ₀ = [[(1+u)/2, w/2], [w/2, (1−u)/2]] for (u, w) on an n×n grid of [−h, h]², u²+w² < 1.

    Parameters
    ----------
    n : int
        Grid points per axis.
    half_width : float, optional
        h, the half width of the square.

    Returns
    -------
    Sigma0 : numpy.ndarray, shape (B, 2, 2)
        The trace-one positive definite initial covariances, in the reference's order (u major).
    uw : numpy.ndarray, shape (B, 2)
        Their (u, w) = (a − b, 2c).
    """
    g = np.linspace(-half_width, half_width, int(n))
    U, W = np.meshgrid(g, g, indexing="ij")
    U, W = U.ravel(), W.ravel()
    keep = U ** 2 + W ** 2 < 1.0
    U, W = U[keep], W[keep]
    S = np.empty((U.size, 2, 2))
    S[:, 0, 0] = (1 + U) / 2
    S[:, 1, 1] = (1 - U) / 2
    S[:, 0, 1] = S[:, 1, 0] = W / 2
    return S, np.stack([U, W], axis=1)


def experiment_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of experiment ``index``: ``numpy.random.default_rng([seed, index])``.

    Parameters
    ----------
    seed : int
        The run's seed.
    index : int
        The experiment's number (1–7).

    Returns
    -------
    numpy.random.Generator
        A fresh generator.
    """
    return np.random.default_rng([int(seed), int(index)])


def rng_text(seed: int, index: int) -> str:
    """How :func:`experiment_rng` was called, as recorded in an experiment's output.

    Parameters
    ----------
    seed : int
        The run's seed.
    index : int
        The experiment's number.

    Returns
    -------
    str
        ``"numpy.random.default_rng([seed, index])"``.
    """
    return f"numpy.random.default_rng([{int(seed)}, {int(index)}])"


def draw_until(rng, test, max_tries=1000):
    """Draw Gaussian 2×2 (Q, K) until the eigenvalues of KᵀQ + QᵀK pass ``test``.

    Parameters
    ----------
    rng : numpy.random.Generator or object with ``standard_normal(shape)``
        The source of the draws.
    test : callable
        Predicate on the ascending eigenvalues of KᵀQ + QᵀK (e.g. :func:`indefinite`).
    max_tries : int, optional
        Draws before giving up.

    Returns
    -------
    Q, K : numpy.ndarray, shape (2, 2)
        The first accepted draw.

    Raises
    ------
    RuntimeError
        When no draw passed within ``max_tries``.
    """
    for _ in range(max_tries):
        Q = rng.standard_normal((2, 2))
        K = rng.standard_normal((2, 2))
        ev = np.linalg.eigvalsh(K.T @ Q + Q.T @ K)
        if test(ev):
            return Q, K
    raise RuntimeError("no draw satisfied the constraint")


def indefinite(ev) -> bool:
    """Whether the 2×2 symmetric matrix with eigenvalues ``ev`` is indefinite (λ₀λ₁ < 0).

    Parameters
    ----------
    ev : sequence of float
        The two eigenvalues.

    Returns
    -------
    bool
        λ₀·λ₁ < 0.
    """
    return ev[0] * ev[1] < 0


def positive(ev) -> bool:
    """Whether the symmetric matrix with ascending eigenvalues ``ev`` is positive definite.

    Parameters
    ----------
    ev : sequence of float
        The eigenvalues in ascending order.

    Returns
    -------
    bool
        λ_min > 0.
    """
    return ev[0] > 0


def reference_draws(index: int) -> dict:
    """The reference code's matrices of experiment ``index`` (legacy numpy RandomState, its seeds).

    Parameters
    ----------
    index : int
        Experiment number, 1–6.

    Returns
    -------
    dict
        Experiment 1: ``Q``, ``K`` = −Q, ``V`` = GGᵀ; 2 and 3: the unit row ``q``; 4–6: ``Q``,
        ``K`` and ``V`` (V = I for 5).

    Raises
    ------
    ValueError
        For another index.
    """
    RS = np.random.RandomState
    if index == 1:
        r = RS(35)
        Q = r.rand(2, 2)
        G = r.randn(2, 2)
        return {"Q": Q, "K": -Q, "V": G @ G.T}
    if index in (2, 3):
        r = RS(36)
        q = r.randn(1, 2)
        return {"q": q / np.linalg.norm(q)}
    if index in (4, 5, 6):
        r = RS({4: 36, 5: 33, 6: 36}[index])
        test = positive if index == 5 else indefinite
        Q, K = draw_until(_LegacyAdapter(r), test)
        if index == 5:
            return {"Q": Q, "K": K, "V": np.eye(2)}
        r2 = RS(32 if index == 4 else 35)
        if index == 6:
            r2.randn(8, 7)
        return {"Q": Q, "K": K, "V": r2.randn(2, 2)}
    raise ValueError(index)


class _LegacyAdapter:
    """``standard_normal(shape)`` of a legacy ``RandomState`` (its ``randn``)."""

    def __init__(self, r):
        self.r = r

    def standard_normal(self, shape):
        return self.r.randn(*shape)
