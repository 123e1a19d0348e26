"""The cell-lmi search's semidefinite programs (symbolic_tf/certify/search/cell_lmi.py), handed to Clarabel
directly: cross-checked against an independent cvxpy model of the same programs at seeded random corner sets
of two maps (issue 49's general V and a rotation–scaling V, where the lower program is feasible too), and the
returned P, λ, t / γ checked against the programs' constraints (residuals)."""
from __future__ import annotations

import numpy as np

import pytest

from symbolic_tf.certify.search._lmi import svec_index
from symbolic_tf.certify.search.cell_lmi import LmiCells
from symbolic_tf.spec.mapspec import parse_map_spec

MAP1 = {"family": "parameter", "resolution": [8, 8], "max_depth": 3, "x": {"range": [-2, 2]}, "y": {"range": [-1, 1]},
        "problem": {"variant": "softmax", "d": 2, "A": [["y", 1], [-1, -1]], "V": [[1, "x"], [0, 1]],
                    "initial": {"mean": [0, 0], "cov": [[1, 0], [0, 1]]}}}
ROT = {"family": "parameter", "resolution": [8, 8], "max_depth": 3, "x": {"range": [-2, 2]}, "y": {"range": [-1, 1]},
       "problem": {"variant": "softmax", "d": 2, "A": [["y", 1], [0, "y"]], "V": [[1, "-x"], ["x", 1]],
                   "initial": {"mean": [0, 0], "cov": [[1, "1/4"], ["1/4", "1/2"]]}}}
DRIFT = {"family": "parameter", "resolution": [8, 8], "max_depth": 3, "x": {"range": [-1, 1]}, "y": {"range": [-2, 1]},
         "problem": {"variant": "softmax", "d": 2, "A": [["y", 1], ["-1/2", -1]], "V": [[1, "1/2"], ["-1/4", 1]],
                     "F": [["x", "1/2"], [0, "x"]], "b": [0, 0], "initial": {"mean": [0, 0], "cov": [[1, 0], [0, 1]]}}}


def _cvxpy_upper(s, samples, with_drift):
    import cvxpy as cp

    d, m = s.d, s.m
    P = cp.Variable((d, d), symmetric=True)
    lam = cp.Variable(len(s.minors), nonneg=True)
    t = cp.Variable()
    x = cp.hstack([P[i, j] for i, j in svec_index(d)])
    cons = [P - t * np.eye(d) >> 0, cp.trace(P) == d]
    for G, F in samples:
        Q = cp.reshape(G @ x, (m, m), order="C")
        Q = (Q + Q.T) / 2 + sum(lam[k] * D for k, D in enumerate(s.minors))
        cons.append(Q + t * np.eye(m) << 0)
        if with_drift:
            L = P @ F + F.T @ P
            cons.append((L + L.T) / 2 + t * np.eye(d) << 0)
    prob = cp.Problem(cp.Maximize(t), cons)
    prob.solve(solver="CLARABEL")
    return float(t.value) if prob.status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) else None


def _cvxpy_lower(s, samples):
    import cvxpy as cp

    d, m = s.d, s.m
    P = cp.Variable((d, d), symmetric=True)
    lam = cp.Variable(len(s.minors), nonneg=True)
    g = cp.Variable()
    x = cp.hstack([P[i, j] for i, j in svec_index(d)])
    p = cp.reshape(s.Dp @ x, (m, 1), order="C")
    cons = [P - 1e-4 * np.eye(d) >> 0, cp.trace(P) == 1]
    for G, F in samples:
        Q = cp.reshape(G @ x, (m, m), order="C")
        Q = (Q + Q.T) / 2 - sum(lam[k] * D for k, D in enumerate(s.minors))
        cons.append(cp.bmat([[Q, p], [p.T, cp.reshape(g, (1, 1), order="C")]]) >> 0)
        if s.has_drift:
            L = P @ F + F.T @ P
            cons.append((L + L.T) / 2 >> 0)
    prob = cp.Problem(cp.Minimize(g), cons)
    prob.solve(solver="CLARABEL")
    return float(g.value) if prob.status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) and g.value > 0 else None


def _corner_sets(s, spec, rng, n):
    """n seeded random small boxes, and one at (3/8, 15/16) of the map's box (a blow-up corner of ROT)."""
    x0, x1 = (float(v) for v in spec.x_range)
    y0, y1 = (float(v) for v in spec.y_range)
    out = []
    for u, v in [*rng.uniform(size=(n, 2)), (0.375, 15 / 16 - 1 / 16)]:
        x, y = x0 + u * (x1 - x0), y0 + v * (y1 - y0)
        w, h = (x1 - x0) / 16, (y1 - y0) / 16
        out.append([s._sample(a, b) for a, b in ((x, y), (x + w, y), (x, y + h), (x + w, y + h))])
    return out


@pytest.mark.parametrize("doc", [MAP1, ROT, DRIFT], ids=["general-V", "rotation", "drift"])
def test_direct_programs_agree_with_a_cvxpy_model(doc):
    """Same optimum (to the solvers' accuracy) and same feasibility verdict as an independent cvxpy model; the
    returned P, λ satisfy the constraints with the returned margin (eigenvalue residuals)."""
    spec = parse_map_spec(doc)
    s = LmiCells(spec)
    rng = np.random.default_rng(26)
    feasible_lower = 0
    for samples in _corner_sets(s, spec, rng, 4):
        for with_drift in ((True, False) if s.has_drift else (False,)):
            r, ref = s._upper_sdp(samples, with_drift), _cvxpy_upper(s, samples, with_drift)
            assert (r is None) == (ref is None)
            if r is None:
                continue
            P, lam, t = r
            assert abs(t - ref) <= 1e-5 * (1 + abs(ref))
            assert abs(np.trace(P) - s.d) < 1e-6 and np.all(lam >= 0)
            assert np.linalg.eigvalsh(P)[0] >= t - 1e-6
            for G, F in samples:
                assert np.linalg.eigvalsh(s._cone(G, [P[i, j] for i, j in svec_index(s.d)], lam, +1))[-1] <= -t + 1e-6
                if with_drift:
                    assert np.linalg.eigvalsh(s._lyap(P, F))[-1] <= -t + 1e-6
        r, ref = s._lower_sdp(samples), _cvxpy_lower(s, samples)
        assert (r is None) == (ref is None)
        if r is not None:
            feasible_lower += 1
            P, lam, g = r
            assert abs(g - ref) <= 1e-4 * (1 + abs(ref))
            p = s.Dp @ np.array([P[i, j] for i, j in svec_index(s.d)])
            for G, _F in samples:
                M = np.block([[s._cone(G, [P[i, j] for i, j in svec_index(s.d)], lam, -1), p[:, None]],
                              [p[None, :], np.array([[g]])]])
                assert np.linalg.eigvalsh(M)[0] >= -1e-6 * (1 + g)
    if doc is ROT:
        assert feasible_lower > 0   # the comparison exercised the lower program too
