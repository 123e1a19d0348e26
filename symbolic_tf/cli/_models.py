"""``symtf probe``, ``symtf heads`` and ``symtf layers``: pretrained models against the mean-field theory.

Thin: parse the options, call :func:`~symbolic_tf.models.probe.probe` /
:func:`~symbolic_tf.models.verdicts.heads_report` / :func:`~symbolic_tf.models.layers.layers_report`
(and :func:`~symbolic_tf.models.modified.modified_report`), print text or ``--json``, and let the
library write its files atomically.  The model package (and its optional dependencies, e.g.
``tokenizers``) is imported inside the handlers only, when one of these commands runs: the
core install runs every other command without them.  User errors are
:class:`~symbolic_tf.spec.errors.SymtfError` (the CLI prints one line and exits 2).
"""
from __future__ import annotations

from ..spec.errors import InvalidParameters
from ..spec.limits import MAX_TOKENS
from ._options import add_json, add_out, add_seed, add_steps, add_T, command, index_list, int_type
from ._output import emit

__all__ = ["PARSERS"]


def _write_guard(option: str, out, fn):
    try:
        return fn()
    except OSError as exc:
        raise InvalidParameters(option, f"cannot write to {str(out)!r}: {exc.strerror or exc}") from None


def _cmd_probe(args) -> int:
    """Gaussianity of Gaussian token clouds through the layers of a pretrained encoder."""
    from ..models.loader import load_bert
    from ..models.probe import probe

    model = load_bert(args.model_dir)
    if args.samples < 2 or args.seq_len < 2:
        raise InvalidParameters("--samples", "--samples and --seq-len must be at least 2")
    if args.floor_repeats < 2:
        raise InvalidParameters("--floor-repeats", f"must be ≥ 2, got {args.floor_repeats}")
    layers = index_list(args.layers, "--layers")
    out = args.out
    res = _write_guard("--out", out, lambda: probe(
        model, samples=args.samples, seq_len=args.seq_len, seed=args.seed, layers=layers,
        layernorm=not args.no_layernorm, mlp=args.mlp, dtype="float64" if args.float64 else "float32",
        floor_repeats=args.floor_repeats, out_dir=out))
    text = res.table()
    if out:
        text += f"\nwrote {out}/probe.json"
    return emit(args, res.to_dict(), text)


def _cmd_heads(args) -> int:
    """Mean-field parameters and exact verdicts of every attention head."""
    from ..models.loader import load_bert
    from ..models.verdicts import heads_report

    model = load_bert(args.model_dir)
    layers = index_list(args.layers, "--layers")
    heads = index_list(args.heads, "--heads")
    out = args.out
    from ..regimes.executors import default_workers

    workers = default_workers() if args.workers is None else args.workers
    if workers < 1:
        raise InvalidParameters("--workers", f"must be ≥ 1, got {workers}")
    rep = _write_guard("--out", out, lambda: heads_report(model, layers=layers, heads=heads, workers=workers,
                                                          out_dir=out))
    text = rep.table()
    if out:
        text += f"\nwrote {out}/heads.json (with rational witness vectors)"
    return emit(args, rep.to_dict(witnesses=False), text)


def _cmd_layers(args) -> int:
    """Every head of a layer as one multi-head Gaussian flow, beside the real layer on Gaussian tokens."""
    from ..models.layers import layers_report
    from ..models.loader import load_model

    model = load_model(args.model_dir)
    layers = index_list(args.layers, "--layers")
    if args.samples % args.seq_len:
        raise InvalidParameters("--samples", f"must be a multiple of --seq-len {args.seq_len}, got {args.samples}")
    out = args.out
    rep = _write_guard("--out", out, lambda: layers_report(
        model, layers=layers, T=args.T, steps=args.steps, samples=args.samples, seq_len=args.seq_len,
        seed=args.seed, drift=args.drift, out_dir=out))
    data, text = {"layers": rep.to_dict()}, rep.table()
    if args.modified:
        from ..models.modified import modified_report

        mod = _write_guard("--out", out, lambda: modified_report(
            model, layers=layers if layers is not None else [0], k=args.k, samples=args.samples,
            seq_len=args.seq_len, seed=args.seed, out_dir=out))
        data["modified"] = mod
        text += "\n\n" + mod["text"]
    if out:
        certified = any(r["verdict"]["certificate"] for r in rep.rows) or args.modified
        text += f"\nwrote {out}/layers.json" + (f" and {out}/modified.json" if args.modified else "") \
            + (" (certificates embedded: symtf check re-verifies them)" if certified else "")
    return emit(args, data, text)


