"""The search side of certification: routes, LMI builders, Krawczyk, basins, cell searches and
validated tubes.  Each search proposes a certificate; :func:`symbolic_tf.certify.check.check`
decides it."""
