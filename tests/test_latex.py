"""Every piece of TeX a reader meets parses: the ``_repr_latex_`` of the package's objects, the
math of the documentation pages and the mathtext of the figures' titles and labels; and every
attribute the docs use on a Problem, a Solution or a Classification exists.

The parser is matplotlib's mathtext (``MathTextParser("path").parse``), an independent TeX
reader.  It covers less than LaTeX or MathJax; where a construct is valid TeX that mathtext
lacks, the test rewrites it by one of the documented substitutions below (never by dropping
text), or, for the docs' math, lists it in ``MATHJAX_ONLY`` with the reason.

Substitutions (``to_mathtext``):

* ``\\textbf{…}`` → ``\\text{…}``: bold text is LaTeX/MathJax text mode; mathtext has ``\\text``
  only (the words are parsed the same way);
* ``\\begin{aligned} r₁ \\\\ r₂ \\end{aligned}`` → each row ``rᵢ`` parsed on its own, with the
  alignment marks ``&`` removed: mathtext has no environments;
* ``\\Big``, ``\\big``, ``\\Bigl``… before a delimiter → the delimiter alone (sizing only);
* ``\\!`` (negative thin space) → nothing (spacing only); a line break → a space (TeX reads it so).
* ``\\le``, ``\\ge`` → ``\\leq``, ``\\geq`` (the same symbols under their long names);
  ``\\tfrac`` → ``\\frac`` (text-style size only); ``\\frac12`` → ``\\frac{1}{2}`` (TeX reads
  one-token arguments without braces, mathtext does not).
"""
from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

mathtext = pytest.importorskip("matplotlib.mathtext")
_PARSER = mathtext.MathTextParser("path")


# ---------------------------------------------------------------------------------- the reader
def strip_delimiters(tex: str) -> str:
    """Remove one pair of outer delimiters, as a notebook renderer does (``\\(…\\)``, ``\\[…\\]``,
    ``$$…$$``, ``$…$``, in that order), and require that no unescaped ``$`` is left inside."""
    s = tex.strip()
    for a, b in ((r"\(", r"\)"), (r"\[", r"\]"), ("$$", "$$"), ("$", "$")):
        if s.startswith(a) and s.endswith(b) and len(s) >= len(a) + len(b):
            s = s[len(a):len(s) - len(b)]
            break
    else:
        raise AssertionError(f"no outer math delimiters: {tex[:80]!r}")
    assert not re.search(r"(?<!\\)\$", s), f"a '$' inside the formula (invalid TeX once delimited): {tex[:120]!r}"
    return s


def to_mathtext(body: str) -> list[str]:
    """The formula as one or more mathtext inputs, by the module's documented substitutions."""
    body = body.replace(r"\textbf{", r"\text{").replace(r"\!", "").replace("\n", " ")
    body = re.sub(r"\\(le|ge)(?![A-Za-z])", r"\\\1q", body).replace(r"\tfrac", r"\frac")
    body = re.sub(r"\\frac(\w)(\w)", r"\\frac{\1}{\2}", body)
    body = re.sub(r"\\[Bb]ig{1,2}[lr]?(?=[\\(\[\])|.])", "", body)
    m = re.fullmatch(r"\s*\\begin\{aligned\}(.*)\\end\{aligned\}\s*", body, flags=re.S)
    if m:
        return [row.replace("&", "") for row in re.split(r"\\\\", m.group(1)) if row.strip()]
    return [body]


def parses(tex: str, *, delimited: bool = True) -> None:
    """Raise AssertionError unless ``tex`` (with its delimiters when ``delimited``) parses."""
    body = strip_delimiters(tex) if delimited else tex
    assert body.count("{") - body.count(r"\{") == body.count("}") - body.count(r"\}"), f"unbalanced braces: {tex!r}"
    for piece in to_mathtext(body):
        try:
            _PARSER.parse(f"${piece.strip()}$")
        except ValueError as exc:  # mathtext's ParseException is a ValueError
            raise AssertionError(f"mathtext cannot parse {piece.strip()!r} (from {tex[:100]!r}): {exc}") from exc


