"""The main job's report: every variant's moment system and Gaussian-invariance verdict.

Written to ``OUT/report.md`` (Markdown), ``OUT/report.html`` (the same document as one
self-contained HTML page: figures embedded as base64, no script, no external style) and
``OUT/report.json`` (machine), atomically.

Both human versions are rendered from one list of blocks (headings, paragraphs, preformatted
matrices, figures), so they say the same thing.  Matrices are printed with their exact entries
in bracket notation (one row per line, rows aligned), the form they take in a problem file;
each term of art is linked, where it is first used, to a one-line definition in the report's
"Terms" section.
"""
from __future__ import annotations

import base64
import html as _html
import platform
import re
import sys
import time
from fractions import Fraction
from pathlib import Path

from .atomic import write_json_atomic, write_text_atomic
from .display import verdict_label
from .exact.rational import float_of

__all__ = ["build_report", "matrix_text", "EXAMPLES"]


# ----------------------------------------------------------------------------------------
# the built-in examples (exact parameters: strings "p/q" or integers)
# ----------------------------------------------------------------------------------------
EXAMPLES = {
    "softmax_identity_blowup": ("softmax, V = I, A + Aᵀ indefinite", {
        "variant": "softmax", "d": 2, "A": [[1, "1/2"], ["-1/4", "-1/3"]], "V": [[1, 0], [0, 1]],
        "initial": {"cov": [["3/4", "1/8"], ["1/8", "1/4"]]}}),
    "softmax_identity_clustering": ("softmax, V = I, A + Aᵀ ⪯ 0 with a 2-dim kernel", {
        "variant": "softmax", "d": 3, "A": [[-1, 1, 0], [-1, 0, "1/2"], [0, "-1/2", 0]],
        "V": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "initial": {"cov": [[1, "1/3", 0], ["1/3", 1, 0], [0, 0, "1/2"]]}}),
    "drift_equilibrium": ("Alcalde's drift model, V = −I, R ≺ 0, F anti-Hurwitz", {
        "variant": "softmax", "d": 2, "A": [[1, "1/2"], [0, 1]], "V": [[-1, 0], [0, -1]],
        "F": [[1, "1/4"], ["-1/4", "3/2"]], "b": [0, 1], "initial": {"cov": [[1, 0], [0, 1]]}}),
    "drift_blowup": ("drift model, V = 2I, F = I/2, R ≻ 0", {
        "variant": "softmax", "d": 2, "A": [[1, "1/2"], [0, "1/3"]], "V": [[2, 0], [0, 2]],
        "F": [["1/2", 0], [0, "1/2"]], "initial": {"cov": [[1, "1/4"], ["1/4", "1/2"]]}}),
    "general_V_bounded": ("softmax, non-symmetric V, A = −I (LMI)", {
        "variant": "softmax", "d": 2, "A": [[-1, 0], [0, -1]], "V": [[1, 10], [0, 1]],
        "initial": {"cov": [[1, 0], [0, 1]]}}),
    "sinkhorn_growth": ("Sinkhorn: no finite-time blow-up", {
        "variant": "sinkhorn", "d": 2, "A": [[1, "1/2"], [0, 1]], "V": [[1, 0], [0, 1]],
        "initial": {"cov": [[1, 0], [0, 1]]}}),
}

