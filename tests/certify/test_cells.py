"""Whole-cell certificates (V = vI, F = fI): soundness against the closed forms of docs/mathematics.md §4/§6
at interior points, the independent checker, and tampering."""
import copy
import math
from fractions import Fraction as Fr

import numpy as np
import pytest
from hypothesis import assume, event, given, settings, strategies as st

from symbolic_tf.certify.search import cell_riccati_vI as cells_mod
from symbolic_tf.certify.search.cell_riccati_vI import certify_cell, certify_cells, g_ball, pencil_for
from symbolic_tf.certify.check.kinds.cell_riccati_vI import CellChecker
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.mapspec import parse_map_spec

q = st.fractions(min_value=-2, max_value=2, max_denominator=4)


def closed_form(p):
    """(blows up?, T*, f, λ_max(R)) from docs/mathematics.md §6: ρ = λ_max(Σ₀^½RΣ₀^½)/2, F = fI:
    blow-up iff ρ > 0 and f > −ρ, at T* = ln(1 + f/ρ)/(2f) (1/(2ρ) when f = 0)."""
    A = np.array(p.A, dtype=float) * float(p.scale)
    R = float(p.V[0][0]) * (A + A.T)
    f = float(p.F[0][0]) if p.F is not None else 0.0
    S = np.array(p.cov, dtype=float)
    w, U = np.linalg.eigh(S)
    Sh = (U * np.sqrt(w)) @ U.T
    rho = np.linalg.eigvalsh(Sh @ R @ Sh)[-1] / 2
    blow = rho > 0 and f > -rho
    T = (math.log1p(f / rho) / (2 * f) if f != 0 else 1 / (2 * rho)) if blow else math.inf
    return blow, T, f, np.linalg.eigvalsh(R)


def spec_doc(Adiag, Aoff, f, v, cov, with_f_coord):
    a11, a22 = Adiag
    return {"family": "parameter", "resolution": [2, 2], "max_depth": 0,
            "x": {"range": [-1, 1]}, "y": {"range": [-1, 1]},
            "problem": {"variant": "softmax", "d": 2,
                        "A": [[f"{a11} + x", str(Aoff[0])], [str(Aoff[1]), f"{a22}" + ("" if with_f_coord else " + y")]],
                        "V": [[str(v), 0], [0, str(v)]],
                        **({"F": [[f"{f} + y", 0], [0, f"{f} + y"]]} if with_f_coord else
                           ({"F": [[str(f), 0], [0, str(f)]]} if f != 0 else {})),
                        "initial": {"cov": cov}}}


@st.composite
def cases(draw):
    cov = [[draw(st.sampled_from([1, 2, "1/2"])), "1/4"], ["1/4", draw(st.sampled_from([1, "3/2"]))]]
    doc = spec_doc((draw(q), draw(q)), (draw(q), draw(q)), draw(q), draw(st.sampled_from(["1", "-1", "1/2"])),
                   cov, draw(st.booleans()))
    x0 = draw(st.fractions(min_value=-1, max_value=1, max_denominator=16))
    y0 = draw(st.fractions(min_value=-1, max_value=1, max_denominator=16))
    h = draw(st.sampled_from([Fr(1, 4), Fr(1, 16), Fr(1, 64), Fr(0)]))
    return doc, (x0, x0 + h, y0, y0 + h)


def _interior(box, n=4):
    x0, x1, y0, y1 = box
    pts = [(x0 + (x1 - x0) * Fr(2 * i + 1, 2 * n), y0 + (y1 - y0) * Fr(2 * j + 1, 2 * n))
           for i in range(n) for j in range(n)]
    return pts


def _record(box, r):
    return {"box": [str(b) for b in box], "status": r["status"], "regime": r.get("regime"),
            "rank": r.get("rank"), "T_lo": r.get("T_lo"), "T_hi": r.get("T_hi"), "claim": r.get("claim"),
            "certificate": {"data": r.get("data", {})}}


