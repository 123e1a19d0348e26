"""The matrix-form proofs of docs/mathematics.md §3, §4 and §10, for every dimension d.

Each function returns a proof document (:mod:`.replay`) built step by step with the rules of
:mod:`.rules`; :func:`all_proofs` lists them by name.  The Gaussian facts a closure starts
from (the mean of a tilted Gaussian, the conditional mean of a Gaussian coupling, the second
moment) enter as *stated equations* of the hypotheses, so each proof shows exactly which
algebra turns the fact into the closure (J, c) or the covariance equation.
"""
from __future__ import annotations

from ._build import I, Proof, S, T, add, ddt, inv, logdet, mul, neg, num, sc, sub, tr

__all__ = ["all_proofs", "proof", "NAMES", "trace_identity_statement", "COV_SOFTMAX", "theorem", "THEOREMS",
           "sinkhorn_gradient_statement", "sinkhorn_gradient_witness", "write_theorems"]

dd = ("d", "d")
dv = ("d", "1")
kd = ("k", "d")

Sg, A, V = S("Sigma"), S("A"), S("V")
COV_SOFTMAX = add(mul(V, Sg, A, Sg), mul(Sg, T(A), Sg, T(V)))
CONST = {"A": num(0), "V": num(0)}


def inverse_identity_vI():
    """Softmax with V = I: d/dt Σ⁻¹ = −(A + Aᵀ) (docs/mathematics.md §4).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    p = Proof("softmax V = I: d/dt Σ⁻¹ = −(A + Aᵀ)", {"A": dd, "V": dd, "Sigma": dd, "Sigma'": dd},
              ddt(inv(Sg)), neg(add(A, T(A))), symmetric=["Sigma"], positive=["Sigma"],
              equations=[(S("Sigma'"), COV_SOFTMAX), (V, I)],
              derivatives={"Sigma": S("Sigma'"), **CONST})
    return p.step("differentiate").step("substitute", equation=0).step("substitute", equation=1).step("cancel").done()


def trace_identity_statement(symmetric_v: bool):
    """The unfinished proof of d/dt tr(V⁻¹Σ) = tr(Σ(A + Aᵀ)Σ) along the softmax covariance equation
    Σ̇ = VΣAΣ + ΣAᵀΣVᵀ, with V declared symmetric or not (no steps yet).

    Parameters
    ----------
    symmetric_v : bool
        Whether the hypotheses declare V = Vᵀ.

    Returns
    -------
    Proof
        The builder, ready for its steps.
    """
    sym = ["Sigma", "V"] if symmetric_v else ["Sigma"]
    name = "softmax, V = Vᵀ: d/dt tr(V⁻¹Σ) = tr(Σ(A + Aᵀ)Σ)" if symmetric_v else \
        "softmax, any invertible V: d/dt tr(V⁻¹Σ) = tr(Σ(A + Aᵀ)Σ)"
    return Proof(name, {"A": dd, "V": dd, "Sigma": dd, "Sigma'": dd},
                 ddt(tr(mul(inv(V), Sg))), tr(mul(Sg, add(A, T(A)), Sg)), symmetric=sym, positive=["Sigma"],
                 equations=[(S("Sigma'"), COV_SOFTMAX)], derivatives={"Sigma": S("Sigma'"), **CONST})


def trace_identity_symmetric():
    """Softmax with V = Vᵀ: d/dt tr(V⁻¹Σ) = tr(Σ(A + Aᵀ)Σ) (docs/mathematics.md §4).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    p = trace_identity_statement(True)
    return (p.step("differentiate").step("substitute", equation=0).step("symmetric", names=["V"])
            .step("trace").step("trace", on="rhs").done())


def homogeneity():
    """Σ_c(t) := cΣ(ct) solves the softmax equation when Σ does: with S = Σ(ct),
    d/dt S = c·Ṡ(ct) and Ṡ(ct) = VSAS + SAᵀSVᵀ, d/dt(cS) = V(cS)A(cS) + (cS)Aᵀ(cS)Vᵀ;
    hence T*(cΣ₀) = T*(Σ₀)/c (docs/mathematics.md §4).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    Sp = add(mul(V, S("S"), A, S("S")), mul(S("S"), T(A), S("S"), T(V)))
    cS = mul(sc("c"), S("S"))
    p = Proof("homogeneity: cΣ(ct) solves the softmax covariance equation",
              {"A": dd, "V": dd, "S": dd, "Sdot": dd}, ddt(cS),
              add(mul(V, cS, A, cS), mul(cS, T(A), cS, T(V))), scalars=["c"], symmetric=["S"],
              equations=[(S("Sdot"), Sp)], derivatives={"S": mul(sc("c"), S("Sdot")), "c": num(0), **CONST})
    return p.step("differentiate").step("substitute", equation=0).done()


def homogeneity_multihead():
    """The same for two heads with C_h = W_hV_h: Σ̇ = Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ) is homogeneous of degree 2.

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    def Q(X):
        return add(*[add(mul(S(f"C_{h}"), X, S(f"A_{h}"), X), mul(X, T(S(f"A_{h}")), X, T(S(f"C_{h}")))) for h in (1, 2)])
    cS = mul(sc("c"), S("S"))
    mats = {"S": dd, "Sdot": dd, "A_1": dd, "A_2": dd, "C_1": dd, "C_2": dd}
    p = Proof("homogeneity (multi-head): cΣ(ct) solves the multi-head covariance equation", mats, ddt(cS), Q(cS),
              scalars=["c"], symmetric=["S"], equations=[(S("Sdot"), Q(S("S")))],
              derivatives={"S": mul(sc("c"), S("Sdot")), "c": num(0),
                           **{k: num(0) for k in ("A_1", "A_2", "C_1", "C_2")}})
    return p.step("differentiate").step("substitute", equation=0).done()


def tilting():
    """Completing the square (the tilting lemma, docs/mathematics.md §3): with M = Σ⁻¹ − H
    (H symmetric) and m = M⁻¹(Σ⁻¹α + g),
    −½(y−α)ᵀΣ⁻¹(y−α) + ½yᵀHy + yᵀg = −½(y−m)ᵀM(y−m) + ½mᵀMm − ½αᵀΣ⁻¹α,
    so the tilted law ∝ e^{½yᵀHy + yᵀg} N(α, Σ) is N(m, M⁻¹) (when M ≻ 0).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    y, al, g, M, m = S("y"), S("alpha"), S("g"), S("M"), S("m")
    Si = inv(Sg)
    half = num("1/2")
    lhs = add(mul(num("-1/2"), T(sub(y, al)), Si, sub(y, al)), mul(half, T(y), S("H"), y), mul(T(y), g))
    rhs = add(mul(num("-1/2"), T(sub(y, m)), M, sub(y, m)), mul(half, T(m), M, m), mul(num("-1/2"), T(al), Si, al))
    p = Proof("tilting lemma: completing the square", {"Sigma": dd, "H": dd, "M": dd, "y": dv, "alpha": dv, "g": dv,
                                                       "m": dv},
              lhs, rhs, symmetric=["Sigma", "H", "M"], positive=["Sigma"],
              equations=[(M, sub(Si, S("H"))), (m, mul(inv(M), add(mul(Si, al), g)))])
    p.step("transpose").step("transpose", on="rhs")
    p.step("substitute", on="rhs", equation=1).step("symmetric", on="rhs", names=["Sigma", "M"])
    p.step("cancel", on="rhs").step("substitute", on="rhs", equation=0)
    p.step("scalar_transpose").step("scalar_transpose", on="rhs")
    return p.done()


def _tilted_mean(variant, H, G, g0=None, extra=None, scalars=("tau",)):
    """Γ(x) = V(Σ⁻¹ − H)⁻¹(Σ⁻¹α + Gx + g₀) ⇒ Γ(x) = V(I − ΣH)⁻¹ΣG x + V(I − ΣH)⁻¹(α + Σg₀)."""
    x, al = S("x"), S("alpha")
    Si = inv(Sg)
    lin = [mul(Si, al), mul(S("G"), x)] + ([S("g0")] if g0 is not None else [])
    mats = {"Sigma": dd, "V": dd, "H": dd, "G": dd, "Gamma": dv, "x": dv, "alpha": dv, "A": dd}
    mats.update(extra or {})
    if g0 is not None:
        mats["g0"] = dv
    return mats, x, al, mul(V, inv(sub(Si, S("H"))), add(*lin))


def closure_exp_quadratic():
    """The row-normalised exp-quadratic rule: Γ(x) = V(Σ⁻¹ − H)⁻¹(Σ⁻¹α + Gx + g₀) equals
    J x + c with J = V(I − ΣH)⁻¹ΣG, c = V(I − ΣH)⁻¹(α + Σg₀) (docs/mathematics.md §3).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    mats, x, al, tilted = _tilted_mean("generic", S("H"), S("G"), g0=True)
    del mats["A"]
    K = inv(sub(I, mul(Sg, S("H"))))
    rhs = add(mul(V, K, Sg, S("G"), x), mul(V, K, add(al, mul(Sg, S("g0")))))
    p = Proof("closure of row-normalised exp-quadratic kernels: Γ = Jx + c", mats, S("Gamma"), rhs,
              symmetric=["Sigma", "H"], positive=["Sigma"], equations=[(S("Gamma"), tilted)])
    p.step("substitute", equation=0)
    p.step("inverse_product", factors=[inv(Sg), sub(I, mul(Sg, S("H")))])
    p.step("inverse_inverse").step("cancel")
    return p.done()


