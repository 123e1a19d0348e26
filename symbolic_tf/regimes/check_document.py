"""Re-verify any certified JSON document: a regime map, a report with embedded certificates, or one certificate.

The document's ``schema`` chooses the checker: ``symbolic_tf.regime_map/1`` →
:func:`~symbolic_tf.regimes.maps.check_map` (every cell certificate and the tiling); another
document with certificates nested in it (e.g. ``heads.json``) → every embedded certificate
through :func:`~symbolic_tf.certify.check.check`; otherwise the document is one certificate.
Each checker re-derives its claims with exact or ball arithmetic only and raises
:class:`~symbolic_tf.spec.errors.CertificationFailed` on the first failure.
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["DocumentCheck", "check_document"]


@dataclass
class DocumentCheck:
    """What :func:`check_document` verified.

    Attributes
    ----------
    kind : str
        ``"regime-map"``, ``"embedded"`` or ``"certificate"``.
    result : object
        The map's counts (dict, for a regime map) or the
        :class:`~symbolic_tf.certify.check.CheckResult` (for one certificate); None for embedded.
    certificates : int
        The number of embedded certificates verified.
    kinds : dict
        Embedded certificates per certificate kind.
    """

    kind: str
    result: object = None
    certificates: int = 0
    kinds: dict = field(default_factory=dict)


def check_document(doc: dict, size: int, label: str) -> DocumentCheck:
    """Re-verify a certified JSON document, choosing the checker by its ``schema``.

    Parameters
    ----------
    doc : dict
        The parsed document.
    size : int
        Its size in characters: a single certificate may be at most ``MAX_FILE_BYTES`` (a map or
        a report, ``MAX_MAP_FILE_BYTES``, checked where the file is read).
    label : str
        The file's name for error messages.

    Returns
    -------
    DocumentCheck
        What was verified.  :class:`~symbolic_tf.spec.errors.CertificationFailed` when a
        certificate or the map does not verify; :class:`~symbolic_tf.spec.errors.ProblemFileError`
        when a single certificate is too large.
    """
    from ..certify.check.certificate import SCHEMA as CERT_SCHEMA, Certificate
    from ..certify.check import check, embedded_certificates
    from ..spec.errors import ProblemFileError
    from ..spec.limits import MAX_FILE_BYTES
    from .maps import SCHEMA as MAP_SCHEMA, check_map

    if doc.get("schema") == MAP_SCHEMA:
        return DocumentCheck("regime-map", check_map(doc))
    if doc.get("schema") != CERT_SCHEMA:
        certs = embedded_certificates(doc)
        if certs:  # a report with embedded certificates (e.g. heads.json): check every one
            kinds: dict = {}
            for c in certs:
                r = check(c)
                kinds[r.kind] = kinds.get(r.kind, 0) + 1
            return DocumentCheck("embedded", None, len(certs), kinds)
        if not {"kind", "claim"} & set(doc):
            # a report with nothing certified in it (e.g. symtf layers on MiniLM: every layer UNDECIDED)
            from ..spec.errors import CertificationFailed

            raise CertificationFailed(f"{label}: not a certificate, and it embeds none — nothing certified to verify")
    if size > MAX_FILE_BYTES:
        raise ProblemFileError(f"cannot read certificate {label!r}: too large (at most {MAX_FILE_BYTES} bytes)")
    return DocumentCheck("certificate", check(Certificate.from_dict(doc)))
