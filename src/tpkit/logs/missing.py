"""What the reader looked for and did not find, per engine (the explain step says it to the user)."""

from __future__ import annotations

import dataclasses

from tpkit.logs.parsed import Missing, ParsedLog

__all__ = ["with_missing", "EXPECTED"]

_SETTINGS = (
    ("model", "ServerArgs model_path / vLLM model= / non-default args / --model, --model-path, `vllm serve MODEL`"),
    ("tp", "tp_size / tensor_parallel_size in a dump, or --tp / --tensor-parallel-size"),
    ("context_length", "context_length / max_model_len in a dump, 'Using max model len', or --context-length / "
                       "--max-model-len"),
)
EXPECTED = {
    "sglang": (
        ("mem_fraction", "setting", "mem_fraction_static in ServerArgs, or --mem-fraction-static"),
        ("pre_model_load_memory", "load_begin_avail", "'Load weight begin. avail mem=… GB' on some rank"),
        ("weights", "weights_mem_usage", "'Load weight end. … mem usage=… GB'"),
        ("free_after_weights", "load_end_avail", "'Load weight end. … avail mem=… GB'"),
        ("kv_capacity", "kv_tokens|max_total_num_tokens|swa_pool_full_size",
         "'KV Cache is allocated. #tokens: …', 'max_total_num_tokens=…' or 'SWAKVPool mem usage: … full size: …'"),
        ("free_after_pool", "pool_end_avail", "'Memory pool end. avail mem=… GB'"),
        ("cuda_graph", "graph_mem_usage", "'Capture cuda graph end. … mem usage=… GB' (absent with "
                                          "--disable-cuda-graph)"),
    ),
    "vllm": (
        ("mem_fraction", "setting", "gpu_memory_utilization in the engine config / non-default args / "
                                    "--gpu-memory-utilization / the CUDA-graph hint 'increase "
                                    "--gpu-memory-utilization from …' (else the release default applies)"),
        ("weights", "weights", "'Model loading took … GiB' / 'Loading model weights took … GB' / "
                               "'model weights take'"),
        ("available_kv", "available_kv", "'Available KV cache memory: … GiB' / 'the rest of the memory reserved for "
                                         "KV Cache is' / 'kv_cache_size='"),
        ("kv_capacity", "kv_tokens|gpu_blocks", "'GPU KV cache size: N tokens' or '# GPU blocks: N'"),
        ("total_gpu_memory", "total_gpu_memory|startup_total", "'total_gpu_memory' (V0), 'Free memory on device "
                                                               "(free/total GiB)', or a torch OOM 'total capacity'"),
        ("non_torch_and_activation", "non_torch_memory|activation_peak|non_kv_cache_memory",
         "V0 'non_torch_memory takes … PyTorch activation peak memory takes'; V1 prints these only at DEBUG "
         "('Memory profiling takes …')"),
        ("cuda_graph", "graph_memory|graph_estimate|graph_actual", "'Graph capturing finished … took … GiB' / "
                                                                  "'Estimated CUDA graph memory' (absent with "
                                                                  "--enforce-eager)"),
    ),
}


def _has_anchor(parsed: ParsedLog, names: str) -> bool:
    wanted = set(names.split("|"))
    return any(a.name in wanted for a in parsed.anchors)


def _missing(parsed: ParsedLog) -> list[Missing]:
    out = []
    engine = parsed.engine
    if engine.engine is None:
        out.append(Missing(what="engine", looked_for="SGLang or vLLM lines, dumps, launch commands"))
    if not engine.version_printed:
        inferred = f"; inferred from line formats: {engine.version}" if engine.version else ""
        out.append(Missing(what="engine_version", looked_for="'vLLM API server version', 'LLM engine (vX)', "
                                                             "'sglang==X', image tags, an environment check ('vllm X' "
                                                             "as pip list prints it, pip show, --version, "
                                                             f"__version__){inferred}"))
    if parsed.run.gpu is None:
        guess = f"; the printed total fits {', '.join(parsed.run.gpu_candidates)}" if parsed.run.gpu_candidates else ""
        out.append(Missing(what="gpu", looked_for=f"a GPU name (nvidia-smi table, 'NVIDIA …', device_name=){guess}"))
    for name, looked_for in _SETTINGS:
        if getattr(parsed.run, name) is None:
            out.append(Missing(what=name, looked_for=looked_for))
    for what, names, looked_for in EXPECTED.get(engine.engine or "", ()):
        present = parsed.run.value("mem_fraction") is not None if names == "setting" else _has_anchor(parsed, names)
        if not present:
            out.append(Missing(what=what, looked_for=looked_for))
    return out


def with_missing(parsed: ParsedLog) -> ParsedLog:
    """The same log with ``missing`` filled in."""
    return dataclasses.replace(parsed, missing=tuple(_missing(parsed)))
