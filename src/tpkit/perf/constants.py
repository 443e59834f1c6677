"""Every constant the cost model uses, with its value, unit, source and how sure it is.

Confidence labels (the same words appear in ``tpkit perf`` output):

    measured    read on hardware by a script in this repo (command + date in docs/benchmarks.md)
    published   a number from a named public source (code, datasheet, benchmark table)
    derived     arithmetic on the above, spelled out in the source string
    fitted      set by ``bench/decode_fit.py`` on the training half of the published speculative rows
                (split by source, docs/accuracy.md §4.2); the held-out half is scored apart
    assumption  a choice where no source pins the number; the output says so

Measured H200 constants come from ``bench/decode_reference.py`` run on one H200 SXM (torch 2.11,
CUDA 13, 2026-12-01, ``docs/runs/decode_h200_2026-12-01.json``), from its micro-benchmarks only —
never from the decode steps the model is checked against.
"""

from __future__ import annotations

from tpkit.records import dataclass

__all__ = ["Const", "C", "GroupedMm", "GROUPED_MM_BY_GPU", "grouped_mm_terms"]

_RUN = "bench/decode_reference.py micro-benchmarks, 1× H200 SXM, 2026-12-01 (docs/runs/decode_h200_2026-12-01.json)"


@dataclass(frozen=True, kw_only=True, slots=True)
class Const:
    """One sourced number."""

    value: float
    """the number, in ``unit``"""
    unit: str
    """what the number counts (``fraction``, ``us``, ``GB/s`` …)"""
    source: str
    """where it comes from (file, table, measurement)"""
    confidence: str
    """``measured``, ``published``, ``derived`` or ``assumption``"""


