"""Planning time against the number of decoder layers (issue 10: 10^5 layers took over 2 minutes).

    python bench/deep_model.py [--layers 1000 10000 30000 100000] [--repeat 3]

Writes a Llama-style MoE config (every layer MoE except two dense ones, so both layer kinds occur) with
``num_hidden_layers`` = N to a temporary file and times ``tpkit plan FILE --gpu B200 --tp 8 --pp 4 --json``
in-process (config read + model + weights + engine plan), for SGLang and vLLM; the median of ``--repeat``
runs is printed. The time should grow linearly with N.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import tempfile
import time
from pathlib import Path

from tpkit.cli import main as tpkit_main


def config(layers: int) -> dict:
    return {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048,
            "intermediate_size": 6144, "moe_intermediate_size": 768, "num_hidden_layers": layers,
            "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 151936,
            "max_position_embeddings": 40960, "torch_dtype": "bfloat16", "num_experts": 128,
            "num_experts_per_tok": 8, "decoder_sparse_step": 1, "mlp_only_layers": [0, 7]}


def time_plan(path: Path, engine: str, repeat: int) -> float:
    argv = ["plan", str(path), "--engine", engine, "--gpu", "B200", "--tp", "8", "--pp", "4", "--json"]
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            tpkit_main(argv)
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--layers", type=int, nargs="+", default=[1000, 10_000, 30_000, 100_000])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as d:
        print(f"{'layers':>8} {'sglang s':>9} {'vllm s':>9}")
        for n in args.layers:
            path = Path(d) / f"config-{n}.json"
            path.write_text(json.dumps(config(n)))
            times = [time_plan(path, e, args.repeat) for e in ("sglang", "vllm")]
            print(f"{n:>8,} {times[0]:>9.3f} {times[1]:>9.3f}", flush=True)


if __name__ == "__main__":
    main()
