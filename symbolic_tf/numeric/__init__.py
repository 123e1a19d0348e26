"""The numeric layer: floats for computing and searching (never for deciding).

Modules (imported lazily — this package imports nothing on its own, so ``import
symbolic_tf`` stays fast):

* ``codegen``    — generated/compiled right-hand sides of the Gaussian moment systems;
* ``integrate``  — batched integrators of the moment ODEs with blow-up events (numpy or compiled);
* ``kernels``    — numba kernels: the whole adaptive Dormand–Prince loop per member, d ≤ 8
  (numba is imported only when a compiled kernel is used);
* ``closed_form``— softmax / drift flows with V = vI in closed form (docs/mathematics.md §4, §6);
* ``reference``  — high-precision reference integration;
* ``particles``  — the finite-N token simulator ẋ_i = Γ_{μ^N}(x_i) (+ F x + b);
* ``gaussianity``— how Gaussian a token cloud is: empirical moments, Bures–Wasserstein
  distance, principal excess kurtosis, Mardia's statistics, log–log convergence slopes.
"""
