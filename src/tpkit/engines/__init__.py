"""Engine memory policies (SGLang, vLLM), one module each (pure)."""
