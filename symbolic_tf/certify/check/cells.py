"""What every whole-cell kind of a regime map shares (``cell-riccati-vI``, ``cell-tube``, ``cell-basin``,
``cell-grid``): the claim of a cell, its binding to the stored regime, rank, bracket and words, the OUTSIDE
cell, the flow hypotheses of a slice and the standalone cell certificate (a cell exported with its spec).
"""
from __future__ import annotations

from ...spec.mapspec import parse_map_spec
from . import Hypothesis, kind
from .claims import REGIME_SUBJECTS, Claim, Quantifier
from .cell_enclosures import MatPoly, rat_box, scalar_range
from .schema import parse_rat, validate
from .tube_replay import flow_pairs

__all__ = ["OUTSIDE_TEXT", "CellChecker", "bind_cell_claim", "bind_outside_cell", "cell_claim", "cell_number", "centre_problem",
           "cell_hypotheses", "check_outside_cell", "flow_reason", "open_cell", "standalone_cell_claim",
           "standalone_cell_kind"]


def cell_number(s):
    """A cell's number: an int or a "p/q" string within the schema limits (never "1e99999999").

    Parameters
    ----------
    s : int or str
        The stored number.

    Returns
    -------
    Fraction
        Its exact value.
    """
    return parse_rat(s, "cell")


#: the words of an OUTSIDE cell (a fixed sentence: the cell is outside the map's domain)
OUTSIDE_TEXT = "Σ₀ is not positive definite at any point of the cell (outside the map's domain)"


def flow_reason(problem, what: str) -> str | None:
    """None when the slice's problem has an autonomous Gaussian-closed covariance flow, else why not.

    The cell checkers replay or analyse the constant-parameter field Σ̇ = Σ_h(C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ)
    + FΣ + ΣFᵀ; :func:`~symbolic_tf.certify.check.flows.quadratic_heads` reads the parameters at depth 0 and
    ignores a schedule and a ReLU term, so both are refused here.

    Parameters
    ----------
    problem : symbolic_tf.spec.problem.Problem
        The slice's problem at a point (its schedule and ReLU term do not depend on the point).
    what : str
        The certificate family, for the message.

    Returns
    -------
    str or None
        None, or the failed hypothesis in words.
    """
    if problem.schedule is not None:
        return (f"{what} need constant parameters: the problem has a depth schedule, "
                "so the flow is not the autonomous field the certificate analyses")
    if problem.relu is not None:
        return (f"{what} need a Gaussian-closed flow: the problem has a ReLU feed-forward term, "
                "so Σ does not follow the covariance equation")
    return None



def cell_claim(regime: str, params: dict, pd_only: bool = False) -> Claim:
    """The claim of a cell: the regime (with rank or T* bracket) at every interior point of the cell, or,
    for a cell that meets the boundary of the cone, at every interior point where Σ₀ ≻ 0.

    Parameters
    ----------
    regime : str
        The regime name.
    params : dict
        ``rank`` or ``T_lo``/``T_hi``.
    pd_only : bool, optional
        Whether the claim covers only the cell's positive definite points.

    Returns
    -------
    Claim
        ``Claim(regime, EVERY_IN_CELL or EVERY_PD_IN_CELL, params)``.
    """
    return Claim(regime, Quantifier.EVERY_PD_IN_CELL if pd_only else Quantifier.EVERY_IN_CELL, params)



def bind_outside_cell(cell: dict, fail, text: bool = True) -> None:
    """An OUTSIDE witness proves only "outside the domain": the cell says regime OUTSIDE, states no
    rank or bracket and (``text``) carries :data:`OUTSIDE_TEXT`.

    Parameters
    ----------
    cell : dict
        The stored cell.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed`.
    text : bool
        Whether the cell carries claim text (a point verdict does not).
    """
    if cell.get("regime") != "OUTSIDE":
        fail("an OUTSIDE cell must say regime OUTSIDE")
    if any(cell.get(k) is not None for k in ("rank", "T_lo", "T_hi")):
        fail("an OUTSIDE cell states no rank or bracket")
    if text and cell.get("claim") != OUTSIDE_TEXT:
        fail("the claim text of an OUTSIDE cell is not the derived one (Σ₀ is not positive definite on the cell)")



