"""Forgeries of ``cell-lmi`` (kinds/cell_lmi.py), the standalone whole-cell trace-functional LMI certificate
data = {"spec", "cell"}: one forgery per declared hypothesis, each consistent in every other field (the cell's
claim sentence and the certificate's claim re-rendered, the spec hash recomputed), plus the reviewer's moves
(the certificate moved to a neighbouring cell or a wider box).

Genuine certificates (committed, tests/soundness/forgeries/data/; ``_regenerate()`` rebuilds them with the cell
search, a second each):

* ``cell-lmi-cluster.json`` — V = [[1, x], [0, 1]], A = [[y, 1], [−1, −1]], Σ₀ = I (issue 49's first map), cell
  [−2, −3/2] × [−1, −3/4]: CLUSTERING of rank 0 (upper direction, κ = 0, c > 0).
* ``cell-lmi-blowup.json`` — V = [[1, −x], [x, 1]], A = [[y, 1], [0, y]], cell [−1/2, 0] × [3/4, 1]: BLOWUP with
  a bracket (lower direction).
* ``cell-lmi-growth.json`` — the same cell as ``cell-lmi-blowup``, T_lo from a growth bound of the same
  y = tr(PΣ) (``a``, ``lam_a``, ``kappa_a``: ẏ ≤ κ⁺y + a·y²) instead of the norm bounds.
* ``cell-lmi-drift.json`` — the drift model F = [[x, 1/2], [0, x]], A = [[y, 1], [−1/2, −1]], V = [[1, 1/2],
  [−1/4, 1]], cell [1/4, 1/2] × [−2, −13/8]: BOUNDED (κ > 0 and c > 0: tr(PΣ) ≤ max(y₀, κ/c)).
"""
from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from .cellforge import load, recell, save
from .forge import accepts, rejects

MAP1 = {"family": "parameter", "resolution": [8, 8], "max_depth": 3, "x": {"range": [-2, 2]}, "y": {"range": [-1, 1]},
        "problem": {"variant": "softmax", "d": 2, "A": [["y", 1], [-1, -1]], "V": [[1, "x"], [0, 1]],
                    "initial": {"mean": [0, 0], "cov": [[1, 0], [0, 1]]}}}
ROT = {"family": "parameter", "resolution": [8, 8], "max_depth": 3, "x": {"range": [-2, 2]}, "y": {"range": [-1, 1]},
       "problem": {"variant": "softmax", "d": 2, "A": [["y", 1], [0, "y"]], "V": [[1, "-x"], ["x", 1]],
                   "initial": {"mean": [0, 0], "cov": [[1, "1/4"], ["1/4", "1/2"]]}}}
DRIFT = {"family": "parameter", "resolution": [8, 8], "max_depth": 3, "x": {"range": [-1, 1]}, "y": {"range": [-2, 1]},
         "problem": {"variant": "softmax", "d": 2, "A": [["y", 1], ["-1/2", -1]], "V": [[1, "1/2"], ["-1/4", 1]],
                     "F": [["x", "1/2"], [0, "x"]], "b": [0, 0], "initial": {"mean": [0, 0], "cov": [[1, 0], [0, 1]]}}}
CELLS = {"cell-lmi-cluster": (MAP1, ("-2", "-3/2", "-1", "-3/4")),
         "cell-lmi-growth": (ROT, ("-1/2", "0", "3/4", "1")),
         "cell-lmi-drift": (DRIFT, ("1/4", "1/2", "-2", "-13/8"))}
# cell-lmi-blowup.json (the same cell as cell-lmi-growth, with T_lo from the norm bounds, the search's bracket before
# the growth bound) is kept as committed: it covers the norm-bound route of T_lo


def standalone(spec_doc: dict, box) -> dict:
    """The standalone certificate of the cell search's record for one box (cvxpy needed)."""
    from types import SimpleNamespace

    from symbolic_tf.certify.check import declaration
    from symbolic_tf.certify.check.certificate import Certificate
    from symbolic_tf.certify.check.kinds.cell_lmi import KIND
    from symbolic_tf.certify.search.cell_lmi import LmiCells
    from symbolic_tf.spec.mapspec import parse_map_spec

    r = LmiCells(parse_map_spec(copy.deepcopy(spec_doc))).certify(tuple(Fraction(b) for b in box))
    assert r["status"] == "PROVED", r
    cell = {"box": list(box), "status": "PROVED", "regime": r["regime"], "claim": r["claim"],
            "certificate": {"kind": KIND, "argument": r["argument"], "data": r["data"]}}
    for key in ("rank", "T_lo", "T_hi"):
        if r.get(key) is not None:
            cell[key] = r[key]
    data = {"spec": spec_doc, "cell": cell}
    status, claim = declaration(KIND).derive(SimpleNamespace(kind=KIND, status="PROVED", data=data), None)
    return Certificate(kind=KIND, claim=claim, status=status, data=data).to_dict()


