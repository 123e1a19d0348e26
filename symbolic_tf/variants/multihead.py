"""Multi-head attention: Γ_μ(x) = Σ_h W_h Γ^{(h)}_μ(x), head h a single-head variant with its
own (A_h, V_h) (softmax by default)  (docs/mathematics.md §2–3).  Head h contributes C_h = W_h V_h."""
from __future__ import annotations

from ..spec.errors import InvalidParameters
from .base import ROW, Variant, lookup as get, register


@register
class MultiHead(Variant):
    name = "multihead"
    aliases = ("multi-head", "mha")
    summary = "Γ(x) = Σ_h W_h Γ^{(h)}(x), each head with its own (A_h, V_h)"
    reference = "Castin et al. §2; docs/mathematics.md §3 (multi-head closure)"
    normalisation = ROW
    matrices = ("A", "V", "W")
    composite = True
    order = 4
    default_heads = 2

    def kernel(self, x, y, P):
        """The kernel of one head (its sub-variant's kernel with that head's parameters).

        Parameters
        ----------
        x, y : sympy.Matrix or MatrixSymbol, shape (d, 1)
            Query and key token.
        P : Mapping
            One head's parameters, with its ``"variant"`` (default softmax).

        Returns
        -------
        sympy.Expr
            The head's scalar kernel.
        """
        return get(P.get("variant", "softmax")).kernel(x, y, P)

    def value(self, P):
        """The value map of one head: W_h V_h (V_h when the head has no W).

        Parameters
        ----------
        P : Mapping
            One head's parameters (``V`` and optionally ``W``).

        Returns
        -------
        sympy.Matrix or MatrixSymbol
            W_h V_h or V_h.
        """
        return P["W"] * P["V"] if P.get("W") is not None else P["V"]

    def head_variants(self, problem=None, n_heads: int | None = None) -> list[Variant]:
        """The sub-variant of each head (from the problem, else ``n_heads`` softmax heads).

        Parameters
        ----------
        problem : Problem, optional
            A multi-head problem; its heads' variants are returned.
        n_heads : int, optional
            Number of softmax heads without a problem (default :attr:`default_heads`).

        Returns
        -------
        list of Variant
            One variant per head.
        """
        if problem is not None:
            return [get(h.variant) for h in problem.heads]
        return [get("softmax") for _ in range(n_heads or self.default_heads)]

    def check_problem(self, problem) -> None:
        """Raise :class:`InvalidParameters` unless every head is a single-head (A, V) variant.

        Parameters
        ----------
        problem : Problem
            Needs at least one ``[[heads]]`` table, non-causal single-head heads and no
            ``sigmoid_bias``.
        """
        if not problem.heads:
            raise InvalidParameters("heads", "variant 'multihead' needs at least one [[heads]] table")
        for i, h in enumerate(problem.heads):
            try:
                sub = get(h.variant)
            except InvalidParameters as exc:
                raise InvalidParameters(f"heads[{i}].variant", exc.reason) from None
            if sub.composite or sub.causal or sub.matrices != ("A", "V"):
                raise InvalidParameters(
                    f"heads[{i}].variant",
                    f"a head must be a single-head (A, V) variant, not {h.variant!r}",
                )
        if problem.sigmoid_bias != 0:
            raise InvalidParameters("sigmoid_bias", "only meaningful for the sigmoid variant")

    def exact_params(self, problem) -> dict:
        """Exact parameters of every head (W_h = I when absent) and the common scale τ.

        Parameters
        ----------
        problem : Problem
            A multi-head problem.

        Returns
        -------
        dict
            ``{"heads": [{"variant", "A", "V", "W", "scale"}, ...], "scale": τ}``.
        """
        from ..exact.congruence import identity

        heads = []
        for h in problem.heads:
            heads.append({"variant": h.variant, "A": h.A, "V": h.V,
                          "W": h.W if h.W is not None else identity(problem.d),
                          "scale": problem.scale})
        return {"heads": heads, "scale": problem.scale}

    def numeric_params(self, P):
        """Float parameters of every head, via the head's own variant.

        Parameters
        ----------
        P : Mapping
            From :meth:`exact_params`.

        Returns
        -------
        dict
            ``{"heads": [(variant, float params with "W"), ...]}``.
        """
        heads = []
        for h in P["heads"]:
            sub = get(h["variant"])
            q = sub.numeric_params({k: v for k, v in h.items() if k not in ("variant", "W")})
            q["W"] = Variant.numeric_params(sub, {"W": h["W"]})["W"]
            heads.append((sub, q))
        return {"heads": heads}

    def velocity(self, Xq, Y, params, w=None, **kw):
        """Γ(x) = Σ_h W_h Γ^{(h)}(x), each head's velocity through its own variant.

        Parameters
        ----------
        Xq : ndarray, shape (M, d)
            Query points.
        Y : ndarray, shape (N, d)
            Support of μ^N.
        params : dict
            Float parameters from :meth:`numeric_params`.
        w : ndarray, shape (N,), optional
            Non-negative weights with positive sum (default uniform).
        **kw
            Passed to every head's velocity.

        Returns
        -------
        ndarray, shape (M, d)
            Γ at each query.
        """
        out = None
        for sub, q in params["heads"]:
            g = sub.velocity(Xq, Y, q, w=w, **kw) @ q["W"].T
            out = g if out is None else out + g
        return out
