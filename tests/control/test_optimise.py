"""The optimisation fallback under max_norm: reachable targets get a residual < 1e-6, too-small
norms leave a clearly positive residual, and the verdict is UNDECIDED either way (numerical
evidence, never PROVED)."""
from __future__ import annotations

import json
from fractions import Fraction as Fr

from symbolic_tf.cli import main
from symbolic_tf.control._schedule import simulate_schedule
from symbolic_tf.control.steer import steer

I2 = [[1, 0], [0, 1]]


def _zero(M):
    return not any(x for row in M for x in row)


def test_attention_only_within_bound_reaches_numerically():
    ini, tgt = ([1, 0], I2), ([0, 1], [[2, "1/2"], ["1/2", 1]])
    # the constructive attention-only schedule needs norm ≈ 1.94 > 1: UNDECIDED without search
    r0 = steer(ini, tgt, 4, controls="attention", max_norm=1)
    assert r0.verdict.status == "UNDECIDED" and r0.strategy == "attention-only"
    r = steer(ini, tgt, 4, controls="attention", max_norm=1, optimise=True, phases=2)
    assert r.verdict.status == "UNDECIDED" and r.strategy == "optimised"
    assert "numerical evidence" in r.verdict.reason
    assert r.numerical_error < 1e-6 and r.optimisation["residual"] == r.numerical_error
    assert sum(p.duration for p in r.schedule) == 4 and len(r.schedule) == 2
    for p in r.schedule:  # the restriction and the bound hold exactly
        assert _zero(p.F) and not any(p.b) and p.free_norm_sq() <= 1
    # the residual is re-measured independently of the optimiser's float integrator
    a, S = simulate_schedule(r.schedule, [Fr(1), Fr(0)], [[Fr(1), Fr(0)], [Fr(0), Fr(1)]], dps=40)
    assert abs(float(a[1]) - 1) < 1e-6 and abs(float(S[0, 1]) - 0.5) < 1e-6
    json.dumps(r.to_dict())


def test_feedforward_within_bound_has_rigorous_residual():
    """Mean transport 0 → (3, 0) in T = 2 with ‖F‖_F, ‖b‖ ≤ 1: the one-phase construction needs
    ‖b‖ = 3/2; the search finds a schedule whose residual is also enclosed by arb — still
    UNDECIDED (an approximate end point is not exact reachability)."""
    r = steer(([0, 0], I2), ([3, 0], I2), 2, controls="feedforward", max_norm=1, optimise=True, phases=2)
    assert r.verdict.status == "UNDECIDED" and r.numerical_error < 1e-6
    assert r.certified_bound["cov"] < 1e-6 and r.certified_bound["mean"] < 1e-6
    for p in r.schedule:
        assert _zero(p.A) and _zero(p.V) and p.free_norm_sq() <= 1


def test_norms_too_small_leave_a_residual():
    """‖V‖, ‖A‖ ≤ 1/10 in T = 1 cannot take |α| from 1 to 5 (|α̇| ≤ ‖V‖(1 + ‖Σ‖‖A‖)|α|); no
    implemented obstruction covers the attention-only mean, so the answer is UNDECIDED with a
    clearly positive residual."""
    r = steer(([1, 0], I2), ([0, 5], I2), 1, controls="attention", max_norm="1/10", optimise=True, phases=2,
              starts=1)
    assert r.verdict.status == "UNDECIDED" and r.strategy == "optimised"
    assert r.numerical_error > 1
    assert all(p.free_norm_sq() <= Fr(1, 100) for p in r.schedule)


def test_cli_optimise(tmp_path, capsys):
    p = tmp_path / "p.toml"
    p.write_text('variant = "softmax"\nd = 2\nA = [[0, 0], [0, 0]]\nV = [[1, 0], [0, 1]]\n'
                 '[initial]\nmean = [0, 0]\ncov = [[1, 0], [0, 1]]\n')
    t = tmp_path / "t.toml"
    t.write_text("mean = [3, 0]\ncov = [[1, 0], [0, 1]]\n")
    args = ["steer", str(p), "--target", str(t), "--T", "2", "--only", "feedforward", "--max-norm", "1"]
    assert main(args + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"]["status"] == "UNDECIDED" and data["optimisation"] is None
    assert main(args + ["--optimise", "--phases", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"]["status"] == "UNDECIDED" and data["strategy"] == "optimised"
    assert data["optimisation"]["residual"] < 1e-6 and data["numerical_error"] < 1e-6
    assert main(args + ["--optimise", "--phases", "2"]) == 0
    assert "optimiser residual" in capsys.readouterr().out
    # a violated necessary condition is REFUTED before any search
    t.write_text("mean = [30, 0]\ncov = [[1, 0], [0, 1]]\n")
    assert main(args + ["--optimise", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"]["status"] == "REFUTED" and "‖α‖ + 1" in data["verdict"]["reason"]
    assert main(args[:-1] + ["-1"]) == 2
