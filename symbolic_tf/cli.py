"""The ``symtf`` command: parse, call the library, print (text or ``--json``), write atomically.

Every user error (bad file, bad matrix, unknown variant, bad option) prints one line
``symtf: error: ...`` on stderr and exits with status 2.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .spec.errors import SymtfError

EXIT_USER_ERROR = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one readable line, exit 2 (argparse prints usage otherwise)
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


def _emit(args, data: dict, text: str) -> None:
    if getattr(args, "json", False):
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(text)


# ----- commands ---------------------------------------------------------------------------
def cmd_variants(args) -> int:
    from . import variants
    from .symbolic.closure import decide_invariance

    rows = []
    for v in variants.all_variants():
        verdict = decide_invariance(v)
        rows.append({"name": v.name, "normalisation": v.normalisation, "summary": v.summary,
                     "gaussian_closed": verdict.status, "reference": v.reference})
    width = max(len(r["name"]) for r in rows)
    text = "\n".join(f"{r['name']:<{width}}  {r['gaussian_closed']:<9}  {r['summary']}" for r in rows)
    text += "\n(gaussian_closed: PROVED = Gaussian-closed for all parameters; REFUTED = exact witness)"
    _emit(args, {"variants": rows}, text)
    return 0


def cmd_derive(args) -> int:
    from .spec.errors import InvalidParameters, NotGaussianClosed
    from .symbolic.moments import derive

    if args.dim is not None and args.dim < 1:
        raise InvalidParameters("--dim", f"must be a positive integer, got {args.dim}")
    if args.heads is not None and args.heads < 1:
        raise InvalidParameters("--heads", f"must be a positive integer, got {args.heads}")
    try:
        system = derive(args.variant, heads=args.heads, drift=args.drift)
    except NotGaussianClosed as exc:
        raise NotGaussianClosed(f"{exc} (see `symtf invariance {args.variant}`)") from None
    data = system.to_dict()
    if args.dim is None:
        text = system.latex() if args.format == "latex" else system.text()
    else:
        import sympy as sp

        a_dot, s_dot = system.entries(args.dim)
        data["dim"] = args.dim
        data["mean_rhs_entries"] = [sp.sstr(e) for e in a_dot]
        data["cov_rhs_entries"] = [[sp.sstr(s_dot[i, j]) for j in range(args.dim)] for i in range(args.dim)]
        data["auxiliary"] = getattr(system, "aux", {})
        if args.format == "latex":
            text = ("\\dot\\alpha = " + sp.latex(a_dot) + "\n\n\\dot\\Sigma = " + sp.latex(s_dot))
        else:
            lines = [f"d/dt alpha[{i}] = {sp.sstr(e)}" for i, e in enumerate(a_dot)]
            lines += [f"d/dt Sigma[{i}][{j}] = {sp.sstr(s_dot[i, j])}"
                      for i in range(args.dim) for j in range(i, args.dim)]
            lines += [f"where {k} = ({v})^(-1)" for k, v in data["auxiliary"].items()]
            text = "\n".join(lines)
    if args.format == "json":
        args.json = True
    _emit(args, data, text)
    return 0


def cmd_invariance(args) -> int:
    from .symbolic.closure import decide_invariance

    if args.dim < 1:
        from .spec.errors import InvalidParameters

        raise InvalidParameters("--dim", f"must be a positive integer, got {args.dim}")
    v = decide_invariance(args.variant, d=args.dim)
    data = {"variant": args.variant, **v.to_dict()}
    text = f"{v.status}: {v.claim}\n  {v.reason}"
    if v.status == "PROVED":
        text += f"\n  J = {v.evidence.get('J')}\n  c = {v.evidence.get('c')}"
    elif v.status == "REFUTED":
        inst = v.evidence["instance"]
        text += (f"\n  witness instance: d = {inst['d']}, parameters {inst['parameters']}, law {inst['law']},"
                 f"\n  derivative of order {v.evidence['order']} along {inst['direction']} at x0 = 0: "
                 f"{v.evidence['derivative']}")
    _emit(args, data, text)
    return 0


def cmd_rhs(args) -> int:
    from .spec.problem import load_problem
    from .symbolic.closure import decide_invariance
    from .symbolic.moments import rhs
    from .variants import bind

    problem = load_problem(args.problem)
    variant = bind(problem)
    if variant.composite:  # a head that is not Gaussian-closed has no moment system to sum
        from .spec.errors import InvalidParameters

        for i, head in enumerate(problem.heads):
            hv = decide_invariance(head.variant)
            if hv.status != "PROVED":
                raise InvalidParameters(
                    f"heads[{i}].variant",
                    f"head variant {head.variant!r} is not Gaussian-closed ({hv.status}), so the "
                    f"multi-head flow has no moment ODEs: {hv.reason}")
    if variant.expected_closed is False:
        verdict = decide_invariance(variant)
        if verdict.status != "PROVED":
            data = {"variant": problem.variant, "gaussian_closed": False, "mean_rhs": None,
                    "cov_rhs": None, "exact": True, "reason": verdict.reason}
            _emit(args, data, f"{problem.variant}: not Gaussian-closed ({verdict.status}): {verdict.reason}")
            return 0
    val = rhs(problem)
    data = val.to_dict()
    lines = [f"variant: {val.variant}   ({'exact' if val.exact else 'not exact: 30 significant digits'})",
             "d/dt alpha = [" + ", ".join(val.mean_rhs) + "]", "d/dt Sigma ="]
    lines += ["  [" + ", ".join(row) + "]" for row in val.cov_rhs]
    _emit(args, data, "\n".join(lines))
    return 0


def cmd_run(args) -> int:
    """The main job on built-in defaults: derive every variant, decide invariance, report."""
    from .report import build_report

    from .spec.errors import InvalidParameters

    out = Path(args.out)
    try:  # fail before the work, not after it, when the folder cannot be created
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidParameters("--out", f"cannot create the folder {str(out)!r}: "
                                f"{exc.strerror or exc}") from None
    t0 = time.perf_counter()
    try:
        summary = build_report(out, progress=not args.quiet)
    except OSError as exc:
        raise InvalidParameters("--out", f"cannot write the report in {str(out)!r}: "
                                f"{exc.strerror or exc}") from None
    print(f"wrote {out / 'report.md'} and {out / 'report.json'} "
          f"({len(summary['variants'])} variants, {time.perf_counter() - t0:.1f} s)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="symtf", description="Derive, verify and certify mean-field Transformer dynamics.")
    p.add_argument("--version", action="version", version="symtf 0.1.0")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    s = sub.add_parser("variants", help="list the registered variants with their closure status")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_variants)

    s = sub.add_parser("derive", help="derive the moment ODEs of a variant")
    s.add_argument("variant")
    s.add_argument("--dim", type=int, default=None, help="explicit entries at this dimension")
    s.add_argument("--format", choices=("text", "latex", "json"), default="text")
    s.add_argument("--drift", action="store_true", help="add the affine drift F x + b")
    s.add_argument("--heads", type=int, default=None, help="number of heads (multihead)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_derive)

    s = sub.add_parser("invariance", help="decide Gaussian invariance: proof or exact witness")
    s.add_argument("variant")
    s.add_argument("--dim", type=int, default=1, help="dimension of the witness instance")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_invariance)

    s = sub.add_parser("rhs", help="evaluate the moment ODEs at a problem's parameters")
    s.add_argument("problem")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_rhs)

    s = sub.add_parser("run", help="the main job: derive everything and write a report")
    s.add_argument("--out", default="out")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_run)
    return p


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            raise _UsageError("symtf: a command is required (variants, derive, invariance, rhs, run); "
                              "see `symtf --help`")
        return args.func(args)
    except _UsageError as exc:
        print(f"symtf: error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except SymtfError as exc:
        print(f"symtf: error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("symtf: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
