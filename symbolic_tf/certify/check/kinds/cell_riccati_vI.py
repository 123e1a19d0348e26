"""Independent checker of whole-cell certificates (kind ``cell-riccati-vI``) of regime maps.

Rebuilds the slice's matrix polynomials from the map spec with its own code (Σ₀ = S, R =
v·scale·(A + Aᵀ), f, Q = SRS, M = −2fS − Q) and re-decides each stored claim on the cell with
exact rationals (the checker's own centred-form enclosures, :mod:`.cell_enclosures`, exact for
affine pieces) and arb balls for g(f, t) = ∫₀ᵗ e^{2fs} ds.  See :mod:`symbolic_tf.certify.search.cell_riccati_vI`
for the mathematics; nothing here calls or imports the search side (only the exact primitives of
:mod:`symbolic_tf.exact` are shared).
"""
from __future__ import annotations

import flint

from ....exact.definiteness import inertia
from ....exact.precision import working_precision
from ....exact.rational import parse_frac
from ....spec.rational import to_fraction
from .. import Hypothesis, refusal
from ..claims import Claim
from ..cell_enclosures import MatPoly, pd_on_open_box, psd_on_box, rat, rat_box, scalar_range
from ..flows import single_quadratic_factor
from ..cells import bind_cell_claim, bind_outside_cell, cell_number, flow_reason, standalone_cell_kind

KIND = "cell-riccati-vI"

__all__ = ["KIND", "CellChecker", "check_cell"]


_fail = refusal("cell")


_T = "tests/soundness/forgeries/test_cells.py::"
HYPOTHESES = (
    Hypothesis("vI-slice", "The slice is one softmax-type head with V = vI and scale independent of (x, y), a drift "
               "F = fI or none, and an initial covariance: then P = Σ⁻¹ solves Ṗ = −2fP − R, R = v·scale·(A + Aᵀ).",
               _T + "test_slice_with_a_general_V"),
    Hypothesis("autonomous-gaussian", "The slice's problem has constant parameters (no depth schedule) and no ReLU "
               "term: the pencil is the flow of depth 0, which a schedule stops following and a ReLU term leaves.",
               _T + "test_slice_with_a_schedule_or_relu"),
    Hypothesis("sigma0-pd", "Σ₀(x, y) ≻ 0 on the open cell (a PROVED cell's claim is about positive definite Σ₀).",
               _T + "test_proved_cell_across_the_cone_boundary"),
    Hypothesis("outside-witness", "An OUTSIDE cell: a rational z with zᵀΣ₀(x, y)z ≤ 0 on the whole closed cell; it says "
               "regime OUTSIDE, states no rank or bracket and has the fixed words.", _T + "test_outside_cell_inside_the_domain"),
    Hypothesis("blowup-direction", "BLOWUP: zᵀΣ₀RΣ₀z > 0 and zᵀ(−2fΣ₀ − Σ₀RΣ₀)z < 0 on the cell, so ⟨z, P(t)z⟩ reaches 0 "
               "at every point.", _T + "test_blowup_certificate_moved_to_a_global_cell"),
    Hypothesis("T_hi", "g(f_lo, T_hi)·min zᵀΣ₀RΣ₀z ≥ max zᵀΣ₀z over the cell, g(f, t) = ∫₀ᵗ e^{2fs} ds (arb balls).",
               _T + "test_blowup_T_hi_too_small"),
    Hypothesis("T_lo", "T_lo ≥ 0 and, when T_lo > 0: g(f_hi, T_lo) ≤ Γ and Σ₀ − Γ·Σ₀RΣ₀ ⪰ 0 on the cell, so P(t) ≻ 0 "
               "before T_lo.", _T + "test_blowup_T_lo_too_large"),
    Hypothesis("global-argument", "The global argument named by `via` holds on the cell: the signs of f, R (through "
               "Σ₀RΣ₀) and −2fΣ₀ − Σ₀RΣ₀ it needs (collapse, bounded, equilibrium, exponential growth).",
               _T + "test_global_certificate_moved_to_a_blowup_cell"),
    Hypothesis("claim-bound", "The stored regime, rank, T_lo/T_hi and claim words are exactly the ones the argument "
               "derives (the argument decides the regime, never the label).", _T + "test_relabelled_cell"),
)


def _scalar_identity(M):
    n = len(M)
    c = parse_frac(M[0][0])
    for i in range(n):
        for j in range(n):
            if parse_frac(M[i][j]) != (c if i == j else 0):
                return None
    return c


