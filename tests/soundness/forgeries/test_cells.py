"""Forgeries of ``cell-riccati-vI`` cells (kinds/cells.py): one per hypothesis of the whole-cell
argument, each consistent in every other field (claim words re-rendered, totals recomputed),
through the map checker and the standalone certificate form."""
from __future__ import annotations

import copy
import hashlib
import json
import math
from fractions import Fraction

import pytest

from symbolic_tf.certify.check.certificate import Certificate
from symbolic_tf.certify.check import check
from symbolic_tf.certify.check.claims import Claim, Quantifier
from symbolic_tf.certify.check.cells import OUTSIDE_TEXT
from symbolic_tf.certify.check.kinds.cell_riccati_vI import KIND
from symbolic_tf.regimes.maps import run_map
from symbolic_tf.spec.errors import CertificationFailed

from ..oracle import closed_form_Tstar
from .forge import rejects
from .test_maps import DISK, SLICE_A, _global_at, _problem_at, _rejected, _retotal


@pytest.fixture(scope="module")
def map_a():
    return run_map(SLICE_A)


@pytest.fixture(scope="module")
def disk():
    return run_map(DISK)


def _claim_text(regime, params):
    return Claim(regime, Quantifier.EVERY_IN_CELL, params).text()


def _standalone(spec_doc, cell):
    """A standalone certificate of one cell, its claim written as the forger wants it."""
    cell = {k: v for k, v in cell.items() if k not in ("id", "point")}
    params = {"box": [str(x) for x in cell["box"]],
              "spec_sha256": hashlib.sha256(json.dumps(spec_doc, sort_keys=True, ensure_ascii=False).encode()).hexdigest()}
    params.update({k: cell[k] for k in ("T_lo", "T_hi", "rank") if cell.get(k) is not None})
    claim = Claim(cell["regime"], Quantifier.EVERY_IN_CELL, params)
    return Certificate(kind=KIND, claim=claim, status="PROVED", data={"spec": spec_doc, "cell": cell}).to_dict()


def _first(doc, **kv):
    return next(c for c in doc["cells"] if all(c.get(k) == v for k, v in kv.items()))


def _centre(c):
    x0, x1, y0, y1 = (Fraction(b) for b in c["box"])
    return (x0 + x1) / 2, (y0 + y1) / 2


def _move(src, dst):
    """dst takes src's certificate, regime, rank, bracket and words (a consistent relabel)."""
    for k in ("rank", "T_lo", "T_hi"):
        dst.pop(k, None)
        if src.get(k) is not None:
            dst[k] = src[k]
    dst.update(status=src["status"], regime=src["regime"], claim=src["claim"], certificate=copy.deepcopy(src["certificate"]))
    dst.pop("reason", None)
    dst.pop("point", None)


def test_genuine_standalone_cell_checks(map_a):
    c = _first(map_a, regime="BLOWUP", status="PROVED")
    assert check(_standalone(SLICE_A, c)).status == "PROVED"


def test_slice_with_a_general_V(map_a):
    c = _first(map_a, regime="BLOWUP", status="PROVED")
    spec = copy.deepcopy(SLICE_A)
    spec["problem"]["V"] = [[1, "1/10"], [0, 1]]
    rejects(_standalone(spec, c), r"V is not a multiple of the identity")


def test_proved_cell_across_the_cone_boundary(disk):
    """A rim cell (Σ₀ not PD on all of it) given a neighbouring BLOWUP cell's certificate."""
    bad = copy.deepcopy(disk)
    src = _first(bad, regime="BLOWUP", status="PROVED")
    rim = next(c for c in bad["cells"] if c["status"] == "UNDECIDED" and "not positive definite" in c.get("reason", ""))
    _move(src, rim)
    _rejected(_retotal(bad), r"Σ₀ is not positive definite on the open cell")


def test_outside_cell_inside_the_domain(disk):
    """A PROVED cell declared OUTSIDE with a corner cell's witness z (words and regime consistent)."""
    bad = copy.deepcopy(disk)
    src = _first(bad, status="OUTSIDE")
    dst = _first(bad, regime="BLOWUP", status="PROVED")
    _move(src, dst)
    assert dst["claim"] == OUTSIDE_TEXT and dst["regime"] == "OUTSIDE"
    _rejected(_retotal(bad), r"OUTSIDE: zᵀΣ₀z ≤ 0 fails somewhere on the cell")


def test_blowup_certificate_moved_to_a_global_cell(map_a):
    """A CLUSTERING cell (A + Aᵀ ⪯ 0 there: global) given a BLOWUP cell's certificate and words."""
    bad = copy.deepcopy(map_a)
    dst = _first(bad, regime="CLUSTERING", status="PROVED")
    assert _global_at(bad, *_centre(dst))
    _move(_first(bad, regime="BLOWUP", status="PROVED"), dst)
    _rejected(_retotal(bad), r"BLOWUP: zᵀΣ₀RΣ₀z > 0 fails on the cell|zᵀ\(−2fΣ₀ − Σ₀RΣ₀\)z < 0 fails")