def closure_softmax():
    """Softmax (kernel e^{τyᵀAx}: H = 0, G = τA, g₀ = 0): Γ(x) = τVΣAx + Vα, i.e. J = τVΣA, c = Vα.

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    mats, x, al, tilted = _tilted_mean("softmax", S("H"), S("G"))
    p = Proof("softmax closure: Γ(x) = τVΣAx + Vα", mats, S("Gamma"),
              add(mul(sc("tau"), V, Sg, A, x), mul(V, al)), scalars=["tau"], symmetric=["Sigma", "H"], positive=["Sigma"],
              equations=[(S("Gamma"), tilted), (S("H"), num(0)), (S("G"), mul(sc("tau"), A))])
    return (p.step("substitute", equation=0).step("substitute", equation=1).step("substitute", equation=2)
            .step("inverse_inverse").step("cancel").done())


def covariance_from_J(name, J, target, mats, symmetric=("Sigma",), equations=(), scalars=(), extra_steps=()):
    """Σ̇ = JΣ + ΣJᵀ expands to the stated covariance equation.

    Parameters
    ----------
    name : str
        The proof's name.
    J : list
        The term J.
    target : list
        The term of the covariance equation's right side.
    mats : dict
        Matrix symbol → shape.
    symmetric : tuple of str
        The symbols declared symmetric (Σ positive definite always).
    equations : tuple
        The (lhs, rhs) equations of the hypotheses.
    scalars : tuple of str
        The scalar symbols.
    extra_steps : tuple
        ``(rule, side, args)`` steps after the transpose and Σ = Σᵀ steps.

    Returns
    -------
    dict
        The proof document.
    """
    p = Proof(name, mats, add(mul(J, Sg), mul(Sg, T(J))), target, symmetric=list(symmetric), positive=["Sigma"],
              equations=list(equations), scalars=list(scalars))
    p.step("transpose").step("symmetric", names=["Sigma"])
    for rule, on, args in extra_steps:
        p.step(rule, on=on, **args)
    return p.done()


def covariance_softmax():
    """J = VΣA ⇒ Σ̇ = VΣAΣ + ΣAᵀΣVᵀ (docs/mathematics.md §3).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    return covariance_from_J("softmax covariance: JΣ + ΣJᵀ = VΣAΣ + ΣAᵀΣVᵀ (J = VΣA)", mul(V, Sg, A), COV_SOFTMAX,
                             {"Sigma": dd, "V": dd, "A": dd})


def closure_l2():
    """ℓ2 (kernel e^{−τ|Qx − Ky|²}: H = −2τKᵀK, G = 2τKᵀQ, A = KᵀQ):
    Γ(x) = 2τVΣ(I + 2τKᵀKΣ)⁻¹A x + V(I + 2τΣKᵀK)⁻¹α (docs/mathematics.md §3; the push-through
    identity moves Σ across the inverse so that singular Σ is allowed).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    mats, x, al, tilted = _tilted_mean("l2", None, None, extra={"Q": kd, "K": kd})
    Kt, Kq = T(S("K")), S("Q")
    tau = sc("tau")
    rhs = add(mul(num(2), tau, V, Sg, inv(add(I, mul(num(2), tau, Kt, S("K"), Sg))), A, x),
              mul(V, inv(add(I, mul(num(2), tau, Sg, Kt, S("K")))), al))
    p = Proof("ℓ2 closure: Γ(x) = 2τVΣ(I + 2τKᵀKΣ)⁻¹Ax + V(I + 2τΣKᵀK)⁻¹α", mats, S("Gamma"), rhs, scalars=["tau"],
              symmetric=["Sigma", "H"], positive=["Sigma"],
              equations=[(S("Gamma"), tilted), (S("H"), mul(num(-2), tau, Kt, S("K"))), (S("G"), mul(num(2), tau, Kt, Kq)),
                         (A, mul(Kt, Kq))])
    p.step("substitute", equation=0).step("substitute", equation=1).step("substitute", equation=2)
    p.step("inverse_product", factors=[inv(Sg), add(I, mul(num(2), tau, Sg, Kt, S("K")))])
    p.step("inverse_inverse").step("cancel")
    p.step("push_through", X=Sg, Y=mul(num(2), tau, Kt, S("K")), direction="left")
    p.step("substitute", on="rhs", equation=3)
    return p.done()


def covariance_l2():
    """J = 2τVΣ(I + 2τKᵀKΣ)⁻¹A ⇒ Σ̇ = JΣ + ΣJᵀ = 2τ(VΣ(I + 2τKᵀKΣ)⁻¹AΣ + ΣAᵀ(I + 2τΣKᵀK)⁻¹ΣVᵀ).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    tau, K = sc("tau"), S("K")
    N1 = inv(add(I, mul(num(2), tau, T(K), K, Sg)))
    N2 = inv(add(I, mul(num(2), tau, Sg, T(K), K)))
    J = mul(num(2), tau, V, Sg, N1, A)
    target = mul(num(2), tau, add(mul(V, Sg, N1, A, Sg), mul(Sg, T(A), N2, Sg, T(V))))
    return covariance_from_J("ℓ2 covariance: JΣ + ΣJᵀ with J = 2τVΣ(I + 2τKᵀKΣ)⁻¹A", J, target,
                             {"Sigma": dd, "V": dd, "A": dd, "K": kd}, scalars=["tau"])


def closure_linear():
    """Linear attention: Γ(x) = V E[yyᵀ] A x with E[yyᵀ] = Σ + ααᵀ (Gaussian second moment):
    J = V(Σ + ααᵀ)A, and Σ̇ = V(Σ+ααᵀ)AΣ + ΣAᵀ(Σ+ααᵀ)Vᵀ (docs/mathematics.md §3).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    al = S("alpha")
    E2 = add(Sg, mul(al, T(al)))
    mats = {"Sigma": dd, "V": dd, "A": dd, "E2": dd, "x": dv, "alpha": dv, "Gamma": dv}
    p = Proof("linear closure: Γ(x) = V(Σ + ααᵀ)Ax", mats, S("Gamma"), mul(V, E2, A, S("x")),
              symmetric=["Sigma", "E2"], positive=["Sigma"], equations=[(S("Gamma"), mul(V, S("E2"), A, S("x"))), (S("E2"), E2)])
    return p.step("substitute", equation=0).step("substitute", equation=1).done()


def covariance_linear():
    """J = V(Σ + ααᵀ)A ⇒ Σ̇ = JΣ + ΣJᵀ = V(Σ + ααᵀ)AΣ + ΣAᵀ(Σ + ααᵀ)Vᵀ (linear attention).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    al = S("alpha")
    E2 = add(Sg, mul(al, T(al)))
    return covariance_from_J("linear covariance: JΣ + ΣJᵀ with J = V(Σ + ααᵀ)A", mul(V, E2, A),
                             add(mul(V, E2, A, Sg), mul(Sg, T(A), E2, T(V))), {"Sigma": dd, "V": dd, "A": dd, "alpha": dv})


def covariance_multihead():
    """Two heads: J = W₁V₁ΣA₁ + W₂V₂ΣA₂ ⇒ Σ̇ = Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ), C_h = W_hV_h.

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    J = add(*[mul(S(f"W_{h}"), S(f"V_{h}"), Sg, S(f"A_{h}")) for h in (1, 2)])
    target = add(*[add(mul(S(f"C_{h}"), Sg, S(f"A_{h}"), Sg), mul(Sg, T(S(f"A_{h}")), Sg, T(S(f"C_{h}")))) for h in (1, 2)])
    mats = {"Sigma": dd, **{f"{n}_{h}": dd for n in ("W", "V", "A", "C") for h in (1, 2)}}
    eqs = [(S(f"C_{h}"), mul(S(f"W_{h}"), S(f"V_{h}"))) for h in (1, 2)]
    return covariance_from_J("multi-head covariance: Σ̇ = Σ_h (C_hΣA_hΣ + ΣA_hᵀΣC_hᵀ), C_h = W_hV_h", J, target, mats,
                             equations=eqs, extra_steps=[("substitute", "rhs", {"equation": 0}),
                                                         ("substitute", "rhs", {"equation": 1})])


def closure_multihead():
    """Two heads: Γ = W₁Γ₁ + W₂Γ₂ with Γ_h(x) = V_h(α + ΣA_hx) gives J = Σ_h W_hV_hΣA_h, c = Σ_h W_hV_hα.

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    x, al = S("x"), S("alpha")
    mats = {"Sigma": dd, "x": dv, "alpha": dv, "Gamma": dv, "Gamma_1": dv, "Gamma_2": dv,
            **{f"{n}_{h}": dd for n in ("W", "V", "A") for h in (1, 2)}}
    rhs = add(*[add(mul(S(f"W_{h}"), S(f"V_{h}"), Sg, S(f"A_{h}"), x), mul(S(f"W_{h}"), S(f"V_{h}"), al)) for h in (1, 2)])
    eqs = [(S("Gamma"), add(mul(S("W_1"), S("Gamma_1")), mul(S("W_2"), S("Gamma_2"))))]
    eqs += [(S(f"Gamma_{h}"), mul(S(f"V_{h}"), add(al, mul(Sg, S(f"A_{h}"), x)))) for h in (1, 2)]
    p = Proof("multi-head closure: Γ(x) = Σ_h W_hV_h(ΣA_hx + α)", mats, S("Gamma"), rhs, symmetric=["Sigma"],
              positive=["Sigma"], equations=eqs)
    return p.step("substitute", equation=0).step("substitute", equation=1).step("substitute", equation=2).done()


