"""The ``symtf`` command: parse, call the library, print (text or ``--json``), write atomically.

Exit codes (:data:`EXIT_CODES`): 0 ran (and, for ``symtf check``, verified); 1 a certificate or
map was REJECTED (``symtf check`` prints one line ``REJECTED: reason`` on stderr); 2 bad input or
usage — every user error (unreadable, malformed or oversized file, bad matrix, unknown variant,
bad option) prints one line ``symtf: error: ...`` on stderr; 3 ``--cert`` found no certificate
to write; 4 an internal error (a bug); 130 interrupted.  A float read at its exact binary value
is announced by one line ``symtf: warning: ...`` on stderr.

Light by design: parsing, ``--help``, ``--version`` and ``symtf variants`` import none of the
heavy stack (SymPy, NumPy, SciPy, cvxpy, numba, matplotlib); each handler imports what it
uses when it runs (``tests/test_cli_light.py`` holds this).

One module per command group, each registering its subcommands and holding their handlers:
:mod:`.derive` (variants, derive, invariance, rhs), :mod:`.data` (meanfield, stability,
mixture, masked, relu), :mod:`.certify` (classify, check, enclose), :mod:`.maps`
(regime-map), :mod:`.reproduce` (reproduce, run), :mod:`.verify`, :mod:`.energy` (energy,
gradient-flow, convexity), :mod:`.control` (steer), :mod:`.models` (probe, heads; the model
package is imported only when they run).  Shared: :mod:`.output` (text/JSON, exit codes),
:mod:`.options` (option types, and the arguments several commands declare alike).
"""
from __future__ import annotations

import argparse

from . import _certify as certify, _control as control, _data as data, _derive as derive, _energy as energy, _maps as maps, _models as models, _reproduce as reproduce, _verify as verify
from ._options import add_quiet
from ._output import EXIT_CODES, Parser, run

__all__ = ["main", "build_parser", "COMMAND_ORDER", "EXIT_CODES"]

#: The subcommands in the order ``symtf --help`` lists them.
COMMAND_ORDER = ("variants", "derive", "invariance", "rhs", "meanfield", "stability", "mixture", "classify",
                 "check", "regime-map", "reproduce", "verify", "energy", "gradient-flow", "convexity", "steer",
                 "enclose", "masked", "relu", "probe", "heads", "layers", "run")

_GROUPS = (derive, data, certify, maps, reproduce, verify, energy, control, models)


def build_parser() -> argparse.ArgumentParser:
    """The ``symtf`` argument parser with every subcommand (each sets ``func``, its handler).

    Returns
    -------
    argparse.ArgumentParser
        The parser; its errors are one line and exit 2 (:class:`.output.Parser`).
    """
    p = Parser(prog="symtf", description="Derive, verify and certify mean-field Transformer dynamics.")
    p.add_argument("--version", action="version", version="symtf 0.1.0")
    sub = p.add_subparsers(dest="command", parser_class=Parser)
    adders = {name: add for g in _GROUPS for name, add in g.PARSERS.items()}
    for name in COMMAND_ORDER:
        adders[name](sub)
    for s in sub.choices.values():  # every command, last: --quiet switches progress output off
        add_quiet(s)
    return p


def main(argv=None) -> int:
    """Run ``symtf`` with ``argv``: parse, call the library, print.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code (:data:`EXIT_CODES`): 0 ran, 1 a certificate or map rejected, 2 bad input or
        usage, 3 no certificate for ``--cert``, 4 an internal error, 130 interrupted.
    """
    return run(build_parser(), argv)
