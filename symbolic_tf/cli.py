"""The ``symtf`` command: parse, call the library, print (text or ``--json``), write atomically.

Exit codes: 0 ran (and, for ``symtf check``, verified); 1 a certificate or map was REJECTED
(``symtf check`` prints one line ``REJECTED: reason`` on stderr); 2 bad input or usage — every
user error (unreadable, malformed or oversized file, bad matrix, unknown variant, bad option)
prints one line ``symtf: error: ...`` on stderr.
"""
from __future__ import annotations

import argparse
import json
from fractions import Fraction
import sys
import time
from pathlib import Path

from .spec.errors import CertificationFailed, InvalidParameters, SymtfError

from .spec.limits import MAX_DIM, MAX_TOKENS

EXIT_OK = 0
EXIT_REJECTED = 1
EXIT_USER_ERROR = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one readable line, exit 2 (argparse prints usage otherwise)
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


# ----- option types (refused by argparse, before any work: one line, exit 2) ---------------
def _int_type(lo: int | None = None, hi: int | None = None):
    """An argparse type: an integer in [lo, hi] (written in decimal; "1e9" is not an integer)."""
    def parse(text: str) -> int:
        t = str(text).strip()
        if not t.lstrip("+-").isdigit() or len(t) > 30:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text[:40]!r}")
        v = int(t)
        if lo is not None and v < lo:
            raise argparse.ArgumentTypeError(f"must be ≥ {lo}, got {v}")
        if hi is not None and v > hi:
            raise argparse.ArgumentTypeError(f"must be ≤ {hi}, got {v}")
        return v
    return parse


def _positive_float(text: str) -> float:
    """An argparse type: a finite positive number ("inf", "nan", "1e9999", 0 and negatives refused)."""
    import math

    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None
    if not math.isfinite(v) or not v > 0:
        raise argparse.ArgumentTypeError(f"must be a finite positive number, got {text[:40]!r}")
    return v


def _exact_option(text: str, option: str, *, positive: bool = False, nonnegative: bool = False):
    """An exact rational option (``"2"``, ``"1/3"``, ``"0.5"``) whose float is finite."""
    import math

    from .spec.rational import fraction_str, to_fraction

    q = to_fraction(text, option)
    if positive and q <= 0:
        raise InvalidParameters(option, f"must be positive, got {fraction_str(q)[:40]}")
    if nonnegative and q < 0:
        raise InvalidParameters(option, f"must be nonnegative, got {fraction_str(q)[:40]}")
    try:
        finite = math.isfinite(float(q))
    except OverflowError:
        finite = False
    if not finite:
        raise InvalidParameters(option, f"too large: {str(text)[:40]!r} (must fit a double)")
    return q


def _emit(args, data: dict, text: str) -> None:
    """Print ``text``, or with ``--json`` the document ``data`` tagged with ``schema``/``version``."""
    if getattr(args, "json", False):
        from .display import tagged

        print(json.dumps(tagged(getattr(args, "command", None) or "output", data), indent=2, ensure_ascii=False))
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
        from .display import matrix_str

        inst = v.evidence["instance"]
        params = ", ".join(f"{k} = {matrix_str(val)}" for k, val in inst["parameters"].items())
        law = " + ".join(f"{c['weight']}·N({matrix_str(c['mean'])}, {matrix_str(c['cov'])})" for c in inst["law"])
        text += (f"\n  witness instance: d = {inst['d']}, {params}; law μ = {law}"
                 f"\n  derivative of order {v.evidence['order']} of Γ along u = {matrix_str(inst['direction'])} "
                 f"at x₀ = 0: {matrix_str(v.evidence['derivative'])}")
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
    val = rhs(problem, args.t)  # at depth t (a schedule's parameters there; docs/schedules.md)
    data = val.to_dict()
    if problem.schedule is not None:
        data["t"] = args.t
    from .display import exact_and_decimal, short_decimal

    show = exact_and_decimal if val.exact else short_decimal  # exact p/q with ≈ decimal; floats short
    lines = [f"variant: {val.variant}   ({'exact' if val.exact else 'not exact: 30 significant digits in --json'})",
             "d/dt alpha = [" + ", ".join(show(e) for e in val.mean_rhs) + "]", "d/dt Sigma ="]
    lines += ["  [" + ", ".join(show(e) for e in row) + "]" for row in val.cov_rhs]
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


def _int_list(text: str, option: str, lo: int = 1, hi: int = MAX_TOKENS) -> list[int]:
    """Comma-separated integers, each in [lo, hi] (one-line InvalidParameters otherwise)."""
    parse = _int_type(lo, hi)
    try:
        vals = [parse(t) for t in str(text).split(",") if t.strip()]
    except argparse.ArgumentTypeError as exc:
        raise InvalidParameters(option, f"expected comma-separated integers: {exc}") from None
    if not vals:
        raise InvalidParameters(option, "empty list")
    return vals


def cmd_meanfield(args) -> int:
    """Finite-N tokens vs the moment ODE: W₂ distance per N, log–log slope, plot."""
    from .atomic import write_json_atomic
    from .numeric.meanfield import meanfield_check
    from .spec.errors import InvalidParameters
    from .spec.problem import load_problem

    Ns = _int_list(args.N, "--N", lo=2)
    problem = load_problem(args.problem)
    say = None if args.json or args.quiet else (lambda m: print(m, file=sys.stderr, flush=True))
    rep = meanfield_check(problem, Ns=Ns, seeds=range(args.seeds), T=args.T, steps=args.steps, progress=say)
    data = {"problem": str(args.problem), "problem_hash": problem.content_hash(), **rep.to_dict()}
    out = Path(args.out)
    try:
        from .display import tagged

        data = tagged("meanfield", data)
        write_json_atomic(out / "meanfield.json", data)
        from .plots import meanfield_figure

        figs = meanfield_figure(rep, out / "meanfield")
    except OSError as exc:
        raise InvalidParameters("--out", f"cannot write to {str(out)!r}: {exc.strerror or exc}") from None
    data["figures"] = [str(f) for f in figs]
    if rep.gaussian_closed:
        rows = [f"  N = {n:>6}: W2 = {e:.4e}" for n, e in zip(rep.Ns, rep.mean_distance) if e is not None]
        slope = "n/a" if rep.slope is None else f"{rep.slope:.3f}"
        text = (f"{rep.variant}: Bures–Wasserstein distance to the moment ODE at T = {rep.T:g} "
                f"(mean over {len(rep.seeds)} seeds; numerical evidence)\n" + "\n".join(rows)
                + f"\n  log–log slope {slope} (−1/2 expected)")
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
    _emit(args, data, text)
    return 0


