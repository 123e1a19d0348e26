"""Option types of the ``symtf`` commands, and the arguments several commands declare alike.

Types: refused before any work, with one line and exit 2. The argparse types
(:func:`int_type`, :func:`positive_float`) are refused by argparse; the others raise
:class:`~symbolic_tf.spec.errors.InvalidParameters` naming the option.

Declarations (``add_problem``, ``add_json``, ...): one name, type and help text for an argument
that many commands take, so that ``symtf CMD --help`` says the same thing everywhere.
"""
from __future__ import annotations

import argparse
import math

from ..spec.errors import InvalidParameters
from ..spec.limits import MAX_DIM, MAX_TOKENS

__all__ = ["int_type", "positive_float", "exact_option", "int_list", "float_list", "matrix_option", "index_list",
           "command", "add_problem", "add_variant", "add_json", "add_quiet", "add_seed", "add_out", "add_plot", "add_T",
           "add_steps", "add_format", "SEED_MAX"]

#: The largest ``--seed`` most commands accept (a NumPy seed is any nonnegative integer; 63 bits here).
SEED_MAX = 2**63 - 1


def int_type(lo: int | None = None, hi: int | None = None):
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


def positive_float(text: str) -> float:
    """An argparse type: a finite positive number ("inf", "nan", "1e9999", 0 and negatives refused)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None
    if not math.isfinite(v) or not v > 0:
        raise argparse.ArgumentTypeError(f"must be a finite positive number, got {text[:40]!r}")
    return v


def exact_option(text: str, option: str, *, positive: bool = False, nonnegative: bool = False):
    """An exact rational option (``"2"``, ``"1/3"``, ``"0.5"``) whose float is finite."""
    from ..exact.rational import frac_str
    from ..spec.rational import to_fraction

    q = to_fraction(text, option)
    if positive and q <= 0:
        raise InvalidParameters(option, f"must be positive, got {frac_str(q)[:40]}")
    if nonnegative and q < 0:
        raise InvalidParameters(option, f"must be nonnegative, got {frac_str(q)[:40]}")
    try:
        finite = math.isfinite(float(q))
    except OverflowError:
        finite = False
    if not finite:
        raise InvalidParameters(option, f"too large: {str(text)[:40]!r} (must fit a double)")
    return q


def int_list(text: str, option: str, lo: int = 1, hi: int = MAX_TOKENS) -> list[int]:
    """Comma-separated integers, each in [lo, hi] (one-line InvalidParameters otherwise)."""
    parse = int_type(lo, hi)
    try:
        vals = [parse(t) for t in str(text).split(",") if t.strip()]
    except argparse.ArgumentTypeError as exc:
        raise InvalidParameters(option, f"expected comma-separated integers: {exc}") from None
    if not vals:
        raise InvalidParameters(option, "empty list")
    return vals


def float_list(text: str, option: str, lo: float, hi: float) -> list[float]:
    """Comma-separated finite numbers in [lo, hi) (one line, exit 2 otherwise)."""
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


def matrix_option(text: str, option: str):
    """An exact square matrix from a JSON/TOML-style literal like '[[1, "1/2"], [0, -1]]'."""
    from ..spec.errors import ProblemFileError
    from ..spec.limits import load_json_text
    from ..spec.rational import to_matrix

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


# ---------------------------------------------------------------------------------------------
# arguments several commands declare alike (argparse %-formats help texts: a percent sign is %%)
# ---------------------------------------------------------------------------------------------

def command(sub, name: str, handler, help: str):
    """A subcommand's parser: its name, its one-line help and the handler ``symtf`` calls with the
    parsed arguments (``--quiet`` is added to every command by :func:`symbolic_tf.cli.build_parser`)."""
    s = sub.add_parser(name, help=help)
    s.set_defaults(func=handler)
    return s


def add_problem(s, help: str = "problem file (.toml or .json): variant, d, the parameters and [initial]; "
                               "see docs/howto.md") -> None:
    """The positional ``problem`` file."""
    s.add_argument("problem", help=help)


def add_variant(s) -> None:
    """The positional ``variant`` name (no registry import here: every command parses fast)."""
    s.add_argument("variant", help="an attention variant by its registered name, e.g. softmax "
                                   "(`symtf variants` lists them)")


def add_json(s) -> None:
    """``--json``: one JSON document instead of text."""
    s.add_argument("--json", action="store_true", help="print one JSON document (with schema and version) "
                                                        "instead of text")


def add_quiet(s) -> None:
    """``--quiet``: no progress output."""
    s.add_argument("--quiet", action="store_true", help="no progress output on stderr")


def add_seed(s, hi: int = SEED_MAX,
             help: str = "random seed (the same seed gives the same numbers; default 0)") -> None:
    """``--seed``: an integer in [0, hi], default 0."""
    s.add_argument("--seed", type=int_type(0, hi), default=0, help=help)


def add_out(s, default: str | None, help: str) -> None:
    """``--out``: the folder a command writes its files to."""
    s.add_argument("--out", default=default, help=help)


def add_plot(s, help: str, metavar: str | None = None) -> None:
    """``--plot``: where to draw the command's figure (none by default)."""
    s.add_argument("--plot", default=None, metavar=metavar, help=help)


def add_T(s, help: str, default=None, *, exact: bool = False, required: bool = False) -> None:
    """``--T``: a depth (time) horizon, exact text (read by :func:`exact_option`) or a positive float."""
    s.add_argument("--T", type=None if exact else positive_float, default=default, required=required, help=help)


def add_steps(s, default: int | None, hi: int = 10**6, help: str = "RK4 steps") -> None:
    """``--steps``: the number of integration steps, in [1, hi]."""
    s.add_argument("--steps", type=int_type(1, hi), default=default, help=help)


def add_format(s, help: str = "output format: text, latex or json (json is --json)") -> None:
    """``--format``: text, latex or json (default text)."""
    s.add_argument("--format", choices=("text", "latex", "json"), default="text", help=help)
