"""Forgery tools for the whole-cell kinds (cell-tube, cell-basin, cell-grid): a standalone cell certificate
is data = {"spec", "cell"}, and its claim is rendered from the cell (regime, rank or bracket, box) and the
SHA-256 of the spec.  :func:`recell` edits the spec, the cell or its certificate's data and re-renders every
dependent field — the cell's claim sentence and the certificate's claim — so that only the mathematics is
wrong.  The oracle helpers give the exact covariance problem at a point of a cov-disk slice."""
from __future__ import annotations

import copy
import hashlib
import json
from fractions import Fraction
from pathlib import Path

from symbolic_tf.certify.check.claims import REGIME_SUBJECTS, Claim, Quantifier
from symbolic_tf.certify.check.cells import cell_claim
from symbolic_tf.spec.problem import parse_problem

DATA = Path(__file__).resolve().parent / "data"


def load(name: str) -> dict:
    """A committed genuine certificate, tests/soundness/forgeries/data/<name>.json."""
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def save(name: str, cert: dict, compact: bool = False) -> None:
    """Write a regenerated genuine certificate (used by the test files' ``_regenerate``)."""
    text = json.dumps(cert, ensure_ascii=False, **({"separators": (",", ":")} if compact else {"indent": 1}))
    (DATA / f"{name}.json").write_text(text + "\n", encoding="utf-8")


def spec_sha(spec: dict) -> str:
    return hashlib.sha256(json.dumps(spec, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def recell(cert: dict, *, spec=None, cell=None, data=None, kind: str | None = None,
           pd_only: bool | None = None) -> dict:
    """A consistent forgery of a standalone cell certificate.

    ``spec``, ``cell`` and ``data`` are functions editing (in place) the embedded map spec, the cell and the
    cell's certificate data; ``kind`` replaces the cell's certificate kind; ``pd_only`` chooses the quantifier
    (default: the genuine one).  The cell's claim sentence is re-rendered from its regime, rank and bracket,
    and the certificate's claim from the cell and the spec's hash."""
    m = copy.deepcopy(cert)
    d = m["data"]
    if spec is not None:
        spec(d["spec"])
    c = d["cell"]
    if cell is not None:
        cell(c)
    if data is not None:
        data(c["certificate"]["data"])
    if kind is not None:
        c["certificate"]["kind"] = kind
    q = Quantifier(m["claim"]["quantifier"])
    if pd_only is not None:
        q = Quantifier.EVERY_PD_IN_CELL if pd_only else Quantifier.EVERY_IN_CELL
    params = {k: c[k] for k in ("rank", "T_lo", "T_hi") if c.get(k) is not None}
    if c.get("regime") in REGIME_SUBJECTS:
        c["claim"] = cell_claim(c["regime"], params, q is Quantifier.EVERY_PD_IN_CELL).text()
    subject = c["regime"] if c.get("regime") in REGIME_SUBJECTS else m["claim"]["subject"]
    params.update(box=[str(x) for x in c["box"]], spec_sha256=spec_sha(d["spec"]))
    m["claim"] = Claim(subject, q, params).to_dict()
    return m


def box_of(cert: dict) -> tuple:
    return tuple(Fraction(b) for b in cert["data"]["cell"]["box"])


def disk_sigma0(x, y) -> list:
    """Σ₀(u, w) = ½[[1 + u, w], [w, 1 − u]] of the cov-disk family, as floats."""
    x, y = float(x), float(y)
    return [[(1 + x) / 2, y / 2], [y / 2, (1 - x) / 2]]


def cell_points(cert: dict) -> list:
    """The centre and four points near the corners of the cell (inside the open cell)."""
    x0, x1, y0, y1 = box_of(cert)
    xc, yc = (x0 + x1) / 2, (y0 + y1) / 2
    out = [(xc, yc)]
    for fx in (Fraction(1, 8), Fraction(7, 8)):
        for fy in (Fraction(1, 8), Fraction(7, 8)):
            out.append((x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)))
    return out


def problem_of(spec: dict, Sigma0=None, **changes):
    """The exact (constant-parameter) problem of a cov-disk spec with some fields changed, and Σ₀ when given."""
    doc = {k: v for k, v in copy.deepcopy(spec["problem"]).items() if k not in ("initial", "phase", "relu")}
    doc.update(changes)
    doc["initial"] = {"cov": [[str(Fraction(e).limit_denominator(10 ** 12)) for e in row] for row in
                              (Sigma0 or [[1, 0], [0, 1]])]}
    return parse_problem(doc)


#: a ReLU feed-forward term that is exactly the linear map x ↦ c·x in d = 2: ReLU(u) − ReLU(−u) = u
def linear_relu(c) -> dict:
    c = str(Fraction(c))
    neg = str(-Fraction(c))
    return {"W1": [[1, 0], [0, 1], [-1, 0], [0, -1]], "W2": [[c, 0, neg, 0], [0, c, 0, neg]]}


def indefinite_on(box) -> bool:
    """Whether Σ₀(u, w) of the cov-disk family has a negative eigenvalue at the centre and near the corners of
    the box (floats, numpy): no covariance lies there, so no regime sentence about the cell is true."""
    import numpy as np

    x0, x1, y0, y1 = (Fraction(b) for b in box)
    pts = [(x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)) for fx in (Fraction(1, 8), Fraction(1, 2), Fraction(7, 8))
           for fy in (Fraction(1, 8), Fraction(1, 2), Fraction(7, 8))]
    return all(np.linalg.eigvalsh(np.array(disk_sigma0(x, y))).min() < 0 for x, y in pts)
