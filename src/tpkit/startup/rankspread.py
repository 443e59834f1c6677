"""How far the free memory of an unprinted rank may lie from the ranks a log prints (issue 12), measured.

``scripts/rank_spread.py`` reads every corpus log that prints more than one rank's memory numbers (and two public
logs it quotes) and tabulates, per log, rank 0's free memory − the smallest rank's ("below rank 0") and the largest
− the smallest ("range"); docs/accuracy.md §7.2 "Cross-rank spread, measured" holds the table.  The allowances
below are the nearest-rank 90th percentiles over the logs that print every rank of the group
(``scripts/rank_spread.allowance_stats``; ``tests/explain/test_rank_spread.py`` checks that they are what the
corpus gives), measured on 2026-12-04:

* SGLang, below rank 0: p90 0.42 GiB over 22 logs since helper sgz's (2026-12-04) sg_120 / sg_122 (GLM-5.1 tp 8 on
  MI355X, the same host twice: RCCL's distributed init takes 10.04 GiB on TP0 and 10.31-10.46 on TP1-TP7, so rank 0
  stands 0.42 GiB above the smallest rank; sg_121, MI300X tp 4, 0.02); before them p90 0.05 GiB over 16 logs (19
  with sgy's, same p90) (0.00 in 7, 0.02–0.05 in 8: sg_051 tp 8 'Load weight begin' TP0
  137.34 vs TP1–TP6 137.29 GB; sg_031, the two public Hygon DCU runs); max 0.77 GiB (sg_018, 2× RTX 3090, a
  consumer pair whose rank 1 holds 0.77 GiB more of something else).  Helper mv15 (2026-12-04) adds sg_225 (the
  ROCm image on two MI355X, tp 2: both ranks 264.75 GB after the weights, 0.00): 20 deployments, and the
  nearest-rank p90 (the 18th of 20) falls back to 0.05 GiB; only sg_018 (0.77) and the MI355X tp-8 host (0.42)
  stand above it.  sg_022 and sg_061 miss again with it (docs/accuracy.md §6.4, round mv15).
* SGLang, range: p90 0.42 GiB over the same 16 (sg_020 / sg_021 tp 8 'Memory pool end': TP1 0.42 GiB above the
  smallest; sg_081 tp 2: TP1 0.42 above TP0); max 0.77 (sg_018).  Rank 0 is the low rank or within 0.05 GiB of it in
  15 of the 16: the ranks that stand out stand out upward (TP1, TP7), so a rank printed other than rank 0 may lie
  that far above the smallest.
* vLLM 'Available KV cache memory', range: 0.00 GiB in all five tp-2 deployments (vl_310, LMCache's xPyD
  decoder, and vl_314, ragflow#9856, added by helper mv9; vl_313 is vl_087's repository again, one sample); p90 (= max) 0.47 GiB over the three
  at tp 4 / 8 (vl_101 tp 4, vl_102 / vl_103 tp 8: rank 0 0.09–0.10 above ranks 1…N−2, the last rank 0.37–0.38
  above rank 0).  World size separates vLLM's numbers (0 vs 0.47), so the vLLM allowance depends on it.  Helper
  mv12 (2026-12-04) adds vl_370 (four RTX 3090s at tp 4, vLLM 0.11.0: all four workers 2.31 GiB): a third deployment
  above two workers, spread 0.00; the p90 and max stay 0.47.
* SGLang by world size: tp 2, p90 0.77 over 5 logs (sg_018's 3090 pair and sg_081, an unnamed GPU, 0.42; the
  other three 0.00); tp > 2, p90 0.42 over 11.  The tp-2 figure rests on two consumer-class logs and is larger,
  not smaller, so SGLang keeps one allowance for every world size (the 16-log p90s).

What the evidence does NOT show, so the allowance does not depend on it: world size > 8 or several nodes (sg_022
tp 16 over 2 nodes prints 3 of 16 ranks, TP2/TP3 0.09 below TP0, a lower bound; sg_027 tp 16 prints one node: 0.03;
the public DCU node of a 2-node run: 0.05), DP attention (sg_066 0.03, the DCU DP-attention run 0.05), ROCm / HIP
(sg_020, ROCm image, 0.02; DCU 0.05), PCIe (sg_009 4× L4 0.00, 8× RTX PRO 6000 0.00 below TP0) — each within the
p90 of the rest.  The conditions the numbers separate are WHICH rank an SGLang log prints (rank 0 or not) and, for
vLLM, two workers or more.
"""

