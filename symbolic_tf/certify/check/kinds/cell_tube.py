"""Independent checker of whole-cell tube certificates (kind ``cell-tube``) of regime maps whose
slice varies only Σ₀ (families ``cov`` and ``cov-disk``) of a (multi-head) softmax flow with a
general value matrix V and an optional drift F (docs/mathematics.md §8, "Whole cells").

A cell is the open box B = (x₀, x₁) × (y₀, y₁) of the slice, and Σ₀(x, y) = C₀ + x·C_x + y·C_y is
affine.  The checker

1. requires that nothing but the initial Gaussian depends on the coordinates, and proves
   Σ₀(x, y) ≻ 0 on the open cell (:func:`~symbolic_tf.certify.check.cell_enclosures.pd_on_open_box`);
2. describes the set {Σ₀(x, y) : (x, y) ∈ closed B} exactly as a parallelepiped in svec coordinates,
   svec Σ₀ = c + s·h_x·svec C_x + t·h_y·svec C_y, (s, t) ∈ [−1, 1]² (:func:`cell_parallelepiped`), inside
   the box of its entries' exact ranges (:func:`sigma0_enclosure`);
3. replays the stored validated tube from that *set* (:func:`~symbolic_tf.certify.check.tube_replay.replay_stored`
   with the initial parallelepiped: Lohner's method carries a set of initial values as well as a point,
   so every solution from the set exists on [0, t_N] and Σ(t_N) lies in the end box S_N);
4. checks the stored end condition — one of the point kinds' end conditions, each of which holds for
   *every* state of the end box — on S_N: an attracting blow-up ray (``tube-ray``: T* ∈ t_N + u₁·[1/c_hi,
   1/c_lo] with u₁ ranging over 1/tr S_N), the contracting neighbourhood of an isotropic rank-one line
   (``tube-cluster``), the collapse set {tr(PΣ) < λ/c} (``tube-collapse``) or the contraction ellipsoid
   of a rank-(d − 1) equilibrium (``tube-singular-equilibrium``).

So the end kind's conclusion holds for every Σ₀ of the cell.  The claim (regime, rank, T* bracket) is
derived from the data: the cell's stored regime, rank and bracket must be exactly the derived ones
(the stored bracket must contain the derived one), and its claim text the rendered claim.
OUTSIDE cells (Σ₀ not positive semidefinite anywhere on the cell) need a rational z with zᵀΣ₀z ≤ 0
on the whole closed cell.
"""
from __future__ import annotations

import flint

from ....exact.precision import working_precision
from ....exact.rational import fmpq_of, fraction_of, parse_frac
from ....spec.errors import CertificationFailed
from .. import Hypothesis, declaration
from ..claims import Claim
from ..schema import validate
from ..cell_enclosures import pd_on_open_box
from ..cells import (CellChecker, bind_cell_claim, cell_hypotheses, centre_problem, check_outside_cell, flow_reason,
                     open_cell, standalone_cell_kind)
from .tube_cluster import check_cluster_end
from .tube_collapse import check_collapse_bounds, end_inside
from .tube_ray import check_ray_end
from ..tube_replay import bracket_claim, int_in, replay_stored
from .tube_singular_equilibrium import check_singular_end

KIND = "cell-tube"
MAX_D = 6
MAX_ORDER = 40
MAX_STEPS = 20000
ENCLOSURE_PREC = 128   # bits of the arb enclosure of the cell's Σ₀ set (part of the kind's definition)

__all__ = ["KIND", "END_KINDS", "HYPOTHESES", "TubeCellChecker", "check_outside_cell", "open_cell",
           "sigma0_enclosure", "cell_parallelepiped", "route_reason"]


def _fail(msg):
    raise CertificationFailed(f"cell-tube certificate: {msg}")


def route_reason(spec) -> str | None:
    """None when a map spec has the shape this kind covers, else why not (one line).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The map spec.

    Returns
    -------
    str or None
        None, or the reason: coordinates outside the initial Gaussian, no Σ₀, d > 6, or a
        flow that is not (multi-head) softmax-type.
    """
    from ....spec.errors import InvalidParameters
    from ..flows import quadratic_heads

    if any(not p.startswith("initial") for p in spec.leaves):
        return "whole-cell tubes need a slice of Σ₀ only (the parameters must not depend on the coordinates)"
    if spec.cov_affine() is None:
        return "whole-cell tubes need the initial covariance"
    if spec.problem_doc.get("d", 0) > MAX_D:
        return f"whole-cell tubes cover d ≤ {MAX_D}"
    centre = centre_problem(spec)
    why = flow_reason(centre, "whole-cell tubes")
    if why is not None:
        return why
    try:
        quadratic_heads(centre)
    except InvalidParameters as exc:
        return f"whole-cell tubes need quadratic (softmax-type) heads: {exc.reason}"
    return None


