"""The project's exception hierarchy.

Every error a user can provoke with bad input is a :class:`SymtfError`; the CLI maps these
to one readable line on stderr and exit status 2.  Library code never lets a bare
``ValueError``/``KeyError`` escape for a user mistake.
"""
from __future__ import annotations

__all__ = [
    "SymtfError",
    "InvalidParameters",
    "ProblemFileError",
    "UnknownVariant",
    "NotGaussianClosed",
    "CertificationFailed",
    "ModelError",
]


class SymtfError(Exception):
    """Base class of every error raised on purpose by symbolic_tf."""


class InvalidParameters(SymtfError, ValueError):
    """A parameter is malformed: wrong shape, not finite, not symmetric, not PSD, unknown field.

    Parameters
    ----------
    field : str
        Dotted name of the offending field (``"initial.cov"``, ``"heads[1].V"``); it starts
        the message so a user sees at once what to fix.
    message : str
        What is wrong with it.
    """

    def __init__(self, field: str, message: str):
        self.field = field
        self.reason = message
        super().__init__(f"{field}: {message}" if field else message)


class ProblemFileError(SymtfError):
    """A problem file cannot be read or is not valid TOML/JSON."""


class UnknownVariant(InvalidParameters):
    """The requested attention variant is not registered."""

    def __init__(self, name: str, known: list[str] | tuple[str, ...]):
        import difflib

        self.name = name
        self.known = tuple(known)
        close = difflib.get_close_matches(str(name), self.known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        super().__init__(
            "variant", f"unknown variant {name!r}{hint}; known variants: {', '.join(self.known)}"
        )


class NotGaussianClosed(SymtfError):
    """A Gaussian moment system was requested for a variant that does not preserve Gaussians."""


class CertificationFailed(SymtfError):
    """A certificate does not verify (tampered, inconsistent or for another problem)."""


class ModelError(SymtfError):
    """A pretrained-model checkpoint cannot be used: missing folder or files, unreadable
    weights, or an architecture the numpy encoder does not implement (see
    :mod:`symbolic_tf.models.loader`)."""
