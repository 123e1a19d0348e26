"""Reading real pretrained Transformers (safetensors) for probes."""