def cmd_stability(args) -> int:
    """Measured W_p(μ_t, ν_t)/W_p(μ₀, ν₀) against the stability constant C(t) (docs/stability.md)."""
    import math

    from .numeric.stability import measure_stability, parse_perturbation
    from .spec.errors import InvalidParameters
    from .spec.problem import load_problem

    problem = load_problem(args.problem)
    perts = [parse_perturbation(x) for x in (args.perturb or ["shift:0.05", "scale:0.05", "noise:0.05", "rotate:0.05"])]
    res = measure_stability(problem, args.T, perts, N=args.N, seeds=tuple(range(args.seeds)), steps=args.steps, p=args.p)
    data = {"problem": str(args.problem), "problem_hash": problem.content_hash(), **res}
    if args.plot:
        from .plots import stability_figure

        try:
            data["figures"] = [str(f) for f in stability_figure(res, args.plot)]
        except OSError as exc:
            raise InvalidParameters("--plot", f"cannot write {args.plot!r}: {exc.strerror or exc}") from None
    lines = [f"W_p ratio vs the stability constant C(t) at T = {res['T']:g} (N = {res['N']}, p = {res['p']:g}, "
             f"{len(res['runs'])} runs; {res['distance']})",
             f"  max measured ratio at T: {math.exp(res['log_ratio_max'][-1]):.4g}  (numerical evidence)",
             f"  log10 C(T) (proven bound, floats): {res['log_C_min'][-1] / math.log(10):.4g} to "
             f"{res['log_C_max'][-1] / math.log(10):.4g} (the runs' R₀)",
             f"  in the tightest run the bound exceeds the measured ratio by 10^{res['looseness_log10_at_T']:.3g}",
             f"  ratio <= C(t) at every saved time in every run: {res['all_sound']}"]
    lines += [f"  wrote {f}" for f in data.get("figures", [])]
    _emit(args, data, "\n".join(lines))
    return 0


def cmd_mixture(args) -> int:
    """Exact witness that a two-component Gaussian mixture is not preserved; optional measured departure."""
    from .spec.errors import InvalidParameters
    from .symbolic.mixture import mixture_witness

    from .spec.rational import to_fraction

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
        from .numeric.laws import mixture_departure
        from .spec.problem import load_problem

        dep = mixture_departure(load_problem(args.problem), args.T, N=args.N, steps=args.steps, seed=args.seed)
        data["departure"] = dep
        lines.append(f"  measured departure at t = {dep['t'][-1]:g} (numerical evidence): Mardia kurtosis excess "
                     + ", ".join(f"{e:+.3f}" for e in dep["mardia_excess"][-1])
                     + " (noise floor ±" + ", ".join(f"{f:.3f}" for f in dep["noise_floor"]) + ")")
        if args.plot:
            from .plots import mixture_departure_figure

            try:
                data["figures"] = [str(f) for f in mixture_departure_figure(dep, args.plot)]
            except OSError as exc:
                raise InvalidParameters("--plot", f"cannot write {args.plot!r}: {exc.strerror or exc}") from None
            lines += [f"  wrote {f}" for f in data["figures"]]
    elif args.plot:
        raise InvalidParameters("--plot", "the departure figure needs --problem (a problem with a mixture law)")
    _emit(args, data, "\n".join(lines))
    return 0


def cmd_classify(args) -> int:
    """One regime with status and certificate (exact / ball arithmetic)."""
    from .atomic import write_json_atomic
    from .regimes.classify import classify
    from .spec.errors import InvalidParameters
    from .spec.problem import load_problem

    problem = load_problem(args.problem)  # --horizon is finite and positive (argparse type)
    c = classify(problem, uniform=args.uniform, horizon=args.horizon)
    data = c.to_dict()
    if args.cert and c.certificate is not None:
        try:
            write_json_atomic(args.cert, c.certificate)
        except OSError as exc:
            raise InvalidParameters("--cert", f"cannot write {args.cert!r}: {exc.strerror or exc}") from None
    scope = c.quantifier or ("a class of Σ₀" if c.uniform else "the problem's Σ₀")
    scope = "the problem's Σ₀" if scope == "this Σ₀" else scope
    text = f"{c.regime} ({c.status}) for {scope}" if c.status == "PROVED" else "UNDECIDED"
    if c.rank is not None:
        text += f": limit rank {c.rank}"
    if c.T_lo is not None:
        text += f": T* ∈ [{c.T_lo}, {c.T_hi}]  (≈ [{float(Fraction(c.T_lo)):.15g}, {float(Fraction(c.T_hi)):.15g}])"
    text += f"\n  claim: {c.claim}\n  reason: {c.reason}" if c.claim else f"\n  reason: {c.reason}"
    for route, claim, _ in c.side_claims:
        text += f"\n  also proved ({route}): {claim.text()}"
    if c.numerical.get("summary"):
        text += f"\n  {c.numerical['summary']}"
    if c.certificate is not None:
        text += f"\n  certificate kind: {c.certificate['kind']}" + (f" (written to {args.cert})" if args.cert else "")
    _emit(args, data, text)  # the verdict is shown even when --cert cannot be honoured
    if args.cert and c.certificate is None:
        sys.stdout.flush()
        raise InvalidParameters("--cert", f"no certificate written: the verdict is {c.status} (see above)")
    return 0


