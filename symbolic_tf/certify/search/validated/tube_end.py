"""The last leg every tube-end search shares: the validated tube from Σ₀, run until the checker's own
test verifies that its end box lies in the certified target region, and the refusal callback the
checkers' tests raise through.  Search side only; the checker replays the tube with its own code."""
from __future__ import annotations

from typing import NamedTuple

__all__ = ["refuse", "passes", "Entry", "tube_entry"]


def refuse(msg):
    """The ``fail`` callback handed to a checker's test: reject the candidate.

    Parameters
    ----------
    msg : str
        The failed hypothesis in words.

    Raises
    ------
    symbolic_tf.spec.errors.CertificationFailed
        Always.
    """
    from ....spec.errors import CertificationFailed

    raise CertificationFailed(msg)


def passes(test, *args):
    """Whether a checker's test accepts a candidate: ``test(*args, refuse)`` returns without refusing.

    Parameters
    ----------
    test : callable
        A checker's test whose last argument is the ``fail`` callback.
    *args
        Its other arguments.

    Returns
    -------
    bool
        True when the test passes, False when it refuses (raises CertificationFailed).
    """
    from ....spec.errors import CertificationFailed

    try:
        test(*args, refuse)
    except CertificationFailed:
        return False
    return True


class Entry(NamedTuple):
    """What :func:`tube_entry` found: the tube, and when its end was verified (``t`` None: never), what
    ``entered`` returned then, the number of tube steps up to t and the tube part of the certificate's data."""

    tube: object
    t: object
    found: object
    steps: int
    fields: dict


def tube_entry(heads, F, S0q, entered, numerical, *, order, prec, max_steps, seconds) -> Entry:
    """The validated tube from Σ₀ (QR method, stopped at relative width 10⁻²) run until
    ``entered(S, t)`` verifies its end box; the tube's float summary goes into ``numerical``.

    Parameters
    ----------
    heads : list of (flint.fmpq_mat, flint.fmpq_mat)
        The exact (C_h, A_h).
    F : flint.fmpq_mat or None
        The exact drift.
    S0q : flint.fmpq_mat
        The exact Σ₀.
    entered : callable
        ``entered(S, t)``, called after every step with the end box S (flint.arb_mat) at time t: what
        the certificate keeps of a verified entry (not None), or None while the end is not verified.
    numerical : dict
        The search's float diagnostics; the tube's summary is added.
    order : int
        The Taylor order.
    prec : int
        The arb working precision in bits.
    max_steps : int
        The largest number of steps.
    seconds : float
        The wall-clock limit.

    Returns
    -------
    Entry
        The tube and, when its end was verified at t, t, what ``entered`` returned, the steps up to t
        and the tube fields of the certificate (:func:`~.lyapunov.tube_fields`; 0 and {} when never).
    """
    from .lyapunov import tube_fields, tube_summary
    from .tube import integrate_tube

    hits = []

    def until(state, t):
        got = entered(state.S, t)
        if got is None:
            return False
        hits.append((t, got))
        return True

    tube = integrate_tube(heads, F, S0q, None, order=order, prec=prec, method="qr", max_steps=max_steps,
                          rel_tol=1e-2, seconds=seconds, until=until)
    numerical.update(tube_summary(tube))
    if not hits:
        return Entry(tube, None, None, 0, {})
    t, found = hits[0]
    times, fields = tube_fields(tube, t, order, prec)
    return Entry(tube, t, found, len(times) - 1, fields)
