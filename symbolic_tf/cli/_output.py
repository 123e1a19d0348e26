"""What every ``symtf`` command shares: text or ``--json`` output, figures, and exit codes.

Exit codes (:data:`EXIT_CODES`, the table docs/reference/cli.md and the README show): 0 ran
(and, for ``symtf check``, verified); 1 a certificate or map was REJECTED (one line
``REJECTED: reason`` on stderr); 2 bad input or usage — every user error (unreadable,
malformed or oversized file, bad matrix, unknown variant, bad option) prints one line
``symtf: error: ...`` on stderr; 3 ``--cert`` found no certificate to write; 4 an internal
error (a bug: the traceback, then one line); 130 interrupted.  Files are written atomically by
:mod:`symbolic_tf.atomic` (through the library or the command modules).
"""
from __future__ import annotations

import argparse
import json
import sys
import warnings
from contextlib import contextmanager

from ..spec.errors import FloatReadWarning, InvalidParameters, SymtfError

__all__ = ["EXIT_OK", "EXIT_REJECTED", "EXIT_USER_ERROR", "EXIT_NO_CERTIFICATE", "EXIT_INTERNAL_ERROR",
           "EXIT_INTERRUPTED", "EXIT_CODES", "NoCertificate", "Parser",
           "UsageError", "as_options", "emit", "emit_in_format", "emit_rejected", "emit_with_figure", "one_line_warnings",
           "run"]

EXIT_OK = 0
EXIT_REJECTED = 1
EXIT_USER_ERROR = 2
EXIT_NO_CERTIFICATE = 3  # the command ran; --cert asked for a certificate and the verdict has none
EXIT_INTERNAL_ERROR = 4  # an unexpected exception: a bug in symbolic_tf, never a verdict
EXIT_INTERRUPTED = 130  # interrupted by Ctrl-C (SIGINT): 128 + 2, the shell's convention

#: Every exit status ``symtf`` returns, with what it means (the documentation renders this table).
EXIT_CODES = (
    (EXIT_OK, "the command ran (for `symtf check`: every certificate verified)"),
    (EXIT_REJECTED, "`symtf check` REJECTED a certificate or a regime map: one line `REJECTED: reason` on stderr"),
    (EXIT_USER_ERROR, "bad input or usage: unreadable, malformed or oversized file, bad option; "
                      "one line `symtf: error: ...` on stderr"),
    (EXIT_NO_CERTIFICATE, "the command ran but `--cert` found no certificate to write (an UNDECIDED verdict, "
                          "printed as usual); one line `symtf: no certificate written: ...` on stderr"),
    (EXIT_INTERNAL_ERROR, "an internal error, a bug of symbolic_tf (never a verdict): the Python traceback, "
                          "then one line `symtf: internal error: ...` on stderr"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C): one line `symtf: interrupted` on stderr; files are written "
                       "atomically, so none is left half-written"),
)


class NoCertificate(Exception):
    """``--cert`` was given and the verdict (UNDECIDED, or a numerical answer) carries no certificate:
    not bad input, so its own exit code (:data:`EXIT_NO_CERTIFICATE`)."""


class UsageError(Exception):
    """A usage error of the command line (bad option, missing command): one line, exit 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one readable line and exit 2 (no usage dump)."""

    def error(self, message):
        """Raise :class:`UsageError` instead of printing the usage and exiting."""
        import difflib
        import re

        m = re.match(r"argument command: invalid choice: '([^']*)'", message)
        if m:  # a mistyped command: name the closest one instead of listing them all
            sub = next(a for a in self._actions if isinstance(a, argparse._SubParsersAction))
            close = difflib.get_close_matches(m.group(1), list(sub.choices), n=1)
            message = (f"unknown command {m.group(1)!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
                       + f"; commands: {', '.join(sub.choices)}")
        # the top-level parser's name is already in "symtf: error: …"; a subcommand names itself
        raise UsageError(message if self.prog == "symtf" else f"{self.prog}: {message}")


