"""Pages generated from the code before each build: the CLI reference (from the argparse
parser) and one page per certificate kind (from the kind registry and the checkers'
docstrings).  They are written to docs/reference/ and never edited by hand."""
from __future__ import annotations

import argparse
import inspect
import textwrap
from pathlib import Path


def _write(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def cli_reference() -> str:
    from symbolic_tf.cli import EXIT_CODES, build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help for a in sub._choices_actions}
    out = ["# CLI reference", "",
           "Generated from the `symtf` argument parser (`symbolic_tf.cli.build_parser`). Every command "
           "takes `--quiet` (no progress bar); every `--json` output carries `schema` and `version`. "
           "A float in a problem file (`0.1` rather than `\"0.1\"` or `\"1/10\"`) is read as its exact "
           "binary value and announced once per value by one line `symtf: warning: …` on stderr.", "",
           "## Exit codes", "", "Every outcome of every command (`symbolic_tf.cli.EXIT_CODES`):", "",
           "| code | meaning |", "|---|---|", *(f"| {code} | {meaning} |" for code, meaning in EXIT_CODES), ""]
    for name, p in sub.choices.items():
        p.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=100)
        out += [f"## `symtf {name}`", "", helps.get(name) or "", "", "```text", p.format_help().rstrip(), "```", ""]
    return "\n".join(out)


def kind_pages(folder: Path) -> list[str]:
    from symbolic_tf.certify import check as chk

    chk._load()
    names = chk.kind_names()
    index = ["# Certificate kinds", "",
             "One page per certificate kind: the claim it proves, the data it stores (its schema: field "
             "→ type) and how the independent checker re-derives the claim from those data with exact "
             "or ball arithmetic (`symtf check`, `stf.check`). The general argument is in "
             "[Certification](../../certification.md); the mathematics in [The mathematics](../../mathematics.md).",
             "", "```{toctree}", ":maxdepth: 1", ""]
    for name in names:
        decl = chk.declaration(name)
        mod = inspect.getmodule(decl.derive)
        doc = inspect.getdoc(decl.derive) or ""
        mdoc = inspect.getdoc(mod) or ""
        schema = "\n".join(f"| `{k}` | `{v}` |" for k, v in decl.schema.items()) or "| (none) | |"
        page = [f"# `{name}`", "",
                "## What it proves", "", textwrap.dedent(doc).strip() or "(see the checker's module below)", "",
                "## Data it stores", "", "| field | type |", "|---|---|", schema, "",
                f"The certificate embeds the exact problem: {'yes' if decl.needs_problem else 'no'}.", "",
                *([f"Role in regime maps: its certificates are map cells, re-verified by "
                   f"`{decl.cell_checker.__module__}.{decl.cell_checker.__qualname__}` (`symtf check` of a map).", ""]
                  if decl.cell_checker is not None else []),
                "## Hypotheses the checker verifies", "",
                "Each hypothesis of the argument is re-verified from the data; the test beside it forges a "
                "certificate that violates this hypothesis (alone wherever the data allow it; every field a "
                "forger controls kept consistent) and asserts the rejection names it.", "",
                "| hypothesis | statement | forgery test |", "|---|---|---|",
                *(f"| `{h.id}` | {h.statement.replace('|', '∣')} | `{h.forgery}` |" for h in decl.hypotheses), "",
                "## How the checker re-derives it", "",
                f"Checker: `{mod.__name__}.{decl.derive.__name__}`.", "", "```text", mdoc, "```", ""]
        fname = name.replace("/", "_")
        _write(folder / f"{fname}.md", "\n".join(page))
        index.append(fname)
    index += ["```", ""]
    _write(folder / "index.md", "\n".join(index))
    return names


def generate(docs: Path) -> None:
    ref = docs / "reference"
    ref.mkdir(exist_ok=True)
    _write(ref / "cli.md", cli_reference())
    kinds = ref / "kinds"
    kinds.mkdir(exist_ok=True)
    kind_pages(kinds)
