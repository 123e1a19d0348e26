"""``symtf energy``, ``gradient-flow``, ``convexity``: the interaction energy and its structure."""
from __future__ import annotations

from ..spec.errors import InvalidParameters
from ..spec.limits import MAX_DIM
from ._options import add_format, add_json, add_seed, add_variant, command, int_type, matrix_option
from ._output import NoCertificate, as_options, emit, emit_in_format

__all__ = ["PARSERS"]


def _cmd_energy(args) -> int:
    """Interaction energy of a variant's kernel; with --gaussian its closed form on N(α, Σ)."""
    import sympy as sp

    from ..symbolic.energy import gaussian_energy
    from ..symbolic.energy_structure import energy_kernel

    kernel = energy_kernel(args.variant)
    if args.dim is not None and not 1 <= args.dim <= 4:
        raise InvalidParameters("--dim", "must be between 1 and 4")
    data = {"variant": args.variant, "energy": "E(μ) = ½∬ W(x, y) dμ(x) dμ(y)", "kernel": kernel.formula}
    text = f"E(μ) = ½∬ W(x, y) dμ(x) dμ(y),  {kernel.formula}"
    if args.gaussian:
        d = args.dim if args.dim is not None else kernel.gaussian_dim
        from ..display import status

        where = "in matrix form" if d is None else f"at d = {d} (fully symbolic entries; d ≥ 3 takes minutes)"
        with status(f"closed form of E(N(α, Σ)) {where}"):
            g = gaussian_energy(kernel.kernel, d)
        from ..display import matrix_str

        cond = matrix_str(g.condition) if isinstance(g.condition, sp.MatrixBase) else sp.sstr(g.condition)
        data.update(gaussian=sp.sstr(g.expr), condition=cond, dim=g.d,
                    latex=sp.latex(g.expr))
        if args.format == "latex":
            text = f"E(N(\\alpha, \\Sigma)) = {sp.latex(g.expr)}"
        else:
            text += (f"\nE(N(α, Σ)) = {sp.sstr(g.expr)}\n  finite iff this matrix is positive definite: "
                     f"{cond}")
    return emit_in_format(args, data, text)


def _cmd_gradient_flow(args) -> int:
    """Is the variant's flow a gradient flow for the given metric? Decided exactly or with evidence."""
    from ..conjectures.theorems import gradient_flow

    A = matrix_option(args.A, "--A") if args.A is not None else None
    V = matrix_option(args.V, "--V") if args.V is not None else None
    if A is not None and V is not None and len(A) != len(V):
        raise InvalidParameters("--V", f"must be {len(A)}×{len(A)} like A")
    with as_options(d="--dim", metric="--metric", A="--A", V="--V"):
        v = gradient_flow(args.variant, args.metric, args.dim, symmetric=args.symmetric, A=A, V=V)
    data = {"variant": args.variant, "metric": args.metric, "dim": len(A) if A is not None else args.dim,
            **v.to_dict()}
    text = f"{v.status}: {v.claim}\n  {v.reason}"
    ev = v.evidence or {}
    for key, words in (("increases_at", "E increases"), ("decreases_at", "E decreases"),
                       ("stationary_energy_moving_mass", "E stationary, the mass moves")):
        if key in ev:
            inst = ev[key]
            text += f"\n  {words} at δ_α, α = {inst['alpha']}: dE/dt = {inst['dE_dt']}"
            if inst.get("gaussian"):
                g = inst["gaussian"]
                text += f"; at N(α, {g['Sigma']}): dE/dt = {g['dE_dt']}"
    return emit(args, data, text)


_SIGN_WORDS = {1: "POSITIVE here", -1: "NEGATIVE here (not convex along this geodesic)", 0: "zero"}