def closure_drift():
    """Softmax + affine drift: Γ(x) = Fx + b + V(α + ΣAx) ⇒ α̇ = Γ(α) = (F + V)α + VΣAα + b and
    Σ̇ = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ (J = F + VΣA) (docs/mathematics.md §6).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    return covariance_from_J("drift covariance: JΣ + ΣJᵀ = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ (J = F + VΣA)",
                             add(S("F"), mul(V, Sg, A)), add(mul(S("F"), Sg), mul(Sg, T(S("F"))), COV_SOFTMAX),
                             {"Sigma": dd, "V": dd, "A": dd, "F": dd})


def mean_drift():
    """Softmax + affine drift: Γ(α) = Fα + b + V(α + ΣAα) = (F + V)α + VΣAα + b (docs/mathematics.md §6).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    al = S("alpha")
    mats = {"Sigma": dd, "V": dd, "A": dd, "F": dd, "b": dv, "alpha": dv, "x": dv, "Gamma": dv}
    p = Proof("drift mean: Γ(α) = (F + V)α + VΣAα + b", mats, S("Gamma"),
              add(mul(add(S("F"), V), al), mul(V, Sg, A, al), S("b")), symmetric=["Sigma"], positive=["Sigma"],
              equations=[(S("Gamma"), add(mul(S("F"), S("x")), S("b"), mul(V, add(al, mul(Sg, A, S("x")))))), (S("x"), al)])
    return p.step("substitute", equation=0).step("substitute", equation=1).done()


def closure_sinkhorn():
    """Sinkhorn: the coupling has joint precision [[Σ⁻¹ + P, −Aᵀ], [−A, Σ⁻¹ + R]]; the Gaussian
    conditional mean E[y | x] = α − Λ_yy⁻¹Λ_yx(x − α) gives Γ(x) = V(α + (Σ⁻¹ + R)⁻¹A(x − α)):
    J = V(Σ⁻¹ + R)⁻¹A and Γ(α) = Vα (the mean decouples) (docs/mathematics.md §3).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    x, al = S("x"), S("alpha")
    B = mul(inv(add(inv(Sg), S("R"))), A)
    mats = {"Sigma": dd, "V": dd, "A": dd, "R": dd, "Lyy": dd, "Lyx": dd, "x": dv, "alpha": dv, "Gamma": dv}
    p = Proof("Sinkhorn closure: Γ(x) = V(Σ⁻¹ + R)⁻¹Ax + Vα − V(Σ⁻¹ + R)⁻¹Aα", mats, S("Gamma"),
              add(mul(V, B, x), mul(V, al), neg(mul(V, B, al))), symmetric=["Sigma", "R", "Lyy"], positive=["Sigma"],
              equations=[(S("Gamma"), mul(V, sub(al, mul(inv(S("Lyy")), S("Lyx"), sub(x, al))))),
                         (S("Lyy"), add(inv(Sg), S("R"))), (S("Lyx"), neg(A))])
    return p.step("substitute", equation=0).step("substitute", equation=1).step("substitute", equation=2).done()


def sinkhorn_mean():
    """Γ(α) = Vα for the Sinkhorn closure (α̇ = Vα).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    al = S("alpha")
    B = mul(inv(add(inv(Sg), S("R"))), A)
    mats = {"Sigma": dd, "V": dd, "A": dd, "R": dd, "x": dv, "alpha": dv, "Gamma": dv}
    p = Proof("Sinkhorn mean: Γ(α) = Vα", mats, S("Gamma"), mul(V, al), symmetric=["Sigma", "R"], positive=["Sigma"],
              equations=[(S("Gamma"), add(mul(V, B, S("x")), mul(V, al), neg(mul(V, B, al)))), (S("x"), al)])
    return p.step("substitute", equation=0).step("substitute", equation=1).done()


def sinkhorn_marginal():
    """The x-marginal of the coupling (Schur complement): Λ_xx − Λ_xyΛ_yy⁻¹Λ_yx = Σ⁻¹ when
    P = Aᵀ(Σ⁻¹ + R)⁻¹A, Λ_xx = Σ⁻¹ + P, Λ_xy = −Aᵀ, Λ_yy = Σ⁻¹ + R, Λ_yx = −A.

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    mats = {"Sigma": dd, "A": dd, "R": dd, "P": dd, "Lxx": dd, "Lxy": dd, "Lyy": dd, "Lyx": dd}
    Ly = add(inv(Sg), S("R"))
    p = Proof("Sinkhorn marginal: the Schur complement of the joint precision is Σ⁻¹", mats,
              sub(S("Lxx"), mul(S("Lxy"), inv(S("Lyy")), S("Lyx"))), inv(Sg), symmetric=["Sigma", "R", "P", "Lxx", "Lyy"],
              positive=["Sigma"],
              equations=[(S("Lxx"), add(inv(Sg), S("P"))), (S("Lxy"), neg(T(A))), (S("Lyy"), Ly), (S("Lyx"), neg(A)),
                         (S("P"), mul(T(A), inv(Ly), A))])
    for i in range(4):
        p.step("substitute", equation=i)
    return p.step("substitute", equation=4).done()


def sinkhorn_gradient_velocity():
    """Sinkhorn with A = Aᵀ and V = A: the coupling is symmetric (P = R) and
    J = V(Σ⁻¹ + R)⁻¹A = Aᵀ(Σ⁻¹ + R)⁻¹A = P, so Σ̇ = JΣ + ΣJᵀ = ½((P + R)Σ + Σ(P + R)) — the
    Bures–Wasserstein gradient-ascent velocity of ½·(entropic self-transport value), whose
    Euclidean gradient in Σ is ½(P + R) (docs/mathematics.md §7, §10).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    J = mul(V, inv(add(inv(Sg), S("R"))), A)
    G = add(S("P"), S("R"))
    mats = {"Sigma": dd, "V": dd, "A": dd, "R": dd, "P": dd}
    p = Proof("Sinkhorn, A = Aᵀ, V = A: JΣ + ΣJᵀ = ½((P + R)Σ + Σ(P + R))", mats,
              add(mul(J, Sg), mul(Sg, T(J))), mul(num("1/2"), add(mul(G, Sg), mul(Sg, G))),
              symmetric=["Sigma", "A", "R", "P"], positive=["Sigma"],
              equations=[(V, A), (S("P"), mul(T(A), inv(add(inv(Sg), S("R"))), A)), (S("R"), S("P"))])
    p.step("substitute", equation=0).step("transpose").step("symmetric", names=["Sigma", "A", "R"])
    p.step("substitute", on="rhs", equation=2).step("substitute", on="rhs", equation=1)
    p.step("symmetric", on="rhs", names=["A"])
    return p.done()


# ---- growth (ℓ2): the two identities behind 0 ⪯ Σ(I + 2GΣ)⁻¹ ⪯ (2G)⁻¹ ---------------------
def l2_gap_identity():
    """(2G)⁻¹ − Σ(I + 2GΣ)⁻¹ = (2G + 4GΣG)⁻¹ for G invertible (docs/mathematics.md §10).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    G = S("G")
    lhs = sub(inv(mul(num(2), G)), mul(Sg, inv(add(I, mul(num(2), G, Sg)))))
    rhs = inv(add(mul(num(2), G), mul(num(4), G, Sg, G)))
    p = Proof("ℓ2 growth: (2G)⁻¹ − Σ(I + 2GΣ)⁻¹ = (2G + 4GΣG)⁻¹", {"Sigma": dd, "G": dd}, lhs, rhs,
              symmetric=["Sigma", "G"], positive=["G"])
    p.step("push_through", X=Sg, Y=mul(num(2), G), direction="right")
    p.step("inverse_product", on="rhs", factors=[mul(num(2), G), add(I, mul(num(2), Sg, G))])
    p.step("insert_inverse", M=add(I, mul(num(2), Sg, G)), side="left")
    p.step("cancel", M=G).step("cancel")
    return p.done()


def l2_congruence_identity():
    """Σ(I + 2GΣ)⁻¹ = R(I + 2RGR)⁻¹R when Σ = RR (R = Σ^{1/2}).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    G, R = S("G"), S("R")
    p = Proof("ℓ2 growth: Σ(I + 2GΣ)⁻¹ = R(I + 2RGR)⁻¹R, Σ = R²", {"Sigma": dd, "G": dd, "R": dd},
              mul(Sg, inv(add(I, mul(num(2), G, Sg)))), mul(R, inv(add(I, mul(num(2), R, G, R))), R),
              symmetric=["Sigma", "G", "R"], positive=["G"], equations=[(mul(R, R), Sg)])
    p.step("substitute", equation=0, direction="rl")
    p.step("push_through", X=R, Y=mul(num(2), G, R), direction="right")
    return p.done()