def sigma0_enclosure(cov, box, prec: int = ENCLOSURE_PREC) -> flint.arb_mat:
    """One arb ball matrix containing Σ₀(x, y) = C₀ + x·C_x + y·C_y for every (x, y) of the closed box.

    Each entry is affine in (x, y), so its exact range over the box is [min, max] of its four corner
    values (exact rationals); the ball is the arb hull of the two ends at ``prec`` bits.

    Parameters
    ----------
    cov : tuple of (list, list, list)
        (C₀, C_x, C_y), exact (Fractions or anything :func:`fractions.Fraction` reads).
    box : sequence of 4 exact rationals
        (x₀, x₁, y₀, y₁).
    prec : int
        The arb precision in bits.

    Returns
    -------
    flint.arb_mat
        The d×d enclosure.
    """
    C0, Cx, Cy = cov
    x0, x1, y0, y1 = (parse_frac(b) for b in box)
    d = len(C0)
    out = flint.arb_mat(d, d)
    with working_precision(prec):
        for i in range(d):
            for j in range(d):
                vals = [parse_frac(C0[i][j]) + parse_frac(Cx[i][j]) * x + parse_frac(Cy[i][j]) * y
                        for x in (x0, x1) for y in (y0, y1)]
                lo, hi = min(vals), max(vals)
                out[i, j] = flint.arb(fmpq_of(lo)).union(flint.arb(fmpq_of(hi)))
    return out


def _ray(pairs, F, S_end, t_end, data, d):
    prec = int_in(data["prec"], "prec", 64, 4096, _fail)
    return "BLOWUP", check_ray_end(pairs, F, S_end, t_end, data, prec, _fail)


def _cluster(pairs, F, S_end, t_end, data, d):
    if d != 2 or F is not None:
        _fail("the tube-cluster end covers d = 2 without drift only")
    check_cluster_end(pairs, S_end, data, int_in(data["prec"], "prec", 64, 4096, _fail), _fail)
    return "CLUSTERING", {"rank": 1}


def _collapse(pairs, F, S_end, t_end, data, d):
    P, level = check_collapse_bounds(pairs, F, data, d, _fail)
    if not end_inside(P, level, S_end, data["tube_prec"]):
        _fail("the tube's end is not inside {tr(PΣ) < lam/c}")
    return "CLUSTERING", {"rank": 0}


def _singular(pairs, F, S_end, t_end, data, d):
    check_singular_end(pairs, F, S_end, data, d, int_in(data["prec"], "prec", 64, 4096, _fail), _fail)
    return "CLUSTERING", {"rank": d - 1}


#: end kind → the end condition checked on the tube's end box (its data is that kind's data); it returns
#: (regime, params) — for BLOWUP the arb bounds (lo, hi) of the blow-up time.
END_KINDS = {"tube-ray": _ray, "tube-cluster": _cluster, "tube-collapse": _collapse,
             "tube-singular-equilibrium": _singular}


def cell_parallelepiped(cov, box, prec: int = ENCLOSURE_PREC):
    """The cell's Σ₀ set as a parallelepiped in svec coordinates (upper entries, row-major):
    svec Σ₀(x_c + s·h_x, y_c + t·h_y) = c + s·svec(C_x)h_x + t·svec(C_y)h_y, (s, t) ∈ [−1, 1]², completed to a
    square basis by unit vectors with zero coordinates.

    Parameters
    ----------
    cov : tuple of (list, list, list)
        (C₀, C_x, C_y), exact.
    box : sequence of 4 exact rationals
        (x₀, x₁, y₀, y₁).
    prec : int
        The arb precision in bits.

    Returns
    -------
    tuple of (flint.arb_mat, flint.arb_mat, flint.arb_mat)
        (center, basis, coords).
    """
    C0, Cx, Cy = cov
    x0, x1, y0, y1 = (parse_frac(b) for b in box)
    xc, yc, hx, hy = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2
    d = len(C0)
    up = [(i, j) for i in range(d) for j in range(i, d)]
    m = len(up)

    with working_precision(prec):
        center = flint.arb_mat(m, 1, [fmpq_of(parse_frac(C0[i][j]) + parse_frac(Cx[i][j]) * xc
                                              + parse_frac(Cy[i][j]) * yc) for i, j in up])
        basis = flint.arb_mat(m, m)
        for k, (i, j) in enumerate(up):
            basis[k, 0] = fmpq_of(parse_frac(Cx[i][j]) * hx)
            if m > 1:
                basis[k, 1] = fmpq_of(parse_frac(Cy[i][j]) * hy)
            for c in range(2, m):
                basis[k, c] = int(k == c - 2)
        coords = flint.arb_mat(m, 1, [flint.arb(0, 1), flint.arb(0, 1)][:m] + [0] * max(0, m - 2))
    return center, basis, coords