from __future__ import annotations

from tpkit.hardware.gpu import gpu_platform  # the PLATFORM_STATS key of a vendor (re-exported)
from tpkit.records import dataclass
from tpkit.units import Bytes, GiB

__all__ = ["SGLANG_BELOW_RANK0", "SGLANG_RANGE", "VLLM_RANGE", "VLLM_RANGE_WORLD2", "SPREAD_STATS",
           "VLLM_BELOW_RANK0", "VLLM_PRINT_STEP", "sglang_rank_spread", "vllm_worker_spread",
           "vllm_min_below_printed", "sglang_plan_spread", "PLATFORM_STATS", "ROCM_FREE_BEFORE_INIT", "FreeBeforeInit",
           "gpu_platform"]


SPREAD_STATS = {
    "sglang": {"below_rank0": (0.13, 0.85, 43, ("sg_738",)), "range": (0.42, 0.85, 43, ("sg_738",)),
               "range_world2": (0.42, 0.77, 14, ("sg_018",)),
               "range_world_gt2": (0.47, 0.85, 29, ("sg_738",))},
    "vllm": {"below_rank0": (0.09, 0.10, 10, ("vl_101",)), "range": (0.47, 0.47, 10, ("vl_101", "vl_102")),
             "range_world2": (0.0, 0.0, 7, ("vl_084", "vl_087", "vl_131", "vl_1461", "vl_310", "vl_314", "vl_485")),
             "range_world_gt2": (0.47, 0.47, 3, ("vl_101", "vl_102"))},
}
"""engine → figure → (p90 GiB, max GiB, deployments, logs at the max), as ``scripts/rank_spread.py`` prints them: one
sample per deployment (a repository's committed runs at one world size, an issue thread, a stored file count once;
the synthetic seed log is not a sample), its largest; helper blind12 (2026-12-05): sg_484 (four Ascend 910B3 ranks,
0.07 GiB apart) is the 21st SGLang deployment, no figure moves; helper ex22 (2026-12-06): the held-back round's sg_522,
sg_523, sg_525 and sg_526 (tp 2 / 2 / 4 / 2, GitHub issues, every rank 0.00 apart) make 25: the world-2 p90 falls 0.77 → 0.42 (10 deployments);
the terms the plan uses (below_rank0, range) do not move; helper ex23 (2026-12-06): sg_546 / sg_547 (4 ranks each, GitHub
PRs) make 27, no figure moves; helper gs24 (2026-12-06): AMD's nightly CI logs (michael-amd/sglang-ci, sg_548-sg_559,
every rank printed) are two deployments, tp 8 (MI355X / MI300X nodes) and tp 4 (MI300X): 29, and two more stand above
0.05 below rank 0, so that p90 (the 27th of 29) rises 0.05 -> 0.42 GiB; range_world_gt2's max 0.42 -> 0.44 (sg_551);
session 25 (lead): gs25c's sg_560 (Qwen3-Next at tp 4, MI300X, sglang#12419) and gs25's sg_566 / sg_567 (DeepSeek-V4
at tp 8 on H20, a capacity-planner skill's fixtures) make 31: the p90 below rank 0 is the 28th of 31, 0.06 GiB, and
falls back from 0.42 (the three deployments ≥ 0.42 apart are now under 10 % of the 31); range stays 0.42; helper gs27b
(2026-12-06): sg_568 (Qwen3-30B-A3B-FP8 at tp 2, sglang PR #12978, TP1 0.09 GiB above TP0) makes 32 (11 at world 2),
no figure moves; helper gs27 (2026-12-06): sg_606 (Qwen2-72B-Instruct at tp 8 on H100, SGLang 0.3.0, sglang#1386,
every rank printed) makes 33: the p90 below rank 0 (the 30th of 33) rises 0.06 -> 0.10 GiB, range_world_gt2's max
0.44 -> 0.47 (sg_606); helper gs28c (2026-12-06): sg_633 (Qwen3.5-397B-A17B-FP8 at tp 4 on MI355X, every rank printed, TP3
0.13 GiB below TP0 at 'Load weight end') and sg_634 (GLM-5.1-MXFP4 at tp 2 on MI355X, both ranks equal), committed
server logs of ajith-sirra-amd/InferenceMAX_Rocm_Team, make 35 (two deployments: one repository at two world sizes):
the p90 below rank 0 (the 32nd of 35) rises 0.10 -> 0.13 GiB (sg_633); range 0.42 (35), range_world2 0.42 (12),
range_world_gt2 0.42 (23) do not move; helper gs29b (2026-12-06, session 29): sg_655 (DeepSeek-R1-0528 at tp 8 on H200,
SGLang 0.5.12, a Nebius InferenceX reproduction's committed server log, every rank printed; TP7 0.24 GiB above TP1-TP6
after the weights and 0.47 GiB above them after the graphs) makes 36: range's p90 (the 33rd of 36) rises 0.42 -> 0.44 GiB
and range_world_gt2's (the 22nd of 24) 0.42 -> 0.44, whose max 0.47 sg_655 now shares with sg_606; below_rank0 (0.13) and
range_world2 do not move; helper gs29 (2026-12-06): sg_635 / sg_636 (gemma-4-31B-it at tp 4 on H100, every
rank printed, TP1 / TP2 0.05 GiB below TP0, TP3 0.19 above) and sg_637 / sg_638 (tp 2, both ranks equal), committed server
logs of lawjarp-simplismart/autoresearch-inference-optimization (one repository at two world sizes), make 38 with
gs29b's sg_655 (merged by the lead): below rank 0 p90 0.13 over 38, range 0.44, range_world2 0.42 over 13,
range_world_gt2 0.44 over 25 (gs29's four alone move no figure); helper gs29c (2026-12-07): sg_720 (Kimi-K2.5 NVFP4 at
tp 4 on a GB300 node, Prathmesh234/mutliturn-inferenceX's committed Slurm output, every rank printed; after the graphs TP2
lies 0.15 GiB below TP0 and TP3 0.17 above it, 0.32 apart) makes 39: the p90 below rank 0 (the 36th of 39) rises 0.13 -> 0.15
GiB; range 0.44, range_world2 0.42 (13) and range_world_gt2 0.44 (26) do not move; helper gs30 (2026-12-07, session 30):
sg_721-sg_740 (michael-amd/sglang-ci's v0.5.3.post1 / v0.5.4.post1 starts, tp 8, every rank printed) join gs24's tp-8
deployment of that repository (39 deployments still), whose largest now comes from sg_738 (DeepSeek-V3-0324 with DP
attention on MI300X: DP0 TP0 42.37 GiB free after the graphs, DP1 TP1 41.53, 0.85 apart); the other new logs lie 0.42-0.44
apart (TP0 above the seven others from the init on). below_rank0's max 0.77 -> 0.85 (p90 0.15 unchanged), range's p90 (the
36th of 39) 0.44 -> 0.47 and its max 0.77 -> 0.85, range_world_gt2's p90 0.44 -> 0.47 and max 0.47 -> 0.85; helper gs30e (2026-12-07, session
30): sg_781 / sg_784 (tp 2), sg_783 (tp 4) and sg_782 (tp 8), sglang.benchmark.one_batch logs of one 8x B200 host
(matin-gugugu/sglang-dev, every rank printed; at tp 8 TP7 0.31 GiB above TP1-TP6 after the weights, TP0 0.06 above them),
make 42 (one repository at three world sizes): the p90 below rank 0 (the 38th of 42) falls 0.15 -> 0.13 GiB and range's
0.44 -> 0.42; range_world2 0.42 (14) and range_world_gt2 0.44 (28) do not move; merged by the lead (session 30): both
rounds together, 42 deployments: below rank 0 p90 0.13 GiB (max 0.85, sg_738), range 0.42 (max 0.85), range_world2 0.42
over 14, range_world_gt2 0.47 over 28 (max 0.85); helper gs31a (2026-12-07, session 31): sg_851-sg_857, seven
more one_batch logs of that B200 host (tp 8 / 2 / 4 / 4 / 4 / 2 / 8), join its three deployments (42 still; below rank 0
/ range 0.07 / 0.32 at tp 8, 0.03-0.04 / 0.16 at tp 4, 0.00 / 0.00 at tp 2: sg_782's, sg_783's and sg_781's figures):
no figure moves; helper gs32a (2026-12-07, session 32): sg_961 (Qwen3.5-35B-A3B at tp 8 / ep 8 on H200, radixark/miles'
committed GRPO log, every rank printed; TP0 0.04 GiB and TP7 0.23 GiB above TP1-TP6 after the weights) makes 43 (29 above
world 2; a CUDA deployment, ``PLATFORM_STATS`` cuda 31): no figure moves"""

