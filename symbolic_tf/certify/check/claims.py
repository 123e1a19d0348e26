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
from fractions import Fraction
from typing import Any, Mapping

from ...spec.errors import CertificationFailed

__all__ = ["Regime", "Quantifier", "Claim", "PROPERTIES", "REGIME_SUBJECTS"]


class Regime(str, Enum):
    """The regimes of a covariance flow (a ``str`` so ``regime == "BLOWUP"`` keeps working)."""

    CLUSTERING = "CLUSTERING"
    EQUILIBRIUM = "EQUILIBRIUM"
    BOUNDED = "BOUNDED"
    EXPONENTIAL_GROWTH = "EXPONENTIAL_GROWTH"
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

#: subjects that are properties, not regimes: name -> renderer(params) -> words
PROPERTIES: dict[str, Any] = {}


def _approx(s) -> str:
    from .schema import parse_rat

    try:  # "p/q" within the limits only: Fraction("1e99999999") would build a huge integer
        return f"{float(parse_rat(s)):.10g}"
    except (CertificationFailed, ZeroDivisionError, OverflowError):
        return "?"


def _mat_text(M) -> str:
    return "[" + "; ".join(", ".join(str(x) for x in row) for row in M) + "]"


def _regime_text(subject: str, p: Mapping) -> str:
    if subject == "BLOWUP":
        if "T_lo" in p and "T_hi" in p:
            return (f"Σ(t) blows up in finite time, T* ∈ [{p['T_lo']}, {p['T_hi']}] "
                    f"(≈ [{_approx(p['T_lo'])}, {_approx(p['T_hi'])}])")
        if "T_hi" in p:
            return f"Σ(t) blows up in finite time, T* ≤ {p['T_hi']} (≈ {_approx(p['T_hi'])})"
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
            return f"the solution is global and Σ(t) converges to the equilibrium Σ* = {_mat_text(p['Sigma_star'])}"
        if "Sigma_mid" in p:
            return (f"the solution is global and Σ(t) converges to an equilibrium Σ* with |Σ*_ij − Sigma_mid_ij| ≤ {p['r']}, "
                    f"Sigma_mid = {_mat_text(p['Sigma_mid'])}")
        return "the solution is global and Σ(t) converges to a positive definite equilibrium Σ*"
    if subject == "BOUNDED":
        if "return_time_lo" in p and "return_time_hi" in p:
            return ("Σ(t) exists for all t and stays bounded; it returns to a box on a Poincaré section "
                    f"at intervals in [{p['return_time_lo']}, {p['return_time_hi']}] "
                    f"(≈ [{_approx(p['return_time_lo'])}, {_approx(p['return_time_hi'])}])")
        return "Σ(t) exists for all t and stays bounded"
    if subject == "EXPONENTIAL_GROWTH":
        g = p.get("gamma")
        return "Σ(t) exists for all t and grows at most exponentially" + (
            f": ‖Σ(t)‖ ≤ ‖Σ₀‖·e^(γt), γ = {g}" if g is not None else "")
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
        if self.subject not in REGIME_SUBJECTS and self.subject not in PROPERTIES:
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
                else PROPERTIES[self.subject](self.params))
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
        from ...exact.rational import qmat

        S = qmat(problem.cov)
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


# ------------------------------------------------------------------------------------------
# properties (claims that are not a regime of one Σ₀); each renders its words from params
# ------------------------------------------------------------------------------------------
EQ_PART_TEXT = {
    "exists-unique": ("Σ̇ = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ has exactly one equilibrium Σ* among the symmetric Σ "
                      "with |Σ_ij − Sigma_mid_ij| ≤ r for all i, j"),
    "pd": "Σ* is positive definite",
    "stable": "Σ* is locally exponentially stable (the linearisation on symmetric matrices is Hurwitz)",
    "unstable": "Σ* is unstable (the linearisation has an eigenvalue with positive real part)",
    "mean": ("along every solution with Σ(t) → Σ* the mean converges to α* = −M*⁻¹b, "
             "M* = F + V + VΣ*A Hurwitz, with |α*_i − alpha_mid_i| ≤ alpha_rad_i"),
}
EQ_PART_ORDER = ("exists-unique", "pd", "stable", "unstable", "mean")


def _property(name):
    def deco(fn):
        PROPERTIES[name] = fn
        return fn
    return deco


@_property("equilibrium-enclosure")
def _eq_enclosure(p):
    parts = [c for c in EQ_PART_ORDER if c in p.get("parts", [])]
    alpha = (f", alpha_mid = [{', '.join(str(x) for x in p['alpha_mid'])}], alpha_rad = "
             f"[{', '.join(str(x) for x in p.get('alpha_rad', []))}]" if "alpha_mid" in p else "")
    return ("; ".join(EQ_PART_TEXT[c] for c in parts)
            + f" (r = {p.get('r')}, Sigma_mid = {_mat_text(p.get('Sigma_mid', []))}{alpha})")


@_property("nonconvexity")
def _nonconvex(p):
    return (f"the interaction energy of softmax with A = {_mat_text(p.get('A', []))} is not λ-convex along "
            f"Wasserstein geodesics for any λ > {p.get('lambda_bound')} (≈ {_approx(p.get('lambda_bound'))})")


@_property("batch-blowup")
def _batch(p):
    return (f"softmax with V = vI, v = {p.get('v')}, A = {_mat_text(p.get('A', []))}: each of the {p.get('members')} "
            f"listed Σ₀ ≻ 0 with a bracket blows up at a T* inside its bracket [T_lo, T_hi]")


