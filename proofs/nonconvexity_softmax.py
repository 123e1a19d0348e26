"""Castin et al. / docs/mathematics.md §7: the interaction energy E(μ) = ½∬e^{yᵀAx}dμdμ is not geodesically
convex for V = I, A = −I — a certified witness (rational Dirac masses and displacement whose
second variation is provably negative, by arb ball arithmetic)."""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symbolic_tf.atomic import write_json_atomic  # noqa: E402
from symbolic_tf.certify.search.convexity import find_nonconvexity_witness  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "certificates"))
args = ap.parse_args()
v = find_nonconvexity_witness([[-1, 0], [0, -1]], n_points=2, d=2, seed=0)
if v.status != "PROVED":
    print(f"NOT PROVED: {v.reason}", file=sys.stderr)
    sys.exit(1)
path = write_json_atomic(Path(args.out) / "nonconvexity_softmax.json", v.evidence["certificate"])
print(f"PROVED: {v.claim}\n  {v.reason}\n  certificate: {path}")