PLATFORM_STATS = {
    "rocm": {"below_rank0": (0.42, 0.85, 14, ("sg_738",)), "range": (0.44, 0.85, 14, ("sg_738",))},
    "cuda": {"below_rank0": (0.10, 0.77, 29, ("sg_018",)), "range": (0.47, 0.77, 29, ("sg_018",))},
}
"""SGLang by platform (helper cap31a, 2026-12-07, session 31): platform → figure → (p90 GiB, max GiB, deployments, logs at
the max), ``scripts/rank_spread.py platform_stats``: the logs that print every rank, split by their own sign of an AMD /
HIP platform (``rank_spread.ROCM_SIGN``: ROCm, HIP, gfx9xx, aiter, an Instinct MI name, Hygon DCU, RCCL; else "cuda"),
one sample per deployment and GPU model.  ROCm, 13 deployments: michael-amd/sglang-ci's MI300X tp-8 node (rank 0
0.42-0.44 GiB above TP1-TP7 in all 27 of its every-rank logs; 0.85 with DP attention, sg_738), sgz's MI355X tp-8 host
(Jacob0226/SGLang-benchmarks, sg_120 / sg_122: 0.42), but the same CI's MI355X tp-8 node 0.02-0.03, its MI300X tp-4
runs 0.02, sglang#12419 / #25118 (MI300X tp 4) 0.02, InferenceMAX_Rocm_Team (MI355X tp 4) 0.13, the two Hygon DCU
tp-8 notes 0.05, sg_020's ROCm image 0.02: the 0.42 excess is a property of two tp-8 hosts, not of every ROCm tp-8
host, and the nearest-rank p90 (the 12th of 13) is 0.42 GiB.  CUDA (no ROCm sign), 30 deployments: p90 0.09 GiB
below rank 0.  ``sglang_rank_spread`` gives a log on an AMD GPU the ROCm figure and (helper cap32, 2026-12-07) a
log on an NVIDIA GPU the CUDA one, as the plan does; a log whose GPU is not known keeps the pooled ``SPREAD_STATS``
(0.13 GiB, which holds both platforms).  Lead, session 32: a log's platform also reads the evidence its corpus entry
quotes from the same source (models.json ``flags_evidence`` / ``flags_from``: sg_021's Docker image tag
'…-rocm720-mi35x-…' printed above its excerpt makes it ROCm), and an Ascend NPU sign (``rank_spread.NPU_SIGN``: sg_484)
puts a log in neither platform: ROCm 13 → 14 deployments (p90 0.42 unchanged), CUDA 31 → 29 (p90 0.09 → 0.10 GiB below
rank 0).  Lead, session 34: round bl34's two L40S tp 2 starts (one deployment) print both
workers: vLLM 9 → 10 deployments, below rank 0 p90 0.10 → 0.09 GiB (max 0.10 unchanged), world 2 6 → 7 (0.00)."""

