"""Time one RK4 step of the softmax particle simulator against the machine's matmul rate.

One RK4 step = 4 evaluations of the softmax velocity of N tokens in d dimensions; each
evaluation needs the N×N logits (an (N×d)@(d×N) product), their exponentials, and the
attended means (an (N×N)@(N×d) product).  Baseline measured in the same run: that pair of
float64 BLAS products alone, at the same N and d (4·4N²d flops per RK4 step).  Printed:
token-steps per second (N / seconds per step), the baseline's GFLOP/s, and the ratio
step time / (4 × baseline pair time) — 1.0 would mean the simulator runs at pure-matmul
speed; the excess is the exponentials, log-sum-exp bookkeeping and chunking.  A second baseline
adds the N² exponentials to the pair ("pair+exp", the floor of one velocity evaluation); the last
column is the simulator's rate as a percentage of that floor's (4 × pair+exp / step).  The one
Euler step at N = 10⁴, d = 16 that tests/numeric/test_particles.py checks for memory is timed here.

Run:  .venv/bin/python benchmarks/bench_particles.py [--Ns 1000,4000,10000] [--d 16] [--repeats 3] [--cpu]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from symbolic_tf.numeric.particles import simulate  # noqa: E402
from symbolic_tf.spec import parse_problem  # noqa: E402


_CLOCK = time.perf_counter


def _median_time(fn, repeats: int) -> float:
    fn()  # warm-up (BLAS threads, page faults, imports)
    times = []
    for _ in range(repeats):
        t0 = _CLOCK()
        fn()
        times.append(_CLOCK() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--Ns", default="1000,4000,10000")
    ap.add_argument("--d", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cpu", action="store_true",
                    help="time CPU seconds of this process (time.process_time) instead of wall time: robust on a "
                         "shared machine; run with OPENBLAS_NUM_THREADS=1 so both contestants use one core")
    args = ap.parse_args()
    global _CLOCK
    if args.cpu:
        _CLOCK = time.process_time
    Ns = [int(t) for t in args.Ns.split(",")]
    d = args.d
    rng = np.random.default_rng(args.seed)
    A = 0.1 * np.eye(d)
    problem = parse_problem({"variant": "softmax", "d": d, "A": A.tolist(),
                             "V": np.eye(d).tolist()})
    print(f"softmax, d = {d}, one RK4 step (4 velocity evaluations), median of {args.repeats}; "
          f"seed {args.seed}; {'CPU' if args.cpu else 'wall'} seconds")
    print(f"{'N':>7}{'step [s]':>11}{'token-steps/s':>15}{'pair [s]':>11}{'GFLOP/s':>9}"
          f"{'step/(4 pair)':>15}{'pair+exp [s]':>13}{'% of pair+exp':>18}")
    for N in Ns:
        X0 = rng.standard_normal((N, d))
        t_step = _median_time(lambda: simulate(problem, X0, 0.01, steps=1), args.repeats)

        Y = rng.standard_normal((N, d))
        YT = np.ascontiguousarray(Y.T)

        def pair():
            L = Y @ YT
            return L @ Y

        t_pair = _median_time(pair, args.repeats)

        def pair_exp():  # the two products and the N² exponentials: the floor of one evaluation
            E = np.exp(Y @ YT - 1.0)
            return E @ Y

        t_pexp = _median_time(pair_exp, args.repeats)
        gflops = 4.0 * N * N * d / t_pair / 1e9
        print(f"{N:>7}{t_step:>11.3f}{N / t_step:>15.3g}{t_pair:>11.4f}{gflops:>9.2f}"
              f"{t_step / (4 * t_pair):>15.2f}{t_pexp:>13.4f}{100 * 4 * t_pexp / t_step:>17.0f}%", flush=True)
    # the N = 10⁴, d = 16 Euler step that tests/numeric/test_particles.py checks for memory only
    if max(Ns) >= 10_000:
        X0 = rng.standard_normal((10_000, 16))
        p16 = parse_problem({"variant": "softmax", "d": 16, "A": (0.1 * np.eye(16)).tolist(),
                             "V": np.eye(16).tolist()})
        t_e = _median_time(lambda: simulate(p16, X0, 0.01, steps=1, method="euler"), args.repeats)
        print(f"one Euler step, N = 10⁴, d = 16: {t_e:.3f} s")


if __name__ == "__main__":
    main()