@contextmanager
def as_options(**options):
    """Name a library error's field by the command-line option that gave it.

    Inside ``with as_options(d="--dim"):`` an
    :class:`~symbolic_tf.spec.errors.InvalidParameters` whose field is ``d`` is raised again
    with the field ``--dim`` (same reason); other errors pass unchanged.
    """
    try:
        yield
    except InvalidParameters as exc:
        if exc.field in options:
            raise InvalidParameters(options[exc.field], exc.reason) from None
        raise


def emit(args, data: dict, text: str) -> int:
    """Print ``text``, or with ``--json`` the document ``data`` tagged with ``schema``/``version``;
    returns :data:`EXIT_OK`, so a command ends with ``return emit(...)``."""
    if getattr(args, "json", False):
        from ..display import tagged

        print(json.dumps(tagged(getattr(args, "command", None) or "output", data), indent=2, ensure_ascii=False))
    else:
        print(text)
    return EXIT_OK


def emit_in_format(args, data: dict, text: str) -> int:
    """:func:`emit` for a command with ``--format``, where ``--format json`` means ``--json``."""
    if args.format == "json":
        args.json = True
    return emit(args, data, text)


def emit_rejected(args, command: str, reason: str) -> int:
    """Report a rejected certificate or map: the JSON document with ``--json``, one line on stderr."""
    reason = " ".join(str(reason).split())
    if getattr(args, "json", False):
        from ..display import tagged

        print(json.dumps(tagged(command, {"ok": False, "rejected": reason}), ensure_ascii=False))
    print(f"REJECTED: {reason}", file=sys.stderr)
    return EXIT_REJECTED


def emit_with_figure(args, data: dict, lines: list, draw, payload) -> int:
    """With ``--plot STEM``: draw ``draw(payload, STEM)`` (PNG and PDF, atomically), list the files;
    then print the text or the JSON document.
    """
    if args.plot:
        try:
            data["figures"] = [str(f) for f in draw(payload, args.plot)]
        except OSError as exc:
            raise InvalidParameters("--plot", f"cannot write {str(args.plot)!r}: {exc.strerror or exc}") from None
        lines.append("  figures: " + ", ".join(data["figures"]))
    return emit(args, data, "\n".join(lines))


@contextmanager
def one_line_warnings():
    """Inside the block, a :class:`~symbolic_tf.spec.errors.FloatReadWarning` (a float read at its
    exact binary value) prints as one line ``symtf: warning: ...`` on stderr; other warnings as usual."""
    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, FloatReadWarning):
            print(f"symtf: warning: {message}", file=sys.stderr)
        else:
            shown(message, category, filename, lineno, file, line)

    with warnings.catch_warnings():
        warnings.simplefilter("always", FloatReadWarning)  # the reader announces each value once itself
        warnings.showwarning = show
        yield


def run(parser: argparse.ArgumentParser, argv=None) -> int:
    """Parse ``argv``, run the chosen command and map every user error to one line and exit 2."""
    with one_line_warnings():
        return _run(parser, argv)


def _run(parser: argparse.ArgumentParser, argv=None) -> int:
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            raise UsageError("symtf: a command is required (variants, derive, invariance, rhs, run); "
                             "see `symtf --help`")
        from ..display import set_enabled

        # progress bars: on a terminal only (tqdm on stderr), never with --quiet
        set_enabled(False if getattr(args, "quiet", False) else None)
        return args.func(args)
    except UsageError as exc:
        print(f"symtf: error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except NoCertificate as exc:
        print(f"symtf: no certificate written: {exc}", file=sys.stderr)
        return EXIT_NO_CERTIFICATE
    except SymtfError as exc:
        print(f"symtf: error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("symtf: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # a bug: keep the traceback for the report, end with one line
        import traceback

        traceback.print_exc(file=sys.stderr)
        print(f"symtf: internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:300]} "
              "(a bug of symbolic_tf; please report it with the traceback above)", file=sys.stderr)
        return EXIT_INTERNAL_ERROR
