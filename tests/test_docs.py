"""The documentation site builds with warnings as errors (tutorial cells not executed here: the
executed build, ≈ 4 min, is the separate job .ci/docs).  Catches broken cross-references, bad
numpydoc, missing pages and malformed MyST in every CI run."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_docs_build_without_warnings(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_nb")
    res = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                          "-D", "nb_execution_mode=off", "-D", "suppress_warnings=myst-nb.lexer",
                          str(ROOT / "docs"), str(tmp_path / "html")],
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    assert (tmp_path / "html" / "index.html").is_file()
    assert (tmp_path / "html" / "mathematics.html").is_file()


# ------------------------------------------------------------ the start-here path runs as written
#: Pages whose ```bash commands and ```python blocks a reader is told to run as written.
RUN_AS_WRITTEN = ("index.md", "verdicts.md")


def fenced(page: str, lang: str) -> list[str]:
    """The fenced ``lang`` blocks of a Markdown page (indented ones in list items dedented)."""
    import re
    import textwrap

    return [textwrap.dedent(m.group(2)) for m in
            re.finditer(rf"^([ \t]*)```{lang}\n(.*?)^\1```[ \t]*$", page, flags=re.S | re.M)]


def commands(page: str) -> list[tuple[list[str], str, int]]:
    """(argv after ``symtf``, the output's first line as the page states it after ``# →`` up to
    a ``…``, the exit status: 0 unless the comment says ``exit status N``) of every ``symtf``
    line in the page's bash blocks."""
    import re
    import shlex

    out = []
    for block in fenced(page, "bash"):
        for line in block.splitlines():
            if not line.startswith("symtf "):
                continue
            cmd, _, comment = line.partition("#")
            said = re.match(r"\s*→\s*(?P<out>[^…]*?)\s*(?:…|$)", comment)
            status = re.search(r"exit status (\d)", comment)
            out.append((shlex.split(cmd)[1:], said.group("out") if said else "",
                        int(status.group(1)) if status else 0))
    return out


def test_command_reader():
    page = ("text\n```bash\nsymtf classify p.toml   # → BLOWUP (PROVED) for […]\n```\n"
            "* item\n\n  ```bash\n  symtf check c.json  # → UNDECIDED, exit status 3\n  ```\n")
    assert commands(page) == [(["classify", "p.toml"], "BLOWUP (PROVED) for [", 0),
                              (["check", "c.json"], "UNDECIDED, exit status 3", 3)]


@pytest.fixture
def reader_dir(tmp_path, monkeypatch):
    """A working folder as a reader has it: the repository's examples and the start page's
    problem file (its ```toml block, saved as problem.toml as the page says)."""
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "Save this as\n`problem.toml`" in index
    (tmp_path / "problem.toml").write_text(fenced(index, "toml")[0], encoding="utf-8")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run_commands(capsys, maps: bool):
    from symbolic_tf.cli import main

    ran = 0
    for name in RUN_AS_WRITTEN:
        for argv, said, status in commands((ROOT / "docs" / name).read_text(encoding="utf-8")):
            if ("regime-map" in argv or any(a.startswith("map/") for a in argv)) != maps:
                continue
            code = main([*argv, "--quiet"])
            out, err = capsys.readouterr()
            assert code == status, (name, argv, code, out, err)
            first = out.splitlines()[0] if out else ""
            assert first.startswith(said.split(",")[0] if status else said), (name, argv, said, first)
            ran += 1
    return ran


def test_start_here_commands_run_as_written(reader_dir, capsys):
    """Every ``symtf`` command of the start page and the verdict guide (maps apart) exits as the
    page says and prints what the page says it prints; the install line is the README's."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install = fenced((ROOT / "docs" / "index.md").read_text(encoding="utf-8"), "bash")[0].strip()
    assert install.startswith("python3 -m venv") and install in readme
    assert _run_commands(capsys, maps=False) >= 5
    assert (reader_dir / "cert.json").is_file()


@pytest.mark.heavy
def test_start_here_map_runs_as_written(reader_dir, capsys):
    assert _run_commands(capsys, maps=True) == 2
    assert (reader_dir / "map" / "map.png").is_file()


@pytest.mark.parametrize("name", RUN_AS_WRITTEN)
def test_start_here_python_runs_as_written(reader_dir, name, capsys):
    """The pages' Python blocks run in order in one namespace (a notebook), without error."""
    ns: dict = {}
    for block in fenced((ROOT / "docs" / name).read_text(encoding="utf-8"), "python"):
        exec(compile(block, f"docs/{name}", "exec"), ns)
    out = capsys.readouterr().out
    assert "PROVED" in out
    if name == "index.md":  # the page says: samples past the blow-up are NaN
        assert "nan" in out.lower()
