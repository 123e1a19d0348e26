"""The model a user describes: exact parameters, validation, and the error types."""
from .errors import (
    CertificationFailed, InvalidParameters, NotGaussianClosed, ProblemFileError, SymtfError,
    UnknownVariant,
)
from .problem import Head, Problem, load_problem, parse_problem, problem_to_dict
from .rational import to_fraction, to_matrix, to_vector

__all__ = [
    "SymtfError", "InvalidParameters", "ProblemFileError", "UnknownVariant", "NotGaussianClosed",
    "CertificationFailed", "Head", "Problem", "load_problem", "parse_problem", "problem_to_dict",
    "to_fraction", "to_matrix", "to_vector",
]
