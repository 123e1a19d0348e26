"""The figures a reader sees: mathtext that parses, titles that fit, labels that do not collide,
and the mean-field slope's standard error checked against an independent regression.

Layout checks measure the rendered text boxes (after ``canvas.draw()``): every title and label
lies inside the figure, the figure title does not overlap a panel title, a colour bar does not
cover the title, and the tick labels of a 3-D panel do not overlap one another.
"""
from __future__ import annotations

import ast
import itertools
from pathlib import Path

import numpy as np
import pytest

import symbolic_tf

PACKAGE = Path(symbolic_tf.__file__).parent
FIGURE_SOURCES = sorted([*(PACKAGE / "plots").glob("*.py"), PACKAGE / "reproduce" / "alcalde2026.py",
                         *(PACKAGE / "reproduce" / "castin2025").glob("*.py"), PACKAGE / "reproduce" / "regimes.py"])


def _literal(node) -> str | None:
    """A string constant, or an f-string with every replacement field set to 0.5."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "0.5" for v in node.values)
    return None


def _math_strings():
    for path in FIGURE_SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            s = _literal(node)
            if s and s.count("$") >= 2 and s.count("$") % 2 == 0 and any(
                    c in piece for piece in s.split("$")[1::2] for c in "\\^_{"):
                yield path.name, s


@pytest.mark.parametrize("where,text", list(_math_strings()))
def test_every_mathtext_string_parses(where, text):
    from matplotlib.mathtext import MathTextParser

    parser = MathTextParser("agg")
    for k, piece in enumerate(text.split("$")):
        if k % 2 == 1:
            parser.parse(f"${piece}$", dpi=72)  # raises ValueError on bad mathtext


def _boxes(fig, artists):
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    return [(a, a.get_window_extent(r)) for a in artists if a.get_visible() and a.get_text().strip()]


def _inside(fig, boxes):
    W, H = fig.bbox.width, fig.bbox.height
    for a, b in boxes:
        assert b.x0 >= -1 and b.y0 >= -1 and b.x1 <= W + 1 and b.y1 <= H + 1, f"clipped: {a.get_text()!r}"


def _capture(monkeypatch, module):
    figs = []
    monkeypatch.setattr(f"symbolic_tf.plots.{module}.save_figure", lambda fig, stem, *a, **k: figs.append(fig) or [])
    return figs


def _cone_runs(n, rng):
    out = {}
    for k in range(n):
        S0 = rng.normal(size=(10, 2, 2))
        S0 = S0 @ S0.transpose(0, 2, 1) / 4 + 0.05 * np.eye(2)
        out[f"run{k}"] = {"Sigma": S0[:, None] * np.exp(-2 * np.linspace(0, 1, 20))[None, :, None, None], "T": 1e5}
    return out, rng.uniform(-1, 1, (10, 2))


@pytest.mark.parametrize("n,azim,title", [
    (4, -174, "Convergence to 0 (K = −Q, V = GGᵀ)"),
    (1, -45, "Multi-head, one head empty, d = 2: limits on the plane e₁ᵀΣqᵀ = 0 (red wedge)"),
    (2, -86, r"Convergence to a line (Q = q, K = −q, V = I); red: the ray of $q^\perp (q^\perp)^\top$")])
def test_cone_figures_keep_titles_and_ticks_apart(monkeypatch, n, azim, title):
    from symbolic_tf.plots import cone_figure

    figs = _capture(monkeypatch, "_covariance")
    runs, uw = _cone_runs(n, np.random.default_rng(n))
    cone_figure(runs, uw, "unused", azim=azim, suptitle=title)
    (fig,) = figs
    titles = _boxes(fig, [fig._suptitle] + [ax.title for ax in fig.axes])
    _inside(fig, titles)
    for (a, ba), (b, bb) in itertools.combinations(titles, 2):
        assert not ba.overlaps(bb), (a.get_text(), b.get_text())
    for ax in fig.axes:
        ticks = _boxes(fig, [lab for axis in (ax.xaxis, ax.yaxis, ax.zaxis)
                             for loc, lab in zip(axis.get_majorticklocs(), axis.get_ticklabels())
                             if min(axis.get_view_interval()) <= loc <= max(axis.get_view_interval())])
        _inside(fig, ticks)
        for (a, ba), (b, bb) in itertools.combinations(ticks, 2):
            assert not ba.overlaps(bb), (a.get_text(), b.get_text())


def test_steering_title_is_not_under_the_colour_bar(monkeypatch):
    from symbolic_tf.plots import steering_figure

    figs = _capture(monkeypatch, "_steering")
    path = [(t, [t, 0.0], [[1 + t, 0.0], [0.0, 1 - t / 2]]) for t in np.linspace(0, 1, 6)]
    steering_figure(path, ([1.0, 0.0], [[2.0, 0.0], [0.0, 1 / 3]]), "unused")
    (fig,) = figs
    main, bar = fig.axes
    (title, tb), = _boxes(fig, [main.title])
    _inside(fig, [(title, tb)])
    fig.canvas.draw()
    assert not tb.overlaps(bar.get_window_extent(fig.canvas.get_renderer()))


def test_meanfield_slope_stderr_matches_an_independent_regression():
    """slope_stderr is the standard error of the least-squares slope of log W₂ on log N over every
    (N, seed) point: the same number as scipy's linregress on those points."""
    from scipy.stats import linregress

    from symbolic_tf.numeric.meanfield import meanfield_check
    from symbolic_tf.spec import parse_problem

    p = parse_problem({"variant": "softmax", "d": 2, "A": [[1, "1/3"], [0, "1/7"]], "V": [[1, 0], [0, 1]],
                       "initial": {"mean": [0, 0], "cov": [[1, 0], [0, "1/2"]]}})
    rep = meanfield_check(p, Ns=(40, 80, 160), seeds=(0, 1, 2), T=0.05, steps=4)
    x = [np.log(n) for n, ds in zip(rep.Ns, rep.distances) for _ in ds]
    y = [np.log(e) for ds in rep.distances for e in ds]
    fit = linregress(x, y)
    assert rep.slope_stderr == pytest.approx(fit.stderr, rel=1e-9)
    # and the slope the figure prints comes from the seed means: both estimate the same exponent
    assert abs(rep.slope - fit.slope) < 3 * fit.stderr + 0.05
