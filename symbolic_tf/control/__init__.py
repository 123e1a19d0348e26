"""Steering Gaussians with piecewise-constant controls of the Alcalde–Ji–Zuazua model
(MATH.md §6): see :mod:`symbolic_tf.control.steer`."""