@dataclass(frozen=True, kw_only=True, slots=True)
class FreeBeforeInit:
    """The free memory before SGLang's distributed init on one ROCm GPU model, measured on the corpus."""
    largest: Bytes
    """the largest 'Load weight begin. avail mem' + 'Init torch distributed ends. mem usage' of one rank (the 2-decimal
    GB prints summed, read as GiB as SGLang computes them)"""
    logs: int
    """corpus logs on that GPU model that print both lines (count)"""
    at: tuple[str, ...]
    """the logs at the largest"""


ROCM_FREE_BEFORE_INIT = {
    "MI300X": FreeBeforeInit(largest=GiB(191.48), logs=55, at=(
        "sg_555", "sg_581", "sg_583", "sg_585", "sg_589", "sg_590", "sg_591", "sg_604", "sg_735", "sg_736", "sg_739",
        "sg_876", "sg_888", "sg_889", "sg_934", "sg_944")),
    "MI355X": FreeBeforeInit(largest=GiB(287.55), logs=26, at=(
        "sg_551", "sg_580", "sg_582", "sg_584", "sg_600", "sg_931", "sg_932", "sg_940", "sg_941", "sg_946")),
}
"""GPU model → ``FreeBeforeInit`` over the ROCm corpus logs that print both lines (``scripts/rank_spread.py
free_before_init_stats``, which gives (GiB, logs, logs at it)): the free memory before SGLang's distributed init with
the smallest HIP context + process seen on that GPU, less what was lost between SGLang's pre sample and 'Load weight
begin' (0 in the logs at the max).  ``explain.sgrocm`` bounds that loss in a log by this figure − its own sum.  Bytes
since helper tidy33 (2026-12-07; a tuple of float GiB before, round rev32's leftover)."""

