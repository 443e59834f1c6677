"""All-reduce backends (torch/triton)."""