def bind_cell_claim(cell: dict, regime: str, params: dict, fail, pd_only: bool = False, text: bool = True) -> Claim:
    """The claim a checker derived for a cell — ``regime`` with ``params`` (rank or T_lo/T_hi) at
    every interior point of the cell (or, ``pd_only``, at its points where Σ₀ ≻ 0) — after requiring
    that the cell's stored regime, rank, bracket and (``text``) claim text are exactly the derived ones.

    Parameters
    ----------
    cell : dict
        The stored cell.
    regime : str
        The derived regime.
    params : dict
        The derived ``rank`` or ``T_lo``/``T_hi``.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed`.
    pd_only : bool
        Whether the derived claim covers only the cell's positive definite points.
    text : bool
        Whether the cell carries claim text (a point verdict does not).

    Returns
    -------
    Claim
        :func:`cell_claim` (regime, params, pd_only).
    """
    claim = cell_claim(regime, params, pd_only)
    if cell.get("regime") != regime:
        fail(f"the cell says {str(cell.get('regime'))[:20]}, the certificate proves {regime}")
    for key in ("rank", "T_lo", "T_hi"):
        stored, derived = cell.get(key), params.get(key)
        if (stored is None) != (derived is None) or (stored is not None and cell_number(stored) != cell_number(derived)):
            fail(f"{key} differs from the derived claim")
    if text and cell.get("claim") != claim.text():
        if pd_only and cell.get("claim") == cell_claim(regime, params).text():
            fail("Σ₀ ≻ 0 fails somewhere on the open cell: the claim covers only the cell's points where Σ₀ ≻ 0")
        fail("the claim text is not the derived claim")
    return claim



