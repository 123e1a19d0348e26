"""Validated Taylor tightening of the blow-up bracket (``blowup-taylor-lmi``): exact T* for
V = I, the reference integrator for non-symmetric V, the independent checker and tampering."""
from __future__ import annotations

import copy
import json
from fractions import Fraction

import mpmath
import pytest

from symbolic_tf.certify.check import check
from symbolic_tf.certify.search._blowup_taylor_lmi import KIND, tighten_blowup_bracket
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem
from symbolic_tf.spec.verdict import PROVED, UNDECIDED

F = Fraction


def fs(q) -> str:
    q = F(q)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def smat(M):
    return [[fs(x) for x in row] for row in M]


def softmax(A, V, cov=None, **kw):
    doc = {"variant": "softmax", "d": len(A), "A": smat(A), "V": smat(V), **kw}
    if cov is not None:
        doc["initial"] = {"cov": smat(cov)}
    return parse_problem(doc)


def eye(d):
    return [[F(int(i == j)) for j in range(d)] for i in range(d)]


def exact_Tstar_vI(A, cov, scale=1):
    """T* = 1/λ_max(Σ₀^{1/2}(A+Aᵀ)Σ₀^{1/2}) for V = I (docs/mathematics.md §4), 50 digits (as an mpf)."""
    with mpmath.workdps(50):
        mp = lambda x: mpmath.mpf(F(x).numerator) / F(x).denominator  # noqa: E731
        d = len(A)
        M = mpmath.matrix([[mp(F(scale) * (A[i][j] + A[j][i])) for j in range(d)] for i in range(d)])
        C = mpmath.matrix([[mp(x) for x in row] for row in cov])
        # Σ₀^{1/2}MΣ₀^{1/2} and MΣ₀ have the same (real) eigenvalues; Σ₀ may be singular
        return 1 / max(mpmath.re(e) for e in mpmath.eig(M * C)[0])


def bracket(v):
    return F(v.evidence["T_lo"]), F(v.evidence["T_hi"])


def contains(v, T) -> bool:
    lo, hi = bracket(v)
    with mpmath.workdps(50):
        return mpmath.mpf(lo.numerator) / lo.denominator <= T <= mpmath.mpf(hi.numerator) / hi.denominator


def lmi_width(v):
    lo, hi = F(v.numerical["lmi_T_lo"]), F(v.numerical["lmi_T_hi"])
    return (hi - lo) / hi


def rel_width(v):
    lo, hi = bracket(v)
    return (hi - lo) / hi


# ----------------------------------------------------------------------------- V = I: exact T*
VI_CASES = {
    "d2": ([[1, F(1, 2)], [0, F(1, 3)]], [[1, F(1, 3)], [F(1, 3), F(1, 2)]], 1),
    "d2-rank1": ([[2, F(-1, 2)], [1, F(1, 2)]], [[1, 1], [1, 1]], 1),
    "d3-scaled": ([[1, F(1, 2), 0], [0, 1, F(1, 3)], [F(1, 4), 0, F(3, 2)]],
                  [[1, 0, F(1, 3)], [0, F(1, 2), 0], [F(1, 3), 0, 1]], F(1, 3)),
}


@pytest.mark.parametrize("name", sorted(VI_CASES))
def test_vI_bracket_contains_exact_Tstar_and_is_narrow(name, record_property):
    A, cov, scale = VI_CASES[name]
    kw = {"scale": fs(scale)} if scale != 1 else {}
    p = softmax(A, eye(len(A)), cov, **kw)
    v = tighten_blowup_bracket(p)
    assert v.status == PROVED, v.reason
    assert v.evidence["regime"] == "BLOWUP"
    assert v.evidence["certificate"]["kind"] == KIND
    T = exact_Tstar_vI(A, cov, scale)
    assert contains(v, T), (bracket(v), T)
    w, w0 = rel_width(v), lmi_width(v)
    record_property("rel_width", float(w))
    record_property("lmi_rel_width", float(w0))
    record_property("steps", v.numerical["steps"])
    assert w < F(1, 10 ** 3)
    assert w * 1000 < w0  # at least a thousand times narrower than the LMI bracket
    check(v.evidence["certificate"])


def test_homogeneity_of_brackets():
    """T*(2Σ₀) = T*(Σ₀)/2 (docs/mathematics.md §4): the two certified brackets are consistent."""
    A, cov, _ = VI_CASES["d2"]
    v1 = tighten_blowup_bracket(softmax(A, eye(2), cov))
    v2 = tighten_blowup_bracket(softmax(A, eye(2), [[2 * x for x in r] for r in cov]))
    lo1, hi1 = bracket(v1)
    lo2, hi2 = bracket(v2)
    assert max(lo1 / 2, lo2) <= min(hi1 / 2, hi2)


