"""symbolic_tf — derive, verify and certify the mean-field dynamics of deep Transformers.

The package is layered (spec → variants → symbolic → numeric → certify → regimes →
interfaces); importing it is cheap: SymPy, NumPy and friends load when first used.
"""
__version__ = "0.1.0"
