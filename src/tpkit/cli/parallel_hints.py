"""Hints for a parallel layout that does not fit ``--num-gpus`` (pure; no torch).

A newcomer copies SGLang's ``--tp 8 --dp 8`` into vLLM, or leaves out ``--enable-dp-attention``, and the plan
refuses 64 GPUs; the refusal says which layout was most likely meant."""

from __future__ import annotations


def dp_inside_hint(args, parallel, num_gpus: int) -> str:
    """What a user who typed ``--tp 8 --dp 8 --num-gpus 8`` most likely meant: data parallel inside the TP group.
    SGLang does that only with ``--enable-dp-attention`` (``server_args.py``: dp_size then splits the tp_size
    GPUs; without it each of dp_size replicas takes tp_size GPUs). vLLM's ``--data-parallel-size`` always multiplies
    (GPUs = tp × pp × dp): attention DP with expert parallel over N GPUs is ``--tp 1 --dp N --enable-expert-parallel``."""
    if parallel.dp_attention or parallel.dp <= 1 or parallel.tp * parallel.pp > num_gpus:
        return ""
    if args.engine == "sglang" and parallel.tp % parallel.dp == 0:
        return (f"; for SGLang's DP attention ({parallel.dp} attention groups inside the tp {parallel.tp} GPUs) add "
                "--enable-dp-attention")
    if args.engine == "vllm" and num_gpus % (parallel.pp * parallel.dp) == 0:
        tp_fit = num_gpus // (parallel.pp * parallel.dp)
        return (f"; vLLM's --data-parallel-size multiplies the GPUs (tp × pp × dp): on {num_gpus} GPUs use --tp "
                f"{tp_fit} --dp {parallel.dp}")
    return ""
