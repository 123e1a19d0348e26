"""One module per certificate kind: each declares its data schema and the derivation of its claim
with :func:`symbolic_tf.certify.check.kind`."""
