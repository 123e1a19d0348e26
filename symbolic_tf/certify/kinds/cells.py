"""Independent checker of whole-cell certificates (kind ``cell-riccati-vI``) of regime maps.

Rebuilds the slice's matrix polynomials from the map spec with its own code (Σ₀ = S, R =
v·scale·(A + Aᵀ), f, Q = SRS, M = −2fS − Q) and re-decides each stored claim on the cell with
exact rationals (the checker's own centred-form enclosures, :mod:`.cell_enclosures`, exact for
affine pieces) and arb balls for g(f, t) = ∫₀ᵗ e^{2fs} ds.  See :mod:`symbolic_tf.certify.cells`
for the mathematics; nothing here calls or imports the search side (only the exact primitives of
:mod:`symbolic_tf.exact` are shared).
"""
from __future__ import annotations

from fractions import Fraction

import flint

from ...exact.definiteness import inertia
from ...exact.precision import working_precision
from ...spec.errors import CertificationFailed
from ...spec.mapspec import parse_map_spec
from ...spec.rational import to_fraction
from ...variants import single_quadratic_factor
from ..check import kind
from ..claims import REGIME_SUBJECTS, Claim, Quantifier
from ..schema import parse_rat
from .cell_enclosures import MatPoly, pd_on_open_box, psd_on_box, rat, rat_box, scalar_range

KIND = "cell-riccati-vI"

__all__ = ["KIND", "CellChecker", "check_cell", "standalone_cell_claim"]


def _fail(msg):
    raise CertificationFailed(f"cell certificate: {msg}")


def _num(s):
    """A cell's number: an int or a "p/q" string within the schema limits (never "1e99999999")."""
    return parse_rat(s, "cell")


def _scalar_identity(M):
    n = len(M)
    c = Fraction(M[0][0])
    for i in range(n):
        for j in range(n):
            if Fraction(M[i][j]) != (c if i == j else 0):
                return None
    return c


