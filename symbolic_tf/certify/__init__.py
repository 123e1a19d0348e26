"""Certification, in two rooms with a wall between them.

* :mod:`symbolic_tf.certify.check` — the checker kernel: claims, schemas, certificate I/O,
  :func:`~symbolic_tf.certify.check.check` and one module per certificate kind in
  :mod:`symbolic_tf.certify.check.kinds`, named as the kind.  It re-derives a certificate's claim
  from its exact data and imports only the exact core, the problem spec and the standard library.
* :mod:`symbolic_tf.certify.search` — what finds certificates: the routes, LMI builders,
  Krawczyk, basins, cell searches and validated tubes.  Floats search, rationals and balls decide;
  the search may call the checker to self-check, never the other way round.
"""