SGLANG_BELOW_RANK0 = GiB(SPREAD_STATS["sglang"]["below_rank0"][0])
"""SGLang: how far the smallest rank lies below rank 0 (p90 over 20 deployments: 0.05; 0.42 over sgz's 19, whose
MI355X host's RCCL init leaves rank 0 0.42 GiB above the others; 2 of the 20 deployments stand ≥ 0.42 apart)"""
SGLANG_RANGE = GiB(SPREAD_STATS["sglang"]["range"][0])
"""SGLang: how far the smallest rank lies below any one rank (p90 of largest − smallest, 20 deployments)"""
VLLM_RANGE = GiB(SPREAD_STATS["vllm"]["range_world_gt2"][0])
"""vLLM, more than two workers: how far one worker's 'Available KV cache memory' lies from another's (p90 of
largest − smallest, 3 logs at tp 4 / 8)"""
VLLM_RANGE_WORLD2 = GiB(SPREAD_STATS["vllm"]["range_world2"][0])
"""vLLM, two workers: the same, 0 over the 4 logs at tp 2 (vl_084 H200, vl_087 A100 PCIe, vl_088 A100 over Ray on
2 nodes, vl_131 V0)"""


def _stat(engine: str, what: str) -> str:
    p90, top, n, at = SPREAD_STATS[engine][what]
    return f"p90 {p90:.2f} GiB over {n} logs that print every rank, max {top:.2f} ({', '.join(at)})"