@settings(max_examples=80)
@given(cases())
def test_cell_verdicts_hold_at_interior_points(case):
    doc, box = case
    spec = parse_map_spec(doc)
    pen = pencil_for(spec)
    r = certify_cell(pen, box)
    assume(r["status"] == "PROVED")
    CellChecker(spec).check(_record(box, r))  # the independent checker agrees
    for x, y in _interior(box):
        blow, T, f, eigR = closed_form(spec.problem_at(x, y))
        if r["regime"] == "BLOWUP":
            assert blow
            assert float(Fr(r["T_lo"])) <= T * (1 + 1e-9)
            if r.get("T_hi") is not None:
                assert T <= float(Fr(r["T_hi"])) * (1 + 1e-9)
        else:
            assert not blow
            if r["regime"] == "EQUILIBRIUM":
                assert f > 0 and eigR[-1] < 0
            if r["regime"] == "CLUSTERING":
                assert f < 0 or (f == 0 and eigR[-1] < 0)


def test_known_cells_and_tampering():
    doc = spec_doc(("0", "0"), ("1/2", "-1/4"), 0, "1", [[1, "1/4"], ["1/4", "1/2"]], False)
    spec = parse_map_spec(doc)
    pen = pencil_for(spec)
    ck = CellChecker(spec)
    blow = certify_cell(pen, (Fr(1, 2), Fr(5, 8), Fr(1, 2), Fr(5, 8)))
    assert blow["regime"] == "BLOWUP" and blow["argument"] == "vertex"
    lo, hi = Fr(blow["T_lo"]), Fr(blow["T_hi"])
    assert 0 < lo < hi
    # the corners' exact T* lie in the bracket (T* = 1/λ_max(Σ₀^½(A+Aᵀ)Σ₀^½), F = 0)
    for x, y in [(Fr(1, 2), Fr(1, 2)), (Fr(5, 8), Fr(5, 8))]:
        _, T, _, _ = closed_form(spec.problem_at(x, y))
        assert float(lo) <= T <= float(hi)
    rec = _record((Fr(1, 2), Fr(5, 8), Fr(1, 2), Fr(5, 8)), blow)
    ck.check(rec)
    bad = copy.deepcopy(rec)
    bad["T_hi"] = bad["certificate"]["data"]["t_hi"] = str(lo / 2)
    with pytest.raises(CertificationFailed, match="t_hi"):
        ck.check(bad)
    bad = copy.deepcopy(rec)
    bad["certificate"]["data"]["Gamma"] = str(Fr(bad["certificate"]["data"]["Gamma"]) * 3)
    with pytest.raises(CertificationFailed):
        ck.check(bad)
    bad = copy.deepcopy(rec)
    bad["regime"], bad["rank"] = "CLUSTERING", 0
    bad["certificate"]["data"] = {"via": "no-drift-contracting"}
    with pytest.raises(CertificationFailed, match="R ⪯ 0"):
        ck.check(bad)
    clu = certify_cell(pen, (Fr(-1), Fr(-3, 4), Fr(-1), Fr(-3, 4)))
    assert clu["regime"] == "CLUSTERING" and clu["rank"] == 0
    ck.check(_record((Fr(-1), Fr(-3, 4), Fr(-1), Fr(-3, 4)), clu))
    # a cell across the boundary λ_max(A + Aᵀ) = 0 is undecided, never labelled
    assert certify_cell(pen, (Fr(-1, 8), Fr(1, 8), Fr(-1, 8), Fr(1, 8)))["status"] == "UNDECIDED"


