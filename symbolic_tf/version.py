"""The package version (a leaf module: every layer may import it)."""
__version__ = "0.1.0"

__all__ = ["__version__"]