def _bracketed(doc):
    return next(c for c in doc["cells"] if c["regime"] == "BLOWUP" and c.get("T_hi") and Fraction(c["T_lo"]) > 0)


def test_blowup_T_hi_too_small(map_a):
    bad = copy.deepcopy(map_a)
    c = _bracketed(bad)
    lo = c["T_lo"]
    assert closed_form_Tstar(_problem_at(bad, *_centre(c))) > float(Fraction(lo))  # independent: T* > T_lo
    c["T_hi"] = c["certificate"]["data"]["t_hi"] = lo
    c["claim"] = _claim_text("BLOWUP", {"T_lo": lo, "T_hi": lo})
    _rejected(_retotal(bad), r"g\(f_lo, t_hi\)·min zᵀQz ≥ max zᵀΣ₀z fails")


def test_blowup_T_lo_too_large(map_a):
    bad = copy.deepcopy(map_a)
    c = _bracketed(bad)
    hi = c["T_hi"]
    c["T_lo"] = c["certificate"]["data"]["t_lo"] = hi
    c["claim"] = _claim_text("BLOWUP", {"T_lo": hi, "T_hi": hi})
    _rejected(_retotal(bad), r"g\(f_hi, t_lo\) ≤ Γ fails|Σ₀ − Γ·Σ₀RΣ₀ ⪰ 0 fails")


def test_global_certificate_moved_to_a_blowup_cell(map_a):
    """A BLOWUP cell (finite T* by the closed form) given a CLUSTERING cell's certificate and words."""
    bad = copy.deepcopy(map_a)
    dst = _first(bad, regime="BLOWUP", status="PROVED")
    assert closed_form_Tstar(_problem_at(bad, *_centre(dst))) < math.inf
    _move(_first(bad, regime="CLUSTERING", status="PROVED"), dst)
    _rejected(_retotal(bad), r"R ⪯ 0 \(Σ₀RΣ₀ ⪯ 0\) fails on the cell|f < 0 fails|R ≺ 0 with f ≡ 0 fails")


def test_relabelled_cell(map_a):
    """CLUSTERING (collapse to rank 0) relabelled rank 1 — false: Σ(t) = (Σ₀⁻¹ − t(A + Aᵀ))⁻¹ → 0
    when A + Aᵀ ≺ 0 — and relabelled BOUNDED, words re-rendered each time."""
    bad = copy.deepcopy(map_a)
    c = next(c for c in bad["cells"] if c["regime"] == "CLUSTERING" and c["certificate"]["data"].get("via") == "no-drift-contracting")
    c["rank"] = 1
    c["claim"] = _claim_text("CLUSTERING", {"rank": 1})
    _rejected(_retotal(bad), r"rank differs from the derived claim")
    rejects(_standalone(SLICE_A, c), r"rank differs from the derived claim")
    c.pop("rank")
    c["regime"], c["claim"] = "BOUNDED", _claim_text("BOUNDED", {})
    _rejected(_retotal(bad), r"the cell says BOUNDED, the certificate proves CLUSTERING")


def test_standalone_outside_cell_is_no_claim(disk):
    c = _first(disk, status="OUTSIDE")
    with pytest.raises(CertificationFailed, match="an OUTSIDE cell must say regime OUTSIDE"):
        check(_standalone(DISK, {**c, "regime": "CLUSTERING"}))
    # a genuine OUTSIDE cell is no claim of a regime: a standalone certificate of it is refused
    cert = _standalone(DISK, {**c, "regime": "CLUSTERING"})
    cert["data"]["cell"]["regime"] = "OUTSIDE"
    with pytest.raises(CertificationFailed, match="only a PROVED regime cell"):
        check(cert)


@pytest.mark.parametrize("extra", [
    {"phase": [{"duration": "1/100"}, {"duration": "1", "A": [[-1, 0], [0, -1]]}]},
    {"relu": {"W1": [[1, 0], [0, 1], [-1, 0], [0, -1]], "b1": [0, 0, 0, 0],
              "W2": [[-1, 0, 1, 0], [0, -1, 0, 1]]}},
])
def test_slice_with_a_schedule_or_relu(map_a, extra):
    """A genuine BLOWUP cell of slice (a) with its spec given a schedule (A = −I from depth 1/100 on)
    or a ReLU term W₂ReLU(W₁x) = −x (a contracting drift −I): the data are about the depth-0 pencil,
    and the forged spec's flow is another one — with A = −I after t = 1/100, V = I, the closed form
    Σ(t)⁻¹ = Σ(1/100)⁻¹ + 2(t − 1/100)·I stays positive definite: no blow-up."""
    from symbolic_tf.spec.mapspec import parse_map_spec

    c = _first(map_a, regime="BLOWUP", status="PROVED")
    spec = copy.deepcopy(SLICE_A)
    spec["problem"].update(copy.deepcopy(extra))
    parse_map_spec(spec)   # a valid slice: only the certificate is wrong for it
    rejects(_standalone(spec, c), r"need constant parameters|need a Gaussian-closed flow")