def closed_form_vI():
    """V = I: X(t) = Σ₀(I − tMΣ₀)⁻¹, M = A + Aᵀ, solves Ẋ = XAX + XAᵀX (singular Σ₀ allowed)
    (docs/mathematics.md §4).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    S0, M, t = S("Sigma0"), S("M"), sc("t")
    N = inv(sub(I, mul(t, M, S0)))
    X = mul(S0, N)
    p = Proof("softmax V = I: Σ₀(I − t(A + Aᵀ)Σ₀)⁻¹ solves Σ̇ = ΣAΣ + ΣAᵀΣ", {"Sigma0": dd, "A": dd, "M": dd},
              ddt(X), add(mul(X, A, X), mul(X, T(A), X)), scalars=["t"], symmetric=["Sigma0", "M"],
              equations=[(M, add(A, T(A)))], derivatives={"t": num(1), "Sigma0": num(0), "A": num(0), "M": num(0)})
    return p.step("differentiate").step("substitute", equation=0).step("substitute", on="rhs", equation=0).done()


def congruence():
    """Σ(t) = Φ(t)Σ₀Φ(t)ᵀ with Φ̇ = JΦ solves Σ̇ = JΣ + ΣJᵀ (rank invariance, docs/mathematics.md §4).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    Phi, S0, J = S("Phi"), S("Sigma0"), S("J")
    X = mul(Phi, S0, T(Phi))
    p = Proof("congruence: d/dt(ΦΣ₀Φᵀ) = J(ΦΣ₀Φᵀ) + (ΦΣ₀Φᵀ)Jᵀ when Φ̇ = JΦ", {"Phi": dd, "Sigma0": dd, "J": dd},
              ddt(X), add(mul(J, X), mul(X, T(J))), symmetric=["Sigma0"],
              derivatives={"Phi": mul(J, Phi), "Sigma0": num(0)})
    return p.step("differentiate").done()


# ---- Sinkhorn as a Bures–Wasserstein gradient flow (docs/mathematics.md §7, §10) -----------
def _value_statement(name, derivatives, rhs):
    """Φ(Σ, C) = tr(ACᵀ) + ½ log det(Σ − CΣ⁻¹Cᵀ) − ½ log det Σ: the entropic objective of a
    Gaussian self-coupling with cross-covariance C (its supremum over C is the entropic
    self-transport value F(Σ), up to the mean term αᵀAα)."""
    Sg_, A_, C = S("Sigma"), S("A"), S("C")
    gap = sub(Sg_, mul(C, inv(Sg_), T(C)))
    Phi = add(tr(mul(A_, T(C))), mul(num("1/2"), logdet(gap)), mul(num("-1/2"), logdet(Sg_)))
    eqs = [(inv(gap), S("Lyy")), (C, mul(S("B"), Sg_)), (S("B"), mul(inv(S("Lyy")), A_)), (S("Lyy"), add(inv(Sg_), S("R"))),
           (S("P"), mul(T(A_), inv(S("Lyy")), A_))]
    mats = {k: dd for k in ("Sigma", "A", "C", "B", "Lyy", "R", "P", "Xi", "D")}
    zero = {k: num(0) for k in mats}
    zero.update(derivatives)
    return Proof(name, mats, ddt(Phi), rhs, symmetric=["Sigma", "Lyy", "R", "P", "Xi"], positive=["Sigma", "Lyy"],
                 equations=eqs, derivatives=zero)


def sinkhorn_value_stationary():
    """At the Sinkhorn coupling (C = BΣ, B = Λ_yy⁻¹A, (Σ − CΣ⁻¹Cᵀ)⁻¹ = Λ_yy) the objective Φ is
    stationary in C: d/ds Φ(Σ, C + sD) = 0 for every direction D (so the coupling is the
    maximiser, Φ being concave in C).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    p = _value_statement("Sinkhorn value: ∂Φ/∂C = 0 at the Gaussian Sinkhorn coupling", {"C": S("D")}, num(0))
    p.step("differentiate").step("substitute", equation=0).step("substitute", equation=1)
    p.step("symmetric", names=["Sigma"]).step("substitute", equation=2).step("symmetric", names=["Lyy"])
    p.step("cancel").step("trace").step("trace_transpose")
    return p.done()


def sinkhorn_value_gradient():
    """The Σ-gradient of the entropic objective at the Sinkhorn coupling: along Σ̇ = Ξ,
    d/dt Φ(Σ, C) = ½ tr((R + P)Ξ); by the envelope theorem (∂Φ/∂C = 0) this is dF/dt, so
    ∇_Σ F = ½(R + P).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    p = _value_statement("Sinkhorn value: d/dt Φ(Σ, C) = ½tr((R + P)Σ̇) at the Sinkhorn coupling",
                         {"Sigma": S("Xi")}, mul(num("1/2"), tr(mul(add(S("R"), S("P")), S("Xi")))))
    p.step("differentiate").step("substitute", equation=0).step("substitute", equation=1)
    p.step("symmetric", names=["Sigma"]).step("substitute", equation=2).step("symmetric", names=["Lyy"])
    p.step("cancel").step("trace").step("substitute", equation=3).step("trace")
    p.step("substitute", on="rhs", equation=4).step("substitute", on="rhs", equation=3).step("trace", on="rhs")
    return p.done()


def sinkhorn_gradient_statement(symmetric_a: bool, v_equals_a: bool) -> dict:
    """The statement "JΣ + ΣJᵀ = ½((P + R)Σ + Σ(P + R))" for the Sinkhorn coupling (both
    marginal equations as hypotheses), with or without A = Aᵀ and V = A — the two cases
    without a proof are refuted by :func:`sinkhorn_gradient_witness`.

    Parameters
    ----------
    symmetric_a : bool
        Whether A = Aᵀ is a hypothesis.
    v_equals_a : bool
        Whether V = A is a hypothesis.

    Returns
    -------
    dict
        The statement document (a proof document without ``steps``).
    """
    J = mul(V, inv(add(inv(Sg), S("R"))), A)
    G = add(S("P"), S("R"))
    eqs = [(S("P"), mul(T(A), inv(add(inv(Sg), S("R"))), A)), (S("R"), mul(A, inv(add(inv(Sg), S("P"))), T(A)))]
    if v_equals_a:
        eqs.insert(0, (V, A))
    sym = ["Sigma", "R", "P"] + (["A"] if symmetric_a else [])
    name = "Sinkhorn" + (", A = Aᵀ" if symmetric_a else "") + (", V = A" if v_equals_a else "") + \
        ": JΣ + ΣJᵀ = ½((P + R)Σ + Σ(P + R))"
    p = Proof(name, {"Sigma": dd, "V": dd, "A": dd, "R": dd, "P": dd}, add(mul(J, Sg), mul(Sg, T(J))),
              mul(num("1/2"), add(mul(G, Sg), mul(Sg, G))), symmetric=sym, positive=["Sigma"], equations=eqs)
    return {k: v for k, v in p.doc.items() if k != "steps"}


def sinkhorn_gradient_witness(symmetric_a: bool, v_equals_a: bool) -> dict:
    """An exact point of the Sinkhorn fixed-point equations: Σ = I and a rational contraction K
    (the whitened cross-covariance) give Λ_yy = (I − KKᵀ)⁻¹, Λ_xx = (I − KᵀK)⁻¹, A = Λ_yyK,
    R = Λ_yy − I, P = Λ_xx − I — rational, and both marginal equations hold exactly.

    Parameters
    ----------
    symmetric_a : bool
        A = Aᵀ (then d = 1, K = 1/2, A = 2/3, V = 1 ≠ A); else d = 2 and A is not symmetric.
    v_equals_a : bool
        Whether the point has V = A (else V = I).

    Returns
    -------
    dict
        A witness ``{"d": n, "values": {"Sigma", "A", "R", "P", "V": rational entries}}``.
    """
    from fractions import Fraction as Fr

    import sympy as sp

    if symmetric_a:   # d = 1, K = 1/2: A = 2/3, R = P = 1/3; V = 1 ≠ A
        K = sp.Matrix([[Fr(1, 2)]])
    else:             # d = 2, K = [[0, 1/2], [0, 0]]: A non-symmetric
        K = sp.Matrix([[0, sp.Rational(1, 2)], [0, 0]])
    n = K.rows
    Id = sp.eye(n)
    Lyy, Lxx = (Id - K * K.T).inv(), (Id - K.T * K).inv()
    A_ = Lyy * K
    vals = {"Sigma": Id, "A": A_, "R": Lyy - Id, "P": Lxx - Id, "V": A_ if v_equals_a else Id}

    def fs(x):
        x = sp.Rational(x)
        return str(x.p) if x.q == 1 else f"{x.p}/{x.q}"
    return {"d": n, "values": {k: [[fs(x) for x in M.row(i)] for i in range(n)] for k, M in vals.items()}}