def _parameters_problem(spec):
    """The slice's problem at the box's centre with Σ₀ replaced by I: its parameters (schedule, ReLU
    term) do not depend on the point, and the replacement keeps a cov slice parseable there."""
    import copy

    from ....spec.problem import parse_problem

    doc = copy.deepcopy(spec.problem_doc_at((spec.x_range[0] + spec.x_range[1]) / 2,
                                            (spec.y_range[0] + spec.y_range[1]) / 2))
    d = int(doc.get("d", 1))
    doc.setdefault("initial", {})["cov"] = [[int(i == j) for j in range(d)] for i in range(d)]
    return parse_problem(doc)


class CellChecker:
    """Checks cells of one map spec (the polynomials are built once)."""

    def __init__(self, spec):
        doc = spec.problem_doc
        factor = single_quadratic_factor(doc.get("variant"))
        if factor is None or "heads" in doc or "A" not in doc or "V" not in doc:
            _fail("the slice is not one quadratic (softmax-type) head with A and V")
        why = flow_reason(_parameters_problem(spec), "cell-riccati-vI cells")
        if why is not None:
            _fail(why)
        for name in ("V", "scale"):
            if any(p == name or p.startswith(name + "[") for p in spec.leaves):
                _fail(f"{name} depends on the coordinates")
        Vc = spec.field_affine("V")[0]
        v = _scalar_identity(Vc)
        if v is None:
            _fail("V is not a multiple of the identity")
        scale = to_fraction(doc.get("scale", 1), "scale") * factor
        A0, Ax, Ay = spec.field_affine("A")
        sym = lambda M: [[(parse_frac(M[i][j]) + parse_frac(M[j][i])) * v * scale for j in range(len(M))]
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
    def check(self, cell: dict, point: bool = False) -> Claim | None:
        """Re-verify one cell of the map: its claim re-derived over the closed cell box, and the
        stored status, regime, rank, bracket and claim text required to be exactly the derived ones.

        OUTSIDE cells need zᵀΣ₀z ≤ 0 on the cell (and say regime OUTSIDE); PROVED cells need Σ₀ ≻ 0
        on the open cell and the inequalities of their argument over it — BLOWUP (no ``via``):
        zᵀQz > 0, zᵀMz < 0 and the bracket through g(f, t) = ∫₀ᵗ e^{2fs} ds; the global arguments
        (``via``) the signs of f, M and Q = Σ₀RΣ₀ they need.  The argument decides the regime; the
        stored words are never trusted.

        Parameters
        ----------
        cell : dict
            One stored cell: ``box``, ``status``, ``regime``, ``rank``/``T_lo``/``T_hi``, ``claim``
            and ``certificate`` (``kind`` and ``data``).
        point : bool
            A point verdict (degenerate box): it carries no claim text.

        Returns
        -------
        Claim or None
            The derived claim (None for an OUTSIDE cell).

        Raises
        ------
        symbolic_tf.spec.errors.CertificationFailed
            When the cell's claim does not hold on the whole cell, or the stored words differ.
        """
        try:
            box = rat_box([cell_number(s) for s in cell["box"]])
        except (ValueError, TypeError):
            _fail("malformed box")
        cert = cell.get("certificate")
        if not isinstance(cert, dict) or cert.get("kind", KIND) != KIND:
            _fail(f"the certificate is not of kind {KIND}")
        status, data = cell.get("status"), cert.get("data")
        if not isinstance(data, dict):
            _fail("data must be an object")
        if status == "OUTSIDE":
            z = [cell_number(s) for s in data["z"]]
            if len(z) != self.S.nrows:
                _fail("z has the wrong length")
            _lo, hi = scalar_range(self.S.quad(z), box)
            self._need(hi <= 0, "OUTSIDE: zᵀΣ₀z ≤ 0 fails somewhere on the cell")
            bind_outside_cell(cell, _fail, text=not point)
            return None
        if status != "PROVED":
            _fail(f"status {str(status)[:20]!r} carries no certificate")
        self._need(pd_on_open_box(self.S, box), "Σ₀ is not positive definite on the open cell")
        via = data.get("via")
        if via is None:
            regime, params = "BLOWUP", self._blowup(box, data)
        elif via in self._GLOBAL:
            regime, params = self._GLOBAL[via](self, box)
        else:
            _fail(f"unknown argument via {str(via)[:40]!r}")
        return bind_cell_claim(cell, regime, params, _fail, text=not point)

    def _blowup(self, box, data) -> dict:
        """zᵀQz > 0 and zᵀMz < 0 on the cell (blow-up at every point), and the bracket: the
        params {T_lo, T_hi?} the data prove."""
        z = [cell_number(s) for s in data["z"]]
        if len(z) != self.S.nrows:
            _fail("z has the wrong length")
        n_lo, _ = scalar_range(self.Q.quad(z), box)
        self._need(n_lo > 0, "BLOWUP: zᵀΣ₀RΣ₀z > 0 fails on the cell")
        _, m_hi = scalar_range(self.M.quad(z), box)
        self._need(m_hi < 0, "BLOWUP: zᵀ(−2fΣ₀ − Σ₀RΣ₀)z < 0 fails on the cell")
        f_lo, f_hi = scalar_range(self.f, box)
        params = {}
        if data.get("t_hi") is not None:
            t_hi = rat(cell_number(data["t_hi"]))
            _, q_hi = scalar_range(self.S.quad(z), box)
            lhs = self._g_bounds(f_lo, t_hi) * flint.arb(n_lo)
            self._need(t_hi > 0 and lhs.lower() >= flint.arb(q_hi), "BLOWUP: g(f_lo, t_hi)·min zᵀQz ≥ max zᵀΣ₀z fails")
            params["T_hi"] = data["t_hi"]
        t_lo = rat(cell_number(data.get("t_lo", "0")))
        if t_lo < 0:
            _fail("negative t_lo")
        if t_lo > 0:
            G = rat(cell_number(data["Gamma"]))
            self._need(self._g_bounds(f_hi, t_lo).upper() <= flint.arb(G), "BLOWUP: g(f_hi, t_lo) ≤ Γ fails")
            K = self.S - self.Q.times(G)
            self._need(G >= 0 and psd_on_box(K, box), "BLOWUP: Σ₀ − Γ·Σ₀RΣ₀ ⪰ 0 fails on the cell")
        params["T_lo"] = data.get("t_lo", "0")
        return params

    # the global arguments: via -> (regime, params) after checking the signs the argument needs
    def _below_threshold(self, box):
        self._need(pd_on_open_box(-self.f, box), "f < 0 fails on the cell")
        self._need(pd_on_open_box(self.M, box), "−2fΣ₀ − Σ₀RΣ₀ ≻ 0 fails on the cell")
        return "CLUSTERING", {"rank": 0}

    def _no_drift_contracting(self, box):
        self._need(self._nsd_Q(box), "R ⪯ 0 (Σ₀RΣ₀ ⪯ 0) fails on the cell")
        self._need(self.f_zero and pd_on_open_box(-self.Q, box), "R ≺ 0 with f ≡ 0 fails")
        return "CLUSTERING", {"rank": 0}

    def _drift_contracting(self, box):
        self._need(self._nsd_Q(box), "R ⪯ 0 (Σ₀RΣ₀ ⪯ 0) fails on the cell")
        self._need(pd_on_open_box(-self.f, box), "f < 0 fails on the cell")
        return "CLUSTERING", {"rank": 0}

    def _no_drift_nsd(self, box):
        self._need(self._nsd_Q(box), "R ⪯ 0 (Σ₀RΣ₀ ⪯ 0) fails on the cell")
        self._need(self.f_zero, "BOUNDED needs f ≡ 0")
        return "BOUNDED", {}

    def _drift_equilibrium(self, box):
        self._need(self._nsd_Q(box), "R ⪯ 0 (Σ₀RΣ₀ ⪯ 0) fails on the cell")
        self._need(pd_on_open_box(self.f, box), "f > 0 fails on the cell")
        self._need(pd_on_open_box(-self.Q, box), "R ≺ 0 fails on the cell")
        return "EQUILIBRIUM", {}

    def _nsd(self, box):
        self._need(self._nsd_Q(box), "R ⪯ 0 (Σ₀RΣ₀ ⪯ 0) fails on the cell")
        return "GLOBAL_EXISTENCE", {}

    _GLOBAL = {"below-threshold": _below_threshold, "no-drift-contracting": _no_drift_contracting,
               "drift-contracting": _drift_contracting, "no-drift-nsd": _no_drift_nsd,
               "drift-equilibrium": _drift_equilibrium, "nsd": _nsd}


def check_cell(spec, cell: dict) -> Claim | None:
    """Re-verify one cell of a map of ``spec`` (raises CertificationFailed).

    Parameters
    ----------
    spec : symbolic_tf.spec.mapspec.MapSpec
        The parsed map spec the cell belongs to.
    cell : dict
        The stored cell.

    Returns
    -------
    Claim or None
        The derived claim (None for an OUTSIDE cell).
    """
    return CellChecker(spec).check(cell)


_check_standalone = standalone_cell_kind(KIND, HYPOTHESES, CellChecker, _fail)
