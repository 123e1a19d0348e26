"""Matrix-form proofs: identities between noncommutative matrix expressions for a symbolic
dimension d, proved by named rewriting steps that a checker replays
(docs/mathematics.md §10, docs/certification.md "Matrix-form proofs").

* :mod:`.terms` — expressions as JSON trees, their normal form modulo the ring axioms
  (a noncommutative polynomial over ℚ whose letters are symbols, transposed symbols and
  opaque inverse / transpose / trace / derivative atoms), rendering, exact evaluation;
* :mod:`.rules` — the rewriting rules, each a stated matrix identity;
* :mod:`.replay` — the proof format and its replay (the checker), with the numeric guard at
  random rational points in d = 1…6;
* :mod:`symbolic_tf.certify.search.matrix_proofs.library` — the proofs of the identities of docs/mathematics.md §3, §4, §7;
* :mod:`symbolic_tf.certify.search.matrix_proofs._growth` — the operator-inequality proofs of the growth theorems (ℓ2, Sinkhorn).
"""
