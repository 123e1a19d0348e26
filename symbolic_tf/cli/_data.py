"""``symtf meanfield``, ``stability``, ``mixture``, ``masked``, ``relu``: token clouds against the theory."""
from __future__ import annotations

import sys
from pathlib import Path

from ..spec.errors import InvalidParameters
from ._options import (add_json, add_out, add_plot, add_problem, add_seed, add_steps, add_T, command, float_list,
                       int_list, int_type, positive_float)
from ._output import emit, emit_with_figure

__all__ = ["PARSERS"]


def _cmd_meanfield(args) -> int:
    """Finite-N tokens vs the moment ODE: W₂ distance per N, log–log slope, plot."""
    from ..atomic import write_json_atomic
    from ..numeric.meanfield import meanfield_check
    from ..spec.problem import load_problem

    Ns = int_list(args.N, "--N", lo=2)
    problem = load_problem(args.problem)
    say = None if args.json or args.quiet else (lambda m: print(m, file=sys.stderr, flush=True))
    rep = meanfield_check(problem, Ns=Ns, seeds=range(args.seeds), T=args.T, steps=args.steps, progress=say)
    data = {"problem": str(args.problem), "problem_hash": problem.content_hash(), **rep.to_dict()}
    out = Path(args.out)
    try:
        from ..display import tagged

        data = tagged("meanfield", data)
        write_json_atomic(out / "meanfield.json", data)
        from ..plots import meanfield_figure

        figs = meanfield_figure(rep, out / "meanfield")
    except OSError as exc:
        raise InvalidParameters("--out", f"cannot write to {str(out)!r}: {exc.strerror or exc}") from None
    data["figures"] = [str(f) for f in figs]
    if rep.gaussian_closed:
        rows = [f"  N = {n:>6}: W2 = {e:.4e}" for n, e in zip(rep.Ns, rep.mean_distance) if e is not None]
        slope = "n/a" if rep.slope is None else f"{rep.slope:.3f}"
        if rep.slope is not None and rep.slope_stderr is not None:
            slope += (f" ± {rep.slope_stderr:.3f} (−1/2 expected: the empirical mean and covariance carry "
                      "O(N^−1/2) sampling error; ± is the fit's standard error over the per-seed points, "
                      "wide with few seeds or a narrow range of N)")
        else:
            slope += " (−1/2 expected)"
        text = (f"{rep.variant}: Bures–Wasserstein distance to the moment ODE at T = {rep.T:g} "
                f"(mean over {len(rep.seeds)} seeds; numerical evidence)\n" + "\n".join(rows)
                + f"\n  log–log slope {slope}")
    else:
        rows = [f"  N = {n:>6}: Mardia b2 − d(d+2) = {m:.4f}, principal excess kurtosis = "
                + ", ".join(f"{k:.3f}" for k in (ks or [])) for n, m, ks in zip(rep.Ns, rep.mardia_excess, rep.kurtosis)
                if m is not None]
        why = (f"the initial law {problem.initial_law.kind!r} is not Gaussian" if problem.initial_law is not None
               else f"{rep.variant} does not preserve Gaussians")
        text = (f"{why}: departure of the cloud from its "
                f"moment-matched Gaussian at T = {rep.T:g} (numerical evidence)\n" + "\n".join(rows))
    text += "".join(f"\n  note: {n}" for n in rep.notes)
    text += f"\nwrote {out / 'meanfield.json'} and " + ", ".join(str(f) for f in figs)
    return emit(args, data, text)


