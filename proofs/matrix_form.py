"""docs/mathematics.md §7, §10: the matrix-form proofs for every dimension d — closures, the V = I
inverse identity and closed form, the trace identity (and its exact refutation for non-symmetric
V), congruence, homogeneity, the tilting lemma, the Sinkhorn marginal and gradient-flow identities
(and their refutations without A = Aᵀ or with V ≠ A), the growth identities — each written as a
``matrix-identity`` certificate that ``symtf check`` replays; and the twisted-geodesic
non-convexity witness on Gaussians. Prints the replay time of each."""
import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symbolic_tf.atomic import write_json_atomic  # noqa: E402
from symbolic_tf.certify.check import check  # noqa: E402
from symbolic_tf.certify.search.matrix_proofs import library as L  # noqa: E402
from symbolic_tf.certify.search.matrix_proofs.certificates import (identity_certificate, search_witness,  # noqa: E402
                                                            witness_certificate)
from symbolic_tf.certify.search.twisted_gaussian import twisted_gaussian_witness  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "certificates" / "matrix_form"))
args = ap.parse_args()
out = Path(args.out)
certs = {name: identity_certificate(L.proof(name)).to_dict() for name in L.NAMES}
stmt = L.trace_identity_statement(False).doc
certs["refuted-trace-identity-any-V"] = witness_certificate(stmt, search_witness(stmt, dims=(2,))).to_dict()
for sym_a, v_a, label in ((False, True, "nonsymmetric-A"), (True, False, "V-not-A")):
    certs[f"refuted-sinkhorn-gradient-{label}"] = witness_certificate(
        L.sinkhorn_gradient_statement(sym_a, v_a), L.sinkhorn_gradient_witness(sym_a, v_a)).to_dict()
certs["twisted-gaussian-nonconvexity"] = twisted_gaussian_witness([[1, 0], [0, -1]], [[1, 0], [0, 1]]).evidence["certificate"]
summary = {}
for name, cert in certs.items():
    t0 = time.perf_counter()
    res = check(cert)
    summary[name] = {"status": res.status, "check_seconds": round(time.perf_counter() - t0, 4)}
    write_json_atomic(out / f"{name}.json", cert)
print(json.dumps(summary, indent=1, ensure_ascii=False))
