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
    "FloatReadWarning",
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


class FloatReadWarning(UserWarning):
    """A float was read as its exact binary value, which is not the decimal it prints as.

    A float such as ``0.1`` is the double m·2^e nearest to one tenth, and an exact reader takes
    that double at its word: 0.1 becomes 3602879701896397/36028797018963968, not 1/10.  The
    warning says so once per distinct value (floats whose binary value *is* their shortest
    decimal, like ``0.5`` or ``2.0``, are silent) and suggests the string to write instead.
    The ``symtf`` command prints it as one line on stderr.

    Parameters
    ----------
    field : str
        Name of the field where the value was first met (``"A[0][1]"``).
    value : float
        The float as given.
    exact : fractions.Fraction
        Its exact binary value, the number that is used.
    decimal : str
        The shortest decimal that rounds back to ``value`` (``repr(value)``), the text to write.
    fraction : str
        The same decimal as ``"p/q"``.
    """

    def __init__(self, field: str, value: float, exact, decimal: str, fraction: str):
        self.field = field
        self.value = value
        self.exact = exact
        self.decimal = decimal
        self.fraction = fraction
        exact_text = str(exact)  # "p/q", or "p" for an integer
        if len(exact_text) > 80:  # 1e300 is a 301-digit integer: its head and its length say enough
            exact_text = f"{exact_text[:40]}… ({len(exact_text)} characters)"
        hint = f'"{decimal}"' + (f' or "{fraction}"' if fraction != decimal and len(fraction) <= 40 else "")
        where = f"{field}: " if field else ""
        super().__init__(f"{where}the float {decimal} is read as its exact binary value {exact_text}; "
                         f"write {hint} (a string) for the decimal")

    def __reduce__(self):
        """Rebuilt from its fields (a pickled warning crosses process boundaries intact)."""
        return type(self), (self.field, self.value, self.exact, self.decimal, self.fraction)
