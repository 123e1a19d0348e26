"""Forgeries of ``tube-return`` (kinds/tube_return.py): one per hypothesis of the Poincaré-return
argument for a bounded solution, each consistent in every other field, plus the review's hunt
(another Σ₀, the drift removed, a box that no longer catches the return, the tubes swapped, another
integration method).

The genuine certificate (data/tube-return.json) is the library's search on the drift model near its
rank-one limit cycle (seed 0 #8 of the general-V set, Σ₀ moved near the cycle, as in
tests/soundness/test_tampering.py); it is committed because the search takes several seconds.
Regenerate it by hand with ``_regenerate()``.
"""
from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import flint
import pytest

from symbolic_tf.certify.check.kinds import tube_return

from .forge import accepts, forge, q, rejects

DATA = Path(__file__).parent / "data" / "tube-return.json"
DOC = {"variant": "softmax", "d": 2, "A": [["0", "0"], ["1", "1/2"]], "V": [["1", "-1"], ["5/3", "-1/3"]],
       "F": [["3/2", "3/2"], ["2/3", "-1/4"]],
       "initial": {"cov": [["18015789/10000000", "30567926/10000000"], ["30567926/10000000", "51865550/10000000"]]}}
_P = "the stated claim is not the one the data prove"


def _regenerate():  # pragma: no cover - run by hand
    from symbolic_tf.certify.search.validated._tube_return import find_return
    from symbolic_tf.spec.problem import parse_problem

    v = find_return(parse_problem(DOC), seconds=60.0)
    assert v.status == "PROVED", v.reason
    DATA.write_text(json.dumps(v.evidence["certificate"], indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def genuine():
    return json.loads(DATA.read_text(encoding="utf-8"))


def test_committed_genuine_certificate_checks(genuine):
    res = accepts(genuine)
    assert res.status == "PROVED" and res.claim.subject == "BOUNDED"


def _box(cert, factor):
    """The box scaled by ``factor`` around its centre in the coordinates off the section."""
    d = cert["data"]
    lo, hi = list(d["box_lo"]), list(d["box_hi"])
    for k in range(len(lo)):
        if k != d["section"]:
            a, b = Fraction(lo[k]), Fraction(hi[k])
            mid, half = (a + b) / 2, factor * (b - a) / 2
            lo[k], hi[k] = q(mid - half), q(mid + half)
    return {"box_lo": lo, "box_hi": hi}


# ---------------------------------------------------------------- one forgery per hypothesis
def test_tube_return_needs_the_quadratic_flow(genuine):
    rejects(forge(genuine, problem={**genuine["problem"], "variant": "sinkhorn"}),
            r"not the quadratic softmax-type field")
    rejects(forge(genuine, problem={**genuine["problem"], "relu": {"W1": [[1, 0]], "W2": [[1], [0]]}}),
            r"ReLU feed-forward term")
    sched = {**genuine["problem"], "phase": [{"duration": "1/8"}, {"duration": 1, "A": [[1, 0], [0, -1]]}]}
    rejects(forge(genuine, problem=sched), r"constant parameters only")
    I5 = [[int(i == j) for j in range(5)] for i in range(5)]
    p5 = {k: v for k, v in genuine["problem"].items() if k != "F"}
    rejects(forge(genuine, problem={**p5, "d": 5, "A": I5, "V": I5, "initial": {"cov": I5}}), r"d ≤ 4 only")


def test_tube_return_sigma0_not_psd(genuine):
    m = copy.deepcopy(genuine)
    m["problem"]["initial"] = {"cov": [["1", "0"], ["0", "-1"]]}
    rejects(m, r"not positive semidefinite")


def test_tube_return_section_box_malformed(genuine):
    d = genuine["data"]
    j = d["section"]
    rejects(forge(genuine, data={"section": 3}), r"section must be an integer in \[0, 2\]")
    off = list(d["box_hi"])
    off[j] = q(Fraction(off[j]) + Fraction(1, 10 ** 9))
    rejects(forge(genuine, data={"box_hi": off}), r"box must lie on the section")
    k = next(i for i in range(3) if i != j)
    lo, hi = list(d["box_lo"]), list(d["box_hi"])
    lo[k], hi[k] = d["box_hi"][k], d["box_lo"][k]
    rejects(forge(genuine, data={"box_lo": lo, "box_hi": hi}), r"box_lo must not exceed box_hi")
    rejects(forge(genuine, data={"box_lo": d["box_lo"][:2], "box_hi": d["box_hi"][:2]}), r"m = 3 entries")


def test_tube_return_first_crossing_fails(genuine):
    d = genuine["data"]
    rejects(forge(genuine, data={"steps": d["steps"][:-8]}),
            r"the tube from Σ₀: the tube's end is not past the section")
    # the box shrunk to a thousandth: the crossing from Σ₀ is no longer inside it
    rejects(forge(genuine, data=_box(genuine, Fraction(1, 1000))),
            r"the tube from Σ₀: its crossing enclosure is not inside the section box")
    rejects(forge(genuine, data={"steps": [d["steps"][0], d["steps"][-1]]}), r"the tube from Σ₀: .*step 1")


def test_tube_return_return_fails(genuine):
    d = genuine["data"]
    rejects(forge(genuine, data={"return_steps": d["return_steps"][:-8]}),
            r"the tube from the box: the tube's end is not past the section")
    # the box tripled (the crossing from Σ₀ still inside): the return is not certified any more
    rejects(forge(genuine, data=_box(genuine, 3)), r"the tube from the box: ")


def test_tube_return_window_at_the_start(genuine, monkeypatch):
    """A window starting at t_a' = 0 cannot come from replayed tubes (the box lies on the section, so
    its first box is never strictly before it); the check, fed a window at 0, names the hypothesis."""
    real = tube_return.crossing_of_states
    calls = []

    def crossing(*args, **kw):
        E, t_a, t_N = real(*args, **kw)
        calls.append(t_a)
        return E, (flint.fmpq(0) if len(calls) == 2 else t_a), t_N

    monkeypatch.setattr(tube_return, "crossing_of_states", crossing)
    rejects(genuine, r"return window must start after t = 0")
    assert len(calls) == 2 and calls[1] > 0


def test_tube_return_claim_rebound(genuine):
    lo, hi = genuine["claim"]["params"]["return_time_lo"], genuine["claim"]["params"]["return_time_hi"]
    rejects(forge(genuine, params={"return_time_lo": lo, "return_time_hi": q(Fraction(lo) + Fraction(1, 10 ** 6))}), _P)
    rejects(forge(genuine, params={"return_time_lo": q(Fraction(hi) - Fraction(1, 10 ** 6)), "return_time_hi": hi}), _P)
    rejects(forge(genuine, subject="EQUILIBRIUM", params={}), _P)
    rejects(forge(genuine, quantifier="every Σ₀ ⪰ 0"), _P)
    rejects(forge(genuine, status="REFUTED"), r"status must be PROVED")


# ---------------------------------------------------------------- the review's hunt
def test_tube_return_other_problems(genuine):
    prob = genuine["problem"]
    rejects(forge(genuine, problem={k: v for k, v in prob.items() if k != "F"}), r"the tube from Σ₀: ")
    rejects(forge(genuine, problem={**prob, "initial": {"cov": [["0", "0"], ["0", "0"]]}}), r"the tube from Σ₀: ")
    cov = [[q(2 * Fraction(x)) for x in r] for r in DOC["initial"]["cov"]]
    rejects(forge(genuine, problem={**prob, "initial": {"cov": cov}}), r"the tube from Σ₀: ")


def test_tube_return_tubes_swapped_or_method_changed(genuine):
    d = genuine["data"]
    rejects(forge(genuine, data={"steps": d["return_steps"], "return_steps": d["steps"]}), r"the tube from (Σ₀|the box): ")
    rejects(forge(genuine, data={"method": "direct"}), r"the tube from (Σ₀|the box): ")
    rejects(forge(genuine, data={"sense": "decreasing"}), r"the tube from Σ₀: the tube's end is not past the section")


def test_tube_return_smaller_box_is_a_true_claim(genuine):
    """The box shrunk to a third is accepted: the return contracts (≈ 0.36 per turn), so the smaller box
    still catches both crossings — a re-derived proof, and the solution is indeed bounded (DOP853 at
    rtol 1e-12 over fifteen periods: log‖Σ‖ stays within the cycle's range)."""
    from symbolic_tf.spec.problem import parse_problem

    from ..oracle import simulate

    accepts(forge(genuine, data=_box(genuine, Fraction(1, 3))))
    res = simulate(parse_problem(genuine["problem"]), 30.0, times=[0.5 * k for k in range(61)])
    assert res.status == "reached" and max(s for _t, s, _U in res.samples) < 3
