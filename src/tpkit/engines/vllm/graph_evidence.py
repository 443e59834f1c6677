"""The printed CUDA-graph estimates behind ``graphs.py``'s fitted constants (data only, and ``median`` to read
them): ``GRAPH_EVIDENCE``, every log of the explain corpus that prints vLLM's "Estimated CUDA graph memory" or its
equivalent utilisation, and ``ROCM_GRAPH_EVIDENCE``, the MI300X logs behind the ROCm per-graph term.  Split from
``graphs.py`` (helper tidy29); the rows that are not evidence, with their reasons: ``graphs_not_evidence``."""

from __future__ import annotations

from tpkit.records import dataclass

__all__ = ["GraphSample", "GRAPH_EVIDENCE", "ROCM_GRAPH_EVIDENCE", "median"]

ROCM_GRAPH_EVIDENCE: tuple[tuple[str, str, str, int, int, int, float, str], ...] = (
    ("vl_240", "0.23.0", "google/gemma-3-4b-it (Logicrithm/orbit-ai, V1 runner, ROCM_ATTN)", 51, 51, 34, 3.74,
     "'Graph capturing finished in 5 secs, took 3.74 GiB' (the capture itself: 0.23.0 subtracts no estimate on ROCm)"),
    ("vp_254", "0.29.1", "google/gemma-4-E2B-it (xbill9/gemma4-dev rig 2b, Model Runner V2, TRITON_ATTN)", 51, 51, 35,
     3.9, "'3.9 GiB for CUDAGraph memory' (gpu_worker.py's closing line: the capture)"),
    ("vl_813", "0.31.1rc1.dev23", "google/gemma-4-26B-A4B-it (xbill9/gemma4-dev rig 26b, Model Runner V2, "
     "TRITON_ATTN)", 51, 51, 30, 3.41, "'3.4 GiB (estimated)', 3.36 actual; (0.9 − 0.8822) × 191.69 GiB = 3.41"),
)
"""(source, release, model, PIECEWISE graphs, FULL graphs, decoder layers, printed GiB, the line) of every MI300X
start-up log of the corpus with a graph figure from vLLM ≥ 0.23 (helper v620, 2026-12-05): two studies, three
models, ROCM_ATTN and TRITON_ATTN, V1 runner and Model Runner V2.  Their graphs cost 1.08 / 1.10 / 1.11 MiB per
graph and decoder layer above ``FIRST_CAPTURE_BYTES``, seven times the CUDA fit (HIP graphs; the mechanism of the
driver-side size is not derivable).  Graph counts: 512-token capture maximum (printed), max_num_seqs 1024 (the
≥ 160 GiB default), FULL_AND_PIECEWISE (printed in vl_240 / vl_813).  Older ROCm stacks do not show it: vl_241
(0.11.0rc2, gemma-3-27b, 67 + 67 graphs × 62 layers, took 1.02 GiB) and vl_255 (0.9.2, 0.28 GiB) are CUDA-like;
both releases subtract no estimate, so they do not bear on the KV budget."""


@dataclass(frozen=True, kw_only=True, slots=True)
class GraphSample:
    """One printed "Estimated CUDA graph memory" of a committed start-up log (tests/logs/data/vllm/<source>.log)."""

    source: str
    """explain-corpus case id"""
    study: str
    """where the log comes from (repository, study or search-index file): the unit left out in the
    leave-one-study-out check"""
    model: str
    """the model the log serves (repository id as printed)"""
    gpu: str
    """the GPU the log names ("not named" where it does not)"""
    release: str
    """the vLLM version the log prints"""
    tp: int
    """tensor-parallel ranks (GPUs)"""
    piecewise: int
    """PIECEWISE graphs (the log's "Profiling CUDA graph memory" line, else its capture sizes)"""
    full: int
    """FULL graphs (0: PIECEWISE-only)"""
    layers: int
    """decoder layers of the model's config"""
    backend: str
    """the attention backend the log names"""
    printed_gib: float
    """the estimate, GiB (2^30 B) as vLLM prints it (negative for two PIECEWISE-only speculative runs)"""
    derived: bool = False
    """no estimate line: (--gpu-memory-utilization − the printed equivalent) × the GPU's total"""
    fitted: bool = True
    """in the fit of ``FIRST_CAPTURE_BYTES`` and ``PER_GRAPH_LAYER_BYTES``"""
    fa3: tuple[int, int, int] = (0, 0, 0)
    """(query heads per rank, V head size, largest FULL capture) where the FULL graphs run FlashAttention 3
    (FLASH_ATTN on Hopper: ``graph_fa3``), else zeros"""


