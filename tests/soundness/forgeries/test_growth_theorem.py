"""Forgeries of ``exponential-growth-theorem`` certificates (symbolic_tf/certify/check/kinds/exponential_growth_theorem.py,
HYPOTHESES): the norm bounds of test_growth.py under the replayed matrix-form theorem, and the theorem
itself (its name for the variant, its SHA-256)."""
from __future__ import annotations

from .forge import accepts, forge, rejects
from .test_growth import (L2, SINKHORN, drift_not_bounded, g_too_large, gamma_too_small, genuine, l2_data_dropped,
                          schedule, u_A_too_small, u_V_too_small, variant_without_growth_bound, with_data)

KIND = "exponential-growth-theorem"


def test_variant_without_growth_bound():
    variant_without_growth_bound(KIND)


def test_schedule():
    schedule(KIND)


def test_u_V_too_small():
    u_V_too_small(KIND)


def test_drift_not_bounded():
    drift_not_bounded(KIND)


def test_l2_data_dropped():
    l2_data_dropped(KIND)


def test_u_A_too_small():
    u_A_too_small(KIND)


def test_g_too_large():
    g_too_large(KIND)


def test_gamma_too_small():
    gamma_too_small(KIND)


def test_other_theorem():
    s, l2 = genuine(KIND, SINKHORN), genuine(KIND, L2)
    # the ℓ2 theorem (its true SHA-256) cited for a Sinkhorn problem, and the other way round
    rejects(forge(s, data={"theorem": l2["data"]["theorem"], "theorem_sha256": l2["data"]["theorem_sha256"]}),
            "needs theorem 'sinkhorn-growth'")
    rejects(forge(l2, data={"theorem": s["data"]["theorem"], "theorem_sha256": s["data"]["theorem_sha256"]}),
            "needs theorem 'l2-growth'")
    # a Sinkhorn problem with the ℓ2 data and theorem: the variant decides which theorem is needed
    rejects(forge(l2, problem=SINKHORN), "needs theorem 'sinkhorn-growth'")


def test_theorem_sha256():
    c = genuine(KIND, L2)
    sha = c["data"]["theorem_sha256"]
    rejects(forge(c, data={"theorem_sha256": ("0" if sha[0] != "0" else "1") + sha[1:]}), "another SHA-256")


def test_sinkhorn_takes_no_kernel_bounds():
    c = genuine(KIND, SINKHORN)
    rejects(forge(c, data={"u_A": "1", "g": "1"}), "takes no u_A, g")
    accepts(with_data(c, u_V="2"))   # a weaker (larger) bound is still a proof