def _write_certificate(path, verdict, what: str) -> None:
    """Write the certificate in ``verdict.evidence`` to ``path`` (atomically), or raise
    :class:`NoCertificate` when there is none (``verdict`` None: none can exist)."""
    from ..atomic import write_json_atomic

    cert = (verdict.evidence or {}).get("certificate") if verdict is not None else None
    if cert is None:
        raise NoCertificate(f"no {what}" + (f" ({verdict.status}: {verdict.reason})" if verdict is not None else ""))
    write_json_atomic(path, cert)


def _cmd_convexity(args) -> int:
    """Geodesic convexity of the interaction energy E = ½∬e^{yᵀAx}dμdμ: certified witness or not."""
    from ..symbolic.energy_structure import require_convexity_kernel

    require_convexity_kernel(args.variant)
    A = matrix_option(args.A, "--A")
    d = len(A)
    if args.along == "dirac":
        from ..certify.search.convexity import find_nonconvexity_witness

        if args.points < 1:
            raise InvalidParameters("--points", "must be ≥ 1")
        v = find_nonconvexity_witness([[str(x) for x in r] for r in A], n_points=args.points, d=d, seed=args.seed)
        cert = v.evidence.get("certificate")
        if args.cert:
            _write_certificate(args.cert, v, "witness certificate")
        data = {"variant": args.variant, "along": "dirac", **v.to_dict()}
        text = f"{v.status}: {v.claim}\n  {v.reason}"
        if cert is not None:
            text += f"\n  λ-convexity fails for every λ > {cert['data'].get('lambda_bound')}"
            text += f"\n  witness positions {cert['data'].get('positions')}, displacements {cert['data'].get('displacements')}"
    elif args.along == "twisted" and args.V is None and args.variant == "softmax":
        # on Gaussians, for every V at once (for a singular A: along every curve (I + sN)Σ(I + sN)ᵀ)
        from ..certify.search.twisted_gaussian import twisted_gaussian_convexity_every_v

        v = twisted_gaussian_convexity_every_v(A)
        if args.cert:
            _write_certificate(args.cert, v, "certificate")
        data = {"variant": args.variant, "along": "twisted", "every_V": True, **v.to_dict()}
        text = f"on Gaussians, for every V — {v.status}: {v.claim}\n  {v.reason}"
    elif args.along == "twisted":
        from ..symbolic.energy_structure import twisted_convexity

        if args.V is None:
            raise InvalidParameters("--V", "--along twisted needs the value matrix V (M = VA⁻¹) for this variant")
        Vm = matrix_option(args.V, "--V")
        if len(Vm) != d:
            raise InvalidParameters("--V", f"must be {d}×{d} like A")
        v = twisted_convexity(A, Vm)
        data = {"variant": args.variant, "along": "twisted", **v.to_dict()}
        text = f"{v.status}: {v.claim}\n  {v.reason}"
        if args.variant == "softmax":   # restricted to Gaussians (docs/mathematics.md §7)
            from ..certify.search.twisted_gaussian import twisted_gaussian_convexity

            g = twisted_gaussian_convexity(A, Vm)
            data["gaussians"] = g.to_dict()
            text += f"\non Gaussians — {g.status}: {g.claim}\n  {g.reason}"
        if args.cert:   # the pair's certificate: on Gaussians (softmax), PROVED or REFUTED
            _write_certificate(args.cert, g if args.variant == "softmax" else None,
                               "certificate for this pair on Gaussians (only the softmax energy is certified)")
    elif args.sigma is None and args.target is None and d == 1:
        from ..symbolic.convexity_bounds import gaussian_bw_convexity_1d

        v = gaussian_bw_convexity_1d()
        data = {"variant": args.variant, "along": "gaussian", **v.to_dict()}
        text = f"{v.status}: {v.claim}\n  {v.reason}"
    else:
        from ..symbolic.energy_structure import gaussian_bw_second_variation

        if args.sigma is None or args.target is None:
            raise InvalidParameters("--sigma", "--along gaussian in d > 1 needs --sigma (Σ ≻ 0) and --target (T ≻ 0)")
        Sg, T = matrix_option(args.sigma, "--sigma"), matrix_option(args.target, "--target")
        with as_options(Sigma="--sigma"):
            res = gaussian_bw_second_variation(A, Sg, T)
        status = _SIGN_WORDS.get(res["sign"], "undecided")
        data = {"variant": args.variant, "along": "gaussian", **res}
        text = (f"d²E/ds² along the Bures–Wasserstein geodesic from Σ towards TΣT: {res['second_variation']}\n"
                f"  sign: {status} (exact / ball)")
    return emit(args, data, text)


