"""The top-level API: ``import symbolic_tf as stf``.

Every function here is a thin, documented door to the layer that does the work (see
docs/architecture.md); the names follow SciPy/SymPy habits::

    import numpy as np
    import symbolic_tf as stf

    p = stf.Problem("softmax", A=[[1, "1/2"], [0, -1]], V=np.eye(2), cov=np.eye(2))
    stf.derive("softmax")             # the moment system (renders as LaTeX in Jupyter)
    stf.classify(p)                    # certified regime, with its certificate
    stf.check(stf.classify(p).certificate)   # re-verified with exact/ball arithmetic only

Numbers are read exactly, as problem files are: ``"1/3"`` is 1/3, ``"0.1"`` is 1/10, a
Python or numpy float is its exact binary value (so ``0.1`` is 3602879701896397/2⁵⁵).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

__all__ = ["Problem", "load", "derive", "invariance", "rhs", "integrate", "classify", "check",
           "regime_map", "verify", "steer"]


def Problem(variant: str = "softmax", *, d: int | None = None, A: Any = None, V: Any = None,
            Q: Any = None, K: Any = None, F: Any = None, b: Any = None, mean: Any = None,
            cov: Any = None, heads: Sequence[dict] | None = None, scale: Any = None, T: Any = None,
            sigmoid_bias: Any = None, name: str | None = None, description: str | None = None,
            initial: dict | None = None, phases: Sequence[dict] | None = None):
    r"""An exact problem: a variant, its parameters and the initial Gaussian N(mean, cov).

    The dynamics is the moment ODE of the variant (docs/mathematics.md §3), e.g. softmax with
    drift: α̇ = (F + V)α + VΣAα + b, Σ̇ = FΣ + ΣFᵀ + VΣAΣ + ΣAᵀΣVᵀ.

    Parameters
    ----------
    variant : str
        A registered variant (``symtf variants``): ``"softmax"``, ``"l2"``, ``"sinkhorn"``, …
    d : int, optional
        Token dimension; inferred from ``A``, ``Q``, ``cov``, ``V`` or ``mean`` when omitted.
    A, V, Q, K, F : matrix-like, optional
        Nested lists, tuples, numpy arrays or SymPy matrices.  Entries may be ints, floats
        (read as their exact binary value: ``0.1`` is 3602879701896397/36028797018963968, said
        once per value by a :class:`~symbolic_tf.spec.errors.FloatReadWarning`), strings
        ``"p/q"`` / ``"0.1"`` (exact) or ``Fraction``/SymPy rationals.  A = KᵀQ when Q and K
        are given.
    b, mean : vector-like, optional
        Drift offset and initial mean (default 0).
    cov : matrix-like, optional
        Initial covariance Σ₀, symmetric positive semidefinite (checked exactly).
    heads : list of dict, optional
        Multi-head problems: ``[{"A": …, "V": …, "W": …}, …]``.
    scale, T, sigmoid_bias : number, optional
        Temperature (A ↦ scale·A), horizon, sigmoid bias.
    name, description : str, optional
    initial : dict, optional
        A non-Gaussian initial law instead of ``mean``/``cov``, e.g.
        ``{"law": "uniform_ball", "center": [0, 0], "radius": 1}`` (docs/stability.md §1); the
        token simulation accepts it, the Gaussian moment ODE refuses it.
    phases : list of dict, optional
        A depth schedule (docs/schedules.md): ``[{"duration": "1/2"}, {"duration": 1, "A": …}]``,
        each phase naming what changes; entries of A, V, F, b may also be polynomials in the
        depth t given as strings (``"1 + t"``).

    Returns
    -------
    symbolic_tf.spec.problem.Problem
        Frozen, every entry a ``Fraction``.

    Raises
    ------
    symbolic_tf.spec.errors.InvalidParameters
        For a malformed entry, shape or a Σ₀ that is not PSD (the offending field first);
        :class:`~symbolic_tf.spec.errors.UnknownVariant` for a variant that is not registered.

    Examples
    --------
    >>> import symbolic_tf as stf
    >>> p = stf.Problem("softmax", A=[[1, 0], [0, "1/2"]], cov=[[1, 0], [0, 1]])
    >>> p.d, p.A[1][1]
    (2, Fraction(1, 2))
    """
    from .spec.problem import parse_problem
    from .spec.rational import as_lists
    from .variants import get as get_variant

    get_variant(variant)  # a typo is an error here, not at the first verb (UnknownVariant, with a suggestion)
    doc: dict = {"variant": variant}
    for key, val in (("A", A), ("V", V), ("Q", Q), ("K", K), ("F", F), ("b", b), ("scale", scale),
                     ("T", T), ("sigmoid_bias", sigmoid_bias), ("name", name),
                     ("description", description)):
        if val is not None:
            doc[key] = val
    if heads is not None:
        doc["heads"] = [dict(h) for h in heads]
    gaussian = {k: v for k, v in (("mean", mean), ("cov", cov)) if v is not None}
    if initial is not None and gaussian:
        from .spec.errors import InvalidParameters

        raise InvalidParameters("initial", "give either mean/cov (a Gaussian) or an initial law, not both")
    if initial is not None or gaussian:
        doc["initial"] = dict(initial) if initial is not None else gaussian
    if phases is not None:
        doc["phase"] = [dict(ph) for ph in phases]
    if d is None:
        for key in ("A", "Q", "V", "F"):
            if key in doc:
                m = as_lists(doc[key])
                if isinstance(m, (list, tuple)) and m:
                    d = len(m[0]) if isinstance(m[0], (list, tuple)) else 1
                    break
        else:
            if cov is not None:
                d = len(as_lists(cov))
            elif mean is not None:
                d = len(as_lists(mean))
            elif heads:
                h = dict(heads[0])
                m = as_lists(h.get("A", h.get("Q")))
                if isinstance(m, (list, tuple)) and m and isinstance(m[0], (list, tuple)):
                    d = len(m[0])
    if d is None:
        from .spec.errors import InvalidParameters

        raise InvalidParameters("d", "give d or a matrix (A, Q, V, F) or the initial cov/mean")
    doc["d"] = int(d)
    return parse_problem(doc)


def load(path: str | Path):
    """Read a problem file (TOML or JSON, every number exact); see :func:`Problem`.

    Parameters
    ----------
    path : str or Path
        A ``.toml`` or ``.json`` problem file.

    Returns
    -------
    symbolic_tf.spec.problem.Problem
        The parsed problem (relative paths resolved from the file's folder).
    """
    from .spec.problem import load_problem

    return load_problem(path)


def derive(variant: str = "softmax", *, heads: int | list | None = None, drift: bool = False, scale=1):
    r"""The Gaussian moment system (α̇, Σ̇) of a variant, derived symbolically.

    For softmax: α̇ = V(I + ΣA)α, Σ̇ = VΣAΣ + ΣAᵀΣVᵀ (docs/mathematics.md §3).

    Parameters
    ----------
    variant : str
    heads : int or list of str, optional
        Multi-head only: the number of softmax heads or their variants.
    drift : bool
        Add the affine feed-forward drift F x + b.
    scale : 1 or None
        ``None`` keeps the temperature τ as a symbol.

    Returns
    -------
    symbolic_tf.symbolic.moments.MomentSystem
        ``.latex()``, ``.entries(d)``, ``.mean_rhs``, ``.cov_rhs``; renders as LaTeX in Jupyter.

    Raises
    ------
    NotGaussianClosed
        For variants whose flow leaves the Gaussian family (unnormalised, sigmoid, masked).

    Examples
    --------
    >>> import symbolic_tf as stf
    >>> print(stf.derive("softmax").cov_rhs)
    Sigma*A.T*Sigma*V.T + V*Sigma*A*Sigma
    """
    from .symbolic.moments import derive as _derive

    return _derive(variant, heads=heads, drift=drift, scale=scale)


def invariance(variant: str):
    r"""Decide whether the variant's flow preserves Gaussian laws (docs/mathematics.md §3).

    PROVED when Γ_μ(x) = Jx + c is affine in x for every Gaussian μ (then α̇ = Jα + c,
    Σ̇ = JΣ + ΣJᵀ); REFUTED with an exact witness, a provably nonzero second x-derivative of Γ.

    Parameters
    ----------
    variant : str
        A variant name (``symbolic_tf.variants.names()``).

    Returns
    -------
    symbolic_tf.spec.verdict.Verdict

    Examples
    --------
    >>> import symbolic_tf as stf
    >>> stf.invariance("softmax").status, stf.invariance("sigmoid").status
    ('PROVED', 'REFUTED')
    """
    from .symbolic.closure import decide_invariance

    return decide_invariance(variant)


def rhs(problem, t=0):
    """α̇ and Σ̇ at the problem's exact parameters at depth ``t`` (default 0; a schedule's
    parameters at t, docs/schedules.md) and its initial Gaussian (exact when rational).

    Parameters
    ----------
    problem : Problem
        The problem (exact parameters and initial Gaussian).
    t : number
        The depth at which a schedule's parameters are taken.

    Returns
    -------
    symbolic_tf.symbolic.moments.RhsValue
        ``.mean_rhs`` (list of ``"p/q"``), ``.cov_rhs`` (rows), ``.exact``.
    """
    from .symbolic.moments import rhs as _rhs

    return _rhs(problem, t)


def integrate(problem, T: float, *, t_eval: Sequence[float] | None = None, rtol: float = 1e-10,
              atol: float = 1e-12):
    r"""Integrate the problem's moment ODE from N(mean, cov) to depth T (floating point).

    Batched Dormand–Prince on the congruence form Σ(t) = Φ(t)Σ₀Φ(t)ᵀ, Φ̇ = JΦ
    (docs/mathematics.md §4), phase by phase for a depth schedule (docs/schedules.md); it stops early at a numerical blow-up (‖Σ‖ > 1e8 or a collapsed
    step).  The result is numerical evidence, not a proof: use :func:`classify` for that.

    Parameters
    ----------
    problem : Problem
    T : float
        Final depth.
    t_eval : sequence of float, optional
        Times at which to record α(t), Σ(t).
    rtol, atol : float

    Returns
    -------
    symbolic_tf.numeric.integrate.Solution
        ``.t``, ``.alpha``, ``.Sigma`` (batch axis first, one member), ``.Sigma_end``,
        ``.status`` (0 running, 1 horizon, 2 blow-up, …), ``.t_end``.

    Examples
    --------
    >>> import symbolic_tf as stf
    >>> p = stf.Problem("softmax", A=[[1, 0], [0, 1]], V=[[1, 0], [0, 1]], cov=[[1, 0], [0, 1]])
    >>> sol = stf.integrate(p, 0.25)
    >>> round(float(sol.Sigma_end[0][0, 0]), 6)    # Σ(t) = (I − 2tI)⁻¹ = 2I at t = 1/4
    2.0
    """
    import numpy as np

    from .numeric.phases import integrate_problem
    from .spec.errors import InvalidParameters

    from .spec.initial import require_gaussian

    require_gaussian(problem)
    if problem.cov is None:
        raise InvalidParameters("initial.cov", "integration starts from the problem's initial Gaussian")
    if not (isinstance(T, (int, float)) and np.isfinite(T) and T > 0):
        raise InvalidParameters("T", f"must be a finite positive number, got {T!r}")
    te = None if t_eval is None else np.asarray(t_eval, dtype=float)
    return integrate_problem(problem, float(T), t_eval=te, rtol=rtol, atol=atol)


def classify(problem, *, uniform: bool = False, horizon: float | None = None):
    r"""The certified regime of a problem: BLOWUP [T_lo, T_hi], CLUSTERING (rank r), EQUILIBRIUM,
    BOUNDED, GLOBAL_EXISTENCE — or UNDECIDED with reasons and numerical evidence.

    Every PROVED verdict carries a certificate that :func:`check` re-verifies with exact/ball
    arithmetic only (docs/certification.md).  Example: softmax with V = I blows up at
    T* = 1/λ_max(Σ₀^{1/2}(A + Aᵀ)Σ₀^{1/2}) (docs/mathematics.md §4).

    Parameters
    ----------
    problem : Problem
    uniform : bool
        Look for a claim for every Σ₀ ≻ 0 (or a class) rather than this Σ₀.
    horizon : float, optional
        Horizon of the numerical evidence.

    Returns
    -------
    symbolic_tf.regimes.classify.Classification
        ``.regime``, ``.status``, ``.claim``, ``.T_lo``/``.T_hi``, ``.certificate`` (dict).

    Examples
    --------
    >>> import symbolic_tf as stf
    >>> p = stf.Problem("softmax", A=[[1, 0], [0, 1]], V=[[1, 0], [0, 1]], cov=[[1, 0], [0, 1]])
    >>> c = stf.classify(p)
    >>> str(c.regime), c.status, stf.check(c.certificate).ok
    ('BLOWUP', 'PROVED', True)
    """
    from .regimes.classify import classify as _classify

    return _classify(problem, uniform=uniform, horizon=horizon)


def check(certificate):
    """Re-verify a certificate (dict, :class:`Certificate` or a path to its JSON file).

    The checker re-derives the claim and status from the certificate's data with exact/ball
    arithmetic only (docs/certification.md); it shares no code with the search.

    Parameters
    ----------
    certificate : dict, Certificate, str or Path
        The certificate, or the path of its JSON file.

    Returns
    -------
    symbolic_tf.certify.check.CheckResult
        ``.ok`` (True), ``.kind``, ``.status``, ``.claim``.

    Raises
    ------
    CertificationFailed
        When the data do not prove exactly the stated claim (tampered or for another problem).
    """
    from .certify.check import check as _check

    if isinstance(certificate, (str, Path)):
        from .spec.limits import MAX_FILE_BYTES, load_json_text, read_text_file

        certificate = load_json_text(read_text_file(certificate, "certificate", max_bytes=MAX_FILE_BYTES),
                                     str(certificate))
    return _check(certificate)


def regime_map(spec, out: str | Path | None = None, *, workers: int | None = 1, progress: bool = False,
               budget: float | None = None, resume: bool = False):
    """A certified regime map of a 2-D slice (cells certified whole, quadtree refinement).

    Parameters
    ----------
    spec : dict, path or MapSpec
        A map spec (see ``examples/map_softmax_diagonal.toml``).
    out : path, optional
        Folder for resumable chunks and ``map.json``.
    workers : int, optional
        Local processes (1: in this process).
    progress : bool
        A progress bar on a terminal (chunks done, fraction of the area certified so far).
    budget : float, optional
        Wall-clock seconds; then the map is returned with what is certified so far, the cells not
        done UNDECIDED with reason ``"budget"`` (they claim nothing); calling again with the same
        ``out`` continues from the chunks written.
    resume : bool
        Require ``out`` to hold an earlier run of this spec (finished chunks are read back either way).

    Returns
    -------
    dict
        The map document (``cells``, ``totals``, …); ``symtf check map.json`` re-verifies it.
    """
    from .regimes.executors import make_executor
    from .regimes.maps import run_map
    from .spec.mapspec import load_map_spec

    if isinstance(spec, (str, Path)):
        spec = load_map_spec(spec)
    with make_executor(workers=workers) as ex:
        return run_map(spec, out, executor=ex, progress=progress, budget=budget, resume=resume)


def verify(conjecture="catalogue", *, examples: int = 100, seed: int = 0):
    """Hunt a conjecture for certified counterexamples (hypothesis), or run the catalogue.

    Parameters
    ----------
    conjecture : "catalogue", a path to a conjecture TOML, its decoded dict, or a Conjecture
    examples : int
        Examples per claim.
    seed : int

    Returns
    -------
    report or list of reports
        PROVED / REFUTED (certified counterexample) / "no counterexample in N examples".
    """
    if isinstance(conjecture, str) and conjecture == "catalogue":
        from .conjectures.catalogue import run_catalogue

        return run_catalogue(examples=examples, seed=seed)
    from .conjectures.catalogue import conjecture_from_toml
    from .conjectures.core import verify as _verify

    if isinstance(conjecture, (str, Path)):
        from .spec.problem import read_document

        conjecture = conjecture_from_toml(read_document(conjecture, "conjecture file"))
    elif isinstance(conjecture, dict):
        conjecture = conjecture_from_toml(conjecture)
    return _verify(conjecture, examples=examples, seed=seed)


def steer(problem, target, T=1, *, controls: str = "any", max_norm=None, optimise: bool = False,
          phases: int = 4, seed: int = 0):
    r"""A piecewise-constant control schedule taking N(mean, cov) to the target Gaussian at depth T.

    E.g. attention alone (V = I) with B = (Σ₀⁻¹ − Σ₁⁻¹)/(2T), then a bias phase for the mean
    (docs/mathematics.md §6); rank mismatches and norm bounds are reported as REFUTED.

    Parameters
    ----------
    problem : Problem
        Its initial Gaussian is the start.
    target : (mean, cov) or dict with ``cov`` (and ``mean``)
    T : number
        Depth (exact).
    controls : {"any", "attention", "feedforward"}
    max_norm : number, optional
    optimise : bool
        Search a bounded schedule numerically when no constructive one fits (UNDECIDED).

    Returns
    -------
    symbolic_tf.control.steer.SteeringResult
        ``.verdict``, ``.schedule``, ``.certified_bound``.
    """
    from .control.steer import steer as _steer
    from .spec.errors import InvalidParameters
    from .spec.rational import to_fraction, to_matrix, to_vector

    if problem.cov is None:
        raise InvalidParameters("initial.cov", "steering starts from the problem's initial Gaussian")
    d = problem.d
    if isinstance(target, dict):
        tm, tc = target.get("mean", [0] * d), target["cov"]
    else:
        tm, tc = target
    tgt = (to_vector(tm, "target mean", d), to_matrix(tc, "target cov", (d, d)))
    mean0 = problem.mean if problem.mean is not None else tuple([0] * d)
    mn = None if max_norm is None else to_fraction(max_norm, "max_norm")
    return _steer((mean0, problem.cov), tgt, to_fraction(T, "T"), controls=controls, max_norm=mn,
                  optimise=optimise, phases=phases, seed=seed)
