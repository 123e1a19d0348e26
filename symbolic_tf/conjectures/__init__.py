"""Conjectures: Hypothesis strategies for exact parameter sets (:mod:`.strategies`), the
catalogue of the papers' claims and the runner that tests them (docs/mathematics.md §4, §6)."""
