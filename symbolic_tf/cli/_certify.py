"""``symtf classify``, ``check``, ``enclose``: certified verdicts and their independent re-check."""
from __future__ import annotations

import sys

from ..exact.rational import float_of
from ..spec.errors import CertificationFailed, InvalidParameters
from ._options import add_json, add_plot, add_problem, add_T, command, exact_option, int_type, positive_float
from ..certify.search.budget import DEFAULT_BUDGET
from ._output import EXIT_OK, NoCertificate, emit, emit_rejected

__all__ = ["PARSERS"]


def _cmd_classify(args) -> int:
    """One regime with status and certificate (exact / ball arithmetic)."""
    from ..atomic import write_json_atomic
    from ..regimes.classify import classify
    from ..spec.problem import load_problem

    problem = load_problem(args.problem)  # --horizon is finite and positive (argparse type)
    c = classify(problem, uniform=args.uniform, horizon=args.horizon, budget=args.budget)
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
        text += f": T* ∈ [{c.T_lo}, {c.T_hi}]  (≈ [{float_of(c.T_lo):.15g}, {float_of(c.T_hi):.15g}])"
    text += f"\n  claim: {c.claim}\n  reason: {c.reason}" if c.claim else f"\n  reason: {c.reason}"
    for route, claim, _ in c.side_claims:
        text += f"\n  also proved ({route}): {claim.text()}"
    if c.numerical.get("summary"):
        text += f"\n  {c.numerical['summary']}"
    if c.certificate is not None:
        text += f"\n  certificate kind: {c.certificate['kind']}" + (f" (written to {args.cert})" if args.cert else "")
    emit(args, data, text)  # the verdict is shown even when --cert cannot be honoured
    if args.cert and c.certificate is None:
        sys.stdout.flush()
        raise NoCertificate(f"the verdict is {c.status} (see above)")
    return 0


def _cmd_check(args) -> int:
    """Re-verify a certificate file (or every cell of a map file) independently.

    Exit 0 when everything verifies, 1 (one line ``REJECTED: reason``) when a certificate or
    map does not, 2 when the file cannot be read or parsed at all (bad input)."""
    from ..regimes.check_document import check_document
    from ..spec.errors import ProblemFileError
    from ..spec.limits import MAX_MAP_FILE_BYTES, load_json_text, read_text_file

    label = str(args.cert)
    text = read_text_file(args.cert, "certificate", max_bytes=MAX_MAP_FILE_BYTES)
    head = load_json_text(text, label)  # unparsable, too deep, too many digits: bad input, exit 2
    if not isinstance(head, dict):
        raise ProblemFileError(f"{label}: expected a JSON object (a certificate or a regime map), "
                               f"got a JSON {type(head).__name__}")
    try:
        done = check_document(head, len(text), label)
    except CertificationFailed as exc:
        return emit_rejected(args, "check", str(exc))
    if done.kind == "regime-map":
        r = done.result
        emit(args, {"ok": True, "kind": "regime-map", **r},
             f"OK: regime map verified: {r['cells_checked']} cell certificate(s) and {r['points_checked']} "
             f"point verdict(s) re-checked, {r['cells']} cells tile the box")
        return EXIT_OK
    if done.kind == "embedded":
        emit(args, {"ok": True, "kind": "embedded", "certificates": done.certificates, "kinds": done.kinds},
             f"OK: {done.certificates} embedded certificate(s) verified ("
             + ", ".join(f"{k}: {n}" for k, n in sorted(done.kinds.items())) + ")")
        return EXIT_OK
    res = done.result
    claim = getattr(res.claim, "text", None)
    claim = claim() if callable(claim) else (claim if claim is not None else res.claim)
    data = {"ok": True, "kind": res.kind, "status": res.status, "claim": claim}
    return emit(args, data, f"OK: certificate verified ({res.kind}): {res.status}: {claim}")


def _cmd_enclose(args) -> int:
    """Validated tube (arb ball arithmetic) of the covariance flow from the problem's Σ₀ to T."""
    from ..certify.search.validated import enclose
    from ..spec.problem import load_problem

    T = exact_option(args.T, "--T", nonnegative=True)
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
        from ..certify.search.validated.plot import tube_figure

        try:
            data["figure"] = str(tube_figure(tube, problem, args.plot))
        except OSError as exc:
            raise InvalidParameters("--plot", f"cannot write {str(args.plot)!r}: {exc.strerror or exc}") from None
        text += f"\n  figure: {data['figure']}"
    return emit(args, data, text)


def _add_classify(sub) -> None:
    s = command(sub, "classify", _cmd_classify, "certified regime of a problem (BLOWUP[T_lo, T_hi], CLUSTERING, ...)")
    add_problem(s)
    s.add_argument("--uniform", action="store_true", help="a verdict for every initial covariance")
    s.add_argument("--horizon", type=positive_float, default=None, help="search horizon for blow-up (default T or 100)")
    s.add_argument("--budget", type=positive_float, default=DEFAULT_BUDGET, metavar="SECONDS",
                   help=f"wall-clock budget of the searches (default {DEFAULT_BUDGET:g} s); when it ends: UNDECIDED "
                        "with what was proved so far and the numerical evidence")
    s.add_argument("--cert", default=None, help="write the certificate JSON here")
    add_json(s)


def _add_check(sub) -> None:
    s = command(sub, "check", _cmd_check, "re-verify a certificate with exact/ball arithmetic only")
    s.add_argument("cert", help="a certificate (JSON), a regime map (map.json: every cell and point is "
                                "re-checked) or a document with embedded certificates")
    add_json(s)


def _add_enclose(sub) -> None:
    s = command(sub, "enclose", _cmd_enclose, "validated tube (arb) of Σ(t) from the problem's Σ₀ to T")
    add_problem(s)
    add_T(s, "end time (exact: 2, 1/3, 0.5)", exact=True, required=True)
    s.add_argument("--order", type=int_type(1, 60), default=20, help="Taylor order")
    s.add_argument("--prec", type=int_type(53, 4096), default=128, help="working precision (bits)")
    s.add_argument("--method", choices=("qr", "direct"), default="qr",
                   help="the step's wrapping control: qr (Lohner's QR parallelepipeds intersected with boxes) "
                        "or direct (boxes)")
    add_plot(s, "draw the tube over the float trajectory (PNG/PDF/SVG)")
    add_json(s)


#: subcommand → the function that adds its parser (``symtf`` lists them in cli.COMMAND_ORDER)
PARSERS = {"classify": _add_classify, "check": _add_check, "enclose": _add_enclose}