#: (anchor, term, one-line definition) of every term of art the report uses
TERMS = [
    ("term-gamma", "Γ (velocity field)",
     "Γ_μ(x) is the velocity of a token at x when the tokens are distributed as μ: ẋ = Γ_μ(x) "
     "(one layer = a time step of this flow; depth plays the role of time t)."),
    ("term-parameters", "A, V, Σ₀, α₀, F, b",
     "A = KᵀQ is the attention matrix (the logit of query x and key y is yᵀAx), V the value matrix, "
     "N(α₀, Σ₀) the initial Gaussian law of the tokens (α₀ = 0 when not given), and Fx + b the affine "
     "feed-forward drift of the drift model."),
    ("term-gaussian-invariance", "Gaussian invariance",
     "the flow maps every Gaussian law N(α, Σ) to a Gaussian law; the law at depth t is then exactly "
     "N(α(t), Σ(t)), and α, Σ obey the moment system (ODEs) printed under each variant."),
    ("term-verdict", "PROVED / REFUTED / UNDECIDED",
     "a PROVED or REFUTED verdict carries exact rational (or ball) data that an independent checker "
     "re-verifies; UNDECIDED means neither could be shown (the reason is given). Floating-point "
     "numbers are labelled numerical evidence and prove nothing."),
    ("term-witness", "exact witness",
     "a rational instance (dimension, parameters, a Gaussian law or mixture, a point x₀ and a direction "
     "u) at which the second derivative of Γ along u is provably nonzero, so Γ is not affine in x and "
     "Gaussians are not preserved."),
    ("term-loewner", "M ≻ 0, M ⪰ 0, M ≺ 0, M ⪯ 0, indefinite",
     "for a symmetric matrix M: positive definite (xᵀMx > 0 for every x ≠ 0), positive semidefinite "
     "(≥ 0), negative definite (−M ≻ 0), negative semidefinite (−M ⪰ 0); indefinite: eigenvalues of "
     "both signs."),
    ("term-r", "R",
     "in the drift model with V = vI, R := v(A + Aᵀ); with P = Σ⁻¹ the covariance equation becomes "
     "linear, Ṗ = −(FᵀP + PF) − R, and the signs of R and of F's eigenvalues decide the regime."),
    ("term-hurwitz", "Hurwitz, anti-Hurwitz",
     "F is Hurwitz when every eigenvalue of F has negative real part, anti-Hurwitz when every "
     "eigenvalue has positive real part (−F is Hurwitz)."),
    ("term-lmi", "LMI",
     "linear matrix inequality: the certificate is an exact rational symmetric matrix P whose "
     "definiteness conditions, checked in rational arithmetic, imply the claim."),
    ("term-tstar", "T*",
     "the blow-up time, the depth at which ‖Σ(t)‖ becomes infinite; a certificate encloses it in "
     "[T_lo, T_hi] with rational ends."),
    ("term-regimes", "BLOWUP, CLUSTERING, EQUILIBRIUM, BOUNDED, GLOBAL_EXISTENCE",
     "BLOWUP: Σ(t) blows up at a finite depth T*. CLUSTERING: Σ(t) exists for all t and converges to a "
     "singular limit (its rank is the limit rank): the tokens concentrate near a lower-dimensional "
     "subspace. EQUILIBRIUM: Σ(t) converges to a positive definite Σ*. BOUNDED: Σ(t) exists for all t "
     "and stays bounded. GLOBAL_EXISTENCE: Σ(t) exists for all t with ‖Σ(t)‖ ≤ ‖Σ₀‖e^{γt}."),
    ("term-quantifier", "for this Σ₀ / for every Σ₀ ≻ 0",
     "which initial covariances a claim covers: the example's own Σ₀, or all of them (with the same "
     "A, V, F, b)."),
    ("term-regime-map", "certified regime map",
     "the parameter plane cut into boxes; a coloured box is certified whole (one certificate covers "
     "every point of it), a hatched one has no whole-cell certificate (UNDECIDED)."),
]

#: phrases linked to their definition at first use (longest first, so "anti-Hurwitz" beats "Hurwitz")
_LINKS = [("Gaussian invariance", "term-gaussian-invariance"), ("anti-Hurwitz", "term-hurwitz"),
          ("Hurwitz", "term-hurwitz"), ("R ≺ 0", "term-r"), ("R ≻ 0", "term-r"), ("R ⪯ 0", "term-r"),
          ("indefinite", "term-loewner"), ("⪯ 0", "term-loewner"), ("⪰ 0", "term-loewner"),
          ("≻ 0", "term-loewner"), ("≺ 0", "term-loewner"), ("LMI", "term-lmi"), ("T*", "term-tstar"),
          ("exact witness", "term-witness"), ("numerical evidence", "term-verdict"),
          ("UNDECIDED", "term-verdict"), ("PROVED", "term-verdict"), ("REFUTED", "term-verdict"),
          ("GLOBAL_EXISTENCE", "term-regimes"), ("BLOWUP", "term-regimes"), ("CLUSTERING", "term-regimes"),
          ("EQUILIBRIUM", "term-regimes"), ("BOUNDED", "term-regimes"), ("limit rank", "term-regimes"),
          ("this Σ₀", "term-quantifier"), ("every Σ₀", "term-quantifier"), ("Γ", "term-gamma"),
          ("A, V, F, b and Σ₀", "term-parameters"), ("certified regime map", "term-regime-map")]