def cmd_check(args) -> int:
    """Re-verify a certificate file (or every cell of a map file) independently.

    Exit 0 when everything verifies, 1 (one line ``REJECTED: reason``) when a certificate or
    map does not, 2 when the file cannot be read or parsed at all (bad input).
    """
    from .certify.certificate import SCHEMA as CERT_SCHEMA, Certificate
    from .certify.check import check
    from .spec.errors import ProblemFileError
    from .spec.limits import MAX_FILE_BYTES, MAX_MAP_FILE_BYTES, load_json_text, read_text_file

    label = str(args.cert)
    text = read_text_file(args.cert, "certificate", max_bytes=MAX_MAP_FILE_BYTES)
    head = load_json_text(text, label)  # unparsable, too deep, too many digits: bad input, exit 2
    if not isinstance(head, dict):
        raise ProblemFileError(f"{label}: expected a JSON object (a certificate or a regime map), "
                               f"got a JSON {type(head).__name__}")
    try:
        if head.get("schema") == "symbolic_tf.regime_map/1":
            from .regimes.maps import check_map

            r = check_map(head)
            _emit(args, {"ok": True, "kind": "regime-map", **r},
                  f"OK: regime map verified: {r['cells_checked']} cell certificate(s) and {r['points_checked']} "
                  f"point verdict(s) re-checked, {r['cells']} cells tile the box")
            return EXIT_OK
        if head.get("schema") != CERT_SCHEMA:
            from .certify.check import embedded_certificates

            certs = embedded_certificates(head)
            if certs:  # a report with embedded certificates (e.g. heads.json): check every one
                kinds: dict = {}
                for c in certs:
                    r = check(c)
                    kinds[r.kind] = kinds.get(r.kind, 0) + 1
                _emit(args, {"ok": True, "kind": "embedded", "certificates": len(certs), "kinds": kinds},
                      f"OK: {len(certs)} embedded certificate(s) verified ("
                      + ", ".join(f"{k}: {n}" for k, n in sorted(kinds.items())) + ")")
                return EXIT_OK
        if len(text) > MAX_FILE_BYTES:
            raise ProblemFileError(f"cannot read certificate {label!r}: too large (at most {MAX_FILE_BYTES} bytes)")
        res = check(Certificate.from_dict(head))
    except CertificationFailed as exc:
        reason = " ".join(str(exc).split())
        if getattr(args, "json", False):
            from .display import tagged

            print(json.dumps(tagged("check", {"ok": False, "rejected": reason}), ensure_ascii=False))
        print(f"REJECTED: {reason}", file=sys.stderr)
        return EXIT_REJECTED
    claim = getattr(res.claim, "text", None)
    claim = claim() if callable(claim) else (claim if claim is not None else res.claim)
    data = {"ok": True, "kind": res.kind, "status": res.status, "claim": claim}
    _emit(args, data, f"OK: certificate verified ({res.kind}): {res.status}: {claim}")
    return EXIT_OK


def cmd_regime_map(args) -> int:
    """A certified regime map of a slice: map.json (every cell and its certificate) + figure."""
    from .atomic import write_json_atomic
    from .plots import regime_map_figure
    from .regimes.executors import make_executor
    from .regimes.maps import run_map, theory_fields, validate_spec
    from .spec.mapspec import load_map_spec

    # --workers, --dask-local, --chunk-size are ≥ 1 (argparse types): refused before anything
    spec = load_map_spec(args.spec)
    validate_spec(spec)  # unknown variant, missing matrices: refused before anything is written
    out = Path(args.out)
    try:
        (out / "chunks").mkdir(parents=True, exist_ok=True)
        with make_executor(args.workers, args.scheduler, args.dask_local) as ex:
            doc = run_map(spec, out, executor=ex, chunk_size=args.chunk_size, progress=not (args.quiet or args.json))
        write_json_atomic(out / "map.json", doc)
        figs = regime_map_figure(doc, out / "map", theory=theory_fields(spec))
    except OSError as exc:
        raise InvalidParameters("--out", f"cannot write to {str(out)!r}: {exc.strerror or exc}") from None
    t, r = doc["totals"], doc["run"]
    lines = [f"{spec.name or args.spec}: {len(doc['cells'])} cells, {100 * t['decided_fraction']:.2f}% of the "
             f"area certified ({r['executor']}, {r['workers']} worker(s), {r['wall_seconds']} s, "
             f"{r['cells_per_second']} cells/s)"]
    lines += [f"  {k}: {100 * v:.2f}% of the area" for k, v in t["fraction_by_regime"].items()]
    if doc["route_reason"]:
        lines.append(f"  no whole-cell certificates: {doc['route_reason']}")
    lines.append(f"  wrote {out / 'map.json'}, " + ", ".join(str(f) for f in figs))
    _emit(args, {"map": str(out / "map.json"), "figures": [str(f) for f in figs], "totals": t, "run": r},
          "\n".join(lines))
    return 0


def cmd_reproduce(args) -> int:
    """Reproduce a seed paper's experiments (figures + JSON summary)."""
    from .spec.errors import InvalidParameters

    papers = ("castin2025", "alcalde2026", "regimes")
    if args.paper not in papers:
        raise InvalidParameters("paper", f"unknown paper {args.paper!r}; available: {', '.join(papers)}")
    import importlib

    run = importlib.import_module(f".reproduce.{args.paper}", __package__).run

    out = Path(args.out or f"out/{args.paper}")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidParameters("--out", f"cannot create {str(out)!r}: {exc.strerror or exc}") from None
    t0 = time.perf_counter()
    summary = run(out, quick=args.quick, seed=args.seed, progress=not (args.quiet or args.json))
    text = (f"{args.paper} ({'quick' if args.quick else 'full'}, seed {args.seed}): "
            f"wrote {out / (args.paper + '.json')} and figures in {out / 'figures'} ({time.perf_counter() - t0:.0f} s)")
    if args.paper == "regimes":
        text = "\n".join([text.split(" and figures")[0] + f" ({time.perf_counter() - t0:.0f} s)"] + [
            f"  {m['name']}: {100 * m['totals']['decided_fraction']:.2f}% of the area certified, "
            f"{m['run']['wall_seconds']} s" + (f"; cross-check {m['crosscheck']['agree']}/{m['crosscheck']['points']} "
                                                "points agree" if "crosscheck" in m else "")
            + (f"; {m['route_reason']}" if m.get("route_reason") else "") for m in summary["maps"].values()])
    public = {k: v for k, v in summary.items() if not str(k).startswith("_")}  # "_results": arrays
    _emit(args, public if args.json else {}, text)
    return 0