def _regenerate():
    """Rebuild the committed genuine certificates (run by hand)."""
    for name, (spec, box) in CELLS.items():
        save(name, standalone(spec, box))


@pytest.fixture(scope="module")
def cluster():
    c = load("cell-lmi-cluster")
    accepts(c)
    return c


@pytest.fixture(scope="module")
def blowup():
    c = load("cell-lmi-blowup")
    accepts(c)
    return c


@pytest.fixture(scope="module")
def growth():
    c = load("cell-lmi-growth")
    accepts(c)
    return c


@pytest.fixture(scope="module")
def drift():
    c = load("cell-lmi-drift")
    accepts(c)
    return c


def test_the_committed_genuine_certificates_still_check(cluster, blowup, drift):
    assert cluster["claim"]["subject"] == "CLUSTERING" and cluster["claim"]["params"]["rank"] == 0
    assert blowup["claim"]["subject"] == "BLOWUP" and "T_hi" in blowup["claim"]["params"]
    assert drift["claim"]["subject"] == "BOUNDED"
    assert all(c["claim"]["quantifier"] == "every point of the cell" for c in (cluster, blowup, drift))


# --- the slice ----------------------------------------------------------------------------------------
def test_a_sigma0_slice(cluster):
    """The coordinates moved into Σ₀ (parameters fixed): not a parameter slice."""
    def sigma0_only(s):
        s["problem"].update(A=[[0, 1], [-1, -1]], V=[[1, 0], [0, 1]])
        s["problem"]["initial"]["cov"] = [["2 + x/2", 0], [0, "2 + y"]]
    rejects(recell(cluster, spec=sigma0_only), "parameter slice")


def test_a_flow_that_is_not_softmax_type(cluster):
    rejects(recell(cluster, spec=lambda s: s["problem"].update(variant="sinkhorn")), "quadratic \\(softmax-type\\)")


def test_a_depth_schedule(cluster):
    phases = [{"duration": "1/100"}, {"duration": 1, "A": [[1, 1], [-1, -1]]}]
    rejects(recell(cluster, spec=lambda s: s["problem"].update(phase=phases)), "depth schedule")


# --- the cell -----------------------------------------------------------------------------------------
def test_moved_to_a_neighbouring_cell(cluster, blowup):
    """The clustering certificate moved across y = 0 (where A + Aᵀ is indefinite); the blow-up certificate
    moved down to y ∈ [1/2, 3/4] (its lower form fails there)."""
    rejects(recell(cluster, cell=lambda c: c.update(box=["-2", "-3/2", "1/4", "1/2"])), "fails on the cell")
    rejects(recell(blowup, cell=lambda c: c.update(box=["-1/2", "0", "-1/4", "0"])), "fails on the cell")


def test_a_wider_box(cluster, blowup):
    """The same data on a box containing the genuine cell but reaching y = 1/4 (cluster) or y = 0 (blow-up)."""
    rejects(recell(cluster, cell=lambda c: c.update(box=["-2", "-3/2", "-1", "1/4"])), "fails on the cell")
    rejects(recell(blowup, cell=lambda c: c.update(box=["-1/2", "0", "0", "1"])), "fails on the cell")


def test_a_changed_P(cluster, drift):
    """P scaled anisotropically (still ≻ 0): the upper form fails on the cell."""
    def skew(d):
        d["P"][0][0] = str(Fraction(d["P"][0][0]) * 8)
    rejects(recell(cluster, data=skew), "fails on the cell")
    rejects(recell(drift, data=skew), "fails on the cell")


def test_a_changed_c(blowup, cluster):
    """c raised tenfold: the lower form Q_P − ΣλD − c·ppᵀ ⪰ 0 fails; for the upper form as well."""
    up = lambda d: d.update(c=str(Fraction(d["c"]) * 10))   # noqa: E731
    rejects(recell(blowup, data=up), "− c·ppᵀ ⪰ 0 fails")
    rejects(recell(cluster, data=up), "\\+ c·ppᵀ ⪯ 0 fails")


