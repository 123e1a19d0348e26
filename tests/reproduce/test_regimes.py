"""`symtf reproduce regimes`: the maps of slices (a), (b), (c), (c′), their certificates and
cross-checks; the notebook executes."""
import json

from symbolic_tf.regimes.maps import check_map
from symbolic_tf.reproduce.regimes import map_specs, run


def test_reproduction_quick(tmp_path):
    s = run(tmp_path, quick=True, progress=False, crosscheck_points=2,
            names=("a_softmax_A", "c_reference_disk", "c_threshold_disk"))
    assert set(s["maps"]) == {"a_softmax_A", "c_reference_disk", "c_threshold_disk"}
    a = s["maps"]["a_softmax_A"]
    assert a["totals"]["decided_fraction"] > 0.98
    assert a["crosscheck"]["agree"] == a["crosscheck"]["points"] == 2
    thr = s["maps"]["c_threshold_disk"]
    assert {"BLOWUP", "CLUSTERING", "OUTSIDE"} <= set(thr["totals"]["area_by_regime"])
    assert thr["totals"]["decided_fraction"] > 0.9
    ref = s["maps"]["c_reference_disk"]
    # whole cells of the clustering basin and of the blow-up crescent (grid basins, rim cells) are
    # certified; the rest keep point verdicts and evidence
    assert ref["route"] == "cell-basin" and "numerical_evidence" in ref
    assert ref["totals"]["decided_fraction"] > 0.7
    assert {"CLUSTERING", "BLOWUP"} <= set(ref["totals"]["area_by_regime"])
    assert ref["crosscheck"]["agree"] == ref["crosscheck"]["points"] == 2
    # the reference experiment depends on Σ₀ numerically: both outcomes occur
    assert {"BLOWUP", "HORIZON"} <= set(ref["numerical_evidence"]["counts"])
    for name in s["maps"]:
        doc = json.loads((tmp_path / name / "map.json").read_text())
        check_map(doc)
        assert (tmp_path / name / "map.png").exists()
    assert json.loads((tmp_path / "regimes.json").read_text())["maps"]["a_softmax_A"]["totals"] == a["totals"]


def test_specs_are_valid_and_exact():
    from symbolic_tf.spec.mapspec import parse_map_spec

    for quick in (True, False):
        for name, doc in map_specs(quick).items():
            spec = parse_map_spec(doc)
            assert spec.name.startswith("(")


def test_notebook_executes(run_notebook):
    nb, outputs = run_notebook("regime_maps.ipynb")
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert "certified" in text and "verified" in text