def cmd_verify(args) -> int:
    """Verify the catalogue of the papers' claims, or a user's conjecture file."""
    from .atomic import write_json_atomic
    from .spec.errors import InvalidParameters

    say = None if (args.json or args.quiet) else (lambda m: print(m, file=sys.stderr, flush=True))
    if args.target == "catalogue":
        from .conjectures.catalogue import format_table, run_catalogue

        reports = run_catalogue(examples=args.examples, seed=args.seed, progress=say)
        data = {"catalogue": [r.to_dict() for r in reports], "examples": args.examples, "seed": args.seed}
        text = format_table(reports)
    else:
        from .spec.problem import read_document

        doc = read_document(args.target, "conjecture file")  # before the heavy imports
        if not isinstance(doc, dict):
            raise InvalidParameters("conjecture", f"expected a table/object, got a {type(doc).__name__}")
        if args.max_dim is not None:
            hyp = doc.setdefault("hypothesis", {})
            if not isinstance(hyp, dict):
                raise InvalidParameters("hypothesis", f"expected a table, got {type(hyp).__name__}")
            hyp["max_d"] = args.max_dim
        from .conjectures.catalogue import conjecture_from_toml
        from .conjectures.core import verify

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
    _emit(args, data, text)
    return 0


def _matrix_option(text: str, option: str):
    """An exact matrix from a JSON/TOML-style literal like '[[1, "1/2"], [0, -1]]'."""
    from .spec.errors import InvalidParameters, ProblemFileError
    from .spec.limits import load_json_text
    from .spec.rational import to_matrix

    try:
        value = load_json_text(str(text), option)  # nesting, digits, NaN: the file limits
    except ProblemFileError as exc:
        raise InvalidParameters(option, f"expected a matrix literal like [[1, \"1/2\"], [0, -1]]: "
                                f"{str(exc).removeprefix(option + ': ')}") from None
    if isinstance(value, (int, float, str)):
        value = [[value]]
    M = to_matrix(value, option)
    if len(M) != len(M[0]):
        raise InvalidParameters(option, "must be square")
    if len(M) > MAX_DIM:
        raise InvalidParameters(option, f"at most {MAX_DIM}×{MAX_DIM}")
    return M


def cmd_convexity(args) -> int:
    """Geodesic convexity of the interaction energy E = ½∬e^{yᵀAx}dμdμ: certified witness or not."""
    from .atomic import write_json_atomic
    from .spec.errors import InvalidParameters

    if args.variant not in ("softmax",):
        raise InvalidParameters("variant", "convexity is implemented for the softmax kernel W = e^{yᵀAx}")
    A = _matrix_option(args.A, "--A")
    d = len(A)
    if args.along == "dirac":
        from .certify.convexity import find_nonconvexity_witness

        if args.points < 1:
            raise InvalidParameters("--points", "must be ≥ 1")
        v = find_nonconvexity_witness([[str(x) for x in r] for r in A], n_points=args.points, d=d, seed=args.seed)
        cert = v.evidence.get("certificate")
        if args.cert:
            if cert is None:
                raise InvalidParameters("--cert", f"no witness certificate ({v.status}: {v.reason})")
            write_json_atomic(args.cert, cert)
        data = {"variant": args.variant, "along": "dirac", **v.to_dict()}
        text = f"{v.status}: {v.claim}\n  {v.reason}"
        if cert is not None:
            text += f"\n  λ-convexity fails for every λ > {cert['data'].get('lambda_bound')}"
            text += f"\n  witness positions {cert['data'].get('positions')}, displacements {cert['data'].get('displacements')}"
    elif args.along == "twisted":
        from .symbolic.convexity_bounds import twisted_convexity_witness

        if args.V is None:
            raise InvalidParameters("--V", "--along twisted needs the value matrix V (M = VA⁻¹)")
        Vm = _matrix_option(args.V, "--V")
        if len(Vm) != d:
            raise InvalidParameters("--V", f"must be {d}×{d} like A")
        import sympy as sp

        M = lambda X: sp.Matrix([[sp.Rational(e.numerator, e.denominator) for e in r] for r in X])  # noqa: E731
        v = twisted_convexity_witness(M(A), M(Vm))
        data = {"variant": args.variant, "along": "twisted", **v.to_dict()}
        text = f"{v.status}: {v.claim}\n  {v.reason}"
    elif args.sigma is None and args.target is None and d == 1:
        from .symbolic.convexity_bounds import gaussian_bw_convexity_1d

        v = gaussian_bw_convexity_1d()
        data = {"variant": args.variant, "along": "gaussian", **v.to_dict()}
        text = f"{v.status}: {v.claim}\n  {v.reason}"
    else:
        import sympy as sp

        from .symbolic.ball import arb_to_pair, sign_of, to_arb
        from .symbolic.convexity import second_variation_gaussian_bw

        if args.sigma is None or args.target is None:
            raise InvalidParameters("--sigma", "--along gaussian in d > 1 needs --sigma (Σ ≻ 0) and --target (T ≻ 0)")
        Sg, T = _matrix_option(args.sigma, "--sigma"), _matrix_option(args.target, "--target")
        if len(Sg) != d or len(T) != d:
            raise InvalidParameters("--sigma", f"Σ and T must be {d}×{d} like A")
        from .certify.exact import definiteness

        if not definiteness(Sg).pd or T != tuple(zip(*T)) or not definiteness(T).pd:
            raise InvalidParameters("--sigma", "Σ must be positive definite and T symmetric positive definite")
        M = lambda X: sp.Matrix([[sp.Rational(e.numerator, e.denominator) for e in r] for r in X])  # noqa: E731
        try:
            val = sp.simplify(second_variation_gaussian_bw(M(A), M(Sg), M(T)))
        except InvalidParameters as exc:
            raise InvalidParameters("--sigma", exc.reason) from None
        if val.has(sp.nan, sp.zoo, sp.oo, -sp.oo) or not val.is_real:
            raise InvalidParameters("--sigma", f"the second variation is not a finite real number here ({val})")
        sg = sign_of(val)
        status = {1: "POSITIVE here", -1: "NEGATIVE here (not convex along this geodesic)", 0: "zero"}.get(sg, "undecided")
        data = {"variant": args.variant, "along": "gaussian", "second_variation": str(val), "sign": sg,
                "ball": arb_to_pair(to_arb(val)) if not val.is_Rational else None, "decided": sg is not None}
        text = f"d²E/ds² along the Bures–Wasserstein geodesic from Σ towards TΣT: {val}\n  sign: {status} (exact / ball)"
    _emit(args, data, text)
    return 0