def _cmd_stability(args) -> int:
    """Measured W_p(μ_t, ν_t)/W_p(μ₀, ν₀) against the stability constant C(t) (docs/stability.md)."""
    import math

    from ..numeric.stability import measure_stability, parse_perturbation
    from ..spec.problem import load_problem

    problem = load_problem(args.problem)
    perts = [parse_perturbation(x) for x in (args.perturb or ["shift:0.05", "scale:0.05", "noise:0.05", "rotate:0.05"])]
    sink = None
    if args.sink is not None:
        sink, *more = float_list(args.sink, "--sink", 0.0, 1.0)
        if more:
            raise InvalidParameters("--sink", f"expected one mass in [0, 1), got {args.sink[:40]!r}")
    res = measure_stability(problem, args.T, perts, N=args.N, seeds=tuple(range(args.seeds)), steps=args.steps, p=args.p,
                            positions=args.positions, sink=sink)
    data = {"problem": str(args.problem), "problem_hash": problem.content_hash(), **res}
    if args.plot:
        from ..plots import stability_figure

        if not res["constant"]["available"]:
            raise InvalidParameters("--plot", f"no stability constant to draw: {res['constant']['reason']}")
        try:
            data["figures"] = [str(f) for f in stability_figure(res, args.plot)]
        except OSError as exc:
            raise InvalidParameters("--plot", f"cannot write {args.plot!r}: {exc.strerror or exc}") from None
    const = res["constant"]
    where = ""
    if "positions" in res:
        where = f"; positions {res['positions']['kind']}, sink mass {res['positions']['sink']:g}"
    lines = [f"{res['variant']}: {const['distance']} ratio vs the stability constant C(t) at T = {res['T']:g} "
             f"(N = {res['N']}, p = {res['p']:g}, {len(res['runs'])} runs{where}; {res['distance']})",
             f"  max measured ratio at T: {math.exp(res['log_ratio_max'][-1]):.4g}  (numerical evidence)"]
    if not const["available"]:
        lines.append(f"  C(t): not available — {const['reason']}")
    else:
        lo, hi = res["log_C_min"][-1], res["log_C_max"][-1]
        shown = ("overflows a float" if hi is None and lo is None else
                 f"{_log10(lo)} to {_log10(hi)}")
        lines += [f"  log10 C(T) (proven bound, floats): {shown} (the runs' R₀)"]
        if res["looseness_log10_at_T"] is not None:
            lines.append(f"  in the tightest run the bound exceeds the measured ratio by 10^{res['looseness_log10_at_T']:.3g}")
        lines.append(f"  ratio <= C(t) at every saved time in every run: {res['all_sound']}")
    if "all_sound_sup" in res:
        sup = max(r["ratio_sup"][-1] for r in res["runs"])
        lines.append(f"  sup over positions: max ratio at T {sup:.4g} <= the softmax constant at every saved time: "
                     f"{res['all_sound_sup']}")
    lines += [f"  wrote {f}" for f in data.get("figures", [])]
    return emit(args, data, "\n".join(lines))


def _log10(log_c) -> str:
    """log C as a decimal exponent, or the word for an overflow."""
    import math

    return "> 1e308" if log_c is None else f"{log_c / math.log(10):.4g}"


def _cmd_mixture(args) -> int:
    """Exact witness that a two-component Gaussian mixture is not preserved; optional measured departure."""
    from ..spec.rational import to_fraction
    from ..symbolic.mixture import mixture_witness

    vals = {k: to_fraction(getattr(args, k), f"--{k}") for k in ("a", "v", "m", "s", "w")}
    try:
        wit = mixture_witness(**vals)
    except ValueError as exc:
        raise InvalidParameters("--a/--v/--m/--s/--w", str(exc)) from None
    data = {"witness": wit}
    lines = [f"softmax, d = 1, A = {wit['instance']['A']}, V = {wit['instance']['V']}, μ₀ = "
             + " + ".join(f"{c['weight']}·N({c['mean']}, {c['var']})" for c in wit["instance"]["law"]),
             f"  rank of the tangent space of two-component mixtures ({wit['taylor_terms']} Taylor terms): "
             f"{wit['rank_tangent']}; with (ρΓ)': {wit['rank_augmented']} (exact, over Q)",
             f"  Γ''(0) = {wit['gamma_second_derivative_at_0']} (exact)",
             f"  {'WITNESS: ' if wit['witness'] else ''}{wit['statement']}"]
    if args.problem:
        from ..numeric.laws import mixture_departure
        from ..spec.problem import load_problem

        dep = mixture_departure(load_problem(args.problem), args.T, N=args.N, steps=args.steps, seed=args.seed)
        data["departure"] = dep
        lines.append(f"  measured departure at t = {dep['t'][-1]:g} (numerical evidence): Mardia kurtosis excess "
                     + ", ".join(f"{e:+.3f}" for e in dep["mardia_excess"][-1])
                     + " (noise floor ±" + ", ".join(f"{f:.3f}" for f in dep["noise_floor"]) + ")")
        if args.plot:
            from ..plots import mixture_departure_figure

            try:
                data["figures"] = [str(f) for f in mixture_departure_figure(dep, args.plot)]
            except OSError as exc:
                raise InvalidParameters("--plot", f"cannot write {args.plot!r}: {exc.strerror or exc}") from None
            lines += [f"  wrote {f}" for f in data["figures"]]
    elif args.plot:
        raise InvalidParameters("--plot", "the departure figure needs --problem (a problem with a mixture law)")
    return emit(args, data, "\n".join(lines))