_LINK_RE = re.compile("|".join(re.escape(p) for p, _ in _LINKS))
_LINK_OF = dict(_LINKS)


# ----------------------------------------------------------------------------------------
# matrices with exact entries
# ----------------------------------------------------------------------------------------
def _entry(x) -> str:
    """An exact entry as ``p/q`` (ASCII minus, as in a problem file); a non-rational one as given."""
    try:
        q = Fraction(str(x).strip())
    except (ValueError, ZeroDivisionError):
        return str(x)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def matrix_text(name: str, value) -> list[str]:
    """A matrix, vector or scalar with exact entries as aligned text lines.

    A p×q matrix M is printed as ``name = [ m₁₁  m₁₂ ]`` with one bracketed row per line (the
    continuation rows indented under the first), columns right-aligned; a vector v ∈ ℚⁿ as the
    column n×1; a scalar as ``name = s``.  Rational entries are written ``p/q`` in lowest terms
    (the form of a problem file), other entries (a symbolic expression) as given.

    Parameters
    ----------
    name : str
        The symbol printed before ``=`` (e.g. ``"A"``, ``"Σ₀"``).
    value : scalar, list of scalars, or list of lists
        The exact value (strings ``"p/q"``, ints, Fractions or expressions).

    Returns
    -------
    list of str
        The lines, without trailing newlines.
    """
    if not isinstance(value, (list, tuple)):
        return [f"{name} = {_entry(value)}"]
    rows = [list(r) if isinstance(r, (list, tuple)) else [r] for r in value]
    cells = [[_entry(x) for x in r] for r in rows]
    ncol = max((len(r) for r in cells), default=0)
    width = [max(len(r[j]) for r in cells if j < len(r)) for j in range(ncol)]
    head = f"{name} = "
    lines = []
    for i, r in enumerate(cells):
        body = "  ".join(c.rjust(width[j]) for j, c in enumerate(r))
        lines.append((head if i == 0 else " " * len(head)) + f"[ {body} ]")
    return lines


def _problem_matrices(doc: dict) -> list[str]:
    """The exact parameters of a problem document, one matrix after the other."""
    out = [f"variant: {doc['variant']}, d = {doc['d']}"]
    names = {"A": "A", "V": "V", "F": "F", "b": "b"}
    for key, sym in names.items():
        if key in doc:
            out += [""] + matrix_text(sym, doc[key])
    init = doc.get("initial", {})
    if "mean" in init:
        out += [""] + matrix_text("α₀", init["mean"])
    if "cov" in init:
        out += [""] + matrix_text("Σ₀", init["cov"])
    return out


def _witness_lines(ev: dict) -> list[str]:
    """An invariance witness (instance, point, direction, derivative) as exact matrices."""
    inst = ev["instance"]
    lines = [f"dimension d = {inst['d']}"]
    for key, val in inst.get("parameters", {}).items():
        lines += [""] + matrix_text(key, val)
    for k, comp in enumerate(inst.get("law", []), start=1):
        tag = f"component {k} of the law (weight {_entry(comp['weight'])})"
        lines += ["", tag + ":"] + matrix_text("  mean", comp["mean"]) + matrix_text("  cov", comp["cov"])
    lines += [""] + matrix_text("x₀", inst["x0"]) + [""] + matrix_text("u", inst["direction"])
    lines += ["", f"order-{ev['order']} derivative of Γ along u at x₀:"] + matrix_text("  D", ev["derivative"])
    if ev.get("ball"):
        mid, rad = ev["ball"]
        lines.append(f"  (component {ev.get('component', 0)} lies in the ball {float(mid):.12g} ± {float(rad):.2g}, "
                     "which excludes 0)")
    return lines