def _add_probe(sub) -> None:
    s = command(sub, "probe", _cmd_probe, "Gaussianity of Gaussian tokens through a pretrained encoder's layers")
    s.add_argument("model_dir", nargs="?", default=None,
                   help="checkpoint folder of a declared architecture (default: shipped MiniLM)")
    s.add_argument("--layers", default=None, help="0-based layers to report, e.g. 0,2 or 0-3 (default all)")
    s.add_argument("--samples", type=int_type(2, MAX_TOKENS), default=2048, help="Gaussian tokens in total (N)")
    s.add_argument("--seq-len", type=int_type(2, MAX_TOKENS), default=64, help="tokens per sequence")
    add_seed(s, help="seed of the Gaussian tokens (default 0)")
    s.add_argument("--no-layernorm", action="store_true", help="skip both LayerNorms")
    s.add_argument("--mlp", choices=("full", "affine", "off"), default="full",
                   help="the feed-forward branch: full (GELU), affine (GELU replaced by its tangent at 0) or off")
    s.add_argument("--float64", action="store_true", help="run the layers in float64")
    s.add_argument("--floor-repeats", type=int_type(2, 10**4), default=8, help="Gaussian pairs per noise floor")
    add_out(s, "out/probe", "folder for probe.json and the figure")
    add_json(s)


def _add_heads(sub) -> None:
    s = command(sub, "heads", _cmd_heads, "mean-field (A_h, C_h) of every attention head with exact verdicts")
    s.add_argument("model_dir", nargs="?", default=None,
                   help="checkpoint folder of a declared architecture (default: shipped MiniLM)")
    s.add_argument("--layers", default=None, help="0-based layers, e.g. 0,2 or 0-3 (default all)")
    s.add_argument("--heads", default=None, help="0-based heads (default all)")
    s.add_argument("--workers", type=int_type(1, 4096), default=None, help="processes (default: all cores)")
    add_out(s, "out/heads", "folder for heads.json and the heatmap")
    add_json(s)


def _add_layers(sub) -> None:
    s = command(sub, "layers", _cmd_layers,
                "every head of a layer as one multi-head Gaussian flow, certified or UNDECIDED, beside the real layer")
    s.add_argument("model_dir", nargs="?", default=None,
                   help="checkpoint folder of a declared architecture (default: shipped MiniLM)")
    s.add_argument("--layers", default=None, help="0-based layers, e.g. 0,2 or 0-3 (default all)")
    add_T(s, "depth of the comparison (the attention sub-block repeated at ε = T/steps)", default=1.0)
    add_steps(s, 10, hi=10**4, help="repetitions of the attention sub-block (default 10)")
    s.add_argument("--samples", type=int_type(2, MAX_TOKENS), default=4096, help="Gaussian tokens in total")
    s.add_argument("--seq-len", type=int_type(2, MAX_TOKENS), default=512, help="tokens per sequence")
    add_seed(s, help="seed of the Gaussian tokens (default 0)")
    s.add_argument("--drift", action="store_true",
                   help="assume the MLP acts as its tangent at 0: compare with the drift F = W2 W1 / 2 added "
                        "(the real block runs with the affine MLP)")
    s.add_argument("--modified", action="store_true",
                   help="also run each chosen layer (default layer 0) with its value maps modified into the "
                        "same-sign and the opposite-sign configuration, certified, beside the modified network")
    s.add_argument("--k", type=int_type(1, 64), default=2, help="dimension of the modified value subspace")
    add_out(s, "out/layers", "folder for layers.json, modified.json and the figures")
    add_json(s)


#: subcommand → the function that adds its parser (``symtf`` lists them in cli.COMMAND_ORDER)
PARSERS = {"probe": _add_probe, "heads": _add_heads, "layers": _add_layers}
