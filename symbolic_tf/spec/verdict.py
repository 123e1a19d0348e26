"""The shared vocabulary of decisions: PROVED / REFUTED / UNDECIDED.

A verdict's ``evidence`` holds exact data (rationals as "p/q" strings, balls as
[mid, rad] strings) that an independent checker can re-verify; anything computed in floating
point goes to ``numerical`` and is labelled numerical evidence, never a proof.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["PROVED", "REFUTED", "UNDECIDED", "Verdict", "latex_text", "latex_verdict"]

PROVED = "PROVED"
REFUTED = "REFUTED"
UNDECIDED = "UNDECIDED"


_TEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_text(s: str) -> str:
    """``s`` escaped for LaTeX text mode (one pass, so escapes are never escaped again).

    Parameters
    ----------
    s : str
        Any text.

    Returns
    -------
    str
        The text with the LaTeX specials (backslash, & % $ # _ { } ~ ^) replaced by their
        text-mode forms.
    """
    import re

    return re.sub(r"[\\&%$#_{}~^]", lambda m: _TEX_SPECIAL[m.group()], str(s))


def latex_verdict(*runs: str) -> str:
    """Words as one inline formula, runs alternately bold and plain:
    ``latex_verdict("BLOWUP (PROVED)", ": claim")`` is ``$\\textbf{BLOWUP (PROVED)}\\text{: claim}$``.

    One pair of ``$`` around the whole line and none inside it, so a notebook front end that
    strips the outer delimiters and sets the rest as display math gets valid TeX.

    Parameters
    ----------
    *runs : str
        The 1st, 3rd, … run in bold (a status, a regime), the 2nd, 4th, … plain (the claim, the
        reason); empty runs are left out.

    Returns
    -------
    str
        ``$…$`` with every run escaped by :func:`latex_text`.
    """
    parts = [f"\\{'textbf' if i % 2 == 0 else 'text'}{{{latex_text(r)}}}" for i, r in enumerate(runs) if r]
    return "$" + "".join(parts) + "$"


@dataclass
class Verdict:
    """A decision about a claim.

    Attributes
    ----------
    status : {"PROVED", "REFUTED", "UNDECIDED"}
    claim : str
        The statement decided, in words.
    argument : str
        The kind of argument (``"structural-symbolic"``, ``"exact-witness"``, ...).
    evidence : dict
        Exact, JSON-serialisable data backing the status.
    numerical : dict
        Floating-point observations (numerical evidence only).
    reason : str
        Why UNDECIDED (or a one-line summary otherwise).
    """

    status: str
    claim: str
    argument: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)
    numerical: dict[str, Any] = field(default_factory=dict)
    reason: str = ""

    def __post_init__(self):
        if self.status not in (PROVED, REFUTED, UNDECIDED):
            raise ValueError(f"bad verdict status {self.status!r}")

    def __repr__(self) -> str:
        reason = f" — {self.reason}" if self.reason else ""
        if len(reason) > 160:
            reason = reason[:157] + "…"
        return f"Verdict({self.status}: {self.claim}{reason})"

    def _repr_latex_(self) -> str:  # Jupyter: the status in bold, the claim in words
        return latex_verdict(self.status, f": {self.claim}" if self.claim else "")

    def to_dict(self) -> dict:
        """The verdict as a JSON-serialisable dict (numerical evidence under ``numerical_evidence``).

        Returns
        -------
        dict
            Keys status, claim, argument, evidence, numerical_evidence, reason.
        """
        return {"status": self.status, "claim": self.claim, "argument": self.argument,
                "evidence": self.evidence, "numerical_evidence": self.numerical,
                "reason": self.reason}
