"""Claims as data: what a certificate proves, about which initial covariances.

A :class:`Claim` is plain data — a *subject* (a :class:`Regime`, or a named property that is
not a regime, such as "Σ* is a locally exponentially stable equilibrium"), a
:class:`Quantifier` saying which Σ₀ it covers, and its parameters (the bracket T_lo/T_hi,
the rank of the limit, Σ* or its enclosure, the growth rate γ, …; exact values as "p/q"
strings).  Its words are *rendered* from that data by :meth:`Claim.text`; no free text is
ever trusted.  A certificate file stores ``claim`` as :meth:`Claim.to_dict`; the checker
re-derives the claim from the certificate's data and rejects the file unless the two are
equal (see :mod:`symbolic_tf.certify.check`).

A verdict about a *problem* is PROVED only when a proved claim's quantifier covers that
problem's Σ₀ — decided exactly by :meth:`Claim.covers` (rank, definiteness, box membership):
a result "for every Σ₀ ≻ 0" says nothing about a singular Σ₀, and a local result says nothing
about a far-away one (docs/certification.md, "Claims and quantifiers").
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Mapping

from ...spec.errors import CertificationFailed

__all__ = ["Regime", "Quantifier", "Claim", "PROPERTIES", "REGIME_SUBJECTS", "claim_words", "property_subjects",
           "use_kind_loader", "approx", "mat_text"]


class Regime(str, Enum):
    """The regimes of a covariance flow (a ``str`` so ``regime == "BLOWUP"`` keeps working)."""

    CLUSTERING = "CLUSTERING"
    EQUILIBRIUM = "EQUILIBRIUM"
    BOUNDED = "BOUNDED"
    #: Σ(t) exists for all t with a growth bound ‖Σ(t)‖ ≤ ‖Σ₀‖e^{γt} (γ may be ≤ 0: then it
    #: stays bounded or decays; the claim's words say which)
    GLOBAL_EXISTENCE = "GLOBAL_EXISTENCE"
    BLOWUP = "BLOWUP"
    UNDECIDED = "UNDECIDED"

    def __str__(self) -> str:  # JSON and f-strings show the bare name
        return self.value


class Quantifier(str, Enum):
    """Which initial covariances a claim covers."""

    THIS = "this Σ₀"                       #: exactly the embedded problem's Σ₀
    EVERY_PD = "every Σ₀ ≻ 0"              #: every positive definite Σ₀ (same other parameters)
    EVERY_NONZERO = "every Σ₀ ⪰ 0, Σ₀ ≠ 0"  #: every nonzero PSD Σ₀
    EVERY_PSD = "every Σ₀ ⪰ 0"             #: every PSD Σ₀, singular ones included
    EVERY_RANK = "every Σ₀ ⪰ 0 of rank r"  #: params["sigma0_rank"] = r
    EVERY_IN_CELL = "every point of the cell"  #: a map cell (parameters or Σ₀ in an open box)
    #: a map cell of a Σ₀ slice that meets the boundary of the cone: its points where Σ₀ ≻ 0
    EVERY_PD_IN_CELL = "every point of the cell where Σ₀ ≻ 0"
    NONE = "no Σ₀"                         #: a statement about the parameters alone

    def __str__(self) -> str:
        return self.value


REGIME_SUBJECTS = tuple(r.value for r in Regime if r is not Regime.UNDECIDED)

#: subjects that are properties, not regimes: name -> renderer(params) -> words.  Each is declared
#: with :func:`claim_words` in the module of the kind that proves it, so it is filled when the kinds
#: are loaded (:func:`use_kind_loader`); read it through :func:`property_subjects` or a Claim.
PROPERTIES: dict[str, Any] = {}
_kind_loader = None


def claim_words(subject: str):
    """Decorator declaring the words of a property subject (a claim that is not a regime); the kind
    that proves the property declares them in its own module.

    Parameters
    ----------
    subject : str
        The property's name (a claim's ``subject``).

    Returns
    -------
    callable
        The decorator; it registers ``render(params) -> str`` and returns it unchanged.
    """
    def deco(fn):
        PROPERTIES[subject] = fn
        return fn
    return deco


def use_kind_loader(load) -> None:
    """Set the function that loads every kind module (and so every :func:`claim_words`): the kernel
    (:mod:`symbolic_tf.certify.check`) sets it on import, before any claim can be built, so a claim
    renders even when no kind module was imported yet.

    Parameters
    ----------
    load : callable
        ``load()`` imports every kind module (idempotent).
    """
    global _kind_loader
    _kind_loader = load


def _properties() -> dict:
    if _kind_loader is not None:
        _kind_loader()
    return PROPERTIES


def property_subjects() -> list[str]:
    """The names of every property subject (loading the kinds that declare them).

    Returns
    -------
    list of str
        Sorted.
    """
    return sorted(_properties())


def approx(s) -> str:
    """A number's decimal approximation for the words of a claim.

    Parameters
    ----------
    s : str or int
        An exact number ("p/q").

    Returns
    -------
    str
        Ten significant digits, or "?" when ``s`` is not a number within the schema limits.
    """
    from .schema import parse_rat

    try:  # "p/q" within the limits only: Fraction("1e99999999") would build a huge integer
        return f"{float(parse_rat(s)):.10g}"
    except (CertificationFailed, ZeroDivisionError, OverflowError):
        return "?"


def mat_text(M) -> str:
    """A matrix in the words of a claim: rows separated by "; ".

    Parameters
    ----------
    M : list of list
        The matrix (exact entries as strings or ints).

    Returns
    -------
    str
        ``[a, b; c, d]``.
    """
    return "[" + "; ".join(", ".join(str(x) for x in row) for row in M) + "]"


def _sign(x) -> int | None:
    """The sign of an exact number within the schema's limits, or None when it is not one (claim words
    must render any data, however hostile: a huge exponent or q = 0 is no number)."""
    from .schema import parse_rat

    try:
        q = parse_rat(x)
    except (CertificationFailed, ZeroDivisionError, OverflowError, ValueError, TypeError):
        return None
    return (q > 0) - (q < 0)


def _regime_text(subject: str, p: Mapping) -> str:
    if subject == "BLOWUP":
        if "T_lo" in p and "T_hi" in p:
            return (f"Σ(t) blows up in finite time, T* ∈ [{p['T_lo']}, {p['T_hi']}] "
                    f"(≈ [{approx(p['T_lo'])}, {approx(p['T_hi'])}])")
        if "T_hi" in p:
            return f"Σ(t) blows up in finite time, T* ≤ {p['T_hi']} (≈ {approx(p['T_hi'])})"
        return "Σ(t) blows up in finite time"
    if subject == "CLUSTERING":
        rank = p.get("rank")
        where = "" if rank is None else f" of rank {rank}"
        return f"the solution is global and Σ(t) converges to a limit{where}" + (" (collapse to a point)" if rank == 0 else "")
    if subject == "EQUILIBRIUM":
        if p.get("stationary"):
            r = p.get("rank")
            return "Σ(t) = Σ₀ for all t (Σ₀ is an equilibrium" + ("" if r is None else f" of rank {r}") + ")"
        if "Sigma_star" in p:
            return f"the solution is global and Σ(t) converges to the equilibrium Σ* = {mat_text(p['Sigma_star'])}"
        if "Sigma_mid" in p:
            return (f"the solution is global and Σ(t) converges to an equilibrium Σ* with |Σ*_ij − Sigma_mid_ij| ≤ {p['r']}, "
                    f"Sigma_mid = {mat_text(p['Sigma_mid'])}")
        return "the solution is global and Σ(t) converges to a positive definite equilibrium Σ*"
    if subject == "BOUNDED":
        if "return_time_lo" in p and "return_time_hi" in p:
            return ("Σ(t) exists for all t and stays bounded; it returns to a box on a Poincaré section "
                    f"at intervals in [{p['return_time_lo']}, {p['return_time_hi']}] "
                    f"(≈ [{approx(p['return_time_lo'])}, {approx(p['return_time_hi'])}])")
        return "Σ(t) exists for all t and stays bounded"
    if subject == "GLOBAL_EXISTENCE":
        g = p.get("gamma")
        if g is None:
            return "Σ(t) exists for all t and grows at most exponentially"
        bound = f"Σ(t) exists for all t and ‖Σ(t)‖ ≤ ‖Σ₀‖·e^(γt), γ = {g}"
        sign = _sign(g)
        if sign is not None and sign < 0:  # the bound then proves more than existence: say it
            return bound + " < 0, so Σ(t) → 0 exponentially fast (collapse to a point)"
        if sign == 0:
            return bound + ", so Σ(t) stays bounded by ‖Σ₀‖"
        return bound
    raise CertificationFailed(f"claim: unknown regime {subject!r}")


def _canon(obj) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Claim:
    """A claim: subject (regime or property), quantifier, parameters (JSON data).

    Parameters
    ----------
    subject : str
        A regime name (``"BLOWUP"``, …) or a registered property (:data:`PROPERTIES`).
    quantifier : Quantifier
        Which Σ₀ the claim covers.
    params : dict
        Exact parameters ("p/q" strings, ints, nested lists); compared canonically.
    """

    subject: str
    quantifier: Quantifier
    params: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.subject not in REGIME_SUBJECTS and self.subject not in _properties():
            raise CertificationFailed(f"claim: unknown subject {self.subject!r}")
        object.__setattr__(self, "quantifier", Quantifier(self.quantifier))
        object.__setattr__(self, "params", json.loads(_canon(dict(self.params))))

    # ---------------------------------------------------------------- meaning
    @property
    def regime(self) -> Regime | None:
        """The regime claimed, or None for a property claim."""
        return Regime(self.subject) if self.subject in REGIME_SUBJECTS else None

    @property
    def rank(self) -> int | None:
        """The ``rank`` parameter as an int, or None when absent."""
        r = self.params.get("rank")
        return int(r) if r is not None else None

    def text(self) -> str:
        """The claim in words, rendered from the data only.

        Returns
        -------
        str
            The text (prefixed by the quantifier's phrase unless it is NONE).
        """
        body = (_regime_text(self.subject, self.params) if self.regime is not None
                else _properties()[self.subject](self.params))
        q = self.quantifier
        if q is Quantifier.NONE:
            return body
        if q is Quantifier.EVERY_RANK:
            return f"for every Σ₀ ⪰ 0 of rank {self.params.get('sigma0_rank')}: {body}"
        if q is Quantifier.EVERY_IN_CELL:
            return f"at every interior point of the cell: {body}"
        if q is Quantifier.EVERY_PD_IN_CELL:
            return f"at every interior point of the cell where Σ₀ ≻ 0: {body}"
        return f"for {q.value}: {body}"

    # ---------------------------------------------------------------- data
    def to_dict(self) -> dict:
        """The claim as JSON data, with its rendered text.

        Returns
        -------
        dict
            Keys subject, quantifier, params, text.
        """
        return {"subject": self.subject, "quantifier": self.quantifier.value, "params": self.params,
                "text": self.text()}

    @classmethod
    def from_dict(cls, d) -> "Claim":
        """Read a claim from JSON data (the ``text`` field is ignored here;
        :meth:`Certificate.from_dict` compares it).

        Parameters
        ----------
        d : Mapping
            Keys subject, quantifier, params[, text].

        Returns
        -------
        Claim
            The claim (CertificationFailed for unknown fields or quantifier, wrong types or
            parameters that do not render).
        """
        if not isinstance(d, Mapping):
            raise CertificationFailed("claim: must be an object with subject, quantifier, params, text")
        extra = set(d) - {"subject", "quantifier", "params", "text"}
        if extra:
            raise CertificationFailed(f"claim: unknown field(s) {', '.join(sorted(map(str, extra)))}")
        try:
            q = Quantifier(d.get("quantifier"))
        except ValueError:
            raise CertificationFailed(f"claim: unknown quantifier {d.get('quantifier')!r}") from None
        if not isinstance(d.get("subject"), str) or not isinstance(d.get("params", {}), Mapping):
            raise CertificationFailed("claim: subject must be a string and params an object")
        try:
            claim = cls(d["subject"], q, dict(d.get("params", {})))
            claim.text()
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise CertificationFailed(f"claim: malformed parameters ({type(exc).__name__})") from None
        return claim

    def same_as(self, other: "Claim") -> bool:
        """Equality as data: same subject, quantifier and parameters (canonical JSON).

        Parameters
        ----------
        other : Claim
            The other claim.

        Returns
        -------
        bool
            Whether they are the same claim.
        """
        return (self.subject == other.subject and self.quantifier == other.quantifier
                and _canon(self.params) == _canon(other.params))

    # ---------------------------------------------------------------- coverage
    def covers(self, problem, cert_problem=None) -> tuple[bool, str]:
        """Does this claim decide ``problem``'s own Σ₀?  Exact; returns (yes, why-not).

        ``cert_problem`` is the problem embedded in the certificate; the parameters other than
        Σ₀ must be identical, and Σ₀ must satisfy the quantifier (exact rank/definiteness).

        Parameters
        ----------
        problem : Problem
            The problem to decide.
        cert_problem : Problem, optional
            The problem embedded in the certificate.

        Returns
        -------
        (bool, str)
            Whether the claim covers ``problem``'s Σ₀, and why not (empty when it does).
        """
        from ...spec.problem import problem_to_dict

        if self.regime is None:
            return False, "a property of the parameters, not a regime of Σ₀"
        if cert_problem is not None:
            a, b = problem_to_dict(problem), problem_to_dict(cert_problem)
            a.pop("initial", None), b.pop("initial", None)
            a.pop("T", None), b.pop("T", None)
            if _canon(a) != _canon(b):
                return False, "the certificate is about other parameters"
        q = self.quantifier
        if q is Quantifier.THIS:
            if cert_problem is None or problem.cov is None or cert_problem.cov != problem.cov:
                return False, "the claim is about another Σ₀"
            return True, ""
        if problem.cov is None:
            return False, "the problem has no Σ₀"
        from ...exact.definiteness import definiteness
        S = problem.exact.Sigma0
        dS = definiteness(S)
        if not dS.psd:
            return False, "Σ₀ is not positive semidefinite"
        if q is Quantifier.EVERY_PSD:
            return True, ""
        if q is Quantifier.EVERY_PD:
            return (True, "") if dS.pd else (False, f"the claim covers Σ₀ ≻ 0 only; this Σ₀ has rank {dS.pos}")
        if q is Quantifier.EVERY_NONZERO:
            return (True, "") if dS.pos > 0 else (False, "the claim covers Σ₀ ≠ 0 only")
        if q is Quantifier.EVERY_RANK:
            r = int(self.params.get("sigma0_rank", -1))
            return (True, "") if dS.pos == r else (False, f"the claim covers rank {r}; this Σ₀ has rank {dS.pos}")
        return False, f"quantifier {q.value!r} is not about a single problem's Σ₀"
