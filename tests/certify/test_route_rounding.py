"""A search never loses to its own rounding (issue 48, item 1).

Every route that turns a float proposal (an SDP solution P, a bracket end, a rate, an equilibrium,
a box radius, a step length) into exact rationals is listed in :data:`ENTRIES` with a problem it
proves and its *seam*: the module-level function(s) through which the float proposal passes before
rationalisation.  The test wraps each seam so that every float it receives (``"arg"``) or returns
(``"out"``) is moved by a relative 10⁻¹²…10⁻⁹ (4·10³…4·10⁶ ulps) with random, seeded signs, runs
the route as :func:`symbolic_tf.certify.search.routes.prove` does (its search inside
``caller_rechecks``, then the loop's re-check with re-timing), and asserts

* the seam was reached and moved at least one float (the test is not vacuous),
* the route still PROVES,
* its certificate passes the independent checker, with a claim of one of the route's regimes.

The perturbation never touches the checker (the kernel imports nothing from search/), so a passing
certificate is a genuine one whatever the search proposed.  :data:`EXACT` lists the routes without
a float proposal (their data are exact from the start) with the reason; a meta-test asserts that
every registered route is in one of the two tables, so a new route cannot skip this test.
"""
from __future__ import annotations

import importlib
import zlib
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pytest

from symbolic_tf.certify.check import check, derive
from symbolic_tf.certify.search.routes import Context, registry
from symbolic_tf.certify.search.validated.lyapunov import caller_rechecks
from symbolic_tf.certify.search.validated.retime import checked_retimed
from symbolic_tf.spec.problem import parse_problem

SEARCH = "symbolic_tf.certify.search."


def _s(M):
    return [[str(x) for x in r] for r in M]


def _softmax(A, V, cov=None, F=None, b=None, variant="softmax", **kw):
    doc = {"variant": variant, "d": len(V), "V": _s(V), **kw}
    if A is not None:
        doc["A"] = _s(A)
    if F is not None:
        doc["F"] = _s(F)
    if b is not None:
        doc["b"] = [str(x) for x in b]
    if cov is not None:
        doc["initial"] = {"cov": _s(cov)}
    return doc


I2 = [[1, 0], [0, 1]]
NEG_I2 = [[-1, 0], [0, -1]]
S0 = [[1, "1/4"], ["1/4", "1/2"]]
VG = [[1, "1/10"], [0, 1]]  # a general (non-scalar) V


@dataclass(frozen=True)
class Entry:
    """A route with a float proposal: a problem it proves and the seams its proposal passes."""

    route: str
    problem: dict
    #: (module under symbolic_tf.certify.search, function name, "arg" | "out")
    seams: tuple
    uniform: bool = False
    heavy: bool = False
    notes: str = field(default="", compare=False)


#: the shared places where a validated tube turns a float into an exact rational: the step lengths of
#: the Taylor tubes (tube.py, the projective and section tubes) and the Lyapunov end boxes (W, ρ, R)
TUBE_SEAMS = (("validated.tube", "dyadic_down", "arg"), ("validated._projective_tube", "dyadic", "arg"),
              ("validated._section_tube", "dyadic", "arg"), ("validated.lyapunov", "dyadic", "arg"),
              ("validated.lyapunov", "dyadic_matrix_str", "arg"))


def _tube(module: str) -> tuple:
    """TUBE_SEAMS and the route module's own float → dyadic conversions (W, X*, κ, ρ, c, …)."""
    mod = importlib.import_module(SEARCH + module)
    own = tuple((module, n, "arg") for n in ("dyadic", "dyadic_matrix_str", "dyadic_down") if hasattr(mod, n))
    return TUBE_SEAMS + own


KRAWCZYK = _softmax([[1, "1/5"], [0, 1]], [[-1, "1/10"], ["-1/20", -1]], I2, F=I2, b=[1, 2])
ROT_V = [[1, -2], [2, 1]]  # V = I + 2J: the eigenvector of Σ turns for ever
# issue 48's first own problem of a new user (a Jordan-block V)
NEWCOMER = _softmax([[1, "1/2"], ["-1/3", "1/4"]], [[1, 2], [0, 1]], [[1, "1/5"], ["1/5", "1/2"]])

