"""Handlers of ``symtf probe`` and ``symtf heads`` (imported lazily by :mod:`symbolic_tf.cli`).

Thin: parse the options, call :func:`~symbolic_tf.models.probe.probe` /
:func:`~symbolic_tf.models.verdicts.heads_report`, print text or ``--json``, and let the
library write its files atomically.  User errors are :class:`~symbolic_tf.spec.errors.SymtfError`
(the CLI prints one line and exits 2).
"""
from __future__ import annotations

from ..spec.errors import InvalidParameters

__all__ = ["cmd_probe", "cmd_heads", "index_list"]


def index_list(text: str | None, option: str) -> list[int] | None:
    """``"0,2,4"`` or ``"0-3"`` or a mix (``"0-2,5"``) → sorted 0-based indices; None stays None."""
    if text is None:
        return None
    out: set[int] = set()
    try:
        for part in str(text).split(","):
            part = part.strip()
            if not part:
                continue
            if "-" in part[1:]:
                lo, hi = part.split("-", 1)
                a, b = int(lo), int(hi)
                if b < a:
                    raise ValueError
                out.update(range(a, b + 1))
            else:
                out.add(int(part))
    except ValueError:
        raise InvalidParameters(option, f"expected 0-based indices like '0,2' or '0-3', got {text!r}") from None
    if not out:
        raise InvalidParameters(option, "empty list")
    return sorted(out)


def _write_guard(option: str, out, fn):
    try:
        return fn()
    except OSError as exc:
        raise InvalidParameters(option, f"cannot write to {str(out)!r}: {exc.strerror or exc}") from None


def cmd_probe(args) -> int:
    """Gaussianity of Gaussian token clouds through the layers of a pretrained encoder."""
    from ..cli import _emit
    from .loader import load_bert
    from .probe import probe

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
    _emit(args, res.to_dict(), text)
    return 0


def cmd_heads(args) -> int:
    """Mean-field parameters and exact verdicts of every attention head."""
    from ..cli import _emit
    from .loader import load_bert
    from .verdicts import heads_report

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
    _emit(args, rep.to_dict(witnesses=False), text)
    return 0