GRAPH_EVIDENCE: tuple[GraphSample, ...] = (
    GraphSample(source="vl_076", study="search-index file id 60491628666", model="google/gemma-4-26B-A4B-it, an FP8 build (repository not named)", gpu="L40S", release="0.25.1", tp=1,
                piecewise=51, full=35, layers=30, backend="not printed", printed_gib=0.66),
    GraphSample(source="vl_100", study="LukeJYK/AutoScientists", model="Qwen/Qwen3-Coder-30B-A3B-Instruct", gpu="A100", release="0.26.1rc1.dev156+g0eec856cc.d20260731", tp=1,
                piecewise=7, full=5, layers=48, backend="FLASH_ATTN", printed_gib=0.15),
    GraphSample(source="vl_104", study="Michal1337/clinician-co-pilot", model="google/gemma-4-26B-A4B-it", gpu="H200", release="0.20.2", tp=1,
                piecewise=51, full=51, layers=30, backend="TRITON_ATTN", printed_gib=0.88),
    GraphSample(source="vl_108", study="ReidHarris/sql-agent-rl", model="Qwen/Qwen2.5-Coder-1.5B-Instruct", gpu="not named", release="0.31.0", tp=1,
                piecewise=51, full=35, layers=28, backend="FLASH_ATTN", printed_gib=0.355, derived=True),
    GraphSample(source="vl_128", study="NnamdiOdozi/mlops-assignment", model="Qwen/Qwen3-30B-A3B-Instruct-2507", gpu="H100", release="0.22.1", tp=1,
                piecewise=19, full=11, layers=48, backend="FLASH_ATTN", printed_gib=0.14, fa3=(32, 128, 64)),
    GraphSample(source="vl_138", study="sridhar1804/local-ai", model="microsoft/Phi-3-mini-4k-instruct", gpu="RTX 3090", release="0.19.1", tp=1,
                piecewise=51, full=35, layers=32, backend="FLASH_ATTN", printed_gib=0.51),
    GraphSample(source="vl_154", study="ramrow/foam_standards", model="Jackrong/Qwen3.5-27B-Claude-4.6-Opus-Reasoning-Distilled", gpu="H100", release="0.19.0", tp=4,
                piecewise=51, full=51, layers=64, backend="FLASH_ATTN", printed_gib=1.59, fa3=(6, 256, 512)),
    GraphSample(source="vl_160", study="HienHoang3011/translate-pipeline", model="google/gemma-4-E4b-it", gpu="not named", release="0.19.2rc1.dev206+g95995bbef", tp=1,
                piecewise=51, full=35, layers=42, backend="TRITON_ATTN", printed_gib=0.79),
    GraphSample(source="vl_201", study="kuuroooo/MindSafe", model="hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", gpu="not named", release="0.19.0", tp=2,
                piecewise=51, full=35, layers=80, backend="FLASH_ATTN", printed_gib=1.88),
    GraphSample(source="vl_202", study="eslam-ahmed43/llm-lab", model="Qwen/Qwen2.5-1.5B-Instruct", gpu="Tesla T4", release="0.30.0", tp=1,
                piecewise=51, full=35, layers=28, backend="TRITON_ATTN", printed_gib=0.342, derived=True),
    GraphSample(source="vl_207", study="passionworkeer/tengxun_open", model="Qwen/Qwen3.5-9B", gpu="not named", release="0.18.0", tp=1,
                piecewise=51, full=35, layers=32, backend="FLASH_ATTN", printed_gib=0.65),
    GraphSample(source="vl_208", study="qBraid/evolving-quantum-compilers", model="Qwen/Qwen2.5-Coder-14B-Instruct", gpu="Hopper", release="0.19.1", tp=1,
                piecewise=51, full=51, layers=48, backend="FLASH_ATTN", printed_gib=1.29, fa3=(40, 128, 512)),
    GraphSample(source="vl_252", study="dariustanrd/tokenkaki", model="Qwen/Qwen3-8B", gpu="A100-SXM4-40GB", release="0.19.1", tp=1,
                piecewise=51, full=35, layers=36, backend="FLASH_ATTN", printed_gib=2.35),
    GraphSample(source="vl_270", study="akamaslabs/vllm-benchmark#30", model="RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", gpu="L40S", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=30, backend="TRITON_ATTN", printed_gib=0.502, derived=True),
    GraphSample(source="vl_271", study="akamaslabs/vllm-benchmark#30", model="RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", gpu="L40S", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=30, backend="TRITON_ATTN", printed_gib=0.537, derived=True),
    GraphSample(source="vl_272", study="akamaslabs/vllm-benchmark#30", model="RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", gpu="L40S", release="0.29.0", tp=1,
                piecewise=51, full=51, layers=30, backend="TRITON_ATTN", printed_gib=0.537, derived=True),
    GraphSample(source="vl_274", study="akamaslabs/vllm-benchmark#30", model="RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", gpu="L40S", release="0.29.0", tp=1,
                piecewise=25, full=0, layers=30, backend="TRITON_ATTN", printed_gib=0.244, derived=True),
    GraphSample(source="vl_275", study="akamaslabs/vllm-benchmark#31", model="RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", gpu="L40S", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=30, backend="TRITON_ATTN", printed_gib=0.502, derived=True),
    GraphSample(source="vl_290", study="akamaslabs/vllm-benchmark#28", model="Qwen/Qwen3-8B-FP8", gpu="MIG 1g.16gb", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=36, backend="FLASH_ATTN", printed_gib=0.55),
    GraphSample(source="vl_291", study="akamaslabs/vllm-benchmark#28", model="Qwen/Qwen3-8B-FP8", gpu="MIG 1g.16gb", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=36, backend="FLASHINFER", printed_gib=0.81),
    GraphSample(source="vl_330", study="StellaLee/vllm-experiment", model="Qwen/Qwen2.5-Coder-7B-Instruct", gpu="4090", release="0.23.0", tp=1,
                piecewise=11, full=7, layers=28, backend="FLASH_ATTN", printed_gib=0.13),
    GraphSample(source="vl_331", study="StellaLee/vllm-experiment", model="Qwen/Qwen2.5-Coder-7B-Instruct", gpu="4090", release="0.23.0", tp=1,
                piecewise=11, full=7, layers=28, backend="FLASH_ATTN", printed_gib=0.13),
    GraphSample(source="vl_332", study="belonghim/vllm-optimizer", model="Qwen/Qwen3.5-0.8B", gpu="not named", release="0.24.0+rhaiv.9", tp=1,
                piecewise=51, full=35, layers=24, backend="FLASH_ATTN", printed_gib=0.3),
    GraphSample(source="vl_345", study="guardkit/guardkit", model="Qwen/Qwen3.5-35B-A3B-FP8", gpu="GB10", release="0.18.1rc1.dev147+g290809456", tp=1,
                piecewise=51, full=35, layers=40, backend="FLASH_ATTN", printed_gib=1.65),
    GraphSample(source="vl_347", study="samiulabir201/swiss-legal-citation-retrieval", model="Qwen/Qwen3-Reranker-8B", gpu="RTX PRO 6000", release="0.20.2", tp=1,
                piecewise=51, full=51, layers=36, backend="FLASH_ATTN", printed_gib=0.34),
    GraphSample(source="vl_371", study="gnosia93/eks-agentic-ai", model="Qwen/Qwen2.5-72B-Instruct", gpu="L40S", release="0.19.0", tp=4,
                piecewise=51, full=35, layers=80, backend="FLASH_ATTN", printed_gib=2.73),
    GraphSample(source="vl_383", study="Einengutenmorgen/decode_kuki", model="Qwen/Qwen3.8-27B", gpu="L40S", release="0.31.0", tp=2,
                piecewise=51, full=35, layers=64, backend="FLASH_ATTN", printed_gib=0.94),
    GraphSample(source="vl_402", study="search-index file id 67144197265", model="Qwen/Qwen2.5-7B-Instruct", gpu="Hopper", release="0.22.0", tp=1,
                piecewise=35, full=19, layers=28, backend="FLASH_ATTN", printed_gib=0.37, fa3=(28, 128, 128)),
    GraphSample(source="vl_403", study="search-index file id 55770092662", model="Qwen/Qwen3.5-4B", gpu="Hopper", release="0.22.0", tp=1,
                piecewise=51, full=35, layers=32, backend="FLASH_ATTN", printed_gib=0.64, fa3=(16, 256, 256)),
    GraphSample(source="vl_404", study="search-index file id 61544841280", model="nvidia/Qwen3.6-27B-NVFP4", gpu="GB10", release="0.23.1rc1.dev531+ga65f93fb2", tp=1,
                piecewise=5, full=4, layers=64, backend="FLASHINFER", printed_gib=0.61),
    GraphSample(source="vl_460", study="search-index file id 67306615881", model="Qwen/Qwen3-0.6B", gpu="not named", release="0.18.1.dev0+gbcf2be961.d20260324", tp=1,
                piecewise=11, full=7, layers=28, backend="FLASH_ATTN", printed_gib=0.08),
    GraphSample(source="vl_461", study="search-index file id 52072816508", model="RedHatAI/gemma-4-26B-A4B-it-NVFP4 (google/gemma-4-26B-A4B-it)", gpu="not named", release="0.19.2rc1.dev8+g4b7f5ea1a", tp=1,
                piecewise=51, full=35, layers=30, backend="TRITON_ATTN", printed_gib=0.83),
    GraphSample(source="vl_523", study="search-index file id 51912001300", model="RedHatAI/Qwen3.6-35B-A3B-NVFP4", gpu="GB10", release="0.20.0", tp=1,
                piecewise=1, full=1, layers=40, backend="FLASHINFER", printed_gib=0.43),
    GraphSample(source="vl_524", study="search-index file id 61569442000", model="nvidia/Qwen3.6-27B-NVFP4", gpu="GB10", release="0.23.1rc1.dev531+ga65f93fb2", tp=1,
                piecewise=9, full=0, layers=64, backend="FLASHINFER", printed_gib=-0.81),
    GraphSample(source="vl_620", study="A coding-agent session transcript 'Qwen3", model="Qwen/Qwen3.8-27B", gpu="GB10", release="0.27.1", tp=1,
                piecewise=51, full=35, layers=64, backend="FLASH_ATTN", printed_gib=1.94),
    GraphSample(source="vl_625", study="WSL2 series", model="nvidia/Gemma-4-26B-A4B-NVFP4", gpu="RTX 5090", release="0.20.2", tp=1,
                piecewise=3, full=2, layers=30, backend="TRITON_ATTN", printed_gib=0.26),
    GraphSample(source="vl_626", study="WSL2 series", model="RedHatAI/Qwen3.6-35B-A3B-NVFP4", gpu="RTX 5090", release="0.20.0", tp=1,
                piecewise=1, full=1, layers=40, backend="FLASHINFER", printed_gib=0.36),
    GraphSample(source="vl_663", study="WSL2 series", model="RedHatAI/Qwen3.6-35B-A3B-NVFP4", gpu="not named", release="0.20.0", tp=1,
                piecewise=1, full=1, layers=40, backend="FLASHINFER", printed_gib=0.36),
    GraphSample(source="vl_664", study="WSL2 series", model="RedHatAI/Qwen3.6-35B-A3B-NVFP4", gpu="not named", release="0.20.0", tp=1,
                piecewise=3, full=3, layers=40, backend="FLASHINFER", printed_gib=0.45),
    GraphSample(source="vl_700", study="akamaslabs/vllm-benchmark#28", model="Qwen/Qwen3-8B-FP8", gpu="MIG 1g.16gb", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=36, backend="FLASHINFER", printed_gib=0.81),
    GraphSample(source="vl_701", study="akamaslabs/vllm-benchmark#28", model="Qwen/Qwen3-8B-FP8", gpu="MIG 1g.16gb", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=36, backend="FLASHINFER", printed_gib=0.81),
    GraphSample(source="vl_702", study="akamaslabs/vllm-benchmark#28", model="Qwen/Qwen3-8B-FP8", gpu="MIG 1g.16gb", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=36, backend="TRITON_ATTN", printed_gib=0.52),
    GraphSample(source="vl_703", study="akamaslabs/vllm-benchmark#28", model="Qwen/Qwen3-8B-FP8", gpu="MIG 1g.16gb", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=36, backend="TRITON_ATTN", printed_gib=0.55),
    GraphSample(source="vl_704", study="akamaslabs/vllm-benchmark#28", model="Qwen/Qwen3-8B-FP8", gpu="MIG 1g.16gb", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=36, backend="FLASH_ATTN", printed_gib=0.55),
    GraphSample(source="vl_705", study="akamaslabs/vllm-benchmark#28", model="Qwen/Qwen3-8B-FP8", gpu="MIG 1g.16gb", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=36, backend="FLASHINFER", printed_gib=0.81),
    GraphSample(source="vl_706", study="akamaslabs/vllm-benchmark#28", model="Qwen/Qwen3-8B-FP8", gpu="MIG 1g.16gb", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=36, backend="FLASHINFER", printed_gib=0.81),
    GraphSample(source="vl_707", study="akamaslabs/vllm-benchmark#28", model="Qwen/Qwen3-8B-FP8", gpu="MIG 1g.16gb", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=36, backend="FLASHINFER", printed_gib=0.81),
    GraphSample(source="vl_708", study="akamaslabs/vllm-benchmark#30", model="RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", gpu="L40S", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=30, backend="TRITON_ATTN", printed_gib=0.519, derived=True),
    GraphSample(source="vl_709", study="akamaslabs/vllm-benchmark#30", model="RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", gpu="L40S", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=30, backend="TRITON_ATTN", printed_gib=0.502, derived=True),
    GraphSample(source="vl_710", study="akamaslabs/vllm-benchmark#30", model="RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", gpu="L40S", release="0.29.0", tp=1,
                piecewise=5, full=5, layers=30, backend="TRITON_ATTN", printed_gib=0.084, derived=True),
    GraphSample(source="vl_711", study="akamaslabs/vllm-benchmark#30", model="RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", gpu="L40S", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=30, backend="TRITON_ATTN", printed_gib=0.55, derived=True),
    GraphSample(source="vl_720", study="pull request eugr/spark-vllm-docker", model="Qwen/Qwen3.6-35B-A3B-FP8", gpu="GB10", release="not printed", tp=1,
                piecewise=51, full=0, layers=40, backend="FLASHINFER", printed_gib=-4.74),
    GraphSample(source="vl_730", study="search-index file id 51781852921", model="Qwen/Qwen3.5-9B", gpu="L4", release="0.19.0", tp=1,
                piecewise=51, full=35, layers=32, backend="FLASH_ATTN", printed_gib=0.78),
    GraphSample(source="vl_731", study="WSL2 series", model="RedHatAI/gemma-4-26B-A4B-it-NVFP4", gpu="not named", release="0.19.2", tp=1,
                piecewise=3, full=2, layers=30, backend="TRITON_ATTN", printed_gib=0.26),
    GraphSample(source="vl_734", study="search-index file id 54064687355", model="kaitchup/Qwen3.5-2B-autoround-W4A16", gpu="not named", release="0.19.1", tp=1,
                piecewise=51, full=51, layers=24, backend="not printed", printed_gib=0.33),
    GraphSample(source="vl_738", study="WSL2 series", model="RedHatAI/gemma-4-26B-A4B-it-NVFP4", gpu="not named", release="0.19.2", tp=1,
                piecewise=3, full=2, layers=30, backend="TRITON_ATTN", printed_gib=0.26),
    GraphSample(source="vl_741", study="WSL2 series", model="RedHatAI/gemma-4-26B-A4B-it-NVFP4 (EAGLE-3 drafter RedHatAI/gemma-4-26B-A4B-it-speculator.eagle3)", gpu="not named", release="0.19.2", tp=1,
                piecewise=3, full=2, layers=30, backend="TRITON_ATTN", printed_gib=0.27),
    GraphSample(source="vl_742", study="search-index file id 56036894944", model="Qwen/Qwen3.5-4B", gpu="not named", release="0.22.0", tp=1,
                piecewise=35, full=19, layers=32, backend="FLASH_ATTN", printed_gib=0.4),
    GraphSample(source="vl_843", study="search-index file id 63102470423", model="google/gemma-4-31B-it",
                gpu="not named", release="0.23.0", tp=1, piecewise=8, full=5, layers=60, backend="TRITON_ATTN",
                printed_gib=0.13, fitted=False),
    GraphSample(source="vl_712", study="akamaslabs/vllm-benchmark#30", model="RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", gpu="L40S", release="0.29.0", tp=1,
                piecewise=51, full=35, layers=30, backend="TRITON_ATTN", printed_gib=0.502, derived=True, fitted=False),
    GraphSample(source="vl_743", study="search-index file id 56681168668", model="rdtand/Qwen3.6-35B-A3B-PrismaQuant-4.75bit-vllm (MTP drafter, 3 tokens: its graphs and layer not counted)",
                gpu="not named", release="0.22.0", tp=1, piecewise=9, full=5, layers=40, backend="FLASH_ATTN",
                printed_gib=0.61, fitted=False),
    GraphSample(source="vl_812", study="xbill9/gemma4-dev", model="google/gemma-4-E2B-it-qat-w4a16-ct (Model Runner V2; sizes not printed: "
                "vLLM 0.30.0's defaults below 70 GiB, max_num_seqs 256; 2048 tokens and capture max 512 printed)", gpu="L4",
                release="0.30.0", tp=1, piecewise=51, full=35, layers=35, backend="TRITON_ATTN", printed_gib=0.529,
                derived=True, fitted=False),
    GraphSample(source="vl_813", study="xbill9/gemma4-dev", model="google/gemma-4-26B-A4B-it (ROCm, Model Runner V2; sizes not printed: "
                "vLLM 0.30.0's defaults from 160 GiB, max_num_seqs 1024; 16384 tokens and capture max 512 printed)", gpu="MI300X",
                release="0.31.1rc1.dev23+g43b4aaea3", tp=1, piecewise=51, full=51, layers=30, backend="TRITON_ATTN",
                printed_gib=3.412, derived=True, fitted=False),
    GraphSample(source="vl_860", study="search-index file id 57489989625", model="Qwen/Qwen3.5-9B", gpu="L40S",
                release="0.18.0", tp=1, piecewise=51, full=35, layers=32, backend="FLASHINFER", printed_gib=1.58,
                fitted=False),
    GraphSample(source="vl_863", study="search-index file id 63390294774", model="google/gemma-4-31B-it", gpu="B300",
                release="0.26.0", tp=1, piecewise=51, full=51, layers=60, backend="TRITON_ATTN", printed_gib=0.76,
                fitted=False),
    GraphSample(source="vl_903", study="search-index file id 65863227652", model="Qwen/Qwen2.5-7B-Instruct-AWQ",
                gpu="RTX 3090", release="0.22.1", tp=1, piecewise=5, full=4, layers=28, backend="FLASH_ATTN",
                printed_gib=0.35, fitted=False),
    *(GraphSample(source=s, study="syseeker/inference-pipeline-benchmark", model=m, gpu="RTX PRO 6000 Blackwell Server",
                  release="0.20.1", tp=1, piecewise=11, full=7, layers=n, backend="FLASH_ATTN", printed_gib=p, fitted=False)
      for s, m, n, p in (("vl_1000", "Qwen/Qwen2.5-7B-Instruct", 28, 0.09), ("vl_1001", "Qwen/Qwen2.5-72B-Instruct-AWQ", 80, 0.16),
                         ("vl_1002", "meta-llama/Llama-3.1-8B-Instruct", 32, 0.09), ("vl_1003", "mistralai/Mistral-7B-Instruct-v0.3", 32, 0.09),
                         ("vl_1004", "google/gemma-2-9b-it", 42, 0.12), ("vl_1005", "google/gemma-2-9b-it", 42, 0.12),
                         ("vl_1006", "Qwen/Qwen2.5-VL-7B-Instruct-AWQ", 28, 0.09), ("vl_1007", "Qwen/Qwen2.5-7B-Instruct", 28, 0.09))),
    *(GraphSample(source=s, study="llm-d-incubation/llm-d-planner", model=m, gpu="H100", release="0.19.0", tp=t,
                  piecewise=g, full=g, layers=n, backend=b, printed_gib=p, fitted=False, fa3=f)
      for s, m, t, g, n, b, p, f in (
          ("vl_1015", "meta-llama/Llama-3.1-8B-Instruct", 1, 51, 32, "FLASH_ATTN", 0.84, (32, 128, 512)),
          ("vl_1016", "meta-llama/Llama-3.1-8B-Instruct", 2, 51, 32, "FLASH_ATTN", 1.69, (16, 128, 512)),
          ("vl_1017", "meta-llama/Llama-3.1-8B-Instruct", 4, 51, 32, "FLASH_ATTN", 0.57, (8, 128, 512)),
          ("vl_1018", "meta-llama/Llama-3.1-8B-Instruct (pipeline parallel 2: 16 layers a stage)", 1, 51, 16, "FLASH_ATTN", 0.54, (32, 128, 512)),
          ("vl_1019", "meta-llama/Llama-3.1-8B-Instruct (pipeline parallel 4: 8 layers a stage)", 1, 51, 8, "FLASH_ATTN", 0.49, (32, 128, 512)),
          ("vl_1020", "meta-llama/Llama-3.1-8B-Instruct (fp8 KV cache)", 1, 51, 32, "FLASH_ATTN", 0.84, (32, 128, 512)),
          ("vl_1021", "meta-llama/Llama-3.1-8B-Instruct (--quantization fp8)", 1, 51, 32, "FLASH_ATTN", 0.84, (32, 128, 512)),
          ("vl_1022", "Qwen/Qwen2.5-7B-Instruct", 1, 51, 28, "FLASH_ATTN", 0.61, (28, 128, 512)), ("vl_1023", "Qwen/Qwen3-8B", 1, 51, 36, "FLASH_ATTN", 0.84, (32, 128, 512)),
          ("vl_1024", "Qwen/Qwen3-30B-A3B", 1, 51, 48, "FLASH_ATTN", 1.24, (32, 128, 512)), ("vl_1025", "Qwen/Qwen1.5-MoE-A2.7B", 1, 51, 24, "FLASH_ATTN", 0.82, (16, 128, 512)),
          ("vl_1026", "Qwen/Qwen2.5-72B-Instruct", 2, 51, 80, "FLASH_ATTN", 1.63, (32, 128, 512)), ("vl_1027", "google/gemma-3-27b-it", 1, 51, 62, "TRITON_ATTN", 1.05, (0, 0, 0)),
          ("vl_1028", "google/gemma-2-9b-it", 1, 51, 42, "FLASH_ATTN", 0.84, (16, 256, 512)), ("vl_1029", "openai/gpt-oss-20b", 2, 83, 24, "FLASH_ATTN", 1.09, (32, 64, 1024)))),    GraphSample(source="vl_1480", study="MharoonZ/gemma4-modal-vllm-inference", model="google/gemma-4-E4B-it", gpu="L40S",
                release="0.19.0", tp=1, piecewise=51, full=35, layers=42, backend="TRITON_ATTN", printed_gib=0.79,
                fitted=False),
)
"""Every log of the explain corpus that prints the estimate or its equivalent utilisation (helper vcg10,
2026-12-05), and vl_843 (Gemma-4-31B, helper mv29; outside the fit, within 0.12 GiB of its print).  Derived rows take the GPU total from the log, or the study's other logs (study 30: 44.39 GiB), or the
T4's 14.57 GiB (vl_202).  vl_524 and vl_720 are PIECEWISE-only speculative runs whose estimate prints negative.
Helper vcg10b (2026-12-05): vl_712, vl_743, vl_812, vl_813, added to lead10 after vcg10's base, outside the
fit like vl_843 (63 rows).  vl_812 / vl_813 print no capture sizes: their counts are vLLM 0.30.0's defaults
(``engine/arg_utils.py``: max_num_seqs 256 below 70 GiB, 1024 from 160 GiB; the printed 2048 / 16384 batched tokens
agree) with the printed ``max_cudagraph_capture_size`` 512; Model Runner V2 captures FULL up to max_num_seqs
(``v1/worker/gpu/cudagraph_utils.py _init_candidates``).  Helper mv35 (2026-12-05): vl_860 (Qwen3.5-9B, 0.18.0) and
vl_863 (gemma-4-31B-it on a B300, 0.26.0), added blind, outside the fit (65 rows).  Helper bl14a (2026-12-05): vl_903
(Qwen2.5-7B-Instruct-AWQ on an RTX 3090, 0.22.1, 'PIECEWISE=5 (largest=16), FULL=4 (largest=8)', 0.35 GiB), added
blind, outside the fit (66 rows).  Not a row: ``graphs_not_evidence.NOT_EVIDENCE``.  Helper gb10g (2026-12-05): the six GB10 rows are
unified-memory readings (``profile_cudagraph_memory`` samples cudaMemGetInfo, the host's free memory there), −5.19
to +1.00 GiB from the mechanism; the plan's note quotes that spread (``engines.unified.vllm_graph_estimate_spread``).
Left out of the fit they would move the optimum to 0.145 GiB / 155 KiB (8.984 against 8.988 GiB summed over the
other 52 rows): kept, not refitted.  Helper ev24 (2026-12-06): the 23 logs of rounds bl23 / bl23b (syseeker's RTX PRO
6000 at 0.20.1, max_num_seqs 32; llm-d-planner's H100 sweep at 0.19.0, which prints the estimate without subtracting
it) join outside the fit (89 rows): the print is the same two-capture measurement in every wheel read (0.19.1, 0.20.1,
0.26.0 ``profile_cudagraph_memory``); pipeline-parallel rows count one stage's layers; no constant refitted.  Lead
(session 35): round bl35's log of gemma-4-E4B-it on Modal's L40S, 0.19.0, 'PIECEWISE=51 (largest=512), FULL=35
(largest=256)', 0.79 GiB as vl_160 prints for the same model) joins outside the fit (90 rows)."""


def median(values: list[float]) -> float:
    """``statistics.median`` (the middle value, or the mean of the two middle ones), without importing
    ``statistics``: it pulls in decimal, fractions and random, a few ms of every vLLM plan's cold start."""
    data = sorted(values)
    n, i = len(data), len(data) // 2
    return data[i] if n % 2 else (data[i - 1] + data[i]) / 2