C = {
    # ---- device efficiencies (H200 measured; used for every GPU, scaled by its datasheet rates)
    "hbm_efficiency": Const(
        value=0.890, unit="fraction of datasheet memory bandwidth",
        source=f"device-to-device copy 4.273 TB/s (read+write) / 4.8 TB/s datasheet; {_RUN}", confidence="measured"),
    "gemm_flop_efficiency": Const(
        value=0.63, unit="fraction of datasheet dense tensor TFLOP/s",
        source=f"bf16 GEMMs at M=256 (28672×4096, 4096×14336, 128256×4096): 667/624/616 TFLOP/s, median 624 / 989.4; {_RUN}",
        confidence="measured"),
    "gemm_overhead_us": Const(
        value=2.8, unit="us per GEMM",
        source=f"batch-1 GEMMs minus bytes / copy bandwidth (1.0, 4.5, 2.8 µs; median); {_RUN}", confidence="measured"),
    "gemv_k_latency_ns": Const(
        value=1.15, unit="ns per element of a GEMM's reduction length K (floor of a GEMM at ≤ 16 tokens)",
        source="bench/gemv_small_m.py, bf16 cuBLAS GEMMs at M = 1/4/16 in a CUDA graph, 1× H200, 2026-12-04 "
               "(docs/runs/gemv_small_m_h200_2026-12-04.json): small-N matrices take a time set by K, not by their "
               "bytes (N×K = 2048×256: 3.1 µs, 2048×512: 3.8, 2048×1024: 4.8, 512×2048: 5.8, 256×2048: 5.7, "
               "768×4096: 7.5, 128×7168: 7.1); floor = gemm_overhead_us + min(K, gemv_k_latency_cap) × 1.15 ns "
               "(line through the K = 256 and K = 4096 rows from the 2.8 µs intercept; at or below every row but "
               "128×7168, 4–6 % above it at the cap)",
        confidence="measured"),
    "gemv_k_latency_cap": Const(
        value=4096, unit="elements of K beyond which the floor stops growing",
        source="same run: 128×7168 (7.1 µs) is no slower than 768×4096 (7.5 µs): cuBLAS splits long reductions",
        confidence="measured"),
    "roofline_sharpness": Const(
        value=3.0, unit="exponent p of (t_mem^p + t_flop^p)^(1/p)",
        source="chosen so a GEMM near the ridge is slower than max(t_mem, t_flop), as the M=64 rows of the GEMM "
               "micro-benchmark are (−6 % at p=3 vs −12 % with a plain max)", confidence="assumption"),
    "small_kernel_us": Const(
        value=2.65, unit="us per element-wise/norm kernel inside a CUDA graph",
        source=f"median of add (1.35), RMSNorm (4.70) and SiLU (2.65) on one 4096/14336-wide row, 100 per graph; {_RUN}",
        confidence="measured"),
    "attention_overhead_us": Const(
        value=5.1, unit="us per attention kernel",
        source=f"intercept of SDPA-flash time vs KV bytes at batch 1 (contexts 2k/8k/32k); {_RUN}", confidence="measured"),
    "attention_cta_gbps": Const(
        value=45.1, unit="GB/s streamed by one (sequence, KV head) block without split-KV",
        source=f"slope of the same fit (22.2 µs per MB of K+V per KV head); {_RUN}", confidence="measured"),
    "attention_cta_row_bytes": Const(
        value=512.0, unit="bytes per cached token one block read in that fit (K + V, head_dim 128, bf16)",
        source="the SDPA-flash calibration of attention_cta_gbps; a block reading wider rows (MLA latent 576 × 2 B) "
               "keeps proportionally more bytes in flight, so its rate is scaled by row / 512 within 0.5–4× "
               "(assumption: latency-bound streaming)", confidence="derived"),
    "triton_mla_row_gbps": Const(
        value=512.0, unit="GB/s of cached latent one vLLM TRITON_MLA decode row streams at most, whatever else runs",
        source="rtx6kpro models/kimi-k26-mtp-long-ctx-wip/patches/triton_mla_tuning.py (bench/tune_triton_mla.py, "
               "RTX 6000 Pro Blackwell sm120, fp8 KV, 2026-04-23): best stage-1 config at 16 heads, max_model_len "
               "262,144, one row: 0.28 ms for 249,036 tokens × 576 B (143.4 MB); 32 rows take 3.48 ms (1.32 TB/s), "
               "so a lone row is latency-bound (perf.mla_splits); assumed on other GPUs", confidence="measured"),
    "grouped_gemm_overhead_us": Const(
        value=11.6, unit="us per grouped expert GEMM",
        source=f"torch._grouped_mm, Qwen3-30B-A3B w13 shapes, 8 vs 128 active experts (28.4 / 281.3 µs): intercept; {_RUN}",
        confidence="measured"),
    "grouped_gemm_efficiency": Const(
        value=0.70, unit="fraction of the measured copy bandwidth",
        source=f"slope of the same fit: 2.99 TB/s of expert weights / 4.273 TB/s; {_RUN}; the default for a GPU "
               "without its own grouped_mm micro-benchmark (GROUPED_MM_BY_GPU: band 0.70–0.94 over the GPUs "
               "measured)", confidence="measured"),
    "engine_moe_efficiency": Const(
        value=1.0, unit="fraction of the dense-GEMM bandwidth for engine fused-MoE kernels",
        source="SGLang fused_moe (Triton, tuned per shape) and vLLM Marlin MoE stream expert weights like dense "
               "GEMMs; the torch._grouped_mm of the reference run (0.70) is not what engines run. Consistency "
               "check, not a fit: Kimi K2.6 at 128 concurrent on 8× RTX PRO 6000 (2,222 tok/s, rtx6kpro "
               "kimi-k26-v4.md) needs ≥ 0.88", confidence="assumption"),
    # ---- NCCL's own latency model (src/graph/tuning.cc, NVIDIA/nccl 2.30.7, commit 5067397)
    "nccl_base_lat_ring_ll_us": Const(
        value=6.6, unit="us", source="NVIDIA/nccl src/graph/tuning.cc baseLatencies Ring/LL (2.30.7)",
        confidence="published"),
    "nccl_base_lat_ring_ll128_us": Const(
        value=14.0, unit="us", source="NVIDIA/nccl src/graph/tuning.cc baseLatencies Ring/LL128 (2.30.7)",
        confidence="published"),
    "nccl_base_lat_ring_simple_us": Const(
        value=8.4, unit="us", source="NVIDIA/nccl src/graph/tuning.cc baseLatencies Ring/Simple (2.30.7)",
        confidence="published"),
    "nccl_hw_lat_nvlink_us": Const(
        value=0.6, unit="us per ring step (LL)", source="tuning.cc hwLatencies NVLINK Ring LL; LL128 1.9, Simple 3.4",
        confidence="published"),
    "nccl_hw_lat_pci_us": Const(
        value=1.0, unit="us per ring step (LL)", source="tuning.cc hwLatencies PCI Ring LL; LL128 2.5, Simple 5.7",
        confidence="published"),
    "nccl_ll_max_bw_hopper_gbps": Const(
        value=141.0, unit="GB/s", source="tuning.cc llMaxBws Hopper, one node (Blackwell 2×141, Ampere 87.7)",
        confidence="published"),
    # ---- links
    "nvlink_efficiency": Const(
        value=0.82, unit="fraction of per-direction NVLink bandwidth",
        source="p2pBandwidthLatencyTest 371–377 GB/s per pair of 450 (NVIDIA/nccl issue #1264)", confidence="published"),
    "pcie_p2p_efficiency": Const(
        value=0.86, unit="fraction of per-direction PCIe bandwidth",
        source="RTX PRO 6000 Gen5 x16 P2P writes 53–56 GB/s of 63 (local-inference-lab/rtx6kpro hardware/pcie-bandwidth.md)",
        confidence="published"),
    "pcie_nccl_busbw_fraction": Const(
        value=0.63, unit="fraction of per-direction PCIe bandwidth as NCCL ring bus bandwidth",
        source="nccl-tests all_reduce 8× RTX PRO 6000: 37.6–41.1 GB/s busbw of 63 (rtx6kpro pcie-bandwidth.md, tuned "
               "channels)", confidence="published"),
    "pcie_fabric_gbps_8": Const(
        value=168.7, unit="GB/s aggregate for all-to-all peer reads, 8 GPUs",
        source="p2pmark dense-interconnect scores of four 8× RTX PRO 6000 boxes (191.8, 173.1, 164.3, 51.7 GB/s), median "
               "(rtx6kpro pcie-bandwidth.md); dual-socket boxes reach 51.7", confidence="published"),
    "pcie_fabric_gbps_4": Const(
        value=129.7, unit="GB/s aggregate for all-to-all peer reads, 4 GPUs",
        source="p2pmark 4-GPU dense-interconnect scores 138.3, 129.7, 127.6 GB/s, median (rtx6kpro pcie-bandwidth.md)",
        confidence="published"),
    "pcie_oneshot_latency_us": Const(
        value=7.0, unit="us (barrier + launch of a PCIe one-shot all-reduce)",
        source="custom one-shot 7.5 µs at 256 B–1 KB on 8 GPUs, 6.1 µs on 4 (rtx6kpro pcie-bandwidth.md, "
               "optimization/pcie-oneshot-allreduce.md); p2pmark effective latency 6.0–7.4 µs", confidence="published"),
    "nvlink_oneshot_latency_us": Const(
        value=2.6, unit="us (one-shot all-reduce floor in a CUDA graph, NVLink)",
        source="tpkit one_shot 2.56 µs at 1 KiB, 2× H200 (comm/data/h200_nvlink_defaults.json); published 8-GPU "
               "custom one-shot floors 5.7–13 µs (shared/specs/allreduce-landscape.md §0.5)", confidence="measured"),
    "nvlink_oneshot_latency_per_peer_us": Const(
        value=0.5, unit="us per extra peer",
        source="interpolates 2.6 µs at 2 GPUs to ~5.6 µs at 8, the low end of the published 5.7–13 µs (landscape §0.5)",
        confidence="derived"),
    # ---- AMD Infinity Fabric (xGMI) full mesh (helper xgmi, 2026-12-04; facts in scripts/gpu_xgmi.py)
    "xgmi_efficiency": Const(
        value=0.73, unit="fraction of the raw per-link, per-direction xGMI bandwidth",
        source="TransferBench a2a on 8× MI300X, all 56 directed links at once: 45.1–47.2 GB/s per link, average "
               "46.55 of 64 (ROCm blog 'Understanding RCCL Bandwidth and xGMI Performance on AMD Instinct MI300X', "
               "2025-03-02: CRC and protocol overhead leave ~75 %)", confidence="published"),
    "xgmi_oneshot_latency_us": Const(
        value=6.0, unit="us (custom one-shot all-reduce floor on an xGMI mesh, in a graph)",
        source="vLLM custom all-reduce on 8× MI355X: 6.3 µs at 24 KB, 6.7 at 48 KB (vllm-project/vllm PR #39080 "
               "table, 'vllm/us' column, less the bytes over one 56 GB/s link); 7.2 µs at 2 KB on 4× MI300X (PR "
               "#19744 'baseline'); 5 µs with fused wait-reduce kernels on 8× MI300X (Epliz/muiLLM PR #6); flat in "
               "the group size (no per-size figure beyond these)", confidence="published"),
    "rccl_xgmi_ll_latency_us": Const(
        value=6.0, unit="us (RCCL all-reduce floor on an xGMI mesh, graph mode)",
        source="rccl-tests all_reduce_perf -G 1 on 8× MI300X (RCCL 2.22.3, ROCm 6.3): 6.0–6.5 µs at 32–128 B "
               "(ROCm blog mi300x-rccl-xgmi, 2025-03-02); 13 µs without graphs", confidence="published"),
    "rccl_xgmi_ll_bus_fraction": Const(
        value=0.33, unit="fraction of the group's usable xGMI bandwidth as RCCL small-message bus bandwidth",
        source="same graph-mode run: 10.26 µs at 256 KB ⇒ 1.75 × 262,144 B / (10.26 − 6.0) µs = 108 GB/s bus "
               "bandwidth of 7 × 46.55 = 326 GB/s usable (derived from the published rows ≤ 256 KB: 9.1 µs at 64 KB, "
               "the line gives 7.1)", confidence="derived"),
    "rccl_xgmi_simple_latency_us": Const(
        value=23.5, unit="us (RCCL large-message protocol start-up on an xGMI mesh)",
        source="same run: 35.0 µs at 2 MB minus 1.75 × 2 MB at the peak bus bandwidth (derived; 4 MB: model 46 vs "
               "51.8 µs measured, 16 MB: 115 vs 149)", confidence="derived"),
    "rccl_xgmi_busbw_fraction": Const(
        value=0.98, unit="fraction of the group's usable xGMI bandwidth as RCCL peak bus bandwidth",
        source="same run: 319 GB/s bus bandwidth at 16 GB of 7 × 46.55 = 326 GB/s usable ('RCCL Bandwidth "
               "shuffle[s] between 310-330 GB/s', set by the slowest link)", confidence="derived"),
    # ---- speculative decoding
    "accept_rate_eagle3": Const(
        value=0.71, unit="per-token acceptance (chain)",
        source="EAGLE3-LLaMA3.1-8B τ at T=1, 7 draft tokens: MT-bench 2.77, HumanEval 3.49, GSM8K 3.34; τ = 3.34 ⇒ "
               "a = 0.71 (nebius/EAGLE3-Llama-3.3-70B model card, via shared/specs/allreduce-landscape.md §4)",
        confidence="derived"),
    "accept_rate_eagle": Const(
        value=0.60, unit="per-token acceptance (chain)",
        source="EAGLE-2 heads accept ~1.4× fewer tokens than EAGLE-3 (EAGLE-3 paper abstract, arXiv:2503.01840); "
               "0.60 gives τ ≈ 2.3 at 3 steps", confidence="assumption"),
    "accept_rate_mtp": Const(
        value=0.85, unit="per-token acceptance (chain)",
        source="DeepSeek-V3 technical report: second-token acceptance 85–90 %; Qwen3.5 MTP per-position 0.85 "
               "(rtx6kpro optimization/speculative-decoding.md)", confidence="published"),
    "accept_rate_standalone": Const(
        value=0.60, unit="per-token acceptance (chain)", source="no public per-family figure used",
        confidence="assumption"),
    "eagle3_draft_vocab": Const(
        value=32000, unit="rows of the EAGLE-3 draft lm_head",
        source="draft_vocab_size 32000 of the public EAGLE-3 heads (SafeAILab EAGLE-3 configs)", confidence="published"),
    "draft_softmax_bw_fraction": Const(
        value=0.547, unit="fraction of the effective memory bandwidth (copy rate) SGLang's draft softmax streams at",
        source="torch.profiler of the EAGLE-3 draft step at B 64 × topk 8 (512 rows × 32,000 fp32), both heads with "
               "and without fc, docs/runs/spec_h200_2026-12-05.json (bench/spec_reference.py, 1× H200, 2026-12-05): "
               "cunn_SoftMaxForward 58.7/60.4/58.8/58.3 µs for 131.1 MB read+written; median 58.75 − small_kernel_us "
               "2.65 → 2.34 TB/s / 4.272 TB/s (perf.draft_terms; docs/benchmarks.md §3.7)", confidence="measured"),
    "row_block_gbps": Const(
        value=34.1, unit="GB/s one block streams when it reduces a whole row alone (softmax, one block per row)",
        source="the draft softmax at one row (32,000 fp32 read + written, 256 KB) in the B 1 × topk 1 profiles of "
               "docs/runs/spec_h200_2026-12-05.json: cunn_SoftMaxForward 10.1/10.6/10.1/10.2 µs, median 10.15 − "
               "small_kernel_us 2.65 → 256 KB / 7.5 µs (the order of attention_cta_gbps, 45.1: one block's "
               "streaming rate)", confidence="measured"),
    "draft_topk_pass_bw_fraction": Const(
        value=0.484, unit="fraction of the copy rate one radix digit-count pass of torch.topk streams at",
        source="same 4 profiles: mbtopk::computeBlockDigitCounts ×4 137.2/138.2/137.6/137.0 µs, 65.5 MB of fp32 "
               "probabilities per pass; 34.35 − 2.65 µs per pass → 2.07 TB/s / 4.272 TB/s", confidence="measured"),
    "draft_topk_gather_bw_fraction": Const(
        value=0.214, unit="fraction of the copy rate torch.topk's final gather (mbtopk::gatherTopK) streams at",
        source="same 4 profiles: gatherTopK 74.4/74.9/74.4/74.5 µs over 65.5 MB; 74.45 − 2.65 µs → 0.91 TB/s / "
               "4.272 TB/s", confidence="measured"),
    "spec_host_sync_us": Const(
        value=80.0, unit="us per speculative cycle (GPU→CPU sync of accepted tokens)",
        source="rtx6kpro daily summary 2026-04-24: removing an '80µs GPU-CPU sync per token' in vLLM's EAGLE-3 path "
               "took Kimi from 75 to 116 tok/s", confidence="published"),
    "spec_host_fraction": Const(
        value=0.075, unit="fraction of a speculative cycle spent in host work the GPU waits for",
        source="sgl-project/sglang PR #9588: speculative decoding runs without overlap scheduling; overlapping the "
               "host work gave 5–10 % (H100/H200, EAGLE3), so ~7.5 % of a cycle is exposed host time. Plain decoding "
               "overlaps it (SGLang overlap scheduler, vLLM async scheduling)", confidence="published"),
    "spec_small_kernels": Const(
        value=12, unit="kernels per cycle (tree build, verify/accept, sampling, KV bookkeeping)",
        source="order of the kernels SGLang's EAGLE worker launches outside the model forwards", confidence="assumption"),
    # ---- host side: what the GPU waits for when a pass is not one CUDA graph or the host work is not overlapped
    "eager_kernel_host_us": Const(
        value=20.0, unit="us of CPU time per kernel launched from an engine's Python (eager op or graph replay)",
        source="published 5–20 µs per eager kernel launch (Python, dispatcher, driver; transcendence2006.site "
               "'CUDA Graphs and Inference Optimization'; czhou578.github.io NanoGPT CUDA graph replay: 5–15 µs); the "
               "top of that range because an engine's modules add Python per op: Llama-3.1-8B on H100 decodes a token "
               "in 8.4 ms eager vs 5.1 ms in a CUDA graph (cloudai.pt), ≈ 21 µs per launch over the ~400 kernels "
               "of an engine's step", confidence="published"),
    "piecewise_attention_kernels": Const(
        value=4, unit="eager launches per layer between two graph pieces (decode attention: KV store, attention, "
                      "merge, piece replay)",
        source="vLLM piecewise CUDA graphs split every layer at the attention op (compilation config splitting_ops); "
               "counted from v1/attention/backends (reshape_and_cache, the attention kernel(s)); approximate",
        confidence="assumption"),
    "mla_prefill_path_kernels": Const(
        value=14, unit="eager launches per layer of vLLM's MLA prefill path",
        source="counted in vllm 0.21 model_executor/layers/attention/mla_attention.py _forward_prefill + "
               "_compute_prefill_context: gather, cast, kv_b_proj, split, concat K, context attention, merge, and "
               "the same for the new tokens, output copy", confidence="derived"),
    "sglang_spec_v1_host_us": Const(
        value=3000.0, unit="us per speculative cycle of host work the GPU waits for (SGLang spec v1, no overlap)",
        source="fitted by bench/decode_fit.py on the training sources (sf339, eagle173: 10 rows) of bench/data/"
               "published_spec.json (grid 0–10 ms, best 3.0 ms); corroborated by sglang PR #11398 (Llama-3.1-8B EAGLE 5/1/6: v1 246.8 tok/s at "
               "accept length 2.99 vs v2 273.4 at 3.01, i.e. v2's overlap hides 1.1 ms of a 12.1 ms cycle) and PR "
               "#9588 (overlap worth 5–10 %)", confidence="fitted"),
    "sglang_spec_v1_host_per_request_us": Const(
        value=6.2, unit="us per running request per speculative cycle of host work the GPU waits for (SGLang spec v1)",
        source="bench/sglang_host_per_request.py (docs/benchmarks.md §3.10, helper sp19b, 2026-12-05): sglang "
               "0.4.4.post2's own EagleVerifyInput.verify per-token calls, process_batch_result_decode's "
               "check_finished and stream_output_generation (BatchTokenIDOut pickled) timed on an Intel Xeon VM, "
               "each cycle the fastest of 9 runs: 6.2 us per request (512-token outputs, accept length 2.18); 0.4.9 "
               "4.6 us (sglang_spec_v1_host_per_request_new_ids_us); a lower bound (GPU->CPU copies, tensor "
               "iteration, ZMQ send not timed).  Releases before 0.4.6.post4, whose stream_output_generation resends "
               "the whole output every cycle (read in 0.4.4.post2, 0.4.5, 0.4.6, 0.4.6.post3 wheels; helper tidy19)",
        confidence="measured"),
    "sglang_spec_v1_host_per_request_new_ids_us": Const(
        value=4.6, unit="us per running request per speculative cycle of host work the GPU waits for (SGLang spec v1, "
                        "0.4.6.post4 and later)",
        source="bench/sglang_host_per_request.py on the sglang 0.4.9 wheel (docs/benchmarks.md §3.10, "
               "docs/runs/sglang_host_per_request_0.4.9_2026-12-05.json, helper sp19b): the same calls as "
               "sglang_spec_v1_host_per_request_us, 4.6 us per request (512-token outputs, accept length 2.18); "
               "from 0.4.6.post4 managers/scheduler_output_processor_mixin.py stream_output_generation sends only "
               "the ids new since the last send (decode_ids[req.send_decode_id_offset:]; read in 0.4.6.post4, "
               "0.4.6.post5, 0.4.7, 0.4.8, 0.4.9 wheels; absent in 0.4.6.post3; helper tidy19)",
        confidence="measured"),
    "step_overhead_kernels": Const(
        value=4, unit="kernels per forward (sampling/argmax, logits processing, position update)",
        source="order of SGLang/vLLM sampler kernels after the lm_head", confidence="assumption"),
}
"""name → constant"""


