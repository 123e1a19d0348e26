"""Where a validated tube crosses a Poincaré section: the checker-side enclosure of the crossing
points (shared by the kinds that certify a return map, :mod:`symbolic_tf.certify.check.kinds.tube_return`
and :mod:`symbolic_tf.certify.check.kinds.tube_rotation_return`).  Mathematics: docs/mathematics.md §8 ("Returns
to a section").

The section is the coordinate hyperplane {z_j = c} of the field's ``vec`` coordinates z, crossed in
the sense s = ±1 (s = +1: z_j increases through c).  Given the boxes S_0 … S_N of a replayed tube
(S_i ∋ z(t_i) for every solution from the tube's initial set) the crossing *window* is the last
stretch [t_a, t_N] of the tube with

* s·(z_j − c) < 0 on S_a and s·(z_j − c) > 0 on S_N (strictly, in balls);
* s·f_j > 0 on H, the hull of the step enclosures of steps a+1 … N
  (:func:`~symbolic_tf.certify.check.tube_replay.step_range`: every solution over [t_{i−1}, t_i]).

Then every solution crosses the section exactly once in (t_a, t_N) (intermediate values, and z_j is
strictly monotone there), at a time τ; and for every m ∈ {a, …, N}

    z(τ) − z(t_m) = ∫_{t_m}^{τ} f dt = ∫_{t_m}^{τ} (f/f_j)·f_j dt ∈ R·(c − z_j(t_m)),

R = f(H)/f_j(H) componentwise (balls): f_j has one sign on the path between t_m and τ, which lies
in H, so the mean-value theorem for integrals with the one-signed weight f_j puts each component of
the integral in R_k·∫ f_j dt = R_k·(c − z_j(t_m)).  Each m gives an enclosure z(t_m) + R·(c − z_j(t_m))
(with z(t_m) ∈ S_m); the crossing points lie in their intersection, whose coordinate j is c exactly.
When the tube also encloses z(t_m) in a parallelepiped p + B·r (Lohner's wrapping), the same
enclosure is evaluated as p_y + R_y·(c − p_j) + (B_y − R_y·B_j)·r (rows of B): the spread of the
box along the flow — the start points' different phases, |f|·Δτ — moves z_y and z_j together
and cancels in B_y − R_y·B_j, where the box form adds it twice.  Both forms are enclosures; the
intersection of all of them is returned.
"""
from __future__ import annotations

import flint

from .krawczyk_box import rat
from .tube_replay import step_range

__all__ = ["SECTION_SCHEMA", "SECTION_MAX_D", "crossing_enclosure", "crossing_of_states", "box_column", "box_matrix",
           "column_inside", "section_data"]

#: the schema of the section and its box, the fields :func:`section_data` reads (first in a return kind's data)
SECTION_SCHEMA = {"section": "int", "level": "rat", "sense": ("enum", "increasing", "decreasing"),
                  "box_lo": "rat[]", "box_hi": "rat[]"}
#: the largest dimension d of a return kind (m = d(d+1)/2 section coordinates)
SECTION_MAX_D = 4

#: the longest crossing window (steps) a checker scans back from the tube's end
MAX_WINDOW = 400


def section_data(data, m: int, fail):
    """The section and its box from a certificate's data (``section``, ``level``, ``sense``, ``box_lo``,
    ``box_hi``), validated: 0 ≤ j < m, m corners each, lo ≤ hi, and lo_j = hi_j = c (the box lies on
    the section).

    Parameters
    ----------
    data : dict
        The certificate's data (already schema-checked).
    m : int
        The number of the section space's coordinates.
    fail : callable
        ``fail(msg)`` raises (never returns).

    Returns
    -------
    tuple of (int, flint.fmpq, int, list of flint.fmpq, list of flint.fmpq)
        (j, c, sense ±1, lo, hi).
    """
    j = data["section"]
    if not isinstance(j, int) or isinstance(j, bool) or not 0 <= j < m:
        fail(f"section must be an integer in [0, {m - 1}]")
    if len(data["box_lo"]) != m or len(data["box_hi"]) != m:
        fail(f"box_lo and box_hi must have m = {m} entries")
    lo, hi, c = [rat(x) for x in data["box_lo"]], [rat(x) for x in data["box_hi"]], rat(data["level"])
    if any(a > b for a, b in zip(lo, hi)):
        fail("box_lo must not exceed box_hi")
    if lo[j] != c or hi[j] != c:
        fail("the box must lie on the section: box_lo and box_hi equal the level in the section's coordinate")
    return j, c, 1 if data["sense"] == "increasing" else -1, lo, hi


def box_column(lo, hi):
    """The ball column containing the box [lo_k, hi_k] (exact rationals): each entry is the union of
    the two point balls, which contains the interval between them.

    Parameters
    ----------
    lo, hi : list of flint.fmpq
        The box's corners, lo_k ≤ hi_k.

    Returns
    -------
    flint.arb_mat
        The m×1 ball column.
    """
    return flint.arb_mat(len(lo), 1, [flint.arb(a).union(flint.arb(b)) for a, b in zip(lo, hi)])


def box_matrix(lo, hi, d):
    """The symmetric d×d ball matrix containing the box of svec-upper coordinates [lo_k, hi_k]
    (:func:`box_column`, unpacked by :meth:`~symbolic_tf.certify.check.tube_replay.Field.unvec`).

    Parameters
    ----------
    lo, hi : list of flint.fmpq
        The box's corners, lo_k ≤ hi_k, m = d(d+1)/2 entries.
    d : int
        The dimension.

    Returns
    -------
    flint.arb_mat
        The ball matrix.
    """
    from .tube_replay import Field

    return Field.unvec(box_column(lo, hi), flint.arb_mat(d, d))


