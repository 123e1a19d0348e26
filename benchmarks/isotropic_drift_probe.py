"""Numerical evidence (floats, no certificate) for solutions that grow onto the isotropic rank-one
cone WITH a drift (issue 48, d = 3): is the float blow-up real, or is the growth exponential or
super-exponential?

The covariance flow Σ̇ = Q(Σ) + L(Σ) (Q(Σ) = VΣAΣ + ΣAᵀΣVᵀ, L(Σ) = FΣ + ΣFᵀ) is integrated in the
projective form X = Σ/tr Σ, u = 1/tr Σ, dτ = tr Σ dt:

    X' = Q(X) + u·L(X) − c̃·X,   u' = −c̃·u,   t' = u,   c̃ = tr Q(X) + u·tr L(X),

which stays O(1) while tr Σ → ∞ (it stops when the middle eigenvalue of X falls below 10⁻⁸, the
resolution of a float integration at rtol 10⁻¹¹) (blow-up ⇔ t(τ) = ∫u dτ has a finite limit).  Along the solution
it records, at every decade of s = tr Σ, the growth rate κ = (log s)˙ = c̃/u, the middle eigenvalue
of Σ and t.  The verdict is a label of the trend over the last decades, with the rule stated:

* ``exponential`` — κ changes by < 5 % per decade: tr Σ ≈ e^{κt}, a global solution;
* ``super-exponential`` — κ grows, but by a bounded amount per decade (κ affine in log s): then
  (log s)˙ ≈ a + b·log s, log s grows like e^{bt}, still a global solution;
* ``rate falling`` — κ falls by a bounded amount per decade: if the trend holds, log s tends to a
  finite limit (no blow-up);
* ``blow-up candidate`` — the time spent per decade of s falls geometrically (ratio < 1/2), or log κ
  is affine in log s with a slope α > 0 that does not fall: κ ≈ k·s^α, and the remaining time
  ∫ds/(s·κ) = 1/(α·κ) is finite.  (A slope α that falls while Δκ per decade stays constant is the
  super-exponential case: over a few decades the two differ only in that trend.)

At the last point it also reports the structure the certificate would have to use: the isotropy
|wᵀAw| of the top eigenvector w, the spectrum of 𝓜Y = DQ(P)[Y] − tr(DQ(P)[Y])·P on trace-zero
symmetric Y at P = wwᵀ (w moved onto the cone), the dimensions of its kernel and co-kernel (a
kernel of dimension 1 inside a double zero eigenvalue is a Jordan block: the tangent of the
isotropic curve and a generalised eigenvector), and β = ℓ(b), ℓ the left null vector, b = L(P) −
tr L(P)·P (the drift's push out of the range of 𝓜; β = 0 for a scalar drift).

    python benchmarks/isotropic_drift_probe.py RECORDS.json 87,33,96     # records with `i` and `doc`
    python benchmarks/isotropic_drift_probe.py RECORDS.json 87 --decades 9
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp
from scipy.linalg import null_space

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from symbolic_tf.certify.search.validated.tube import flow_data  # noqa: E402
from symbolic_tf.exact.rational import qmat_to_float  # noqa: E402
from symbolic_tf.numeric.quadratic_field import FloatField  # noqa: E402
from symbolic_tf.spec.problem import parse_problem  # noqa: E402


def _trace_zero_basis(d):
    basis = []
    for i in range(d):
        for j in range(i, d):
            if (i, j) == (d - 1, d - 1):
                continue
            E = np.zeros((d, d))
            E[i, j] = E[j, i] = 1.0
            if i == j:
                E[d - 1, d - 1] = -1.0
            basis.append(E)
    return basis


def integrate(ff, S0, decades, max_seconds):
    """Projective integration until tr Σ ≥ tr Σ₀·10^decades (or τ, time limits). Rows: log10 s, t,
    κ, middle eigenvalue of Σ, X (last row)."""
    d = S0.shape[0]
    n = d * d

    def rhs(_tau, y):
        X = y[:n].reshape(d, d)
        u = y[n]
        D = ff.Q(X) + u * ff.L(X)
        c = np.trace(D)
        return np.concatenate([(D - c * X).ravel(), [-u * c, u]])

    s0 = np.trace(S0)
    y = np.concatenate([(S0 / s0).ravel(), [1.0 / s0, 0.0]])
    rows, tau, start = [], 0.0, time.time()
    target = np.log10(s0)
    while target < np.log10(s0) + decades and time.time() - start < max_seconds:
        target += 0.5
        lim = 10.0 ** (-target)
        ev = lambda _t, z: z[n] - lim  # noqa: E731
        ev.terminal = True
        sol = solve_ivp(rhs, (tau, tau + 1e12), y, method="LSODA", rtol=1e-11, atol=1e-15, events=ev)
        if sol.status != 1:
            break
        tau, y = sol.t[-1], sol.y[:, -1]
        X = y[:n].reshape(d, d)
        u = y[n]
        D = ff.Q(X) + u * ff.L(X)
        lam = np.linalg.eigvalsh((X + X.T) / 2)
        if d > 1 and lam[-2] < 1e-8:   # X's middle eigenvalue near the integration's resolution
            break
        rows.append((-np.log10(u), y[n + 1], np.trace(D) / u, lam[-2] / u if d > 1 else 0.0, X))
    return rows


def verdict(rows):
    """The trend label of the module docstring, from κ at whole decades of s."""
    if len(rows) < 7:
        return "too short", ""
    ls = np.array([r[0] for r in rows])
    k = np.array([r[2] for r in rows])
    last = ls[-1]
    pick = [int(np.argmin(abs(ls - (last - j)))) for j in (3, 2, 1, 0)]
    kk = k[pick]
    if np.any(kk <= 0):
        return "rate not positive", f"κ = {kk}"
    rel = np.abs(np.diff(kk)) / kk[1:]
    inc = np.diff(kk)
    alpha = np.diff(np.log(kk)) / np.log(10.0)
    info = f"κ at the last 4 decades {np.round(kk, 4)}, Δκ/decade {np.round(inc, 3)}, log-slope α {np.round(alpha, 3)}"
    if rel[-1] < 0.05 and rel[-2] < 0.05:
        return "exponential", info
    ts = np.array([rows[i][1] for i in pick])
    dt = np.diff(ts)
    info += f", Δt/decade {np.array2string(dt, precision=3)}"
    if np.all(dt[1:] < 0.5 * dt[:-1]):
        return "blow-up candidate", info
    if np.all(inc > 0) and alpha[-1] > 0.02 and alpha[-1] >= 0.9 * alpha[-2] and inc[-1] > 1.2 * inc[-2]:
        return "blow-up candidate", info
    if np.all(inc > 0) and inc[-1] <= 1.2 * max(inc[-2], 1e-300):
        return "super-exponential", info
    if np.all(inc < 0) and np.all(rel > 0.05):
        return "rate falling (affine in log s: tr Σ levels off if the trend holds; not a blow-up)", info
    return "unclear", info


def structure(ff, X):
    """Isotropy of the top direction and the Jordan structure of 𝓜 at its isotropic point."""
    d = X.shape[0]
    C, A = ff.pairs[0]
    _, U = np.linalg.eigh((X + X.T) / 2)
    w = U[:, -1]
    iso = w @ A @ w
    for _ in range(8):
        g = (A + A.T) @ w
        w = w - (w @ A @ w) / (g @ g) * g
        w /= np.linalg.norm(w)
    P = np.outer(w, w)
    basis = _trace_zero_basis(d)
    Bm = np.array([E.ravel() for E in basis]).T

    def coords(M):
        return np.linalg.lstsq(Bm, M.ravel(), rcond=None)[0]

    def proj(M):
        return M - np.trace(M) * P

    M = np.array([coords(proj(ff.dQ(P, E))) for E in basis]).T
    eig = np.sort(np.linalg.eigvals(M).real)
    scale = max(1.0, np.abs(eig).max())
    ker = null_space(M, rcond=1e-9 * scale).shape[1]
    left = null_space(M.T, rcond=1e-9 * scale)
    b = coords(proj(ff.L(P)))
    beta = (left.T @ b) if left.size else np.array([])
    return iso, eig, ker, beta


def probe(doc, decades, max_seconds):
    pr = parse_problem(doc)
    heads, F = flow_data(pr)
    ff = FloatField(heads, F, pr.d)
    S0 = qmat_to_float(pr.exact.Sigma0)
    rows = integrate(ff, S0, decades, max_seconds)
    label, info = verdict(rows)
    return ff, rows, label, info


#: issue 48's d = 3 problem with a scalar drift (fresh seed 1688874118, #87): exponential growth
SMOKE = {"i": 87, "class": "d=3 V=general drift=scalar",
         "doc": {"variant": "softmax", "d": 3,
                 "A": [["-1/2", "-1", "1/4"], ["-1/2", "-1/2", "-1/3"], ["1/2", "-1/3", "2"]],
                 "V": [["1", "-1", "-2"], ["1", "1/4", "2"], ["2", "0", "1/3"]],
                 "initial": {"cov": [["1/4", "0", "-1/2"], ["0", "2", "-2"], ["-1/2", "-2", "5"]]},
                 "F": [["1/2", "0", "0"], ["0", "1/2", "0"], ["0", "0", "1/2"]]}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records", nargs="?", help="a JSON file with {'records': [{'i': …, 'doc': …}, …]}")
    ap.add_argument("ids", nargs="?", default="", help="comma-separated record indices")
    ap.add_argument("--smoke", action="store_true", help="probe the built-in problem SMOKE for 2 decades")
    ap.add_argument("--decades", type=float, default=8.0, help="decades of tr Σ to follow (default 8)")
    ap.add_argument("--seconds", type=float, default=120.0, help="time limit per problem (default 120 s)")
    args = ap.parse_args(argv)
    if args.smoke:
        recs, want, args.decades = [SMOKE], [SMOKE["i"]], 2.0
    elif args.records is None or not args.ids:
        ap.error("give RECORDS.json and IDS, or --smoke")
    else:
        recs = json.loads(Path(args.records).read_text())["records"]
        want = [int(x) for x in args.ids.split(",")]
    print("numerical evidence only (float projective integration); no certificate")
    for rec in recs:
        if rec["i"] not in want:
            continue
        t0 = time.time()
        ff, rows, label, info = probe(rec["doc"], args.decades, args.seconds)
        print(f"#{rec['i']} {rec.get('class', '')}: {label}  ({time.time() - t0:.1f} s)")
        print(f"   {info}")
        for r in rows[::2] + ([rows[-1]] if len(rows) % 2 == 0 and rows else []):
            print(f"   log10 trΣ={r[0]:6.2f}  t={r[1]:.6g}  κ=(log trΣ)˙={r[2]:.5g}  λ_mid(Σ)={r[3]:.5g}")
        if rows and ff.d == 3 and len(ff.pairs) == 1:
            iso, eig, ker, beta = structure(ff, rows[-1][4])
            print(f"   top direction w: wᵀAw = {iso:.2e}; 𝓜 spectrum {np.round(eig, 4)}; dim ker 𝓜 = {ker}; "
                  f"β = ℓ(b) = {np.round(beta, 6)}")


if __name__ == "__main__":
    main()
