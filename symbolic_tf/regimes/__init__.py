"""Regimes: classification of a parameter point (and, later, regime maps over slices)."""