def _pretty(text: str) -> str:
    """A SymPy matrix expression in readable Unicode: ``V*Sigma*A.T`` → ``VΣAᵀ``, ``**(-1)`` → ``⁻¹``."""
    s = re.sub(r"d/dt (\w+) =", lambda m: m.group(1) + "\u0307 =", text)
    s = s.replace("**(-1)", "⁻¹").replace("**(1/2)", "^(1/2)").replace(".T", "ᵀ")
    s = re.sub(r"\bSigma", "Σ", s)
    s = re.sub(r"\balpha", "α", s)
    s = re.sub(r"_(\d)", lambda m: "₀₁₂₃₄₅₆₇₈₉"[int(m.group(1))], s)
    return s.replace("*", "")


# ----------------------------------------------------------------------------------------
# one document, two renderings
# ----------------------------------------------------------------------------------------
class _Doc:
    """Blocks of the report: ("h", level, text, anchor), ("p", text), ("pre", lines),
    ("math", latex), ("img", alt, path, caption), ("ul", [text]), ("terms",)."""

    def __init__(self):
        self.blocks: list[tuple] = []

    def add(self, *block):
        self.blocks.append(block)


def _inline(text: str, seen: set, fmt: str) -> str:
    """``**bold**`` and ``\u0060code\u0060`` markup, and each term linked to its definition at first use."""
    out = []
    for k, part in enumerate(re.split(r"(\*\*[^*]+\*\*|`[^`]+`)", text)):
        if k % 2 == 1:
            inner = part[2:-2] if part.startswith("**") else part[1:-1]
            if part.startswith("`"):
                out.append(f"`{inner}`" if fmt == "md" else f"<code>{_html.escape(inner)}</code>")
                continue
            body = _inline(inner, seen, fmt)
            out.append(f"**{body}**" if fmt == "md" else f"<strong>{body}</strong>")
            continue
        pos = 0
        for m in _LINK_RE.finditer(part):
            anchor = _LINK_OF[m.group(0)]
            out.append(_esc(part[pos:m.start()], fmt))
            if m.group(0) in seen:  # linked once, where first used
                out.append(_esc(m.group(0), fmt))
            else:
                seen.add(m.group(0))
                out.append(f"[{_esc(m.group(0), fmt)}](#{anchor})" if fmt == "md"
                           else f'<a href="#{anchor}">{_esc(m.group(0), fmt)}</a>')
            pos = m.end()
        out.append(_esc(part[pos:], fmt))
    return "".join(out)


def _esc(text: str, fmt: str) -> str:
    if fmt == "html":
        return _html.escape(text, quote=False)
    return re.sub(r"([*`<])", r"\\\1", text)  # Markdown: a star, backquote or "<" stays literal


def _render_md(doc: _Doc) -> str:
    seen: set = set()
    md: list[str] = []
    for b in doc.blocks:
        kind = b[0]
        if kind == "h":
            md += [("#" * b[1]) + " " + b[2] + (f' <a id="{b[3]}"></a>' if b[3] else ""), ""]
        elif kind == "p":
            md += [_inline(b[1], seen, "md"), ""]
        elif kind == "ul":
            md += ["- " + _inline(t, seen, "md") for t in b[1]] + [""]
        elif kind == "pre":
            md += ["```text", *b[1], "```", ""]
        elif kind == "math":
            md += ["$$", b[1], "$$", ""]
        elif kind == "img":
            md += [f"![{b[1]}]({b[2]})", "", "*" + _inline(b[3], seen, "md") + "*", ""]
        elif kind == "terms":
            md += [f'- <a id="{a}"></a>**{_esc(t, "md")}**: {_esc(d, "md")}' for a, t, d in TERMS] + [""]
    return "\n".join(md) + "\n"