class TubeCellChecker(CellChecker):
    """Checks the ``cell-tube`` cells of one map spec (the flow is built once)."""

    kind_name = KIND
    fail = staticmethod(_fail)

    def __init__(self, spec):
        problem, self.F = self.read_slice(spec, route_reason)
        self.d = problem.d

    def check_proved(self, cell: dict, box, data: dict) -> Claim:
        """Re-verify a PROVED ``cell-tube`` cell (:meth:`CellChecker.check` opened it).

        Parameters
        ----------
        cell : dict
            The stored cell.
        box : tuple of 4 flint.fmpq
            Its closed box.
        data : dict
            Its certificate's data.

        Returns
        -------
        symbolic_tf.certify.check.claims.Claim
            The claim derived from the data, bound to the stored cell.
        """
        end = data.get("end")
        if end not in END_KINDS:
            _fail(f"unknown end kind {str(end)[:40]!r}; known: {', '.join(END_KINDS)}")
        inner = {k: v for k, v in data.items() if k != "end"}
        validate(inner, declaration(end).schema, "cell-tube.data")
        if inner["method"] != "qr":
            _fail('cell tubes use method "qr"')
        if self.d > MAX_D:
            _fail(f"d ≤ {MAX_D} only")
        if not pd_on_open_box(self.S, box):
            _fail("Σ₀ is not positive definite on the open cell")
        fbox = [fraction_of(b) for b in box]
        S0, par = sigma0_enclosure(self.cov, fbox), cell_parallelepiped(self.cov, fbox)
        S_end, ts = replay_stored(self.pairs, self.F, S0, inner, _fail, MAX_ORDER, MAX_STEPS, initial=par)
        regime, params = END_KINDS[end](self.pairs, self.F, S_end, ts[-1], inner, self.d)
        if regime == "BLOWUP":   # the stored bracket must contain the derived one
            params = bracket_claim(data, *params, _fail).params
        return bind_cell_claim(cell, regime, params, _fail)


_T = "tests/soundness/forgeries/test_cell_tube.py::"
#: the hypotheses of a whole-cell tube, each checked by :class:`TubeCellChecker` (and the spec parser)
HYPOTHESES = (
    Hypothesis("sigma0-slice", "Only the initial covariance varies over the slice: Σ₀(x, y) = C₀ + x·C_x + y·C_y "
               "is affine and every parameter of the flow is the same at every point of the cell.",
               _T + "test_a_parameter_varying_over_the_cell"),
    Hypothesis("softmax-flow", "The flow is the quadratic softmax-type field Σ̇ = Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) + FΣ + ΣFᵀ "
               "of one or several heads, d ≤ 6: the field the stored tube is replayed with.",
               _T + "test_a_flow_that_is_not_softmax_type"),
    Hypothesis("constant-parameters", "No depth schedule: A, V and F do not depend on the depth t, so the replayed "
               "autonomous field is the flow at every time.", _T + "test_a_depth_schedule"),
    Hypothesis("gaussian-closed", "No ReLU feed-forward term: the token law stays Gaussian and Σ obeys the covariance "
               "equation at all.", _T + "test_a_relu_feed_forward"),
    Hypothesis("sigma0-pd", "Σ₀(x, y) ≻ 0 at every interior point of the cell (exact enclosure of the affine "
               "matrix), so every point the claim covers is a covariance.", _T + "test_a_cell_leaving_the_cone"),
    Hypothesis("whole-cell-set", "The tube starts from the set {Σ₀(x, y) : (x, y) in the closed cell} itself, an exact "
               "parallelepiped in svec coordinates, replayed by the QR–Lohner method (which carries a set of initial "
               "values): every solution from the cell exists on [0, t_N] and ends in the end box S_N.",
               _T + "test_a_point_tube_method"),
    Hypothesis("end-condition", "S_N satisfies the stored end kind's condition, which holds for every state of S_N: "
               "an attracting blow-up ray, the contracting neighbourhood of an isotropic rank-one line (d = 2, no "
               "drift), the collapse set {tr(PΣ) < λ/c} or the contraction ellipsoid of a rank-(d − 1) equilibrium.",
               _T + "test_a_tube_cut_short"),
    Hypothesis("end-regime", "The regime and rank are the end kind's: collapse ⇒ CLUSTERING of rank 0, isotropic line "
               "⇒ CLUSTERING of rank 1, singular equilibrium ⇒ CLUSTERING of rank d − 1, ray ⇒ BLOWUP; the cell's "
               "stored regime and rank are exactly these.", _T + "test_a_relabelled_rank"),
    Hypothesis("bracket", "BLOWUP: the cell's T_lo, T_hi equal the data's, T_lo ≤ T_hi, and [T_lo, T_hi] contains the "
               "bracket of T* derived from the end box (exact comparisons with the balls' ends).",
               _T + "test_a_tightened_bracket"),
    *cell_hypotheses(KIND, "a tube", _T, quantifier="quantifier every point of the cell",
                     outside="a rational z with zᵀΣ₀z ≤ 0 on the closed cell"),
)


_check_standalone = standalone_cell_kind(KIND, HYPOTHESES, TubeCellChecker, _fail)
