"""``symtf steer``: steer the initial Gaussian to a target with piecewise-constant controls."""
from __future__ import annotations

from pathlib import Path

from ..spec.errors import InvalidParameters
from ..spec.limits import MAX_TOKENS
from ._options import add_json, add_plot, add_problem, add_seed, add_T, command, exact_option, int_type
from ._output import emit

__all__ = ["PARSERS"]


def _cmd_steer(args) -> int:
    """Steer the problem's initial Gaussian to a target Gaussian with piecewise-constant controls."""
    from ..spec.problem import read_document, load_problem
    from ..spec.rational import to_matrix, to_vector

    T = exact_option(args.T, "--T", positive=True)
    max_norm = None if args.max_norm is None else exact_option(args.max_norm, "--max-norm", nonnegative=True)
    if args.tokens == 1:
        raise InvalidParameters("--tokens", "need at least 2 tokens")
    problem = load_problem(args.problem)
    if problem.cov is None:
        raise InvalidParameters("initial.cov", "steering starts from the problem's initial Gaussian")
    tdoc = read_document(args.target, "target file")
    if isinstance(tdoc, dict):
        inner = tdoc.get("target", tdoc.get("initial", tdoc))
        tdoc = inner if isinstance(inner, dict) else tdoc
    if not isinstance(tdoc, dict) or "cov" not in tdoc:
        raise InvalidParameters("--target", "expected a table with `cov` (and optional `mean`)")
    d = problem.d
    mean0 = problem.mean if problem.mean is not None else tuple([0] * d)
    target = (to_vector(tdoc.get("mean", ["0"] * d), "--target mean", d),
              to_matrix(tdoc["cov"], "--target cov", (d, d)))
    controls = {"any": "any", "attention": "attention", "feedforward": "feedforward"}[args.only]
    from ..control.steer import steer  # after every input is read and checked

    res = steer((mean0, problem.cov), target, T, controls=controls, max_norm=max_norm,
                optimise=args.optimise, phases=args.phases, seed=args.seed)
    data = {"problem_hash": problem.content_hash(), **res.to_dict()}
    text = f"{res.verdict.status}: {res.verdict.claim}\n  {res.verdict.reason}"
    if res.schedule:
        text += f"\n  strategy {res.strategy}, {len(res.schedule)} phase(s), exact schedule: {res.exact}"
        cb = res.certified_bound
        if isinstance(cb, dict):
            cb = ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k}: {v}" for k, v in cb.items())
        ne = res.numerical_error
        ne = f"{ne:.3g}" if isinstance(ne, float) else ne
        text += f"\n  end-point error: numerical {ne}; certified bound {cb}"
        if res.optimisation is not None:
            opt = res.optimisation
            text += (f"\n  optimiser residual {opt['residual']:.3e} (reference integration; numerical "
                     f"evidence only): {opt['phases']} phases, {opt['parameters']} parameters, "
                     f"{opt['evaluations']} evaluations, {opt['seconds']} s")
        if args.tokens:
            from ..control.steer import verify_with_tokens

            tok = verify_with_tokens(res, (mean0, problem.cov), target, N=args.tokens, seed=args.seed)
            data["tokens"] = tok
            text += f"\n  tokens (N = {args.tokens}): W2 to target {tok.get('W2_to_target', float('nan')):.3e} (numerical evidence)"
        if args.plot:
            from ..numeric.schedule_path import gaussian_floats, schedule_path
            from ..plots import steering_figure

            stem = Path(args.plot).with_suffix("")
            try:
                figs = steering_figure(schedule_path(res.schedule, mean0, problem.cov), gaussian_floats(target), stem)
            except OSError as exc:
                raise InvalidParameters("--plot", f"cannot write {str(args.plot)!r}: {exc.strerror or exc}") from None
            data["figures"] = [str(f) for f in figs]
            text += "\n  figure: " + ", ".join(str(f) for f in figs)
    if args.write_problem:
        from ..atomic import write_text_atomic
        from ..control.steer import schedule_problem
        from ..spec.problem import problem_text

        sp = schedule_problem(res, (mean0, problem.cov), name=problem.name)
        out = Path(args.write_problem)
        write_text_atomic(out, problem_text(sp, out.suffix))
        data["problem_file"] = str(out)
        text += f"\n  schedule written to {out} (`symtf classify {out}` certifies its end point)"
    return emit(args, data, text)


def _add_steer(sub) -> None:
    s = command(sub, "steer", _cmd_steer, "steer the initial Gaussian to a target (piecewise-constant controls)")
    add_problem(s, "problem file (.toml or .json) whose [initial] Gaussian is steered; see docs/howto.md")
    s.add_argument("--target", required=True, help="TOML/JSON with `cov` and optional `mean`")
    add_T(s, "time at which the target is reached (exact: 2, 1/3, 0.5; default 1)", "1", exact=True)
    s.add_argument("--only", choices=("any", "attention", "feedforward"), default="any",
                   help="which controls may act: any, attention (F = 0, b = 0) or feedforward (V = 0, A = 0)")
    s.add_argument("--max-norm", default=None,
                   help="bound on every phase's free controls (Frobenius F, A, V; Euclidean b)")
    s.add_argument("--optimise", action="store_true",
                   help="if no constructive schedule fits the restriction, search one numerically "
                        "(scipy; reported with its residual, UNDECIDED)")
    s.add_argument("--phases", type=int_type(1, 10**4), default=4, help="phases of the optimised schedule")
    add_plot(s, "write the ellipse plot here (PNG and PDF)")
    s.add_argument("--tokens", type=int_type(0, MAX_TOKENS), default=0, help="also run the schedule on N tokens (N ≥ 2)")
    add_seed(s, help="seed of the token sample and the optimiser")
    s.add_argument("--write-problem", default=None, metavar="OUT.toml",
                   help="write the schedule as a problem file with [[phase]] tables (classify certifies its end point)")
    add_json(s)


#: subcommand → the function that adds its parser (``symtf`` lists them in cli.COMMAND_ORDER)
PARSERS = {"steer": _add_steer}