_HEAD_TEXT = {"symA_nsd": "A_h + A_hᵀ ⪯ 0",
              "identity_value_blowup": "with V = I the Gaussian flow of A_h blows up from every Σ₀ ≻ 0",
              "conjecture_hypothesis": "C_hA_h + A_hᵀC_hᵀ ⪯ 0"}


@_property("head-property")
def _head(p):
    return (f"checkpoint sha256 {str(p.get('sha256'))[:12]}…, layer {p.get('layer')}, head {p.get('head')} "
            f"(d_h = {p.get('head_dim')}): {_HEAD_TEXT.get(p.get('verdict'), '?')}")


@_property("head-eigenline-blowup")
def _head_eig(p):
    return (f"checkpoint sha256 {str(p.get('sha256'))[:12]}…, layer {p.get('layer')}, head {p.get('head')} "
            f"(d_h = {p.get('head_dim')}): the "
            f"single-head Gaussian flow (A = A_h, V = C_h) blows up in finite time from the rank-one Σ₀ = ûûᵀ on "
            f"the real eigenline of C_h with eigenvalue in [{p.get('v_lo')}, {p.get('v_hi')}]")


@_property("matrix-identity")
def _matrix_identity(p):
    """A matrix-form identity for every dimension (docs/mathematics.md §10)."""
    hyps = p.get("hypotheses", [])
    where = ("; ".join(str(h) for h in hyps)) if isinstance(hyps, list) and hyps else "no hypothesis"
    return (f"«{p.get('name')}»: for every dimension d ≥ 1 and all real matrices {p.get('symbols')} with {where}, "
            f"wherever every inverse written exists: {p.get('identity')}")


@_property("twisted-gaussian-nonconvexity")
def _twisted_gaussian(p):
    """Non-convexity on Gaussians along a twisted geodesic (docs/mathematics.md §7)."""
    return (f"the softmax interaction energy E(N(0, Σ)) = ½det(I − AᵀΣAΣ)^(-1/2) with A = {_mat_text(p.get('A', []))}, "
            f"V = {_mat_text(p.get('V', []))} is not λ-convex for any λ ≥ 0 along the twisted Gaussian geodesics "
            f"Σ_s = (I + sVA⁻¹B)Σ(I + sVA⁻¹B)ᵀ: at Σ = {_mat_text(p.get('Sigma', []))}, B = {_mat_text(p.get('B', []))}, "
            "d²E/ds² < 0")


@_property("gaussian-curve-nonconvexity")
def _gaussian_curve(p):
    """Non-convexity on Gaussians along one curve (I + sN)Σ(I + sN)ᵀ, any A (docs/mathematics.md §7)."""
    return (f"the softmax interaction energy E(N(0, Σ)) = ½det(I − AᵀΣAΣ)^(-1/2) with A = {_mat_text(p.get('A', []))} "
            f"is not convex along the curve Σ_s = (I + sN)Σ(I + sN)ᵀ, N = {_mat_text(p.get('N', []))}, at "
            f"Σ = {_mat_text(p.get('Sigma', []))}: d²E/ds² < 0 (so not along every such curve)")


@_property("twisted-gaussian-convexity")
def _twisted_convexity(p):
    """Convexity on Gaussians along every twisted geodesic, A = Aᵀ definite (docs/mathematics.md §7);
    along every curve (I + sN)Σ(I + sN)ᵀ when A = Aᵀ is semidefinite and singular."""
    if str(p.get("definite", "")).endswith("semidefinite"):
        return (f"the softmax interaction energy E(N(0, Σ)) = ½det(I − AᵀΣAΣ)^(-1/2) with A = {_mat_text(p.get('A', []))} "
                f"(symmetric, {p.get('definite')}, singular: no twisted metric VA⁻¹) is convex (d²E/ds² ≥ 0) along "
                "every curve Σ_s = (I + sN)Σ(I + sN)ᵀ, N any, through every Σ ≻ 0 of finite energy")
    return (f"the softmax interaction energy E(N(0, Σ)) = ½det(I − AᵀΣAΣ)^(-1/2) with A = {_mat_text(p.get('A', []))} "
            f"(symmetric, {p.get('definite')} definite) is convex (d²E/ds² ≥ 0) along every twisted Gaussian geodesic "
            "Σ_s = (I + sVA⁻¹B)Σ(I + sVA⁻¹B)ᵀ, B = Bᵀ, through every Σ ≻ 0 of finite energy, for every value matrix V")


@_property("twisted-rotation-scaling-convexity")
def _twisted_rotation_scaling(p):
    """Convexity on Gaussians along every twisted geodesic of one pair A = aI + bJ (b² ≤ 3a²), V = vI in
    d = 2 (docs/mathematics.md §7, "A fixed pair")."""
    return (f"the softmax interaction energy E(N(0, Σ)) = ½det(I − AᵀΣAΣ)^(-1/2) with A = {_mat_text(p.get('A', []))} "
            f"(rotation–scaling, b² ≤ 3a²) and V = {_mat_text(p.get('V', []))} is convex (d²E/ds² ≥ 0) along every "
            "twisted Gaussian geodesic Σ_s = (I + sVA⁻¹B)Σ(I + sVA⁻¹B)ᵀ, B = Bᵀ, through every Σ ≻ 0 of finite energy")


@_property("schedule-endpoint")
def _schedule_endpoint(p):
    """A depth schedule's end point enclosed in a box (docs/schedules.md)."""
    return (f"the solution exists on [0, T], T = {p.get('T')}, and Σ(T) lies entrywise in the box "
            f"[{_mat_text(p.get('lo', []))}, {_mat_text(p.get('hi', []))}]")
