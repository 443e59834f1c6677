"""vLLM logs that print the CUDA-graph estimate (or its equivalent utilisation) but cannot give an evidence row of
``engines.vllm.graph_evidence.GRAPH_EVIDENCE``, each with the reason (data only; split from ``engines.vllm.graphs``
by the lead, 2026-12-05, session 16, to keep that module under the size limit; not on any command's import path)."""

from __future__ import annotations

NOT_EVIDENCE: dict[str, str] = {
    "vl_793": "the excerpt prints only the utilisation note: its graph counts, backend and GPU total are not printed "
              "for this boot (a two-node GB10 fork run), so no row can be read off the log (lead, session 10)",
    "vl_844": "0.55 GiB for PIECEWISE=5 / FULL=3 of a DeepSeek-V4-Flash target with its MTP drafter at tp 2 over two "
              "GB10 nodes: the estimate covers the drafter's graphs too and no row of the fit holds a drafter or "
              "DeepSeek-V4's layer kinds, so its graph-layer count is not defined here (helper blind12, added blind)",
    "vl_852": "0.58 GiB for PIECEWISE=76 / FULL=60, but the GPU is not named (FlashInfer prints only sm90) and the "
              "model (LFM2.5-1.2B, a short-convolution hybrid) has no config in tests/: no layer count or device "
              "total for a row (helper blind12, added blind)",
    "vl_907": "0.28 GiB 'Estimated CUDA graph memory' of Qwen2.5-0.5B-Instruct on an RTX 4090 (vLLM 0.24.0), but the "
              "day log quotes 'Profiling CUDA graph memory' without its PIECEWISE / FULL counts: no row is read off it "
              "in this round (helper bl16, added blind)",
    "vl_954": "0.53 GiB 'Estimated CUDA graph memory' of Qwen2.5-7B-Instruct on an RTX 4090 (vLLM 0.24.0, the Day49 log "
              "of vl_907's lab), again without its PIECEWISE / FULL capture counts: no row is read off it (lead, "
              "session 19, after bl19b added it blind)",
    **{vl: f"the utilisation note of InferStack's T4 sweep (Qwen2.5-1.5B-Instruct float16, vLLM 0.29.0, Model Runner "
           f"V2, max_num_seqs {seqs}); its capture counts are not printed in the highlights, so no row is read off it in "
           f"this round (helper bl16, added blind)"
       for vl, seqs in (("vl_908", 256), ("vl_909", 32), ("vl_910", 64), ("vl_911", 96), ("vl_912", 128))},
    **{vl: "another start of the same llm-d-planner H100 sweep (vLLM 0.19.0, the capture counts and 'Estimated CUDA "
           "graph memory' printed): held out of the fit in round bl24b, which adds logs blind and changes no constant; "
           "the fit taking these fifteen rows is the lead's call (helper bl24b, added blind)"
       for vl in [f"vl_{n}" for n in range(1045, 1060)]},
    **{vl: "another start of the same llm-d-planner H100 sweep (vLLM 0.19.0: gemma-2 / gemma-7b / CodeLlama / Mixtral "
           "tp 2 / gemma-3 / Llama-4-Scout tp 4 / Mistral-Small-3.1, capture counts and 'Estimated CUDA graph memory' "
           "printed): held out of the fit in round bl27, which adds logs blind and changes no constant (helper bl27, "
           "added blind)"
       for vl in [f"vl_{n}" for n in range(1060, 1068)]},
    **{vl: "a vLLM 0.29.0 start on one L40S (samilazrak/vllm-optimization-lab: Qwen3-14B, Qwen3-14B-AWQ; the utilisation "
           "hint printed): held out of the fit in round bl28, which adds logs blind and changes no constant (helper bl28, "
           "added blind)"
       for vl in ("vl_1100", "vl_1101", "vl_1102")},
    **{vl: "a vLLM 0.22.0 start of Kimi-K2.5-NVFP4 on B200 (InferenceMAX_Rocm_Team, tp 8 / tp 4; 'Estimated CUDA graph "
           "memory' printed with VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0, no capture counts): held out of the fit in "
           "round bl28, which adds logs blind and changes no constant (helper bl28, added blind)"
       for vl in ("vl_1111", "vl_1112")},
    **{vl: "a vLLM 0.22.0 / 0.22.1 start of gpt-oss-120b on H200 with InferenceX's launch (tp 1 / 2 / 4 / 8, the capture "
           "counts and 'Estimated CUDA graph memory' printed; heyram74/nebius_sopertors_inferencex_benchmark, "
           "GloriaXimingLu/inferencex-profiling): held out of the fit in round bl29, which adds logs blind and changes "
           "no constant (helper bl29, added blind)"
       for vl in [f"vl_{n}" for n in range(1158, 1163)]},
    **{vl: "a vLLM 0.21.0 start on a GB300 node (Prathmesh234/mutliturn-inferenceX: Kimi-K2.5 / MiniMax-M2.5 NVFP4 tp 4, "
           "'Estimated CUDA graph memory' printed; the catalog has no GB300): held out of the fit in round bl29, which "
           "adds logs blind and changes no constant (helper bl29, added blind)"
       for vl in ("vl_1163", "vl_1164")},
    **{vl: "a vLLM 0.19.0 / 0.19.1rc1 start on H100 80GB (lawjarp-simplismart/autoresearch-inference-optimization: "
           "gemma-4-31B / gemma-4-31B-it / gemma-4-26B-A4B-it, Qwen3.5-9B; the capture counts and 'Estimated CUDA graph "
           "memory' printed with the estimate off): held out of the fit in round bl29b, which adds logs blind and "
           "changes no constant (helper bl29b, added blind)"
       for vl in [f"vl_{n}" for n in range(1230, 1250)]},
    **{vl: "a vLLM 0.20.0 start on H100 80GB (dishantghai/ai-perf-hw3-spec-decode-quant: Qwen3-8B bf16 / its FP8_DYNAMIC "
           "copy, with and without an EAGLE-3 head; the capture counts and 'Estimated CUDA graph memory' printed): held "
           "out of the fit in round bl30, which adds logs blind and changes no constant (helper bl30, added blind)"
       for vl in [f"vl_{n}" for n in range(1253, 1270)]},
    **{vl: "a vLLM 0.25.1 start of Qwen3-30B-A3B-FP8 at tp 2 + EP on two RTX 4090s (lyell0710/vllmExperience EXP-016 / "
           "EXP-017, the last with EPLB; the capture counts and 'Estimated CUDA graph memory: 1.27 GiB' printed): held "
           "out of the fit in round bl30b, which adds logs blind and changes no constant (helper bl30b, added blind)"
       for vl in ("vl_1323", "vl_1325", "vl_1326")},
    "vl_938": "club-3090#104's KV-pool excerpt (a 0.21+ start of Qwen3.6-27B AutoRound with MTP on 2x RTX 3090): the "
              "utilisation hint of both workers without the capture sizes, the model's flags or the card's total, so "
              "no row is read off it (helper ex23, added in the held-back round)",
    "vl_1486": "vllm#53013's two lines (a 2.4T NVFP4 MoE at tp 2 dp 4 with EP on 4 × GB300): 'Estimated CUDA graph "
               "memory: 118.65 GiB total' with no capture counts, backend, model geometry or card total, and the "
               "thread calls the figure too pessimistic; no row is read off it (helper ex37, held-back round)",
}
"""logs that print the estimate or its equivalent utilisation but cannot give a row, with the reason"""