def _platform_stat(platform: str, what: str) -> str:
    p90, top, n, at = PLATFORM_STATS[platform][what]
    return (f"p90 {p90:.2f} GiB over the {n} {'ROCm' if platform == 'rocm' else 'CUDA'} deployments that print every "
            f"rank, max {top:.2f} ({', '.join(at)})")


def sglang_rank_spread(rank0_printed: bool, platform: str | None = None) -> tuple[Bytes, str]:
    """(how far SGLang's MIN over all ranks may lie below the smallest printed rank, why) for a log that prints
    fewer ranks than the world: below rank 0 when rank 0 is among the printed ranks, else the range (an unlabelled
    or non-zero rank may be one of the high ranks).  ``platform`` ("rocm" or "cuda", ``gpu_platform`` of the log's
    GPU): that platform's deployments' figures (``PLATFORM_STATS``, session 32: ROCm 0.42 / 0.44 GiB over 14, CUDA
    0.10 / 0.47 over 29), as the plan takes them (``sglang_plan_spread``); None (the GPU not known, or neither
    vendor): the figures pooled over every deployment (``SPREAD_STATS``, ``SGLANG_BELOW_RANK0`` / ``SGLANG_RANGE``:
    0.13 / 0.42 GiB over 43), which hold both platforms (helper cap32, 2026-12-07: NVIDIA logs took the pooled
    figure until then)."""
    what = "below_rank0" if rank0_printed else "range"
    lead = ("rank 0 is printed; the smallest rank lies below rank 0 by " if rank0_printed else
            "rank 0 is not among the printed ranks (or no rank is named), and a rank other than 0 may be one of the "
            "high ones: the smallest rank lies below the largest by ")
    if platform in PLATFORM_STATS:
        return GiB(PLATFORM_STATS[platform][what][0]), (lead + _platform_stat(platform, what)
                                                        + "; scripts/rank_spread.py platform_stats")
    if platform is not None:
        raise ValueError(f"platform must be one of {sorted(PLATFORM_STATS)} or None, got {platform!r}")
    pooled = SGLANG_BELOW_RANK0 if rank0_printed else SGLANG_RANGE
    return pooled, (lead + _stat("sglang", what) + " (the GPU's platform not known: every deployment pooled); "
                    "scripts/rank_spread.py")


def vllm_worker_spread(world: int) -> tuple[Bytes, str]:
    """(how far another worker's 'Available KV cache memory' may lie from a printed one, either way, why) for
    ``world`` workers: a capacity line printed without its worker may be any worker's (vLLM 0.8.2–0.11.0 print one
    per worker).  Two workers: ``VLLM_RANGE_WORLD2`` (0: the four tp-2 logs print equal numbers on both); more:
    ``VLLM_RANGE`` (0.47 GiB: at tp 4 and 8 rank 0 lies 0.09–0.10 GiB above ranks 1…N−2 and the last rank
    0.37–0.38 above rank 0; NCCL builds no NVLink SHARP group at two GPUs, ``nvls.cc ncclNvlsInit``, one
    difference between the two sizes, not shown to be the cause)."""
    if world <= 2:
        return VLLM_RANGE_WORLD2, ("workers' 'Available KV cache memory' at two workers spread by "
                                   + _stat("vllm", "range_world2") + "; scripts/rank_spread.py")
    return VLLM_RANGE, ("workers' 'Available KV cache memory' at more than two workers spread by "
                        + _stat("vllm", "range_world_gt2") + "; scripts/rank_spread.py")


VLLM_BELOW_RANK0 = GiB(SPREAD_STATS["vllm"]["below_rank0"][0])
"""vLLM: how far the smallest worker's 'Available KV cache memory' lies below rank 0's (p90, 6 logs)"""
VLLM_PRINT_STEP = GiB(0.01)
"""one step of vLLM's 2-decimal GiB print: two workers printed equal lie less than this apart"""


