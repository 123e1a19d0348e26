"""Certificates of matrix-form identities (kind ``matrix-identity``): a proof from
:mod:`.library`, or an exact counter-witness for a false statement."""
from __future__ import annotations

import random

import flint

from ....spec.errors import CertificationFailed
from ...check.certificate import Certificate
from ...check.claims import Claim, Quantifier
from ...check.matrix_proofs.replay import check_witness, parse_statement, replay, statement_params

__all__ = ["identity_certificate", "witness_certificate", "search_witness"]

KIND = "matrix-identity"


def identity_certificate(doc) -> Certificate:
    """A PROVED ``matrix-identity`` certificate for a proof document.

    Parameters
    ----------
    doc : dict
        A proof document (replayed here).

    Returns
    -------
    Certificate
        Kind ``matrix-identity``, status PROVED, the proof in ``data["proof"]``; raises
        CertificationFailed when the proof does not replay.
    """
    st, _ = replay(doc)
    return Certificate(kind=KIND, claim=Claim("matrix-identity", Quantifier.NONE, statement_params(st)),
                       status="PROVED", data={"proof": doc})


def _fs(q):
    q = flint.fmpq(q)
    return str(q.p) if q.q == 1 else f"{q.p}/{q.q}"


def search_witness(doc, dims=(2, 3), tries: int = 200, seed: int = 0):
    """An exact point where a statement's two sides differ (random small integers satisfying
    the hypotheses), or None.

    Parameters
    ----------
    doc : dict
        A proof document (its statement is used).
    dims : tuple of int
        The dimensions d to draw from.
    tries : int
        The number of random points tried.
    seed : int
        The random seed.

    Returns
    -------
    dict or None
        A witness ``{"d": n, "values": {symbol: entries}}`` with lhs ≠ rhs, or None.
    """
    from ...check.matrix_proofs.replay import target_shape, sample_point

    st = parse_statement(doc)
    rng = random.Random(seed)
    for _ in range(tries):
        n = rng.choice(list(dims))
        env, implicit = sample_point(st, n, rng)
        if env is None or implicit:
            continue
        values = {}
        for name in st.decl.matrices:
            M = env[name]
            values[name] = [[_fs(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())]
            assert (M.nrows(), M.ncols()) == target_shape(st, name, n)
        for s in st.decl.scalars:
            values[s] = _fs(env[s])
        w = {"d": n, "values": values}
        try:
            if check_witness(doc, w)["differs"]:
                return w
        except CertificationFailed:
            continue
    return None


def witness_certificate(doc, witness) -> Certificate:
    """A REFUTED ``matrix-identity`` certificate: the statement (no steps) and the witness.

    Parameters
    ----------
    doc : dict
        A proof document (its steps are dropped).
    witness : dict
        ``{"d": n, "values": {...}}``, a point where lhs ≠ rhs.

    Returns
    -------
    Certificate
        Kind ``matrix-identity``, status REFUTED; raises CertificationFailed when the witness
        does not separate the two sides.
    """
    stmt = {k: v for k, v in doc.items() if k != "steps"}
    st = parse_statement(stmt)
    if not check_witness(stmt, witness)["differs"]:
        raise CertificationFailed("not a counter-witness")
    return Certificate(kind=KIND, claim=Claim("matrix-identity", Quantifier.NONE, statement_params(st)),
                       status="REFUTED", data={"proof": stmt, "witness": witness})
