"""Certification: exact and ball decisions, certificates, and the independent checker.

Floats search, rationals and balls decide.  Every PROVED/REFUTED produced here carries a
:class:`~symbolic_tf.certify.certificate.Certificate` whose exact data
:func:`symbolic_tf.certify.check.check` re-verifies from scratch.
"""
