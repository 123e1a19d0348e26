"""The numeric layer: floats for computing and searching (never for deciding).

Modules (imported lazily — this package imports nothing on its own, so ``import
symbolic_tf`` stays fast):

* ``codegen``    — generated/compiled right-hand sides of the Gaussian moment systems;
* ``integrate``  — batched integrators of the moment ODEs with blow-up events (numpy or compiled);
* ``solution``   — their result (``Solution``) and the member status codes;
* ``tableaus``   — the Dormand–Prince 5(4) and 8(5,3) Butcher tableaus;
* ``kernels``    — numba kernels: the whole adaptive Dormand–Prince loop per member, d ≤ 8
  (numba is imported only when a compiled kernel is used);
* ``closed_form``— softmax / drift flows with V = vI in closed form (docs/mathematics.md §4, §6);
* ``reference``  — high-precision reference integration (Taylor series): ``jets`` (matrix-jet
  arithmetic) and ``jet_compiler`` (SymPy expressions → jets);
* ``particles``  — the finite-N token simulator ẋ_i = Γ_{μ^N}(x_i) (+ F x + b);
* ``sampling``   — initial clouds: exact covariance factors, the non-Gaussian initial laws;
* ``feedforward``— the ReLU feed-forward term as a float hook of the token simulator;
* ``laws``, ``relu`` — experiments on mixtures and on the ReLU term (numerical evidence);
* ``gaussianity``— how Gaussian a token cloud is: empirical moments, Bures–Wasserstein
  distance, principal excess kurtosis, Mardia's statistics, log–log convergence slopes.
"""
