"""Returns to a Poincaré section (kind ``tube-return``, checker :mod:`symbolic_tf.certify.check.kinds.tube_return`,
crossing enclosures :mod:`symbolic_tf.certify.check.section`, search
:mod:`symbolic_tf.certify.search.validated._tube_return`): the crossing enclosure against a closed-form rotation,
a PROVED certificate cross-checked against an independent float integration over 100 returns,
tamperings rejected, and a forged certificate for a blow-up rejected."""
from __future__ import annotations

import copy
import math
from fractions import Fraction

import flint
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from symbolic_tf.certify.check import check
from symbolic_tf.certify.check.claims import Quantifier
from symbolic_tf.certify.check.tube_replay import Field, replay_tube, step_range, svec_pairs
from symbolic_tf.certify.check.section import crossing_enclosure
from symbolic_tf.certify.search.validated._tube_return import find_return
from symbolic_tf.exact.precision import working_precision
from symbolic_tf.spec.errors import CertificationFailed
from symbolic_tf.spec.problem import parse_problem

# one worker builds this module's expensive fixtures once (pytest-xdist --dist loadgroup)
pytestmark = pytest.mark.xdist_group("tube-return")

# seed 0 #8 of benchmarks/undecided_rate.py's general-V set: the drift model with a singular A; the
# solution collapses to rank one and settles on a rank-one limit cycle of period ≈ 2.0455
CYCLE = {"variant": "softmax", "d": 2, "A": [["0", "0"], ["1", "1/2"]], "V": [["1", "-1"], ["5/3", "-1/3"]],
         "F": [["3/2", "3/2"], ["2/3", "-1/4"]], "initial": {"cov": [["45/16", "-67/16"], ["-67/16", "117/16"]]}}


def _fail(msg):
    raise CertificationFailed(msg)


@pytest.fixture(scope="module")
def proved():
    ver = find_return(parse_problem(CYCLE), seconds=60.0)
    assert ver.status == "PROVED", ver.reason
    return ver


def test_step_range_encloses_the_closed_form_over_the_whole_step():
    # Σ̇ = 2Σ² (V = A = I): Σ(s) = Σ₀(I − 2sΣ₀)⁻¹; the step enclosure over [0, h] must hold Σ(s) for every s
    I2 = flint.fmpq_mat([[1, 0], [0, 1]])
    S0 = flint.fmpq_mat([[1, flint.fmpq(1, 3)], [flint.fmpq(1, 3), flint.fmpq(1, 2)]])
    h = flint.fmpq(1, 20)
    with working_precision(128):
        Y = step_range(Field([(I2, I2)]), flint.arb_mat(S0), flint.arb(h), 12)
        assert Y is not None
        widths = []
        for k in range(11):
            s = h * k / 10
            exact = S0 * (I2 - S0 * (2 * s)).inv()
            assert all(Y[i, j].contains(exact[i, j]) for i in range(2) for j in range(2)), k
            widths.append(float(Y[0, 0].rad()))
        # the enclosure is about the step's motion wide, not the Picard box's inflation
        motion = (S0 * (I2 - S0 * (2 * h)).inv() - S0)[0, 0]
        assert widths[0] < float(motion)


def _rotation_crossing(ts):
    # Σ̇ = FΣ + ΣFᵀ with F = [[0, −1], [1, 0]]: Σ(t) = R(t)·diag(2, 1)·R(t)ᵀ, so Σ₁₂(t) = −sin(2t)/2 crosses 0
    # downwards at t = π/2, where Σ = diag(1, 2)
    zero = flint.fmpq_mat(2, 2)
    field = Field([(zero, zero)], flint.fmpq_mat([[0, -1], [1, 0]]))
    states = []
    with working_precision(128):
        replay_tube(field, flint.fmpq_mat([[2, 0], [0, 1]]), ts, 16, "qr", _fail,
                    on_state=lambda _t, st: states.append(st))
        return crossing_enclosure(field, [s.box for s in states], ts, 1, flint.fmpq(0), -1, 16, _fail,
                                  frames=[(s.center, s.basis, s.coords) for s in states])


def test_crossing_enclosure_of_a_rotation_contains_the_closed_form():
    coarse = [flint.fmpq(k * 41, 1000) for k in range(41)]                   # steps 0.041 to t = 1.64
    fine = coarse[:39] + [flint.fmpq(15707, 10 ** 4) + flint.fmpq(k, 10 ** 6) for k in range(201)]
    widths = []
    for ts in (coarse, fine):
        E, t_a, t_n = _rotation_crossing(ts)
        assert float(t_a) < math.pi / 2 < float(t_n)
        assert E[0, 0].contains(1) and E[2, 0].contains(2) and E[1, 0] == 0
        widths.append(max(float(E[0, 0].rad()), float(E[2, 0].rad())))
    # a window of one coarse step gives a wide ratio f_y/f_j; short steps across the section a tight one
    assert widths[0] < 1e-2 and widths[1] < 1e-9


def test_a_tube_that_ends_before_the_section_is_refused():
    zero = flint.fmpq_mat(2, 2)
    field = Field([(zero, zero)], flint.fmpq_mat([[0, -1], [1, 0]]))
    ts = [flint.fmpq(k, 20) for k in range(11)]                 # t ≤ 1/2 < π/2
    states = []
    with working_precision(128):
        replay_tube(field, flint.fmpq_mat([[2, 0], [0, 1]]), ts, 16, "qr", _fail,
                    on_state=lambda _t, st: states.append(st))
        with pytest.raises(CertificationFailed, match="not past the section"):
            crossing_enclosure(field, [s.box for s in states], ts, 1, flint.fmpq(0), -1, 16, _fail)


