"""Figures of numerical evidence: mean-field convergence, masked attention, ReLU, stability, mixtures.

Each function draws one measurement of the library (its report object or ``to_dict()``) and
writes it atomically with :func:`symbolic_tf.plots._base.save_figure`.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ._base import figure, save_figure

__all__ = ["meanfield_figure", "sink_figure", "relu_figure", "stability_figure", "mixture_departure_figure"]


# ----------------------------------------------------------------------------------------
# mean-field check
# ----------------------------------------------------------------------------------------
#: What the mean-field slope measures and why a fit may miss −1/2 (printed under the figure)
MEANFIELD_SLOPE_NOTE = (
    "W₂ compares the Gaussian with the cloud's empirical mean and covariance to the moment ODE's; their "
    "sampling errors are $O(N^{-1/2})$, hence slope −1/2. ± is the fit's standard error over the per-seed "
    "points: with few seeds and a narrow range of N the fitted slope scatters widely (numerical evidence).")


def meanfield_figure(report, stem) -> list[Path]:
    """Finite-N tokens against the moment ODE.

    Log–log plot of the W₂ distance between tokens and the moment ODE against N (with the
    N^{-1/2} reference line and the per-seed points), or, for a variant that does not preserve
    Gaussians, Mardia's kurtosis excess and the principal excess kurtosis against N.
    """
    fig, ax = _one_panel((5.5, 4.2))
    Ns = np.asarray(report.Ns, dtype=float)
    if report.gaussian_closed:
        for n, ds in zip(Ns, report.distances):
            ax.scatter([n] * len(ds), ds, s=10, color="0.6", zorder=1)
        md = np.array([np.nan if m is None else m for m in report.mean_distance], dtype=float)
        ax.loglog(Ns, md, "o-", color="C0", label="mean over seeds", zorder=2)
        ok = np.isfinite(md)
        if ok.any():
            ref = md[ok][0] * np.sqrt(Ns[ok][0] / Ns)
            ax.loglog(Ns, ref, "--", color="0.3", label="$N^{-1/2}$")
        if report.slope is not None:
            se = getattr(report, "slope_stderr", None)
            fit = f"{report.slope:.2f}" + (f" ± {se:.2f}" if se is not None else "")
            ax.set_title(f"{report.variant}: W₂ at T = {report.T:g}; fitted slope {fit} (expected −1/2)", fontsize=9)
            fig.text(0.01, 0.01, MEANFIELD_SLOPE_NOTE, fontsize=7, va="bottom", wrap=True)
        ax.set_ylabel("Bures–Wasserstein distance to the moment ODE")
    else:
        me = np.array([np.nan if m is None else m for m in report.mardia_excess], dtype=float)
        ax.semilogx(Ns, me, "o-", label="Mardia b₂ − d(d+2)")
        ks = [k for k in report.kurtosis if k is not None]
        if ks:
            K = np.array([k if k is not None else [np.nan] * len(ks[0]) for k in report.kurtosis], dtype=float)
            for j in range(K.shape[1]):
                ax.semilogx(Ns, K[:, j], "s--", label=f"excess kurtosis, direction {j + 1}")
        ax.axhline(0, color="0.5", lw=0.8)
        ax.set_title(f"{report.variant} (not Gaussian-closed): departure at T = {report.T:g}")
    ax.set_xlabel("number of tokens N")
    ax.legend(fontsize=8)
    fig.tight_layout(rect=(0, 0.1 if report.gaussian_closed and report.slope is not None else 0, 1, 1))
    return save_figure(fig, stem)


# ----------------------------------------------------------------------------------------
# masked attention (attention sink) and ReLU feed-forward (docs/masked_relu.md)
# ----------------------------------------------------------------------------------------
def sink_figure(exp: dict, stem) -> list[Path]:
    """The attention-sink experiment against depth.

    Left: mean attention on the first position against depth for each sink mass, with the
    content-blind share as a dashed line.  Right: W₂^cond(flow, perturbed flow) / its value at
    t = 0 (mean over positions solid, sup dotted).
    """
    fig, ax, bx = _two_panels()
    for k, run in enumerate(exp["runs"]):
        c = f"C{k}"
        lab = f"sink mass {run['sink']:g} ({run['first_position_tokens']} token(s) at s = 0)"
        ax.plot(run["t"], run["attention"], "o-", color=c, ms=3, label=lab)
        ax.axhline(run["baseline"], color=c, ls="--", lw=0.8)
        bx.plot(run["t"], run["cond_w2_ratio"], "-", color=c, label=f"sink {run['sink']:g}: mean over s")
        bx.plot(run["t"], run["cond_w2_sup_ratio"], ":", color=c, label=f"sink {run['sink']:g}: sup over s")
    st = exp["settings"]
    _depth_panel(ax, "mean attention on the first position",
                 f"attention sink, N = {st['N']}, positions {st['kind']} (dashed: uniform share)")
    _depth_panel(bx, "W₂^cond(μ_t, ν_t) / W₂^cond(μ₀, ν₀)", f"conditional W₂ to a flow perturbed by ε = {st['perturb']:g}")
    return _finish(fig, stem, "masked attention — numerical evidence")


def _one_panel(figsize):
    """A figure of one panel: (figure, axes)."""
    fig = figure(figsize)
    return fig, fig.add_subplot(1, 1, 1)


def _two_panels():
    """A 10×4 figure with two panels side by side: (figure, left, right)."""
    fig = figure((10, 4))
    return fig, fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)


def _depth_panel(ax, ylabel: str, title: str, fontsize: int = 9) -> None:
    ax.set_xlabel("depth t")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=fontsize)
    ax.legend(fontsize=7)


def _finish(fig, stem, suptitle: str) -> list[Path]:
    fig.suptitle(suptitle, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, stem)


def _save_at(fig, path) -> list[Path]:
    """Lay ``fig`` out and write it at ``path``, whose suffix is the format (PNG when it has none)."""
    path = Path(path)
    fig.tight_layout()
    return save_figure(fig, path.with_suffix(""), formats=(path.suffix.lstrip(".") or "png",))


def relu_figure(rep: dict, stem) -> list[Path]:
    """The ReLU feed-forward term against its Gaussian linearisation, over depth.

    Left: coupled departure ‖Σ₀^{-1/2}(x^ReLU − x^twin)‖ against depth beside the first-order
    estimate t‖Σ₀^{-1/2}r‖.  Right: sliced W₂ of the whitened ReLU cloud and of its affine twin to
    N(0, I), with the noise floor (mean ± 3 sd) and the floor plus the first-order estimate divided
    by √d.
    """
    fig, ax, bx = _two_panels()
    t = np.asarray(rep["t"])
    ax.plot(t, rep["coupled_departure"], "o-", ms=3, label="measured: ‖Σ₀^(-1/2)(x_ReLU − x_twin)‖ (L², tokens)")
    ax.plot(t, rep["first_order_estimate"], "--", color="0.3",
            label=f"first-order estimate t·‖Σ₀^(-1/2) r‖ = {rep['residual_norm_whitened']:.3g}·t")
    _depth_panel(ax, "departure (whitened units)", "ReLU term vs its Gaussian linearisation")
    f = rep["noise_floor"]["sliced_w2"]
    bx.plot(t, [m["sliced_w2"] for m in rep["metrics"]], "o-", ms=3, label="ReLU tokens")
    bx.plot(t, [m["sliced_w2"] for m in rep["twin_metrics"]], "s-", ms=3, color="C2", label="affine twin (control)")
    bx.axhspan(f["mean"] - 3 * f["sd"], f["mean"] + 3 * f["sd"], color="0.85", label="noise floor ± 3 sd")
    bx.axhline(f["mean"], color="0.5", lw=0.8)
    bx.plot(t, rep["sliced_w2_estimate"], "--", color="0.3", label="floor + t‖Σ₀^(-1/2) r‖/√d (first order, upper)")
    _depth_panel(bx, "sliced W₂(whitened cloud, N(0, I))",
                 f"departure from the moment-matched Gaussian, N = {rep['settings']['N']}")
    return _finish(fig, stem, "ReLU feed-forward — numerical evidence")



def stability_figure(res: dict, path) -> list[Path]:
    """Measured log W_p(μ_t, ν_t)/W_p(μ₀, ν₀) of every run against log C(t) (docs/stability.md)."""
    fig, ax = _one_panel((6.4, 4.2))
    t = np.array(res["t"])
    for r in res["runs"]:
        ax.plot(t, np.log10(np.array(r["ratio"])), "-", lw=0.8, color="C0", alpha=0.5)
    ax.plot(t, np.array(res["log_ratio_max"]) / np.log(10), "-", lw=2, color="C0",
            label="measured max over runs (numerical evidence)")
    lo, hi = (np.array([np.inf if x is None else x for x in res[k]], dtype=float) / np.log(10)  # None: overflow
              for k in ("log_C_min", "log_C_max"))
    ax.fill_between(t, lo, hi, color="C3", alpha=0.2)
    ax.plot(t, lo, "-", lw=2, color="C3", label="bound log10 C(t) (band: the runs' R₀)")
    ax.set_yscale("symlog", linthresh=1.0)
    _depth_panel(ax, "log10 W_p(μ_t, ν_t) / W_p(μ_0, ν_0)  (symlog axis)",
                 f"stability: N = {res['N']}, p = {res['p']:g}, {len(res['runs'])} runs "
                 f"({', '.join(res['perturbations'])});\nin the tightest run the bound exceeds the measured ratio "
                 + (f"by 10^{res['looseness_log10_at_T']:.3g} at t = {t[-1]:g}" if res['looseness_log10_at_T'] is not None
                    else f"(C overflows a float at t = {t[-1]:g})"), fontsize=8)
    return _save_at(fig, path)


def mixture_departure_figure(res: dict, path) -> list[Path]:
    """Mardia kurtosis excess of each transported mixture component over depth, with its noise floor."""
    fig, ax = _one_panel((6.0, 4.0))
    E = np.array(res["mardia_excess"])
    for j, (lab, fl) in enumerate(zip(res["components"], res["noise_floor"])):
        ax.plot(res["t"], E[:, j], "o-", ms=3, color=f"C{j}", label=f"component {lab}")
        ax.axhspan(-2 * fl, 2 * fl, color=f"C{j}", alpha=0.12)
    ax.axhline(0, color="k", lw=0.8)
    _depth_panel(ax, "Mardia kurtosis excess b2 − d(d+2)",
                 f"mixture components leave Gaussianity (N = {res['N']}, numerical evidence;\n"
                 "bands: ±2 sampling standard deviations)", fontsize=8)
    return _save_at(fig, path)
