"""Steering Gaussians with piecewise-constant controls of the Alcalde–Ji–Zuazua model
(docs/mathematics.md §6).

steer.py         the entry point ``steer`` (verdicts, full-rank and general-rank routes,
                 ``rescale_schedule``, ``verify_with_tokens``, ``schedule_problem``)
schedule.py      phases, built schedules and results; ``simulate_schedule`` (reference integrator)
mpmatrix.py      mpmath matrix helpers of the constructions (matrix functions, rotations, rounding)
restricted.py    constructive routes under restrictions: feed-forward only and attention only
                 for rank-deficient pairs, rank 0 (Dirac masses)
obstructions.py  exact REFUTED reasons: attention-only mean, necessary conditions under max_norm
certified.py     ball-arithmetic end-point enclosures, exact eigenvalue brackets
optimise.py      the numerical fallback (scipy), always UNDECIDED
"""
