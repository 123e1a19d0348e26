"""Forward-mode dual numbers v + d·ε (ε² = 0) over any scalar ring: floats, python-flint ``arb``
balls, or dual numbers again.  Evaluating a rational function f on Dual(x, v) gives f(x) and the
directional derivative Df(x)[v]; over arb balls both parts are rigorous enclosures, so a ball
Jacobian or a mean-value bound (f(x + h) − f(x) ∈ h·Df([x, x + h])) needs no hand-written
derivative.  Used by the neutral clustering certificate (:mod:`symbolic_tf.certify.check.kinds.tube_cluster_neutral`),
whose chart is a nest of rational maps.

Nesting (a derivative of a derivative, or a derivative inside a mean-value form) uses *tags*: a
dual number of tag k may have duals of smaller tags as its parts, and in an operation between two
duals of different tags the smaller-tag one is a scalar coefficient of the larger-tag one (the
standard cure of "perturbation confusion")."""
from __future__ import annotations

__all__ = ["Dual", "value", "slope", "sqrt", "base"]


class Dual:
    """The dual number ``v + d·ε_tag`` with ε² = 0.

    Parameters
    ----------
    v : scalar
        The value part (may be a dual number of a smaller tag).
    d : scalar
        The derivative part (likewise).
    tag : int
        The perturbation's tag (0 by default).
    """

    __slots__ = ("v", "d", "tag")

    def __init__(self, v, d=0, tag=0):
        self.v, self.d, self.tag = v, d, tag

    def _same(self, o):
        return isinstance(o, Dual) and o.tag == self.tag

    def _above(self, o):
        return isinstance(o, Dual) and o.tag > self.tag

    def __add__(self, o):
        if self._above(o):
            return o.__radd__(self)
        if self._same(o):
            return Dual(self.v + o.v, self.d + o.d, self.tag)
        return Dual(self.v + o, self.d, self.tag)

    def __radd__(self, o):
        return Dual(o + self.v, self.d, self.tag)

    def __neg__(self):
        return Dual(-self.v, -self.d, self.tag)

    def __sub__(self, o):
        if self._above(o):
            return o.__rsub__(self)
        if self._same(o):
            return Dual(self.v - o.v, self.d - o.d, self.tag)
        return Dual(self.v - o, self.d, self.tag)

    def __rsub__(self, o):
        return Dual(o - self.v, -self.d, self.tag)

    def __mul__(self, o):
        if self._above(o):
            return o.__rmul__(self)
        if self._same(o):
            return Dual(self.v * o.v, self.d * o.v + self.v * o.d, self.tag)
        return Dual(self.v * o, self.d * o, self.tag)

    def __rmul__(self, o):
        return Dual(o * self.v, o * self.d, self.tag)

    def __truediv__(self, o):
        if self._above(o):
            return o.__rtruediv__(self)
        if self._same(o):
            return Dual(self.v / o.v, (self.d * o.v - self.v * o.d) / (o.v * o.v), self.tag)
        return Dual(self.v / o, self.d / o, self.tag)

    def __rtruediv__(self, o):
        return Dual(o / self.v, -(o * self.d) / (self.v * self.v), self.tag)

    def sqrt(self):
        """√(v + dε) = √v + d/(2√v)·ε.

        Returns
        -------
        Dual
            The square root, with the same tag.
        """
        s = sqrt(self.v)
        return Dual(s, self.d / (2 * s), self.tag)

    def __repr__(self):
        return f"Dual({self.v!r}, {self.d!r}, tag={self.tag})"


def sqrt(x):
    """√x for a float, an arb ball or a dual number.

    Parameters
    ----------
    x : float, flint.arb or Dual
        The radicand.

    Returns
    -------
    float, flint.arb or Dual
        √x (a dual number's derivative part by the chain rule).
    """
    if isinstance(x, Dual) or hasattr(x, "sqrt"):
        return x.sqrt()
    return x ** 0.5


def value(x, tag=None):
    """The value part of x for the perturbation ``tag``.

    Parameters
    ----------
    x : scalar or Dual
        A number.
    tag : int or None
        The perturbation (x's own tag if None).

    Returns
    -------
    scalar or Dual
        x.v when x is a dual number of that tag, else x itself.
    """
    if isinstance(x, Dual) and (tag is None or x.tag == tag):
        return x.v
    return x


def slope(x, tag=None):
    """The derivative part of x for the perturbation ``tag``.

    Parameters
    ----------
    x : scalar or Dual
        A number.
    tag : int or None
        The perturbation (x's own tag if None).

    Returns
    -------
    scalar or Dual
        x.d when x is a dual number of that tag, else 0.
    """
    if isinstance(x, Dual) and (tag is None or x.tag == tag):
        return x.d
    return 0


def base(x):
    """The innermost value of a (nested) dual number.

    Parameters
    ----------
    x : scalar or Dual
        A number.

    Returns
    -------
    scalar
        The plain scalar that x perturbs (x itself when it is not a dual number).
    """
    while isinstance(x, Dual):
        x = x.v
    return x