_CSS = """body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:60rem;margin:2rem auto;
padding:0 1rem;line-height:1.5;color:#222}pre{background:#f6f8fa;padding:.6rem .8rem;overflow-x:auto;
font-size:.9rem;line-height:1.35}code{background:#f6f8fa;padding:0 .2rem}figure{margin:1rem 0}
figure img{max-width:100%}figcaption{font-style:italic;font-size:.95rem}details{margin:.3rem 0 1rem}
h2{border-bottom:1px solid #ddd;padding-bottom:.2rem}dt{font-weight:bold}dd{margin:0 0 .5rem 1.5rem}"""


def _render_html(doc: _Doc, out: Path, title: str) -> str:
    seen: set = set()
    h = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
         f"<title>{_html.escape(title)}</title>", f"<style>{_CSS}</style>", "</head>", "<body>"]
    for b in doc.blocks:
        kind = b[0]
        if kind == "h":
            ident = f' id="{b[3]}"' if b[3] else ""
            h.append(f"<h{b[1]}{ident}>{_html.escape(b[2])}</h{b[1]}>")
        elif kind == "p":
            h.append(f"<p>{_inline(b[1], seen, 'html')}</p>")
        elif kind == "ul":
            h.append("<ul>" + "".join(f"<li>{_inline(t, seen, 'html')}</li>" for t in b[1]) + "</ul>")
        elif kind == "pre":
            h.append("<pre>" + _html.escape("\n".join(b[1])) + "</pre>")
        elif kind == "math":
            h.append("<details><summary>LaTeX source</summary><pre>" + _html.escape(b[1]) + "</pre></details>")
        elif kind == "img":
            data = base64.b64encode((out / b[2]).read_bytes()).decode("ascii")
            h.append(f'<figure><img src="data:image/png;base64,{data}" alt="{_html.escape(b[1])}">'
                     f"<figcaption>{_inline(b[3], seen, 'html')}</figcaption></figure>")
        elif kind == "terms":
            h.append("<dl>" + "".join(f'<dt id="{a}">{_html.escape(t)}</dt><dd>{_html.escape(d)}</dd>'
                                      for a, t, d in TERMS) + "</dl>")
    h += ["</body>", "</html>"]
    return "\n".join(h) + "\n"