def cmd_energy(args) -> int:
    """Interaction energy of a variant's kernel; with --gaussian its closed form on N(α, Σ)."""
    import sympy as sp

    from .spec.errors import InvalidParameters
    from .symbolic.energy import gaussian_energy

    kernels = {"softmax": "softmax", "l2": "l2"}
    if args.variant not in kernels:
        raise InvalidParameters("variant", f"energies are implemented for {', '.join(kernels)}")
    if args.dim is not None and not 1 <= args.dim <= 4:
        raise InvalidParameters("--dim", "must be between 1 and 4")
    kernel_txt = {"softmax": "W(x, y) = e^{yᵀAx}", "l2": "W(x, y) = e^{−|Qx−Ky|²}"}[args.variant]
    data = {"variant": args.variant, "energy": "E(μ) = ½∬ W(x, y) dμ(x) dμ(y)", "kernel": kernel_txt}
    text = f"E(μ) = ½∬ W(x, y) dμ(x) dμ(y),  {kernel_txt}"
    if args.gaussian:
        d = args.dim if args.dim is not None else (None if args.variant == "softmax" else 1)
        from .display import status

        where = "in matrix form" if d is None else f"at d = {d} (fully symbolic entries; d ≥ 3 takes minutes)"
        with status(f"closed form of E(N(α, Σ)) {where}"):
            g = gaussian_energy(kernels[args.variant], d)
        from .display import matrix_str

        cond = matrix_str(g.condition) if isinstance(g.condition, sp.MatrixBase) else sp.sstr(g.condition)
        data.update(gaussian=sp.sstr(g.expr), condition=cond, dim=g.d,
                    latex=sp.latex(g.expr))
        if args.format == "latex":
            text = f"E(N(\\alpha, \\Sigma)) = {sp.latex(g.expr)}"
        else:
            text += (f"\nE(N(α, Σ)) = {sp.sstr(g.expr)}\n  finite iff this matrix is positive definite: "
                     f"{cond}")
    if args.format == "json":
        args.json = True
    _emit(args, data, text)
    return 0


GRADIENT_FLOW_MAX_DIM = 4


def cmd_gradient_flow(args) -> int:
    """Is the variant's flow a gradient flow for the given metric? Decided exactly or with evidence."""
    from .spec.errors import InvalidParameters
    from .symbolic.energy import sinkhorn_bures_wasserstein_gradient_flow, softmax_is_twisted_gradient_flow

    if args.dim > GRADIENT_FLOW_MAX_DIM:
        raise InvalidParameters("--dim", f"gradient-flow decides d ≤ {GRADIENT_FLOW_MAX_DIM} "
                                f"(explicit symbolic entries), got {args.dim}")
    if args.variant == "softmax" and args.metric in ("twisted", "wasserstein"):
        v = softmax_is_twisted_gradient_flow(d=args.dim, assume_symmetric=args.symmetric)
        if args.metric == "wasserstein":
            v.reason = ("plain Wasserstein is the twisted metric with M = I, i.e. V = A: " + v.reason)
    elif args.variant == "sinkhorn" and args.metric == "bures-wasserstein":
        v = sinkhorn_bures_wasserstein_gradient_flow(d=args.dim)
    else:
        raise InvalidParameters("--metric", "available: softmax with twisted|wasserstein, sinkhorn with bures-wasserstein")
    data = {"variant": args.variant, "metric": args.metric, "dim": args.dim, **v.to_dict()}
    _emit(args, data, f"{v.status}: {v.claim}\n  {v.reason}")
    return 0


def _schedule_path(result, mean0, cov0, samples: int = 8):
    """Float samples (t, mean, cov) along a schedule (batched integrator on each phase)."""
    import numpy as np

    from .numeric.codegen import compile_system
    from .numeric.integrate import integrate
    from .symbolic.moments import derive

    comp = compile_system(derive("softmax", drift=True, scale=None))
    a = np.array([float(x) for x in mean0])
    S = np.array([[float(x) for x in r] for r in cov0])
    t0, path = 0.0, [(0.0, a.copy(), S.copy())]
    for ph in result.schedule:
        f = lambda M: np.array([[float(x) for x in r] for r in M])  # noqa: E731
        prm = {"A": f(ph.A), "V": f(ph.V), "F": f(ph.F), "b": np.array([[float(x)] for x in ph.b]), "tau": 1.0}
        dur = float(ph.duration)
        ts = np.linspace(0, dur, samples)
        sol = integrate(comp, a, S, prm, dur, t_eval=ts, rtol=1e-10, atol=1e-12)
        for j in range(1, samples):
            path.append((t0 + ts[j], sol.alpha[0, j], sol.Sigma[0, j]))
        a, S, t0 = sol.alpha_end[0], sol.Sigma_end[0], t0 + dur
    return path


def cmd_steer(args) -> int:
    """Steer the problem's initial Gaussian to a target Gaussian with piecewise-constant controls."""
    from .spec.errors import InvalidParameters
    from .spec.problem import read_document, load_problem
    from .spec.rational import to_matrix, to_vector

    T = _exact_option(args.T, "--T", positive=True)
    max_norm = None if args.max_norm is None else _exact_option(args.max_norm, "--max-norm", nonnegative=True)
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
    from .control.steer import steer  # after every input is read and checked

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
            from .control.steer import verify_with_tokens

            tok = verify_with_tokens(res, (mean0, problem.cov), target, N=args.tokens, seed=args.seed)
            data["tokens"] = tok
            text += f"\n  tokens (N = {args.tokens}): W2 to target {tok.get('W2_to_target', float('nan')):.3e} (numerical evidence)"
        if args.plot:
            from .plots import steering_figure

            stem = Path(args.plot).with_suffix("")
            try:
                figs = steering_figure(_schedule_path(res, mean0, problem.cov), target_float(target), stem)
            except OSError as exc:
                raise InvalidParameters("--plot", f"cannot write {str(args.plot)!r}: {exc.strerror or exc}") from None
            data["figures"] = [str(f) for f in figs]
            text += "\n  figure: " + ", ".join(str(f) for f in figs)
    if args.write_problem:
        from .atomic import write_text_atomic
        from .control.steer import schedule_problem
        from .spec.schedule import problem_text

        sp = schedule_problem(res, (mean0, problem.cov), name=problem.name)
        out = Path(args.write_problem)
        write_text_atomic(out, problem_text(sp, out.suffix))
        data["problem_file"] = str(out)
        text += f"\n  schedule written to {out} (`symtf classify {out}` certifies its end point)"
    _emit(args, data, text)
    return 0