def test_the_reader_rejects_what_the_issue_showed():
    """The malformed display of issue 51 — two formulas glued by text — is caught."""
    with pytest.raises(AssertionError, match="inside the formula"):
        parses(r"$\textbf{BLOWUP (PROVED)}$: $\text{for this Σ₀}$")
    with pytest.raises(AssertionError, match="cannot parse"):
        parses(r"$\frac{1}$")
    parses(r"$\textbf{BLOWUP (PROVED)}\text{: for this Σ₀}$")


# ------------------------------------------------------------------- the objects' _repr_latex_
def _defined_repr_latex() -> set[str]:
    """Every class in the package that defines ``_repr_latex_`` (read from the source)."""
    found = set()
    for path in (ROOT / "symbolic_tf").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "_repr_latex_" not in text:
            continue
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(f, ast.FunctionDef) and f.name == "_repr_latex_" for f in node.body):
                found.add(node.name)
    return found


@pytest.fixture(scope="module")
def representatives():
    """class name → objects of that class, from the public API (one of each verdict shape)."""
    import numpy as np

    import symbolic_tf as stf
    from symbolic_tf.spec.verdict import Verdict

    p = stf.Problem("softmax", A=[[1, "1/3"], [0, "1/7"]], V=np.eye(2), cov=[[1, 0], [0, "1/2"]])
    proved = stf.classify(p)                                        # BLOWUP (PROVED), a bracket
    undecided = stf.classify(stf.Problem("softmax", A=[[1, 0], [0, -1]], V=np.eye(2), cov=np.eye(2)),
                             uniform=True)                          # UNDECIDED, reasons with Q_P, {…}
    clustering = stf.classify(stf.Problem("softmax", A=[[-1, 0], [0, -1]], V=np.eye(2), cov=np.eye(2)))
    specials = Verdict("PROVED", r"every TeX special: \ & % $ # _ { } ~ ^ and Σ₀ ≻ 0, ‖Σ‖ ≤ e^{γt}")
    systems = [stf.derive(v) for v in ("softmax", "l2", "sinkhorn", "linear", "multihead")]
    systems.append(stf.derive("softmax", drift=True))
    return {
        "Classification": [proved, undecided, clustering],
        "Verdict": [stf.invariance("softmax"), stf.invariance("masked"), specials],
        "CheckResult": [stf.check(proved.certificate)],
        "MomentSystem": systems,
    }


def test_every_repr_latex_of_the_package_is_covered(representatives):
    """A class that gains a ``_repr_latex_`` must be added to the representatives above."""
    assert _defined_repr_latex() == set(representatives)


def test_every_repr_latex_parses(representatives):
    for name, objs in representatives.items():
        for obj in objs:
            assert type(obj).__name__ == name
            tex = obj._repr_latex_()
            parses(tex)


def test_verdict_display_keeps_the_words(representatives):
    """The one-formula display carries the label and the whole claim, escaped once."""
    from symbolic_tf.spec.verdict import latex_text

    c = representatives["Classification"][0]
    tex = c._repr_latex_()
    assert tex.startswith(r"$\textbf{BLOWUP (PROVED)}\text{: ") and tex.endswith("}$")
    assert latex_text(c.claim) in tex and tex.count("$") == 2
    v = representatives["Verdict"][2]
    assert latex_text(v.claim) in v._repr_latex_()
    assert v._repr_latex_().count("$") - v._repr_latex_().count(r"\$") == 2