# ----------------------------------------------------------------------------- non-symmetric V
NONSYM = {
    "rotation-V": ([[1, 0], [0, 1]], [[1, F(1, 2)], [F(-1, 2), 1]], [[1, F(1, 4)], [F(1, 4), F(1, 2)]]),
    "d3": ([[1, F(1, 2), 0], [0, 1, F(1, 3)], [F(1, 4), 0, 1]],
           [[1, F(1, 3), 0], [F(-1, 3), 1, F(1, 5)], [0, F(-1, 5), F(3, 2)]],
           [[1, 0, F(1, 3)], [0, F(1, 2), 0], [F(1, 3), 0, 1]]),
}


@pytest.mark.parametrize("name", sorted(NONSYM))
def test_nonsymmetric_V_contains_reference_blowup_time(name, record_property):
    from symbolic_tf.numeric.reference import reference_solve_problem

    A, V, cov = NONSYM[name]
    p = softmax(A, V, cov)
    v = tighten_blowup_bracket(p)
    assert v.status == PROVED, v.reason
    lo, hi = bracket(v)
    ref = reference_solve_problem(p, T=2 * hi, dps=30)
    assert ref.blowup
    # the reference stops once ‖Σ‖ > 1e30, i.e. within ~1e-30·T* of the blow-up
    assert contains(v, ref.t_end), (lo, hi, ref.t_end)
    record_property("rel_width", float(rel_width(v)))
    record_property("lmi_rel_width", float(lmi_width(v)))
    assert rel_width(v) < F(1, 10 ** 3)
    assert rel_width(v) * 1000 < lmi_width(v)


def test_direct_method_certificate_checks_and_qr_is_not_worse(record_property):
    A, V, cov = NONSYM["rotation-V"]
    p = softmax(A, V, cov)
    vd = tighten_blowup_bracket(p, method="direct")
    vq = tighten_blowup_bracket(p, method="qr")
    assert vd.status == PROVED and vq.status == PROVED
    assert vd.evidence["certificate"]["data"]["method"] == "direct"
    check(vd.evidence["certificate"])
    record_property("direct_rel_width", float(rel_width(vd)))
    record_property("qr_rel_width", float(rel_width(vq)))
    assert rel_width(vq) <= rel_width(vd)
    # both brackets are proved, so they intersect
    assert max(bracket(vd)[0], bracket(vq)[0]) <= min(bracket(vd)[1], bracket(vq)[1])


def test_multihead_and_json_roundtrip():
    p = parse_problem({"variant": "multihead", "d": 2, "initial": {"cov": [[1, 0], [0, 1]]},
                       "heads": [{"A": [[1, 0], [0, 1]], "V": [[1, "1/2"], ["-1/2", 1]]},
                                 {"A": [["1/2", "1/3"], [0, 1]], "V": [[1, 0], [0, 2]],
                                  "W": [[1, 0], ["1/4", 1]]}]})
    v = tighten_blowup_bracket(p)
    assert v.status == PROVED, v.reason
    assert rel_width(v) < F(1, 10 ** 3)
    cert = json.loads(json.dumps(v.evidence["certificate"]))
    assert check(cert).ok


# ----------------------------------------------------------------------------- tampering
@pytest.fixture(scope="module")
def cert():
    A, cov, _ = VI_CASES["d2"]
    v = tighten_blowup_bracket(softmax(A, eye(2), cov))
    assert v.status == PROVED, v.reason
    return v.evidence["certificate"]


def _tampered(cert, fn):
    c = copy.deepcopy(cert)
    fn(c["data"])
    return c


def _scale(key, factor):
    def fn(data):
        data[key] = fs(F(data[key]) * factor)
    return fn


def _steps(fn):
    def g(data):
        ts = [F(x) for x in data["steps"]]
        fn(ts)
        data["steps"] = [fs(t) for t in ts]
    return g


def _set(ts, i, val):
    ts[i] = val


