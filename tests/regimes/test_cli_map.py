"""`symtf regime-map` and `symtf check MAP.json` end to end; bad specs give one line and exit 2."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from symbolic_tf.cli import main

SPEC = """
family = "parameter"
name = "cli test"
resolution = [4, 4]
max_depth = 2
[x]
range = [-1, 1]
[y]
range = [-1, 1]
[problem]
variant = "softmax"
d = 2
A = [["x", "1/2"], ["-1/4", "y"]]
V = [[1, 0], [0, 1]]
[problem.initial]
cov = [[1, 0], [0, 1]]
"""


def test_regime_map_and_check(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    out = tmp_path / "out"
    assert main(["regime-map", str(spec), "--out", str(out), "--workers", "1", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["totals"]["decided_fraction"] > 0.85
    assert (out / "map.png").stat().st_size > 10_000 and (out / "map.json").exists()
    assert main(["check", str(out / "map.json")]) == 0
    assert "regime map verified" in capsys.readouterr().out
    doc = json.loads((out / "map.json").read_text())
    c = next(c for c in doc["cells"] if c["regime"] == "BLOWUP")
    c["certificate"]["data"]["z"] = ["0", "0"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert main(["check", str(bad)]) == 1  # a tampered map is REJECTED (exit 1), not bad input
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("REJECTED:") and "cell" in err[0]


@pytest.mark.parametrize("edit, msg", [
    (("family = \"parameter\"", "family = \"spiral\""), "unknown slice family"),
    (("range = [-1, 1]\n[y]", "range = [1, 1]\n[y]"), "empty range"),
    (("cov = [[1, 0], [0, 1]]", "cov = [[1, 0], [0, -1]]"), "not positive"),
    (("A = [[\"x\", \"1/2\"]", "A = [[\"x*y\", \"1/2\"]"), "not affine"),
])
def test_bad_specs_one_line(tmp_path, edit, msg):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.replace(*edit))
    r = subprocess.run([sys.executable, "-m", "symbolic_tf.cli", "regime-map", str(spec), "--out", str(tmp_path / "o")],
                       capture_output=True, text=True)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and msg in lines[0], r.stderr
    assert not (tmp_path / "o" / "map.json").exists()


def test_bad_options(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    assert main(["regime-map", str(spec), "--workers", "0", "--out", str(tmp_path / "w0")]) == 2
    assert not (tmp_path / "w0").exists()  # refused before anything is created
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    assert main(["regime-map", str(spec), "--workers", "1", "--out", str(blocker)]) == 2
    assert "cannot write" in capsys.readouterr().err
    assert main(["regime-map", str(tmp_path / "missing.toml")]) == 2
    assert "cannot read" in capsys.readouterr().err


def _example_map_specs(route=True):
    """Every map spec among the examples (a file that parses as one), with its whole-cell route (None when
    ``route`` is False: finding it prepares the route's cells, which costs a minute for the basin slices)."""
    from symbolic_tf.regimes.maps import cell_route
    from symbolic_tf.spec.errors import SymtfError
    from symbolic_tf.spec.mapspec import load_map_spec

    out = []
    for path in sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.toml")):
        try:
            spec = load_map_spec(path)
        except SymtfError:
            continue   # a problem file, not a map spec
        out.append((path, spec, cell_route(spec)[0] if route else None))
    return out


def _scalar_v(spec) -> bool:
    """V = vI with a constant v (the cell-riccati-vI slices), read off the spec without preparing a route."""
    V = spec.to_dict()["problem"].get("V")
    return (V is not None and all(str(V[i][j]) == "0" for i in range(len(V)) for j in range(len(V)) if i != j)
            and len({str(V[i][i]) for i in range(len(V))}) == 1)


def _small(spec):
    from symbolic_tf.spec.mapspec import parse_map_spec

    return parse_map_spec({**{k: v for k, v in spec.to_dict().items() if k != "schema"},
                           "resolution": [4, 4], "max_depth": 1})


def test_example_specs_run(tmp_path, capsys):
    """The V = vI example maps (cell-riccati-vI, cheap): at 4×4 cells they decide most of the slice and pass the check."""
    from symbolic_tf.regimes.maps import check_map, run_map

    examples = [(p, s) for p, s, _ in _example_map_specs(route=False) if _scalar_v(s)]
    assert len(examples) >= 2
    for path, spec in examples:
        m = run_map(_small(spec))
        assert m["route"] == "cell-riccati-vI" and m["totals"]["decided_fraction"] > 0.5, path.name
        check_map(m)


@pytest.mark.heavy
def test_every_example_map_runs_and_checks():
    """Every other example map spec (cell-lmi, cell-tube-param, cell-tube, cell-basin, cell-scaled) runs at 4×4 cells
    with its declared whole-cell route and a time budget, and the written map passes the independent check."""
    from symbolic_tf.regimes.maps import check_map, run_map

    others = [(p, s, r) for p, s, r in _example_map_specs() if r != "cell-riccati-vI"]
    assert others
    for path, spec, route in others:
        m = run_map(_small(spec), budget=30)
        assert m["route"] == route, path.name
        check_map(m)


@pytest.mark.parametrize("edit, msg", [(("variant = \"softmax\"", "variant = \"softmaxx\""), "unknown variant"),
                                       (("variant = \"softmax\"", "variant = \"l2\""), "needs Q")])
def test_variant_errors_before_any_work(tmp_path, capsys, edit, msg):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.replace(*edit))
    assert main(["regime-map", str(spec), "--out", str(tmp_path / "o"), "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and msg in err[0] and err[0].startswith("symtf: error: problem.")
    assert not (tmp_path / "o" / "chunks").exists()
