"""Forgeries of ``no-blowup`` certificates (symbolic_tf/certify/check/kinds/no_blowup.py, HYPOTHESES): each
violates one hypothesis of the norm-growth argument, γ and the claim recomputed where a forger could.

The helpers are shared with test_growth_theorem.py (the same bounds under a replayed theorem)."""
from __future__ import annotations

from fractions import Fraction as Fr

from symbolic_tf.spec.problem import parse_problem

from .forge import accepts, edited, forge, q, rejects

SINKHORN = {"variant": "sinkhorn", "d": 2, "A": [["1", "0"], ["0", "1"]], "V": [["1", "1/3"], ["0", "1"]],
            "initial": {"cov": [["1", "1/4"], ["1/4", "1/2"]]}}
L2 = {"variant": "l2", "d": 2, "Q": [["1", "0"], ["0", "1"]], "K": [["2", "1"], ["0", "1"]],
      "V": [["1", "0"], ["0", "1"]], "initial": {"cov": [["1", "1/4"], ["1/4", "1/2"]]}}


def genuine(kind, doc):
    """The library's certificate of ``kind`` for ``doc`` (checked)."""
    if kind == "no-blowup":
        from symbolic_tf.certify.search._growth import no_blowup as search
    else:
        from symbolic_tf.certify.search.matrix_proofs._growth import growth_certificate as search
    ver = search(parse_problem(doc))
    assert ver.status == "PROVED", ver.reason
    c = ver.evidence["certificate"]
    assert c["kind"] == kind
    accepts(c)
    return c


def rate(data, doc):
    """γ by the kind's formula from the (forged) data: what a forger recomputes."""
    uV, uF = Fr(data["u_V"]), Fr(data["u_F"])
    if doc["variant"] == "sinkhorn" or "g" not in data:
        return 2 * (uV + uF)
    return 2 * uV * Fr(data["u_A"]) * Fr(doc.get("scale", 1)) / Fr(data["g"]) + 2 * uF


def with_data(cert, doc=None, **changes):
    """A forgery with ``changes`` in the data (None drops a key), γ recomputed, claim re-rendered."""
    data = dict(cert["data"])
    for k, v in changes.items():
        if v is None:
            data.pop(k, None)
        else:
            data[k] = q(v)
    doc = doc if doc is not None else cert["problem"]
    data["gamma"] = q(rate(data, doc))
    return forge(cert, data={**data, **{k: None for k, v in changes.items() if v is None}},
                 problem=doc, params={"gamma": data["gamma"]})


def doc_with(doc, **kw):
    return edited(doc, **kw)


# ---------------------------------------------------------------- the forgeries, per hypothesis
def variant_without_growth_bound(kind):
    c = genuine(kind, SINKHORN)
    # softmax with A = I blows up (T* = 1/λ_max(Σ₀^½(A + Aᵀ)Σ₀^½) for V = I): no growth bound
    rejects(forge(c, problem=doc_with(SINKHORN, variant="softmax")), "no growth theorem for variant 'softmax'")
    mh = {"variant": "multihead", "d": 2, "heads": [{"variant": "softmax", "A": SINKHORN["A"], "V": SINKHORN["V"]}],
          "initial": SINKHORN["initial"]}
    rejects(forge(c, problem=mh), "no growth theorem for variant 'multihead'")


def schedule(kind):
    c = genuine(kind, SINKHORN)
    doc = doc_with(SINKHORN, phase=[{"duration": "1/2"}, {"duration": 1, "V": [["3", "0"], ["0", "3"]]}])
    rejects(forge(c, problem=doc), "constant parameters only")


def u_V_too_small(kind):
    for doc in (SINKHORN, L2):
        c = genuine(kind, doc)
        rejects(with_data(c, u_V=Fr(c["data"]["u_V"]) / 2), "u_V is not an upper bound of ‖V‖_F")


def drift_not_bounded(kind):
    c = genuine(kind, SINKHORN)
    # a drift F = I adds 2‖F‖₂ = 2 to the rate; u_F = 0 does not bound it
    rejects(with_data(c, doc_with(SINKHORN, F=[["1", "0"], ["0", "1"]])), "u_F is not an upper bound of ‖F‖_F")
    rejects(with_data(c, u_F=-1), "u_F must be non-negative")
    # a true bound on the drift is accepted, with the larger rate
    accepts(with_data(c, doc_with(SINKHORN, F=[["1", "0"], ["0", "1"]]), u_F=Fr(3, 2)))


def l2_data_dropped(kind):
    c = genuine(kind, L2)
    # the Sinkhorn formula 2(u_V + u_F) on an ℓ2 problem, without its kernel bounds
    rejects(with_data(c, u_A=None, g=None), "the ℓ2 bound needs u_A and g")


def u_A_too_small(kind):
    c = genuine(kind, L2)
    rejects(with_data(c, u_A=Fr(c["data"]["u_A"]) / 2), "u_A is not an upper bound of ‖A‖_F")


def g_too_large(kind):
    c = genuine(kind, L2)
    rejects(with_data(c, g=2 * Fr(c["data"]["g"])), "g is not a positive lower bound of λ_min")
    rejects(with_data(c, g=-1), "g is not a positive lower bound")
    # the same data with a singular K (A = KᵀQ changes with it, u_A re-bounded): λ_min(KᵀK) = 0
    doc = doc_with(L2, K=[["1", "1"], ["0", "0"]])
    rejects(with_data(c, doc, u_A=2), "g is not a positive lower bound")
    # the temperature enters G = τKᵀK: τ = 1/4 makes g too large
    rejects(with_data(c, doc_with(L2, scale="1/4")), "g is not a positive lower bound")


def gamma_too_small(kind):
    for doc in (SINKHORN, L2):
        c = genuine(kind, doc)
        g = Fr(c["data"]["gamma"]) / 2
        rejects(forge(c, data={"gamma": q(g)}, params={"gamma": q(g)}), "γ = .* does not follow from the bounds")
    # the temperature τ = 2 doubles the ℓ2 rate: the stored γ is now too small
    c = genuine(kind, L2)
    rejects(forge(c, problem=doc_with(L2, scale="2")), "does not follow from the bounds")


def test_variant_without_growth_bound():
    variant_without_growth_bound("no-blowup")


def test_schedule():
    schedule("no-blowup")


def test_u_V_too_small():
    u_V_too_small("no-blowup")


def test_drift_not_bounded():
    drift_not_bounded("no-blowup")


def test_l2_data_dropped():
    l2_data_dropped("no-blowup")


def test_u_A_too_small():
    u_A_too_small("no-blowup")


def test_g_too_large():
    g_too_large("no-blowup")


def test_gamma_too_small():
    gamma_too_small("no-blowup")