def cmd_enclose(args) -> int:
    """Validated tube (arb ball arithmetic) of the covariance flow from the problem's Σ₀ to T."""
    from .certify.validated import enclose
    from .spec.problem import load_problem

    T = _exact_option(args.T, "--T", nonnegative=True)
    problem = load_problem(args.problem)
    tube = enclose(problem, T, order=args.order, prec=args.prec, method=args.method)
    data = tube.to_dict()
    mid, rad = data["Sigma_mid"], data["Sigma_rad"]
    where = f"Σ(T), T = {args.T}" if tube.complete else f"Σ(t) at t = {float(tube.t_final):.10g} < T (stopped)"
    rows = ["    [" + ", ".join(f"{m:.10g} ± {r:.2g}" for m, r in zip(mr, rr)) + "]" for mr, rr in zip(mid, rad)]
    text = (f"certified enclosure of {where}: {tube.steps} steps (order {tube.order}, {tube.prec} bits, "
            f"{tube.method}), {tube.seconds:.2f} s\n" + "\n".join(rows))
    if not tube.complete:
        text += f"\n  stopped: {tube.stop}"
    if args.plot:
        from .certify.validated.plot import tube_figure

        try:
            data["figure"] = str(tube_figure(tube, problem, args.plot))
        except OSError as exc:
            raise InvalidParameters("--plot", f"cannot write {str(args.plot)!r}: {exc.strerror or exc}") from None
        text += f"\n  figure: {data['figure']}"
    _emit(args, data, text)
    return 0


def _float_list(text: str, option: str, lo: float, hi: float) -> list[float]:
    """Comma-separated finite numbers in [lo, hi) (one line, exit 2 otherwise)."""
    import math

    out = []
    for part in str(text).split(",")[:64]:
        try:
            v = float(part)
        except ValueError:
            raise InvalidParameters(option, f"expected comma-separated numbers, got {part[:40]!r}") from None
        if not (math.isfinite(v) and lo <= v < hi):
            raise InvalidParameters(option, f"each value must lie in [{lo:g}, {hi:g}), got {part[:40]!r}")
        out.append(v)
    return out


def _emit_with_figure(args, data: dict, lines: list, draw, payload) -> int:
    """With ``--plot STEM``: draw ``draw(payload, STEM)`` (PNG and PDF, atomically), list the files;
    then print the text or the JSON document."""
    if args.plot:
        try:
            data["figures"] = [str(f) for f in draw(payload, args.plot)]
        except OSError as exc:
            raise InvalidParameters("--plot", f"cannot write {str(args.plot)!r}: {exc.strerror or exc}") from None
        lines.append("  figures: " + ", ".join(data["figures"]))
    _emit(args, data, "\n".join(lines))
    return 0


def cmd_masked(args) -> int:
    """Masked attention: the closure question (exact) and the attention-sink experiment (numerical)."""
    from .numeric.masked import sink_experiment
    from .spec.problem import load_problem
    from .symbolic.masked_closure import masked_closure_report

    problem = load_problem(args.problem)
    sinks = _float_list(args.sinks, "--sinks", 0.0, 1.0)
    closure = masked_closure_report(problem)
    exp = sink_experiment(problem, N=args.N, T=args.T, steps=args.steps, save_every=args.save_every, sinks=sinks,
                          kind=args.positions, perturb=args.perturb, seed=args.seed).to_dict()
    data = {"problem": str(args.problem), "problem_hash": problem.content_hash(), "closure": closure,
            "sink_experiment": exp}
    w = closure["position_dependent"]["witness"]
    lines = [f"closure (exact): position-independent Gaussian data → per-position moment ODE = softmax ODE "
             f"(identity checked in d = {closure['position_independent']['checked_in_dimension']}); "
             f"position-dependent data → not closed, q'''(0) = {w['q3']} ≠ 0 at the witness instance",
             f"attention on the first position across depth (numerical evidence; N = {args.N}, positions "
             f"{args.positions}):"]
    for run in exp["runs"]:
        att = ", ".join(f"{a:.3f}" for a in run["attention"])
        lines.append(f"  sink mass {run['sink']:g}: uniform share {run['baseline']:.3f}; attention [{att}]; "
                     f"W2cond ratio at T {run['cond_w2_ratio'][-1]:.3g} (sup {run['cond_w2_sup_ratio'][-1]:.3g})")
    lines += [f"  note: {n}" for n in exp["notes"]]
    from .plots import sink_figure

    return _emit_with_figure(args, data, lines, sink_figure, exp)


def cmd_relu(args) -> int:
    """ReLU feed-forward: departure from the moment-matched Gaussian beside the first-order estimate."""
    from .numeric.relu import relu_departure
    from .spec.problem import load_problem

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
    from .plots import relu_figure

    return _emit_with_figure(args, data, lines, relu_figure, rep)


