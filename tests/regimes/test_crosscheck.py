"""Cross-checks of a regime map: the sampled points of a cell on the rim of a Σ₀ disk.

A rim cell of a ``cov-disk`` map is certified only where Σ₀ ≻ 0; part of its box lies outside the
cone, where Σ₀ = [[1/2 + x/2, y/2], [y/2, 1/2 − x/2]] is indefinite (x² + y² > 1) and there is no
problem to classify.  The cross-check must sample inside the cone, never crash on such a cell.
"""
from __future__ import annotations

import random
from fractions import Fraction

from symbolic_tf.exact.definiteness import is_pd
from symbolic_tf.regimes.crosscheck import _interior_point, crosscheck
from symbolic_tf.reproduce.regimes import map_specs
from symbolic_tf.spec.mapspec import parse_map_spec

# a box straddling the unit circle x² + y² = 1: about half of it is outside the cone
RIM_BOX = ["9/10", "1", "3/10", "1/2"]


def _disk_spec():
    sd = dict(map_specs(quick=True)["c_reference_disk"])
    sd.pop("schema", None)
    return sd


def test_rim_points_are_inside_the_box_and_the_cone():
    spec = parse_map_spec(_disk_spec())
    rng = random.Random(5)
    x0, x1, y0, y1 = (Fraction(b) for b in RIM_BOX)
    for _ in range(40):
        x, y, p = _interior_point(spec, {"box": RIM_BOX}, rng)
        assert x0 < x < x1 and y0 < y < y1
        assert x * x + y * y < 1 and is_pd(p.cov)


def test_a_box_outside_the_cone_has_no_point():
    spec = parse_map_spec(_disk_spec())
    assert _interior_point(spec, {"box": ["19/20", "1", "19/20", "1"]}, random.Random(0)) is None


def test_crosscheck_of_a_rim_cell_classifies_a_point_inside_the_cone():
    # about half of the box is outside the cone: a single raw sample per cell raised on the
    # problem's Σ₀ for some of these seeds; the cross-check classifies a point of the cone instead
    doc = {"spec": _disk_spec(),
           "cells": [{"id": [0, 0, 0], "box": RIM_BOX, "status": "PROVED", "regime": "CLUSTERING"}]}
    for seed in range(3):
        recs = crosscheck(doc, n=1, seed=seed, integrate=False)
        assert len(recs) == 1
        x, y = Fraction(recs[0]["x"]), Fraction(recs[0]["y"])
        assert x * x + y * y < 1
        assert recs[0]["point_status"] in ("PROVED", "UNDECIDED")