ENTRIES = [
    # the SDP solution P (svec) before its rounding to 10^-k (a boundary case: an exact forced kernel)
    Entry("lmi-bounded", _softmax([[-2, "1/4"], [-2, "-5/4"]], [[0, 0], ["-7/4", 2]], S0),
          (("_lmi", "_round_svec", "arg"),), heavy=True),
    Entry("lmi-blowup", _softmax(I2, VG, S0), (("_lmi", "_round_svec", "arg"),),
          uniform=True, heavy=True),
    # P of the blow-up LMI, then the Taylor step lengths of the bracket's validated integration (the
    # newcomer problem of issue 48: a Jordan-block V)
    Entry("lmi-blowup", NEWCOMER,
          (("_lmi", "_round_svec", "arg"), ("_blowup_taylor_lmi", "dyadic_down", "arg")), heavy=True),
    # P and λ of the S-procedure SDP, and the growth rate κ
    Entry("trace-growth", {"variant": "softmax", "d": 2, "A": [["0", "-2"], ["2", "0"]], "V": [["0", "-1"], ["2", "1"]],
                           "F": [["0", "1"], ["-1", "3/2"]], "initial": {"cov": [["5/4", "-3/4"], ["-3/4", "77/16"]]}},
          (("_trace_growth_lmi", "_roundings", "arg"), ("_trace_growth_lmi", "dyadic", "arg")), heavy=True),
    # the float λ_min(KᵀK) of the ℓ2 growth bound
    Entry("growth-bound", _softmax(None, I2, S0, variant="l2", Q=_s(I2), K=_s([[2, 1], [0, 1]])),
          (("_growth", "_float_lambda_min", "out"),)),
    # the float blow-up time t_f around which the exact bracket is placed
    Entry("riccati-vI", _softmax([[1, "1/2"], [0, "1/2"]], I2, S0), (("riccati", "_float_crossing", "out"),)),
    Entry("drift-vI", _softmax(I2, I2, I2, F=[["-1/10", "1/10"], [0, "-1/10"]]), (("riccati", "_float_crossing", "out"),)),
    # the float M (and margin) of the sublevel SDP before its rounding: a saddle drift, R = diag(2, −2)
    Entry("drift-vI-sublevel", _softmax([[1, 0], [0, -1]], I2, [["1/2", 0], [0, "1/2"]], F=[[-1, 0], [0, 1]]),
          (("riccati", "_sublevel_sdp", "out"),)),
    # the Newton equilibrium, the Krawczyk radius, the preconditioner and the Lyapunov matrix
    Entry("krawczyk-equilibrium", KRAWCZYK, (("_equilibrium_krawczyk", "_certify_at", "arg"),
                                             ("_equilibrium_krawczyk", "dyadic", "arg"))),
    Entry("krawczyk-basin", _softmax([[1, "1/5"], [0, 1]], [[-1, "1/10"], ["-1/20", -1]],
                                     [["261/250", "-11/200"], ["-11/200", "487/500"]], F=I2, b=[1, 2]),
          (("_equilibrium_krawczyk", "_certify_at", "arg"), ("_equilibrium_krawczyk", "dyadic", "arg"),
           ("_equilibrium_basin", "dyadic", "arg"))),
    # a rank-one Σ₀ that blows up: the cone G, α, κ, β of the small SDP (a sign change of h has exact knots)
    Entry("rank-one-flow", _softmax(I2, VG, [[1, 1], [1, 1]]), (("_rank_one_flow", "_rational", "arg"),)),
    # validated tubes: step lengths, end boxes and each certificate's own float data
    Entry("tube-basin", _softmax([[1, "1/5"], [0, 1]], [[-1, "1/10"], ["-1/20", -1]], [[2, 0], [0, 1]], F=I2, b=[1, 2]),
          _tube("validated._tube_basin") + (("_equilibrium_krawczyk", "dyadic", "arg"),
                                            ("_equilibrium_basin", "dyadic", "arg")), heavy=True),
    Entry("tube-ray", _softmax(I2, [[2, "1/2"], ["1/4", -1]], I2), _tube("validated.tube_ray"), heavy=True),
    Entry("tube-rotation", _softmax(I2, ROT_V, [[2, 0], [0, 1]]), _tube("validated._tube_rotation"), heavy=True),
    Entry("tube-rotation-return", _softmax(I2, ROT_V, [[1, 0], [0, "1/1000000"]]),
          _tube("validated._tube_rotation_return"), heavy=True),
    Entry("tube-rotation-collapse", _softmax([[-1, "-1/4"], ["3/2", "-1/2"]], [["1/3", -2], [1, "1/4"]],
                                             [["17/4", 4], [4, "33/4"]]),
          _tube("validated._tube_rotation_collapse"), heavy=True),
    Entry("tube-cluster", _softmax([["1/2", -1], ["1/2", "-1/3"]], [[0, "-2/3"], ["3/2", "-1/2"]], S0),
          _tube("validated._tube_cluster"), heavy=True),
    Entry("tube-cluster-neutral", _softmax(
        [["-1", "1", "4/3"], ["0", "2", "-1/3"], ["-7/4", "0", "1"]],
        [["-5/3", "-1/2", "1"], ["-1", "-2/3", "5/3"], ["-1", "3/4", "-2"]],
        [["16485885/1048576", "-377437/262144", "20558389/1048576"], ["-377437/262144", "49983/262144", "-950925/524288"],
         ["20558389/1048576", "-950925/524288", "25642869/1048576"]]),
        _tube("validated._tube_cluster_neutral"), heavy=True),
    # a Jordan-block V: the ray e₁e₁ᵀ attracts from one side only (the cusp); its direction is rationalised too
    Entry("tube-ray-cusp", _softmax([["3/8", 1], [-1, -1]], [[1, "1/2"], [0, 1]], [[1, "1/2"], ["1/2", 1]]),
          _tube("validated._tube_ray_cusp") + (("validated._tube_ray_cusp", "nearest_fraction", "arg"),), heavy=True),
    Entry("tube-ray-collapse", _softmax(
        [["-2", "-1", "1"], ["-1/2", "-3/4", "-2"], ["5/4", "1", "-7/4"]],
        [["2", "0", "-3/2"], ["1", "5/4", "-1"], ["0", "-1", "1"]],
        [["114999/524288", "-39557/524288", "69633/524288"], ["-39557/524288", "57219/524288", "105/16384"],
         ["69633/524288", "105/16384", "63451/524288"]]), _tube("validated._tube_ray_collapse"), heavy=True),
    Entry("tube-return", {"variant": "softmax", "d": 2, "A": [["0", "0"], ["1", "1/2"]], "V": [["1", "-1"], ["5/3", "-1/3"]],
                          "F": [["3/2", "3/2"], ["2/3", "-1/4"]],
                          "initial": {"cov": [["18015789/10000000", "30567926/10000000"],
                                              ["30567926/10000000", "51865550/10000000"]]}},
          _tube("validated._tube_return"), heavy=True),
    Entry("tube-growth-neutral", _softmax(
        [["1/2", "-2", "-7/4"], ["-2", "1", "2"], ["-2", "1/2", "-2/3"]],
        [["-2", "-2/3", "-1"], ["1", "-1/2", "-3/2"], ["2", "-1/3", "-1"]],
        [["1171712753/1048576", "40886233/131072", "-107684457/524288"],
         ["40886233/131072", "91611447/1048576", "-30317375/524288"],
         ["-107684457/524288", "-30317375/524288", "20228669/524288"]]), _tube("validated._tube_growth_neutral"), heavy=True),
    Entry("tube-growth", _softmax([["1/4", "-1/3"], ["-5/3", "-3/4"]], [[-2, 2], [0, 0]],
                                  [["19/8", "-3/2"], ["-3/2", "217/36"]], F=[["-4/3", "4/3"], [-2, 1]]),
          _tube("validated._tube_growth"), heavy=True),
    Entry("tube-collapse", _softmax(I2, [[1, "1/2"], ["-1/2", 1]], S0, F=[[-2, "1/2"], [0, "-3/2"]]),
          _tube("validated.tube_collapse"), heavy=True),
    Entry("tube-singular-equilibrium", _softmax([["-2", "2/3"], ["3/2", 1]], [["1/4", 2], ["-1/2", "1/2"]],
                                                [["1/2", "1/4"], ["1/4", "1/2"]], F=[[0, "-5/3"], ["-2/3", "-3/2"]]),
          _tube("validated.tube_singular_equilibrium"), heavy=True),
    # depth schedules: the constant phases' validated tubes (a general V), then an end box
    Entry("schedule-phases", {"variant": "softmax", "d": 2, "V": [[1, "1/2"], ["-1/2", 1]], "A": _s(NEG_I2),
                              "initial": {"cov": _s(S0)},
                              "phase": [{"duration": "1/8"}, {"duration": 1, "A": [[1, 0], [0, -1]],
                                                               "V": [[1, 2], [0, "1/2"]]}]},
          TUBE_SEAMS, heavy=True),
]


