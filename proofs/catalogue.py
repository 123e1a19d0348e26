"""The conjecture catalogue (docs/mathematics.md §3–§6, seed summaries): decide or test every claim and
write the certificates of the refuted ones (counterexamples) plus a summary table.

Each certificate is re-checked by `symtf check` in tests/test_proofs.py."""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symbolic_tf.atomic import write_json_atomic, write_text_atomic  # noqa: E402
from symbolic_tf.conjectures.catalogue import format_table, run_catalogue  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "certificates" / "catalogue"))
ap.add_argument("--examples", type=int, default=30)
ap.add_argument("--only", default=None, help="comma-separated claim names")
args = ap.parse_args()
only = set(args.only.split(",")) if args.only else None
reports = run_catalogue(examples=args.examples, seed=0, only=only)
out = Path(args.out)
for r in reports:
    if r.certificate is not None:
        cert = dict(r.certificate)
        cert.setdefault("notes", []).append(f"counterexample to: {r.statement} ({r.source})")
        write_json_atomic(out / f"{r.name}.json", cert)
write_json_atomic(out / "catalogue.json", [r.to_dict() for r in reports])
write_text_atomic(out / "catalogue.txt", format_table(reports) + "\n")
print(format_table(reports))
print(json.dumps({r.name: r.verdict for r in reports}))