def test_cov_disk_cells_outside_and_threshold():
    spec = parse_map_spec({"family": "cov-disk", "problem": {"variant": "softmax", "d": 2, "A": [[3, 0], [0, -1]],
                                                             "V": [[1, 0], [0, 1]], "F": [[-1, 0], [0, -1]]}})
    pen = pencil_for(spec)
    ck = CellChecker(spec)
    out = certify_cell(pen, (Fr(7, 8), Fr(1), Fr(7, 8), Fr(1)))
    assert out["status"] == "OUTSIDE"
    ck.check(_record((Fr(7, 8), Fr(1), Fr(7, 8), Fr(1)), out))
    # threshold (docs/mathematics.md §6): blow-up iff λ_max(Σ₀^½RΣ₀^½) > 2|f| = 2, R = diag(6, −2)
    for box, expect in [((Fr(1, 2), Fr(9, 16), Fr(0), Fr(1, 16)), "BLOWUP"),
                        ((Fr(-3, 4), Fr(-11, 16), Fr(0), Fr(1, 16)), "CLUSTERING")]:
        r = certify_cell(pen, box)
        assert r["regime"] == expect and r["argument"] == "centred-form"
        ck.check(_record(box, r))
        for x, y in _interior(box, 3):
            blow, T, _, _ = closed_form(spec.problem_at(x, y))
            assert blow == (expect == "BLOWUP")
            if blow:
                assert float(Fr(r["T_lo"])) <= T <= float(Fr(r["T_hi"]))


def test_g_ball_encloses_g():
    for f, t in [(Fr(0), Fr(3)), (Fr(-1, 2), Fr(2)), (Fr(3), Fr(1, 7))]:
        g = g_ball(f, t)
        exact = float(t) if f == 0 else math.expm1(2 * float(f) * float(t)) / (2 * float(f))
        assert g.lower() <= exact * (1 + 1e-15) and exact * (1 - 1e-15) <= g.upper()


# --- the checker's own enclosures (kinds/cell_enclosures.py): soundness and completeness -------
import flint  # noqa: E402

from symbolic_tf.certify.search import _polymat as pm  # noqa: E402  (search side: only to compare completeness)
from symbolic_tf.exact.definiteness import inertia  # noqa: E402
from symbolic_tf.certify.check import cell_enclosures as ce  # noqa: E402

small = st.fractions(min_value=-3, max_value=3, max_denominator=4)


@st.composite
def sym_polys(draw):
    """(n, {monomial: symmetric fmpq_mat}) of total degree ≤ 2, often shifted towards PD."""
    n = draw(st.sampled_from([1, 2, 3]))
    monos = [(0, 0), (1, 0), (0, 1)] + ([(2, 0), (1, 1), (0, 2)] if draw(st.booleans()) else [])
    terms = {}
    for mono in monos:
        if mono != (0, 0) and draw(st.integers(0, 3)) == 0:
            continue
        upper = {(i, j): draw(small) for i in range(n) for j in range(i, n)}
        if mono == (0, 0):
            shift = draw(st.sampled_from([0, 1, 2, 4, 8]))
            upper = {k: v + (shift if k[0] == k[1] else 0) for k, v in upper.items()}
        terms[mono] = flint.fmpq_mat(n, n, [ce.rat(upper[min(i, j), max(i, j)]) for i in range(n) for j in range(n)])
    return n, terms


@st.composite
def boxes(draw):
    x0, y0 = draw(small), draw(small)
    hx = draw(st.sampled_from([Fr(0), Fr(1, 16), Fr(1, 4), Fr(1, 2), Fr(1)]))
    hy = draw(st.sampled_from([hx, Fr(0), Fr(1, 8), Fr(1, 2)]))
    return (x0, x0 + hx, y0, y0 + hy)


def _grid(box, n, closed):
    """n×n rational points of the closed box (with its edges) or of its relative interior."""
    x0, x1, y0, y1 = box
    ts = [Fr(k, n - 1) for k in range(n)] if closed else [Fr(2 * k + 1, 2 * n) for k in range(n)]
    return [(x0 + (x1 - x0) * a, y0 + (y1 - y0) * b) for a in ts for b in ts]


