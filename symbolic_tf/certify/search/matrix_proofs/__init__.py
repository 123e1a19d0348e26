"""Building matrix-form proofs (the library of proved identities and the growth theorems); their
format and replay live in :mod:`symbolic_tf.certify.check.matrix_proofs`."""