# ----------------------------------------------------------------------------------------
# the report
# ----------------------------------------------------------------------------------------
def build_report(out: str | Path, progress: bool = True) -> dict:
    """Build the report: for every variant (and softmax with drift) its Gaussian-invariance verdict
    and, when PROVED, its moment system α̇ = Jα + c, Σ̇ = JΣ + ΣJᵀ (Γ(x) = Jx + c); the certified
    regimes of the built-in examples (:data:`EXAMPLES`, with their exact parameters and
    certificates in ``OUT/certificates/``) and a certified regime map (``OUT/regime_map/``).

    Parameters
    ----------
    out : str or Path
        The output folder ``OUT``; ``report.md``, ``report.html`` and ``report.json`` are written
        there.
    progress : bool
        Print progress lines to stderr.

    Returns
    -------
    dict
        The JSON summary (schema ``symbolic_tf.report/1``): version, variants, regimes (each with
        its exact ``parameters``), the regime map's totals, run and check, and the ``figures`` and
        ``documents`` written (paths relative to ``OUT``).
    """
    import sympy as sp

    from . import variants
    from .version import __version__
    from .symbolic.closure import decide_invariance
    from .symbolic.moments import derive

    out = Path(out)
    rows = []
    names = variants.names()
    systems = [(n, {}) for n in names] + [("softmax", {"drift": True})]
    for i, (name, opts) in enumerate(systems, start=1):
        label = name + (" + drift" if opts.get("drift") else "")
        if progress:
            print(f"[{i}/{len(systems)}] {label} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        verdict = decide_invariance(name)
        row = {"variant": label, "invariance": verdict.to_dict()}
        if verdict.status == "PROVED":
            system = derive(name, **opts)
            row["system"] = system.to_dict()
            row["text"] = system.text()
            row["latex"] = system.latex()
        row["seconds"] = round(time.perf_counter() - t0, 3)
        rows.append(row)
        if progress:
            print(f"    {verdict.status} ({row['seconds']} s)", file=sys.stderr, flush=True)
    regimes = _certified_examples(out, progress)
    rmap = _regime_map(out, progress)
    map_png = "regime_map/map.png"

    title = "symbolic_tf report: Gaussian moment systems of every attention variant"
    doc = _Doc()
    doc.add("h", 1, title, "")
    doc.add("p", f"symbolic_tf {__version__}, SymPy {sp.__version__}, Python {platform.python_version()}.")
    doc.add("p", "Tokens x ∈ ℝ^d move with depth t by ẋ = Γ_μ(x), where μ is their distribution. For each "
                 "attention variant the report decides Gaussian invariance: PROVED when the velocity field "
                 "is affine in x for every Gaussian (then the moment system below is exact), REFUTED by an "
                 "exact witness (a derivative of order ≥ 2 of Γ that is provably nonzero). Then it certifies "
                 "the regime of six built-in examples and draws a certified regime map. Conventions: A = KᵀQ, "
                 "no temperature; every term in a link is defined under Terms.")
    doc.add("h", 2, "Terms", "terms")
    doc.add("terms")
    doc.add("h", 1, "Gaussian invariance and moment systems of every variant", "variants")
    for row in rows:
        inv = row["invariance"]
        doc.add("h", 2, row["variant"], "")
        doc.add("p", f"**Gaussian invariance: {inv['status']}** — {inv['reason']}")
        if "latex" in row:
            doc.add("pre", [_pretty(line) for line in row["text"].splitlines()])
            doc.add("math", row["latex"])
        elif inv["status"] == "REFUTED":
            ev = inv["evidence"]
            doc.add("p", "The exact witness (a law and a point at which Γ is not affine):")
            doc.add("pre", _witness_lines(ev))
    doc.add("h", 1, "Certified regimes of built-in examples", "regimes")
    doc.add("p", "Each verdict below carries a certificate in `certificates/NAME.json`, re-verified by the "
                 "independent checker (`symtf check FILE`). The parameters A, V, F, b and Σ₀ are printed with "
                 "their exact entries p/q, as in a problem file.")
    for r in regimes:
        doc.add("h", 2, f"{r['name']}: {verdict_label(r['regime'], r['status'])}", "")
        doc.add("p", r["description"] + ".")
        doc.add("pre", _problem_matrices(r["parameters"]))
        claim = r.get("claim") or r.get("reason") or ""
        line = f"**{verdict_label(r['regime'], r['status'])}**: {claim}"
        if r.get("T_lo"):
            line += f"; to 15 digits, T* ∈ [{float_of(r['T_lo']):.15g}, {float_of(r['T_hi']):.15g}]"
        doc.add("p", line + f". Route `{r.get('route')}`; re-checked by the kernel: {r['checked']}.")
        data = {**((r.get("claim_data") or {}).get("params") or {}), **(r.get("certificate_data") or {})}
        shown = [(k, v) for k, v in data.items() if _is_exact_array(v)]
        if shown:
            doc.add("p", f"Exact data of the certificate (kind `{r.get('certificate_kind')}`):")
            lines: list[str] = []
            for k, v in shown:
                lines += ([""] if lines else []) + matrix_text(_symbol(k), v)
            doc.add("pre", lines)
    t = rmap["totals"]
    doc.add("h", 1, "A certified regime map", "regime-map")
    doc.add("p", f"{rmap['spec']['name']}: {100 * t['decided_fraction']:.2f}% of the area certified cell by cell "
                 f"({len(rmap['cells'])} cells, {rmap['run']['wall_seconds']} s); "
                 + ", ".join(f"{k} {100 * v:.1f}%" for k, v in t["fraction_by_regime"].items())
                 + f". Every cell's certificate is in `regime_map/map.json` (`symtf check` re-verifies them). "
                 f"Re-checked: {rmap['checked']}.")
    doc.add("img", "certified regime map", map_png,
            f"The certified regime map of {rmap['spec']['name']}: each coloured cell is certified whole "
            "(one certificate for every point of the cell), its colour the regime (for blow-up, the certified "
            "upper bound on T*); hatched cells have no whole-cell certificate (UNDECIDED), and a dot marks a verdict "
            "proved at such a cell's centre only. The dashed curve is the closed-form boundary (floats).")

    write_text_atomic(out / "report.md", _render_md(doc))
    write_text_atomic(out / "report.html", _render_html(doc, out, title))
    summary = {"schema": "symbolic_tf.report/1", "tool": "symbolic_tf", "version": __version__, "variants": rows,
               "regimes": regimes,
               "regime_map": {"totals": t, "run": rmap["run"], "checked": rmap["checked"]},
               "figures": [map_png], "documents": ["report.md", "report.html", "report.json"]}
    write_json_atomic(out / "report.json", summary)
    return summary


def _symbol(key: str) -> str:
    """A certificate field's name as a symbol: ``Sigma_star`` → ``Σ*``, ``alpha_star`` → ``α*``."""
    key = re.sub(r"_star$", "*", key)
    return re.sub(r"^Sigma", "Σ", re.sub(r"^alpha", "α", re.sub(r"^gamma$", "γ", key)))


def _is_exact_array(v) -> bool:
    """A rational scalar string, or a (nested) list of them: printable as an exact matrix."""
    if isinstance(v, (list, tuple)):
        return bool(v) and all(_is_exact_array(x) for x in v)
    if isinstance(v, str):
        try:
            Fraction(v)
        except (ValueError, ZeroDivisionError):
            return False
        return True
    return False


def _regime_map(out: Path, progress: bool) -> dict:
    """Slice (a) of the regime-map reproduction at 128×128-equivalent resolution, re-checked."""
    from .plots import regime_map_figure
    from .regimes.executors import SerialExecutor
    from .regimes.maps import check_map, run_map, theory_fields
    from .reproduce.regimes import map_specs
    from .spec.mapspec import parse_map_spec

    spec = parse_map_spec(dict(map_specs(quick=True)["a_softmax_A"], max_depth=3))
    doc = run_map(spec, executor=SerialExecutor())
    write_json_atomic(out / "regime_map" / "map.json", doc)
    regime_map_figure(doc, out / "regime_map" / "map", theory=theory_fields(spec), formats=("png",))
    check_map(doc)  # raises CertificationFailed on any bad cell
    doc["checked"] = "OK"
    if progress:
        print(f"  regime map: {100 * doc['totals']['decided_fraction']:.2f}% certified, checked", flush=True)
    return doc


def _certified_examples(out: Path, progress: bool) -> list[dict]:
    """Classify the built-in examples, write their certificates, re-check each one."""
    from .certify.check import check
    from .regimes.classify import classify
    from .spec import parse_problem

    rows = []
    for name, (desc, doc) in EXAMPLES.items():
        t0 = time.perf_counter()
        c = classify(parse_problem(doc))
        row = {"name": name, "description": desc, "parameters": _exact_doc(doc), **c.to_dict()}
        row.pop("certificate", None)
        row["checked"] = False
        if c.certificate is not None:
            path = write_json_atomic(out / "certificates" / f"{name}.json", c.certificate)
            row["certificate_file"] = str(path)
            row["certificate_kind"] = c.certificate.get("kind")
            row["certificate_data"] = c.certificate.get("data", {})
            row["checked"] = check(c.certificate).ok
        row["seconds"] = round(time.perf_counter() - t0, 3)
        if progress:
            print(f"[regime] {name}: {verdict_label(c.regime, c.status)}, checked {row['checked']}", file=sys.stderr, flush=True)
        rows.append(row)
    return rows


def _exact_doc(doc):
    """The problem document with every number as its exact ``p/q`` string (JSON-ready)."""
    if isinstance(doc, dict):
        return {k: (v if k == "variant" or k == "d" else _exact_doc(v)) for k, v in doc.items()}
    if isinstance(doc, (list, tuple)):
        return [_exact_doc(x) for x in doc]
    return _entry(doc)