def standalone_cell_claim(data: dict, check_one, fail) -> Claim:
    """The claim of a single map cell exported as a certificate, data = {"spec": map spec, "cell": cell}:
    the spec is parsed, ``check_one(spec, cell)`` re-verifies the cell (it raises on failure), and only a
    PROVED regime cell is a claim — its regime at every interior point of its box, bound to the spec by
    its SHA-256.

    Parameters
    ----------
    data : dict
        The certificate's data.
    check_one : callable
        ``check_one(spec, cell)`` re-verifies the cell (a kind's checker).
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed` (never returns).

    Returns
    -------
    symbolic_tf.certify.check.claims.Claim
        ``Claim(regime, q, {"box", "spec_sha256", and T_lo/T_hi/rank when stated})`` with the quantifier q
        of the checker's derived claim (EVERY_IN_CELL, or EVERY_PD_IN_CELL for a cell on the cone's
        boundary).
    """
    import hashlib
    import json

    from ...spec.errors import SymtfError

    try:
        spec = parse_map_spec(data["spec"])
    except SymtfError as exc:
        fail(f"invalid map spec: {exc}")
    cell = data["cell"]
    derived = check_one(spec, cell)
    if cell.get("regime") not in REGIME_SUBJECTS or cell.get("status") != "PROVED":
        fail("only a PROVED regime cell is a standalone claim")
    spec_hash = hashlib.sha256(json.dumps(data["spec"], sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    params = {"box": [str(x) for x in cell["box"]], "spec_sha256": spec_hash}
    for k in ("T_lo", "T_hi", "rank"):
        if cell.get(k) is not None:
            params[k] = cell[k]
    quantifier = derived.quantifier if isinstance(derived, Claim) else Quantifier.EVERY_IN_CELL
    return Claim(cell["regime"], quantifier, params)


def check_outside_cell(S, box, cell, data, fail) -> None:
    """An OUTSIDE cell: Σ₀ is not positive definite at any point of the closed cell, shown by a
    rational z with zᵀΣ₀(x, y)z ≤ 0 on the whole box (an exact range of a polynomial in (x, y)); the
    cell must say regime OUTSIDE, state no rank or bracket, and carry :data:`OUTSIDE_TEXT`.

    Parameters
    ----------
    S : symbolic_tf.certify.check.cell_enclosures.MatPoly
        Σ₀(x, y), affine.
    box : tuple of 4 flint.fmpq
        The closed cell.
    cell : dict
        The stored cell (its ``regime`` must be OUTSIDE).
    data : dict
        The certificate's data ``{"z": [...]}``.
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed`.
    """
    validate(data, {"z": "rat[]"}, "cell.data")
    z = [parse_rat(s, "cell") for s in data["z"]]
    if len(z) != S.nrows:
        fail("z has the wrong length")
    _lo, hi = scalar_range(S.quad(z), box)
    if not hi <= 0:
        fail("OUTSIDE: zᵀΣ₀z ≤ 0 fails somewhere on the cell")
    bind_outside_cell(cell, fail)


def open_cell(cell: dict, kind_name: str, S, fail):
    """The common opening of a whole-cell checker: the exact box, the certificate's kind and data;
    an OUTSIDE cell is checked here (:func:`check_outside_cell`).

    Parameters
    ----------
    cell : dict
        The stored cell.
    kind_name : str
        The kind the checker covers.
    S : symbolic_tf.certify.check.cell_enclosures.MatPoly
        Σ₀(x, y).
    fail : callable
        ``fail(msg)`` raises :class:`~symbolic_tf.spec.errors.CertificationFailed`.

    Returns
    -------
    tuple or None
        (box as 4 fmpq, data) of a PROVED cell; None for a verified OUTSIDE cell.
    """
    try:
        box = rat_box([parse_rat(s, "cell") for s in cell["box"]])
    except (ValueError, KeyError, TypeError):
        fail("malformed box")
    cert = cell.get("certificate") or {}
    if cert.get("kind") != kind_name:
        fail(f"kind {str(cert.get('kind'))[:40]!r} is not {kind_name}")
    data = cert.get("data")
    if not isinstance(data, dict):
        fail("data must be an object")
    status = cell.get("status")
    if status == "OUTSIDE":
        check_outside_cell(S, box, cell, data, fail)
        return None
    if status != "PROVED":
        fail(f"status {str(status)[:20]!r} carries no certificate")
    return box, data


def centre_problem(spec):
    """The problem at the centre of a map's slice (where a whole-cell kind reads the slice's flow).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The map spec.

    Returns
    -------
    symbolic_tf.spec.problem.Problem
        The problem at the midpoint of the x and y ranges.
    """
    return spec.problem_at((spec.x_range[0] + spec.x_range[1]) / 2, (spec.y_range[0] + spec.y_range[1]) / 2)


class CellChecker:
    """A whole-cell checker of one map spec: :meth:`check` opens a stored cell (:func:`open_cell`),
    and a subclass's ``check_proved(cell, box, data)`` re-verifies a PROVED one.

    Attributes
    ----------
    kind_name : str
        The kind the checker covers.
    fail : callable
        ``fail(msg)`` raises the kind's :class:`~symbolic_tf.spec.errors.CertificationFailed`.
    S : symbolic_tf.certify.check.cell_enclosures.MatPoly
        Σ₀(x, y), set by the subclass (:meth:`read_slice`).
    """

    kind_name: str = ""

    def read_slice(self, spec, route_reason):
        """Refuse a spec the kind does not cover, then read the slice: the flow at its centre, Σ₀(x, y).

        Sets ``pairs`` (the flow's exact and arb pairs), ``cov`` (C₀, C_x, C_y) and ``S``.

        Parameters
        ----------
        spec : symbolic_tf.spec.mapspec.MapSpec
            The map spec.
        route_reason : callable
            The kind's ``route_reason(spec)``: None when the kind covers the spec, else why not.

        Returns
        -------
        tuple
            The centre problem (:func:`centre_problem`) and its drift F.
        """
        reason = route_reason(spec)
        if reason is not None:
            self.fail(reason)
        centre = centre_problem(spec)
        self.pairs, F = flow_pairs(centre, self.fail)
        self.cov = spec.cov_affine()
        self.S = MatPoly.affine(*self.cov)
        return centre, F

    def check(self, cell: dict) -> Claim | None:
        """Re-verify one stored cell; returns its derived claim (None for an OUTSIDE cell).

        Parameters
        ----------
        cell : dict
            The stored cell: ``box``, ``status``, ``regime``, ``claim``, ``rank`` or ``T_lo``/``T_hi``,
            and ``certificate`` (``kind`` the checker's kind, ``data``).

        Returns
        -------
        symbolic_tf.certify.check.claims.Claim or None
            The claim derived from the data.

        Raises
        ------
        symbolic_tf.spec.errors.CertificationFailed
            When anything does not verify or the stored claim differs from the derived one.
        """
        opened = open_cell(cell, self.kind_name, self.S, self.fail)
        if opened is None:
            return None
        return self.check_proved(cell, *opened)


def cell_hypotheses(name: str, reads_as: str, tests: str, quantifier: str = "quantifier",
                    outside: str = "zᵀΣ₀z ≤ 0 on the closed cell") -> tuple:
    """The hypotheses every whole-cell kind ends with: claim-text, proved-cell and kind.

    Parameters
    ----------
    name : str
        The kind's name (``"cell-basin"``, …).
    reads_as : str
        What the kind's data are read as (``"a basin"``, …).
    tests : str
        The forgery tests' path prefix (``"tests/…/file.py::"``).
    quantifier : str
        How the claim-text hypothesis names the claim's quantifier.
    outside : str
        The evidence of an OUTSIDE cell, as the proved-cell hypothesis words it.

    Returns
    -------
    tuple of Hypothesis
        The three hypotheses, in this order.
    """
    return (
        Hypothesis("claim-text", f"The cell's claim sentence and the certificate's claim (subject, {quantifier}, box, "
                   "spec hash, rank or bracket) are rendered from the derived regime and parameters.",
                   tests + "test_a_swapped_claim_sentence"),
        Hypothesis("proved-cell", "Only a PROVED cell carries a regime claim; an OUTSIDE cell proves only that Σ₀ is "
                   f"not positive definite on the cell ({outside}): it says regime OUTSIDE and states no rank, "
                   "bracket or other sentence.", tests + "test_an_outside_cell_with_a_regime_claim"),
        Hypothesis("kind", f"The cell's certificate is of kind {name}, so its data are read as {reads_as}.",
                   tests + "test_a_certificate_of_another_kind"),
    )


def standalone_cell_kind(name: str, hypotheses: tuple, checker, fail):
    """Declare the kind of a single map cell exported as a certificate (:func:`standalone_cell_claim`).

    Parameters
    ----------
    name : str
        The kind's name.
    hypotheses : tuple of Hypothesis
        The kind's hypotheses.
    checker : type
        The kind's cell checker: ``checker(spec).check(cell)`` re-verifies one cell.
    fail : callable
        The kind's ``fail(msg)`` (raises, with the kind's message prefix).

    Returns
    -------
    callable
        The registered derivation ``(cert, problem) -> ("PROVED", Claim)``.
    """
    def derive(cert, problem):
        """A single cell exported as a certificate: data = {"spec": map spec, "cell": cell}.
    PROVED: the cell's regime at every interior point of its box."""
        return "PROVED", standalone_cell_claim(cert.data, lambda spec, cell: checker(spec).check(cell), fail)

    # the kind's documentation page names its checker by module and name: the kind's own module
    derive.__module__, derive.__name__, derive.__qualname__ = checker.__module__, "_check_standalone", "_check_standalone"
    return kind(name, {"spec": "obj", "cell": "obj"}, needs_problem=False, hypotheses=hypotheses,
                cell_checker=checker)(derive)
