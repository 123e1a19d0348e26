"""Shared pytest configuration for every test directory.

Hypothesis profiles
-------------------
``ci`` (the default): derandomized, so a run is reproducible; no deadline (exact arithmetic
and SymPy have irregular timings); 60 examples per property; failing examples print their
reproduction blob.  ``dev``: random, more examples, for local bug hunting.  ``nightly``:
random, 2000 examples per property (soundness properties of the certificates).  Choose with the
``HYPOTHESIS_PROFILE`` environment variable, e.g. ``HYPOTHESIS_PROFILE=dev pytest tests``.
"""
from __future__ import annotations

import os

# One BLAS thread per process: with `pytest -n 2` on two cores, OpenBLAS's default threads
# oversubscribe the machine (the pretrained-model tests slow down ~6×).  Must precede numpy.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=60,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev",
    deadline=None,
    max_examples=300,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "nightly",
    deadline=None,
    max_examples=2000,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


import pytest  # noqa: E402


@pytest.fixture
def run_notebook(tmp_path):
    """Execute ``notebooks/NAME`` in ``tmp_path`` and return (notebook, code-cell outputs);
    fails the test if any cell raised."""
    from pathlib import Path

    import nbformat
    from nbclient import NotebookClient

    def run(name: str, timeout: int = 600):
        nb = nbformat.read(Path(__file__).resolve().parents[1] / "notebooks" / name, as_version=4)
        NotebookClient(nb, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
        outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
        assert not any(o.get("output_type") == "error" for o in outputs)
        return nb, outputs

    return run


# ------------------------------------------------------------------------------ the heavy tier
#: Tests run by `.ci/run` after the README's test command (`-m "not heavy"`, ≤ 6 min on 2 cores):
#: every kind's tampering suite, the reproductions and executed notebooks, toy-size soaks, and the
#: few searches that take tens of seconds.  Nothing here is skipped in CI: `.ci/run` runs
#: `pytest -m heavy` right after.  Paths are whole modules; `path::name` is one test (all params).
HEAVY = (
    "tests/soundness/test_tampering.py",          # every kind's tampering (module-wide fixture)
    "tests/soundness/test_soundness.py",          # classify against the float oracle (a soak)
    "tests/test_benchmarks_smoke.py",             # every benchmark at toy size
    # the SymPy verification of the rotation–scaling family (≈ 9 s each); the kernel's flint verification of
    # the same statement runs in the fast tier (tests/certify/test_rotation_scaling.py)
    "tests/symbolic/test_rotation_scaling_convexity.py::test_every_step_of_the_verification_passes",
    "tests/certify/test_rotation_scaling.py::test_every_field_equals_the_sympy_verification",
    "tests/test_proofs.py",                       # the proof scripts' certificates re-derived (reproductions)
    "tests/test_cli_commands.py::test_run_writes_a_tagged_report",  # the main job end to end (.ci/newcomer runs it too)
    "tests/certify/test_ray.py::test_slow_d3_ray_is_certified_in_projective_coordinates",  # the slow rays: long tubes
    "tests/certify/test_ray.py::test_slow_ray_is_certified_piecewise_and_holds_the_reference",
    "tests/certify/test_rotation_scaling.py::test_the_sign_matrix_equals_the_sympy_one",  # SymPy cross-check
    "tests/models/test_probe.py::test_moment_ode_matches_the_layer_up_to_sampling_error",  # a statistical probe run
    "tests/test_new_user_bugs.py::test_cli_gradient_flow_runs_the_requested_dimension",  # d = 3 symbolic end to end
    "tests/certify/test_rotation.py::test_general_rotating_blowup_holds_the_reference",  # [general] of the drift twin stays
    "tests/reproduce/",                           # the papers' reproductions and their notebooks
    "tests/conjectures/test_notebook_conjectures.py",
    "tests/models/test_notebook_probe.py",
    "tests/symbolic/test_notebook_gradient_flows.py",
    "tests/certify/test_cell_basin.py",           # whole-disk basin searches (≈ 1 min of setup)
    "tests/certify/test_cell_grid.py",
    "tests/certify/test_neutral.py::test_a_far_entry_is_proved_by_the_sector_bound_and_barrier_pieces",
    "tests/certify/test_neutral.py::test_the_benchmark_problem_from_its_own_sigma0",
    "tests/certify/test_validated.py::test_random_sigma0_decided_fraction",
    "tests/certify/test_rotation_return.py::test_d3_rotation_holds_the_reference",
    "tests/certify/test_ray_collapse.py::test_the_benchmark_problem_homogeneity_and_a_permuted_basis",
    "tests/test_cli_gradient.py::test_convexity_of_one_pair_writes_its_certificate",
    "tests/certify/test_validated.py::test_tube_basin_tampering_is_detected",
    "tests/certify/test_validated.py::test_every_proved_rechecks_and_agrees_with_scipy",
    "tests/symbolic/test_energy.py::test_l2_energy_matches_monte_carlo_d2",
    # compiled (numba) kernels: cold compiles of the large systems take 5–20 s each on a new machine
    "tests/numeric/test_kernels.py::test_compiled_equals_numpy_on_every_variant[multihead[softmax,l2,sinkhorn]-d5]",
    "tests/numeric/test_kernels.py::test_compiled_equals_numpy_on_every_variant[multihead[softmax,l2,sinkhorn]-d2]",
    "tests/numeric/test_kernels.py::test_compiled_equals_numpy_on_every_variant[softmax+drift-d5]",
    "tests/numeric/test_kernels.py::test_threaded_batch_equals_member_by_member_runs",
    "tests/numeric/test_dense.py::test_dense_samples_match_the_closed_form",
    "tests/numeric/test_phases.py::test_polynomial_parameters_on_the_compiled_loops",
    "tests/certify/test_validated.py",             # validated tubes of classify (module fixtures ≈ 30 s)
    "tests/conjectures/test_core.py::test_twisted_gaussian_entry_records_the_partial_result",
    "tests/regimes/test_evidence.py::test_unfinished_slow_growth_gets_the_scale_free_reading",
    "tests/control/test_cli_steer.py::test_tokens_follow_the_schedule",
    "tests/certify/test_routes.py::test_growth_bound_holds_along_the_flow",
    # ≥ 6 s each; the fast tier keeps its margin under 6 minutes (the docs are built in the heavy tier too)
    "tests/test_docs.py::test_docs_build_without_warnings",
    "tests/regimes/test_maps.py::test_general_V_gives_point_verdicts_only",
    "tests/certify/test_ray.py::test_a_rest_point_on_the_isotropic_cone_is_no_ray",
    "tests/certify/test_taylor.py::test_nonsymmetric_V_contains_reference_blowup_time[d3]",
    "tests/certify/test_lmi.py::test_blowup_soundness_random",
    "tests/certify/test_rotation.py::test_drift_rotating_blowup_holds_the_reference[general]",
    "tests/certify/test_cell_tubes.py::test_map_route_and_whole_map_check",
    # module fixtures of 4–7 s each (validated tubes searched in setup); the fast tier measured 361 s on the
    # session's last clean clone, these keep it under 6 minutes with a margin
    "tests/certify/test_tube_return.py",
    "tests/certify/test_growth_tube.py",
    "tests/soundness/forgeries/test_neutral_growth.py",
    "tests/certify/test_neutral_growth.py::test_homogeneity_and_a_permuted_basis",
)


def pytest_collection_modifyitems(config, items):
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for item in items:
        path = Path(str(item.fspath)).resolve().relative_to(root).as_posix()
        name = getattr(item, "originalname", item.name)
        ids = {f"{path}::{name}", f"{path}::{item.name}"}  # a test (every parameter) or one parameter
        if any(path.startswith(h) if "::" not in h else h in ids for h in HEAVY):
            item.add_marker(pytest.mark.heavy)