def logdet_second_derivative():
    """d²/ds² log det X = tr(X⁻¹Ẍ) − tr(X⁻¹ẊX⁻¹Ẋ) — with E = ½ det(I − AᵀΣAΣ)^{-1/2} this gives
    E'' = (E/4)(t₁² + 2t₂ − 2t₃), t₁ = tr(X⁻¹Ẋ), t₂ = tr(X⁻¹ẊX⁻¹Ẋ), t₃ = tr(X⁻¹Ẍ): the second
    variation of the Gaussian interaction energy along any curve Σ_s (docs/mathematics.md §7).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    X, X1, X2 = S("X"), S("X1"), S("X2")
    p = Proof("d²/ds² log det X = tr(X⁻¹Ẍ) − tr(X⁻¹ẊX⁻¹Ẋ)", {"X": dd, "X1": dd, "X2": dd},
              ddt(ddt(logdet(X))), sub(tr(mul(inv(X), X2)), tr(mul(inv(X), X1, inv(X), X1))),
              derivatives={"X": X1, "X1": X2, "X2": num(0)})
    return p.step("differentiate").step("trace").done()


def twisted_geodesic_second_derivative():
    """Along the twisted geodesic Σ_s = P_sΣP_sᵀ, P_s = I + sN (so P_s' = N, N' = 0), and for a
    constant R: d²/ds²(RΣ_sR) = 2RNΣNᵀR (R = I gives Σ_s'' = 2NΣNᵀ; docs/mathematics.md §7).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    R, P, N = S("R"), S("P"), S("N")
    p = Proof("twisted geodesic: d²/ds²(RP_sΣP_sᵀR) = 2RNΣNᵀR when P_s' = N, N' = 0",
              {"R": dd, "P": dd, "N": dd, "Sigma": dd},
              ddt(ddt(mul(R, P, Sg, T(P), R))), mul(num(2), R, N, Sg, T(N), R), symmetric=["Sigma", "R"],
              derivatives={"P": N, "N": num(0), "Sigma": num(0), "R": num(0)})
    return p.step("differentiate").done()


def twisted_symmetric_similarity():
    """For A = R² with R symmetric (A symmetric positive semidefinite; A = −R² gives the same
    product): R⁻¹(AᵀΣAΣ)R = (RΣR)², so det(I − AᵀΣAΣ) = det(I − Y²) with Y = RΣR
    (docs/mathematics.md §7).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    R = S("R")
    p = Proof("A = R², R = Rᵀ: R⁻¹(AᵀΣAΣ)R = (RΣR)(RΣR)", {"A": dd, "R": dd, "Sigma": dd},
              mul(inv(R), T(A), Sg, A, Sg, R), mul(R, Sg, R, R, Sg, R), symmetric=["Sigma", "R", "A"],
              positive=["Sigma"], equations=[(A, mul(R, R))])
    return p.step("symmetric", names=["A"]).step("substitute", equation=0).step("cancel").done()


def twisted_semidefinite_determinant():
    """For A = R² with R symmetric — R may be singular — det(I − AᵀΣAΣ) = det(I − Y²) with Y = RΣR,
    by Sylvester's determinant identity det(I + XY) = det(I + YX) with X = R, Y = −RΣRRΣ (the rule
    ``sylvester``), written for log det.  It replaces the similarity by R⁻¹
    (``twisted-symmetric-similarity``) when A is singular semidefinite: E = ½det(W)^{-1/2},
    W = I − Y² (A = −R² gives the same product; docs/mathematics.md §7).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    R = S("R")
    p = Proof("A = R², R = Rᵀ (possibly singular): log det(I − AᵀΣAΣ) = log det(I − (RΣR)(RΣR))",
              {"A": dd, "R": dd, "Sigma": dd},
              logdet(sub(I, mul(T(A), Sg, A, Sg))), logdet(sub(I, mul(R, Sg, R, R, Sg, R))),
              symmetric=["Sigma", "R", "A"], positive=["Sigma"], equations=[(A, mul(R, R))])
    return (p.step("symmetric", names=["A"]).step("substitute", equation=0)
            .step("sylvester", X=R, Y=neg(mul(R, Sg, R, R, Sg))).done())


_BUILDERS = {
    "twisted-geodesic-second-derivative": twisted_geodesic_second_derivative,
    "twisted-symmetric-similarity": twisted_symmetric_similarity,
    "twisted-semidefinite-determinant": twisted_semidefinite_determinant,
    "inverse-identity-vI": inverse_identity_vI,
    "logdet-second-derivative": logdet_second_derivative,
    "closed-form-vI": closed_form_vI,
    "congruence": congruence,
    "trace-identity-symmetric-V": trace_identity_symmetric,
    "homogeneity": homogeneity,
    "homogeneity-multihead": homogeneity_multihead,
    "tilting-lemma": tilting,
    "closure-exp-quadratic": closure_exp_quadratic,
    "closure-softmax": closure_softmax,
    "covariance-softmax": covariance_softmax,
    "closure-l2": closure_l2,
    "covariance-l2": covariance_l2,
    "closure-linear": closure_linear,
    "covariance-linear": covariance_linear,
    "closure-multihead": closure_multihead,
    "covariance-multihead": covariance_multihead,
    "covariance-drift": closure_drift,
    "mean-drift": mean_drift,
    "closure-sinkhorn": closure_sinkhorn,
    "mean-sinkhorn": sinkhorn_mean,
    "marginal-sinkhorn": sinkhorn_marginal,
    "sinkhorn-gradient-velocity": sinkhorn_gradient_velocity,
    "sinkhorn-value-stationary": sinkhorn_value_stationary,
    "sinkhorn-value-gradient": sinkhorn_value_gradient,
    "l2-gap-identity": l2_gap_identity,
    "l2-congruence-identity": l2_congruence_identity,
}
NAMES = tuple(_BUILDERS)


def proof(name: str) -> dict:
    """The proof document called ``name`` (see :data:`NAMES`).

    Parameters
    ----------
    name : str
        A proof name, one of :data:`NAMES`.

    Returns
    -------
    dict
        The proof document.
    """
    return _BUILDERS[name]()


def all_proofs() -> dict:
    """Every proof of the library, built (and replayed).

    Returns
    -------
    dict
        Proof name (:data:`NAMES`) → proof document.
    """
    return {n: b() for n, b in _BUILDERS.items()}


# ---- operator-inequality theorems (docs/mathematics.md §10) ---------------------------------
def _fact(kind, expr, by, frm=(), **args):
    return {"fact": kind, "expr": expr, "by": by, "from": list(frm), "args": args}


def l2_rr_identity():
    """2G + 4GRRG = 2G + 4GΣG when RR = Σ.

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    G, R = S("G"), S("R")
    p = Proof("Σ = R²: 2G + 4GRRG = 2G + 4GΣG", {"Sigma": dd, "G": dd, "R": dd},
              add(mul(num(2), G), mul(num(4), G, R, R, G)), add(mul(num(2), G), mul(num(4), G, Sg, G)),
              symmetric=["Sigma", "G", "R"], positive=["G"], equations=[(mul(R, R), Sg)])
    return p.step("substitute", equation=0).done()


def l2_growth_theorem():
    """For every d, G ≻ 0 and Σ = R² with R symmetric (i.e. every Σ ⪰ 0):
    Σ(I + 2GΣ)⁻¹ ⪰ 0 and (2G)⁻¹ − Σ(I + 2GΣ)⁻¹ ≻ 0; hence ‖Σ(I + 2GΣ)⁻¹‖₂ ≤ 1/(2λ_min(G))
    (docs/mathematics.md §10, the ℓ2 growth theorem).

    Returns
    -------
    dict
        The theorem document (:mod:`.order`): its identities, facts and conclusion.
    """
    G, R = S("G"), S("R")
    N = mul(Sg, inv(add(I, mul(num(2), G, Sg))))
    M1 = add(I, mul(num(2), R, G, R))
    facts = [
        _fact("pd", G, "hypothesis", symbol="G"),                                   # 0
        _fact("psd", mul(R, G, R), "congruence", [0], X=R),                         # 1
        _fact("pd", I, "hypothesis", symbol="I"),                                   # 2
        _fact("pd", M1, "sum", [2, 1], weights=["1", "2"]),                         # 3
        _fact("pd", inv(M1), "inverse", [3]),                                       # 4
        _fact("psd", mul(R, inv(M1), R), "congruence", [4], X=R),                   # 5
        _fact("psd", N, "identity", [5], identity=0),                               # 6
        _fact("psd", mul(G, R, R, G), "gram", X=mul(G, R)),                         # 7
        _fact("pd", add(mul(num(2), G), mul(num(4), G, R, R, G)), "sum", [0, 7], weights=["2", "4"]),  # 8
        _fact("pd", add(mul(num(2), G), mul(num(4), G, Sg, G)), "identity", [8], identity=1),         # 9
        _fact("pd", inv(add(mul(num(2), G), mul(num(4), G, Sg, G))), "inverse", [9]),                 # 10
        _fact("pd", sub(inv(mul(num(2), G)), N), "identity", [10], identity=2),                       # 11
    ]
    return {"name": "ℓ2 growth: 0 ⪯ Σ(I + 2GΣ)⁻¹ ≺ (2G)⁻¹",
            "symbols": {"matrices": {"Sigma": list(dd), "G": list(dd), "R": list(dd)}, "scalars": []},
            "hypotheses": {"symmetric": ["Sigma", "G", "R"], "positive": ["G"], "equations": [[mul(R, R), Sg]]},
            "identities": [l2_congruence_identity(), l2_rr_identity(), l2_gap_identity()],
            "facts": facts, "conclusion": [6, 11]}


def sinkhorn_conditional_identity():
    """Σ − CΣ⁻¹Cᵀ = Λ_yy⁻¹ when C = BΣ and Λ_yy⁻¹ = Σ − BΣBᵀ (the y-marginal of the coupling:
    law of total covariance with E[y|x] − α = B(x − α), Cov(y|x) = Λ_yy⁻¹).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    B, C, L = S("B"), S("C"), S("Lyy")
    p = Proof("Sinkhorn: Σ − CΣ⁻¹Cᵀ = Λ_yy⁻¹", {"Sigma": dd, "B": dd, "C": dd, "Lyy": dd, "S": dd},
              sub(Sg, mul(C, inv(Sg), T(C))), inv(L), symmetric=["Sigma", "Lyy", "S"], positive=["Sigma", "Lyy"],
              equations=[(C, mul(B, Sg)), (mul(S("S"), S("S")), Sg), (inv(L), sub(Sg, mul(B, Sg, T(B))))])
    p.step("substitute", equation=0).step("symmetric", names=["Sigma"]).step("cancel")
    p.step("substitute", on="rhs", equation=2)
    return p.done()


