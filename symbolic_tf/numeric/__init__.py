"""The numeric layer: floats for computing and searching (never for deciding).

Modules (imported lazily — this package imports nothing on its own, so ``import
symbolic_tf`` stays fast):

* ``codegen``    — generated/compiled right-hand sides of the Gaussian moment systems;
* ``integrate``  — batched integrators of the moment ODEs with blow-up events;
* ``reference``  — high-precision reference integration;
* ``particles``  — the finite-N token simulator ẋ_i = Γ_{μ^N}(x_i) (+ F x + b);
* ``gaussianity``— how Gaussian a token cloud is: empirical moments, Bures–Wasserstein
  distance, principal excess kurtosis, Mardia's statistics, log–log convergence slopes.
"""