# ---- torch._grouped_mm (the reference layout's expert GEMMs) per GPU (helper moe17, 2026-12-05, session 17)
_H100_RUN = ("bench/decode_reference.py micro-benchmarks, 1× H100 80GB HBM3 SXM, 2026-12-05 "
             "(docs/runs/decode_h100_moe_2026-12-05.json, micro.grouped_mm; docs/benchmarks.md §3.8)")


@dataclass(frozen=True, kw_only=True, slots=True)
class GroupedMm:
    """The expert-GEMM terms of ``torch._grouped_mm`` on one GPU: a line through its micro-benchmark (Qwen3-30B-A3B
    w13, 8 and 128 experts × 1 token), or the default for a GPU that has none."""

    efficiency: float
    """expert weights stream at this fraction of the GPU's copy bandwidth (fraction)"""
    overhead_us: float
    """fixed µs per grouped GEMM launch (the line's intercept)"""
    measured_on: str
    """catalog name of the GPU the two numbers were measured on"""
    measured: bool
    """True when ``measured_on`` is the GPU asked about; False: the default carried over (see ``band``)"""
    band: tuple[float, float]
    """(lowest, highest) efficiency over the GPUs measured: where an unmeasured GPU's value may lie"""
    source: str
    """run file and figures behind the numbers"""