def _cmd_masked(args) -> int:
    """Masked attention: the closure question (exact) and the attention-sink experiment (numerical)."""
    from ..numeric.masked import marginal, sink_experiment
    from ..spec.problem import load_problem
    from ..symbolic.masked_closure import masked_closure_report

    problem = load_problem(args.problem)
    sinks = None if args.sinks is None else float_list(args.sinks, "--sinks", 0.0, 1.0)
    kind, file_sink = marginal(problem, args.positions)  # the [masked] table; --positions overrides it
    if sinks is None:  # --sinks overrides the table's sink mass; neither: three masses for comparison
        sinks = [file_sink] if getattr(problem, "masked", None) is not None else [0.0, 0.05, 0.2]
    closure = masked_closure_report(problem)
    exp = sink_experiment(problem, N=args.N, T=args.T, steps=args.steps, save_every=args.save_every, sinks=sinks,
                          kind=kind, perturb=args.perturb, seed=args.seed).to_dict()
    data = {"problem": str(args.problem), "problem_hash": problem.content_hash(), "closure": closure,
            "sink_experiment": exp}
    w = closure["position_dependent"]["witness"]
    lines = [f"closure (exact): position-independent Gaussian data → per-position moment ODE = softmax ODE "
             f"(identity checked in d = {closure['position_independent']['checked_in_dimension']}); "
             f"position-dependent data → not closed, q'''(0) = {w['q3']} ≠ 0 at the witness instance",
             f"attention on the first position across depth (numerical evidence; N = {args.N}, positions "
             f"{kind}):"]
    for run in exp["runs"]:
        att = ", ".join(f"{a:.3f}" for a in run["attention"])
        lines.append(f"  sink mass {run['sink']:g}: uniform share {run['baseline']:.3f}; attention [{att}]; "
                     f"W2cond ratio at T {run['cond_w2_ratio'][-1]:.3g} (sup {run['cond_w2_sup_ratio'][-1]:.3g})")
    lines += [f"  note: {n}" for n in exp["notes"]]
    from ..plots import sink_figure

    return emit_with_figure(args, data, lines, sink_figure, exp)


def _cmd_relu(args) -> int:
    """ReLU feed-forward: departure from the moment-matched Gaussian beside the first-order estimate."""
    from ..numeric.relu import relu_departure
    from ..spec.problem import load_problem

    problem = load_problem(args.problem)
    rep = relu_departure(problem, N=args.N, T=args.T, steps=args.steps, save_every=args.save_every,
                         seed=args.seed, floor_repeats=args.floor_repeats).to_dict()
    data = {"problem": str(args.problem), "problem_hash": problem.content_hash(), **rep}
    f = rep["noise_floor"]["sliced_w2"]
    lines = [f"ReLU feed-forward (numerical evidence, N = {args.N}): ‖Σ₀^(-1/2) r‖ = "
             f"{rep['residual_norm_whitened']:.4g} (closed form; {rep['residual_norm_whitened_sample']:.4g} on the "
             f"sample), noise floor of sliced W2 {f['mean']:.4f} ± {f['sd']:.4f}",
             "       t   coupled   estimate   sliced W2 (ReLU)   sliced W2 (affine twin)"]
    for k, t in enumerate(rep["t"]):
        lines.append(f"  {t:6.3f}  {rep['coupled_departure'][k]:8.4f}  {rep['first_order_estimate'][k]:9.4f}"
                     f"  {rep['metrics'][k]['sliced_w2']:17.4f}  {rep['twin_metrics'][k]['sliced_w2']:17.4f}")
    lines += [f"  note: {n}" for n in rep["notes"]]
    from ..plots import relu_figure

    return emit_with_figure(args, data, lines, relu_figure, rep)


def _add_meanfield(sub) -> None:
    s = command(sub, "meanfield", _cmd_meanfield, "finite-N tokens vs the moment ODE (propagation of chaos)")
    add_problem(s)
    s.add_argument("--N", default="250,500,1000,2000,4000", help="comma-separated token counts")
    s.add_argument("--seeds", type=int_type(1, 10**6), default=3, help="independent samples per N")
    add_T(s, "horizon (default: the problem's T, else 1)")
    add_steps(s, None, 10**8, "RK4 steps (default max(20, 40·T))")
    add_out(s, "out/meanfield", "folder for meanfield.json and the figures (default out/meanfield)")
    add_json(s)