class CellChecker:
    """Checks cells of one map spec (the polynomials are built once)."""

    def __init__(self, spec):
        doc = spec.problem_doc
        factor = single_quadratic_factor(doc.get("variant"))
        if factor is None or "heads" in doc or "A" not in doc or "V" not in doc:
            _fail("the slice is not one quadratic (softmax-type) head with A and V")
        for name in ("V", "scale"):
            if any(p == name or p.startswith(name + "[") for p in spec.leaves):
                _fail(f"{name} depends on the coordinates")
        Vc = spec.field_affine("V")[0]
        v = _scalar_identity(Vc)
        if v is None:
            _fail("V is not a multiple of the identity")
        scale = to_fraction(doc.get("scale", 1), "scale") * factor
        A0, Ax, Ay = spec.field_affine("A")
        sym = lambda M: [[(Fraction(M[i][j]) + Fraction(M[j][i])) * v * scale for j in range(len(M))]
                         for i in range(len(M))]
        self.R = MatPoly.affine(sym(A0), sym(Ax), sym(Ay))
        if "F" in doc:
            fs = [_scalar_identity(C) for C in spec.field_affine("F")]
            if any(c is None for c in fs):
                _fail("F is not a multiple of the identity")
            self.f = MatPoly.affine([[fs[0]]], [[fs[1]]], [[fs[2]]])
        else:
            self.f = MatPoly.constant([[0]])
        c = spec.cov_affine()
        if c is None:
            _fail("the spec has no initial covariance")
        self.S = MatPoly.affine(*c)
        self.Q = self.S @ self.R @ self.S
        self.M = self.S.times(self.f).times(-2) - self.Q
        self.f_zero = not self.f.terms  # f ≡ 0

    # --- primitives -----------------------------------------------------------------
    @staticmethod
    def _g_bounds(f, t):
        with working_precision(160):
            if f == 0:
                return flint.arb(t)
            return flint.arb(2 * f * t).expm1() / flint.arb(2 * f)

    def _need(self, ok, what):
        if not ok:
            _fail(what)

    def _nsd_Q(self, box):
        if self.R.degree == 0:
            return inertia(self.R.constant_term())[0] == 0
        return psd_on_box(-self.Q, box)

    # --- one cell ---------------------------------------------------------------------
    def check(self, cell: dict) -> None:
        """Re-verify one cell of the map: its claim re-decided over the closed cell box.

        OUTSIDE cells need zᵀΣ₀z ≤ 0 on the cell; PROVED cells need Σ₀ ≻ 0 on the open cell and the
        regime's inequalities over it (BLOWUP: zᵀQz > 0, zᵀMz < 0 and the bracket through
        g(f, t) = ∫₀ᵗ e^{2fs} ds; CLUSTERING, BOUNDED, EQUILIBRIUM: the signs of f, M and Q = Σ₀RΣ₀ that
        their argument ``via`` needs).

        Parameters
        ----------
        cell : dict
            One stored cell: ``box``, ``status``, ``regime``, ``T_lo``/``T_hi`` and ``certificate.data``.

        Raises
        ------
        symbolic_tf.spec.errors.CertificationFailed
            When the cell's claim does not hold on the whole cell.
        """
        try:
            box = rat_box([_num(s) for s in cell["box"]])
        except ValueError:
            _fail("malformed box")
        status, regime, data = cell["status"], cell.get("regime"), cell.get("certificate", {}).get("data", {})
        if status == "OUTSIDE":
            z = [_num(s) for s in data["z"]]
            _lo, hi = scalar_range(self.S.quad(z), box)
            self._need(hi <= 0, "OUTSIDE: zᵀΣ₀z ≤ 0 fails somewhere on the cell")
            return
        if status != "PROVED":
            _fail(f"status {status!r} carries no certificate")
        self._need(pd_on_open_box(self.S, box), "Σ₀ is not positive definite on the open cell")
        negQ = -self.Q
        if regime == "BLOWUP":
            z = [_num(s) for s in data["z"]]
            n_lo, _ = scalar_range(self.Q.quad(z), box)
            self._need(n_lo > 0, "BLOWUP: zᵀΣ₀RΣ₀z > 0 fails on the cell")
            _, m_hi = scalar_range(self.M.quad(z), box)
            self._need(m_hi < 0, "BLOWUP: zᵀ(−2fΣ₀ − Σ₀RΣ₀)z < 0 fails on the cell")
            f_lo, f_hi = scalar_range(self.f, box)
            if data.get("t_hi") is not None:
                t_hi = rat(_num(data["t_hi"]))
                if cell.get("T_hi") is None or _num(cell["T_hi"]) != _num(data["t_hi"]):
                    _fail("T_hi differs from the certificate's t_hi")
                _, q_hi = scalar_range(self.S.quad(z), box)
                lhs = self._g_bounds(f_lo, t_hi) * flint.arb(n_lo)
                self._need(t_hi > 0 and lhs.lower() >= flint.arb(q_hi), "BLOWUP: g(f_lo, t_hi)·min zᵀQz ≥ max zᵀΣ₀z fails")
            elif cell.get("T_hi") is not None:
                _fail("T_hi claimed without t_hi data")
            t_lo = rat(_num(data.get("t_lo", "0")))
            if _num(cell.get("T_lo", "0")) != _num(data.get("t_lo", "0")):
                _fail("T_lo differs from the certificate's t_lo")
            if t_lo < 0:
                _fail("negative t_lo")
            if t_lo > 0:
                G = rat(_num(data["Gamma"]))
                self._need(self._g_bounds(f_hi, t_lo).upper() <= flint.arb(G), "BLOWUP: g(f_hi, t_lo) ≤ Γ fails")
                K = self.S - self.Q.times(G)
                self._need(G >= 0 and psd_on_box(K, box), "BLOWUP: Σ₀ − Γ·Σ₀RΣ₀ ⪰ 0 fails on the cell")
            return
        via = data.get("via")
        if regime == "CLUSTERING" and via == "below-threshold":
            self._need(pd_on_open_box(-self.f, box), "f < 0 fails on the cell")
            self._need(pd_on_open_box(self.M, box), "−2fΣ₀ − Σ₀RΣ₀ ≻ 0 fails on the cell")
            self._need(cell.get("rank") == 0, "collapse has rank 0")
            return
        self._need(self._nsd_Q(box), f"{regime}: R ⪯ 0 (Σ₀RΣ₀ ⪯ 0) fails on the cell")
        if regime == "CLUSTERING" and via == "no-drift-contracting":
            self._need(self.f_zero and pd_on_open_box(negQ, box), "R ≺ 0 with f ≡ 0 fails")
            self._need(cell.get("rank") == 0, "collapse has rank 0")
        elif regime == "CLUSTERING" and via == "drift-contracting":
            self._need(pd_on_open_box(-self.f, box), "f < 0 fails on the cell")
            self._need(cell.get("rank") == 0, "collapse has rank 0")
        elif regime == "BOUNDED":
            self._need(self.f_zero, "BOUNDED needs f ≡ 0")
        elif regime == "EQUILIBRIUM":
            self._need(pd_on_open_box(self.f, box), "f > 0 fails on the cell")
            self._need(pd_on_open_box(negQ, box), "R ≺ 0 fails on the cell")
        elif regime != "EXPONENTIAL_GROWTH":
            _fail(f"unknown regime/argument {regime!r}/{via!r}")


def check_cell(spec, cell: dict) -> None:
    """Re-verify one cell of a map of ``spec`` (raises CertificationFailed).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The parsed map spec the cell belongs to.
    cell : dict
        The stored cell.
    """
    CellChecker(spec).check(cell)


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
    symbolic_tf.certify.claims.Claim
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


@kind(KIND, {"spec": "obj", "cell": "obj"}, needs_problem=False)
def _check_standalone(cert, problem):
    """A single cell exported as a certificate: data = {"spec": map spec, "cell": cell}.
    PROVED: the cell's regime at every interior point of its box."""
    return "PROVED", standalone_cell_claim(cert.data, check_cell, _fail)