def _perturb(x, rng, moved):
    """x with every float moved by a relative 10^-12…10^-9 (random signs); ``moved`` counts them."""
    if isinstance(x, (float, np.floating)) and not isinstance(x, bool):
        if x == 0 or not np.isfinite(x):
            return x
        moved[0] += 1
        return type(x)(x * (1 + 10 ** rng.uniform(-12, -9) * rng.choice((-1.0, 1.0))))
    if isinstance(x, np.ndarray) and x.dtype.kind == "f" and x.size:
        moved[0] += int(np.count_nonzero(x))
        rel = 10 ** rng.uniform(-12, -9, size=x.shape) * rng.choice((-1.0, 1.0), size=x.shape)
        if x.ndim == 2 and x.shape[0] == x.shape[1] and np.array_equal(x, x.T):
            rel = np.triu(rel) + np.triu(rel, 1).T  # a symmetric proposal stays symmetric
        return x * (1 + rel)
    if isinstance(x, tuple):
        return tuple(_perturb(v, rng, moved) for v in x)
    if isinstance(x, list):
        return [_perturb(v, rng, moved) for v in x]
    return x


def _wrapped(f, where, rng, moved):
    def seam(*args, **kw):
        if where == "arg":
            return f(*(_perturb(a, rng, moved) for a in args), **kw)
        return _perturb(f(*args, **kw), rng, moved)

    return seam