def test_a_lowered_rate(drift):
    """κ lowered below the drift's rate: PF + FᵀP − κP ⪯ 0 fails."""
    rejects(recell(drift, data=lambda d: d.update(kappa="-1")), "PF \\+ FᵀP − κP ⪯ 0 fails")


def test_P_not_positive_definite(cluster):
    rejects(recell(cluster, data=lambda d: d.update(P=[["1", "2"], ["2", "1"]])), "not symmetric positive definite")
    rejects(recell(cluster, data=lambda d: d.update(P=[["1", "0"], ["1/2", "1"]])), "not symmetric positive definite")


def test_a_negative_multiplier(blowup):
    rejects(recell(blowup, data=lambda d: d.update(lam=["-1"])), "non-negative multipliers")
    rejects(recell(blowup, data=lambda d: d.update(c="0")), "c > 0")
    rejects(recell(blowup, data=lambda d: d.update(c="-1")), "c must be ≥ 0")


def test_a_split_out_of_range(cluster):
    rejects(recell(cluster, data=lambda d: d.update(split=9)), "split must be in")


def test_sigma0_zero_somewhere(blowup):
    """A map spec needs Σ₀ ≻ 0 (the parser refuses Σ₀ = 0), so the checker's own Σ₀ polynomial is replaced by 0
    (positive semidefinite, but Σ ≡ 0 does not blow up): tr(PΣ₀) > 0 fails."""
    from symbolic_tf.certify.check.cell_enclosures import MatPoly
    from symbolic_tf.certify.check.kinds.cell_lmi import LmiCellChecker
    from symbolic_tf.spec.errors import CertificationFailed
    from symbolic_tf.spec.mapspec import parse_map_spec

    with pytest.raises(CertificationFailed, match="invalid map spec"):
        from symbolic_tf.certify.check import check
        check(recell(blowup, spec=lambda s: s["problem"]["initial"].update(cov=[[0, 0], [0, 0]])))
    ck = LmiCellChecker(parse_map_spec(blowup["data"]["spec"]))
    cell = blowup["data"]["cell"]
    assert ck.check(cell).subject == "BLOWUP"
    ck.S = MatPoly(2, 2)
    with pytest.raises(CertificationFailed, match="tr\\(PΣ₀\\) > 0 fails"):
        ck.check(cell)


def test_a_tightened_bracket(blowup):
    lo, hi = (Fraction(blowup["data"]["cell"][k]) for k in ("T_lo", "T_hi"))
    rejects(recell(blowup, cell=lambda c: c.update(T_hi=str(hi / 2)), data=lambda d: d.update(T_hi=str(hi / 2))),
            "T_hi is below")
    rejects(recell(blowup, cell=lambda c: c.update(T_lo=str(lo * 2)), data=lambda d: d.update(T_lo=str(lo * 2))),
            "T_lo exceeds")
    rejects(recell(blowup, data=lambda d: d.update(u_A=["0"])), "norm bound")
    rejects(recell(blowup, cell=lambda c: c.update(T_lo=str(lo / 2))), "T_lo differs from the derived claim")


def test_a_forged_growth_bound(growth, blowup):
    """T_lo from ẏ ≤ κ⁺y + a·y²: a lowered, a multiplier or the rate changed, T_lo raised past 1/(a·max y₀ + κ⁺),
    the growth data mixed with norm bounds or left without a, a negative a."""
    g = growth["data"]["cell"]["certificate"]["data"]
    assert "a" in g and "u_C" not in g and Fraction(g["T_lo"]) > Fraction(blowup["data"]["cell"]["T_lo"])
    a, lo = Fraction(g["a"]), Fraction(g["T_lo"])
    rejects(recell(growth, data=lambda d: d.update(a=str(a / 2))), "− a·ppᵀ ⪯ 0 fails")
    rejects(recell(growth, data=lambda d: d.update(lam_a=["0"])), "− a·ppᵀ ⪯ 0 fails")
    rejects(recell(growth, data=lambda d: d.update(kappa_a="-1")), "PF \\+ FᵀP − κ_a·P ⪯ 0 fails")
    rejects(recell(growth, data=lambda d: d.update(lam_a=["-1"])), "a > 0 and one multiplier")
    rejects(recell(growth, data=lambda d: d.update(a="-1")), "a > 0 and one multiplier")
    rejects(recell(growth, cell=lambda c: c.update(T_lo=str(lo * 2)), data=lambda d: d.update(T_lo=str(lo * 2))),
            "T_lo exceeds 1/\\(a·max")
    rejects(recell(growth, data=lambda d: d.update(u_F="1")), "no norm bounds")
    rejects(recell(growth, data=lambda d: d.pop("a")), "belong to a growth bound")
    rejects(recell(growth, data=lambda d: d.pop("kappa_a")), "needs lam_a and kappa_a")
    rejects(recell(growth, data=lambda d: d.update(lam_a=["1", "2"])), "one multiplier")