def sinkhorn_whitening_identity():
    """S⁻¹(Σ − CΣ⁻¹Cᵀ)S⁻¹ = I − (S⁻¹CS⁻¹)(S⁻¹CS⁻¹)ᵀ when Σ = SS, S symmetric invertible.

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    C, Sq = S("C"), S("S")
    Si = inv(Sq)
    K = mul(Si, C, Si)
    p = Proof("Sinkhorn: S⁻¹(Σ − CΣ⁻¹Cᵀ)S⁻¹ = I − KKᵀ, K = S⁻¹CS⁻¹, Σ = S²",
              {"Sigma": dd, "B": dd, "C": dd, "Lyy": dd, "S": dd},
              mul(Si, sub(Sg, mul(C, inv(Sg), T(C))), Si), sub(I, mul(K, T(K))),
              symmetric=["Sigma", "Lyy", "S"], positive=["Sigma", "Lyy"],
              equations=[(C, mul(S("B"), Sg)), (mul(Sq, Sq), Sg),
                         (inv(S("Lyy")), sub(Sg, mul(S("B"), Sg, T(S("B")))))])
    p.step("substitute", equation=1, direction="rl")
    p.step("inverse_product", factors=[Sq, Sq]).step("cancel")
    p.step("transpose", on="rhs").step("symmetric", on="rhs", names=["S"])
    return p.done()


def sinkhorn_growth_theorem():
    """For every d and every Gaussian self-coupling of N(α, Σ), Σ ≻ 0, with cross-covariance
    C = BΣ (E[y|x] − α = B(x − α)) and conditional precision Λ_yy ≻ 0:
    Σ − CΣ⁻¹Cᵀ ≻ 0 and I − KKᵀ ≻ 0 for K = Σ^{-1/2}CΣ^{-1/2}; hence ‖K‖₂ ≤ 1 and
    ‖C‖₂ ≤ ‖Σ‖₂, so ‖JΣ‖₂ = ‖VC‖₂ ≤ ‖V‖₂‖Σ‖₂ (docs/mathematics.md §10).

    Returns
    -------
    dict
        The theorem document (:mod:`.order`): its identities, facts and conclusion.
    """
    C, L, Sq = S("C"), S("Lyy"), S("S")
    Si = inv(Sq)
    K = mul(Si, C, Si)
    gap = sub(Sg, mul(C, inv(Sg), T(C)))
    facts = [
        _fact("pd", L, "hypothesis", symbol="Lyy"),                                 # 0
        _fact("pd", inv(L), "inverse", [0]),                                        # 1
        _fact("pd", gap, "identity", [1], identity=0),                              # 2
        _fact("psd", mul(Si, gap, Si), "congruence", [2], X=Si),                    # 3
        _fact("psd", sub(I, mul(K, T(K))), "identity", [3], identity=1),            # 4
    ]
    return {"name": "Sinkhorn growth: the whitened cross-covariance is a contraction",
            "symbols": {"matrices": {"Sigma": list(dd), "B": list(dd), "C": list(dd), "Lyy": list(dd), "S": list(dd)},
                        "scalars": []},
            "hypotheses": {"symmetric": ["Sigma", "Lyy", "S"], "positive": ["Sigma", "Lyy"],
                           "equations": [[C, mul(S("B"), Sg)], [mul(Sq, Sq), Sg],
                                         [inv(L), sub(Sg, mul(S("B"), Sg, T(S("B"))))]]},
            "identities": [sinkhorn_conditional_identity(), sinkhorn_whitening_identity()],
            "facts": facts, "conclusion": [2, 4]}


def twisted_symmetric_commutation():
    """W⁻¹Y = YW⁻¹ for Y = RΣR and W = I − Y² (a matrix commutes with a function of itself).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    R, W = S("R"), S("W")
    Y = mul(R, Sg, R)
    p = Proof("W = I − Y², Y = RΣR: W⁻¹Y = YW⁻¹", _TWISTED_SYMBOLS, mul(inv(W), Y), mul(Y, inv(W)),
              **(_TWISTED_HYPOTHESES | {"positive": ["Sigma"]}))   # W invertible suffices (and samples)
    p.step("insert_inverse", M=W, side="right")
    p.step("substitute", equation=1).step("substitute", on="rhs", equation=1)
    return p.step("cancel").done()


def twisted_symmetric_derivatives():
    """Along a curve Y_s with Y' = Y₁, Y₁' = Y₂: W = I − Y² has W' = −(Y₁Y + YY₁) and
    W'' = −(Y₂Y + 2Y₁Y₁ + YY₂); with Y_s = RΣ_sR on the twisted geodesic, Y₁ = R(NΣ + ΣNᵀ)R at
    s = 0 (the proof ``twisted-geodesic-first-derivative``) and Y₂ = 2RNΣNᵀR.

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    Y, Y1, Y2 = S("Y"), S("Y1"), S("Y2")
    p = Proof("W = I − Y²: W'' = −(Y''Y + 2Y'Y' + YY'')", {"Y": dd, "Y1": dd, "Y2": dd},
              ddt(ddt(sub(I, mul(Y, Y)))), neg(add(mul(Y2, Y), mul(num(2), Y1, Y1), mul(Y, Y2))),
              symmetric=["Y", "Y1", "Y2"], derivatives={"Y": Y1, "Y1": Y2, "Y2": num(0)})
    return p.step("differentiate").done()


def twisted_geodesic_first_derivative():
    """d/ds(RP_sΣP_sᵀR) = R(NΣP_sᵀ + P_sΣNᵀ)R along P_s = I + sN (at s = 0, P = I: R(NΣ + ΣNᵀ)R).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    R, P, N = S("R"), S("P"), S("N")
    p = Proof("twisted geodesic: d/ds(RP_sΣP_sᵀR) = R(NΣP_sᵀ + P_sΣNᵀ)R when P_s' = N",
              {"R": dd, "P": dd, "N": dd, "Sigma": dd}, ddt(mul(R, P, Sg, T(P), R)),
              mul(R, add(mul(N, Sg, T(P)), mul(P, Sg, T(N))), R), symmetric=["Sigma", "R"],
              derivatives={"P": N, "N": num(0), "Sigma": num(0), "R": num(0)})
    return p.step("differentiate").done()


def energy_second_variation():
    """E'' = (E/4)(t₁² + 2t₂ − 2t₃) for E = ½det(X)^{-1/2} along any curve X_s: the hypothesis is
    E' = −½E·tr(X⁻¹X') (Jacobi's formula, (log det X)' = tr(X⁻¹X'), with the chain rule), and
    t₁ = tr(X⁻¹X'), t₂ = tr(X⁻¹X'X⁻¹X'), t₃ = tr(X⁻¹X'') (docs/mathematics.md §7).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    X, X1, X2, e = S("X"), S("X1"), S("X2"), sc("e")
    p = Proof("E = ½det(X)^(-1/2), E' = −½E·tr(X⁻¹X'): E'' = (E/4)(t₁² + 2t₂ − 2t₃)",
              {"X": dd, "X1": dd, "X2": dd}, ddt(ddt(e)), mul(num("1/4"), e, _sign_term(X, X1, X2)),
              scalars=["e"], derivatives={"e": mul(num("-1/2"), e, tr(mul(inv(X), X1))), "X": X1, "X1": X2,
                                          "X2": num(0)})
    return p.step("differentiate").step("trace").done()


def similarity_sign_term():
    """The sign term t₁² + 2t₂ − 2t₃ of X = RWR⁻¹ (X' = RW'R⁻¹, X'' = RW''R⁻¹ for a constant R) is
    that of W (docs/mathematics.md §7).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    R, W, W1, W2 = S("R"), S("W"), S("W1"), S("W2")

    def conj(M):
        return mul(R, M, inv(R))
    p = Proof("X = RWR⁻¹: the sign term t₁² + 2t₂ − 2t₃ of X is that of W", {"R": dd, "W": dd, "W1": dd, "W2": dd},
              _sign_term(conj(W), conj(W1), conj(W2)), _sign_term(W, W1, W2))
    p.step("inverse_product", factors=[R, W, inv(R)]).step("inverse_inverse").step("cancel")
    return p.step("trace").done()