GROUPED_MM_BY_GPU = {
    "H200-SXM-141GB": (C["grouped_gemm_efficiency"], C["grouped_gemm_overhead_us"]),
    "H100-SXM-80GB": (
        Const(value=0.94, unit="fraction of the measured copy bandwidth",
              source=f"torch._grouped_mm 8 / 128 experts × 1 token: 30.31 / 296.07 µs; slope 120 × 6,291,456 B / "
                     f"265.76 µs = 2.84 TB/s of expert weights / the run's copy 3.023 TB/s = 0.940 (128 experts "
                     f"alone: 2.72 TB/s; 32 experts predicted 83.5, measured 81.9 µs; the dense run "
                     f"decode_h100_dense_2026-12-05.json gives 0.941); {_H100_RUN}", confidence="measured"),
        Const(value=12.6, unit="us per grouped expert GEMM",
              source=f"intercept of the same line: 30.31 µs − 8 × 6,291,456 B / 2.84 TB/s (dense run: 12.4); "
                     f"{_H100_RUN}", confidence="measured"),
    ),
}
"""catalog GPU name → (efficiency, overhead) of ``torch._grouped_mm`` measured on that GPU.  The rule of
docs/benchmarks.md §3.2 (constants from a run's micro-benchmarks, never from its decode steps) applied per GPU: the H100's expert GEMMs
stream at 2.84 TB/s, 0.94 of its copy rate, where the H200's stream at 2.99 TB/s, 0.70 of a faster copy."""


def grouped_mm_terms(gpu_name: str) -> GroupedMm:
    """The ``torch._grouped_mm`` terms for the catalog GPU ``gpu_name``: its own micro-benchmark where
    ``GROUPED_MM_BY_GPU`` has one, else the H200 value (``grouped_gemm_efficiency`` / ``grouped_gemm_overhead_us``)
    with the band of the measured GPUs."""
    effs = [eff.value for eff, _ in GROUPED_MM_BY_GPU.values()]
    band = (min(effs), max(effs))
    own = GROUPED_MM_BY_GPU.get(gpu_name)
    measured_on = gpu_name if own else "H200-SXM-141GB"
    eff, fixed = own or GROUPED_MM_BY_GPU[measured_on]
    source = eff.source if own else (f"measured on {measured_on}, assumed for {gpu_name} (band {band[0]:.2f}–"
                                     f"{band[1]:.2f} over the GPUs measured: {', '.join(GROUPED_MM_BY_GPU)}); "
                                     f"{eff.source}")
    return GroupedMm(efficiency=eff.value, overhead_us=fixed.value, measured_on=measured_on, measured=own is not None,
                     band=band, source=source)

