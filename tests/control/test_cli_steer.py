"""`symtf steer`: exact schedule with plot, feed-forward certified bound, rank obstruction, bad input."""
from __future__ import annotations

import json

from symbolic_tf.cli import main

PROBLEM = """variant = "softmax"
d = 2
A = [[0, 0], [0, 0]]
V = [[1, 0], [0, 1]]
[initial]
mean = [1, 0]
cov = [[1, 0], [0, 1]]
"""


def test_steer_cli(tmp_path, capsys):
    p = tmp_path / "p.toml"
    p.write_text(PROBLEM)
    t = tmp_path / "t.toml"
    t.write_text('mean = [0, 2]\ncov = [[2, "1/2"], ["1/2", "1/2"]]\n')
    plot = tmp_path / "steer.png"
    assert main(["steer", str(p), "--target", str(t), "--T", "2", "--plot", str(plot), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"]["status"] == "PROVED" and plot.exists() and plot.stat().st_size > 1000
    assert main(["steer", str(p), "--target", str(t), "--only", "feedforward", "--json"]) == 0
    ff = json.loads(capsys.readouterr().out)
    assert ff["verdict"]["status"] == "PROVED" and ff["certified_bound"]["cov"] < 1e-8
    t.write_text("cov = [[1, 0], [0, 0]]\n")
    assert main(["steer", str(p), "--target", str(t), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"]["status"] == "REFUTED"
    t.write_text("mean = [0, 0]\n")
    assert main(["steer", str(p), "--target", str(t)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_tokens_follow_the_schedule():
    """The exact attention-led schedule run on tokens ends near the target (mean-field error)."""
    from symbolic_tf.control.steer import steer, verify_with_tokens

    init = (["1", "0"], [["1", "0"], ["0", "1"]])
    target = (["0", "2"], [["2", "1/2"], ["1/2", "1/2"]])
    res = steer(init, target, "2")
    # RK4 with 10 steps per unit time: the time-stepping error (~1e-6 here) is far below the
    # O(N^{-1/2}) mean-field error being measured, at a quarter of the default cost
    errs = [verify_with_tokens(res, init, target, N=n, seed=s, steps_per_unit=10)["W2_to_target"]
            for n in (200, 3200) for s in (0, 1)]
    small, large = sum(errs[:2]) / 2, sum(errs[2:]) / 2
    assert large < small and large < 0.15  # O(N^{-1/2}): 16× more tokens, ~4× smaller error