def _sign_term(X, X1, X2):
    """t₁² + 2t₂ − 2t₃ with t₁ = tr(X⁻¹X1), t₂ = tr(X⁻¹X1X⁻¹X1), t₃ = tr(X⁻¹X2)."""
    t1 = tr(mul(inv(X), X1))
    return add(mul(t1, t1), mul(num(2), tr(mul(inv(X), X1, inv(X), X1))), mul(num(-2), tr(mul(inv(X), X2))))


_TWISTED_SYMBOLS = {"Sigma": dd, "A": dd, "R": dd, "N": dd, "W": dd}
_TWISTED_HYPOTHESES = {"symmetric": ["Sigma", "R", "A", "W"], "positive": ["Sigma", "W"],
                       "equations": [(S("A"), mul(S("R"), S("R"))),
                                     (S("W"), sub(I, mul(S("R"), Sg, S("R"), S("R"), Sg, S("R"))))]}


def twisted_symmetric_convexity_theorem():
    """For every d, Σ ≻ 0, A = R² with R symmetric, any N, and W = I − Y² ≻ 0 with Y = RΣR (the
    energy's domain): along the twisted geodesic Σ_s = (I + sN)Σ(I + sN)ᵀ, with Y' = R(NΣ + ΣNᵀ)R,
    Y'' = 2RNΣNᵀR, W' = −(Y'Y + YY') and W'' = −(Y''Y + 2Y'Y' + YY''),

        t₁² + 2t₂ − 2t₃ ≥ 0,   t₁ = tr(W⁻¹W'), t₂ = tr(W⁻¹W'W⁻¹W'), t₃ = tr(W⁻¹W''),

    as the sum t₁² + 2tr(W⁻¹·W'W⁻¹W') + 4tr(W⁻¹·Y'Y') + 2tr(W⁻¹Y·Y'') + 2tr(YW⁻¹·Y'') of five
    non-negative terms (W⁻¹Y ⪰ 0: W⁻¹ and Y commute).  Since R⁻¹(AᵀΣAΣ)R = W (the identity
    ``twisted-symmetric-similarity``), the t's are those of X = I − AᵀΣ_sAΣ_s, and
    E'' = (E/4)(t₁² + 2t₂ − 2t₃) ≥ 0 (docs/mathematics.md §7).

    Returns
    -------
    dict
        The theorem document (:mod:`.order`): its identities, facts and conclusion.
    """
    R, N, W = S("R"), S("N"), S("W")
    Y = mul(R, Sg, R)
    Y1 = mul(R, add(mul(N, Sg), mul(Sg, T(N))), R)
    Y2 = mul(num(2), R, N, Sg, T(N), R)
    Wi = inv(W)
    W1 = neg(add(mul(Y1, Y), mul(Y, Y1)))
    W2 = neg(add(mul(Y2, Y), mul(num(2), Y1, Y1), mul(Y, Y2)))
    t1 = tr(mul(Wi, W1))
    sign = _sign_term(W, W1, W2)
    facts = [
        _fact("pd", Sg, "hypothesis", symbol="Sigma"),                               # 0
        _fact("psd", Y, "congruence", [0], X=R),                                     # 1  Y ⪰ 0
        _fact("psd", mul(N, Sg, T(N)), "congruence", [0], X=N),                      # 2
        _fact("psd", mul(R, N, Sg, T(N), R), "congruence", [2], X=R),                # 3
        _fact("psd", Y2, "sum", [3], weights=["2"]),                                 # 4  Y'' ⪰ 0
        _fact("pd", W, "hypothesis", symbol="W"),                                    # 5  the domain
        _fact("pd", Wi, "inverse", [5]),                                             # 6
        _fact("psd", mul(Wi, Y), "commuting", [6, 1], identity=1),                   # 7  W⁻¹Y ⪰ 0
        _fact("psd", mul(Y, Wi), "identity", [7], identity=1),                       # 8  YW⁻¹ ⪰ 0
        _fact("nonneg", tr(mul(Wi, Y, Y2)), "trace_product", [7, 4]),                # 9
        _fact("nonneg", tr(mul(Y, Wi, Y2)), "trace_product", [8, 4]),                # 10
        _fact("psd", mul(W1, Wi, W1), "congruence", [6], X=W1),                      # 11
        _fact("nonneg", tr(mul(Wi, W1, Wi, W1)), "trace_product", [6, 11]),          # 12
        _fact("psd", mul(Y1, Y1), "gram", X=Y1),                                     # 13
        _fact("nonneg", tr(mul(Wi, Y1, Y1)), "trace_product", [6, 13]),              # 14
        _fact("nonneg", mul(t1, t1), "square", X=t1),                                # 15
        _fact("nonneg", sign, "sum", [15, 12, 14, 9, 10], weights=["1", "2", "4", "2", "2"]),  # 16
    ]
    return {"name": "twisted geodesics, A = R², W = I − (RΣR)² ≻ 0: t₁² + 2t₂ − 2t₃ ≥ 0",
            "symbols": {"matrices": {k: list(v) for k, v in _TWISTED_SYMBOLS.items()}, "scalars": []},
            "hypotheses": {"symmetric": _TWISTED_HYPOTHESES["symmetric"], "positive": _TWISTED_HYPOTHESES["positive"],
                           "equations": [list(e) for e in _TWISTED_HYPOTHESES["equations"]]},
            "identities": [twisted_symmetric_similarity(), twisted_symmetric_commutation()],
            "facts": facts, "conclusion": [1, 4, 16]}


def identity_nsd_inverse():
    """(I − TΣ₀)(I − FM⁻¹FᵀΣ₀) = I with M = I + FᵀΣ₀F, when T = −FFᵀ: an explicit right inverse of
    I − TΣ₀ wherever M is invertible (T = t(A + Aᵀ), F = √t·G for A + Aᵀ = −GGᵀ ⪯ 0, t ≥ 0).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    F, S0, Tm = S("F"), S("Sigma0"), S("T")
    M = add(I, mul(T(F), S0, F))
    p = Proof("T = −FFᵀ: (I − TΣ₀)(I − FM⁻¹FᵀΣ₀) = I, M = I + FᵀΣ₀F", _NSD_SYMBOLS,
              mul(sub(I, mul(Tm, S0)), sub(I, mul(F, inv(M), T(F), S0))), I, **_NSD_HYPOTHESES)
    return p.step("substitute", equation=0).step("cancel").done()


def identity_nsd_gram():
    """I + FᵀHHᵀF = I + FᵀΣ₀F when Σ₀ = HHᵀ.

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    F, H = S("F"), S("H")
    p = Proof("Σ₀ = HHᵀ: I + FᵀHHᵀF = I + FᵀΣ₀F", _NSD_SYMBOLS, add(I, mul(T(F), H, T(H), F)),
              add(I, mul(T(F), S("Sigma0"), F)), **_NSD_HYPOTHESES)
    return p.step("substitute", on="rhs", equation=1).done()


_NSD_SYMBOLS = {"F": dd, "H": dd, "Sigma0": dd, "T": dd}
_NSD_HYPOTHESES = {"symmetric": ["T", "Sigma0"],
                   "equations": [(S("T"), neg(mul(S("F"), T(S("F"))))), (S("Sigma0"), mul(S("H"), T(S("H"))))]}


def identity_nsd_theorem():
    """For every d, every Σ₀ = HHᵀ ⪰ 0 and every T = −FFᵀ ⪯ 0: M = I + FᵀΣ₀F ≻ 0, so M is invertible
    and (the identity ``identity-nsd-inverse``) I − TΣ₀ has the inverse I − FM⁻¹FᵀΣ₀.  With V = I and
    A + Aᵀ = −GGᵀ ⪯ 0, T = t(A + Aᵀ) and F = √t·G for every t ≥ 0: the closed form
    Σ(t) = Σ₀(I − t(A + Aᵀ)Σ₀)⁻¹ (proof ``closed-form-vI``) exists for all t ≥ 0 — no blow-up, for every
    Σ₀ ⪰ 0 (docs/mathematics.md §10).

    Returns
    -------
    dict
        The theorem document (:mod:`.order`): its identities, facts and conclusion.
    """
    F, H = S("F"), S("H")
    facts = [
        _fact("pd", I, "hypothesis", symbol="I"),                                             # 0
        _fact("psd", mul(T(F), H, T(H), F), "gram", X=mul(T(F), H)),                          # 1
        _fact("pd", add(I, mul(T(F), H, T(H), F)), "sum", [0, 1], weights=["1", "1"]),         # 2
        _fact("pd", add(I, mul(T(F), S("Sigma0"), F)), "identity", [2], identity=0),          # 3  M ≻ 0
    ]
    return {"name": "V = I, A + Aᵀ ⪯ 0: I − t(A + Aᵀ)Σ₀ is invertible for every t ≥ 0, Σ₀ ⪰ 0",
            "symbols": {"matrices": {k: list(v) for k, v in _NSD_SYMBOLS.items()}, "scalars": []},
            "hypotheses": {"symmetric": _NSD_HYPOTHESES["symmetric"],
                           "equations": [list(e) for e in _NSD_HYPOTHESES["equations"]]},
            "identities": [identity_nsd_gram(), identity_nsd_inverse()],
            "facts": facts, "conclusion": [3]}


