"""The figures of the Castin et al. experiments, drawn with :mod:`symbolic_tf.plots`.

One dispatcher, :func:`castin_figures`, turns an experiment's result into its figures (the
SPD-cone and normalised-disk views of d = 2, the d = 3 plane, the rank histograms); the labels
and the variants that can blow up come from :mod:`.conventions`.
"""
from __future__ import annotations

from pathlib import Path

from ...plots import cone_figure, disk_figure, plane3d_figure, rank_decay_figure, rank_histograms
from .conventions import DISPLAY_NAMES, RANK_DECAY_PREFIX, finite_time_blowup

__all__ = ["castin_figures"]

_DISK = {"names": DISPLAY_NAMES, "may_blow_up": frozenset(v for v in DISPLAY_NAMES if finite_time_blowup(v))}


def castin_figures(exp: dict, figdir) -> list[Path]:
    """All figures of one experiment, written as PNG and PDF."""
    figdir = Path(figdir)
    name = exp["experiment"]
    data = exp["data"]
    out: list[Path] = []
    if name == "zero":
        out += cone_figure(data["runs"], data["uw0"], figdir / "castin_1_zero_cone", azim=-174,
                           suptitle="Convergence to 0 (K = −Q, V = GGᵀ)", names=DISPLAY_NAMES)
    elif name == "line":
        out += cone_figure(data["runs"], data["uw0"], figdir / "castin_2_line_cone", lines=data["lines"], azim=-86,
                           suptitle=r"Convergence to a line (Q = q, K = −q, V = I); red: the ray of $q^\perp (q^\perp)^\top$",
                           names=DISPLAY_NAMES)
    elif name == "plane":
        d2 = data["d2"]
        out += cone_figure(d2["runs"], d2["uw0"], figdir / "castin_3_plane_d2_cone", wedge=d2["wedge"], azim=-45,
                           suptitle="Multi-head, one head empty, d = 2: limits on the plane e₁ᵀΣqᵀ = 0 (red wedge)",
                           names=DISPLAY_NAMES)
        out += plane3d_figure(data["d3"]["run"], data["d3"]["q"], figdir / "castin_3_plane_d3",
                              suptitle=r"Multi-head, one head empty, d = 3: rank-2 limits with range $q^\perp$")
    elif name == "two_lines":
        out += cone_figure(data["runs"], data["uw0"], figdir / "castin_4_two_lines_cone", lines=data["lines"],
                           azim=-88, suptitle="A + Aᵀ indefinite, V non-symmetric; red: isotropic lines vᵀAv = 0",
                           names=DISPLAY_NAMES)
        out += disk_figure(data["runs"], data["uw0"], figdir / "castin_4_two_lines_disk", lines=data["lines"],
                           suptitle="Σ/trΣ; red stars: the two isotropic rank-1 directions", **_DISK)
    elif name == "blowup":
        out += disk_figure(data["runs"], data["uw0"], figdir / "castin_5_blowup_disk",
                           suptitle="A + Aᵀ ≻ 0, V = I: Σ(t)/trΣ(t) (× = finite-time blow-up)", **_DISK)
    elif name == "mixed":
        out += disk_figure(data["runs"], data["uw0"], figdir / "castin_6_mixed_disk",
                           suptitle="A + Aᵀ indefinite, V Gaussian: Σ(t)/trΣ(t) (× = norm bound reached)", **_DISK)
    elif name == "ranks":
        out += rank_histograms(exp["summary"], figdir / "castin_7_rank_histograms", names=DISPLAY_NAMES,
                               suptitle=r"Rank of the limit covariance (K = −Q, $Q \in \mathbb{R}^{\lfloor d/2\rfloor \times d}$)")
        keys = [k for k in data if k.startswith(RANK_DECAY_PREFIX)]
        if keys:
            out += rank_decay_figure({k: data[k] for k in keys}, figdir / "castin_7_rank_decay",
                                     thresholds=[float(t) for t in exp["settings"]["thresholds"]],
                                     suptitle="softmax, V = I: small eigenvalues decay like 1/t")
    return out