TAMPER = {
    # a step list is re-integrated, not compared: a *valid* different list may well check
    # (e.g. a slightly longer last step), but no step can reach past the blow-up
    "last time past T_hi": lambda d: d["steps"].__setitem__(-1, d["T_hi"]),
    "last time earlier": _steps(lambda ts: _set(ts, -1, (ts[-1] + ts[-2]) / 2)),
    "middle time beyond the next": _steps(lambda ts: _set(ts, len(ts) // 2, ts[len(ts) // 2 + 1] * 2)),
    "first time nonzero": _steps(lambda ts: _set(ts, 0, F(1, 10 ** 9))),
    "middle steps dropped": lambda d: d.update(steps=d["steps"][:40] + d["steps"][140:]),
    "steps dropped": lambda d: d.update(steps=d["steps"][:-20]),
    "order lowered": lambda d: d.update(order=d["order"] - 8),
    "method unknown": lambda d: d.update(method="lohner"),
    "order zero": lambda d: d.update(order=0),
    "prec too low": lambda d: d.update(prec=16),
    "c up": _scale("c", F(1000001, 1000000)),
    "c down": _scale("c", F(1, 2)),
    "P entry": lambda d: d["P"][0].__setitem__(0, fs(F(d["P"][0][0]) * 2)),
    "P asymmetric": lambda d: d["P"][0].__setitem__(1, fs(F(d["P"][0][1]) + 1)),
    "u_V down": lambda d: d.update(u_V=[fs(F(d["u_V"][0]) / 2)]),
    "T_lo up": _scale("T_lo", F(10 ** 9 + 1, 10 ** 9)),
    "T_hi down": _scale("T_hi", F(10 ** 9 - 1, 10 ** 9)),
    "T_lo above T_hi": lambda d: d.update(T_lo=d["T_hi"], T_hi=d["T_lo"]),
}


def test_untampered_certificate_checks(cert):
    assert check(cert).ok
    assert len(cert["data"]["steps"]) > 30


@pytest.mark.parametrize("name", sorted(TAMPER))
def test_tampering_is_detected(cert, name):
    with pytest.raises(CertificationFailed):
        check(_tampered(cert, TAMPER[name]))


def test_tampered_problem_is_detected(cert):
    c = copy.deepcopy(cert)
    c["problem"]["initial"]["cov"][0][0] = "2"
    with pytest.raises(CertificationFailed):
        check(c)
    c["problem_hash"] = parse_problem(c["problem"]).content_hash()  # consistent hash, wrong Σ₀
    with pytest.raises(CertificationFailed):
        check(c)


def test_weaker_claim_still_checks(cert):
    from symbolic_tf.certify.check.claims import Claim, Quantifier

    c = _tampered(cert, lambda d: d.update(T_lo=fs(F(d["T_lo"]) / 2), T_hi=fs(F(d["T_hi"]) * 2)))
    with pytest.raises(CertificationFailed):  # the stated claim no longer matches the data
        check(c)
    c["claim"] = Claim("BLOWUP", Quantifier.THIS, {"T_lo": c["data"]["T_lo"], "T_hi": c["data"]["T_hi"]}).to_dict()
    assert check(c).ok and check(c).claim.params["T_lo"] == c["data"]["T_lo"]


# ----------------------------------------------------------------------------- undecided
@pytest.mark.parametrize("doc, why", [
    ({"A": [[-1, 0], [0, -1]], "V": [[1, 0], [0, 1]], "initial": {"cov": [[1, 0], [0, 1]]}}, "LMI"),
    ({"A": [[-1, "1/2"], ["-1/2", -2]], "V": [[2, 1], [0, 1]], "initial": {"cov": [[1, 0], [0, 1]]}}, "LMI"),
    ({"A": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]], "F": [[1, 0], [0, 0]],
      "initial": {"cov": [[1, 0], [0, 1]]}}, "drift"),
    ({"A": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]]}, "covariance"),
    ({"A": [[1, 0], [0, 1]], "V": [[1, 0], [0, 1]], "initial": {"cov": [[0, 0], [0, 0]]}}, "equilibrium"),
])
def test_bounded_or_unsupported_is_undecided(doc, why):
    v = tighten_blowup_bracket(parse_problem({"variant": "softmax", "d": 2, **doc}))
    assert v.status == UNDECIDED
    assert why in v.reason
    assert not v.evidence


# A researcher's first own problem (a Jordan-block V): the integration's upper bound was ≈ 7·10⁻¹⁴
# tighter than the checker's replay of the stored steps supports, the route returned it unchecked
# inside classify and gave up.  The search now self-checks and widens outward on "not implied".
FIRST_OWN = {"variant": "softmax", "d": 2, "A": [[1, "1/2"], ["-1/3", "1/4"]], "V": [[1, 2], [0, 1]],
             "initial": {"cov": [[1, "1/5"], ["1/5", "1/2"]]}}


def test_first_own_problem_is_proved_by_classify_and_holds_the_reference():
    import sys
    from pathlib import Path

    from symbolic_tf.regimes.classify import classify

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from soundness.oracle import judge_blowup

    p = parse_problem(FIRST_OWN)
    c = classify(p)
    assert c.status == PROVED and c.regime == "BLOWUP", c.reason
    assert check(c.certificate).ok
    lo, hi = Fraction(c.T_lo), Fraction(c.T_hi)
    assert judge_blowup(p, float(lo), float(hi)).ok is True   # independent DOP853


@pytest.mark.parametrize("ulps", [50, 5000])
def test_a_tightened_float_proposal_still_proves(monkeypatch, ulps):
    """The integration's upper bound moved down by many ulps (a proposal tighter than the checker
    can replay): the search widens outward and still proves, with a bracket the checker accepts."""
    import symbolic_tf.certify.search._blowup_taylor_lmi as tay
    from symbolic_tf.certify.search.validated.lyapunov import caller_rechecks

    real = tay._integrate

    def tightened(*args, **kw):
        times, lo, hi, info = real(*args, **kw)
        return times, lo, hi - abs(hi.mid()) * ulps * 2.0 ** -52, info

    monkeypatch.setattr(tay, "_integrate", tightened)
    with caller_rechecks():   # as inside classify's routes, where the caller re-checks
        v = tighten_blowup_bracket(parse_problem(FIRST_OWN))
    assert v.status == PROVED, v.reason
    assert check(v.evidence["certificate"]).ok
