"""Time one RK4 step of the softmax particle simulator against the machine's matmul rate.

One RK4 step = 4 evaluations of the softmax velocity of N tokens in d dimensions; each
evaluation needs the N×N logits (an (N×d)@(d×N) product), their exponentials, and the
attended means (an (N×N)@(N×d) product).  Baseline measured in the same run: that pair of
float64 BLAS products alone, at the same N and d (4·4N²d flops per RK4 step).  Printed:
token-steps per second (N / seconds per step), the baseline's GFLOP/s, and the ratio
step time / (4 × baseline pair time) — 1.0 would mean the simulator runs at pure-matmul
speed; the excess is the exponentials, log-sum-exp bookkeeping and chunking.

Run:  .venv/bin/python benchmarks/bench_particles.py [--Ns 1000,4000,10000] [--d 16] [--repeats 3]
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


def _median_time(fn, repeats: int) -> float:
    fn()  # warm-up (BLAS threads, page faults, imports)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--Ns", default="1000,4000,10000")
    ap.add_argument("--d", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    Ns = [int(t) for t in args.Ns.split(",")]
    d = args.d
    rng = np.random.default_rng(args.seed)
    A = 0.1 * np.eye(d)
    problem = parse_problem({"variant": "softmax", "d": d, "A": A.tolist(),
                             "V": np.eye(d).tolist()})
    print(f"softmax, d = {d}, one RK4 step (4 velocity evaluations), median of {args.repeats}; "
          f"seed {args.seed}")
    print(f"{'N':>7}{'step [s]':>11}{'token-steps/s':>15}{'pair [s]':>11}{'GFLOP/s':>9}"
          f"{'step/(4 pair)':>15}")
    for N in Ns:
        X0 = rng.standard_normal((N, d))
        t_step = _median_time(lambda: simulate(problem, X0, 0.01, steps=1), args.repeats)

        Y = rng.standard_normal((N, d))
        YT = np.ascontiguousarray(Y.T)

        def pair():
            L = Y @ YT
            return L @ Y

        t_pair = _median_time(pair, args.repeats)
        gflops = 4.0 * N * N * d / t_pair / 1e9
        print(f"{N:>7}{t_step:>11.3f}{N / t_step:>15.3g}{t_pair:>11.4f}{gflops:>9.2f}"
              f"{t_step / (4 * t_pair):>15.2f}", flush=True)


if __name__ == "__main__":
    main()