def target_float(target):
    mean, cov = target
    return ([float(Fraction(str(x))) for x in mean], [[float(Fraction(str(x))) for x in r] for r in cov])


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="symtf", description="Derive, verify and certify mean-field Transformer dynamics.")
    p.add_argument("--version", action="version", version="symtf 0.1.0")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    s = sub.add_parser("variants", help="list the registered variants with their closure status")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_variants)

    s = sub.add_parser("derive", help="derive the moment ODEs of a variant")
    s.add_argument("variant")
    s.add_argument("--dim", type=_int_type(1, MAX_DIM), default=None, help="explicit entries at this dimension")
    s.add_argument("--format", choices=("text", "latex", "json"), default="text")
    s.add_argument("--drift", action="store_true", help="add the affine drift F x + b")
    s.add_argument("--heads", type=_int_type(1, MAX_DIM), default=None, help="number of heads (multihead)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_derive)

    s = sub.add_parser("invariance", help="decide Gaussian invariance: proof or exact witness")
    s.add_argument("variant")
    s.add_argument("--dim", type=_int_type(1, MAX_DIM), default=1, help="dimension of the witness instance")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_invariance)

    s = sub.add_parser("rhs", help="evaluate the moment ODEs at a problem's parameters")
    s.add_argument("problem")
    s.add_argument("--t", default="0", help="depth t (exact) for a problem with a schedule (default 0)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_rhs)

    s = sub.add_parser("meanfield", help="finite-N tokens vs the moment ODE (propagation of chaos)")
    s.add_argument("problem")
    s.add_argument("--N", default="250,500,1000,2000,4000", help="comma-separated token counts")
    s.add_argument("--seeds", type=_int_type(1, 10**6), default=3, help="independent samples per N")
    s.add_argument("--T", type=_positive_float, default=None, help="horizon (default: the problem's T, else 1)")
    s.add_argument("--steps", type=_int_type(1, 10**8), default=None, help="RK4 steps (default max(20, 40·T))")
    s.add_argument("--out", default="out/meanfield")
    s.add_argument("--quiet", action="store_true")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_meanfield)

    s = sub.add_parser("stability", help="measured W_p ratio of perturbed token flows vs the stability constant C(t)")
    s.add_argument("problem")
    s.add_argument("--T", type=_positive_float, required=True, help="depth horizon")
    s.add_argument("--perturb", action="append", metavar="KIND:EPS",
                   help="shift|scale|noise|rotate with a size (repeatable; default all four at 0.05)")
    s.add_argument("--N", type=_int_type(1, 3000), default=200, help="tokens per cloud (exact OT, at most 3000)")
    s.add_argument("--seeds", type=_int_type(1, 1000), default=3)
    s.add_argument("--steps", type=_int_type(1, 10**6), default=100, help="RK4 steps")
    s.add_argument("--p", type=_positive_float, default=2.0, help="the order p >= 1 of W_p")
    s.add_argument("--plot", default=None, metavar="OUT.png")
    s.add_argument("--quiet", action="store_true")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_stability)

    s = sub.add_parser("mixture", help="exact witness: Gaussian mixtures are not preserved (and measured departure)")
    s.add_argument("--a", default="2", help="attention scalar (exact)")
    s.add_argument("--v", default="1", help="value scalar (exact)")
    s.add_argument("--m", default="1", help="component means ∓m (exact)")
    s.add_argument("--s", default="1", help="component variance (exact)")
    s.add_argument("--w", default="1/3", help="weight of the component at −m (exact)")
    s.add_argument("--problem", default=None, help="a problem with a mixture [initial] law: measure the departure")
    s.add_argument("--T", type=_positive_float, default=1.0)
    s.add_argument("--N", type=_int_type(2, 10**6), default=2000)
    s.add_argument("--steps", type=_int_type(1, 10**6), default=100)
    s.add_argument("--seed", type=_int_type(0, 2**32 - 1), default=0)
    s.add_argument("--plot", default=None, metavar="OUT.png")
    s.add_argument("--quiet", action="store_true")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_mixture)

    s = sub.add_parser("classify", help="certified regime of a problem (BLOWUP[T_lo, T_hi], CLUSTERING, ...)")
    s.add_argument("problem")
    s.add_argument("--uniform", action="store_true", help="a verdict for every initial covariance")
    s.add_argument("--horizon", type=_positive_float, default=None, help="search horizon for blow-up (default T or 100)")
    s.add_argument("--cert", default=None, help="write the certificate JSON here")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_classify)

    s = sub.add_parser("check", help="re-verify a certificate with exact/ball arithmetic only")
    s.add_argument("cert")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_check)

    s = sub.add_parser("regime-map", help="certified regime map of a 2-D slice (cells, refinement, figure)")
    s.add_argument("spec", help="map spec (.toml or .json)")
    s.add_argument("--out", default="out/regime_map")
    s.add_argument("--workers", type=_int_type(1, 4096), default=None, help="local processes (default: all cores; 1 = serial)")
    s.add_argument("--scheduler", default=None, help="Dask scheduler address tcp://host:port")
    s.add_argument("--dask-local", type=_int_type(1, 4096), default=None, metavar="N", help="start a local Dask cluster of N workers")
    s.add_argument("--chunk-size", type=_int_type(1), default=None, help="cells per chunk (default: 4 chunks per worker per level)")
    s.add_argument("--quiet", action="store_true")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_regime_map)

    s = sub.add_parser("reproduce", help="reproduce a seed paper's experiments (castin2025, alcalde2026)")
    s.add_argument("paper")
    s.add_argument("--quick", action="store_true", help="smaller grids (under two minutes)")
    s.add_argument("--out", default=None, help="default: out/PAPER")
    s.add_argument("--seed", type=_int_type(0, 2**63 - 1), default=0)
    s.add_argument("--quiet", action="store_true")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_reproduce)

    s = sub.add_parser("verify", help="hunt for certified counterexamples: `catalogue` or a conjecture file")
    s.add_argument("target", help="'catalogue' or a conjecture .toml/.json file")
    s.add_argument("--examples", type=_int_type(1, 10**7), default=60)
    s.add_argument("--seed", type=_int_type(0, 2**63 - 1), default=0)
    s.add_argument("--max-dim", type=_int_type(1, MAX_DIM), default=None)
    s.add_argument("--cert", default=None, help="write the counterexample's certificate here")
    s.add_argument("--quiet", action="store_true")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser("energy", help="interaction energy of a variant's kernel (closed form on Gaussians)")
    s.add_argument("variant")
    s.add_argument("--gaussian", action="store_true")
    s.add_argument("--dim", type=_int_type(1, 4), default=None)
    s.add_argument("--format", choices=("text", "latex", "json"), default="text")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_energy)

    s = sub.add_parser("gradient-flow", help="decide a gradient-flow structure (twisted, Wasserstein, Bures–Wasserstein)")
    s.add_argument("variant")
    s.add_argument("--metric", choices=("wasserstein", "twisted", "bures-wasserstein"), default="twisted")
    s.add_argument("--dim", type=_int_type(1, MAX_DIM), default=2)
    s.add_argument("--symmetric", action="store_true", help="restrict to symmetric A (softmax)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_gradient_flow)

    s = sub.add_parser("convexity", help="geodesic convexity of the interaction energy: certified witness")
    s.add_argument("variant")
    s.add_argument("--A", required=True, help='attention matrix, e.g. "[[-1, 0], [0, -1]]"')
    s.add_argument("--along", choices=("dirac", "gaussian", "twisted"), default="dirac")
    s.add_argument("--V", default=None, help="value matrix for --along twisted (M = VA⁻¹)")
    s.add_argument("--points", type=_int_type(1, 10**4), default=2, help="number of Dirac masses (dirac)")
    s.add_argument("--sigma", default=None, help="Σ for --along gaussian")
    s.add_argument("--target", default=None, help="T (the geodesic's linear map) for --along gaussian")
    s.add_argument("--seed", type=_int_type(0, 2**63 - 1), default=0)
    s.add_argument("--cert", default=None)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_convexity)

    s = sub.add_parser("steer", help="steer the initial Gaussian to a target (piecewise-constant controls)")
    s.add_argument("problem")
    s.add_argument("--target", required=True, help="TOML/JSON with `cov` and optional `mean`")
    s.add_argument("--T", default="1")
    s.add_argument("--only", choices=("any", "attention", "feedforward"), default="any")
    s.add_argument("--max-norm", default=None,
                   help="bound on every phase's free controls (Frobenius F, A, V; Euclidean b)")
    s.add_argument("--optimise", action="store_true",
                   help="if no constructive schedule fits the restriction, search one numerically "
                        "(scipy; reported with its residual, UNDECIDED)")
    s.add_argument("--phases", type=_int_type(1, 10**4), default=4, help="phases of the optimised schedule")
    s.add_argument("--plot", default=None, help="write the ellipse plot here (PNG and PDF)")
    s.add_argument("--tokens", type=_int_type(0, MAX_TOKENS), default=0, help="also run the schedule on N tokens (N ≥ 2)")
    s.add_argument("--seed", type=_int_type(0, 2**63 - 1), default=0, help="seed of the token sample and the optimiser")
    s.add_argument("--write-problem", default=None, metavar="OUT.toml",
                   help="write the schedule as a problem file with [[phase]] tables (classify certifies its end point)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_steer)

    s = sub.add_parser("enclose", help="validated tube (arb) of Σ(t) from the problem's Σ₀ to T")
    s.add_argument("problem")
    s.add_argument("--T", required=True, help="end time (exact: 2, 1/3, 0.5)")
    s.add_argument("--order", type=_int_type(1, 60), default=20, help="Taylor order")
    s.add_argument("--prec", type=_int_type(53, 4096), default=128, help="working precision (bits)")
    s.add_argument("--method", choices=("qr", "direct"), default="qr")
    s.add_argument("--plot", default=None, help="draw the tube over the float trajectory (PNG/PDF/SVG)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_enclose)

    def _models(name):  # handlers live in symbolic_tf/models/cli.py, imported only when run
        def run(args):
            from .models import cli as models_cli

            return getattr(models_cli, name)(args)
        return run

    def token_run_options(s, N_lo: int, N_default: int) -> None:  # shared by masked and relu
        s.add_argument("--N", type=_int_type(N_lo, 20000), default=N_default, help="tokens")
        s.add_argument("--T", type=_positive_float, default=None, help="depth (default: the problem's T, else 1)")
        s.add_argument("--steps", type=_int_type(1, 10**6), default=40, help="RK4 steps")
        s.add_argument("--save-every", type=_int_type(1, 10**6), default=4, help="record every k steps")
        s.add_argument("--seed", type=_int_type(0, 2**63 - 1), default=0)
        s.add_argument("--plot", default=None, help="figure stem (writes STEM.png and STEM.pdf)")
        s.add_argument("--quiet", action="store_true")
        s.add_argument("--json", action="store_true")

    s = sub.add_parser("masked", help="masked (causal) attention: moment closure (exact) and the attention sink")
    s.add_argument("problem", help="a problem with variant = \"masked\"")
    token_run_options(s, 2, 400)
    s.add_argument("--sinks", default="0,0.05,0.2", help="comma-separated Dirac masses at s = 0, each in [0, 1)")
    s.add_argument("--positions", default="uniform", help="position marginal off the sink: uniform or grid:K")
    s.add_argument("--perturb", type=_positive_float, default=0.01, help="ε of the perturbed flow (W2cond)")
    s.set_defaults(func=cmd_masked)

    s = sub.add_parser("relu", help="ReLU feed-forward: departure from the moment-matched Gaussian (numerical)")
    s.add_argument("problem", help="a problem with a [relu] table (W1, b1, W2)")
    token_run_options(s, 10, 2000)
    s.add_argument("--floor-repeats", type=_int_type(2, 10**4), default=8, help="Gaussian clouds in the noise floor")
    s.set_defaults(func=cmd_relu)

    s = sub.add_parser("probe", help="Gaussianity of Gaussian tokens through a pretrained encoder's layers")
    s.add_argument("model_dir", nargs="?", default=None, help="BERT checkpoint folder (default: shipped MiniLM)")
    s.add_argument("--layers", default=None, help="0-based layers to report, e.g. 0,2 or 0-3 (default all)")
    s.add_argument("--samples", type=_int_type(2, MAX_TOKENS), default=2048, help="Gaussian tokens in total (N)")
    s.add_argument("--seq-len", type=_int_type(2, MAX_TOKENS), default=64, help="tokens per sequence")
    s.add_argument("--seed", type=_int_type(0, 2**63 - 1), default=0)
    s.add_argument("--no-layernorm", action="store_true", help="skip both LayerNorms")
    s.add_argument("--mlp", choices=("full", "affine", "off"), default="full")
    s.add_argument("--float64", action="store_true", help="run the layers in float64")
    s.add_argument("--floor-repeats", type=_int_type(2, 10**4), default=8, help="Gaussian pairs per noise floor")
    s.add_argument("--out", default="out/probe", help="folder for probe.json and the figure")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_models("cmd_probe"))

    s = sub.add_parser("heads", help="mean-field (A_h, C_h) of every attention head with exact verdicts")
    s.add_argument("model_dir", nargs="?", default=None, help="BERT checkpoint folder (default: shipped MiniLM)")
    s.add_argument("--layers", default=None, help="0-based layers, e.g. 0,2 or 0-3 (default all)")
    s.add_argument("--heads", default=None, help="0-based heads (default all)")
    s.add_argument("--workers", type=_int_type(1, 4096), default=None, help="processes (default: all cores)")
    s.add_argument("--out", default="out/heads", help="folder for heads.json and the heatmap")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_models("cmd_heads"))

    s = sub.add_parser("run", help="the main job: derive everything and write a report")
    s.add_argument("--out", default="out")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_run)
    for s in sub.choices.values():  # every command: --quiet switches progress output off
        if not any("--quiet" in a.option_strings for a in s._actions):
            s.add_argument("--quiet", action="store_true", help="no progress output on stderr")
    return p


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            raise _UsageError("symtf: a command is required (variants, derive, invariance, rhs, run); "
                              "see `symtf --help`")
        from .display import set_enabled

        # progress bars: on a terminal only (tqdm on stderr), never with --quiet
        set_enabled(False if getattr(args, "quiet", False) else None)
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
