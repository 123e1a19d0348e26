"""What every ``symtf`` command shares: text or ``--json`` output, figures, and exit codes.

Exit codes: 0 ran (and, for ``symtf check``, verified); 1 a certificate or map was REJECTED
(one line ``REJECTED: reason`` on stderr); 2 bad input or usage — every user error
(unreadable, malformed or oversized file, bad matrix, unknown variant, bad option) prints one
line ``symtf: error: ...`` on stderr.  Files are written atomically by
:mod:`symbolic_tf.atomic` (through the library or the command modules).
"""
from __future__ import annotations

import argparse
import json
import sys
from contextlib import contextmanager

from ..spec.errors import InvalidParameters, SymtfError

__all__ = ["EXIT_OK", "EXIT_REJECTED", "EXIT_USER_ERROR", "EXIT_NO_CERTIFICATE", "NoCertificate", "Parser", "UsageError", "as_options", "emit",
           "emit_in_format", "emit_rejected", "emit_with_figure", "run"]

EXIT_OK = 0
EXIT_REJECTED = 1
EXIT_USER_ERROR = 2
EXIT_NO_CERTIFICATE = 3  # the command ran; --cert asked for a certificate and the verdict has none


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


def run(parser: argparse.ArgumentParser, argv=None) -> int:
    """Parse ``argv``, run the chosen command and map every user error to one line and exit 2."""
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
        return 130
    except BrokenPipeError:
        return 0