@settings(max_examples=200, deadline=None)
@given(sym_polys(), boxes())
def test_enclosures_are_sound_and_at_least_as_complete_as_polymat(poly, box):
    n, terms = poly
    P = ce.MatPoly(n, n, terms)
    psd, pd = ce.psd_on_box(P, box), ce.pd_on_open_box(P, box)
    assert psd or not pd  # ≻ 0 on the open box forces ⪰ 0 on its closure
    event(f"psd={psd} pd={pd}")
    if psd:  # soundness: PSD at every grid point of the closed box (exact inertia)
        assert all(inertia(P.at(x, y))[1] == 0 for x, y in _grid(box, 5, closed=True))
    if pd:  # soundness: PD at every grid point of the open box
        assert all(inertia(P.at(x, y))[0] == n for x, y in _grid(box, 5, closed=False))
    # completeness: whatever the search side's polymat proves, the checker's code proves too
    qbox = tuple(ce.rat(v) for v in box)
    if pm.psd_on_box(dict(terms), qbox)[0]:
        assert psd
    if pm.pd_on_open_box(dict(terms), qbox)[0]:
        assert pd
    if n == 1:  # scalar ranges: enclose every grid value, and are no wider than polymat's
        lo, hi = ce.scalar_range(P, box)
        assert all(lo <= P.at(x, y)[0, 0] <= hi for x, y in _grid(box, 5, closed=True))
        plo, phi, _ = pm.scalar_bounds(dict(terms), qbox)
        assert plo <= lo and hi <= phi


@settings(max_examples=100, deadline=None)
@given(sym_polys(), sym_polys(), small, small, st.lists(small, min_size=3, max_size=3))
def test_enclosure_arithmetic_agrees_pointwise(p1, p2, x, y, z):
    (n, t1), (m, t2) = p1, p2
    P, Q = ce.MatPoly(n, n, t1), ce.MatPoly(m, m, t2)
    Px, Qx = P.at(x, y), Q.at(x, y)
    assert (P - P).terms == {} and (P + P).at(x, y) == Px * 2 and (-P).at(x, y) == -Px
    assert P.times(Fr(-3, 2)).at(x, y) == Px * ce.rat(Fr(-3, 2))
    zz = z[:n]
    zc = flint.fmpq_mat(n, 1, [ce.rat(v) for v in zz])
    assert P.quad(zz).at(x, y) == zc.transpose() * Px * zc
    if n == m:
        assert (P @ Q).at(x, y) == Px * Qx
        assert (P @ Q).degree <= P.degree + Q.degree
    s = ce.MatPoly(1, 1, {k: flint.fmpq_mat(1, 1, [v[0, 0]]) for k, v in t2.items()})
    assert P.times(s).at(x, y) == Px * s.at(x, y)[0, 0]


def test_enclosures_refuse_non_symmetric_and_malformed_input():
    N = ce.MatPoly.constant([[1, 1], [0, 1]])
    assert not ce.psd_on_box(N, (0, 1, 0, 1)) and not ce.pd_on_open_box(N, (0, 1, 0, 1))
    with pytest.raises(ValueError):
        ce.rat_box((1, 0, 0, 1))
    with pytest.raises(TypeError):
        ce.rat(0.5)
    # x(1 − x) ≥ 0 on [0, 1] is PSD but not PD on the closed box: the open-box test may say yes,
    # the closed-box one is never fooled by a sign change: x − 1/2 on [0, 1]
    assert not ce.psd_on_box(ce.MatPoly.affine([[Fr(-1, 2)]], [[1]], [[0]]), (0, 1, 0, 1))
    assert ce.pd_on_open_box(ce.MatPoly.affine([[0]], [[1]], [[0]]), (0, 1, 0, 1))  # x > 0 on (0, 1)
    assert not ce.pd_on_open_box(ce.MatPoly.affine([[0]], [[1]], [[0]]), (-1, 1, 0, 1))