# ----------------------------------------------------------------------------- the docs' math
#: Formulas of the docs that MathJax renders but mathtext cannot parse, each with the reason.
#: construct → (the stand-in mathtext parses instead, why MathJax is right and mathtext cannot).
MATHJAX_ONLY: dict[str, tuple[str, str]] = {
    r"\operatorname*": (r"\operatorname", "amsmath's starred \\operatorname sets the limits below the name "
                         "(ess sup over s ∼ λ, docs/masked_relu.md §2); mathtext has the plain form only"),
}


def _doc_pages() -> list[Path]:
    pages = sorted(DOCS.glob("*.md")) + sorted((DOCS / "tutorials").glob("*.md"))
    return pages + [DOCS / "reference" / "api.md", ROOT / "README.md"]


def doc_math(text: str) -> list[str]:
    """The ``$…$`` and ``$$…$$`` formulas of a MyST page (dollarmath), outside code."""
    text = re.sub(r"^(```+|~~~+|:::+).*?^\1\s*$", "", text, flags=re.S | re.M)   # fenced blocks
    text = re.sub(r"``.+?``|`[^`\n]+`", "", text)                                   # inline code
    found = re.findall(r"\$\$(.+?)\$\$", text, flags=re.S)
    text = re.sub(r"\$\$(.+?)\$\$", "", text, flags=re.S)
    found += re.findall(r"(?<![\\$])\$(?=\S)([^$\n]+?)(?<=\S)\$(?!\d)", text)
    return found


def test_doc_math_reader_finds_inline_and_display_math():
    page = "a $x^2$ b `$not$` and\n$$\n\\dot\\Sigma = 0\n$$\n```\n$ symtf x\n```\ncosts $5 or $6"
    assert doc_math(page) == ["\n\\dot\\Sigma = 0\n", "x^2"]


def test_the_docs_math_parses():
    seen = 0
    for page in _doc_pages():
        for formula in doc_math(page.read_text(encoding="utf-8")):
            seen += 1
            for construct, (stand_in, _why) in MATHJAX_ONLY.items():
                formula = formula.replace(construct, stand_in)
            parses(formula, delimited=False)
    assert seen >= 10  # the index's formula, the tutorials', masked_relu's and schedules' display math


# ------------------------------------------------------------------------- the figures' mathtext
_LABEL_CALLS = {"set_title", "set_xlabel", "set_ylabel", "set_zlabel", "suptitle", "title", "xlabel",
                "ylabel", "text", "annotate", "figtext", "colorbar", "set_label"}
_TEX_SOURCE = re.compile(r"\\[A-Za-z]+|[\^_]\{")