def _add_stability(sub) -> None:
    s = command(sub, "stability", _cmd_stability,
                "measured W_p ratio of perturbed token flows vs the stability constant C(t)")
    add_problem(s)
    add_T(s, "depth horizon", required=True)
    s.add_argument("--perturb", action="append", metavar="KIND:EPS",
                   help="shift|scale|noise|rotate with a size (repeatable; default all four at 0.05)")
    s.add_argument("--N", type=int_type(1, 3000), default=200, help="tokens per cloud (exact OT, at most 3000)")
    s.add_argument("--seeds", type=int_type(1, 1000), default=3,
                   help="independent token samples per perturbation (seeds 0, 1, ...; default 3)")
    add_steps(s, 100)
    s.add_argument("--p", type=positive_float, default=2.0, help="the order p >= 1 of W_p")
    s.add_argument("--positions", default=None, help="masked attention: position marginal off the sink, uniform or "
                                                     "grid:K (default: the problem's [masked] table, else uniform)")
    s.add_argument("--sink", default=None, help="masked attention: Dirac mass at s = 0 in [0, 1) (default: the "
                                                "problem's [masked] table, else 0)")
    add_plot(s, "draw the measured ratios against C(t) (the suffix is the format; PNG without one)", "OUT.png")
    add_json(s)


def _add_mixture(sub) -> None:
    s = command(sub, "mixture", _cmd_mixture,
                "exact witness: Gaussian mixtures are not preserved (and measured departure)")
    s.add_argument("--a", default="2", help="attention scalar (exact)")
    s.add_argument("--v", default="1", help="value scalar (exact)")
    s.add_argument("--m", default="1", help="component means ∓m (exact)")
    s.add_argument("--s", default="1", help="component variance (exact)")
    s.add_argument("--w", default="1/3", help="weight of the component at −m (exact)")
    s.add_argument("--problem", default=None, help="a problem with a mixture [initial] law: measure the departure")
    add_T(s, "depth of the measured departure (with --problem; default 1)", 1.0)
    s.add_argument("--N", type=int_type(2, 10**6), default=2000, help="tokens of the measured departure (default 2000)")
    add_steps(s, 100)
    add_seed(s, 2**32 - 1)
    add_plot(s, "draw the components' kurtosis excess over depth (needs --problem; the suffix is the format)",
             "OUT.png")
    add_json(s)


def _token_run_options(s, N_lo: int, N_default: int) -> None:  # shared by masked and relu
    s.add_argument("--N", type=int_type(N_lo, 20000), default=N_default, help="tokens")
    add_T(s, "depth (default: the problem's T, else 1)")
    add_steps(s, 40)
    s.add_argument("--save-every", type=int_type(1, 10**6), default=4, help="record every k steps")
    add_seed(s)
    add_plot(s, "figure stem (writes STEM.png and STEM.pdf)")
    add_json(s)


def _add_masked(sub) -> None:
    s = command(sub, "masked", _cmd_masked, "masked (causal) attention: moment closure (exact) and the attention sink")
    add_problem(s, "a problem with variant = \"masked\"")
    _token_run_options(s, 2, 400)
    s.add_argument("--sinks", default=None, help="comma-separated Dirac masses at s = 0, each in [0, 1) (default: the "
                                                 "problem's [masked] sink, else 0,0.05,0.2)")
    s.add_argument("--positions", default=None, help="position marginal off the sink: uniform or grid:K (default: the "
                                                     "problem's [masked] table, else uniform)")
    s.add_argument("--perturb", type=positive_float, default=0.01, help="ε of the perturbed flow (W2cond)")


def _add_relu(sub) -> None:
    s = command(sub, "relu", _cmd_relu, "ReLU feed-forward: departure from the moment-matched Gaussian (numerical)")
    add_problem(s, "a problem with a [relu] table (W1, b1, W2)")
    _token_run_options(s, 10, 2000)
    s.add_argument("--floor-repeats", type=int_type(2, 10**4), default=8, help="Gaussian clouds in the noise floor")


#: subcommand → the function that adds its parser (``symtf`` lists them in cli.COMMAND_ORDER)
PARSERS = {"meanfield": _add_meanfield, "stability": _add_stability, "mixture": _add_mixture,
            "masked": _add_masked, "relu": _add_relu}