@settings(max_examples=60, deadline=None)
@given(cases())
def test_checker_enclosures_cover_the_search_side_on_search_cells(case):
    """Completeness spot-check on the cells the search sees: every polymat (search) decision on the
    slice's polynomials is reproduced by the checker's own enclosures."""
    doc, box = case
    spec = parse_map_spec(doc)
    pen = pencil_for(spec)
    ck = CellChecker(spec)
    qbox = tuple(ce.rat(v) for v in box)
    for ours, theirs in [(ck.S, pen.S), (-ck.Q, pm.scale(pen.Q, -1)), (ck.M, pen.M), (ck.f, pen.f),
                         (-ck.f, pm.scale(pen.f, -1))]:
        if pm.psd_on_box(theirs, qbox)[0]:
            assert ce.psd_on_box(ours, box)
        if pm.pd_on_open_box(theirs, qbox)[0]:
            assert ce.pd_on_open_box(ours, box)
    z = (Fr(1), Fr(-1, 2))
    for ours, theirs in [(ck.S, pen.S), (ck.Q, pen.Q), (ck.M, pen.M)]:
        lo, hi = ce.scalar_range(ours.quad(z), box)
        plo, phi, _ = pm.scalar_bounds(pm.quad(theirs, z), qbox)
        assert plo <= lo and hi <= phi


@settings(max_examples=25, deadline=None)
@given(cases(), st.lists(st.tuples(st.fractions(min_value=-1, max_value=1, max_denominator=32),
                                   st.fractions(min_value=-1, max_value=1, max_denominator=32),
                                   st.sampled_from([Fr(0), Fr(1, 32), Fr(1, 8), Fr(1, 2)])), min_size=1, max_size=12))
def test_batched_cells_equal_cell_by_cell_and_recheck(case, corners):
    """certify_cells on a batch gives, cell by cell, the verdicts of certify_cell one box at a time
    (the stacked float search is the per-box search), and every PROVED / OUTSIDE verdict re-checks."""
    doc, box0 = case
    spec = parse_map_spec(doc)
    pen = pencil_for(spec)
    boxes = [box0] + [(x, x + h, y, y + h) for x, y, h in corners]
    batch = certify_cells(pen, boxes)
    assert batch == [certify_cell(pen, b) for b in boxes]
    ck = CellChecker(spec)
    for b, r in zip(boxes, batch):
        if r["status"] == "PROVED":
            ck.check(_record(b, r))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.fractions(min_value=-1, max_value=1, max_denominator=64),
                          st.fractions(min_value=-1, max_value=1, max_denominator=64)), min_size=1, max_size=6),
       st.sampled_from(["a", "disk"]))
def test_stacked_float_guesses_equal_the_per_point_computation(points, which):
    """The stacked (Σ₀, R, f) and top directions are bit for bit those of Pencil.floats_at and one
    eigh per 2×2 matrix, so batching cannot change which z, Γ the exact side tries."""
    if which == "a":
        doc = spec_doc(("0", "0"), ("1/2", "-1/4"), 0, "1", [[1, "1/4"], ["1/4", "1/2"]], False)
    else:
        doc = {"family": "cov-disk", "problem": {"variant": "softmax", "d": 2, "A": [[3, 0], [0, -1]],
                                                 "V": [[1, 0], [0, 1]], "F": [[-1, 0], [0, -1]]}}
    pen = pencil_for(parse_map_spec(doc))
    xs, ys = [float(x) for x, _ in points], [float(y) for _, y in points]
    S, R, f = cells_mod._floats_stacked(pen, xs, ys)
    lam, z = cells_mod._top_direction(S, R)
    for k, (x, y) in enumerate(zip(xs, ys)):
        S1, R1, f1 = pen.floats_at(x, y)
        assert np.array_equal(S[k], S1) and np.array_equal(R[k], R1) and f[k] == f1
        w, U = np.linalg.eigh(S1)
        w = np.maximum(w, 1e-300)
        Sh = (U * np.sqrt(w)) @ U.T
        l1, E = np.linalg.eigh(Sh @ R1 @ Sh)
        z1 = (U / np.sqrt(w)) @ U.T @ E[:, -1]
        assert lam[k] == l1[-1] and np.array_equal(z[k], z1)


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6) | st.sampled_from([0.0, 1.0, -1.0]),
       st.sampled_from([1, 2, 8, 20, 40]))
def test_limit_denominator_in_integers_is_fractions(x, bits):
    assert cells_mod._limit_denominator(x, 2 ** bits) == Fr(x).limit_denominator(2 ** bits)