def test_the_proved_claim_is_bounded_for_this_sigma0_and_rechecks(proved):
    cert = proved.evidence["certificate"]
    res = check(copy.deepcopy(cert))
    assert res.ok and res.status == "PROVED"
    assert res.claim.subject == "BOUNDED" and res.claim.quantifier is Quantifier.THIS
    lo, hi = (Fraction(res.claim.params[k]) for k in ("return_time_lo", "return_time_hi"))
    assert 0 < lo < hi


def test_an_independent_integration_returns_into_the_box_with_the_certified_return_times(proved):
    # DOP853 from Σ₀ over 100 returns: the solution stays bounded, every upward crossing of the section
    # after the tube's lies in the certified box, and consecutive crossings are [lo, hi] apart
    cert = proved.evidence["certificate"]
    data, claim = cert["data"], cert["claim"]["params"]
    j, c = data["section"], float(Fraction(data["level"]))
    lo = [float(Fraction(x)) for x in data["box_lo"]]
    hi = [float(Fraction(x)) for x in data["box_hi"]]
    (a, b) = svec_pairs(2)[j]
    F = np.array([[1.5, 1.5], [2 / 3, -0.25]])
    V = np.array([[1, -1], [5 / 3, -1 / 3]])
    A = np.array([[0, 0], [1, 0.5]])

    def rhs(_t, y):
        S = y.reshape(2, 2)
        M = F @ S + V @ S @ A @ S
        return (M + M.T).ravel()

    def cross(_t, y):
        return y[2 * a + b] - c

    cross.direction = 1
    S0 = np.array([[45 / 16, -67 / 16], [-67 / 16, 117 / 16]])
    sol = solve_ivp(rhs, (0, 230), S0.ravel(), method="DOP853", rtol=1e-12, atol=1e-14, events=cross)
    assert sol.status == 0 and np.abs(sol.y).max() < 20
    t_end = float(Fraction(data["steps"][-1]))
    times = [t for t in sol.t_events[0] if t >= t_end - 1e-9]
    pts = [y for t, y in zip(sol.t_events[0], sol.y_events[0]) if t >= t_end - 1e-9]
    assert len(times) >= 100
    slack = 1e-9
    for y in pts:
        z = [y[2 * p + q] for p, q in svec_pairs(2)]
        assert all(lo[k] - slack <= z[k] <= hi[k] + slack for k in range(3) if k != j)
    gaps = np.diff(times)
    assert float(Fraction(claim["return_time_lo"])) - 1e-9 <= gaps.min()
    assert gaps.max() <= float(Fraction(claim["return_time_hi"])) + 1e-9


def _mutant(cert, edit):
    m = copy.deepcopy(cert)
    edit(m["data"])
    return m


def _shrink_box(d):
    j = d["section"]
    k = next(k for k in range(3) if k != j)
    lo, hi = Fraction(d["box_lo"][k]), Fraction(d["box_hi"][k])
    d["box_hi"][k] = str(lo + (hi - lo) / 100)


def _move_level(d):
    j = d["section"]
    new = str(Fraction(d["level"]) + Fraction(1, 1000))
    d["level"] = d["box_lo"][j] = d["box_hi"][j] = new


def _off_section(d):
    j = d["section"]
    d["box_hi"][j] = str(Fraction(d["box_hi"][j]) + Fraction(1, 10 ** 6))


@pytest.mark.parametrize("label,edit", [
    ("box shrunk", _shrink_box),
    ("section level moved", _move_level),
    ("box off the section", _off_section),
    ("sense flipped", lambda d: d.update(sense="decreasing")),
    ("return tube cut before the section", lambda d: d.update(return_steps=d["return_steps"][:-8])),
    ("Σ₀ tube cut before the section", lambda d: d.update(steps=d["steps"][:-8])),
    ("another section coordinate", lambda d: d.update(section=(d["section"] + 1) % 3)),
    ("order lowered", lambda d: d.update(order=4)),
])
def test_tamperings_are_rejected(proved, label, edit):
    with pytest.raises(CertificationFailed):
        check(_mutant(proved.evidence["certificate"], edit))


def test_a_relabelled_claim_is_rejected(proved):
    m = copy.deepcopy(proved.evidence["certificate"])
    m["claim"]["params"]["return_time_hi"] = "100"
    with pytest.raises(CertificationFailed):
        check(m)


def test_a_forged_certificate_for_a_blowup_is_rejected(proved):
    # Σ̇ = 2Σ² (V = A = 1, d = 2 isotropic) blows up: the stored tubes and box do not replay for it
    m = copy.deepcopy(proved.evidence["certificate"])
    m["problem"] = {"variant": "softmax", "d": 2, "A": [["1", "0"], ["0", "1"]], "V": [["1", "0"], ["0", "1"]],
                    "initial": {"cov": [["1", "0"], ["0", "1"]]}}
    with pytest.raises(CertificationFailed):
        check(m)


def test_a_blowup_gets_no_return_certificate():
    p = parse_problem({"variant": "softmax", "d": 2, "A": [["1", "0"], ["0", "1"]], "V": [["1", "0"], ["0", "1"]],
                       "initial": {"cov": [["1", "0"], ["0", "1/2"]]}})
    ver = find_return(p, seconds=10.0)
    assert ver.status == "UNDECIDED" and "no oscillation" in ver.reason