def _add_energy(sub) -> None:
    s = command(sub, "energy", _cmd_energy, "interaction energy of a variant's kernel (closed form on Gaussians)")
    add_variant(s)
    s.add_argument("--gaussian", action="store_true", help="also the closed form of the energy of N(α, Σ)")
    s.add_argument("--dim", type=int_type(1, 4), default=None,
                   help="with --gaussian: fully symbolic entries at this dimension (1 to 4; d ≥ 3 takes minutes; "
                        "default: the kernel's own, or the matrix form valid in every dimension)")
    add_format(s, "output format: text, latex (the Gaussian closed form in LaTeX) or json (json is --json)")
    add_json(s)


def _add_gradient_flow(sub) -> None:
    s = command(sub, "gradient-flow", _cmd_gradient_flow,
                "decide a gradient-flow structure (twisted, Wasserstein, Bures–Wasserstein)")
    add_variant(s)
    s.add_argument("--metric", choices=("wasserstein", "twisted", "bures-wasserstein"), default="twisted",
                   help="the metric of the gradient flow (default twisted)")
    s.add_argument("--dim", type=int_type(1, MAX_DIM), default=2, help="dimension of the explicit check (default 2)")
    s.add_argument("--symmetric", action="store_true", help="restrict to symmetric A (softmax)")
    s.add_argument("--A", default=None, help='with --V (softmax, twisted metric): decide the gradient-flow condition '
                                            'for this attention matrix, e.g. "[[1, 0], [0, 2]]"')
    s.add_argument("--V", default=None, help="with --A: the value matrix; PROVED when M = VA⁻¹ is symmetric definite "
                                            "(E increases for M ≻ 0, decreases for M ≺ 0), REFUTED with exact "
                                            "instances where dE/dt has either sign")
    add_json(s)


def _add_convexity(sub) -> None:
    s = command(sub, "convexity", _cmd_convexity, "geodesic convexity of the interaction energy: certified witness")
    add_variant(s)
    s.add_argument("--A", required=True, help='attention matrix, e.g. "[[-1, 0], [0, -1]]"')
    s.add_argument("--along", choices=("dirac", "gaussian", "twisted"), default="dirac",
                   help="the curves: geodesics of --points Dirac masses (a certified witness of non-convexity), "
                        "Bures–Wasserstein geodesics of Gaussians, or twisted geodesics (default dirac)")
    s.add_argument("--V", default=None, help="value matrix for --along twisted (M = VA⁻¹); softmax without it: "
                                            "on Gaussians, for every V (singular A: along every curve (I + sN)Σ(I + sN)ᵀ)")
    s.add_argument("--points", type=int_type(1, 10**4), default=2, help="number of Dirac masses (dirac)")
    s.add_argument("--sigma", default=None, help="Σ for --along gaussian")
    s.add_argument("--target", default=None, help="T (the geodesic's linear map) for --along gaussian")
    add_seed(s, help="seed of the float search for a Dirac witness (--along dirac; default 0)")
    s.add_argument("--cert", default=None, help="write the certificate (JSON) of the answer: the Dirac witness, the "
                                               "every-V answer, or, with --V (softmax), the pair's answer on Gaussians")
    add_json(s)


#: subcommand → the function that adds its parser (``symtf`` lists them in cli.COMMAND_ORDER)
PARSERS = {"energy": _add_energy, "gradient-flow": _add_gradient_flow, "convexity": _add_convexity}