def column_inside(z, lo, hi, skip=None) -> bool:
    """Whether every ball z_k (k ≠ ``skip``) lies in [lo_k, hi_k] (certain: lo_k ≤ lower(z_k), upper(z_k) ≤ hi_k).

    Parameters
    ----------
    z : flint.arb_mat
        An m×1 ball column.
    lo, hi : list of flint.fmpq
        The box's corners.
    skip : int or None
        A coordinate not tested (the section's, which a crossing enclosure holds exactly).

    Returns
    -------
    bool
        True when the whole ball column lies in the box.
    """
    return all(flint.arb(lo[k]) <= z[k, 0] and z[k, 0] <= flint.arb(hi[k]) for k in range(len(lo)) if k != skip)


def crossing_enclosure(field, boxes, ts, j: int, c, sense: int, order: int, fail, frames=None):
    """The enclosure of the points where every solution of the tube crosses {z_j = c} in the window at
    the tube's end (module docstring).

    Parameters
    ----------
    field : symbolic_tf.certify.check.tube_replay.Field
        The vector field (``__call__``, ``coefficients``, ``vec``).
    boxes : list of flint.arb_mat
        The tube's boxes S_0 … S_N (matrices).
    ts : list of flint.fmpq
        The exact times t_0 … t_N.
    j : int
        The section's coordinate (an index of ``field.vec``).
    c : flint.fmpq
        The section's level.
    sense : int
        +1 (z_j increases through c) or −1.
    order : int
        The Taylor order of the step enclosures.
    fail : callable
        ``fail(msg)`` raises (never returns).
    frames : list or None
        Per box, a parallelepiped (p, B, r) with z(t_i) ∈ p + B·r (``field.vec`` coordinates), or None.

    Returns
    -------
    tuple of (flint.arb_mat, flint.fmpq, flint.fmpq)
        (the m×1 ball column ∋ every crossing point, its coordinate j exactly c; t_a; t_N): every
        solution crosses the section once in (t_a, t_N).
    """
    N = len(ts) - 1
    cb = flint.arb(c)
    vecs = {}

    def v(i):
        if i not in vecs:
            vecs[i] = field.vec(boxes[i])
        return vecs[i]

    def past(i):      # s·(z_j − c) > 0 on S_i, certainly
        return (v(i)[j, 0] - cb) * sense > 0

    def before(i):    # s·(z_j − c) < 0 on S_i, certainly
        return (v(i)[j, 0] - cb) * sense < 0

    if N < 1 or not past(N):
        fail("the tube's end is not past the section")
    a = next((i for i in range(N - 1, max(-1, N - 1 - MAX_WINDOW), -1) if before(i)), None)
    if a is None:
        fail(f"no tube box before the section within the last {MAX_WINDOW} steps")
    H = None
    for i in range(a + 1, N + 1):
        Y = step_range(field, boxes[i - 1], flint.arb(ts[i] - ts[i - 1]), order)
        if Y is None:
            fail(f"the a priori enclosure of step {i} fails")
        H = Y if H is None else _hull(H, Y)
    fH = field.vec(field(H))
    m = fH.nrows()
    if not fH[j, 0] * sense > 0:
        fail("the flow is not transversal to the section over the crossing window")
    R = [fH[k, 0] / fH[j, 0] for k in range(m)]
    E = None
    for i in range(a, N + 1):
        gap = cb - v(i)[j, 0]
        forms = [[v(i)[k, 0] + R[k] * gap for k in range(m)]]
        if frames is not None and frames[i] is not None:
            forms.append(_frame_form(frames[i], R, j, cb))
        for e in forms:
            if E is None:
                E = e
                continue
            try:
                E = [x.intersection(y) for x, y in zip(E, e)]
            except ValueError:
                fail("the crossing enclosures of the window are disjoint")
    E[j] = cb
    return flint.arb_mat(m, 1, E), ts[a], ts[N]


def crossing_of_states(field, states, ts, j: int, c, sense: int, order: int, fail, qr: bool = True):
    """:func:`crossing_enclosure` for the states of a replayed tube
    (:class:`~symbolic_tf.certify.check.tube_replay.TubeState`: the boxes, and with ``qr`` their parallelepipeds).

    Parameters
    ----------
    field : object
        The vector field.
    states : list of symbolic_tf.certify.check.tube_replay.TubeState
        The tube's states at the times ``ts``.
    ts : list of flint.fmpq
        The exact times.
    j : int
        The section's coordinate.
    c : flint.fmpq
        The section's level.
    sense : int
        +1 or −1.
    order : int
        The Taylor order of the step enclosures.
    fail : callable
        ``fail(msg)`` raises (never returns).
    qr : bool
        Whether the states carry valid parallelepipeds (Lohner's "qr" wrapping).

    Returns
    -------
    tuple of (flint.arb_mat, flint.fmpq, flint.fmpq)
        As :func:`crossing_enclosure`.
    """
    frames = [(st.center, st.basis, st.coords) for st in states] if qr else None
    return crossing_enclosure(field, [st.box for st in states], ts, j, c, sense, order, fail, frames=frames)


def _frame_form(frame, R, j, cb):
    """p_k + R_k·(c − p_j) + Σ_l (B_kl − R_k·B_jl)·r_l for every k (module docstring)."""
    p, B, r = frame
    m = p.nrows()
    out = []
    for k in range(m):
        acc = p[k, 0] + R[k] * (cb - p[j, 0])
        for col in range(B.ncols()):
            acc += (B[k, col] - R[k] * B[j, col]) * r[col, 0]
        out.append(acc)
    return out


def _hull(X, Y):
    Z = flint.arb_mat(X.nrows(), X.ncols())
    for a in range(X.nrows()):
        for b in range(X.ncols()):
            Z[a, b] = X[a, b].union(Y[a, b])
    return Z
