"""``symtf verify``: hunt for certified counterexamples in the catalogue or a conjecture file."""
from __future__ import annotations

import json
import sys

from ..spec.errors import InvalidParameters
from ..spec.limits import MAX_DIM
from ._options import add_json, add_seed, command, int_type
from ._output import emit

__all__ = ["PARSERS"]


def _cmd_verify(args) -> int:
    """Verify the catalogue of the papers' claims, or a user's conjecture file."""
    from ..atomic import write_json_atomic

    say = None if (args.json or args.quiet) else (lambda m: print(m, file=sys.stderr, flush=True))
    if args.target == "catalogue":
        from ..conjectures.catalogue import format_table, run_catalogue

        reports = run_catalogue(examples=args.examples, seed=args.seed, progress=say)
        data = {"catalogue": [r.to_dict() for r in reports], "examples": args.examples, "seed": args.seed}
        text = format_table(reports)
    else:
        from ..spec.problem import read_document

        doc = read_document(args.target, "conjecture file")  # before the heavy imports
        if not isinstance(doc, dict):
            raise InvalidParameters("conjecture", f"expected a table/object, got a {type(doc).__name__}")
        if args.max_dim is not None:
            hyp = doc.setdefault("hypothesis", {})
            if not isinstance(hyp, dict):
                raise InvalidParameters("hypothesis", f"expected a table, got {type(hyp).__name__}")
            hyp["max_d"] = args.max_dim
        from ..conjectures.catalogue import conjecture_from_toml
        from ..conjectures.core import verify

        conj = conjecture_from_toml(doc)
        rep = verify(conj, examples=args.examples, seed=args.seed, progress=say)
        data = rep.to_dict()
        text = f"{rep.verdict}: {rep.statement or rep.name}\n  {rep.reason}\n  tried: {rep.tried}"
        if rep.counterexample:
            text += f"\n  counterexample: {json.dumps(rep.counterexample['problem'])}"
        if args.cert:
            if rep.certificate is None:
                raise InvalidParameters("--cert", f"no counterexample certificate ({rep.verdict})")
            write_json_atomic(args.cert, rep.certificate)
            text += f"\n  certificate written to {args.cert} (re-check with `symtf check`)"
    return emit(args, data, text)


def _add_verify(sub) -> None:
    s = command(sub, "verify", _cmd_verify, "hunt for certified counterexamples: `catalogue` or a conjecture file")
    s.add_argument("target", help="'catalogue' or a conjecture .toml/.json file")
    s.add_argument("--examples", type=int_type(1, 10**7), default=60,
                   help="problems drawn from each hypothesis (default 60)")
    add_seed(s, help="seed of the drawn problems (the same seed draws the same problems; default 0)")
    s.add_argument("--max-dim", type=int_type(1, MAX_DIM), default=None,
                   help="with a conjecture file: the largest dimension d drawn (replaces its hypothesis max_d)")
    s.add_argument("--cert", default=None, help="write the counterexample's certificate here")
    add_json(s)


#: subcommand → the function that adds its parser (``symtf`` lists them in cli.COMMAND_ORDER)
PARSERS = {"verify": _add_verify}