def identity_blowup_similarity():
    """Σ₀(I − tSΣ₀)⁻¹ = R(I − tRSR)⁻¹R when Σ₀ = RR (R = Σ₀^{1/2}): the closed form of V = I through
    the symmetric matrix K = RSR (push-through).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    R, Sm, S0, t = S("R"), S("S"), S("Sigma0"), sc("t")
    p = Proof("Σ₀ = RR: Σ₀(I − tSΣ₀)⁻¹ = R(I − tRSR)⁻¹R", {"R": dd, "S": dd, "Sigma0": dd},
              mul(S0, inv(sub(I, mul(t, Sm, S0)))), mul(R, inv(sub(I, mul(t, R, Sm, R))), R),
              scalars=["t"], symmetric=["R", "S", "Sigma0"], equations=[(S0, mul(R, R))])
    return p.step("substitute", equation=0).step("push_through", X=R, Y=mul(num(-1), t, Sm, R),
                                                 direction="right").done()


_BLOWUP_SYMBOLS = {"K": dd, "G": dd, "P": dd}
_BLOWUP_HYPOTHESES = {"symmetric": ["K", "P"], "positive": ["P"],
                      "equations": [(S("P"), sub(I, mul(sc("b"), sc("b"), sc("lam"), I))),
                                    (S("K"), sub(mul(sc("lam"), I), mul(S("G"), T(S("G")))))]}


def identity_blowup_split():
    """P + (bG)(bG)ᵀ = I − b²K when P = (1 − b²λ)I and K = λI − GGᵀ.

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    b, G = sc("b"), S("G")
    p = Proof("P = (1 − b²λ)I, K = λI − GGᵀ: P + (bG)(bG)ᵀ = I − b²K", _BLOWUP_SYMBOLS,
              add(S("P"), mul(b, G, T(mul(b, G)))), sub(I, mul(b, b, S("K"))), scalars=["b", "lam"],
              **_BLOWUP_HYPOTHESES)
    return p.step("transpose").step("substitute", equation=0).step("substitute", on="rhs", equation=1).done()


def identity_blowup_theorem():
    """For every d: K symmetric with λI − K = GGᵀ ⪰ 0 (λ ≥ λ_max(K)), t = b² ≥ 0 and P = (1 − tλ)I ≻ 0
    (tλ < 1): I − tK ≻ 0.  With K = Σ₀^{1/2}(A + Aᵀ)Σ₀^{1/2} and λ = λ_max(K) > 0 the V = I closed form
    Σ(t) = Σ₀(I − t(A + Aᵀ)Σ₀)⁻¹ = Σ₀^{1/2}(I − tK)⁻¹Σ₀^{1/2} (``identity-blowup-similarity``) exists for
    every t < 1/λ; at a unit eigenvector u (Ku = λu) uᵀ(I − tK)⁻¹u = 1/(1 − tλ) → ∞: blow-up at exactly
    T* = 1/λ (docs/mathematics.md §10).

    Returns
    -------
    dict
        The theorem document (:mod:`.order`): its identities, facts and conclusion.
    """
    b, G = sc("b"), S("G")
    facts = [
        _fact("pd", S("P"), "hypothesis", symbol="P"),                                          # 0
        _fact("psd", mul(b, G, T(mul(b, G))), "gram", X=mul(b, G)),                             # 1
        _fact("pd", add(S("P"), mul(b, G, T(mul(b, G)))), "sum", [0, 1], weights=["1", "1"]),   # 2
        _fact("pd", sub(I, mul(b, b, S("K"))), "identity", [2], identity=0),                    # 3  I − tK ≻ 0
    ]
    return {"name": "λI − K ⪰ 0, t = b², (1 − tλ)I ≻ 0 ⇒ I − tK ≻ 0 (V = I: no blow-up before 1/λ_max)",
            "symbols": {"matrices": {k: list(v) for k, v in _BLOWUP_SYMBOLS.items()}, "scalars": ["b", "lam"]},
            "hypotheses": {"symmetric": _BLOWUP_HYPOTHESES["symmetric"], "positive": _BLOWUP_HYPOTHESES["positive"],
                           "equations": [list(e) for e in _BLOWUP_HYPOTHESES["equations"]]},
            "identities": [identity_blowup_split()],
            "facts": facts, "conclusion": [3]}


def closed_form_drift_scalar():
    """Drift model with V = vI, F = fI, R = v(A + Aᵀ): Σ(t) = eΣ₀(I − cRΣ₀)⁻¹ with ė = 2fe, ċ = e
    (e = e^{2ft}, c = (e^{2ft} − 1)/(2f), c = t for f = 0) solves Σ̇ = 2fΣ + ΣRΣ (singular Σ₀ allowed;
    docs/mathematics.md §6).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    S0, Rm, e, c, f = S("Sigma0"), S("R"), sc("e"), sc("c"), sc("f")
    X = mul(e, S0, inv(sub(I, mul(c, Rm, S0))))
    p = Proof("drift V = vI, F = fI: eΣ₀(I − cRΣ₀)⁻¹ solves Σ̇ = 2fΣ + ΣRΣ when ė = 2fe, ċ = e",
              {"Sigma0": dd, "R": dd}, ddt(X), add(mul(num(2), f, X), mul(X, Rm, X)), scalars=["e", "c", "f"],
              symmetric=["Sigma0", "R"],
              derivatives={"e": mul(num(2), f, e), "c": e, "f": num(0), "Sigma0": num(0), "R": num(0)})
    return p.step("differentiate").done()


def drift_scalar_inverse():
    """eΣ₀(I − QΣ₀)⁻¹·(Σ₀⁻¹ − Q) = eI, Q = cR: for Σ₀ ≻ 0 the drift closed form has the inverse
    e⁻¹(Σ₀⁻¹ − cR), a convex combination e⁻¹Σ₀⁻¹ + (1 − e⁻¹)P* with P* = −R/(2f) (2fc = e − 1).

    Returns
    -------
    dict
        The proof document (replayed by :meth:`.build.Proof.done`).
    """
    S0, Q, e = S("Sigma0"), S("Q"), sc("e")     # Q = cR
    p = Proof("eΣ₀(I − QΣ₀)⁻¹(Σ₀⁻¹ − Q) = eI (Q = cR)", {"Sigma0": dd, "Q": dd},
              mul(e, S0, inv(sub(I, mul(Q, S0))), sub(inv(S0), Q)), mul(e, I),
              scalars=["e"], symmetric=["Sigma0", "Q"], positive=["Sigma0"])
    p.step("push_through", X=S0, Y=neg(Q), direction="right")
    return p.step("cancel").done()


THEOREMS = {"l2-growth": l2_growth_theorem, "sinkhorn-growth": sinkhorn_growth_theorem,
            "twisted-symmetric-convexity": twisted_symmetric_convexity_theorem,
            "identity-nsd-global": identity_nsd_theorem, "identity-blowup-before": identity_blowup_theorem}
_BUILDERS.update({"identity-blowup-similarity": identity_blowup_similarity,
                  "identity-blowup-split": identity_blowup_split, "closed-form-drift-scalar": closed_form_drift_scalar,
                  "drift-scalar-inverse": drift_scalar_inverse,
                  "identity-nsd-inverse": identity_nsd_inverse, "identity-nsd-gram": identity_nsd_gram,
                  "twisted-symmetric-commutation": twisted_symmetric_commutation,
                  "energy-second-variation": energy_second_variation,
                  "similarity-sign-term": similarity_sign_term,
                  "twisted-symmetric-derivatives": twisted_symmetric_derivatives,
                  "twisted-geodesic-first-derivative": twisted_geodesic_first_derivative,
                  "l2-rr-identity": l2_rr_identity, "sinkhorn-conditional-identity": sinkhorn_conditional_identity,
                  "sinkhorn-whitening-identity": sinkhorn_whitening_identity})
NAMES = tuple(_BUILDERS)


def theorem(name: str) -> dict:
    """The theorem document called ``name``.

    Parameters
    ----------
    name : str
        A theorem name, a key of :data:`THEOREMS` ("l2-growth", "sinkhorn-growth").

    Returns
    -------
    dict
        The theorem document (:mod:`.order`).
    """
    return THEOREMS[name]()


def write_theorems(directory=None) -> list:
    """Write every theorem of :data:`THEOREMS` as ``theorems/<name>.json`` (the files the
    ``exponential-growth-theorem`` checker replays); returns the paths.

    Parameters
    ----------
    directory : str or Path, optional
        Where to write (default: the checker's ``THEOREM_DIR``).

    Returns
    -------
    list of Path
        The paths written.
    """
    import json
    from pathlib import Path

    from ...check.matrix_proofs.order import THEOREM_DIR

    out = []
    d = Path(directory) if directory else THEOREM_DIR
    for name, build in THEOREMS.items():
        path = d / f"{name}.json"
        path.write_text(json.dumps(build(), ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        out.append(path)
    return out
