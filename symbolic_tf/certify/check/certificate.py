"""Certificates: plain, JSON-serialisable exact data backing a PROVED/REFUTED verdict.

Schema ``symbolic_tf.certificate/2``::

    {
      "schema": "symbolic_tf.certificate/2",
      "kind": "blowup-riccati-vI",          # which argument; selects the checker
      "claim": {"subject": "BLOWUP",         # a Claim (symbolic_tf.certify.check.claims) as data:
                "quantifier": "this Σ₀",     # which Σ₀ it covers
                "params": {"T_lo": "p/q", "T_hi": "p/q"},
                "text": "for this Σ₀: Σ(t) blows up …"},   # rendered from the data
      "status": "PROVED",                    # or "REFUTED" (the claim is false)
      "problem": {...},                      # the exact problem (problem_to_dict), if any
      "problem_hash": "sha256 of it",
      "data": {...}                          # rationals as "p/q" strings, balls [mid, rad]
    }

:func:`symbolic_tf.certify.check.check` re-verifies a certificate from these fields alone: it
re-derives the claim and the status from ``data`` (and the embedded problem) and rejects the
file unless both, the rendered text and the problem hash, are exactly as stated.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...spec.errors import CertificationFailed, ProblemFileError, SymtfError
from ...spec.problem import parse_problem, problem_to_dict
from .claims import Claim

__all__ = ["SCHEMA", "Certificate", "load_certificate", "mat_str", "vec_str"]

SCHEMA = "symbolic_tf.certificate/2"


def _fs(q) -> str:
    from ...exact.rational import frac_str

    return frac_str(q)


def mat_str(M) -> list:
    """An exact matrix (fmpq_mat, nested Fractions, SymPy) as nested "p/q" strings.

    Parameters
    ----------
    M : fmpq_mat, nested rows or sympy.Matrix
        An exact matrix.

    Returns
    -------
    list of list of str
        The rows.
    """
    if hasattr(M, "nrows") and callable(M.nrows):
        return [[_fs(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())]
    if hasattr(M, "tolist") and not isinstance(M, (list, tuple)):
        M = M.tolist()
    return [[_fs(e) for e in row] for row in M]


def vec_str(v) -> list:
    """An exact vector as a list of "p/q" strings.

    Parameters
    ----------
    v : iterable
        Exact entries (Fraction, fmpq, SymPy rational, int).

    Returns
    -------
    list of str
        The entries.
    """
    return [_fs(e) for e in v]


@dataclass
class Certificate:
    """A certificate (see the module docstring for the schema)."""

    kind: str
    claim: Claim
    status: str
    data: dict
    problem: dict | None = None
    problem_hash: str | None = None
    schema: str = SCHEMA
    notes: list = field(default_factory=list)

    @classmethod
    def for_problem(cls, problem, kind: str, claim: Claim, status: str, data: dict, notes=None):
        """A certificate that embeds ``problem`` exactly (``problem_to_dict``) with its content hash.

        Parameters
        ----------
        problem : Problem
            The problem the claim is about.
        kind : str
            The certificate kind (selects the checker).
        claim : Claim
            The claim as data.
        status : str
            PROVED or REFUTED.
        data : dict
            The kind's exact data ("p/q" strings, balls [mid, rad]).
        notes : iterable of str, optional
            Free-text notes.

        Returns
        -------
        Certificate
            The certificate.
        """
        return cls(kind=kind, claim=claim, status=status, data=data, problem=problem_to_dict(problem),
                   problem_hash=problem.content_hash(), notes=list(notes or []))

    def to_dict(self) -> dict:
        """The certificate as its JSON document (schema ``symbolic_tf.certificate/2``; ``notes`` only
        when present).

        Returns
        -------
        dict
            Keys schema, kind, claim, status, problem, problem_hash, data[, notes].
        """
        out = {"schema": self.schema, "kind": self.kind, "claim": self.claim.to_dict(), "status": self.status,
               "problem": self.problem, "problem_hash": self.problem_hash, "data": self.data}
        if self.notes:
            out["notes"] = self.notes
        return out

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON text (UTF-8 characters kept).

        Returns
        -------
        str
            The JSON text.
        """
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: dict) -> "Certificate":
        """Read a certificate document, checking its structure (not its mathematics: see
        :func:`symbolic_tf.certify.check.check`).

        Parameters
        ----------
        d : dict
            The decoded JSON document.

        Returns
        -------
        Certificate
            The certificate.

        Raises
        ------
        CertificationFailed
            Not an object, missing/unknown fields, a wrong schema or types, or a claim text that is
            not the one its data renders.
        """
        if not isinstance(d, dict):
            raise CertificationFailed("certificate: not a JSON object")
        missing = [k for k in ("schema", "kind", "claim", "status", "data") if k not in d]
        if missing:
            raise CertificationFailed(f"certificate: missing field(s) {', '.join(missing)}")
        if d["schema"] != SCHEMA:
            raise CertificationFailed(f"certificate: unknown schema {str(d['schema'])[:60]!r} (expected {SCHEMA})")
        extra = set(d) - {"schema", "kind", "claim", "status", "data", "problem", "problem_hash", "notes"}
        if extra:
            raise CertificationFailed(f"certificate: unknown field(s) {', '.join(sorted(map(str, extra)))[:200]}")
        if not isinstance(d["kind"], str) or not isinstance(d["status"], str) or not isinstance(d["data"], dict):
            raise CertificationFailed("certificate: kind and status must be strings and data an object")
        if d.get("problem") is not None and not isinstance(d["problem"], dict):
            raise CertificationFailed("certificate: problem must be an object")
        if d.get("problem_hash") is not None and not isinstance(d["problem_hash"], str):
            raise CertificationFailed("certificate: problem_hash must be a string")
        claim = Claim.from_dict(d["claim"])
        if d["claim"].get("text") != claim.text():
            raise CertificationFailed("certificate: the claim's text is not the one its data renders")
        notes = d.get("notes", [])
        if not isinstance(notes, list) or any(not isinstance(n, str) for n in notes):
            raise CertificationFailed("certificate: notes must be a list of strings")
        return cls(kind=d["kind"], claim=claim, status=d["status"], data=d["data"],
                   problem=d.get("problem"), problem_hash=d.get("problem_hash"), notes=notes)

    def parsed_problem(self):
        """The problem re-parsed exactly (and its hash re-checked).

        Returns
        -------
        Problem or None
            The embedded problem (None when there is none); CertificationFailed when it is invalid,
            its hash differs, or it has a ReLU term.
        """
        if self.problem is None:
            return None
        try:
            p = parse_problem(self.problem)
        except SymtfError as exc:  # a parse failure means a malformed certificate
            raise CertificationFailed(f"certificate: embedded problem is invalid: {exc}") from None
        if self.problem_hash != p.content_hash():
            raise CertificationFailed("certificate: problem hash does not match the embedded problem")
        if p.relu is not None:
            raise CertificationFailed("certificate: the embedded problem has a ReLU feed-forward term; "
                                      "no moment certificate covers a flow that leaves the Gaussian family")
        return p


def read_json_document(path, what: str = "certificate"):
    """A JSON file read within the input limits (size, UTF-8, nesting, number size);
    anything unreadable is :class:`ProblemFileError` (bad input, exit 2).

    Parameters
    ----------
    path : str or Path
        The file.
    what : str
        What the file is, for error messages.

    Returns
    -------
    object
        The decoded JSON value.
    """
    from ...spec.limits import load_json_text, read_text_file

    return load_json_text(read_text_file(path, what), what)


def load_certificate(path) -> Certificate:
    """Read a certificate file: unparsable → ProblemFileError; wrong structure → CertificationFailed.

    Parameters
    ----------
    path : str or Path
        The certificate file.

    Returns
    -------
    Certificate
        The structurally valid certificate (not yet checked).
    """
    return Certificate.from_dict(read_json_document(path))
