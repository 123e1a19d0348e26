"""``symtf variants``, ``derive``, ``invariance``, ``rhs``: the moment ODEs and Gaussian closure."""
from __future__ import annotations

from ..spec.errors import InvalidParameters
from ..spec.limits import MAX_DIM
from ._options import add_format, add_json, add_problem, add_variant, command, int_type
from ._output import emit, emit_in_format

__all__ = ["PARSERS"]


def _cmd_variants(args) -> int:
    """List the registered variants with their declared Gaussian closure; ``--decide`` decides it."""
    from .. import variants

    rows = []
    for v in variants.all_variants():  # declarations only: no SymPy unless --decide
        rows.append({"name": v.name, "normalisation": v.normalisation, "summary": v.summary,
                     "gaussian_closed": bool(v.expected_closed), "reference": v.reference})
    if args.decide:
        from ..symbolic.closure import decide_invariance

        for r in rows:
            r["invariance"] = decide_invariance(r["name"]).status
    width = max(len(r["name"]) for r in rows)
    closure = (lambda r: r["invariance"]) if args.decide else (lambda r: "closed" if r["gaussian_closed"] else "not closed")
    text = "\n".join(f"{r['name']:<{width}}  {closure(r):<10}  {r['summary']}" for r in rows)
    if args.decide:
        text += "\n(decided: PROVED = Gaussian-closed for all parameters, with J and c; REFUTED = exact witness)"
    else:
        text += ("\n(Gaussian closure as each variant declares it; `symtf variants --decide` or "
                 "`symtf invariance NAME` decides it: a proof or an exact witness)")
    return emit(args, {"variants": rows}, text)


def _cmd_derive(args) -> int:
    """The moment ODEs of a variant: symbolic, or explicit entries at ``--dim``."""
    from ..spec.errors import NotGaussianClosed
    from ..symbolic.moments import derive

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
    return emit_in_format(args, data, text)


def _cmd_invariance(args) -> int:
    """Decide Gaussian invariance of a variant: a proof or an exact witness."""
    from ..symbolic.closure import decide_invariance

    if args.dim < 1:
        raise InvalidParameters("--dim", f"must be a positive integer, got {args.dim}")
    v = decide_invariance(args.variant, d=args.dim)
    data = {"variant": args.variant, **v.to_dict()}
    text = f"{v.status}: {v.claim}\n  {v.reason}"
    if v.status == "PROVED":
        text += f"\n  J = {v.evidence.get('J')}\n  c = {v.evidence.get('c')}"
    elif v.status == "REFUTED":
        from ..display import matrix_str

        inst = v.evidence["instance"]
        params = ", ".join(f"{k} = {matrix_str(val)}" for k, val in inst["parameters"].items())
        law = " + ".join(f"{c['weight']}·N({matrix_str(c['mean'])}, {matrix_str(c['cov'])})" for c in inst["law"])
        text += (f"\n  witness instance: d = {inst['d']}, {params}; law μ = {law}"
                 f"\n  derivative of order {v.evidence['order']} of Γ along u = {matrix_str(inst['direction'])} "
                 f"at x₀ = 0: {matrix_str(v.evidence['derivative'])}")
    return emit(args, data, text)


def _cmd_rhs(args) -> int:
    """The moment ODEs' right-hand side at a problem's parameters (exact where they are)."""
    from ..spec.problem import load_problem
    from ..symbolic.moment_checks import moment_ode_obstruction
    from ..symbolic.moments import rhs

    problem = load_problem(args.problem)
    verdict = moment_ode_obstruction(problem)
    if verdict is not None:
        data = {"variant": problem.variant, "gaussian_closed": False, "mean_rhs": None,
                "cov_rhs": None, "exact": True, "reason": verdict.reason}
        return emit(args, data, f"{problem.variant}: not Gaussian-closed ({verdict.status}): {verdict.reason}")
    val = rhs(problem, args.t)  # at depth t (a schedule's parameters there; docs/schedules.md)
    data = val.to_dict()
    if problem.schedule is not None:
        data["t"] = args.t
    from ..display import exact_and_decimal, short_decimal

    show = exact_and_decimal if val.exact else short_decimal  # exact p/q with ≈ decimal; floats short
    lines = [f"variant: {val.variant}   ({'exact' if val.exact else 'not exact: 30 significant digits in --json'})",
             "d/dt alpha = [" + ", ".join(show(e) for e in val.mean_rhs) + "]", "d/dt Sigma ="]
    lines += ["  [" + ", ".join(show(e) for e in row) + "]" for row in val.cov_rhs]
    return emit(args, data, "\n".join(lines))


def _add_variants(sub) -> None:
    s = command(sub, "variants", _cmd_variants, "list the registered variants with their declared Gaussian closure")
    s.add_argument("--decide", action="store_true",
                   help="decide each variant's Gaussian closure (PROVED or REFUTED, as `symtf invariance`; "
                        "loads SymPy, a few seconds)")
    add_json(s)


def _add_derive(sub) -> None:
    s = command(sub, "derive", _cmd_derive, "derive the moment ODEs of a variant")
    add_variant(s)
    s.add_argument("--dim", type=int_type(1, MAX_DIM), default=None, help="explicit entries at this dimension")
    add_format(s, "output format: text, latex (the ODEs in LaTeX) or json (json is --json)")
    s.add_argument("--drift", action="store_true", help="add the affine drift F x + b")
    s.add_argument("--heads", type=int_type(1, MAX_DIM), default=None, help="number of heads (multihead)")
    add_json(s)


def _add_invariance(sub) -> None:
    s = command(sub, "invariance", _cmd_invariance, "decide Gaussian invariance: proof or exact witness")
    add_variant(s)
    s.add_argument("--dim", type=int_type(1, MAX_DIM), default=1, help="dimension of the witness instance")
    add_json(s)


def _add_rhs(sub) -> None:
    s = command(sub, "rhs", _cmd_rhs, "evaluate the moment ODEs at a problem's parameters")
    add_problem(s)
    s.add_argument("--t", default="0", help="depth t (exact) for a problem with a schedule (default 0)")
    add_json(s)


#: subcommand → the function that adds its parser (``symtf`` lists them in cli.COMMAND_ORDER)
PARSERS = {"variants": _add_variants, "derive": _add_derive, "invariance": _add_invariance, "rhs": _add_rhs}