def _id(e: Entry) -> str:
    return e.route + ("/uniform" if e.uniform else "") + f"#{ENTRIES.index(e)}"


def _params():
    return [pytest.param(e, id=_id(e), marks=[pytest.mark.heavy] if e.heavy else []) for e in ENTRIES]


@pytest.mark.parametrize("entry", _params())
def test_route_proves_through_a_perturbed_float_proposal(entry, monkeypatch):
    routes = {r.name: r for r in registry()}
    if entry.route not in routes:  # an entry written for a route that is not (or no longer) declared
        pytest.skip(f"no route {entry.route} is registered")
    route = routes[entry.route]
    rng = np.random.default_rng(zlib.crc32(_id(entry).encode()))
    moved = [0]
    for mod, name, where in entry.seams:
        module = importlib.import_module(SEARCH + mod)
        monkeypatch.setattr(module, name, _wrapped(getattr(module, name), where, rng, moved))
    problem = parse_problem(entry.problem)
    ctx = Context(uniform=entry.uniform)
    assert route.applies(problem, ctx) is None
    with caller_rechecks():  # as inside prove(): the loop re-checks every certificate
        v = route.search(problem, ctx)
    assert moved[0] > 0, "the seam was not reached: the test perturbed nothing"
    assert v is not None and v.status == "PROVED", v and v.reason
    cert_dict, cert, (status, claim, _) = checked_retimed(v.evidence["certificate"], derive)
    assert status == "PROVED" and claim.same_as(cert.claim)
    assert check(cert_dict).ok
    assert claim.regime is None or claim.regime.value in route.regimes


def test_every_route_has_a_rounding_entry_or_is_exact():
    names = {r.name for r in registry()}
    covered = {e.route for e in ENTRIES} | set(EXACT)
    assert names <= covered, f"routes without a rounding test (add an ENTRIES row, or EXACT): {sorted(names - covered)}"
    assert not {e.route for e in ENTRIES} & set(EXACT) and set(EXACT) <= names
    for e in ENTRIES:   # every seam names a function of its module (a rename would silently test nothing)
        for mod, name, where in e.seams:
            assert callable(getattr(importlib.import_module(SEARCH + mod), name)) and where in ("arg", "out")


#: routes whose data are exact from the start (nothing float is rationalised), with the reason
EXACT = {
    "stationary": "Σ₀ is checked to be an exact zero of the right-hand side",
    "uniform-vI": "the sign of R = v(A + Aᵀ), decided exactly",
    "drift-vI-bounded": "R ⪯ 0 and an exact X ≻ 0 with FᵀX + XF ⪯ 0 (I, an exact Lyapunov solution or kernel)",
    "drift-vI-growth": "R ⪯ 0 and an exact Frobenius bound of F",
    "growth-theorem": "an exact matrix identity (matrix_proofs)",
    "periodic-riccati-vI": "floats only screen; the partition of the period is an exact bisection checked in balls",
    "invariant-stratum": "an exact factorisation Σ₀ = BS₀Bᵀ; the reduced problem is decided by the routes above",
}


def test_the_perturbation_moves_every_float_by_many_ulps_and_keeps_symmetry():
    rng, moved = np.random.default_rng(0), [0]
    W = np.array([[2.0, 0.5, -1.0], [0.5, 3.0, 0.25], [-1.0, 0.25, 1.0]])
    P = _perturb((W, [1.5, 0.0], 7, "x"), rng, moved)
    assert moved[0] == 10 and P[2:] == (7, "x") and P[1][1] == 0.0
    rel = np.abs(P[0] / W - 1)
    assert np.all(rel >= 1e-12) and np.all(rel <= 1e-9) and np.array_equal(P[0], P[0].T)
    assert np.all(np.abs(P[0] - W) / np.spacing(np.abs(W)) > 1000)   # thousands of ulps, not a few
    assert 1e-12 <= abs(P[1][0] / 1.5 - 1) <= 1e-9



@pytest.mark.heavy
def test_the_newcomer_problem_is_proved_with_a_bracket_of_width_at_most_1e_6():
    """Issue 48's first own problem of a new user (a Jordan-block V): BLOWUP with a narrow bracket."""
    from symbolic_tf.regimes.classify import classify

    c = classify(parse_problem(NEWCOMER))
    assert c.status == "PROVED" and c.regime == "BLOWUP", c.reason
    assert check(c.certificate).ok
    lo, hi = Fraction(c.T_lo), Fraction(c.T_hi)
    assert 0 < lo <= hi and hi - lo <= Fraction(1, 10**6)
