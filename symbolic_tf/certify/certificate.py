"""Certificates: plain, JSON-serialisable exact data backing a PROVED/REFUTED verdict.

Schema ``symbolic_tf.certificate/1``::

    {
      "schema": "symbolic_tf.certificate/1",
      "kind": "blowup-riccati-vI",          # which argument; selects the checker
      "claim": "Σ(t) blows up at T* ∈ [lo, hi]",
      "status": "PROVED",                    # or "REFUTED" (the claim is false)
      "problem": {...},                      # the exact problem (problem_to_dict), if any
      "problem_hash": "sha256 of it",
      "data": {...}                          # rationals as "p/q" strings, balls [mid, rad]
    }

:func:`symbolic_tf.certify.check.check` re-verifies a certificate from these fields alone.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..spec.errors import CertificationFailed
from ..spec.problem import parse_problem, problem_to_dict

__all__ = ["SCHEMA", "Certificate", "load_certificate", "mat_str", "vec_str"]

SCHEMA = "symbolic_tf.certificate/1"


def _fs(q) -> str:
    from .exact import frac_str

    return frac_str(q)


def mat_str(M) -> list:
    """An exact matrix (fmpq_mat, nested Fractions, SymPy) as nested "p/q" strings."""
    if hasattr(M, "nrows") and callable(M.nrows):
        return [[_fs(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())]
    if hasattr(M, "tolist") and not isinstance(M, (list, tuple)):
        M = M.tolist()
    return [[_fs(e) for e in row] for row in M]


def vec_str(v) -> list:
    return [_fs(e) for e in v]


@dataclass
class Certificate:
    """A certificate (see the module docstring for the schema)."""

    kind: str
    claim: str
    status: str
    data: dict
    problem: dict | None = None
    problem_hash: str | None = None
    schema: str = SCHEMA
    notes: list = field(default_factory=list)

    @classmethod
    def for_problem(cls, problem, kind: str, claim: str, status: str, data: dict, notes=None):
        return cls(kind=kind, claim=claim, status=status, data=data, problem=problem_to_dict(problem),
                   problem_hash=problem.content_hash(), notes=list(notes or []))

    def to_dict(self) -> dict:
        out = {"schema": self.schema, "kind": self.kind, "claim": self.claim, "status": self.status,
               "problem": self.problem, "problem_hash": self.problem_hash, "data": self.data}
        if self.notes:
            out["notes"] = self.notes
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: dict) -> "Certificate":
        if not isinstance(d, dict):
            raise CertificationFailed("certificate: not a JSON object")
        missing = [k for k in ("schema", "kind", "claim", "status", "data") if k not in d]
        if missing:
            raise CertificationFailed(f"certificate: missing field(s) {', '.join(missing)}")
        if d["schema"] != SCHEMA:
            raise CertificationFailed(f"certificate: unknown schema {d['schema']!r} (expected {SCHEMA})")
        return cls(kind=d["kind"], claim=d["claim"], status=d["status"], data=d["data"],
                   problem=d.get("problem"), problem_hash=d.get("problem_hash"), notes=d.get("notes", []))

    def parsed_problem(self):
        """The problem re-parsed exactly (and its hash re-checked)."""
        if self.problem is None:
            return None
        try:
            p = parse_problem(self.problem)
        except Exception as exc:  # any parse failure means a malformed certificate
            raise CertificationFailed(f"certificate: embedded problem is invalid: {exc}") from None
        if self.problem_hash != p.content_hash():
            raise CertificationFailed("certificate: problem hash does not match the embedded problem")
        return p


def load_certificate(path) -> Certificate:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CertificationFailed(f"cannot read certificate {str(path)!r}: {exc.strerror or exc}") from None
    try:
        return Certificate.from_dict(json.loads(text))
    except json.JSONDecodeError as exc:
        raise CertificationFailed(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
