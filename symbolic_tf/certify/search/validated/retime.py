"""A tube certificate that failed the independent check on a step, proposed again with shorter steps.

The searches validate their Taylor steps with their own a priori enclosures; the checker replays the
tube with its own (the eigenframe near a singular Σ, its inflation rounds).  The two agree on almost
every step, but a step the search accepted by a hair can fail in the replay ("the a priori (Picard)
enclosure fails on step i [tᵢ₋₁, tᵢ]"), and then usually the steps after it too: the search's step
control ran at the edge of the checker's.  :func:`retimed` finds the certificate's list of times
(the exact rationals whose values the checker's message names at positions i − 1 and i) and halves
that step and every later one; the caller re-checks the result from scratch, so a retimed
certificate is accepted only if the checker accepts it — nothing here is trusted.
"""
from __future__ import annotations

import copy
import re
from fractions import Fraction

__all__ = ["retimed", "checked_retimed", "MAX_RETIMES"]

#: how many times a failing tube is retimed (each halves the steps from the failing one on)
MAX_RETIMES = 3

_STEP = re.compile(r"fails on step (\d+) \[([-+0-9.eE]+), ([-+0-9.eE]+)\]")


def _close(q: Fraction, x: float) -> bool:
    return abs(float(q) - x) <= 1e-15 * max(1.0, abs(x))


def _time_lists(obj, path=()):
    """(path, list) for every list of exact rational strings in the certificate's data."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _time_lists(v, path + (k,))
    elif isinstance(obj, list) and len(obj) > 1 and all(isinstance(x, str) for x in obj):
        try:
            yield path, [Fraction(x) for x in obj]
        except (ValueError, ZeroDivisionError):
            return


def retimed(cert: dict, message: str) -> dict | None:
    """The certificate with the failing step and every later step halved, or None when the
    checker's message names no step or no list of times matches it.

    Parameters
    ----------
    cert : dict
        The certificate (JSON form) that failed the check.
    message : str
        The checker's message, e.g. "… fails on step 12 [0.1272…, 0.1356…]".

    Returns
    -------
    dict or None
        A new certificate dict (the input is not modified) whose matching time list has the
        midpoint inserted in step i and in each step after it; the other data unchanged.
    """
    m = _STEP.search(message)
    if m is None:
        return None
    i, a, b = int(m.group(1)), float(m.group(2)), float(m.group(3))
    for path, ts in _time_lists(cert.get("data", {})):
        if i < 1 or i >= len(ts) or not (_close(ts[i - 1], a) and _close(ts[i], b)):
            continue
        if any(u >= v for u, v in zip(ts, ts[1:])):
            continue
        new = ts[:i]
        for u, v in zip(ts[i - 1:], ts[i:]):
            new += [(u + v) / 2, v]
        out = copy.deepcopy(cert)
        node = out["data"]
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = [str(q) for q in new]
        return out
    return None


def checked_retimed(cert_dict: dict, derive):
    """Check a certificate; when a tube fails on a step, check its :func:`retimed` version instead,
    at most :data:`MAX_RETIMES` times.

    Parameters
    ----------
    cert_dict : dict
        The certificate (JSON form).
    derive : callable
        The checker's ``derive(Certificate) -> (status, claim, problem)`` (or ``check``).

    Returns
    -------
    tuple
        (the certificate dict that passed, its Certificate, ``derive``'s result).

    Raises
    ------
    CertificationFailed
        The last failure, when no retimed version passes.
    """
    from ...check.certificate import Certificate
    from ....spec.errors import CertificationFailed

    for attempt in range(MAX_RETIMES + 1):
        try:
            cert = Certificate.from_dict(cert_dict)
            return cert_dict, cert, derive(cert)
        except CertificationFailed as exc:
            again = retimed(cert_dict, str(exc)) if attempt < MAX_RETIMES else None
            if again is None:
                raise
            cert_dict = again
    raise AssertionError("unreachable")  # pragma: no cover