def vllm_min_below_printed(world: int, rank0_printed: bool) -> tuple[Bytes, str]:
    """(how far the smallest worker's available KV memory may lie below the smallest printed one, why) for a vLLM
    log that prints fewer workers' 'Available KV cache memory' than run, read by rules whose one capacity line is
    the MIN over workers (0.11.1 on: ``v1/core/kv_cache_utils.py get_kv_cache_configs`` gives every worker the
    smallest block count, then prints it once; read in 0.12.0).  Two workers: ``VLLM_PRINT_STEP`` (the four tp-2
    logs print equal figures on both workers: apart by less than one 0.01 GiB print step, not by 0); more:
    ``VLLM_BELOW_RANK0`` when rank 0 is printed, else ``VLLM_RANGE``."""
    if world <= 2:
        return VLLM_PRINT_STEP, ("at two workers the 'Available KV cache memory' prints are equal ("
                                 + _stat("vllm", "range_world2") + "), i.e. apart by less than one 0.01 GiB print "
                                 "step; scripts/rank_spread.py")
    if rank0_printed:
        return VLLM_BELOW_RANK0, ("rank 0 is printed; the smallest worker lies below rank 0 by "
                                  + _stat("vllm", "below_rank0") + "; scripts/rank_spread.py")
    return VLLM_RANGE, ("rank 0 is not among the printed workers (or none is named): another worker lies within "
                        + _stat("vllm", "range_world_gt2") + "; scripts/rank_spread.py")


def sglang_plan_spread(world: int, platform: str = "cuda"):
    """The band term of a multi-rank SGLang plan (issue 11, docs/accuracy.md §5.1): a ``Cost`` of 0 bytes ±
    ``SGLANG_BELOW_RANK0``, charged before ``pre_model_load_memory`` like the CUDA context, or None at world 1.

    SGLang sizes every rank from the MIN over the ranks of the free memory before and after the weights
    (``get_available_gpu_memory(distributed=True)``), while tpkit's start-up terms are one rank's — and the
    evidence behind them is rank 0's (``startup/data/evidence.json`` sg_051: TP0's 'Load weight begin' 137.34 GB
    and init 1.96 GB, where TP1–TP6 print 137.29 / 2.01).  The smallest rank lies 0.00–0.05 GiB below rank 0 in
    15 of the first 16 logs that print every rank; with the MI355X tp-8 logs (rank 0 0.42 above, RCCL) the p90 over 22
    is 0.42, so the term moves only the band's high end (fewest tokens:
    a use can not fall below 0, ``memory.band.resolve``); the nominal and the low end stay rank 0's.  A machine
    profile measures every rank (``startup.capacity.tightest_rank``): no term then.

    ``platform`` ("cuda" or "rocm", the GPU's vendor): the figure of that platform's deployments
    (``PLATFORM_STATS``), 0.10 GiB over 29 CUDA deployments, 0.42 over 14 ROCm ones (session 32's statistic).  ``explain``
    takes the same figure for a log's unprinted ranks (``sglang_rank_spread`` with ``gpu_platform``; helper cap32),
    and the pooled ``SPREAD_STATS`` where the log's GPU is not known."""
    if world <= 1:
        return None
    if platform not in PLATFORM_STATS:
        raise ValueError(f"platform must be one of {sorted(PLATFORM_STATS)}, got {platform!r}")
    from tpkit.startup.cost import Cost
    from tpkit.units import Bytes

    p90, top, n, at = PLATFORM_STATS[platform]["below_rank0"]
    name = "ROCm" if platform == "rocm" else "CUDA"
    return Cost(key="rank_spread", item="rank spread (MIN over ranks, below rank 0)", bytes=Bytes(0),
                uncertainty=GiB(p90),
                source=(f"SGLang's MIN over {world} ranks lies below rank 0 by p90 {p90:.2f} GiB over the {n} {name} "
                        f"deployments that print every rank (max {top:.2f}, {', '.join(at)}); "
                        "scripts/rank_spread.py platform_stats"))
