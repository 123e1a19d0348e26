"""The main job's report (``symtf run``): what a reader sees in report.md and report.html.

The Markdown's matrices are parsed back (an independent reader of the printed text) and
compared with the built-in examples' exact values; every image link and every term link must
resolve; the HTML must parse and state the same verdicts as the Markdown and the JSON.
"""
from __future__ import annotations

import base64
import json
import re
from fractions import Fraction
from html.parser import HTMLParser

import pytest

from symbolic_tf.display import verdict_label
from symbolic_tf.report import EXAMPLES, TERMS, build_report, matrix_text

_START = re.compile(r"^(\S+) = \[ (.*) \]$")
_CONT = re.compile(r"^\s+\[ (.*) \]$")


def parse_matrices(lines) -> dict:
    """``name = [ … ]`` blocks (one bracketed row per line) → {name: tuple of rows of Fractions}."""
    out, name = {}, None
    for line in lines:
        m, c = _START.match(line), _CONT.match(line)
        if m:
            name = m.group(1)
            out[name] = [tuple(Fraction(e) for e in m.group(2).split())]
        elif c and name is not None:
            out[name].append(tuple(Fraction(e) for e in c.group(1).split()))
        else:
            name = None
    return {k: tuple(v) for k, v in out.items()}


def exact(value) -> tuple:
    """A problem-file value as rows of Fractions (a vector as a column)."""
    return tuple(tuple(Fraction(str(e)) for e in r) if isinstance(r, list) else (Fraction(str(r)),) for r in value)


# ----------------------------------------------------------------------------- fast: the printer
def test_matrix_text_reads_back_exactly_for_every_example():
    for name, (_, doc) in EXAMPLES.items():
        for key in ("A", "V", "F", "b"):
            if key in doc:
                assert parse_matrices(matrix_text(key, doc[key]))[key] == exact(doc[key]), (name, key)
        assert parse_matrices(matrix_text("S", doc["initial"]["cov"]))["S"] == exact(doc["initial"]["cov"])


def test_matrix_text_aligns_columns_and_keeps_lowest_terms():
    lines = matrix_text("M", [["2/4", "-10"], [3, "7/21"]])
    assert lines == ["M = [ 1/2  -10 ]", "    [   3  1/3 ]"]
    assert matrix_text("v", ["1/3", 2]) == ["v = [ 1/3 ]", "    [   2 ]"]
    assert matrix_text("s", "6/8") == ["s = 3/4"]


# ----------------------------------------------------------------------------- the real report
class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.text, self.ids, self.hrefs, self.imgs, self.stack = [], set(), [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])
        if tag == "img":
            self.imgs.append(a["src"])

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    summary = build_report(out, progress=False)
    md = (out / "report.md").read_text(encoding="utf-8")
    page = _Text()
    page.feed((out / "report.html").read_text(encoding="utf-8"))
    page.close()
    return out, summary, md, page


def _sections(md: str) -> dict:
    """``## title`` → the section's lines (up to the next heading of level ≤ 2)."""
    out, cur = {}, None
    for line in md.splitlines():
        if re.match(r"^#{1,2} ", line):
            cur = line.lstrip("#").strip()
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return out


@pytest.mark.heavy
def test_every_example_prints_its_exact_parameters(report):
    _, summary, md, _ = report
    sections = _sections(md)
    for r in summary["regimes"]:
        title = f"{r['name']}: {verdict_label(r['regime'], r['status'])}"
        assert title in sections, title
        mats = parse_matrices(sections[title])
        _, doc = EXAMPLES[r["name"]]
        for key in ("A", "V", "F", "b"):
            assert (key in mats) == (key in doc), (r["name"], key)
            if key in doc:
                assert mats[key] == exact(doc[key]), (r["name"], key)
        assert mats["Σ₀"] == exact(doc["initial"]["cov"])
        # the JSON gains the same exact parameters
        assert exact(r["parameters"]["A"]) == exact(doc["A"])


@pytest.mark.heavy
def test_no_python_reprs_and_witnesses_are_matrices(report):
    _, summary, md, _ = report
    assert "{'" not in md and "[['" not in md and "UNDECIDED (UNDECIDED)" not in md
    sections = _sections(md)
    for row in summary["variants"]:
        inv = row["invariance"]
        if inv["status"] != "REFUTED":
            continue
        mats = parse_matrices(sections[row["variant"]])  # the witness instance, read back exactly
        inst = inv["evidence"]["instance"]
        assert mats["x₀"] == exact(inst["x0"]) and mats["u"] == exact(inst["direction"])
        assert mats["A"] == exact(inst["parameters"]["A"])


@pytest.mark.heavy
def test_every_link_resolves(report):
    out, summary, md, page = report
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert images and set(images) == set(summary["figures"])
    for rel in images:
        assert not rel.startswith("/") and (out / rel).is_file()
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', md))
    links = re.findall(r"\]\(#([^)]+)\)", md)
    assert links and set(links) <= anchors
    assert {a for a, _, _ in TERMS} <= anchors
    # the jargon is linked where first used (after the Terms section that defines it)
    body = md[md.index('<a id="variants">'):]
    for phrase in ("R ≺ 0", "anti-Hurwitz", "LMI", "T*", "indefinite"):
        first = body.index(phrase.replace("*", "\\*"))
        assert body[first - 1] == "[", phrase
    # HTML: every internal link has its target; the figure is embedded and is the written PNG
    assert page.hrefs and {h[1:] for h in page.hrefs if h.startswith("#")} <= page.ids
    assert len(page.imgs) == len(images)
    for src, rel in zip(page.imgs, images):
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1]) == (out / rel).read_bytes()


@pytest.mark.heavy
def test_html_states_the_same_verdicts(report):
    out, summary, md, page = report
    text = "".join(page.text)
    plain_md = md.replace("\\", "")
    for row in summary["variants"]:
        said = f"Gaussian invariance: {row['invariance']['status']}"
        assert said in text and said in plain_md, row["variant"]
    for r in summary["regimes"]:
        label = verdict_label(r["regime"], r["status"])
        assert f"{r['name']}: {label}" in text and f"{r['name']}: {label}" in plain_md
    pattern = r"\b([A-Z_]+ \((?:PROVED|REFUTED)\))"
    assert re.findall(pattern, text) == re.findall(pattern, re.sub(r"\[([^\]]*)\]\(#[^)]*\)", r"\1", plain_md))
    assert json.loads((out / "report.json").read_text())["documents"] == ["report.md", "report.html", "report.json"]