@functools.lru_cache(maxsize=None)
def _label_strings(path: Path) -> list[tuple[int, str]]:
    """The string literals given to a title/label/text call or as ``label=``/``title=``, with
    f-strings' replacement fields shown as ``0``."""
    out = []

    def literal(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            return "".join(v.value if isinstance(v, ast.Constant) else "0" for v in node.values)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            a, b = literal(node.left), literal(node.right)
            return None if a is None or b is None else a + b
        return None

    text = path.read_text(encoding="utf-8")
    if not re.search(r"label|title|text\(|annotate", text):
        return out
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", ""))
        args = list(node.args) if name in _LABEL_CALLS else []
        args += [k.value for k in node.keywords if k.arg in ("label", "title", "xlabel", "ylabel", "s")]
        for a in args:
            s = literal(a)
            if s is not None:
                out.append((node.lineno, s))
    return out


def _figure_sources() -> list[Path]:
    pkg = ROOT / "symbolic_tf"
    return sorted(p for sub in ("plots", "reproduce", "control", "models", "numeric", "regimes")
                  for p in (pkg / sub).rglob("*.py"))


def test_figure_label_reader_finds_titles_and_labels(tmp_path):
    src = tmp_path / "fig.py"
    src.write_text('ax.set_title(f"$T^*$ at {t}")\nax.plot(x, label="$N^{-1/2}$")\nprint("a^{b}")\n')
    assert _label_strings(src) == [(1, "$T^*$ at 0"), (2, "$N^{-1/2}$")]


def test_the_figures_mathtext_parses():
    """Every ``$…$`` in a figure's title, label or text parses as mathtext."""
    bad = []
    for path in _figure_sources():
        for line, s in _label_strings(path):
            if s.count("$") - s.count(r"\$") < 2:
                continue
            for formula in re.findall(r"(?<!\\)\$(.+?)(?<!\\)\$", s):
                try:
                    parses(formula, delimited=False)
                except AssertionError as exc:
                    bad.append(f"{path.relative_to(ROOT)}:{line}: {exc}")
    assert not bad, "\n".join(bad)


def test_no_figure_shows_tex_source_as_text():
    """TeX commands, ``^{`` or ``_{`` outside ``$…$`` in a title or label would be drawn as source."""
    bad = []
    for path in _figure_sources():
        for line, s in _label_strings(path):
            outside = re.sub(r"(?<!\\)\$.+?(?<!\\)\$", "", s)
            if _TEX_SOURCE.search(outside):
                bad.append(f"{path.relative_to(ROOT)}:{line}: {s[:100]!r}")
    assert not bad, "TeX source outside $…$ in figure text:\n" + "\n".join(bad)


# ------------------------------------------------------------------- documented attributes exist
_MAKERS = {r"stf\.classify\(": "Classification", r"stf\.integrate\(": "Solution",
           r"stf\.Problem\(": "Problem", r"stf\.load\(": "Problem"}


def documented_attributes(text: str) -> set[tuple[str, str]]:
    """(class, attribute) pairs a page uses: ``Solution.x`` / ``Classification.x`` / ``Problem.x``
    written out, and ``name.x`` where the page binds ``name = stf.classify(…)`` (or integrate,
    Problem, load)."""
    pairs = set(re.findall(r"\b(Solution|Classification|Problem)\.([A-Za-z_]\w*)", text))
    for maker, cls in _MAKERS.items():
        for var in set(re.findall(rf"\b([A-Za-z_]\w*)\s*=\s*{maker}", text)):
            pairs |= {(cls, a) for a in re.findall(rf"(?<![\w.]){var}\.([A-Za-z_]\w*)", text)}
    return pairs


def test_documented_attributes_reader():
    text = "c = stf.classify(p)\nc.reason, c.T_lo\nsol = stf.integrate(p, 1)\nsol.t_eval\nSolution.alpha"
    assert documented_attributes(text) == {("Classification", "reason"), ("Classification", "T_lo"),
                                           ("Solution", "t_eval"), ("Solution", "alpha")}


def test_documented_attributes_exist():
    """Every attribute the docs, the README and the classes' own docstrings name exists."""
    import numpy as np

    import symbolic_tf as stf
    from symbolic_tf.numeric.solution import Solution

    p = stf.Problem("softmax", A=[[1, 0], [0, 1]], V=np.eye(2), cov=np.eye(2))
    objs = {"Problem": p, "Classification": stf.classify(p), "Solution": stf.integrate(p, 0.25)}
    texts = [page.read_text(encoding="utf-8") for page in _doc_pages()]
    texts.append((ROOT / "symbolic_tf" / "api.py").read_text(encoding="utf-8"))  # the API reference's examples
    # the numpydoc "Attributes" section of Solution (what the API reference shows)
    doc = Solution.__doc__.split("Attributes", 1)[1]
    names = re.findall(r"^\s{4}(\w+(?:, \w+)*) :", doc, flags=re.M)
    texts.append("\n".join(f"Solution.{n}" for group in names for n in group.split(", ")))
    pairs = set().union(*(documented_attributes(t) for t in texts))
    assert ("Solution", "t_eval") in pairs and ("Classification", "reason") in pairs
    missing = sorted(f"{c}.{a}" for c, a in pairs if not hasattr(objs[c], a))
    assert not missing, f"documented but absent: {missing}"
