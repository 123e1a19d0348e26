"""Castin et al. / docs/mathematics.md §7: (1) softmax dynamics is the twisted gradient flow
Γ = M∇(δE/δμ)/Z_μ with M = VA⁻¹ exactly when A is symmetric (refuted with an exact instance
otherwise); (2) Sinkhorn with A symmetric, V = A is, on Gaussians, the Bures–Wasserstein gradient
flow of ½·OT_ε(μ, μ) (proved in d = 1; numerical evidence in d = 2). Writes the verdicts as JSON."""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symbolic_tf.atomic import write_json_atomic  # noqa: E402
from symbolic_tf.symbolic.energy import (  # noqa: E402
    sinkhorn_bures_wasserstein_gradient_flow, softmax_is_twisted_gradient_flow)

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "certificates"))
args = ap.parse_args()
results = {
    "twisted_symmetric_A": softmax_is_twisted_gradient_flow(d=2, assume_symmetric=True).to_dict(),
    "twisted_general_A": softmax_is_twisted_gradient_flow(d=2).to_dict(),
    "sinkhorn_bw_d1": sinkhorn_bures_wasserstein_gradient_flow(d=1).to_dict(),
    "sinkhorn_bw_d2": sinkhorn_bures_wasserstein_gradient_flow(d=2).to_dict(),
}
write_json_atomic(Path(args.out) / "gradient_flows.json", results)
print(json.dumps({k: v["status"] for k, v in results.items()}))