def test_an_upper_certificate_with_a_bracket(cluster):
    rejects(recell(cluster, data=lambda d: d.update(T_hi="1")), "carries no T_hi")
    rejects(recell(cluster, data=lambda d: d.update(a="1", lam_a=["0"], kappa_a="0")), "carries no a")


def test_a_forged_regime(cluster, blowup, drift):
    """The derived regime is never read: CLUSTERING restated as BOUNDED, BOUNDED as CLUSTERING of rank 0, the
    blow-up cell as BOUNDED, and a changed direction."""
    def bounded(c):
        c.pop("rank", None)
        c.pop("T_lo", None)
        c.pop("T_hi", None)
        c["regime"] = "BOUNDED"
    rejects(recell(cluster, cell=bounded), "the cell says BOUNDED, the certificate proves CLUSTERING")
    rejects(recell(blowup, cell=bounded), "the cell says BOUNDED, the certificate proves BLOWUP")
    rejects(recell(drift, cell=lambda c: c.update(regime="CLUSTERING", rank=0)),
            "the cell says CLUSTERING, the certificate proves BOUNDED")
    rejects(recell(cluster, data=lambda d: d.update(direction="lower")), "fails on the cell|c > 0")


def test_a_swapped_claim_sentence(cluster, drift):
    forged = copy.deepcopy(cluster)
    forged["data"]["cell"]["claim"] = drift["data"]["cell"]["claim"]
    rejects(forged, "claim text is not the derived claim")


def test_an_outside_cell_with_a_regime_claim(cluster):
    """Status UNDECIDED carries nothing; an OUTSIDE cell needs zᵀΣ₀z ≤ 0 on the cell (Σ₀ = I here)."""
    rejects(recell(cluster, cell=lambda c: c.update(status="UNDECIDED")), "carries no certificate")
    rejects(recell(cluster, cell=lambda c: c.update(status="OUTSIDE"), data=lambda d: (d.clear(), d.update(z=["0", "1"]))),
            "OUTSIDE: zᵀΣ₀z ≤ 0 fails")


def test_a_certificate_of_another_kind(cluster):
    rejects(recell(cluster, kind="cell-tube"), "is not cell-lmi|kind")


def test_the_heads_are_the_exact_polynomials():
    """The checker's interpolated C(x, y), Ã(x, y), F(x, y) equal the heads of the problem at random rational
    points (the scale times A is of degree 2 in x here), and Q_P(x, y) equals the point form there."""
    import flint
    import numpy as np

    from symbolic_tf.certify.check.flows import quadratic_heads
    from symbolic_tf.certify.check.kinds.cell_lmi import LmiCellChecker, parameters_problem
    from symbolic_tf.certify.check.lmi import trace_qform
    from symbolic_tf.spec.mapspec import parse_map_spec

    doc = copy.deepcopy(DRIFT)
    doc["problem"].update(scale="1 + x/4", A=[["y", "1 - x"], ["-1/2", -1]], V=[[1, "x/2"], ["-1/4", "1 + y"]])
    spec = parse_map_spec(doc)
    ck = LmiCellChecker(spec)
    P = flint.fmpq_mat(2, 2, [2, flint.fmpq(1, 3), flint.fmpq(1, 3), 1])
    Q = ck.q_form(P)
    rng = np.random.default_rng(7)
    for _ in range(4):
        x, y = (Fraction(int(v), 97) for v in rng.integers(-90, 90, size=2))
        p = parameters_problem(spec, x, y)
        (C, A), = quadratic_heads(p)
        (Cp, Ap), = ck.heads
        assert Cp.at(x, y) == C and Ap.at(x, y) == A and ck.F.at(x, y) == p.exact.F
        assert Q.at(x, y) == trace_qform(P, [(C, A)], 2)
