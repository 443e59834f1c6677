#!/usr/bin/env python3
"""Build tests/validation/cases/{sglang,vllm}.json: real start-ups from public threads, normalised to tpkit inputs.

    python scripts/build_validation_set.py       # reads /work/data/{sglang,vllm}_logs and the shared set copy

When the data helpers' collections are absent (they are not part of the repository), the records already in
``tests/validation/cases/`` that came from them are kept as they are and only the cases kept in the repository
(the shared set and ``tests/validation/data_public/``) are rebuilt.

The cases come from the data helpers' collections (``/work/data/sglang_logs/cases.json``: 64 SGLang cases,
``/work/data/vllm_logs/cases.json``: 71 vLLM cases, each with its log, source and config) and from the shared
validation set already in ``tests/validation/data*/``.  This script only *normalises*: for each chosen case it
records what a user would pass to tpkit — the model config (copied into ``tests/validation/configs/``), the GPU
(catalog name; or the total the log prints plus the GPU family, for GPUs the catalog lacks), the parallel layout,
the engine release whose rules apply (printed, or guessed from the date and said so) and the launch flags as the
command line or the printed server arguments show them — and the capacity the engine printed.  Cases tpkit cannot
represent yet are kept, with the reason.  Nothing here depends on tpkit's prediction.

Edited by hand since (the collection under /work/data is no longer on disk; helper AV, 2026-12-01): vl_058, vl_067
and vl_070 added from their logs in tests/logs/data/vllm (scored on the printed available KV GiB, metric
``available_kv_gib``); the release of case_021/022 (0.6.4), case_032/033 (0.2.6; 0.2.5 since helper c20), case_063 (0.3.0), vl_039 (0.5.4),
vl_025 (0.8.2:v0) and vl_044 (0.7.3:v1; 0.7.2:v1 since helper v08) set from their log wording; case_027 listed, not predicted.  The edits
to shared-set records are ported into ``VLLM_SHARED_EDITS`` (helper vfix), so a re-run reproduces the committed
cases; a test pins that.

Chosen: every case with a printed KV capacity whose GPU and model are known (or whose reason not to predict is
worth listing), across GPU classes and model families; the SELECT tables below say why per case.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "validation" / "cases"
CONFIGS = ROOT / "tests" / "validation" / "configs"
DATA = Path("/work/data")
SHARED = {"sglang": ROOT / "tests" / "validation" / "data", "vllm": ROOT / "tests" / "validation" / "data_vllm"}
PUBLIC = {"sglang": ROOT / "tests" / "validation" / "data_public" / "sglang_cases.json",
          "vllm": ROOT / "tests" / "validation" / "data_public" / "vllm_cases.json"}
"""start-ups found in public threads and kept in the repository with their log excerpt (``log``), in the shared
set's raw schema (helper GS, 2026-12-01)"""
CONFIG_DIRS = (CONFIGS, DATA / "sglang_logs" / "configs", DATA / "vllm_logs" / "configs", DATA / "engine_facts" / "configs",
               SHARED["sglang"] / "configs", SHARED["vllm"] / "configs")


# --- SGLang ----------------------------------------------------------------------------------------------------
# id: (tpkit engine version, how it was chosen, overrides of the flags / inputs, reason not to predict or None)
SGLANG = {
    "sg_001": ("0.4.1", "docs build 2025-01-23 (v0.4.1/0.4.2 era)", {}, None),
    "sg_002": ("0.3.5", "docs build 2024-11-10 (v0.3.5 era)", {}, None),
    "sg_003": ("0.4.2", "docs build 2025-02-12 (v0.4.2/0.4.3 era)", {}, None),
    "sg_004": ("0.4.2", "docs build (2025-02)", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "sg_005": ("0.4.2", "docs build 2025-02-04", {}, None),
    "sg_006": ("0.4.2", "docs build 2025-02-13",
               {"speculative_algorithm": "EAGLE", "speculative_num_steps": 5, "speculative_eagle_topk": 8,
                "speculative_num_draft_tokens": 64,  # the printed ServerArgs; draft config assembled (its note)
                "speculative_draft_model_path": "lmzheng--sglang-EAGLE-llama2-chat-7B.json"}, None),
    "sg_007": ("0.4.2", "docs build 2025-01-31", {}, None),
    "sg_008": ("0.4.0", "docs build 2024-11-30 (v0.3.6/v0.4.0 era)", {}, None),
    "sg_009": ("0.4.3.post3", "same author's issue #4127 two days earlier names v0.4.3.post3", {}, None),
    "sg_010": ("0.5.2rc2", "image tag in the manifest", {"quantization": "fp8"},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "sg_013": ("0.4.4", "log dated 2025-03-25 (main between v0.4.4 and v0.4.5)", {}, None),
    "sg_019": (None, "", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "sg_021": (None, "", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "sg_022": (None, "", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "sg_023": (None, "", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "sg_036": ("0.5.15", "source checkout of mid-2026 (guessed release)", {}, None),
    "sg_037": ("0.4.2", "image lmsysorg/sglang:v0.4.2-rocm620", {}, None),
    "sg_040": (None, "", {}, "engine_anomaly (pre-fix SWA cell size, per the PR); GPU unknown; no config"),
    "sg_043": ("0.5.10", "sglang main of 2026-04 (guessed release)", {}, None),
    "sg_044": ("0.4.2", "docker image of early Feb 2025 (v0.4.2 era)", {}, None),
    "sg_047": (None, "", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "sg_050": ("0.4.10", "issue dated 2025-07 (v0.4.9/0.4.10 era); the shared set's case_001 is the same run",
               {"config_file": "Qwen--Qwen3-235B-A22B-FP8.json"}, None),
    "sg_051": ("0.5.3", "PR branch of 2025-10-16 (v0.5.3 era)", {},
               "model only inferred ('Llama-3.x-70B class', not named in the excerpt) and flags not printed"),
    "sg_052": (None, "", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "sg_054": (None, "", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "sg_055": (None, "", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "sg_056": ("0.5.2", "docs build 2025-09-04 (v0.5.2 era)", {}, None),
    "sg_057": ("0.5.2", "docs build 2025-09-04", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "sg_059": ("0.5.2", "docs build 2025-09-04 (v0.5.2 era)", {"config_file": "Qwen--Qwen1.5-MoE-A2.7B.json"}, None),
    "sg_062": ("0.5.20", "sglang main of 2026-08 (guessed release)", {}, None),
    "case_001": None,  # the same run as sg_050: listed once, as sg_050
    "case_005": ("0.5.10", "PR #19718 of 2026-02 (v0.5.8-0.5.10 era, guessed)", {}, None),
}

VL071_BASIS = ("V0 forced (VLLM_USE_V1=0); log dated 04-07 (2025), model_runner.py:1146 / worker.py:267 -> "
               "v0.8.2/0.8.3 (tpkit's V0 rules are the same for both); the issue's own text says 'Vllm 0.8.3' "
               "(vllm-project/vllm#16199, the mirror note's header; helper near11, 2026-12-05), so 0.8.3")
VL071_CONFIDENCE = ("assembled (catalog gemma-3-27b-it architecture; the AWQ quantization_config from the checkpoint's "
                    "converter, gau-nernst/gemma3-int4 convert_flax.py: int4, group 32, vision tower and embedding bf16)")
"""vl_071's release and config (helper cfg3, 2026-12-04)"""

LLMD_BASIS = "image vllm/vllm-openai:latest on 2026-01-26 (0.14.1 released 2026-01-24, PyPI; guessed from the date)"
"""the release of the llm-d config_explorer H100 runs (vp_007-vp_015, helper new)"""

FREE_AT_START_H100NVL = {
    "gib": 36.54, "line": "[2026-07-08 16:06:48] Load weight begin. avail mem=36.54 GB",
    "evidence": "SGLang's pre_model_load_memory ('Load weight begin. avail mem', GiB printed as 'GB'), of a 93.10 GiB "
                "H100 NVL: other processes held ~56 GiB"}
"""gs_007 / sg_067 (the same run of willxxy/sglang-play): the free memory printed before the weights"""

_GLM53_NOTES = "serving notes of search-index file 70166912399 (vLLM 0.30.0, 4x B200)"
_H200_PROBES = "the note's pre-run memory lines (nvidia-smi total − free, before the launch)"
OTHER_PROCESSES = {
    # helper co13 (2026-12-05): what other processes held on a case's GPUs, where the source prints or states it
    # (harness.others_of).  at_start_mib: per GPU of the layout (CUDA order) when the engine started;
    # after_profile_mib: only where the source states the figure for the end of the engine's profile, else None.
    # Never derived from the printed KV figure.
    **{cid: {"at_start_mib": [4902], "after_profile_mib": [4902],
             "line": "ollama-central en occupait 4 902 Mio pendant tout le banc […] avec ses 4 902 Mio de VRAM "
                     "inchangés du début à la fin",
             "evidence": "French migration notes (search-index id 69199302682), sections 3.4 and 6: another server "
                         "(ollama-central) held 4,902 MiB of the L4 unchanged from the start of the bench to its "
                         "end, so also at the end of vLLM's profile"}
       for cid in ("vp_102", "vp_103")},
    "vp_602": {"at_start_mib": [145944, 145944], "after_profile_mib": None,
               "line": "GLM's budget is 0.80 x 183359 = 146,687 MiB. Right after startup each worker used 145,944 "
                       "MiB. After the first requests it settled at 148,854 MiB",
               "evidence": f"{_GLM53_NOTES}: GLM-5.3's TP0/TP1 workers on GPUs 0,1; GLM was ready at 02:52:15 and the "
                           "27B was launched at 02:52:30, so 145,944 MiB is their figure at its start. 148,854 MiB is "
                           "the 02:55 table, after the 27B was ready (02:54:58) and after GLM's first requests; when "
                           "GLM grew in between is not stated ('probably … during its profiling' is the notes' "
                           "guess), so no after-profile figure"},
    "vp_603": {"at_start_mib": [145944], "after_profile_mib": None,
               "line": "Right after startup each worker used 145,944 MiB. After the first requests it settled at "
                       "148,854 MiB",
               "evidence": f"{_GLM53_NOTES}: GLM-5.3's TP2 worker on GPU 2; the 4B was launched at 02:52:30, 15 s "
                           "after GLM was ready; 148,854 MiB is the 02:55 table, after the 4B was ready (02:54:08): "
                           "when GLM grew in between is not stated, so no after-profile figure"},
    "vp_604": {"at_start_mib": [152912], "after_profile_mib": [152912],
               "line": "145,944 MiB right after start, 148,854 after the first requests, 150,600 at 03:00 and "
                       "152,910 MiB at 03:51. They stayed at 152,912 until the restart at 04:29.",
               "evidence": f"{_GLM53_NOTES}: GLM-5.3's worker on GPU 2 held 152,910-152,912 MiB from 03:51 to 04:29; "
                           "the qwen4b_mtp2 start lies in that window (after the 03:49-03:58 baseline sweep, "
                           "benchmarked 04:01-04:03)"},
    **{cid: {"at_start_mib": [143771 - 141773, 143771 - free7], "after_profile_mib": None,
             "line": f"GPU 1: 141773 MiB free / 143771 MiB total; GPU 7: {free7} MiB free / 143771 MiB total",
             "evidence": f"{_H200_PROBES}: another tenant on GPU 7 (rank 1); no reading during the run"}
       for cid, free7 in (("vp_415", 116662), ("vp_416", 116662), ("vp_614", 116670))},
    "vp_417": {"at_start_mib": [143771 - 141773, 143771 - 116562], "after_profile_mib": None,
               "line": "before: GPU 1 used 1383 MiB, free 141773 MiB; before: GPU 7 used 26595 MiB, free 116562 MiB",
               "evidence": f"{_H200_PROBES}; the 'after:' lines include vLLM's own memory, so the tenant's share at "
                           "the profile's end is not stated"},
}
"""other processes' memory on a case's GPUs, as the source gives it (helper co13; harness.others_of)"""

WSL2_TOTAL_EVIDENCE = (
    "under WSL2 CUDA reports the card's whole memory, nvidia-smi's MiB total, where native Linux reports less (the "
    "catalog's total): vp_022 / vp_100 print 'Free memory on device (22.45/23.99 GiB)' for the RTX 4090's 24,564 MiB "
    "(Linux 23.65 GiB), vp_324 12.00 GiB for the RTX 2060 12GB's 12,288 MiB, vp_083 15.99 GiB for a 16 GB card")
"""why a WSL2 case whose log prints no CUDA total takes the catalog's nvidia-smi total (helper q21s1, 2026-12-05)"""


def _wsl2_total(gpu: str) -> tuple[int, str]:
    """(bytes, note) of catalog GPU ``gpu`` under WSL2: its ``nvidia_smi_total_mib`` (``WSL2_TOTAL_EVIDENCE``; the
    catalog read through tpkit, run with PYTHONPATH=src)."""
    from tpkit.hardware.catalog import lookup_gpu

    entry = lookup_gpu(gpu)
    mib = entry.nvidia_smi_total_mib
    return mib * 2**20, (f"{entry.name} under WSL2 with nvidia-smi's total, {mib:,} MiB = {mib / 1024:.2f} GiB "
                         f"(helper q21s1, 2026-12-05): {WSL2_TOTAL_EVIDENCE}")


# Kept in the repository (tests/validation/data_public/sglang_cases.json), same normalisation.
TB_3090_TOTAL = (
    "RTX-3090 with the CUDA total the study's own run prints (helper vres, 2026-12-05): 'GPU 0 has a total capacity "
    "of 23.54 GiB' in the torch OOM of the 0.9 Llama run (vl_453 = vp_350, the repository's "
    "fixd_llama_gmem090_offload0_failed.log); the catalog's 23.58 GiB is another board's (vllm-project/vllm#10517). "
    "vLLM 0.17.1 sizes the budget as this total x util (v1/worker/utils.py request_memory)")


# helper bl24: the --speculative-config of the SpecDecoding-Study starts that load a head (the command's JSON, the head
# named by its config file in tests/validation/configs)
_BL24_E3 = '{"method": "eagle3", "model": "yuhuili--EAGLE3-LLaMA3.1-Instruct-8B.json", "num_speculative_tokens": 5, "draft_tensor_parallel_size": 1}'
_BL24_E1 = '{"method": "eagle", "model": "yuhuili--EAGLE-LLaMA3-Instruct-8B.json", "num_speculative_tokens": 5, "draft_tensor_parallel_size": 1}'
_BL24_SPEC = {**{c: _BL24_E1 for c in ("vp_883", "vp_885")},
              **{c: _BL24_E3 for c in ("vp_890", "vp_891", "vp_892", "vp_893", "vp_899", "vp_900", "vp_901", "vp_902")}}

_ISSEI_A40 = {"gpu": "A40", "note": "RunPod NVIDIA A40 48GB (IsseiHasegawa/vLLM-experiment report/appendix/"
                                     "C_environment.md; session 0's and the pilot's nvidia-smi 'NVIDIA A40', 46068MiB): "
                                     "the catalog's A40 (no CUDA total printed)"}
"""helper bl33: the card of vp_1090-vp_1099 (round bl33)"""

_HUZ_H100NVL = {"gpu": "H100-NVL-94GB", "note": "node7's collect_env (Huzifa1/vllm-profiling experiments/node7/my_env.txt): "
                                               "'GPU 0: NVIDIA H100 NVL': the catalog's H100-NVL-94GB"}
"""helper bl33: the card of vp_1100-vp_1106 (round bl33)"""

_HUZ_A100 = {"gpu": "A100-PCIe-40GB", "note": "the A100 node's collect_env (Huzifa1/vllm-profiling experiments/A100/my_env.txt): "
                                           "'GPU 0: NVIDIA A100-PCIE-40GB': the catalog's A100-PCIe-40GB"}
_HUZ_L40S = {"gpu": "L40S", "note": "node5's collect_env (Huzifa1/vllm-profiling experiments/node5/my_env.txt): 'GPU 0: NVIDIA L40S'"}
"""helper bl33: the cards of vp_1107 / vp_1108 and vp_1109 / vp_1110 (round bl33)"""

VLLM_PUBLIC = {  # helper vfix, 2026-12-01
    "vp_001": ("0.2.4", "PR #2031's 'Current main' (2023-12-12): the max_memory_allocated profile of the v0.2.4 wheel; "
                        "v0.2.5 ships the PR", {}, None),
    "vp_002": ("0.2.4", "PR #2031's 'Current main' (2023-12-12): the max_memory_allocated profile of the v0.2.4 wheel; "
                        "v0.2.5 ships the PR", {}, None),
    # helper v08, 2026-12-03: public 0.8.4 / 0.8.5 V1 start-ups, controls for vl_002 / vl_047
    # helper lora12: 0.8.x samples with FlashInfer when an old (< 0.2.3) one is installed, so the sampler each log's
    # topk_topp_sampler line names is passed (vp_003 'FlashInfer is not available', vp_005 the >= 0.2.3 fallback)
    "vp_003": ("0.8.4", "printed 'Initializing a V1 LLM engine (v0.8.4)'", {"topk_topp_sampler": "native"}, None),
    "vp_004": ("0.8.4", "printed 'Initializing a V1 LLM engine (v0.8.4)'",
               # vLLM turned custom all-reduce off itself: 'lacks GPU P2P capability'; the sampler is vp_003's (the
               # same tutorial's install, the same day; helper lora12)
               {"disable_custom_all_reduce": True, "topk_topp_sampler": "native"}, None),
    "vp_005": ("0.8.5", "log source lines gpu_model_runner.py:1329/1347 and topk_topp_sampler.py:44 are v0.8.5's",
               {"topk_topp_sampler": "native"}, None),
    "vp_006": ("0.8.4", "issue title 'DeepSeek TP16 using v0.8.4 v1 engine'", {}, None),
    # helper new (2026-12-03): vl_072/vl_073 (logs also in tests/logs/data/vllm/); vp_007-vp_015 (numbered vp_003-vp_011
    # on the helper's branch, renumbered at the merge beside helper v08's vp_003-vp_006) are the H100 runs
    # tabulated by llm-d/llm-d-benchmark's config_explorer (scored on the printed available KV memory)
    # helper cfg3 (2026-12-04): the config assembled (its _assembled_note); the GPU is the page's DGX Spark, i.e. the
    # catalog's GB10, whose CUDA total (119.63 GiB) comes from other DGX Spark logs (119.61-119.70 GiB printed)
    "vl_072": ("0.11.0", "printed 'vLLM API server version 0.11.0+582e4e37.nv25.11' (NVIDIA's 25.11 container build)",
               {"config_file": "TheBloke--Mistral-7B-Instruct-v0.2-GPTQ.json",
                "config_confidence": "assembled (Mistral-7B-Instruct-v0.2 geometry; TheBloke's main-branch GPTQ "
                                     "parameters: 4 bits, group 128)",
                "gpu_catalog": {"gpu": "GB10", "note": "DGX Spark (the page's title): the catalog's GB10, unified "
                                "memory; the log prints no CUDA total, the catalog's 119.63 GiB is other DGX Spark "
                                "logs' (119.61-119.70 GiB)"}},
               None),
    "vl_073": ("0.29.0", "printed by the report (vLLM 0.29.0 wheel)", {}, None),
    **{cid: ("0.14.1", LLMD_BASIS, {}, None) for cid in ("vp_007", "vp_009", "vp_011", "vp_012", "vp_013",
                                                         "vp_014", "vp_015")},
    # helper v90 (2026-12-03): the page's gpt-oss-120b row fails the budget identity every other row of its table
    # meets (weights + peak activation + non-torch + KV = 0.9 x 79.18 = 71.26 GiB); its weights are reproduced
    # (64.33 GiB planned, 64.38 printed), so its KV figure cannot come from the same run
    "vp_008": ("0.14.1", LLMD_BASIS, {}, "the source row is internally inconsistent: weights 64.38 + peak activation 7.38 + "
                             "non-torch 0.13 + KV 3.33 = 75.22 GiB against the 71.26 GiB budget (0.9 x 79.18), "
                             "while every other row of the same table sums to 71.26-71.27; the weights are "
                             "reproduced (64.33 GiB planned), so its KV and activation figures cannot both be this "
                             "run's (3.33 GiB of KV leaves ~3.4 GiB of activation, not the 7.38 of the 20b row); the "
                             "page has no detailed section for it"),
    "vp_010": (None, "", {}, "failed start-up: the printed available KV memory is negative (-1.44 GiB, 'No available "
                             "memory for the cache blocks'); a relative error on it is not meaningful"),
    "vl_075": (None, "", {}, "GPU named only as 'H20' in the issue's form ('Hardware: H20'): the 96 GB H20 and the "
                             "141 GB one (H20-3e) are both called H20 in threads, and their budgets differ by ~40 GiB; "
                             "nothing else in the excerpt (no total, no free memory, no 'Available KV cache memory' "
                             "line) tells them apart. Re-read by helper scor (2026-12-04): the rest is now plannable "
                             "(Qwen3.5-27B geometry in tests/logs/data/configs/Qwen__Qwen3.5-27B; the pre-0.21 printed "
                             "token count of a hybrid, num_blocks // groups x block, is engines/vllm/capacity.py's "
                             "rule; --load-format dummy loads the same weights)"),
    # helper scor (2026-12-04): vl_076 predicted (Gemma 4 vLLM rules since helper gm4); vp_024 is vl_024's source's
    # second start-up (the same server at --gpu-memory-utilization 0.50)
    "vl_076": ("0.25.1", "the note: numbers from vLLM 0.25.1's start-up log",
               {"config_file": "google--gemma-4-26B-A4B-it.json", "config_confidence": "assembled (partial)",
                "quantization": "fp8"}, None),
    "vp_024": ("0.20.2", "'vLLM 0.20.2 confirmed by vllm.__version__' (the notebook's session 1; session 2 is the same "
                         "container)",
               {"config_file": "Qwen--Qwen3-VL-30B-A3B-Instruct-FP8.json", "config_confidence": "assembled (partial)"},
               None),
    # helper new2 (2026-12-04): public start-ups of releases / GPUs the set had few of (logs also in tests/logs/data/vllm/)
    "vp_016": ("0.15.1", "printed 'Initializing a V1 LLM engine (v0.15.1)'", {}, None),
    **{cid: ("0.27.1", "image vllm/vllm-openai:v0.27.1 in the post's manifest (vfarcic/inference-demo@331e718)", {}, None)
       for cid in ("vp_017", "vp_018", "vp_019")},
    "vp_020": ("0.10.2", "printed 'Initializing a V1 LLM engine (v0.10.2)'", {"enable_expert_parallel": True}, None),
    # helper new3 (2026-12-04): more public start-ups (logs also in tests/logs/data/vllm/ as vl_082, vl_083)
    "vp_021": ("0.10.2", "printed by `vllm --version` before the launch", {"enable_expert_parallel": True}, None),
    "vp_022": ("0.27.1", "the notes name vLLM 0.27.1 (Model Runner V2 source lines model_runner.py:329/791)",
               # WSL2: CUDA reports the full 24,564 MiB (23.99 GiB, printed 'Free memory on device (22.45/23.99
               # GiB)'); the catalog's 23.65 GiB is the native-Linux total
               {"gpu_total_gib": 23.99}, None),
    "vp_023": ("0.10.2", "printed 'Initializing a V1 LLM engine (v0.10.2)'", {}, None),
    # helper new4 (2026-12-04): public start-ups not seen before (logs of vp_025-vp_029 also in tests/logs/data/vllm/
    # as vl_085-vl_089). The sampler is the one each log's topk_topp_sampler line names. The links are what each
    # log prints (helper lnk, tpkit plan --no-p2p / --nnodes): vp_027 'Custom allreduce is disabled because your
    # platform lacks GPU P2P capability' (custom_all_reduce.py:147, both ranks); vp_028 / vp_029 'Custom allreduce is
    # disabled because this process group spans across nodes' (custom_all_reduce.py:85) under Ray, whose workers print
    # from 1 / 3 other hosts (ip=...) after ray_utils.py:200 'reserved number of GPUs (1 GPUs) in a node'
    **{cid: ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)'", {"topk_topp_sampler": "flashinfer"}, None)
       for cid in ("vp_025", "vp_026")},
    "vp_027": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)'",
               {"topk_topp_sampler": "flashinfer", "no_p2p": True}, None),
    "vp_028": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)'",
               {"topk_topp_sampler": "native", "nnodes": 2}, None),
    "vp_029": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)'",
               {"topk_topp_sampler": "flashinfer", "nnodes": 4}, None),
    "vp_030": ("0.15.1", "the note: vLLM v0.15.1 built from source (tag v0.15.1, sm_120 kernels)", {}, None),
    # helper cat20 (2026-12-06): the laptop RTX 5090 is in the catalog now (RTX-5090-Laptop, nvidia-smi 24,463 MiB);
    # under WSL2 CUDA reports that whole total (a WSL2 print of this card: '(23.9GiB vram) backend=vllm:cuda',
    # code-search id 69444620476; _wsl2_total). Until 2026-12-06 listed, not predicted: 'laptop RTX 5090 (24 GB) under
    # WSL2: not in the GPU catalog and the log prints no CUDA total'. Its first score is blind (round cat20)
    "vp_031": ("0.21.1", "printed 'Initializing a V1 LLM engine (v0.21.1rc1.dev76+ga2c8fc665.d20260518)': a 0.21.1 "
                         "pre-release built from source (as vp_535's 0.19.1rc1.dev71 and vp_569's 0.31.1rc1.dev23)",
               {"config_file": "Qwen--Qwen2.5-32B-Instruct-GPTQ-Int4.json",  # helper cfg3, 2026-12-04
                "config_confidence": "verbatim values (a public script's literal of the HF config.json)",
                "wsl2": True,
                "gpu_catalog": {"gpu": "RTX-5090-Laptop",
                                "note": "'NVIDIA GeForce RTX 5090' in an MSI laptop with '24GB VRAM' (the README), "
                                        "WSL2 ('Using pin_memory=False as WSL is detected'): the catalog's "
                                        "RTX-5090-Laptop"}},
               None),
    # helper new6 (2026-12-04): kaggle-vllm/kaggle-vllm's milestone-4 compatibility runs on Kaggle's 2 x T4 (logs also
    # in tests/logs/data/vllm/ as vl_090-vl_093). The build prints 0.18.2.dev0+ga26e8dc7f.d20260822, so the 0.18.1 rules apply
    # (next-version form for a modified tree at the v0.18.1 tag). The tp-2 runs' two T4s have no CUDA peer access: the
    # same repository's NCCL_DEBUG=INFO log of that machine (artifacts/kaggle-2026-09-07-milestone-3-measured-comm/
    # nccl-info.log) prints 'Check P2P Type isAllDirectP2p 0' and 'Channel 00 : 0[0] -> 1[1] via SHM/direct/direct'
    **{cid: ("0.18.1", "printed 'Initializing a V1 LLM engine (v0.18.2.dev0+ga26e8dc7f.d20260822)': v0.18.1 source with "
                       "local changes (setuptools-scm dev0 + .d<date> = a dirty tree at the tag)",
             {"no_p2p": True} if cid in ("vp_033", "vp_035") else {}, None)
       for cid in ("vp_032", "vp_033", "vp_034", "vp_035")},
    # helper new7 (2026-12-04): a vLLM server log committed to a public repository (abinavChandar/demo_env_l4)
    "vp_036": ("0.11.0", "printed 'vLLM API server version 0.11.0'", {}, None),
    # helper mv1 (2026-12-04): vLLM server logs committed to public repositories (logs also in tests/logs/data/vllm/ as
    # vl_100-vl_105). The sampler is the one each log's topk_topp_sampler line names; vp_040's CUDA total is the one
    # its 'Free memory on device (78.84/79.25 GiB)' line prints; its compile cache was warm (helper gpt20: the full log
    # prints 'Directly load the compiled graph(s) for compile range (1, 2048) from the cache, took 1.635 s' and
    # 'Directly load AOT compilation from path ...'; the corpus excerpt vl_100 cuts those lines)
    "vp_040": ("0.27.0", "printed 'version 0.26.1rc1.dev156+g0eec856cc.d20260731' (main after v0.26.1rc0): its 'Free "
                         "memory on device ... for consumed memory (weights + non-torch)' line is 0.27's gpu_worker.py "
                         "wording (0.26.0 prints '... GiB for weight, ... for non-torch memory'), so the 0.27.0 rules",
               {"gpu_total_gib": 79.25, "topk_topp_sampler": "flashinfer", "compile_cache": "warm"}, None),
    **{cid: ("0.10.0", "printed 'vLLM API server version 0.10.0'",
             {"topk_topp_sampler": "native", **({"enable_expert_parallel": True} if cid == "vp_042" else {})}, None)
       for cid in ("vp_041", "vp_042", "vp_043")},
    "vp_044": ("0.20.2", "printed 'Initializing a V1 LLM engine (v0.20.2)'", {}, None),
    "vp_045": ("0.13.0", "printed 'vLLM API server version 0.13.0'", {}, None),
    **{cid: ("0.10.2", "printed 'vLLM API server version 0.10.2'", {"topk_topp_sampler": "native"}, None)
       for cid in ("vp_046", "vp_047")},
    # helper mv3 (2026-12-04): vLLM server logs committed to public repositories (vllm_server.log; logs also in
    # tests/logs/data/vllm/ as vl_150-vl_154). vp_081 runs on Kaggle's 2 x T4, whose GPUs have no CUDA peer access
    # (kaggle-vllm's NCCL log of that offering, see vp_033: 'via SHM/direct/direct')
    "vp_080": ("0.12.0", "printed 'vLLM API server version 0.12.0'", {}, None),
    # vp_081's non-default args print 'enable_lora': True (max_loras / max_lora_rank at vLLM's defaults 1 / 16)
    "vp_081": ("0.22.1", "printed banner 'version 0.22.1' and 'Initializing a V1 LLM engine (v0.22.1)'",
               {"no_p2p": True, "enable_lora": True}, None),
    "vp_082": ("0.30.0", "printed banner 'version 0.30.0' and 'Initializing a V1 LLM engine (v0.30.0)'", {}, None),
    "vp_083": ("0.10.2", "printed 'vLLM API server version 0.10.2'", {}, None),
    "vp_084": ("0.19.0", "printed banner 'version 0.19.0' and 'Initializing a V1 LLM engine (v0.19.0)'", {}, None),
    # helper v2gap (2026-12-04): vLLM 0.26-0.31 start-ups that print the memory split (docs/accuracy.md 11.8)
    "vp_100": ("0.27.1", "printed 'version 0.27.1' (API server banner)", {"gpu_total_gib": 23.99}, None),
    "vp_101": ("0.26.0", "log source lines match the 0.26.0 wheel only (gpu_worker.py:378, model_runner.py:305/747)",
               {}, None),
    **{cid: ("0.28.0", "the notes: 'vLLM 0.28.0, image vllm/vllm-openai:latest'", {}, None)
       for cid in ("vp_102", "vp_103")},
    "vp_104": ("0.31.0", "image vllm/vllm-openai:v0.31.0-ubuntu2404 in the quoted command", {"gpu_total_gib": 79.25},
               None),
    # helper mv2 (2026-12-04): vLLM server logs committed to public repositories (joshhickson/LogoMesh,
    # zyfjrx/train_sft, kumaxxp/duo-talk); GPUs from the same repositories' docs / training logs
    "vp_060": ("0.13.0", "printed 'vLLM API server version 0.13.0'", {}, None),
    "vp_061": ("0.10.0", "printed 'vLLM API server version 0.10.0'", {}, None),
    "vp_062": ("0.13.0", "printed 'vLLM API server version 0.13.0'",
               {"gpu_note": "RTX A5000 (the repository's docs): the catalog's RTX-A5000 since helper gh18 "
                            "(2026-12-05), torch's total 24138 MiB of another A5000 (search-index id 29278846479), "
                            "Ampere (sm_86)"},
               None),
    "vp_063": ("0.22.1", "printed banner 'version 0.22.1'", {}, None),
    "vp_064": ("0.10.2", "printed 'vLLM API server version 0.10.2'", {"gpu_total_gib": 79.18}, None),
    **{cid: ("0.7.2", "printed 'vLLM API server version 0.7.2' (V0 engine)", {}, None)
       for cid in ("vp_065", "vp_066")},  # daxdelvira/distributed_agent_gc: unnamed GPUs, the printed CUDA totals
    "vp_067": ("0.9.2", "printed 'vLLM API server version 0.9.2'",
               {"gpu_assumed": {
                   "gpu": "RTX-4090", "candidates": ["RTX-4090", "RTX-3090"],
                   "note": "GPU not named (Wolffy427/stage5); 5.79 GiB of weights + 14.62 GiB of KV under 0.9 x total "
                           "need at least 22.7 GiB, which leaves the 24 GB class (RTX 4090 / RTX 3090: 23.65 / 23.58 "
                           "GiB CUDA totals). Planned on the first candidate; every candidate's prediction lies inside "
                           "the others' bands (tests/validation/test_validation_set.py checks it)"}}, None),
    # helper mv4 (2026-12-04): vLLM server logs committed to public repositories (logs/vllm_server.log; logs also
    # in tests/logs/data/vllm/ as vl_200-)
    "vp_120": ("0.11.2", "printed 'vLLM API server version 0.11.2'", {}, None),
    "vp_121": ("0.19.0", "printed banner 'version 0.19.0' and 'Initializing a V1 LLM engine (v0.19.0)'", {}, None),
    # compile_cache "warm" (helper near14, 2026-12-05): vl_202 prints 'torch.compile took 0.24 s in total'
    # (monitor.py monitor_torch_compile, 0.30.0: the AOT path's whole compile) and the model loaded 2 s before it.
    # Every one of the 60 corpus logs that prints a cold-cache line ('Compiling a graph for', 'Cache the graph')
    # spends 9.85-241 s there (settings._COMPILE_CACHE_LINES); 0.24 s is no Inductor compile, so no combo-kernel
    # benchmark and no vocabulary x hidden scratch (profile_lines: cold-compile phase)
    "vp_122": ("0.30.0", "printed banner 'version 0.30.0' and 'Initializing a V1 LLM engine (v0.30.0)'",
               {"compile_cache": "warm"}, None),
    "vp_123": ("0.9.2", "printed 'vLLM API server version 0.9.2'",
               {"gpu_assumed": {
                   "gpu": "RTX-4090", "candidates": ["RTX-4090", "RTX-3090"],
                   "note": "GPU not named (jyngjeon/multiagentsdebate; four PCIe-only GPUs); 6.95 GiB of weights + 12.79 "
                           "GiB of KV per rank under 0.9 x total need at least 21.9 GiB plus the activation peak, which "
                           "leaves the 24 GB class (RTX 4090 / RTX 3090: 23.65 / 23.58 GiB CUDA totals; RTX A5000 "
                           "similar). Planned on the first candidate; every candidate's prediction lies inside the "
                           "others' bands (tests/validation/test_validation_set.py checks it)"}}, None),
    "vp_124": ("0.12.0", "printed 'vLLM API server version 0.12.0'", {}, None),
    "vp_125": ("0.19.1", "printed banner 'version 0.19.1' and 'Initializing a V1 LLM engine (v0.19.1)'", {}, None),
    # helper mv5 (2026-12-04): vLLM server logs committed to public repositories (logs also in tests/logs/data/vllm/
    # as vl_220-)
    "vp_140": ("0.15.1", "printed banner 'version 0.15.1' and 'Initializing a V1 LLM engine (v0.15.1)'", {}, None),
    # benyucong/neo4j-graphrag-python's logs/vllm.out (two versions of the file): FlashInfer not installed (printed
    # native sampler); the CUDA totals the logs print
    "vp_141": ("0.10.2", "printed 'vLLM API server version 0.10.2'",
               {"gpu_total_gib": 79.18, "topk_topp_sampler": "native"}, None),
    "vp_142": ("0.10.2", "printed 'vLLM API server version 0.10.2'",
               {"gpu_total_gib": 79.25, "topk_topp_sampler": "native"}, None),
    # phivan3008/meeting-translator's vllm_serve.log: the pool sized, then the kernel warm-up failed (not memory).
    # Its non-default args print 'enable_prefix_caching': True (a hybrid: mamba 'align' mode, printed 'Mamba cache
    # mode is set to 'align''; off by default for hybrids in 0.27) and 'language_model_only': True ('All limits of
    # multimodal modalities ... set to 0, running in text-only mode': no encoder in the profile run and, from
    # 0.17.0, no vision tower: VllmOptions.language_model_only, engines/vllm/towers.py; helper lmo)
    "vp_143": ("0.27.1", "printed banner 'version 0.27.1' and 'Initializing a V1 LLM engine (v0.27.1)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": True, "language_model_only": True}, None),
    # leadawon/LAMBO's logs/vllm_serve.log: 4 x RTX 3090 (README), PCIe only (printed)
    "vp_144": ("0.19.0", "printed banner 'version 0.19.0' and 'Initializing a V1 LLM engine (v0.19.0)'", {}, None),
    # helper g3v (2026-12-04): Gemma 3 start-ups on AMD MI300X (logs also in tests/logs/data/vllm/ as vl_240-)
    "vp_160": ("0.23.0", "printed banner 'version 0.23.0' and 'Initializing a V1 LLM engine (v0.23.0)'", {}, None),
    "vp_161": ("0.11.0", "printed 'vLLM API server version 0.11.0rc2.dev98+g393de22d2' (a pre-release between "
                         "0.11.0rc1 and 0.11.0; planned with the 0.11.0 rules)",
               {"limit_mm_per_prompt": '{"image": 2}'}, None),  # printed non-default args (helper lmm)
    # helper mv6 (2026-12-04): wangpeiwen/gpu-util-interference's mlwd/sensitivity/data_bak.md (V100 named in the
    # repository's mlwd/config.py; 32 GB from the figures); log also in tests/logs/data/vllm/ as vl_251
    "vp_170": ("0.18.0", "printed 'Initializing a V1 LLM engine (v0.18.0)'",
               {"gpu_catalog": {"gpu": "V100-32GB", "note": "V100 named in the repository (mlwd/config.py); 32 GB "
                                                           "from 14.25 GiB weights + 13.1 GiB KV at 0.9"}}, None),
    # helper mv6 (2026-12-04): dariustanrd/tokenkaki's blog draft (two versions of one file: 0.19.1 and 0.9.2), one
    # A100-SXM4-40GB named by the quoted nvidia-smi; logs also in tests/logs/data/vllm/ as vl_252 / vl_253
    # helper gem4 (2026-12-04): the 0.19.1 start-up loads its graphs from vLLM's compile cache (vl_252 line 17:
    # 'Directly load the compiled graph(s) for compile range (1, 2048) from the cache'), so a warm restart
    "vp_171": ("0.19.1", "printed banner 'version 0.19.1' and 'Initializing a V1 LLM engine (v0.19.1)'",
               {"compile_cache": "warm"}, None),
    "vp_172": ("0.9.2", "printed 'vLLM API server version 0.9.2'", {"topk_topp_sampler": "native"}, None),
    # helper mv6 (2026-12-04): a lab note (search-index id 10876549642, repository not returned): Llama-3-70B AWQ tp 2
    # on two L40S (named); log also in tests/logs/data/vllm/ as vl_254
    "vp_173": ("0.16.0", "printed banner 'version 0.16.0' and 'Initializing a V1 LLM engine (v0.16.0)'", {}, None),
    # helper mv6 (2026-12-04): ROCm/rocm-blogs rocm-ray README (vLLM 0.9.2.dev364 ROCm build, Ray executor, tp 2; AMD GPU
    # inferred from the figures as MI300X); log also in tests/logs/data/vllm/ as vl_255
    "vp_174": ("0.9.2", "printed 'vLLM API server version 0.9.2.dev364+gb432b7a28' (a ROCm build between 0.9.1 and "
                        "0.9.2; planned with the 0.9.2 rules)", {}, None),
    # helper mv6 (2026-12-04): a CS336 assignment note (search-index id 60430572081): vLLM 0.7.2 V0 on an L40
    # (named by its nvidia-smi); log also in tests/logs/data/vllm/ as vl_257
    "vp_175": ("0.7.2", "printed 'Initializing a V0 LLM engine (v0.7.2)'",
               {"gpu_catalog": {"gpu": "L40", "note": "NVIDIA L40 named by the quoted nvidia-smi (46068MiB); "
                                                    "vLLM prints 44.39 GiB"}}, None),
    # helper mv6 (2026-12-04): a 'vllm inference' note (search-index id 4922787267): vLLM 0.7.1 V0 on a 32 GB Volta
    # (V100-32GB inferred: XFormers for Volta/Turing, 31.74 GiB printed); log also in tests/logs/data/vllm/ as vl_258
    "vp_176": ("0.7.1", "printed 'vLLM API server version 0.7.1'",
               {"gpu_catalog": {"gpu": "V100-32GB", "note": "not named: Volta or Turing (XFormers, FA2 refused) with "
                                                           "31.74 GiB printed: a 32 GB V100"}}, None),
    # helper mv7 (2026-12-04): akamaslabs/vllm-benchmark study 30 probes (vLLM 0.29.0, RedHatAI gemma-4-26B-A4B-it
    # FP8-dynamic on one L40S, text-only (--language-model-only), prefix caching off, FlashInfer sampler printed, cold compile); logs also in
    # tests/logs/data/vllm/ as vl_270-vl_273
    "vp_190": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "language_model_only": True}, None),
    # helper akam (2026-12-05): study 30's probes L-marlin and L-triton (vp_190's flags and another linear backend;
    # L-triton falls back to vp_190's Cutlass kernel), added blind; logs vl_708 / vl_709
    "vp_508": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "language_model_only": True}, None),
    "vp_509": ("0.29.0", "printed 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "language_model_only": True}, None),
    # helper akam (2026-12-05): study 30's probe E-o3 (util 0.80, block 48, capture size 16, blind); log vl_710
    "vp_510": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "language_model_only": True}, None),
    # helper akam (2026-12-05): study 30's probe L-torch (blind); log vl_711
    "vp_511": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "language_model_only": True}, None),
    # helper akam (2026-12-05): study 30's probe L-cutlass (blind); log vl_712
    "vp_512": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "language_model_only": True}, None),
    "vp_191": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "language_model_only": True}, None),
    "vp_192": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "language_model_only": True}, None),
    "vp_193": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "language_model_only": True,
                "no_async_scheduling": True}, None),  # printed 'async_scheduling': False (helper mv7's option)
    # helper mv7 (2026-12-04): the study-30 evaluation of its best configuration without MTP (another L40S node);
    # log also in tests/logs/data/vllm/ as vl_274
    "vp_199": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "language_model_only": True}, None),
    # helper mv7 (2026-12-04): study 31's smoke run (study 30's B-default at max_model_len 16384); vl_275
    "vp_200": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "language_model_only": True}, None),
    # helper mv9 (2026-12-04): dennislee22/vLLM-benchmarking's sixth log (util 0.25 at tp 2, the sibling of vp_027:
    # no GPU P2P printed, FlashInfer sampler printed); log also in tests/logs/data/vllm/ as vl_313
    "vp_230": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)'",
               {"topk_topp_sampler": "flashinfer", "no_p2p": True}, None),
    # helper mv9 (2026-12-04): ray-project/ray#65486 / #66230, a Ray Serve LLM start-up (vLLM 0.26.0, Qwen3-8B, one
    # 80 GB Hopper GPU by the printed 79.18 GiB total and FlashInfer's '90a'); log also in tests/logs/data/vllm/ as vl_315
    "vp_231": ("0.26.0", "printed 'Initializing a V1 LLM engine (v0.26.0)'", {}, None),
    # helper mv10 (2026-12-04): StellaLee/vllm-experiment's two committed server logs (vLLM 0.23.0 with the repository's
    # scheduler/eviction patches, Qwen2.5-Coder-7B-Instruct, max_num_seqs 32, the README's RTX 4090; FlashInfer sampler
    # printed); the second start loads the compiled graphs from the cache ('Directly load the compiled graph(s)');
    # logs also in tests/logs/data/vllm/ as vl_330 and vl_331
    "vp_250": ("0.23.0", "printed banner 'version 0.23.0' and 'Initializing a V1 LLM engine (v0.23.0)'",
               {"topk_topp_sampler": "flashinfer"}, None),
    "vp_251": ("0.23.0", "printed banner 'version 0.23.0' and 'Initializing a V1 LLM engine (v0.23.0)'",
               {"topk_topp_sampler": "flashinfer", "compile_cache": "warm"}, None),
    # helper mv10 (2026-12-04): a markdown test report quoting a vLLM 0.21.0 start-up of google/gemma-4-E2B on an L4
    # (compose.yaml: --language-model-only --max-model-len 8192 --gpu-memory-utilization 0.90 --enforce-eager)
    "vp_252": ("0.21.0", "the report's settings block 'vLLM: v0.21.0'", {"language_model_only": True}, None),
    # helper mv10 (2026-12-04): xbill9/gemma4-dev's committed g4dn start-up (vLLM 0.28.0, gemma-4-E2B-it float16 on a
    # T4; flags from the rig's tpu.env; FlashInfer sampler unavailable on SM 7.5, printed); log also vl_333
    "vp_253": ("0.28.0", "printed 'vllm 0.28.0' (the excerpt's versions block)", {"topk_topp_sampler": "native"}, None),
    # helper mv10 (2026-12-04): the same repository's MI300X rig (gemma-4-E2B-it bf16, ROCm nightly of the 0.29.1 era per
    # the article; --limit-mm-per-prompt from tpu.env)
    "vp_254": ("0.29.1", "the article: 'on vLLM 0.29.1' (ROCm nightly image)",
               {"limit_mm_per_prompt": '{"image": 4, "audio": 0}', "gpu_total_gib": 191.69}, None),
    # helper mv12 (2026-12-04): sipeed/sipeed_wiki's NanoKVM-Pro page quotes a whole vLLM 0.11.0 start-up of
    # Qwen3-VL-30B-A3B-Instruct at tp 4 on four RTX 3090s (fused-MoE look-up 'NVIDIA_GeForce_RTX_3090'; FlashInfer
    # not installed, native sampler printed; warm compile cache printed); log also in tests/logs/data/vllm/ as vl_370
    "vp_290": ("0.11.0", "printed 'vLLM API server version 0.11.0' and 'Initializing a V1 LLM engine (v0.11.0)'",
               {"topk_topp_sampler": "native", "compile_cache": "warm"}, None),
    # helper mv12 (2026-12-04): gnosia93/eks-agentic-ai's lesson page quotes a vLLM 0.19.0 pod's start-up of
    # Qwen2.5-72B-Instruct at tp 4 on a g6e.12xlarge (4 x L40S, named by the page; SM 8.9 and PCIe-only printed;
    # cold compile printed; no sampler line in the excerpt); log also in tests/logs/data/vllm/ as vl_371
    "vp_291": ("0.19.0", "printed banner 'version 0.19.0' and 'Initializing a V1 LLM engine (v0.19.0)'", {}, None),
    # helper mv11 (2026-12-04): guardkit/guardkit's committed docker logs of its Graphiti LLM server on the author's
    # Dell Pro Max GB10 (NVIDIA container 26.01, vLLM 0.13.0+faa43dbf.nv26.01; fp8 KV, prefix caching); logs also in
    # tests/logs/data/vllm/ as vl_340 / vl_341
    **{cid: ("0.13.0", "printed 'vLLM API server version 0.13.0+faa43dbf.nv26.01' (NVIDIA's 26.01 container build)",
             {"gpu_catalog": {"gpu": "GB10", "note": note}}, None)
       for cid, note in (
           ("vp_260", "the author's Dell Pro Max GB10 (host 'promaxgb10-41b1' in the capture's prompt; the repository's "
                      "reviews: 'Dell ProxMax GB10 (DGX Spark), 128GB unified, SM 12.1'); the same host's vLLM 0.13 "
                      "prints 119.63 GiB, the catalog's total"),
           ("vp_261", "printed fused-MoE path 'device_name=NVIDIA_GB10'; the same host as vp_260 (119.63 GiB printed "
                      "by its vLLM 0.13, the catalog's total)"))},
    # helper mv11 (2026-12-04): samiulabir201/swiss-legal-citation-retrieval's notebook outputs (vLLM 0.20.2 offline LLM
    # class, Qwen/Qwen3-Reranker-8B on Colab's RTX PRO 6000 Blackwell; 16,384 batched tokens printed); log also vl_347
    "vp_262": ("0.20.2", "printed 'Initializing a V1 LLM engine (v0.20.2)'", {}, None),
    # helper mv11 (2026-12-04): the same repository's Kaggle notebook (vLLM 0.20.0 LLM class, Qwen3-8B-AWQ on one T4 whose
    # CUDA total the notebook prints: 14.56 GiB); log also vl_348
    "vp_263": ("0.20.0", "printed 'Initializing a V1 LLM engine (v0.20.0)'", {"gpu_total_gib": 14.56}, None),
    # helper mv13 (2026-12-04): server logs committed to public repositories (jxm020202/aimo3 vllm_server.txt, Kaggle
    # H100 per the repository's CLAUDE.md; JVarnica/vllm-server vllm_logs.txt, NVIDIA's 25.12 container on the README's
    # RTX 5060 Ti); logs also vl_380 / vl_381
    "vp_300": ("0.11.2", "printed 'vLLM API server version 0.11.2'", {}, None),
    "vp_301": ("0.11.1", "printed 'vLLM API server version 0.11.1+9114fd76.nv25.12' (NVIDIA's container build of 0.11.1)",
               {"gpu_catalog": {"gpu": "RTX-5060-Ti-16GB", "note": "named by the repository's README ('built for an RTX "
                                "5060 Ti'); the log prints no CUDA total"}}, None),
    # helper mv13: Einengutenmorgen/decode_kuki vllm_run.log (vLLM 0.31.0, Qwen3.8-27B tp 2; GPU from the printed CUDA
    # total 44.39 GiB and cc 8.9: L40S / L40); log also vl_383
    "vp_302": ("0.31.0", "printed banner 'version 0.31.0'",
               {"gpu_assumed": {
                   "gpu": "L40S", "candidates": ["L40S", "L40"],
                   "note": "GPU not named (Einengutenmorgen/decode_kuki); the log prints 'Free memory on device "
                           "(43.71/44.39 GiB)' and 'Device capability 8.9': the 48 GB Ada data-centre cards with ECC "
                           "(L40S / L40: both 44.39 GiB CUDA totals). Planned on the first candidate; every candidate's "
                           "prediction lies inside the others' bands (tests/validation/test_validation_set.py checks "
                           "it)"}}, None),
    # helper mv14 (2026-12-04): vllm-project/vllm#15196 (GPUStack's vLLM 0.7.2 V0, DeepSeek-Coder-V2-Lite-Instruct on an
    # L40S with --cpu-offload-gb 30; the log prints the L40S total as 44.31 GiB); log also vl_400
    "vp_320": ("0.7.2", "the issue's environment ('vLLM: 0.7.2', GPUStack 0.5.1); V0 source lines worker.py:267 / "
               "executor_base.py:110 agree", {"cpu_offload_gb": 30, "gpu_total_gib": 44.31}, None),
    # helper mv14: a Colab Unsloth/TRL GRPO run's console (search-index file id 55875904831): vLLM 0.7.2 V0,
    # Qwen2.5-1.5B-Instruct fp16 on a 14.56 GiB Turing GPU (Colab T4); log also vl_401
    "vp_321": ("0.7.2", "printed 'Initializing a V0 LLM engine (v0.7.2)'", {"gpu_total_gib": 14.56}, None),
    # helper mv14: a console run in a script's docstring (search-index file id 67144197265): vLLM 0.22.0
    # AsyncLLMEngine, Qwen2.5-7B-Instruct at util 0.95; GPU from the budget (44.4 GiB class, FA2); log also vl_402
    "vp_322": ("0.22.0", "printed 'Initializing a V1 LLM engine (v0.22.0)'",
               {"topk_topp_sampler": "flashinfer",
                "gpu_assumed": {
                    "gpu": "L40S", "candidates": ["L40S", "L40", "A40"],
                    "note": "GPU not named (search-index file id 67144197265). FlashAttention 2 is chosen, so not Hopper; "
                            "the printed weights (14.29 GiB), KV (26.32 GiB) and graph estimate (0.37 GiB) inside the "
                            "0.95 budget leave 1.19 GiB on a 44.4 GiB card (L40S, L40, A40), 4.2 GiB on a 47.5 GiB one "
                            "and less than nothing on a 40 GB A100. Planned on the first candidate; every candidate's "
                            "prediction lies inside the others' bands (tests/validation/test_validation_set.py checks "
                            "it)"}}, None),
    # helper mv14: a kubectl session (search-index file id 17822999525): vLLM 0.8.3 V0 + Ray, DeepSeek-V2.5 tp 8 x pp 2
    # on two nodes of A100-SXM4-40GB, eager; log also vl_405
    "vp_323": ("0.8.3", "printed 'vLLM API server version 0.8.3' (V0: pipeline parallelism falls back from V1)",
               {"nnodes": 2, "gpu_total_gib": 39.49,
                # --enable-prefix-caching in the command and enable_prefix_caching=True in the printed engine config
                # (helper v11c, 2026-12-05: the flag was missing; it turns on V0 MLA's profile workspace)
                "enable_prefix_caching": True}, None),
    # helper mv14: a README's start-up (search-index file ids 40791855483 / 41236106506): vLLM 0.8.4 (V0 on Turing),
    # Qwen3-4B fp16 on an RTX 2060 12GB under WSL2 (custom GPU: the printed 12.00 GiB, Turing); log also vl_406
    "vp_324": ("0.8.4", "not printed: V0 source lines model_runner.py:1146 / worker.py:267 / executor_base.py:112 are "
               "0.8.3-0.8.4's, and Qwen3 is first registered in 0.8.4", {}, None),
    # helper mv14: install notes (search-index file id 20903468563): vLLM 0.7.3 V0, DeepSeek-R1 tp 8 on eight H200,
    # util 0.85, 128,000, 32,000 batched, 1,024 sequences; log also vl_407
    "vp_325": ("0.7.3", "not printed: V0 lines without brackets (before 0.8.0), executor_base.py:111/116 (0.7.3)",
               {"gpu_total_gib": 139.81}, None),
    # helper mv18 (2026-12-04): a GB10 LoRA-serving results file (search-index file id 59712908481; the author and host
    # of vp_260 / vp_261): vLLM 0.25.0, unsloth/gemma-4-26b-a4b-it (bf16) with four rank-16 adapters; log also vl_520
    # helper dsw (2026-12-04): the DeepSeek-V4-Flash start-ups of one project on two H200 NVL (vLLM 0.23.0, tp 2,
    # --quantization deepseek_v4_fp8, fp8 KV, --enforce-eager); logs also in tests/logs/data/vllm/ as vl_521, vl_540,
    # vl_064; scored blind with the DeepSeek-V4 weights derivation (models.dsv4_weights)
    **{cid: ("0.23.0", "the note's package list 'vllm: 0.23.0'",
             {"quantization": "deepseek_v4_fp8", "gpu_note": "8 x NVIDIA H200 NVL (143,771 MiB each, the note's "
              "nvidia-smi lines): the catalog's H200, whose nvidia-smi total is the same 143,771 MiB"}, None)
       for cid in ("vp_415", "vp_416", "vp_417")},
    "vp_400": ("0.25.0", "the image tag vllm/vllm-openai:v0.25.0-aarch64-cu129 named by the results file",
               {"gpu_catalog": {"gpu": "GB10", "note": "the file's header: 'promaxgb10-41b1 (Dell Pro Max, GB10, aarch64, "
                                "121 GB of memory shared ...)'; the same host's vLLM 0.13 prints 119.63 GiB (vp_260), "
                                "the catalog's total"},
                "enable_lora": True, "max_loras": 4, "max_lora_rank": 16, "enable_prefix_caching": False,
                "limit_mm_per_prompt": '{"image": 0}'}, None),
    # helper mv17 (2026-12-04): two console captures of one Llama-3.1-8B fine-tuning project (search-index file ids
    # 62880914643 / 62757639325; repository not returned): its serving script runs vLLM 0.15.1 'vllm serve' on the
    # merged fine-tune (fp16, 128,000; cold compile) and on the DPO model (bf16, 8,192; warm compile) on an RTX 6000
    # Ada that the same container's training run names; logs also in tests/logs/data/vllm/ as vl_443 / vl_444
    **{cid: ("0.15.1", "printed banner 'version 0.15.1' and 'Initializing a V1 LLM engine (v0.15.1)'",
             {"gpu_catalog": {"gpu": "RTX-6000-Ada", "note": note}}, None)
       for cid, note in (
           ("vp_340", "named by the same container's DPO training run earlier in the capture ('Hardware: NVIDIA RTX 6000 "
                      "Ada Generation', 'VRAM: 47.5 GB'); vLLM prints no CUDA total"),
           ("vp_341", "named by the same container's DPO training run earlier in the capture ('Hardware: NVIDIA RTX 6000 "
                      "Ada Generation', 'VRAM: 47.4 GB'); vLLM prints no CUDA total"))},
    # helper mv17 (2026-12-04): TheBuccaneer/vllm-offload-profiles' curated server-log excerpts
    # (data/provenance/gpu_memory_configuration/, commit 1e3f023): vLLM 0.17.1 'vllm serve' of Llama-3.1-8B-Instruct /
    # Qwen2.5-7B-Instruct at max_model_len 8192 on one RTX 3090 (the README), util 0.9 / 0.86 / 0.75 / 0.7 / 0.65 and
    # --cpu-offload-gb 12; logs also in tests/logs/data/vllm/ as vl_445-vl_455 (vl_456, the no-blocks crash at 0.6,
    # is in the corpus only: its printed value is a negative budget)
    **{cid: ("0.17.1", "not printed in the excerpt: the repository's README ('vLLM 0.17.1'); source lines gpu_worker.py:424 / "
             "kv_cache_utils.py:1314 as vl_155's printed 0.17.1",
             {"compile_cache": "warm", **({"cpu_offload_gb": 12} if cid in ("vp_345", "vp_347") else {}),
              "gpu_total_gib": 23.54, "gpu_note": TB_3090_TOTAL}, None)
       for cid in ("vp_342", "vp_343", "vp_344", "vp_345", "vp_346", "vp_347", "vp_348", "vp_349", "vp_350", "vp_351",
                   "vp_352")},
    # compile_cache "warm" (helper mv17): the excerpts keep no compile line, but every GPU-only start logs 'Available
    # KV cache memory' 4-5 s after 'Model loading took' (the offload-12 starts 16-17 s: their profile forward streams
    # the offloaded weights). A cold start of the same Llama-3.1-8B spends 3.45 s in Dynamo and 6.40 s compiling
    # before its KV line (vl_443, 0.15.1, 15 s gap on an RTX 6000 Ada); this corpus's 0.16-0.19 cold starts show
    # 28-47 s gaps (vl_293, vl_256, vl_371) and its 0.17.0 warm start 7 s (vl_372). The study restarts the same
    # 'vllm serve' for every offload budget and control (experiments/*/run_*.sh), so vLLM's compile cache
    # (~/.cache/vllm/torch_compile_cache) is warm after the first start. Blind (the default cold): see §6.4.
    # helper mv17 (2026-12-04): a deployment guide's first-run block (search-index file id 55116362269): vLLM 0.17.1
    # ROCm 7.0, 'vllm serve Qwen/Qwen2.5-14B-Instruct' (defaults: util 0.9, 32,768) on one MI300X; log also vl_458
    "vp_353": ("0.17.1", "printed banner 'version 0.17.1' (the guide's Quick Start image: vLLM 0.17.1, ROCm 7.0)", {}, None),
    # helper mv20 (2026-12-04): lhl's MI300X notes (search-index file id 43385067602, repository not returned):
    # vLLM v0.6.3.dev114 ROCm source build, benchmark_throughput.py (offline LLM), default util 0.9; logs also
    # vl_480-vl_482.  The engine prints disable_custom_all_reduce=True ('not supported on AMD GPUs') and
    # enable_chunked_prefill=False (benchmark_throughput.py passes its argparse default; the flag since mv20).
    "vp_370": ("0.6.3", "printed 'Initializing an LLM engine (v0.6.3.dev114+g4f95ffee)' (main between 0.6.2 and 0.6.3)",
               {"enable_chunked_prefill": False}, None),
    "vp_371": ("0.6.3", "printed 'Initializing an LLM engine (v0.6.3.dev114+g4f95ffee)' (main between 0.6.2 and 0.6.3)",
               {"disable_custom_all_reduce": True, "enable_chunked_prefill": False}, None),
    "vp_372": ("0.6.3", "printed 'Initializing an LLM engine (v0.6.3.dev114+g4f95ffee)' (main between 0.6.2 and 0.6.3)",
               {"disable_custom_all_reduce": True, "enable_chunked_prefill": False}, None),
    # helper mv20 (2026-12-04): an OpenShift AI note (search-index file id 71589812318, repository not returned):
    # Qwen2.5-VL-7B-Instruct at tp 2 on two L4 (the pod's nvidia-smi), 8,192; log also vl_485
    "vp_373": ("0.9.2", "not printed: cli_args.py:325 / gpu_worker.py:232 / kv_cache_utils.py:716 are the 0.9.2 wheel's",
               {}, None),
    # helper mv22 (2026-12-04): the same OpenShift AI notes (search-index file id 39769618681): the one-GPU L4 run,
    # --max-model-len 2048, Red Hat build printing 'v0.9.0.1' with upstream 0.9.2 line numbers; log also vl_584
    "vp_470": ("0.9.2", "printed 'v0.9.0.1' (Red Hat AI downstream build); cli_args.py:325 / gpu_worker.py:232 / "
               "kv_cache_utils.py:716 are the 0.9.2 wheel's",
               # printed 'Using FlashInfer for top-p & top-k sampling' (helper vres, 2026-12-05)
               {"topk_topp_sampler": "flashinfer"}, None),
    # helper mv20 (2026-12-04): a Chinese vLLM / lmdeploy / TRT-LLM / mlc-llm benchmark note (search-index file id
    # 29195317024, repository not returned): vLLM 0.4.1 Meta-Llama-3-8B-Instruct on one RTX 3090; log also vl_487
    "vp_374": ("0.4.1", "printed 'vLLM API server version 0.4.1'", {}, None),
    # helper mv20 (2026-12-04): the ROCm blog 'Enhancing vLLM Inference on AMD GPUs' (search-index file id 26172866603):
    # vLLM main of 2024-08-29 on one MI300X, Meta-Llama-3-8B-Instruct with and without --kv-cache-dtype fp8;
    # logs also vl_488 / vl_489
    "vp_375": ("0.5.5", "not printed: main of 2024-08-29; gpu_executor.py:121 is the 0.5.5 wheel's line", {}, None),
    "vp_376": ("0.5.5", "not printed: main of 2024-08-29; gpu_executor.py:121 is the 0.5.5 wheel's line", {}, None),
    # helper mv21 (2026-12-04): a Korean blog post (search-index file id 60168338778; its FP16 baseline is vl_057):
    # vLLM 0.28.0, Qwen3-14B-AWQ on one L40S (named, nvidia-smi printed), the default run and the post's "tuned"
    # run (util 0.95, 1,024, 8 sequences, 8,192 batched); numbers quoted in the post's tables; AWQ config assembled
    "vp_420": ("0.28.0", "stated by the post ('vLLM 0.28.0')", {}, None),
    "vp_421": ("0.28.0", "stated by the post ('vLLM 0.28.0')", {}, None),
    # helper mv21: the same post's section 7, Qwen3-14B-AWQ on two L4 (g6.12xlarge, PCIe) at tp 2 and at pp 2
    "vp_422": ("0.28.0", "stated by the post ('vLLM 0.28.0')", {}, None),
    "vp_423": ("0.28.0", "stated by the post ('vLLM 0.28.0')", {}, None),
    # helper mv21: xuchu0726/ai-inference-service's committed launch log, vLLM 0.11.2 Seed-OSS-36B-Instruct bf16 at
    # tp 2 on two A100-SXM4-80GB, util 0.90, 65,536; config assembled from a quoted snapshot; log also vl_551
    "vp_424": ("0.11.2", "printed 'vLLM API server version 0.11.2'", {}, None),
    # helper mv21: the same project's 128K boundary profile (eager, one sequence, 131,072); log also vl_552
    "vp_425": ("0.11.2", "printed 'vLLM API server version 0.11.2'", {}, None),
    # helper mv21: the same project's FP32 baseline (--dtype float32, eager, util 0.98, 512); log also vl_553
    "vp_426": ("0.11.2", "printed 'vLLM API server version 0.11.2'", {"dtype": "float32"}, None),
    # helper mv21: the same project, week2_batch_tokens_32768_vllm_launch_20260525.log; log also vl_554
    "vp_427": ("0.11.2", "printed 'vLLM API server version 0.11.2'", {}, None),
    # helper mv21: the same project, week2_batch_tokens_4096_vllm_launch_20260525.log; log also vl_555
    "vp_428": ("0.11.2", "printed 'vLLM API server version 0.11.2'", {}, None),
    # helper mv24 (2026-12-04): a coding-agent transcript's vLLM 0.27.1 launch (search-index file id 61222544093):
    # Qwen3.8-27B bf16 on a 119.63 GiB GB10-class device, util 0.92, 786,432 under a YaRN x3 --hf-overrides (config
    # Qwen--Qwen3.8-27B-yarn3.json), prefix caching off; log also vl_620
    "vp_440": ("0.27.1", "printed 'Initializing a V1 LLM engine (v0.27.1)'",
               {"gpu_catalog": {"gpu": "GB10", "note": "not named: the printed 'Free memory on device (112.26/119.63 "
                                "GiB)' is the GB10 / DGX Spark CUDA total (vp_260) and the transcript's free -h shows "
                                "the 119Gi shared with the host"},
                "enable_prefix_caching": False}, None),
    # helper mv24: the same transcript's FP8-KV re-run (--kv-cache-dtype fp8 --kv-cache-memory-bytes 32212254720, 30
    # GiB: vLLM skips the memory profile); log also vl_621
    "vp_441": ("0.27.1", "the vp_440 install ('Initializing a V1 LLM engine (v0.27.1)' printed there the same morning)",
               {"gpu_catalog": {"gpu": "GB10", "note": "not named: the transcript's free -b prints total_GiB=119.63, the "
                                "GB10 / DGX Spark CUDA total (vp_260), on the vp_440 host"},
                "enable_prefix_caching": False, "kv_cache_memory_bytes": 32212254720}, None),
    # helper mv24: the same transcript's step-up run (917,504, YaRN x3.5, fp8 KV, --kv-cache-memory-bytes 35433480192);
    # log also vl_622
    "vp_442": ("0.27.1", "the vp_440 install ('Initializing a V1 LLM engine (v0.27.1)' printed there the same day)",
               {"gpu_catalog": {"gpu": "GB10", "note": "not named: the transcript's free -b prints total_GiB=119.63, the "
                                "GB10 / DGX Spark CUDA total (vp_260), on the vp_440 host"},
                "enable_prefix_caching": False, "kv_cache_memory_bytes": 35433480192}, None),
    # helper mv24: the same transcript's step-up run (1,048,576, YaRN x4, fp8 KV, --kv-cache-memory-bytes 39849132032);
    # log also vl_623
    "vp_443": ("0.27.1", "the vp_440 install ('Initializing a V1 LLM engine (v0.27.1)' printed there the same day)",
               {"gpu_catalog": {"gpu": "GB10", "note": "not named: the transcript's free -b prints total_GiB=119.63, the "
                                "GB10 / DGX Spark CUDA total (vp_260), on the vp_440 host"},
                "enable_prefix_caching": False, "kv_cache_memory_bytes": 39849132032}, None),
    # helper mv26 (2026-12-05): notes 'L40s 48G - Pytorch Jupyter notebook' (search-index file id 51781852921): vLLM
    # 0.19.0 LLM(model="Qwen/Qwen3.5-9B") with every default on an L40S; log also vl_730
    "vp_530": ("0.19.0", "printed 'Initializing a V1 LLM engine (v0.19.0)'", {}, None),
    # helper mv26 (2026-12-05): 'Reconnaissance captures' of a serverless cold-start study (search-index file id
    # 58522340114): vLLM 0.27.1 Qwen3-8B on an RTX 4090, 8,192, util 0.9 default; run 0 compiles cold (the default);
    # log also vl_737
    "vp_531": ("0.27.1", "stated in the capture header ('vLLM 0.27.1'); 0.27.1 source lines", {}, None),
    # helper mv26: the same captures' run 1 on the same worker: run 0's compile cache reused (torch.compile 0.30 s,
    # peak activation 0.19 GiB in the notes' table), so compile_cache "warm" is the source's statement
    "vp_532": ("0.27.1", "the vp_531 worker image ('vLLM 0.27.1' in the capture header)", {"compile_cache": "warm"},
               None),
    # helper mv26: tutorial '01-MiniCPM5-1B vLLM 部署调用' (search-index file id 54603410239): vLLM 0.23.0 MiniCPM5-1B
    # on an RTX 4090 D, util 0.6, 4,096 (the series' SGLang page is gs_008); log also vl_739
    "vp_533": ("0.23.0", "printed 'Initializing a V1 LLM engine (v0.23.0)'",
               {"gpu_catalog": {"gpu": "RTX-4090", "note": "RTX 4090 D (24 GB, the RTX 4090's memory): the catalog's "
                                                         "RTX-4090"}}, None),
    # helper mv26: the same series' '01-Qwen3.5-4B vLLM 部署调用' (search-index file id 54540076871): vLLM 0.23.0
    # Qwen3.5-4B on the RTX 4090 D, util 0.9, 4,096; config copied from the corpus (Qwen--Qwen3.5-4B.json); log also
    # vl_740
    "vp_534": ("0.23.0", "printed 'Initializing a V1 LLM engine (v0.23.0)'",
               {"gpu_catalog": {"gpu": "RTX-4090", "note": "RTX 4090 D (24 GB, the RTX 4090's memory): the catalog's "
                                                         "RTX-4090"}}, None),
    # helper mv29 (2026-12-05): Cloud Run codelab notes (search-index file id 69641025864): vLLM 0.17.2rc1.dev133
    # google/gemma-4-31B-it, online FP8, fp8 KV, one RTX PRO 6000, util 0.95, 32,767; log also vl_840
    "vp_590": ("0.17.2", "the notes' environment table: 'vLLM 0.17.2rc1.dev133+g9279c59a0 (pytorch-vllm-serve:gemma4)'",
               {}, None),
    # helper mv29 (2026-12-05): a vLLM bisect series (records 61103921487 / 61174240581, test script 60808923146):
    # zai-org/GLM-5.1-FP8 at tp 8 on eight H200, eager, utilisation and length left at their defaults; logs also
    # vl_841 / vl_842.  0.20.1.dev1 is one commit past the v0.20.0 tag: 0.20.0's rules
    "vp_591": ("0.19.1", "the record's 'vllm==0.19.1rc1.dev329+gc0ba4f5ba.precompiled'", {}, None),
    "vp_592": ("0.20.0", "the record's 'vllm==0.20.1.dev1+g39acbf39c.precompiled' (one commit past v0.20.0)", {}, None),
    # helper mv30 (2026-12-05): aihpi/litellm-k8s docs/adding-models.md (search-index file id 44809433693): vLLM
    # latest-cu130 on 2026-02-09 (0.15.1), nvidia/Llama-3.3-70B-Instruct-FP8 on one H100 80 GB, util 0.95, fp8 KV,
    # 32,000, 8 sequences; log also vl_870
    "vp_620": ("0.15.1", "the image vllm/vllm-openai:latest-cu130 deployed 2026-02-09 (newest release 0.15.1; "
                         "format_gib prints: 0.14.0 or later)", {}, None),
    # helper mv30 (2026-12-05): myoceane.fr post 10289's first revision (pages corpus), the Gemma-4-26B-A4B run on an
    # A100 80 GB: 0.19.0 (the post's next run), eager, util 0.9, 131,072; the budget is scored; log also vl_871
    "vp_621": ("0.19.0", "the same post's gpt-oss-20b run a day later prints 'version 0.19.0' (vl_067)", {}, None),
    # helper mv31 (2026-12-05), added blind: DeepSeek-V4-Flash on two RTX PRO 6000 Blackwell (search-index file id
    # 56819795714): the stock v0.25.0 image, tp 2 over PCIe, fp8 KV, util 0.95, 1,048,576, MTP-2; no --quantization flag,
    # the checkpoint's own FP8/FP4 format (the one vp_415-vp_417 name with --quantization deepseek_v4_fp8)
    # helper fix11: the command's --speculative-config is passed (DeepSeek-V4 MTP planned from then on)
    "vp_593": ("0.25.0", "the compose file's image vllm/vllm-openai:v0.25.0 (flashinfer bumped to 0.6.14, vLLM stock)",
               {"quantization": "deepseek_v4_fp8",
                "speculative_config": '{"method": "mtp", "num_speculative_tokens": 2}'}, None),
    # helper mv31: a Modal assistant project's Qwen3.8-27B report (search-index file id 61972307986): the FP8 checkpoint
    # on an L40S (three boots: util 0.86 refused, 0.90 with 256 sequences, 0.90 with 16) and Red Hat's W4A16 build on an
    # A100-40GB and, by Modal's choice, an 80 GB A100; vLLM 0.26.0, 131,072, image=4 video=0
    # helper v11b: vp_597's boot prints 'Free memory on device (39.08/39.49 GiB)': the CUDA total is 39.49 GiB, not
    # the catalog A100-SXM-40GB's 39.39 (as vp_323 above)
    **{cid: ("0.26.0", "the report: 'vLLM 0.26.0 / transformers 5.14.1' for the Qwen Apps' boots of 2026-09-05",
             {"limit_mm_per_prompt": '{"image": 4, "video": 0}', **({"gpu_total_gib": 39.49} if cid == "vp_597" else {})},
             None)
       for cid in ("vp_594", "vp_595", "vp_596", "vp_597", "vp_598")},
    # helper mv31: elsung/dgx-spark-deepseek-v4-flash (commit 99d18890): DeepSeek-V4-Flash at tp 2 over two DGX Spark
    # (GB10) with the community image sparkrun-vllm-ds4-gb10:production-v2 (vLLM 0.21.1), fp8 KV, util 0.82, MTP 2;
    # the 1M/6 and 256K/36 profiles (prose-quoted figures)
    **{cid: ("0.21.1", "the results file: 'vLLM 0.21.1 (Aiden image)'",
             {"quantization": "deepseek_v4_fp8", "enable_expert_parallel": True,
              # helper fix11: 'MTP draft=2' passed (DeepSeek-V4 MTP planned from then on)
              "speculative_config": '{"method": "mtp", "num_speculative_tokens": 2}',
              "gpu_catalog": {"gpu": "GB10", "note": "two DGX Spark (GB10), one GPU each, tp 2 over RoCE: the catalog's GB10"}},
             None)
       for cid in ("vp_599", "vp_600")},
    # helper mv31: a credit-risk demo README (search-index file id 60263045551): Qwen3-VL-2B-Instruct offline on an RTX
    # 5070 Ti, 2,048, util 0.9, eager, one sequence; version from the source lines (0.20.0-0.20.2 print the same here)
    "vp_601": ("0.20.2", "not printed: model.py:555 / model.py:1680 / core.py:306 as the corpus's 0.20.0-0.20.2 logs",
               {"gpu_catalog": {"gpu": "RTX-5070-Ti", "note": "'RTX 5070 Ti, 16GB' (the README): the catalog's RTX-5070-Ti"}},
               None),
    # helper mv31: serving notes of a project on 4x B200 (search-index file id 70166912399): vLLM 0.30.0, Qwen3.8-27B-FP8
    # tp 2 at 0.14 and Qwen3.5-4B at 0.16 (text only, 65,536), then the 4B with MTP-2 at 0.12 and the CUDA-graph
    # estimate switched off by VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0 (not a tpkit option)
    # helper fix11: vp_604's --speculative-config (qwen3_next_mtp, 2 tokens) is passed, as the command names it
    **{cid: ("0.30.0", "the notes: 'vLLM 0.30.0, torch 2.13 cu130'",
             {"language_model_only": True,
              **({"speculative_config": '{"method": "qwen3_next_mtp", "num_speculative_tokens": 2}'}
                 if cid == "vp_604" else {})}, None)
       for cid in ("vp_602", "vp_603", "vp_604")},
    # helper mv31: a KVBM cookbook on a Dell Pro Max with GB10 (search-index file id 70384801327): vLLM 0.27.1 (aarch64
    # image), Qwen3-8B at util 0.20, 40,960, 4 sequences, 8,192 batched, prefix caching; the control start without the
    # KV connector
    "vp_605": ("0.27.1", "the container vllm/vllm-openai:v0.27.1-aarch64-ubuntu2404",
               {"enable_prefix_caching": True,
                "gpu_catalog": {"gpu": "GB10", "note": "'Dell Pro Max with GB10 (128 GB unified)': the catalog's GB10"}},
               None),
    # helper mv31: SoroushVahidi/llm-serving-heuristic-evolution's runtime probe (docs/current/
    # real_vllm_runtime_probe_v1_20260824.md): vLLM 0.27.1, Qwen2.5-0.5B-Instruct on an RTX 5060 Ti, util 0.35, 4,096,
    # 4 sequences, block 16, eager, no prefix caching; chunked prefill off (4,096 batched) and on (512)
    **{cid: ("0.27.1", "the report's installed-versions table: 'vLLM | 0.27.1'",
             # vp_606's --no-enable-chunked-prefill is passed (helper fix11: accepted on V1 from then on; with the
             # 4,096 batched tokens the run gives, = --max-model-len, it is the same profile)
             {"enable_prefix_caching": False, **({"enable_chunked_prefill": False} if cid == "vp_606" else {}),
              "gpu_catalog": {"gpu": "RTX-5060-Ti-16GB", "note": "'NVIDIA GeForce RTX 5060 Ti', 16,311 MiB, sm 12.0 "
                              "(the report's hardware table): the catalog's RTX-5060-Ti-16GB"}}, None)
       for cid in ("vp_606", "vp_607")},
    # helper mv33 (2026-12-05), added blind in the order the searches returned them: a Chinese Gateway API Inference
    # Extension walkthrough (search-index file id 29487628864): vLLM 0.8.2 V1 (VLLM_USE_V1=1) Llama-3.1-8B-Instruct
    # with --enable-lora on an 'A100' whose 40 GB size the printed pool implies; the printed args are used
    "vp_608": ("0.8.2", "printed 'vLLM API server version 0.8.2' / 'Initializing a V1 LLM engine (v0.8.2)'",
               # helper lora12: the same start's full log (tests/logs/data/vllm/vl_873.log) prints
               # 'topk_topp_sampler.py:53 Using FlashInfer for top-p & top-k sampling' (0.8.2's FlashInfer path)
               {"enable_lora": True, "max_loras": 2, "max_lora_rank": 16, "max_cpu_loras": 12,
                "topk_topp_sampler": "flashinfer"}, None),
    # helper mv33: Chinese experiment notes on Qwen3.5-9B with vLLM 0.20.0 on two RTX 5090 (search-index file id
    # 55002292133): `vllm bench latency` (the offline LLM engine) at tp 1, tp 2 (no GPU P2P: custom all-reduce
    # disabled, printed) and tp 1 with MTP-1 (the command's --speculative-config, read by _vllm_flags)
    **{cid: ("0.20.0", "the notes' environment check 'vllm 0.20.0'", {"no_p2p": True} if cid == "vp_610" else {},
             None) for cid in ("vp_609", "vp_610", "vp_611")},
    # helper mv33: Korean research notes (search-index file id 67449489553): vLLM 0.24.0 Qwen3-8B on one RTX 5090,
    # util 0.92, 32,768, with VLLM_ATTENTION_BACKEND=FLASH_ATTN and VLLM_USE_FLASHINFER_SAMPLER=0 set (the backend env
    # is not passed: only a command's --attention-backend is, tests/engines/test_vllm_graph_estimate.py)
    "vp_612": ("0.24.0", "the notes' environment table 'vLLM | 0.24.0 | vllm.__version__'",
               {"topk_topp_sampler": "native"}, None),
    # helper mv33: a Gemma4 NVFP4 backend test record (search-index file id 53725382087): vLLM 0.19.1 offline LLM,
    # nvidia/Gemma-4-31B-IT-NVFP4 (assembled config, its _assembled_note) on one RTX PRO 6000 Blackwell, util 0.85,
    # 4,096, fp8 KV from the checkpoint
    "vp_613": ("0.19.1", "the record's environment list 'vLLM: 0.19.1'", {}, None),
    # helper mv33: the 256K health probe of the vp_415 / vp_416 project (search-index file id 63396953296)
    "vp_614": ("0.23.0", "the note's package list 'vllm: 0.23.0'",
               {"quantization": "deepseek_v4_fp8", "gpu_note": "8 x NVIDIA H200 NVL (143,771 MiB each, the note's "
                "nvidia-smi lines): the catalog's H200, whose nvidia-smi total is the same 143,771 MiB"}, None),
    # helper mv33: the Gemma 3 4B PT report of vp_252's series (search-index file id 55959239556): vLLM 0.21.0 on an
    # L4, text only, eager, 8,192, util 0.90
    "vp_615": ("0.21.0", "the report's settings block 'vLLM: v0.21.0'", {"language_model_only": True}, None),
    # helper mv33: a Korean quantization benchmark post (search-index file id 59762440098): vLLM 0.8.5.post1 on an L40S
    # (g6e.xlarge), `vllm serve MODEL --disable-log-requests` for the bf16, FP8-dynamic and GPTQ-Int4 builds of
    # Qwen2.5-7B-Instruct (configs of the two quantized builds assembled from the checkpoint fields the post prints)
    **{cid: ("0.8.5", "the post's 'vLLM 0.8.5.post1' and pip install vllm==0.8.5.post1 (0.8.5's rules)", {}, None)
       for cid in ("vp_616", "vp_617", "vp_618")},
    # helper mv33: a flamegraph use case (search-index file id 53295442762), Profile 1: vLLM 0.19.0
    # NousResearch/Llama-2-7b-hf on an A100 80GB PCIe, 2,048, util 0.90
    "vp_619": ("0.19.0", "the use case's setup list 'vLLM: v0.19.0'",
               {"gpu_catalog": {"gpu": "A100-PCIe-80GB", "note": "'GPU: NVIDIA A100 80GB PCIe' (the use case's setup list): "
                                "the catalog's A100-PCIe-80GB"}}, None),
    # helper mv34 (2026-12-05), round mv33's unread hits judged in order: a Chinese TRT-LLM / vLLM archive note on an
    # RTX 5070 Ti under WSL2 (search-index file id 55618277543): vLLM 0.13.0 (NGC 26.01 image) offline LLM,
    # nvidia/Llama-3.1-8B-Instruct-FP4 (ModelOpt NVFP4, assembled config), util 0.9, 4,096
    "vp_622": ("0.13.0", "the report's 'v0.13.0+faa43dbf.nv26.01' (NGC nvcr.io/nvidia/vllm:26.01-py3)",
               # helper q21s1 (2026-12-05): WSL2, no CUDA total printed: nvidia-smi's 16,303 MiB (_wsl2_total)
               {"gpu_catalog": {"gpu": "RTX-5070-Ti-16GB", "note": "'NVIDIA GeForce RTX 5070 Ti (Blackwell, sm_120, "
                                "16303 MiB)' (the report's hardware table, Windows + WSL2): the catalog's RTX-5070-Ti-16GB"},
                "wsl2": True},
               None),
    # helper mv34: a finance-agent project's model-run records on one cloud RTX 4090 (search-index file ids 56123484485,
    # round mv33's hit, and 56372330401, the record of the day before that gives the release): vLLM 0.21.0 offline LLM
    # Qwen3.5-9B text only ('text-only mode': language_model_only), max_num_seqs 1; 131,072 at util 0.95 in float16, and
    # 8,192 at util 0.86
    # compile_cache "warm" (helper q21s1, 2026-12-05): neither record is a first start of its engine configuration.
    # vp_623: the same 131,072 / 0.95 / float16 / max_num_seqs 1 configuration prints the same 139,914 tokens in two
    # records of separate script runs (56123484485's smoke, whose two runs load in 74.5 s and 77.9 s, and the later
    # driver-pack run 56495823839), so every start printed the same state, and all but the first load vLLM's compile
    # cache (~/.cache/vllm/torch_compile_cache). vp_624: its record says the first cloud attempt of the same command
    # (900 output tokens, a sampling value) came before the run it reports. Blind (cold, the default): see §6.4.
    **{cid: ("0.21.0", "the project's record of 2026-05-16 'vLLM 0.21.0' (the same cloud RTX 4090 and script)",
             {"language_model_only": True, "compile_cache": "warm",
              **({"dtype": "float16"} if cid == "vp_623" else {})}, None)
       for cid in ("vp_623", "vp_624")},
    # helper mv35 (2026-12-05), added blind in the order new queries returned them (round mv35, docs/accuracy.md §6.4):
    # the AEGIS wiki's DGX Spark relaunch (search-index file ids 56970814486 / 56998269858): vLLM 0.19.1 Qwen3.6-27B bf16
    # text only (--language-model-only) on one GB10, util 0.90, 131,072
    "vp_625": ("0.19.1", "the endpoint's /version 'vLLM 0.19.1' (container vllm-node:official-0.19.1-cu130)",
               {"gpu_catalog": {"gpu": "GB10", "note": "DGX Spark ('DGX Spark 단일 GB10', the wiki's S7 model profile): "
                                "the catalog's GB10"}, "language_model_only": True}, None),
    # helper mv35: a Chinese experiment log on an AutoDL RTX 4090 D (search-index file id 61428263897): vLLM 0.28.0
    # Qwen2.5-1.5B-Instruct through the OpenAI api_server entry point, util 0.85, 8,192
    "vp_626": ("0.28.0", "printed 'vLLM version 0.28.0'", {}, None),
    # helper mv35: a RAG service's runbook (search-index file id 62412218909): vLLM v0.8.5 image, Qwen3-8B-AWQ
    # (--quantization awq) and Qwen3-8B bf16 at 8,192 on 'GPU 7' of 49.1 GB, not named; vp_627 quotes the final
    # profile's lines, vp_628-vp_630 the tuning table's rounded counts. topk_topp_sampler 'flashinfer' (helper
    # near14, 2026-12-05): the official vllm/vllm-openai:v0.8.5 image installs flashinfer_python 0.2.1.post2 and
    # 0.8.5's V1 TopKTopPSampler takes it (VL056_FLAGS_NOTE, the same image as vl_056)
    **{cid: ("0.8.5", "the image vllm/vllm-openai:v0.8.5 (the runbook's docker run)",
             {"topk_topp_sampler": "flashinfer", "gpu_assumed": {
                 "gpu": "RTX-A6000", "candidates": ["RTX-A6000", "RTX-6000-Ada"],
                 "note": "GPU not named (the runbook's 'GPU 7', nvidia-smi '41.1 GB / 49.1 GB'): a 49,140 MiB card, the "
                         "48 GB workstation class (RTX A6000 / RTX 6000 Ada: the same 47.99 GiB total; L40S / A40 are "
                         "46,068 MiB). Planned on the first candidate; every candidate's prediction lies inside the "
                         "others' bands (tests/validation/test_validation_set.py checks it)"},
              **({"quantization": "awq"} if cid in ("vp_627", "vp_628") else {})}, None)
       for cid in ("vp_627", "vp_628", "vp_629", "vp_630")},
    # helper mv35: Chinese inference notes (search-index file id 34681159919): Qwen3-8B-FP8 run in float16, util 0.8,
    # 1,024, on an unnamed 23.53 GiB card; the release from the log's source line numbers (0.10.2 wheel)
    "vp_631": ("0.10.2", "the log's source lines (gpu_worker.py:284/291/297/298/391, kv_cache_utils.py:864/868, "
                         "gpu_model_runner.py:3118) are vLLM 0.10.2's, read in the 0.10.2 wheel (0.11.0's differ)",
               {"gpu_assumed": {
                   "gpu": "RTX-3090", "candidates": ["RTX-3090", "RTX-4090"],
                   "note": "GPU not named (CUDA_VISIBLE_DEVICES=4,5,6,7 of a larger server); the printed 'Free memory on "
                           "device (23.08/23.53 GiB)' is the 24 GB class (RTX 3090 prints 23.54 GiB in vp_350, RTX 4090 "
                           "23.65). Planned on the first candidate with the printed total; every candidate's prediction "
                           "lies inside the others' bands (tests/validation/test_validation_set.py checks it)"},
                "gpu_total_gib": 23.53}, None),
    # helper mv35: a Russian research brief on Modal batch processing (search-index file id 57489989625): vLLM 0.18.0
    # offline LLM, Qwen3.5-9B on an L40S, fp8 KV, 65,536, prefix caching on (Mamba 'align' mode)
    "vp_632": ("0.18.0", "printed 'Initializing a V1 LLM engine (v0.18.0)'", {"enable_prefix_caching": True}, None),
    # helper mv35: 'Lab 00 — hello-gpu' findings (search-index file id 69494016274): vLLM v0.29.0 image, Qwen3.5-4B on a
    # RunPod L4 at the 0.92 default, 32,768; the printed CUDA total 22.03 GiB
    "vp_633": ("0.29.0", "the image vllm/vllm-openai:v0.29.0-cu129", {"gpu_total_gib": 22.03}, None),
    # helper mv35: DeepSeek-V3.2 deployment notes (search-index file id 68378441594): vLLM 0.16.0 on 8x H200 (RunPod),
    # tp 8, util 0.85, 16,384, 32,768 batched, LMCacheConnectorV1 (kv_both; not modelled, as case_020)
    "vp_634": ("0.16.0", "the notes' server.log summary 'vLLM version: 0.16.0'", {"enable_prefix_caching": True}, None),
    # helper mv35: B300 notes (search-index file id 63390294774): vLLM 0.26.0 gemma-4-31B-it bf16 on one B300, util
    # 0.92, 16,384, image / audio limited to 0 (video profiled), VLLM_USE_V2_MODEL_RUNNER=0
    "vp_635": ("0.26.0", "printed banner 'version 0.26.0' and 'Initializing a V1 LLM engine (v0.26.0)'",
               {"gpu_catalog": {"gpu": "B300", "note": "'B300 with Gemma4 details' (the notes), printed 'Free memory on "
                                "device (267.08/267.69 GiB)': the catalog's B300 (the same 267.69 GiB total)"},
                "limit_mm_per_prompt": '{"image": 0, "audio": 0}', "vllm_use_v2_model_runner": "0"}, None),
    # helper mv35: a vLLM labs repository's scripts/serve.sh (search-index file id 70740229753): its header quotes one
    # measured start (Qwen3-0.6B, RunPod RTX 4090, util 0.90, 8,192); release from the header's 'verified in v0.30.0'
    "vp_636": ("0.30.0", "the script's header 'both verified in v0.30.0 source' (the lab's install; not printed)", {},
               None),
    # helper mv36 (2026-12-05), added blind: gateway-api-inference-extension PR #550's review thread quotes the V0
    # memory lines of its gpu-deployment.yaml (Llama-2-7b-hf, --enable-lora, max-loras 4, image vllm-openai:latest) on
    # an 80 GB H100 (printed total 79.19 GiB); 0.8.1 was the latest release on the log's date (03-21) and falls back to
    # V0 for LoRA when VLLM_USE_V1 is unset (engine/arg_utils.py _warn_or_fallback('LORA'))
    "vp_637": ("0.8.1:v0", "not printed: image vllm/vllm-openai:latest on 2025-03-21 (0.8.1; its worker.py:267 / "
               "executor_base.py:111 / monitor.py:33 match the lines); V0 by the LoRA fallback",
               {"gpu_total_gib": 79.19, "enable_lora": True, "max_loras": 4, "max_lora_rank": 16,
                "max_cpu_loras": 12}, None),
    # helper bl14b (2026-12-05), added blind: vllm#5248's comment of 2024-06-12: deepseek-coder-6.7b-instruct in float16
    # at tp 2 on two T4 (the demo api_server, defaults otherwise; 0.4.2 derives 16,384 x the linear rope factor 4 =
    # 65,536 as the length, which the 507 blocks cannot hold, so the start fails after the sizing)
    "vp_670": ("0.4.2", "not printed: the log's distributed_gpu_executor.py:45 and worker_base.py:145 are the 0.4.2 "
               "wheel's lines (0.4.3: :56 / :146)", {}, None),
    # helper bl14b: mitchross/talos-argocd-proxmox (a homelab GitOps repository): Qwen3.8-27B-FP8 at tp 2 on two RTX 3090
    # with the stock v0.27.1 image, util 0.92, fp8_e4m3 KV, prefix caching, 8,192 batched, images 16; vp_671 the first
    # boot (131,072, 2 sequences; PR #1995 quotes it), vp_672 Baseline A (262,144, 3 sequences; the benchmark README)
    **{cid: ("0.27.1", "the deployment's image vllm/vllm-openai:v0.27.1 (stock, digest-pinned)",
             {"limit_mm_per_prompt": '{"image": 16}', "enable_prefix_caching": True}, None)
       for cid in ("vp_671", "vp_672")},
    # helper bl14b: kenrollins/gemma-forge (a Dell XR7620 with four L4): the image vllm/vllm-openai:latest of 2026-04-09
    # (0.19.0, the repository's Dockerfile comment) with transformers upgraded; vp_673 nvidia/Gemma-4-31B-IT-NVFP4 at
    # tp 2 (util 0.90, 4,096, the checkpoint's fp8 KV), vp_674 google/gemma-4-31B-it bf16 at tp 4 (util 0.92, 16,384,
    # eager, 8 sequences); the figures are the author's (a gotcha page, a script header)
    **{cid: ("0.19.0", "not printed: the image vllm/vllm-openai:latest, 'vLLM 0.19.0' in the repository's Dockerfile "
             "comment and journal", {}, None)
       for cid in ("vp_673", "vp_674")},
    # helper mv26: a service capacity report (search-index file id 58113078588): vLLM 0.19.1rc1.dev71 MiniMax-M2.5 FP8
    # on 4x H100 80 GB, TP 4, util 0.95, 128,000, 10 sequences; config copied from the corpus (MiniMaxAI--MiniMax-M2.5.json)
    "vp_535": ("0.19.1", "the report's 'version v0.19.1rc1.dev71+gdd9342e6b'", {}, None),
    # helper mv28 (2026-12-05): infervisor/plow's campaign-B1 vLLM baseline (perf-data/gemma4-26b-a4b-vllm-sm120.json):
    # vLLM 0.25.1 google/gemma-4-26B-A4B-it on one RTX PRO 6000 Blackwell Server Edition, util 0.90, 132,096, 8,192
    # batched; bf16, --quantization fp8, and fp8 + --kv-cache-dtype fp8 (validation only: the record quotes the
    # start-up numbers, the raw serve logs are not in the stored copy); added blind
    "vp_560": ("0.25.1", "the record's \"vllm_version\": \"0.25.1\" (vllm==0.25.1 in the report's venv)", {}, None),
    "vp_561": ("0.25.1", "the record's \"vllm_version\": \"0.25.1\" (vllm==0.25.1 in the report's venv)", {}, None),
    "vp_562": ("0.25.1", "the record's \"vllm_version\": \"0.25.1\" (vllm==0.25.1 in the report's venv)", {}, None),
    # helper mv28 (2026-12-05): xbill9/gemma4-dev's Tesla T4 articles: vLLM 0.29.0 Gemma 4 E2B (QAT w4a16 and bf16 run as
    # fp16), util 0.9, 16,384, 8 sequences; vp_563 is Part 2's start (log also vl_810; a warm compile cache, the
    # article's statement), vp_564 / vp_565 Part 1's bf16 / QAT starts (validation only); added blind
    "vp_563": ("0.29.0", "printed 'system_fingerprint': 'vllm-0.29.0-9a66a08c'", {"compile_cache": "warm"}, None),
    # compile_cache "warm" for vp_564 / vp_565 (helper e2b10, 2026-12-05): the same repository's Part 3 article
    # (gpu-vllm-t4-2b-w4a16, search-index id 71060990555) lists both starts (9.8 GiB / 315,974 and 8.02 GiB / 519,568)
    # under 'same flags, warm compile cache', and Part 1's bring-up notes (evidence/bringup.txt, id 69074739639) call
    # the sweep's 0.29.0 restart 'compile cache warm'
    "vp_564": ("0.29.0", "the article's 'vLLM 0.29.0, torch 2.13.0+cu130' and its package list", {"compile_cache": "warm"},
               None),
    "vp_565": ("0.29.0", "the article's 'vLLM 0.29.0, torch 2.13.0+cu130' and its package list", {"compile_cache": "warm"},
               None),
    # helper mv28: the same repository's g5g rig (0.27.2rc0 source build on a T4G, the report's table; compilation
    # 2.9 s: a cached compile); its g4dn sibling is vp_253 / vl_333
    "vp_567": ("0.27.2", "the report's 'v0.27.2rc0 -> 0.27.2rc1.dev0+g7f7a32cfe' (a 0.27.2 pre-release)",
               {"compile_cache": "warm"}, None),
    # helper mv28: the same repository's gpu-vllm-g6-2b-w4a16 rig (EC2 g6, one L4): vLLM 0.30.0 image, the E2B QAT
    # checkpoint in bf16, util 0.9, 8,192, a cold compile; log also vl_812
    "vp_568": ("0.30.0", "printed banner 'version 0.30.0' and 'Initializing a V1 LLM engine (v0.30.0)'", {}, None),
    # helper mv28: the same repository's MI300X dtype sweep, bf16 arm (gpu-vllm-mi300x-26b): vLLM 0.31.1rc1.dev23 (ROCm)
    # gemma-4-26B-A4B-it, util 0.9, 32,768, image / audio limited to 0 (as vp_254), a cold compile; log also vl_813
    "vp_569": ("0.31.1", "printed 'version 0.31.1rc1.dev23+g43b4aaea3' (a 0.31.1 pre-release)",
               {"limit_mm_per_prompt": '{"image": 0, "audio": 0}', "gpu_total_gib": 191.69}, None),
    # helper mv8 (2026-12-04): akamaslabs/vllm-benchmark study 28 kernel probes (vLLM 0.29.0, Qwen3-8B-FP8 on one
    # MIG 1g.16gb slice of 15.66 GiB, SM 12.0; prefix caching off, FlashInfer sampler printed, cold compile); logs
    # also in tests/logs/data/vllm/ as vl_290-vl_291.  vllm_use_v2_model_runner "0" (helper mrun, 2026-12-04): the
    # probes' StatefulSet (kernel-probe/results/A-auto.sts.yaml) sets VLLM_USE_V2_MODEL_RUNNER=0 and the logs agree
    # ("Model loading took" from [gpu_model_runner.py:5471], no "Using V2 Model Runner")
    "vp_210": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "vllm_use_v2_model_runner": "0"},
               None),
    "vp_211": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "vllm_use_v2_model_runner": "0"},
               None),
    # helper akam (2026-12-05): four more study 28 kernel probes (same slice, harness and StatefulSet as vp_210 /
    # vp_211, VLLM_USE_V2_MODEL_RUNNER=0 in kernel-probe/results/*.sts.yaml; only the linear / attention kernel and
    # the KV dtype differ), added blind; logs also in tests/logs/data/vllm/ as vl_700-vl_703
    "vp_500": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "vllm_use_v2_model_runner": "0"},
               None),
    "vp_501": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "vllm_use_v2_model_runner": "0"},
               None),
    "vp_502": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "vllm_use_v2_model_runner": "0"},
               None),
    "vp_503": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "vllm_use_v2_model_runner": "0"},
               None),
    # helper akam (2026-12-05), after the pinned-scratch rule: three more study 28 probes (A-fa, L-cutlass,
    # L-deepgemm) as an out-of-sample test of it; logs also in tests/logs/data/vllm/ as vl_704-vl_706
    "vp_504": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "vllm_use_v2_model_runner": "0"},
               None),
    "vp_505": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "vllm_use_v2_model_runner": "0"},
               None),
    "vp_506": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "vllm_use_v2_model_runner": "0"},
               None),
    # helper akam (2026-12-05): probe L-auto, the same test (log vl_707)
    "vp_507": ("0.29.0", "printed banner 'version 0.29.0' and 'Initializing a V1 LLM engine (v0.29.0)'",
               {"topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "vllm_use_v2_model_runner": "0"},
               None),
    # helper mv7 (2026-12-04): akamaslabs/vllm-benchmark study 10 smoke test (vLLM 0.29.0, gpt-oss-20b on L4s,
    # five configurations of k8s/smoke_test.sh; log grep-filtered, so no explain-corpus copy)
    "vp_194": ("0.29.0", "printed 'Initializing a V1 LLM engine (v0.29.0)'",
               {"enable_prefix_caching": False}, None),
    "vp_195": ("0.29.0", "printed 'Initializing a V1 LLM engine (v0.29.0)'",
               {"enable_prefix_caching": False}, None),
    "vp_196": ("0.29.0", "printed 'Initializing a V1 LLM engine (v0.29.0)'",
               {"enable_prefix_caching": False}, None),
    "vp_197": ("0.29.0", "printed 'Initializing a V1 LLM engine (v0.29.0)'",
               {"enable_prefix_caching": False, "enable_expert_parallel": True}, None),
    "vp_198": ("0.29.0", "printed 'Initializing a V1 LLM engine (v0.29.0)'",
               {"enable_prefix_caching": False, "data_parallel_size": 4, "enforce_eager": True,
                "no_async_scheduling": True}, None),  # smoke_test.sh row dp4: async false (helper mv7's option)
    # helper bl14a (2026-12-05), added blind: a benchmarking repository's decisions log (search-index file id
    # 63094958918): vllm==0.19.1 on an H200 pod, Qwen2.5-1.5B-Instruct at util 0.9, the model's 32,768
    "vp_650": ("0.19.1", "not printed: the entry installs vllm==0.19.1 on the H200 pod (0.20+ wheels need CUDA 13) and "
               "quotes that install's start-up", {}, None),
    # helper bl14a: a Spanish lab README (search-index file id 69548423988): Qwen2.5-32B-Instruct-AWQ on one L40S-class
    # card (printed total 44.43 GiB), image pinned to v0.6.6.post1 (driver 555), util 0.90, 32,768, fp8 KV, prefix caching
    "vp_651": ("0.6.6", "not printed: the README pins vllm/vllm-openai:v0.6.6.post1 (the host's driver 555 cannot run "
               "the CUDA 13 images)", {"gpu_total_gib": 44.43, "enable_prefix_caching": True}, None),
    # helper bl14a: a Colab notebook's saved output (search-index file id 25017508238): vLLM 0.7.3 V0, a merged LoRA
    # fine-tune of Phi-4-mini-instruct on an A100 40 GB (printed total 39.56 GiB), util 0.90, 2,048, float16
    "vp_652": ("0.7.3", "printed 'Initializing a V0 LLM engine (v0.7.3)'", {"gpu_total_gib": 39.56}, None),
    # helper bl14a: Infrasys-AI/AIInfra's KV-cache notebook output (search-index file id 11223326262): vLLM 0.11.0,
    # uer/gpt2-chinese-cluecorpussmall in float16 on an RTX 4090 (torch total 23.52 GiB printed), the serve defaults
    "vp_653": ("0.11.0", "printed 'Initializing a V1 LLM engine (v0.11.0)'",
               {"gpu_total_gib": 23.52, "topk_topp_sampler": "native"}, None),
    # helper bl14a: a GRPO research log's terminal output (search-index file id 54021851790): vLLM 0.6.4.post1 V0,
    # realtreetune/rho-1b-sft-GSM8K (TinyLlama-1.1B geometry) bf16 on one H200, util 0.90, 2,048, prefix caching on
    "vp_654": ("0.6.4", "printed 'Initializing an LLM engine (v0.6.4.post1)'", {"enable_prefix_caching": True}, None),
    # helper bl14a: a lab's boot walkthrough (search-index file id 65863227652): vLLM 0.22.1, Qwen2.5-7B-Instruct-AWQ
    # forced to the plain awq kernel, float16, util 0.9, 4,096, 8 sequences, on a Runpod RTX 3090; FlashInfer sampler
    "vp_655": ("0.22.1", "printed banner 'version 0.22.1' (image vllm/vllm-openai:v0.22.1-cu129)",
               {"quantization": "awq", "topk_topp_sampler": "flashinfer"}, None),
    # helper bl14a: 'Week 1 — Blackwell serving baseline' (search-index file id 59689113826): vLLM 0.26.0, Qwen3-8B on a
    # 96 GB sm_120 card (RTX PRO 6000, inferred), util 0.90, 4,096, 128 sequences, 2,048 batched, no prefix caching,
    # VLLM_USE_FLASHINFER_SAMPLER=0
    "vp_656": ("0.26.0", "not printed in the quote: the write-up's 'Installed and verified: vLLM 0.26.0'",
               {"topk_topp_sampler": "native", "enable_prefix_caching": False}, None),
    # helper bl15 (2026-12-05, session 15): vllm-project/vllm#2798, Llama-2-7b-chat in float16 on one H20 (eager, 4,096;
    # the utilization is the LLM class default: the script is not shown)
    "vp_675": ("0.2.7", "not printed: the log's llm_engine.py:70 / :275 are the 0.2.7 wheel's lines (0.2.6: :73 / :223; "
                        "0.3.0: :72 / :322)", {}, None),
    # helper bl15: vllm-project/vllm#2382, TheBloke/Mixtral-8x7B-Instruct-v0.1-AWQ at tp 2 on two A100 80GB, util 0.5,
    # eager, the image vllm/vllm-openai:v0.2.7
    "vp_676": ("0.2.7", "the image vllm/vllm-openai:v0.2.7 (the reporter's docker command)", {}, None),
    # helper bl15: TickerTaka/TickerTaka-backend's Colab T4 report, Qwen2.5-3B-Instruct in float16, eager, 4,096, util 0.90,
    # XFormers (env VLLM_ATTENTION_BACKEND)
    "vp_677": ("0.6.6", "printed 'vLLM API server version 0.6.6.post1'", {}, None),
    # helper bl15: an IPython note (search-index id 19513493048): facebook/opt-125m with the LLM class defaults on an 8 GB
    # Turing-class card (7.92 GiB printed)
    "vp_678": ("0.6.4", "printed 'Initializing an LLM engine (v0.6.4.post1)'", {}, None),
    # helper bl15: a W7900 bring-up log's RTX 3090 reference runs (search-index id 43499199491): NousResearch/Meta-Llama-3-8B
    # with benchmark_throughput.py's defaults (util 0.9, 8,192)
    "vp_679": ("0.4.1", "printed 'Initializing an LLM engine (v0.4.1)'", {}, None),
    # helper bl15: a serving-layer comparison (search-index ids 69849633891 / 69512487527) on one RTX 4080 Laptop GPU under
    # WSL2: Qwen2.5-1.5B-Instruct, util 0.85, 4,096, 64 sequences; vp_680 vLLM 0.5.5 (the Triton 24.12 image's), vp_681
    # the vllm/vllm-openai:v0.20.0 image
    "vp_680": ("0.5.5", "the Triton 24.12 vllm-python-py3 image's vLLM 0.5.5 (the write-up's table)", {}, None),
    "vp_681": ("0.20.0", "the image vllm/vllm-openai:v0.20.0 (KServe 0.20.0's runtime; the write-up's table)", {}, None),
    # helper bl15: a Paperspace guide (search-index id 45886098371): mistralai/Mistral-7B-Instruct-v0.2 with the defaults of
    # the image ghcr.io/mistralai/mistral-src/vllm:latest on one RTX A5000
    # helper old03 (2026-12-05, session 16): the image is vLLM git main of mid-December 2023, after PR #2031 (total -
    # free profile): scored as 0.2.5 (was 0.2.4, +21.1 % -> -0.7 %); the basis below
    "vp_682": ("0.2.5", "not printed: the image's deploy/Dockerfile (mistralai/mistral-src b46d6de, committed 2023-12-13 "
                        "20:08 UTC; the earlier one pinned vllm==0.2.0, whose '# GPU blocks' line is llm_engine.py:205) "
                        "installs torch 2.1.1 and vLLM git main at build time; the log's llm_engine.py:222 and its config "
                        "fields without enforce_eager put that main before 'Optimize model execution with CUDA graph "
                        "(#1926)' (merged 2023-12-17 05:12 UTC: line 224, enforce_eager printed), so it holds 'Fix peak "
                        "memory profiling (#2031)' (merged 2023-12-13 06:01 UTC: total - free after the profile; git "
                        "history of a vllm mirror). The 0.2.5 tag (31c1f32, 2023-12-14) lies in that window and worker.py, "
                        "mistral.py, the layers and model_runner.py do not change for a bf16 Mistral without sliding window "
                        "across it: scored as 0.2.5. (Helper bl15 had 0.2.3 from vllm#2076's Mixtral error with the "
                        "image, filed before the Dockerfile gained git main and Megablocks.)", {}, None),
    # helper bl15b (2026-12-05), added blind from GitHub issue threads: noonghunna/club-3090 bench reports of
    # Qwen3.8-27B-FP8 at tp 2 (vLLM 0.27.1, util 0.92, 262,144, fp8 KV, prefix caching, 8,192 batched, 2 sequences,
    # MTP-3); the worker line's 'Current kv cache memory in use' (the available KV bytes) is scored, with the CUDA
    # total the line prints; vp_700 two RTX 5090 (#1087), vp_701 two RTX 3090 with async scheduling off (PR #1139)
    "vp_700": ("0.27.1", "printed 'Initializing a V1 LLM engine (v0.27.1)'",
               {"gpu_total_gib": 31.4, "enable_prefix_caching": True}, None),
    "vp_701": ("0.27.1", "printed 'Initializing a V1 LLM engine (v0.27.1)'",
               {"gpu_total_gib": 23.56, "enable_prefix_caching": True, "no_async_scheduling": True}, None),
    # helper bl16 (2026-12-05, session 16), added blind from find_string / search (code, pages) hits:
    # a Chinese KV-cache note (search-index id 51774936285): DeepSeek-R1-Distill-Qwen-1.5B with the defaults on an
    # RTX 4090 D, the native top-k/top-p sampler (FlashInfer not installed)
    "vp_702": ("0.8.3", "printed 'Initializing a V1 LLM engine (v0.8.3)'",
               {"topk_topp_sampler": "native", "enable_prefix_caching": True}, None),
    # ray-project/ray's VLM batch-inference example (id 38879334099): Qwen2.5-VL-3B-Instruct on an L4 inside Ray Data,
    # 8,192 / 2,048 batched, the native sampler
    "vp_703": ("0.11.0", "printed 'Initializing a V1 LLM engine (v0.11.0)'",
               {"topk_topp_sampler": "native", "enable_prefix_caching": True}, None),
    # a Kaggle notebook summary (id 67282092037): Qwen3-8B-AWQ forced to the plain awq kernel, float16, eager, util 0.62,
    # 3,072, 32 sequences, on a T4 (printed total 14.56 GiB), LLM class
    "vp_704": ("0.20.0", "printed 'Initializing a V1 LLM engine (v0.20.0)' (quoted)",
               {"gpu_total_gib": 14.56, "quantization": "awq"}, None),
    # ozgurgulerx/inference-journal: Qwen2.5-1.5B-Instruct at util 0.6 on an RTX 2000 Ada (not in the catalog: Ada, the
    # CUDA total assumed from the RTX 4080's 16,376 MiB card)
    "vp_705": ("0.11.2", "printed 'vLLM API server version 0.11.2'", {"enable_prefix_caching": True}, None),
    # a Chinese learning-lab day log (id 54872460357): Qwen2.5-0.5B-Instruct, util 0.85, 2,048 on an RTX 4090 (torch
    # total 23.52 GiB printed by the lab's environment check, id 54963658971), FlashInfer sampler
    "vp_706": ("0.24.0", "printed 'Initializing a V1 LLM engine (v0.24.0)' (quoted)",
               {"gpu_total_gib": 23.52, "topk_topp_sampler": "flashinfer", "enable_prefix_caching": True}, None),
    # thealonemusk/InferStack: Qwen2.5-1.5B-Instruct float16 on a Kaggle T4 (printed total 14.56 GiB), 4,096, 8,192
    # batched, util 0.9; vp_707 max_num_seqs 256 (Phase 1), vp_708-vp_711 the Phase 5 sweep's 32 / 64 / 96 / 128
    **{cid: ("0.29.0", "the run's install step 'vllm_version: 0.29.0' (result.json / phase05.json)",
             {"gpu_total_gib": 14.56}, None) for cid in ("vp_707", "vp_708", "vp_709", "vp_710", "vp_711")},
    # helper bl16b (2026-12-05, session 16), added blind from GitHub issue threads: ai-dynamo/dynamo#4580, Qwen3-0.6B
    # with Dynamo's KVBM connector at util 0.15, 512, eager, on one unnamed GPU printing a 47.53 GiB total; the
    # worker line's 'Current kv cache memory in use' (the available KV bytes) is scored
    "vp_683": ("0.10.2", "not printed: gpu_worker.py:391 and core.py:218 are the 0.10.2 wheel's lines (those of the "
                         "corpus's 0.10.2 logs)",
               {"gpu_total_gib": 47.53,
                "gpu_assumed": {
                    "gpu": "RTX-A6000", "candidates": ["RTX-A6000"],
                    "note": "GPU not named; the printed CUDA total 47.53 GiB is an RTX A6000's (catalog 47.54; RTX 6000 "
                            "Ada 47.37, L40/L40S 44.52, A40 44.35). Planned on the RTX-A6000 with the printed total"}},
               None),
    # helper bl16c (2026-12-05, session 16), added blind from the leads round bl16 listed and did not read:
    # a GKE scale-to-zero reproduction (ids 69577081529 / 69391869869): Qwen2.5-1.5B-Instruct on one T4, util 0.8, 4,096,
    # eager, vllm/vllm-openai:latest on 2026-09-25 (taken as 0.29.0), the native sampler (SM 7.5 fallback printed)
    "vp_712": ("0.29.0", "not printed: vllm/vllm-openai:latest pulled 2026-09-25; 0.29.0 is what pip resolved that day "
                         "(InferStack's result.json, vp_707)", {"topk_topp_sampler": "native"}, None),
    # a hackathon BENCHMARKS.md (id 56724519265): Qwen2.5-72B-Instruct bf16, vLLM 0.19.1, 8,192; vp_713 one MI300X at
    # util 0.92, vp_714 two H100 SXM at util 0.97 eager (the quoted concurrency), vp_715 two H100 SXM at util 0.92 (the
    # start-up refusal's 4,368 tokens)
    "vp_713": ("0.19.1", "stated 'vLLM 0.19.1 + ROCm 7.13'", {}, None),
    "vp_714": ("0.19.1", "stated 'same vLLM version (0.19.1)'", {}, None),
    "vp_715": ("0.19.1", "stated 'same vLLM version (0.19.1)'", {}, None),
    # an inference bring-up README (id 65773950940): Qwen3.8-27B-FP8 on one H100 with the 0.27.1 wheel (vp_716); on
    # MI355X with the rocm/verl image's 0.20.2rc1.dev253 at util 0.45: Qwen3-4B 8,192 at TP 1 / 2 (vp_717 / vp_718, AITER
    # on), Qwen3.8-27B-FP8 32,768 at TP 1 / 2 (vp_719 / vp_720, AITER off)
    "vp_716": ("0.27.1", "stated 'vLLM 0.27.1 (pip / CUDA 13.0)'", {}, None),
    **{cid: ("0.20.2", "the image's vLLM 0.20.2rc1.dev253+g1ff9d3353 (a ROCm build between 0.20.1 and 0.20.2); rules "
                       "0.20.2", {}, None) for cid in ("vp_717", "vp_718", "vp_719", "vp_720")},
    # helper bl17 (2026-12-05, session 17), added blind: psuri-github/vllm-rocm-inference-lab's session log (id
    # 61531559398): Qwen2.5-0.5B-Instruct at util 0.6 on one MI350X (planned as the MI355X, the same 288 GB, with the
    # 287.69 GiB total the droplet's earlier start-up refusal prints), vllm/vllm-openai-rocm:latest = 0.22.1 (printed)
    "vp_721": ("0.22.1", "printed 'vLLM version observed in logs: 0.22.1' and system_fingerprint 'vllm-0.22.1-37ab569a'",
               {"gpu_total_gib": 287.69,
                "gpu_catalog": {"gpu": "MI355X", "note": "'GPU type: AMD MI350X', 'VRAM: 288 GB' (the session log): not "
                                "in the catalog; the MI355X entry (the same 288 GB HBM3E) with the printed 287.69 GiB "
                                "total ('Free memory on device cuda:0 (12.38/287.69 GiB)', Session 2)"}}, None),
    # a machine note of a v0.18.1 source checkout (id 65862909583): Qwen3-0.6B through the LLM class at util 0.15, 256,
    # one sequence, eager, on one RTX 4090 D (the catalog's RTX-4090)
    "vp_722": ("0.18.1", "stated 'vLLM: 0.18.1' (tag v0.18.1 built from source)", {}, None),
    # a long-generation case study (id 53309088475): neuralmagic/Mistral-7B-Instruct-v0.3-FP8 at util 0.85, 19,000 on an
    # RTX 4070 Super 12 GB (not in the catalog: Ada, 11.67 GiB assumed), vllm/vllm-openai:latest = 0.15.1 (printed)
    "vp_723": ("0.15.1", "printed 'version 0.15.1' (the startup-log table)", {"enable_prefix_caching": True}, None),
    # a KV-placement paper's RTX 3090 run log (id 61952410282; the serve command from code/m3_baseline.py, id 62024007355):
    # vLLM 0.28.0 (+cu129 wheel) at util 0.90 on one RTX 3090 per job; Llama-3.1-8B-Instruct (NousResearch mirror) and a
    # no-DCA Qwen2.5-7B-Instruct-1M; M1 at 8,192 with bf16 / fp8 KV (vp_724-vp_727), M3's serial full_gpu starts at
    # 33,824 / 66,592 (vp_728 / vp_729)
    **{cid: ("0.28.0", "stated 'vllm 0.28.0' + 'torch 2.13.0+cu129' (the environment fingerprint table)",
             {"compile_cache": "warm"} if cid in ("vp_728", "vp_729") else {}, None)
       for cid in ("vp_724", "vp_725", "vp_726", "vp_727", "vp_728", "vp_729")},
    # compile_cache "warm" for vp_728 / vp_729 (helper w17, 2026-12-05, post-blind; docs/accuracy.md §6.4 "round bl17"
    # and w17): vLLM 0.28.0 keys its torch.compile cache by VllmConfig.compute_hash (config/vllm.py: max_model_len and
    # the KV cache dtype enter, gpu_memory_utilization and the KV connector's config do not) and the env factors
    # (envs.compile_factors: VLLM_CACHE_ROOT and CUDA_VISIBLE_DEVICES ignored), under VLLM_CACHE_ROOT/torch_compile_cache
    # (compilation/backends.py VllmBackend.__call__; decorators.py for the AOT artifact). The M3 serial pass restarted,
    # one at a time on GPU 0, the very commands (max_model_len 33,824 / 66,592, the project's one VLLM_CACHE_ROOT) that
    # the M3 parallel pass had started and compiled before it, so every serial start loaded its graphs. The log prints
    # both pools of one command: Qwen full_gpu at 66,592 'parallel 時 KV pool 讀到 106,512、serial 時 121,072', and the
    # M2 precision-tier run's repeated starts of one command 'fp8 有 83,312 與 96,272 兩個值、int4 有 156,832 與
    # 181,216' (the same 0.79 GiB step as 41,648 -> 48,128). vp_724-vp_727 are M1's first starts of their hashes
    # (cold, the default).
    # helper bl17b (2026-12-05, session 17), added blind from the leads round bl17 did not read: a Qwen3.6-27B-AWQ
    # deployment README on one RTX 5090 (id 51887792854; nightly 0.19.2rc1.dev21, between 0.19.1 and 0.20.0: 0.19.1's
    # rules), util 0.92, 65,536, 4 sequences, 8,192 batched, prefix caching, images 2 / video 1 (vp_730); Gemma-3-1B-it
    # on a GKE A100 MIG 1g.5gb partition (gbrayut/cloud-examples, id 47197774778; v0.10.1.1 image), util 0.86 (vp_731)
    "vp_730": ("0.19.1", "stated image build '0.19.2rc1.dev21+g893611813' (a nightly after 0.19.1, before 0.20.0)",
               {"enable_prefix_caching": True, "limit_mm_per_prompt": '{"image": 2, "video": 1, "audio": 0}'}, None),
    # helper mig18 (2026-12-05): vp_731 re-pointed from the assumed 4.75 GiB total to the catalog's MIG slice
    # A100-40GB-MIG-1g.5gb (the same 4.75 GiB: -lgip's 'Memory GiB', scripts/gpu_mig.py; the prediction does not move)
    "vp_731": ("0.10.1", "the deployment's image vllm/vllm-openai:v0.10.1.1 (vllm-3-1b-it.yaml)", {}, None),
    # the same project's earlier README (id 51910320717): RedHatAI/Qwen3.6-35B-A3B-NVFP4 on one RTX 5090, the same nightly,
    # util 0.92, 131,072, 4 sequences, 8,192 batched, prefix caching: images 2 / video 1 (vp_732), every modality 0
    # (vp_733), images 2 / video 1 with MTP 1 token (vp_734)
    **{cid: ("0.19.1", "stated image nightly-89361181 ('0.19.2rc1.dev21+g893611813', after 0.19.1, before 0.20.0)",
             {"enable_prefix_caching": True, "limit_mm_per_prompt": mm}, None)
       for cid, mm in (("vp_732", '{"image": 2, "video": 1, "audio": 0}'), ("vp_733", '{"image": 0, "video": 0, "audio": 0}'),
                       ("vp_734", '{"image": 2, "video": 1, "audio": 0}'))},
    # helper bl18b (2026-12-05, session 18), added blind: a Ray multi-node `vllm bench throughput` README's sample log
    # (id 31259794699): Qwen3-30B-A3B-Instruct-2507 bf16 at TP 4 x PP 2 on two Isambard-AI nodes of four GH200 120GB
    # (the total assumed blind; helper gh18 re-pointed it to the catalog's GH200-96GB, 95.00 GiB), a v0.10.1.1 source
    # build, the LLM class, 16,384 batched
    # (printed), the model's 262,144; the torch.compile cache printed warm ('Directly load the compiled graph(s)')
    "vp_761": ("0.10.1.1", "printed 'v0.10.1.2.dev0+g1da94e673.d20250903': the v0.10.1.1 tag at distance 0 with local edits",
               {"compile_cache": "warm"}, None),
    # helper bl18 (2026-12-05, session 18), added blind: Burbanit0/Vote-App's vLLM 0.30.0 bump check (id 68516711290):
    # Qwen3-8B-AWQ on one RTX 5070 Ti (native Ubuntu) at util 0.80, 16,384 (vp_735); a Korean lab note on one RTX 4090
    # under WSL2, vLLM 0.27.1 (id 61464053627): Qwen3-8B-FP8 at 2,048 (vp_736) and Qwen3-14B-FP8 at 8,192 (vp_737), util
    # 0.90; danielesalpietro/vllm-granite (v0.8.5 image): granite-3.3-8b-instruct on a 24 GB RTX 3090 at util 0.90,
    # 16,384, the WSL2 total its README's log warning implies (vp_738); a TurboQuant learning repo's baseline probe
    # (ids 70436763134 / 70154504527): Qwen3-4B through the LLM class, eager, native sampler (VLLM_USE_FLASHINFER_SAMPLER
    # =0), util 0.85, 8,192 on an RTX 5080 under WSL2, vLLM 0.25.0 (vp_739); a Korean serving-book walkthrough (id
    # 59672764378): Mistral-7B-Instruct (JumpStart prepack) with vLLM 0.9.0.1 on an A10G (g5.xlarge), util 0.92, 8,192
    # (vp_740)
    "vp_735": ("0.30.0", "printed 'Initializing a V1 LLM engine (v0.30.0)' (the bump check's table; image v0.30.0)",
               {"gpu_catalog": {"gpu": "RTX-5070-Ti", "note": "'the RTX 5070 Ti' ('16.3GB card (RTX 5070 Ti)') on native "
                                "Ubuntu: the catalog's RTX-5070-Ti"}}, None),
    **{cid: ("0.27.1", "the note's venvs: 'vLLM 0.27.1 (venv)' and 'vllm==0.27.1 lmcache' (0.27.1)", {"wsl2": True}, None)
       for cid in ("vp_736", "vp_737")},
    "vp_738": ("0.8.5", "the README version that first quotes the lines builds on vllm/vllm-openai:v0.8.5",
               {"wsl2": True, "enable_prefix_caching": True}, None),
    "vp_739": ("0.25.0", "stated 'vLLM 0.25.0' (the worked example; verify.py 'verified on 0.25.0')",
               {"wsl2": True, "topk_topp_sampler": "native"}, None),
    "vp_740": ("0.9.0", "stated 'pip install \"vllm==0.9.0.1\"' (0.9.0's rules)",
               {"gpu_catalog": {"gpu": "A10G", "note": "g5.xlarge's A10G (nvidia-smi '23,028 MiB'): the catalog's A10G"}},
               None),
    # helper bl18: a Korean RTX 5070 Ti blog (id 56155919944): vllm/vllm-openai v0.23.0 in a k3s pod on WSL2, util 0.90,
    # 8,192: RedHatAI's Qwen3-8B NVFP4 (vp_741, a quoted log), Qwen3-8B FP8-dynamic (vp_742) and Qwen3-14B NVFP4 (vp_743)
    **{cid: ("0.23.0", "stated 'vLLM v0.23.0 (vllm/vllm-openai:latest)'",
             {"wsl2": True, "gpu_catalog": {"gpu": "RTX-5070-Ti", "note": "'RTX 5070 Ti(Blackwell, SM120, 16GB) + WSL2': "
                                             "the catalog's RTX-5070-Ti"}}, None)
       for cid in ("vp_741", "vp_742", "vp_743")},
    # helper bl18: Drolsey/syslab-server's docs/models.md (id 69451098589): vllm/vllm-openai:v0.28.0 (digest-pinned in
    # docker-compose.yml) on an RTX 5090 that prints 31.36 GiB: Qwen3-32B-AWQ at 8,192 with util 0.70 / 0.85 (vp_744 /
    # vp_745), Qwen3-14B-AWQ at util 0.70 with 16,384 / 32,768 (vp_746 / vp_747)
    **{cid: ("0.28.0", "docker-compose.yml's image vllm/vllm-openai:v0.28.0@sha256:61fc8a89 (digest of v0.28.0)",
             {"gpu_total_gib": 31.36, **({"compile_cache": "warm"} if cid == "vp_744" else {})}, None)
       for cid in ("vp_744", "vp_745", "vp_746", "vp_747")},
    # compile_cache "warm" for vp_744 (helper o19a, 2026-12-05, session 19, post-blind; blind -31.0 % in docs/accuracy.md
    # §6.4 round bl18; §2 "The syslab-server RTX 5090 pair"): the same file records that the first boot of the 0.70
    # container failed with 'Available KV cache memory: 0.45 GiB' and that `restart: unless-stopped` brought it up 28 s
    # later with the 3.0 GiB. 21.95 - 0.45 = 21.50 GiB = 20.04 + 1.46, the consumed memory and peak the cold 0.85 start
    # prints: the failed boot was a cold start, and the profile that sized it had compiled and saved the graphs
    # (compilation/backends.py VllmBackend.__call__ save_to_file, decorators.py save_aot_compiled_function, 0.28.0: both
    # right after the compile, inside profile_run) under VLLM_CACHE_ROOT = ~/.cache/vllm (envs.py), which
    # docker-compose.yml (id 69648555761) does not mount (only /root/.cache/huggingface): a restart of the same container
    # keeps it, a recreate (`docker compose up -d` after a command change: vp_745-vp_747) does not. vp_744's printed
    # 0.33 GiB peak is the warm one.
    # helper bl19: a lane note's surviving tp1 pool lines (id 59252261280; launcher run_mse_sweep.sh, id 59123495992):
    # Llama-3.1-8B-Instruct on one A100-SXM4-40GB, vLLM 0.19.0, util 0.85, 32,768, prefix caching (vp_762); a simulator
    # report (id 62071304591): Qwen2.5-14B-Instruct on one H100-80GB-HBM3, vLLM 0.21.0, util 0.90, 4,096, 256 sequences
    # (vp_763); a Korean gateway study on g6.12xlarge (id 69380228259): Qwen3-0.6B-FP8 on one L4, the v0.11.0 image,
    # util 0.85, 8,192, block 16, prefix caching (vp_764); a Korean FP8 study (ids 69415599131 / 69701526975) on the RTX
    # 4080 Laptop box of vp_680 / vp_681 (WSL2, v0.23.0 image, 4,096, 64 sequences): util 0.85 / 0.45 / 0.33 in bf16
    # (vp_765-vp_767) and util 0.85 with --quantization fp8 (vp_768)
    "vp_762": ("0.19.0", "the note: 'both v0.19.0, util 0.85' (the host's install 'vllm 0.19.0 g2a69949bd')",
               {"enable_prefix_caching": True}, None),
    "vp_763": ("0.21.0", "stated 'vLLM v0.21.0'", {}, None),
    "vp_764": ("0.11.0", "the manifest's image vllm/vllm-openai:v0.11.0", {"enable_prefix_caching": True}, None),
    **{cid: ("0.23.0", "the environment table: image vllm/vllm-openai:v0.23.0 for every experiment", {}, None)
       for cid in ("vp_765", "vp_766", "vp_767", "vp_768")},
    # helper bl19: a Chinese run book (id 70376054105): Qwen3-0.6B with vLLM 0.29.0 on an RTX 5060 Ti under WSL2, util
    # 0.85, 8,192, native sampler (vp_769); a Korean study log (id 61510271682): Qwen2.5-7B-Instruct bf16 / GPTQ-Int4 /
    # RedHatAI FP8-dynamic with vLLM 0.27.1 on an RTX 4090 under WSL2, util 0.92, 8,192, native sampler (vp_770-vp_772)
    "vp_769": ("0.29.0", "the run book's version check 'vllm : 0.29.0'",
               {"wsl2": True, "topk_topp_sampler": "native",
                "gpu_catalog": {"gpu": "RTX-5060-Ti-16GB", "note": "'NVIDIA GeForce RTX 5060 Ti, 15.9 GB' (sm_120) under "
                                "WSL2: the catalog's RTX-5060-Ti-16GB"}}, None),
    **{cid: ("0.27.1", "stated 'WSL2 + 4090 + vLLM 0.27.1' (the study log's FP8 section)",
             {"wsl2": True, "topk_topp_sampler": "native"}, None) for cid in ("vp_770", "vp_771", "vp_772")},
    # helper bl19b (2026-12-06): a project write-up (id 62571909065): Qwen3-0.6B with the vllm/vllm-openai:latest image
    # (printed 0.19.0) on one RTX 3060 12GB under native Linux (printed total 11.63 GiB), --enforce-eager: util 0.75,
    # 8,192 (vp_773, pool printed, then a sampler warm-up failure) and util 0.60, 4,096, 8 sequences, 1,024 batched
    # tokens (vp_774)
    **{cid: ("0.19.0", "printed banner 'version 0.19.0' (image vllm/vllm-openai:latest)",
             {"gpu_total_gib": 11.63,
              "gpu_catalog": {"gpu": "RTX-3060-12GB", "note": "'NVIDIA GeForce RTX 3060 12GB' on native Linux: the "
                              "catalog's RTX-3060-12GB with the CUDA total the host prints ('Free memory on device "
                              "cuda:0 (9.02/11.63 GiB) on startup')"}}, None) for cid in ("vp_773", "vp_774")},
    # helper bl19b: a project's verified ROCm run (id 55785433807): Qwen3-14B with a ROCm 7.2 build of vLLM main after
    # 0.16.0 on one AMD gfx1100 48 GB card (rocm-smi total 51,522,830,336 bytes), defaults (vp_775)
    "vp_775": ("0.16.0", "printed 'version 0.16.1.dev0+g89a77b108.d20260318' (main after v0.16.0, before v0.16.1)", {},
               None),
    # helper bl19b: the vp_706 lab's Day49 log (id 54570340937): Qwen2.5-7B-Instruct on the same RTX 4090 (printed total
    # 23.52 GiB), vLLM 0.24.0, util 0.85, 2,048 (vp_776); FlashInfer sampler and prefix caching as vp_706's start script
    "vp_776": ("0.24.0", "the log's setup block 'vLLM: 0.24.0' (the lab's install of vp_706)",
               {"gpu_total_gib": 23.52, "topk_topp_sampler": "flashinfer", "enable_prefix_caching": True}, None),
    # helper bl20: chiragn28/FXAssist_Lite's Kaggle GPU lab (results/BENCHMARKS.md, id 70525231493): Qwen2.5-3B-Instruct
    # float16 / its AWQ build on Kaggle T4s (14.56 GiB), vLLM 0.31.0, the lab's BASE_SERVER (0.9, 4,096, 32 sequences,
    # prefix caching off) and its knobs; compile cache cold or warm as the report's start-up table says per start
    **{cid: ("0.31.0", "the run's install stage 'versions 0.31.0 2.13.0+cu130 13.0' (stages.jsonl)",
             {"gpu_total_gib": 14.56, "enable_prefix_caching": False,
              **({"compile_cache": "warm"} if cid in ("vp_778", "vp_781") else {})}, None)
       for cid in ("vp_777", "vp_778", "vp_779", "vp_780", "vp_781", "vp_782", "vp_783")},
    # helper bl20: cezarc1/decodebench's smoke-r2-2 (tests/vllm_logs.py, id 70402968748): Qwen3-32B W4A4 NVFP4 (vp_784)
    # and MXFP4 (vp_785) llm-compressor checkpoints on one B200, vLLM 0.31.0, util 0.90, 4,096, 512 sequences, 16,384
    # batched, bf16 KV, prefix caching off; the torch.compile cache warm (printed 'Directly load AOT compilation')
    **{cid: ("0.31.0", "printed 'Initializing a V1 LLM engine (v0.31.0)'",
             {"enable_prefix_caching": False, "compile_cache": "warm"}, None) for cid in ("vp_784", "vp_785")},
    # helper bl20: xbill9/sagemaker-gemma, Gemma 4 on a SageMaker ml.g6.xlarge (one L4) with AWS's vLLM 0.30.0 image,
    # SM_VLLM_MAX_MODEL_LEN 8192 and SM_VLLM_GPU_MEMORY_UTILIZATION 0.9 only: E2B-it bf16 / QAT w4a16 (2026-09-25,
    # vp_786 / vp_787) and E4B-it bf16 / QAT w4a16 (2026-09-27, vp_788 / vp_789); fresh instances (cold compile)
    **{cid: ("0.30.0", "the image 'vllm:0.30.0-gpu-py312-cu130-ubuntu24.04-sagemaker-v1.1' (docs/DEPLOY.md)", {}, None)
       for cid in ("vp_786", "vp_787", "vp_788", "vp_789")},
    # helper bl20: a Stage B lab report (id 71080932958): Qwen2.5-7B-Instruct with vllm/vllm-openai:v0.11.0 on an EKS
    # g6.xlarge (one L4), util 0.90, 8,192, prefix caching on (vp_790)
    "vp_790": ("0.11.0", "the manifest's image 'vllm/vllm-openai:v0.11.0'", {}, None),
    # helper bl20: a self-hosted product report (id 68723798051): Qwen2.5-3B-Instruct-AWQ (awq_marlin, fp16) with
    # vllm/vllm-openai:v0.11.0 on an RTX 3050 Laptop 4 GB under WSL2, util 0.78, 4,096, 8 sequences, 2,048 batched
    # (vp_791); the compile cache on no volume (cold every launch)
    "vp_791": ("0.11.0", "the pinned image 'vllm/vllm-openai:v0.11.0'", {"enable_prefix_caching": True}, None),
    # helper bl20: a Wulver (NJIT) KV-pressure report (id 57438014420): Qwen2.5-7B-Instruct bf16 with vLLM 0.24.0 on one
    # A100-SXM4-80GB, 16,384, prefix caching off; vp_792 util 0.82 / 8 sequences / 2,048 batched, vp_793 0.35 / 32 / 4,096
    **{cid: ("0.24.0", "§1 'vLLM | 0.24.0'", {"enable_prefix_caching": False}, None) for cid in ("vp_792", "vp_793")},
    # helper bl20c (2026-12-06, session 21): a learning project's M2 gate report (id 70213625301): vLLM 0.30.0's serve
    # defaults on one L4 (Modal) with prefix caching off, Qwen3-0.6B (vp_808) and Qwen3-1.7B (vp_809), bf16
    **{cid: ("0.30.0", "'vLLM 0.30.0 in its own image (infra/serving.lock)'", {"enable_prefix_caching": False}, None)
       for cid in ("vp_808", "vp_809")},
    # helper bl21 (2026-12-06, session 21): a GKE A3 Mega guide's GLM-5.1 run (id 53523624431): vLLM 0.19.0, the bf16
    # checkpoint with online fp8 weights and fp8 KV, tp 8 x pp 2 over two a3-megagpu-8g nodes (Ray), 202,752 context;
    # the manifest is not in the index, so utilization and the scheduler limits are vLLM's defaults (vp_810)
    "vp_810": ("0.19.0", "the README's Software Versions table 'vLLM | 0.19.0 (V1 engine)'", {"nnodes": 2}, None),
    # helper bl21: a research project's E0 probe record (id 58653435936): vLLM 0.7.3 V0 (VLLM_USE_V1=0), Qwen3-32B bf16
    # on one A100 80GB PCIe, util 0.82, 8,192, one sequence, 8,192 batched, prefix caching, eager (vp_811)
    "vp_811": ("0.7.3", "the record's 'vLLM version/backend | vLLM 0.7.3; Qwen3 falls back to the Transformers backend'",
               {"enable_prefix_caching": True,
                "gpu_catalog": {"gpu": "A100-PCIe-80GB", "note": "named by the project's KV plan ('3× NVIDIA A100 80GB "
                                                                 "PCIe', id 58701294585): the catalog's A100-PCIe-80GB"}},
                None),
    # helper bl21b: vllm#10360 (paulcx, 2024-11-30): the 0.6.4.post1 image, Qwen2.5-32B-Instruct-AWQ on an RTX A6000,
    # 4,096, prefix caching, util default; the V0 profile line's kv_cache_size
    "vp_749": ("0.6.4", "stated 'IMAGE: `0.6.4.post1`' (the vllm/vllm-openai image)",
               {"enable_prefix_caching": True,
                "gpu_catalog": {"gpu": "RTX-A6000", "note": "'A6000 (48G)' (the comment) and the printed "
                                "total_gpu_memory=47.54GiB: the catalog's RTX-A6000"}}, None),
    # helper bl21b: oracle-quickstart/oci-ai-blueprints' sample vLLM recipe (search-index id 44537508297): Llama-3.1-8B-
    # Instruct at tp 2 on a VM.GPU.A10.2, image vllmv0.6.6.post1, the server defaults; /metrics num_gpu_blocks
    "vp_750": ("0.6.6", "the recipe's image 'vllmv0.6.6.pos1' (a pre-0.7 V0 CacheConfig label set in the metric)",
               {"gpu_catalog": {"gpu": "A10", "note": "'recipe_node_shape': 'VM.GPU.A10.2', 2 GPUs: the catalog's A10"}},
               None),
    # helper bl21c (2026-12-06, session 21): the leads gs21 left. vp_751 / vp_752: bowenwan6/sglang-vllm-profiler's
    # Qwen3-VL-8B starts on one H200 (run 1 vLLM 0.19.0, run 2 vLLM 0.21.0, default flags); vp_753-vp_756: the vLLM
    # 0.29.0 arms of search-index id 68480202264 (Qwen2.5-3B-AWQ on an RTX 4050 Laptop under WSL2, gs_338's page)
    "vp_751": ("0.19.0", "the snapshot's 'Version: 0.19.0'", {}, None),
    "vp_752": ("0.21.0", "the report's '0.21.0 (V1 engine)' and the run's meta file", {}, None),
    "vp_753": ("0.29.0", "image vllm/vllm-openai:v0.29.0, GET /version 0.29.0", {}, None),
    "vp_754": ("0.29.0", "image vllm/vllm-openai:v0.29.0, GET /version 0.29.0",
               {"vllm_use_v2_model_runner": "0"}, None),
    "vp_755": ("0.29.0", "image vllm/vllm-openai:v0.29.0, GET /version 0.29.0", {}, None),
    "vp_756": ("0.29.0", "image vllm/vllm-openai:v0.29.0, GET /version 0.29.0", {}, None),
    # vp_757: NOT blind, the explain corpus's vl_345 (guardkit's GB10 host, search-index id 55195690679; helper bl21b's
    # withdrawn vp_748, inputs as that branch entered them), added as a non-blind validation case
    "vp_757": ("0.18.1", "printed 'v0.18.1rc1.dev147+g290809456' (after the v0.18.1rc0 tag), and the log's own 'In v0.19, "
                         "CUDA graph memory profiling will be enabled by default' (the pre-0.19 sizing)",
               {"enable_prefix_caching": True,
                "gpu_catalog": {"gpu": "GB10", "note": "printed 'Found GPU0 NVIDIA GB10 which is of cuda capability "
                                "12.1' (host 'promaxgb10-41b1', as vp_260): the catalog's GB10"}}, None),
    # helper cat20 (2026-12-06, session 20): two leads session 19 judged but could not plan because their GPUs were not
    # in the catalog (docs/accuracy.md §6.4 round cat20); added blind with the new catalog entries. vp_800: an
    # on-premises cluster's compat deployment, Qwen3.8-27B-FP8 at tp 2 on two Quadro RTX 6000 (sm_75: weight-only FP8
    # through Marlin), the stock v0.27.1 image, --dtype half --enforce-eager, util 0.90, 16,384, 1 sequence
    # (id 67640673364); vp_801: a RunPod study's Qwen2.5-7B-Instruct-AWQ on an RTX PRO 4000 Blackwell, util 0.90,
    # 8,192, --quantization awq, prefix caching printed on (id 67410870495)
    "vp_800": ("0.27.1", "the report's 'vLLM v0.27.1 in use (digest 0a51ea5b…)' and the completion's system_fingerprint "
                         "'vllm-0.27.1-tp2-19fcd1d7'", {}, None),
    "vp_801": ("0.28.0", "not printed in the transcribed lines: the notes read the server's defaults from '0.28.0's "
                         "defaults in the local clone' and run `vllm bench serve` 0.28.0 in the same pod",
               {"enable_prefix_caching": True}, None),
    # helper bl22b (2026-12-06, session 22): vllm-project/vllm PR #4454's comment (mgoin, 2024-04-29): one-line LLM()
    # starts on one RTX A6000 at main 73c8d677 (after v0.4.1, V0, torch 2.2.1), every LLM() default (vp_831 opt-125m,
    # vp_832 Meta-Llama-3-8B-Instruct)
    **{cid: ("0.4.1", "main at 73c8d677 (the PR comment's 'main's current HEAD', 2024-04-29): after the v0.4.1 tag, "
                      "before v0.4.2; gpu_executor.py:118 (V0)",
             {"gpu_catalog": {"gpu": "RTX-A6000", "note": "'kv cache block allocation using an A6000' (the comment): "
                                                          "the catalog's RTX-A6000"}}, None)
       for cid in ("vp_831", "vp_832")},
    # helper bl22b: a README 'll3.1_test' (search-index id 8887326767): Llama 3.1 405B (Meta's MP16 checkpoint, 16 KV
    # heads) at tp 8 on AMD Instinct GPUs (ROCm, Ray workers), a ROCm v0.4.3 build, eager, 8,192, util default (vp_833)
    "vp_833": ("0.4.3", "printed 'Initializing an LLM engine (v0.4.3)' (a ROCm build; distributed_gpu_executor.py:56)", {}, None),
    # helper bl22b: brando90/snap-cluster-setup README (search-index id 23744917045): vLLM's quick-start LLM("facebook/opt-125m")
    # on a Stanford SNAP node's A100-SXM4-80GB, vLLM 0.4.0.post1 (vp_834)
    "vp_834": ("0.4.0", "printed 'Initializing an LLM engine (v0.4.0.post1)' (gpu_executor.py:94, V0)", {}, None),
    # helper bl20b (2026-12-06, session 20), added blind: SRKRZ23/repomind's Qwen3-Coder-Next-FP8 on one MI300X with the
    # vLLM 0.17.1+rocm700 Quick Start image, util 0.92, 262,144, fp8 KV (ids 62004925019 / 62278752052): the smoke-test
    # start (vp_802) and the stress-test session's start (vp_803)
    **{cid: ("0.17.1", "the run's `vllm --version`: '0.17.1+rocm700'", {}, None) for cid in ("vp_802", "vp_803")},
    # helper bl20b: a Qwen3.6-27B-FP8 project on one L40S, vllm/vllm-openai:latest = 0.24.0 (ids 55060224897 /
    # 55259230036): util 0.90, 32,768, 10 sequences, 8,192 batched, fp8 KV, prefix caching, text only; MTP k=3 (vp_804,
    # the command's --speculative-config) and no MTP (vp_805)
    **{cid: ("0.24.0", "docs/config.md: 'vLLM 0.24.0（容器 vllm/vllm-openai:latest）'",
             {"enable_prefix_caching": True, "language_model_only": True}, None) for cid in ("vp_804", "vp_805")},
    # helper bl20b: a Korean KV-quantisation plan's Phase 0 (id 55614136848, driver id 55774755375): Llama-3.1-8B through the
    # offline LLM class with vLLM 0.23.0 on an RTX PRO 4000 Blackwell, the driver's defaults (util 0.90, 65,536, eager);
    # bf16 KV (vp_806) and fp8 KV (vp_807)
    **{cid: ("0.23.0", "the plan: 'vLLM 0.23.0(V1)'", {}, None) for cid in ("vp_806", "vp_807")},
    # helper bl22 (2026-12-06, session 22), added blind: pjordanandrsn/experts4bit-qlora's lane p37 (id 57676316864, driver
    # p37_vllm.py id 57400672868): Qwen3-30B-A3B-GPTQ-Int4 through the offline LLM class of vLLM 0.28.0 on one RTX 5090,
    # util 0.90, 2,048, prefix caching off; the graph arm (vp_812), the eager arm (vp_813), the fp8-KV arm (vp_814)
    **{cid: ("0.28.0", "the report's version block 'vllm 0.28.0'", {"enable_prefix_caching": False}, None)
       for cid in ("vp_812", "vp_813", "vp_814")},
    # helper bl22: natoscott/benchmarks (38330c1e). vp_815-vp_818: llm-d v0.4.0's no-offload start-ups (vLLM 0.11.2,
    # `vllm serve M --tensor-parallel-size 2 --max-num-seq 1024`, 2x L40S, default gmu 0.9; REPORT-v0.4.0.md's table);
    # vp_819-vp_821: the llm-d v0.7.0 suite's block counts (vLLM 0.19.1, the same flags and gmu 0.9; storage-offload-eval);
    # vp_822-vp_824: the RHOAI 3.5 batch evaluation on H200 (vLLM 0.19.1+rhaiv.6, gmu 0.90, --max-num-seq 1024; TP 1/2/4)
    **{cid: ("0.11.2", "REPORT-v0.4.0.md: 'vLLM: v0.11.2 (bundled with llm-d v0.4.0)'", {}, None)
       for cid in ("vp_815", "vp_816", "vp_817", "vp_818")},
    **{cid: ("0.19.1", "storage-offload-eval's 'vLLM 0.19' on 2x L40S at gmu 0.9: the llm-d v0.7.0 suite (vLLM 0.19.1)", {}, None)
       for cid in ("vp_819", "vp_820", "vp_821")},
    **{cid: ("0.19.1", "REPORT.md: 'vLLM | v0.19.1+rhaiv.6' (Red Hat AI's build of 0.19.1)", {}, None)
       for cid in ("vp_822", "vp_823", "vp_824")},
    # helper bl22: vp_791's report (id 68723798051) §7.3, the Qwen2.5-1.5B-Instruct-AWQ swap on the same v1 stack (vp_825)
    "vp_825": ("0.11.0", "the pinned image 'vllm/vllm-openai:v0.11.0' (vp_791's stack)", {"enable_prefix_caching": True}, None),
    # helper bl22c (2026-12-06, session 22), added blind: rsrusson/ai-inference-engine's loadtest/README.md (8831c7d9):
    # vllm.serve.sh (`vllm serve M --gpu-memory-utilization U --max-model-len L`, VLLM_USE_FLASHINFER_SAMPLER=0) with
    # vLLM 0.28 on one RTX 3070 Laptop 8 GB under WSL2; Qwen2.5-0.5B-Instruct at 0.85/2,048 (vp_835), 0.85/8,192 (vp_836),
    # 0.45/4,096 (vp_837); Qwen2.5-3B-Instruct-AWQ (vp_838) and Qwen2.5-7B-Instruct-AWQ (vp_839) at 0.85/2,048
    **{cid: ("0.28.0", "AGENTS.md 'vLLM 0.28' and requirements.txt 'vllm>=0.28.0' (pip)", {"topk_topp_sampler": "native"}, None)
       for cid in ("vp_835", "vp_836", "vp_837", "vp_838", "vp_839")},
    # helper bl22c: a serving-benchmark project's Phase 4 sanity (search-index id 69552837464): Qwen3-8B bf16 and the
    # project's own llm-compressor W4A16 AWQ / GPTQ checkpoints on one Modal L40S, vllm/vllm-openai:v0.10.2, eager,
    # 4,096, prefix caching off, util 0.90 (vp_840-vp_842)
    **{cid: ("0.10.2", "'vLLM 0.10.2 image' (FROM vllm/vllm-openai:v0.10.2)", {"enable_prefix_caching": False}, None)
       for cid in ("vp_840", "vp_841", "vp_842")},
    # helper bl23 (2026-12-06, session 23), added blind: syseeker/inference-pipeline-benchmark (138e7939), the harness's
    # single-tenant ('solo') vLLM 0.20.1 baselines on the host's RTX PRO 6000 Blackwell Server Edition (MPS daemon on,
    # no co-tenant), `vllm serve M --max-model-len L --gpu-memory-utilization U --max-num-seqs 32`: Qwen2.5-7B-Instruct
    # at 0.45 / 0.39 / 0.28 / 0.26 / 0.22 / 0.19 (vp_843-vp_848), Qwen2.5-72B-Instruct-AWQ at 0.69 / 0.64 / 0.58 / 0.51
    # (vp_849-vp_852), Llama-3.1-8B-Instruct (vp_853) and Mistral-7B-Instruct-v0.3 (vp_854) at 0.45, gemma-2-9b-it at
    # 0.35 on GPU 0 (vp_855) and GPU 1 (vp_856), Qwen2.5-VL-7B-Instruct-AWQ at 32,768 and 0.45 / 0.5 / 0.3 (vp_857-vp_859)
    # compile_cache "warm" where the log prints 'Directly load the compiled graph(s) for compile range (1, 8192) from
    # the cache' (all but vp_852-vp_855, which print 'Compiling a graph for compile range'): entered after the blind
    # scores, which took the default (cold); the first scores stand in blind_scores.json (docs/accuracy.md §6.4 bl23)
    **{f"vp_{n}": ("0.20.1", "printed 'version 0.20.1' and 'Initializing a V1 LLM engine (v0.20.1)'; pyproject.toml "
                             "pins vllm==0.20.1", {} if n in (852, 853, 854, 855) else {"compile_cache": "warm"}, None)
       for n in range(843, 860)},
    # helper bl23: siewong007/agent-kv-retention (bb50288e), Qwen2.5-3B-Instruct with vLLM 0.26.0 on an RTX 5080 under
    # WSL2 (the Windows desktop holds ~1.3 GiB), --max-model-len 32768, util 0.85, VLLM_USE_FLASHINFER_SAMPLER=0: the
    # calibration start with prefix caching off (vp_860), the validation start (vp_861) and its --max-num-seqs 8 form (vp_862)
    "vp_860": ("0.26.0", "docs/calibration.md 'vLLM 0.26.0'", {"enable_prefix_caching": False, "wsl2": True,
                                                               "topk_topp_sampler": "native"}, None),
    **{cid: ("0.26.0", "the project's vLLM 0.26 venv (docs/calibration.md 'vLLM 0.26.0'; validate_vs_vllm.py 'vLLM 0.26')",
             {"enable_prefix_caching": True, "wsl2": True, "topk_topp_sampler": "native"}, None)
       for cid in ("vp_861", "vp_862")},
    # helper bl23b (2026-12-06, session 23), added blind: aaronzhfeng/gpu-inference benchmarks/rtx-4090.md (found through
    # the docs corpus): Qwen3.5-9B on one RTX 4090, vLLM 0.17.0, eager, 2,048, util 0.95, the printed KV budget (vp_863)
    "vp_863": ("0.17.0", "'Engine: vLLM 0.17.0 (enforce-eager, no CUDA graphs)' (the run notes)", {}, None),
    # helper bl23b: llm-d-incubation/llm-d-planner's blog post accuracy/blog-gpu-capacity.md and the sweep's raw start-up
    # logs committed at d3121e05 (vllm/vllm-openai:v0.19.0 on H100-80GB, `vllm serve M --gpu-memory-utilization=0.95
    # --max-model-len=8192 --no-enable-prefix-caching`, TP / PP / fp8-KV / online-fp8 / dtype variants) (vp_864-vp_882)
    **{f"vp_{n}": ("0.19.0", "printed 'version 0.19.0' / 'Initializing a V1 LLM engine (v0.19.0)'",
                   {"enable_prefix_caching": False}, None) for n in range(864, 883)},
    # helper bl24 (2026-12-06, session 24), added blind: manojarulmurugan/SpecDecoding-Study-vLLM-SGLang's committed
    # vLLM 0.24.0 server logs (Colab A100-SXM4-80GB / 40GB; Llama-3-8B / Llama-3.1-8B, fp16 / GPTQ / AWQ, fp8 KV,
    # EAGLE / EAGLE-3 heads; prefix caching off). The head's --speculative-config names its config file kept with the
    # cases (tests/validation/harness.py resolves it) (vp_883-vp_902)
    **{f"vp_{n}": ("0.24.0", "printed 'version 0.24.0' / 'Initializing a V1 LLM engine (v0.24.0)'",
                   {"enable_prefix_caching": False, **({"speculative_config": _BL24_SPEC[f"vp_{n}"]}
                                                        if f"vp_{n}" in _BL24_SPEC else {})}, None)
       for n in range(883, 903)},
    # helper bl24b (2026-12-06, session 24), added blind: the same sweep's runs with a config that bl23b left for the id
    # range: Llama-3.1-8B at 2,048 / 4,096 / 16,384 / 32,768 and --dtype float16 / float32 / bfloat16, Qwen2.5-7B at
    # tp 2 / 4, four lengths and --dtype bfloat16, phi-4 (vp_903-vp_917); float16 reaches the flags from the record's
    # dtype, float32 here (as vp_426)
    **{f"vp_{n}": ("0.19.0", "printed 'version 0.19.0' / 'Initializing a V1 LLM engine (v0.19.0)'",
                   {"enable_prefix_caching": False, **({"dtype": "float32"} if n == 908 else {})}, None)
       for n in range(903, 918)},
    # helper bl27 (2026-12-06, session 27), added blind: the same campaign's version sweep (accuracy_report.md Part 2,
    # run JSONs at 3c876c8a): Qwen/Qwen3-14B on one H100 at 0.95 / 8,192, prefix caching off, images v0.15.0-v0.18.0
    # (vp_918-vp_921); an LMCache regression reproduction's plain-vLLM arm: gpt-oss-120b, tp 8 on eight H200, 0.22.1,
    # 131,072, --block-size 64, --max-num-seqs 256, prefix caching on (vp_922)
    **{f"vp_{918 + i}": (v, f"the run's name 'qwen3-14b-vllm-v{v.replace('.', '-')}' and the report's row 'v{v}' "
                            f"(image vllm/vllm-openai:v{v})", {"enable_prefix_caching": False}, None)
       for i, v in enumerate(("0.15.0", "0.16.0", "0.17.0", "0.18.0"))},
    "vp_922": ("0.22.1", "stated: 'vLLM 0.22.1' (the reproduction's issue draft)", {"enable_prefix_caching": True}, None),
    # helper bl27: the rest of the llm-d-planner 0.19.0 H100 sweep (d3121e05) whose configs tpkit's catalog holds or public
    # code gives (gemma-2-2b / 27b, gemma-7b, CodeLlama-7b, Mixtral-8x7B tp 2, gemma-3-12b, Llama-4-Scout tp 4,
    # Mistral-Small-3.1-24B), the flags of vp_864-vp_882 (vp_923-vp_930)
    **{f"vp_{n}": ("0.19.0", "printed 'version 0.19.0' / 'Initializing a V1 LLM engine (v0.19.0)'",
                   {"enable_prefix_caching": False}, None) for n in range(923, 931)},
    # helper bl28 (2026-12-06, session 28), added blind: samilazrak/vllm-optimization-lab (a7b193a3), the committed
    # start-up logs results/raw/{base,awq,tuned}.startup.log of a re-run of a book's chapter-9 lab on one L40S with
    # vLLM 0.29.0: Qwen3-14B at the defaults (vp_931), Qwen3-14B-AWQ with --quantization awq (vp_932) and the 'tuned'
    # AWQ start at 0.95, --max-num-seqs 512, --max-num-batched-tokens 8192 (vp_933); each log names the FlashInfer
    # top-k/top-p sampler
    **{f"vp_{n}": ("0.29.0", "printed 'version 0.29.0' / 'Initializing a V1 LLM engine (v0.29.0)'",
                   {"topk_topp_sampler": "flashinfer"}, None) for n in range(931, 934)},
    # helper bl28: ajith-sirra-amd/InferenceMAX_Rocm_Team (59882861), the committed server.log / vllm_command.txt of the
    # 'agentic' MiniMax-M2.5 FP8 sweep on MI355X (vLLM 0.22.0 ROCm, ROCM_AITER_FA, fp8 KV, --block-size 32, util 0.95,
    # --no-async-scheduling), the offload-none arm: tp 1 at --max-num-seqs 1 / 16 (vp_934 / vp_935), tp 2 at 1 / 16
    # (vp_936 / vp_937)
    **{f"vp_{n}": ("0.22.0", "printed 'version 0.22.0' / 'Initializing a V1 LLM engine (v0.22.0)'",
                   {"no_async_scheduling": True}, None) for n in range(934, 938)},
    # helper bl28: a study-group blog post (sirzzang/sirzzang.github.io, search-index id 61577975174): Qwen3-32B bf16 on
    # one RTX PRO 6000 Blackwell Server Edition, vLLM 0.27.1, 2,048, util 0.90, the 'vanilla' server's quoted figures
    "vp_938": ("0.27.1", "stated: 'vLLM 0.27.1' (the post's table; the notebook prints 'vllm  0.27.1')", {}, None),
    # helper bl29 (2026-12-06, session 29), added blind: gpt-oss-120b on H200 with InferenceX's gpt-oss launch (util 0.9,
    # prefix caching off, 8,192 batched tokens, CUDA graphs to 2,048, VLLM_MXFP4_USE_MARLIN=1): the committed server.log
    # files of heyram74/nebius_sopertors_inferencex_benchmark (vLLM 0.22.1, tp 2 / 4 / 8 at --max-num-seqs 64; vp_939-vp_941)
    # and of GloriaXimingLu/inferencex-profiling (vLLM 0.22.0, tp 1 at 4 / 64 and 2,068 / 9,472; vp_942 / vp_943); each
    # log names the FlashInfer top-k/top-p sampler.  helper mx29 (2026-12-07): the launch's VLLM_MXFP4_USE_MARLIN=1
    # ('+ export VLLM_MXFP4_USE_MARLIN=1' in vp_942 / vp_943's trace, its deprecation FutureWarning in vp_939-vp_941's
    # server.log, "Using 'MARLIN' Mxfp4 MoE backend" in all five) as --vllm-mxfp4-use-marlin on (engines/vllm/mxfp4.py)
    **{f"vp_{n}": ("0.22.1", "printed 'version 0.22.1' / 'Initializing a V1 LLM engine (v0.22.1)'",
                   {"enable_prefix_caching": False, "topk_topp_sampler": "flashinfer", "vllm_mxfp4_use_marlin": "on"},
                   None) for n in range(939, 942)},
    **{f"vp_{n}": ("0.22.0", "printed 'version 0.22.0' / 'Initializing a V1 LLM engine (v0.22.0)'",
                   {"enable_prefix_caching": False, "topk_topp_sampler": "flashinfer", "vllm_mxfp4_use_marlin": "on"},
                   None) for n in (942, 943)},
    # helper bl29b (2026-12-07, session 29), added blind: lawjarp-simplismart/autoresearch-inference-optimization's vLLM
    # experiment logs on H100 80GB (branches autoresearch/gemma4-31b-vllm, autoresearch/qwen3.5-9b-vllm): google/gemma-4-31B
    # bf16 / online FP8 at tp 4 and tp 1 (0.19.0), Qwen/Qwen3.5-9B text-only with and without MTP-2 and gemma-4-31B-it at
    # tp 2 (0.19.1rc1 nightlies); --quantization fp8 passed where the script names it; logs also vl_1230-vl_1235
    "vp_944": ("0.19.0", "printed the banner 'version 0.19.0' and 'Initializing a V1 LLM engine (v0.19.0)'",
               {}, None),
    "vp_945": ("0.19.0", "printed the banner 'version 0.19.0' and 'Initializing a V1 LLM engine (v0.19.0)'",
               {"quantization": "fp8"}, None),
    "vp_946": ("0.19.0", "printed the banner 'version 0.19.0' and 'Initializing a V1 LLM engine (v0.19.0)'",
               {"quantization": "fp8"}, None),
    "vp_947": ("0.19.1", "printed 'version 0.19.1rc1.dev257+gb075604da' (nightly image, 2026-04-14): a 0.19.1 pre-release",
               {"enable_prefix_caching": True, "language_model_only": True}, None),
    "vp_948": ("0.19.1", "printed 'version 0.19.1rc1.dev257+gb075604da' (nightly image, 2026-04-14): a 0.19.1 pre-release",
               {"language_model_only": True}, None),
    "vp_949": ("0.19.1", "printed 'version 0.19.1rc1.dev232+g0e39202ca' (nightly wheel, 2026-04-13): a 0.19.1 pre-release",
               {}, None),
    # helper bl29b, second batch: the same branches' starts that differ in a planned input (batched tokens, sequences,
    # n-gram speculation, utilisation, the FlashInfer sampler that VLLM_USE_FLASHINFER_SAMPLER=1 picks); logs vl_1236-vl_1240
    "vp_950": ("0.19.0", "printed the banner 'version 0.19.0' and 'Initializing a V1 LLM engine (v0.19.0)'",
               {"quantization": "fp8"}, None),
    "vp_951": ("0.19.0", "printed the banner 'version 0.19.0' and 'Initializing a V1 LLM engine (v0.19.0)'",
               {"quantization": "fp8"}, None),
    "vp_952": ("0.19.0", "printed the banner 'version 0.19.0' and 'Initializing a V1 LLM engine (v0.19.0)'",
               {"quantization": "fp8"}, None),
    "vp_953": ("0.19.1", "printed 'version 0.19.1rc1.dev257+gb075604da' (nightly image, 2026-04-14): a 0.19.1 pre-release",
               {"enable_prefix_caching": True, "language_model_only": True}, None),
    "vp_954": ("0.19.1", "printed 'version 0.19.1rc1.dev257+gb075604da' (nightly image, 2026-04-14): a 0.19.1 pre-release",
               {"language_model_only": True, "topk_topp_sampler": "flashinfer"}, None),
    # helper bl29b, third batch: gemma-4-31B FP8 at 512 sequences (a warm compile cache, printed), Qwen3.5-9B at 32,768 /
    # 16,384 (chunked prefill off) / 40,960 batched tokens (graphs at 1-8), gemma-4-26B-A4B-it text only; logs vl_1241-vl_1245
    "vp_955": ("0.19.0", "printed the banner 'version 0.19.0' and 'Initializing a V1 LLM engine (v0.19.0)'",
               {"compile_cache": "warm", "quantization": "fp8"}, None),
    "vp_956": ("0.19.1", "printed 'version 0.19.1rc1.dev257+gb075604da' (nightly image, 2026-04-14): a 0.19.1 pre-release",
               {"language_model_only": True, "topk_topp_sampler": "flashinfer"}, None),
    "vp_957": ("0.19.1", "printed 'version 0.19.1rc1.dev257+gb075604da' (nightly image, 2026-04-14): a 0.19.1 pre-release",
               {"language_model_only": True, "topk_topp_sampler": "flashinfer"}, None),
    "vp_958": ("0.19.1", "printed 'version 0.19.1rc1.dev257+gb075604da' (nightly image, 2026-04-14): a 0.19.1 pre-release",
               {"enable_prefix_caching": True, "language_model_only": True, "topk_topp_sampler": "flashinfer",
                "cudagraph_capture_sizes": [1, 2, 4, 8], "max_cudagraph_capture_size": 8}, None),
    "vp_959": ("0.19.0", "printed 'version 0.19.1.dev6+g6d4a8e6d2' (image gemma4, 2026-04-13): six commits past v0.19.0",
               {"language_model_only": True}, None),
    # helper bl29b, fourth batch: Qwen3.5-9B text-only with the FlashInfer sampler (VLLM_USE_FLASHINFER_SAMPLER=1, printed)
    # at util 0.9 / 0.95, 32,768 batched tokens, cudagraph_mode FULL / FULL_DECODE_ONLY; logs vl_1246-vl_1249
    "vp_960": ("0.19.1", "printed 'version 0.19.1rc1.dev257+gb075604da' (nightly image, 2026-04-14): a 0.19.1 pre-release",
               {"enable_prefix_caching": True, "language_model_only": True, "topk_topp_sampler": "flashinfer"}, None),
    "vp_961": ("0.19.1", "printed 'version 0.19.1rc1.dev257+gb075604da' (nightly image, 2026-04-14): a 0.19.1 pre-release",
               {"enable_prefix_caching": True, "language_model_only": True, "topk_topp_sampler": "flashinfer"}, None),
    "vp_962": ("0.19.1", "printed 'version 0.19.1rc1.dev257+gb075604da' (nightly image, 2026-04-14): a 0.19.1 pre-release",
               {"enable_prefix_caching": True, "language_model_only": True, "topk_topp_sampler": "flashinfer"}, None),
    "vp_963": ("0.19.1", "printed 'version 0.19.1rc1.dev257+gb075604da' (nightly image, 2026-04-14): a 0.19.1 pre-release",
               {"enable_prefix_caching": True, "language_model_only": True, "topk_topp_sampler": "flashinfer"}, None),
    # helper bl30 (2026-12-07, session 30): Scicom-AI-Enterprise-Organization/llm-benchmaq examples/6_multiprocess.ipynb
    # (3b483d5d), RunPod A100 80GB PCIe pods, meta-llama/Llama-3.1-8B-Instruct at util 0.9, vLLM 0.14.1; logs vl_1250 / vl_1251
    "vp_964": ("0.14.1", "printed 'vLLM API server version 0.14.1' and 'Initializing a V1 LLM engine (v0.14.1)'",
               {"gpu_catalog": {"gpu": "A100-PCIe-80GB", "note": "'gpu_type': 'NVIDIA A100 80GB PCIe' (the notebook's result "
                                "line for the pod): the catalog's A100-PCIe-80GB"}}, None),
    "vp_965": ("0.14.1", "printed 'vLLM API server version 0.14.1' and 'Initializing a V1 LLM engine (v0.14.1)'",
               # vLLM turned custom all-reduce off itself: 'lacks GPU P2P capability' (printed by both workers)
               {"disable_custom_all_reduce": True,
                "gpu_catalog": {"gpu": "A100-PCIe-80GB", "note": "'gpu_type': 'NVIDIA A100 80GB PCIe', 'gpu_count': 2 (the "
                                "notebook's result line for the pod): the catalog's A100-PCIe-80GB"}}, None),
    # helper bl30: Noptus/AIMO3's executed Kaggle AIMO3 demo notebook (2c4de4df): Qwen3-32B-FP8 offline LLM on Kaggle's H100,
    # whose CUDA total (79.44 GiB, printed) is above the catalog's H100 80GB; FlashInfer absent (printed): native sampler
    "vp_966": ("0.10.2", "printed 'Initializing a V1 LLM engine (v0.10.2)'",
               {"gpu_total_gib": 79.44, "topk_topp_sampler": "native"}, None),
    # helper bl30: dishantghai/ai-perf-hw3-spec-decode-quant (d1c3b59), Qwen3-8B bf16 / its FP8_DYNAMIC copy on one H100 80GB,
    # vLLM 0.20.0, prefix caching off, EAGLE-3 heads named by their config files (tests/validation/configs); logs vl_1253-vl_1269
    "vp_967": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"compile_cache": "warm", "enable_prefix_caching": False}, None),
    "vp_968": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"enable_prefix_caching": False, "speculative_config": "{\"method\": \"eagle3\", \"model\": \"dishantghai--Qwen3-8B-eagle3-head.json\", \"num_speculative_tokens\": 1, \"draft_tensor_parallel_size\": 1}"}, None),
    "vp_969": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"compile_cache": "warm", "enable_prefix_caching": False, "speculative_config": "{\"method\": \"eagle3\", \"model\": \"dishantghai--Qwen3-8B-eagle3-head.json\", \"num_speculative_tokens\": 2, \"draft_tensor_parallel_size\": 1}"}, None),
    "vp_970": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"compile_cache": "warm", "enable_prefix_caching": False, "speculative_config": "{\"method\": \"eagle3\", \"model\": \"dishantghai--Qwen3-8B-eagle3-head.json\", \"num_speculative_tokens\": 3, \"draft_tensor_parallel_size\": 1}"}, None),
    "vp_971": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"compile_cache": "warm", "enable_prefix_caching": False, "speculative_config": "{\"method\": \"eagle3\", \"model\": \"dishantghai--Qwen3-8B-eagle3-head.json\", \"num_speculative_tokens\": 4, \"draft_tensor_parallel_size\": 1}"}, None),
    "vp_972": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"enable_prefix_caching": False}, None),
    "vp_973": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"enable_prefix_caching": False, "speculative_config": "{\"method\": \"eagle3\", \"model\": \"dishantghai--Qwen3-8B-eagle3-head.json\", \"num_speculative_tokens\": 1, \"draft_tensor_parallel_size\": 1}"}, None),
    "vp_974": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"compile_cache": "warm", "enable_prefix_caching": False, "speculative_config": "{\"method\": \"eagle3\", \"model\": \"dishantghai--Qwen3-8B-eagle3-head.json\", \"num_speculative_tokens\": 2, \"draft_tensor_parallel_size\": 1}"}, None),
    "vp_975": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"compile_cache": "warm", "enable_prefix_caching": False, "speculative_config": "{\"method\": \"eagle3\", \"model\": \"dishantghai--Qwen3-8B-eagle3-head.json\", \"num_speculative_tokens\": 3, \"draft_tensor_parallel_size\": 1}"}, None),
    "vp_976": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"compile_cache": "warm", "enable_prefix_caching": False, "speculative_config": "{\"method\": \"eagle3\", \"model\": \"dishantghai--Qwen3-8B-eagle3-head.json\", \"num_speculative_tokens\": 4, \"draft_tensor_parallel_size\": 1}"}, None),
    "vp_977": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"compile_cache": "warm", "enable_prefix_caching": False, "speculative_config": "{\"method\": \"eagle3\", \"model\": \"dishantghai--Qwen3-8B-eagle3-head-32k.json\", \"num_speculative_tokens\": 2, \"draft_tensor_parallel_size\": 1}"}, None),
    "vp_978": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"enable_prefix_caching": False, "speculative_config": "{\"method\": \"eagle3\", \"model\": \"dishantghai--Qwen3-8B-eagle3-head.json\", \"num_speculative_tokens\": 2, \"draft_tensor_parallel_size\": 1}"}, None),
    "vp_979": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"enable_prefix_caching": False, "enable_chunked_prefill": False, "speculative_config": "{\"method\": \"eagle3\", \"model\": \"dishantghai--Qwen3-8B-eagle3-head.json\", \"num_speculative_tokens\": 2, \"draft_tensor_parallel_size\": 1}"}, None),
    "vp_980": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"compile_cache": "warm", "enable_prefix_caching": False, "speculative_config": "{\"method\": \"eagle3\", \"model\": \"dishantghai--Qwen3-8B-eagle3-head-32k.json\", \"num_speculative_tokens\": 2, \"draft_tensor_parallel_size\": 1}"}, None),
    "vp_981": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"compile_cache": "warm", "enable_prefix_caching": False, "speculative_config": "{\"method\": \"eagle3\", \"model\": \"dishantghai--Qwen3-8B-eagle3-head-32k.json\", \"num_speculative_tokens\": 3, \"draft_tensor_parallel_size\": 1}"}, None),
    "vp_982": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"compile_cache": "warm", "enable_prefix_caching": False, "speculative_config": "{\"method\": \"eagle3\", \"model\": \"dishantghai--Qwen3-8B-eagle3-head-32k.json\", \"num_speculative_tokens\": 1, \"draft_tensor_parallel_size\": 1}"}, None),
    "vp_983": ("0.20.0", "printed the banner 'version 0.20.0' and 'Initializing a V1 LLM engine (v0.20.0)'",
               {"compile_cache": "warm", "enable_prefix_caching": False, "speculative_config": "{\"method\": \"eagle3\", \"model\": \"dishantghai--Qwen3-8B-eagle3-head-32k.json\", \"num_speculative_tokens\": 2, \"draft_tensor_parallel_size\": 1}"}, None),
    # helper bl30: dcstang/eagle3-spec-dec (097df086), the same homework on an H100 under vLLM 0.24.0 (V2 model runner): the
    # FP8_DYNAMIC copy with the EAGLE-3 head output/checkpoints/4 (dcstang's config) at 1 token; FlashInfer sampler printed
    "vp_984": ("0.24.0", "printed the banner 'version 0.24.0' and 'Initializing a V1 LLM engine (v0.24.0)'",
               {"enable_prefix_caching": False, "topk_topp_sampler": "flashinfer",
                "speculative_config": '{"method": "eagle3", "model": "dcstang--eagle3-spec-dec-Qwen3-8B-head.json", "num_speculative_tokens": 1, "draft_tensor_parallel_size": 1}'},
               None),
    # helper bl30b (2026-12-07, session 30), added blind: lyell0710/vllmExperience's committed server logs (an agent-run
    # MoE / PD study on two RTX 4090s without P2P): Qwen2-7B-Instruct and Qwen1.5-MoE-A2.7B-Chat (tp 2, EP) and
    # Qwen3-30B-A3B-FP8 (tp 2, EP) on 0.25.1, Qwen1.5-MoE on the author's 0.26.1rc1 source build; vLLM turned custom
    # all-reduce off itself ('lacks GPU P2P capability', printed) and printed the FlashInfer top-p/top-k sampler
    "vp_1010": ("0.25.1", "printed the banner 'version 0.25.1' and 'Initializing a V1 LLM engine (v0.25.1)'",
                {"disable_custom_all_reduce": True, "topk_topp_sampler": "flashinfer"}, None),
    "vp_1011": ("0.25.1", "printed the banner 'version 0.25.1' and 'Initializing a V1 LLM engine (v0.25.1)'",
                {"enable_expert_parallel": True, "disable_custom_all_reduce": True, "topk_topp_sampler": "flashinfer"},
                None),
    "vp_1012": ("0.26.1", "printed 'version 0.26.1rc1.dev682+g7aa248fcf.d20260821' (the author's source build of "
                "2026-08-21): a 0.26.1 pre-release",
                {"enable_expert_parallel": True, "disable_custom_all_reduce": True, "topk_topp_sampler": "flashinfer"},
                None),
    "vp_1013": ("0.25.1", "printed the banner 'version 0.25.1' and 'Initializing a V1 LLM engine (v0.25.1)'",
                {"enable_expert_parallel": True, "disable_custom_all_reduce": True, "topk_topp_sampler": "flashinfer"},
                None),
    # helper bl30b, second batch: the tuned-MoE-config start of the 0.26.1rc1 build, Qwen3-30B-A3B-FP8 at 4,096 with and
    # without EPLB (not a tpkit input), the NIXL prefill instance (Qwen2-7B, one card), an eager Qwen2.5-0.5B profiler
    # smoke run, and the 0.17.1 P2pNcclConnector repro's prefill / decode instances (fp16, eager)
    "vp_1014": ("0.26.1", "printed 'version 0.26.1rc1.dev682+g7aa248fcf.d20260821' (the author's source build of "
                "2026-08-21): a 0.26.1 pre-release",
                {"compile_cache": "warm", "enable_expert_parallel": True, "disable_custom_all_reduce": True,
                 "topk_topp_sampler": "flashinfer"}, None),
    "vp_1015": ("0.25.1", "printed the banner 'version 0.25.1' and 'Initializing a V1 LLM engine (v0.25.1)'",
                {"enable_expert_parallel": True, "disable_custom_all_reduce": True, "topk_topp_sampler": "flashinfer"},
                None),
    # helper vr31 (session 31): --enable-eplb / --eplb-config became plan inputs (engines/vllm/eplb.py); the printed
    # non-default args, entered after the blind score (+28.8 %, kept in blind_scores.json)
    "vp_1016": ("0.25.1", "printed the banner 'version 0.25.1' and 'Initializing a V1 LLM engine (v0.25.1)'",
                {"enable_expert_parallel": True, "disable_custom_all_reduce": True, "topk_topp_sampler": "flashinfer",
                 "enable_eplb": True,
                 "eplb_config": '{"window_size": 50, "step_interval": 100, "num_redundant_experts": 0, '
                                '"log_balancedness": true, "log_balancedness_interval": 1, "use_async": true}'},
                None),
    "vp_1017": ("0.25.1", "printed the banner 'version 0.25.1' and 'Initializing a V1 LLM engine (v0.25.1)'",
                {"compile_cache": "warm", "topk_topp_sampler": "flashinfer"}, None),
    "vp_1018": ("0.25.1", "printed the banner 'version 0.25.1' and 'Initializing a V1 LLM engine (v0.25.1)'",
                {"topk_topp_sampler": "flashinfer"}, None),
    "vp_1019": ("0.17.1", "printed the banner 'version 0.17.1' and 'Initializing a V1 LLM engine (v0.17.1)'", {}, None),
    "vp_1020": ("0.17.1", "printed the banner 'version 0.17.1' and 'Initializing a V1 LLM engine (v0.17.1)'", {}, None),
    # helper bl32 (2026-12-07, session 32), added blind: nvmmonkey/vllm-blasst-turboquant-ltr-llm-llama31-latency's
    # docs/V025_SMOKE.md (fe8c5f9c): the LLM-class smoke probe (serving/v025_smoke/smoke_one.py) of vLLM 0.25.0 on one
    # RTX 3090 under WSL2: Llama-3.1-8B-Instruct bf16, util 0.85, 2,048, eager; VLLM_USE_FLASHINFER_SAMPLER=0 (native
    # sampler) and VLLM_WSL2_ENABLE_PIN_MEMORY=1 set by smoke_driver.sh; '36,640 tok KV' quoted
    "vp_1060": ("0.25.0", "quoted 'Initializing a V1 LLM engine (v0.25.0)'; install_v025.sh pins vllm==0.25.0",
                {"wsl2": True, "topk_topp_sampler": "native"}, None),
    # helper bl32b (2026-12-07, session 32), added blind: OSH-2026/KVFabric's vllm_performance_benchmark runs (eefe3a7d):
    # Qwen3.5-2B through `vllm bench throughput` (the LLM class) on one RTX 4060 Laptop GPU under WSL2, util 0.85,
    # 2,048, vision tower built (VLLM_LANGUAGE_MODEL_ONLY=1 is no 0.19.1 variable); vanilla and prefix-caching arms
    "vp_1086": ("0.19.1", "env.json 'vllm': '0.19.1' (the run's environment record)", {"wsl2": True}, None),
    "vp_1087": ("0.19.1", "env.json 'vllm': '0.19.1' (the run's environment record)",
                {"wsl2": True, "enable_prefix_caching": True}, None),
    # helper bl32b: ai-dynamo/dynamo's Qwen3.5-0.8B recipe validation (vllm-runtime 1.1.0 = vLLM 0.19.1, one H100-80GB):
    # deploy.yaml's worker flags; the printed num_gpu_blocks is a kv_blocks case
    "vp_1088": ("0.19.1", "the recipe README: 'registers in vLLM 0.19.1'; image vllm-runtime:1.1.0",
                {"enable_prefix_caching": True}, None),
    # helper bl33 (2026-12-07, session 33), added blind: ViniciusVR/vllm-benchmark's committed Slurm server log
    # (1a8453a9, job 611079): Llama-2-7b-chat-hf fp16 through the OpenAI server of vLLM 0.6.4.post1 (V0) on one H100 PCIe
    # (the job's nvidia-smi; gres nvidia_h100_pcie), util 0.85, 4,096; vLLM prints total_gpu_memory=79.18GiB
    "vp_1089": ("0.6.4", "printed 'vLLM API server version 0.6.4.post1' and 'Initializing an LLM engine (v0.6.4.post1)'",
                {"gpu_catalog": {"gpu": "H100-PCIe-80GB",
                                 "note": "'NVIDIA H100 PCIe', 81559MiB (the job's nvidia-smi; gres gpu:nvidia_h100_pcie:1): "
                                         "the catalog's H100-PCIe-80GB with the total vLLM prints (79.18 GiB)"},
                 "gpu_total_gib": 79.18}, None),
    # helper bl33 (2026-12-07, session 33), added blind: IsseiHasegawa/vLLM-experiment's committed server logs (bc304c6c):
    # Qwen2.5-0.5B / 7B-Instruct on RunPod A40s through the author's instrumented vLLM fork (main 702f4814 plus logging;
    # printed 'version 0.1.dev1849x', every printed source line 0.25.1's), tp 1 / 2 / 4 and pp 2; printed prefix caching
    # and async scheduling off, the FlashInfer sampler; warm where the log loads the AOT-compiled graphs
    # helper ac33: vp_1096-vp_1099 pass no_p2p: report/appendix/C_environment.md ('Multi-GPU workaround': NCCL_P2P_DISABLE=1
    # with --disable-custom-all-reduce, which these four logs print), so NCCL connects over SHM (no P2P transport)
    "vp_1090": ("0.25.1", "printed 'version 0.1.dev18495+g019e5d12b' (the author's fork of main 702f4814); "
                "0.25.1's source lines (gpu_worker.py:538, kv_cache_utils.py:2146, model_runner.py:302)",
                {"gpu_catalog": _ISSEI_A40, "topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "no_async_scheduling": True}, None),
    "vp_1091": ("0.25.1", "printed 'version 0.1.dev18496+gd4e0675a7' (the author's fork of main 702f4814); "
                "0.25.1's source lines (gpu_worker.py:538, kv_cache_utils.py:2146, model_runner.py:302)",
                {"gpu_catalog": _ISSEI_A40, "topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "no_async_scheduling": True}, None),
    "vp_1092": ("0.25.1", "printed 'version 0.1.dev18496+gd4e0675a7' (the author's fork of main 702f4814); "
                "0.25.1's source lines (gpu_worker.py:538, kv_cache_utils.py:2146, model_runner.py:302)",
                {"gpu_catalog": _ISSEI_A40, "topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "no_async_scheduling": True}, None),
    "vp_1093": ("0.25.1", "printed 'version 0.1.dev18496+gd4e0675a7' (the author's fork of main 702f4814); "
                "0.25.1's source lines (gpu_worker.py:538, kv_cache_utils.py:2146, model_runner.py:302)",
                {"gpu_catalog": _ISSEI_A40, "topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "no_async_scheduling": True, "compile_cache": "warm"}, None),
    "vp_1094": ("0.25.1", "printed 'version 0.1.dev18496+gd4e0675a7' (the author's fork of main 702f4814); "
                "0.25.1's source lines (gpu_worker.py:538, kv_cache_utils.py:2146, model_runner.py:302)",
                {"gpu_catalog": _ISSEI_A40, "topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "no_async_scheduling": True}, None),
    "vp_1095": ("0.25.1", "printed 'version 0.1.dev18496+gd4e0675a7' (the author's fork of main 702f4814); "
                "0.25.1's source lines (gpu_worker.py:538, kv_cache_utils.py:2146, model_runner.py:302)",
                {"gpu_catalog": _ISSEI_A40, "topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "no_async_scheduling": True, "compile_cache": "warm"}, None),
    "vp_1096": ("0.25.1", "printed 'version 0.1.dev18496+gd4e0675a7' (the author's fork of main 702f4814); "
                "0.25.1's source lines (gpu_worker.py:538, kv_cache_utils.py:2146, model_runner.py:302)",
                {"gpu_catalog": _ISSEI_A40, "topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "no_async_scheduling": True, "disable_custom_all_reduce": True, "no_p2p": True}, None),
    "vp_1097": ("0.25.1", "printed 'version 0.1.dev18496+gd4e0675a7' (the author's fork of main 702f4814); "
                "0.25.1's source lines (gpu_worker.py:538, kv_cache_utils.py:2146, model_runner.py:302)",
                {"gpu_catalog": _ISSEI_A40, "topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "no_async_scheduling": True, "disable_custom_all_reduce": True, "no_p2p": True}, None),
    "vp_1098": ("0.25.1", "printed 'version 0.1.dev18496+gd4e0675a7' (the author's fork of main 702f4814); "
                "0.25.1's source lines (gpu_worker.py:538, kv_cache_utils.py:2146, model_runner.py:302)",
                {"gpu_catalog": _ISSEI_A40, "topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "no_async_scheduling": True, "disable_custom_all_reduce": True, "no_p2p": True}, None),
    "vp_1099": ("0.25.1", "printed 'version 0.1.dev18496+gd4e0675a7' (the author's fork of main 702f4814); "
                "0.25.1's source lines (gpu_worker.py:538, kv_cache_utils.py:2146, model_runner.py:302)",
                {"gpu_catalog": _ISSEI_A40, "topk_topp_sampler": "flashinfer", "enable_prefix_caching": False, "no_async_scheduling": True, "disable_custom_all_reduce": True, "no_p2p": True, "compile_cache": "warm"}, None),
    # helper bl33: Huzifa1/vllm-profiling's node7 kv_cache_profiling runs (d3d7fb74): engine.py (LLMEngine) on vLLM 0.10.1.1
    # plus timing logs, one H100 NVL, defaults (util 0.9, the model's length); printed max_num_batched_tokens 2048,
    # max_num_seqs SchedulerConfig's 128 (ENGINE_CONTEXT), the PyTorch-native sampler (FlashInfer not installed)
    "vp_1100": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048,
                 "max_num_seqs": 128}, None),
    "vp_1101": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048,
                 "max_num_seqs": 128}, None),
    "vp_1102": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048,
                 "max_num_seqs": 128}, None),
    "vp_1103": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048,
                 "max_num_seqs": 128}, None),
    "vp_1104": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048,
                 "max_num_seqs": 128}, None),
    "vp_1105": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048,
                 "max_num_seqs": 128}, None),
    "vp_1106": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048,
                 "max_num_seqs": 128}, None),
    # helper bl33: the same study's A100-PCIE-40GB (vLLM 0.9.2, warm compile cache) and node5 L40S (0.10.1.1, torch.compile
    # disabled) starts of Llama-2-7b / Llama-3.2-3B, defaults
    "vp_1107": ("0.9.2", "printed 'Initializing a V1 LLM engine (v0.9.2)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_A100, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128, "compile_cache": "warm"}, None),
    "vp_1108": ("0.9.2", "printed 'Initializing a V1 LLM engine (v0.9.2)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_A100, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128, "compile_cache": "warm"}, None),
    "vp_1109": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_L40S, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128}, None),
    "vp_1110": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_L40S, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128}, None),
    # helper bl34b (2026-12-07, session 34), added blind: cmontemuino/amd-mi300x-ml-benchmarks' committed run logs
    # (40ecc2fb, datasets/sample-results/logs/): benchmark_latency.py (offline LLM) in rocm/vllm:rocm6.4.1_vllm_0.9.1_20250715
    # with VLLM_USE_V1=0, Llama-3.1-8B-Instruct fp16 on one MI300X, 131,072, util 0.8 / 0.9; the engine prints
    # chunked_prefill_enabled=False (0.9's V0 turns it on above 32K on CUDA only)
    **{cid: ("0.9.2:v0", "printed 'Initializing a V0 LLM engine (v0.9.2.dev364+gb432b7a28)' (the image's ROCm build "
                         "between 0.9.1 and 0.9.2, as vp_174) with VLLM_USE_V1=0 in the command",
             {"enable_chunked_prefill": False}, None) for cid in ("vp_1136", "vp_1137")},
    # helper bl35 (2026-12-07, session 35), added blind: Placidoe/vllm-t4-lab's single-T4 baseline report (b7565930,
    # reports/2026-09-25-single-t4-baseline.md; the run's notebook pins vllm==0.18.0): Qwen2.5-1.5B-Instruct fp16 on a
    # Kaggle T4 (14.56 GiB: the repository's measurement JSON), offline LLM class, util 0.70, 2048, eager, TRITON_ATTN
    "vp_1138": ("0.18.0", "pinned `pip install vllm==0.18.0` in the run's notebook; the report's 'vLLM 0.18.0'",
                {"gpu_total_gib": 14.56}, None),
    # helper bl35 (2026-12-07, session 35), added blind: yhavinga/vllm-gemma-int8-kv-rtx3090's TP=1 / TP=2 reports
    # (722e7483, research/07-12b-… / 08-4b-tensor-parallel-comparison.md): RedHatAI gemma-3-12b / 4b-it-quantized.w4a16 on
    # two RTX 3090 (NVLink NV4), vLLM 0.17.1 (the reports' header), 8192, util 0.90, FULL_DECODE_ONLY graphs; configs assembled
    **{cid: ("0.17.1", "the report's header 'vLLM: 0.17.1' (no banner committed)",
             {"cudagraph_capture_sizes": [1, 2, 4, 8, 16, 32], "max_cudagraph_capture_size": 32}, None)
       for cid in ("vp_1139", "vp_1140", "vp_1141", "vp_1142")},
    # helper bl35: MharoonZ/gemma4-modal-vllm-inference's committed console (a4cf2a92): google/gemma-4-E4B-it on Modal's
    # L40S (the wrapper prints the GPU), vLLM 0.19.0, 4096, text-only (--limit-mm-per-prompt all 0), warm compile cache
    "vp_1143": ("0.19.0", "printed 'Initializing a V1 LLM engine (v0.19.0)' and the banner 'version 0.19.0'",
                {"limit_mm_per_prompt": '{"image": 0, "video": 0, "audio": 0}', "compile_cache": "warm"}, None),
    # helper bl35: josemendozaorg/homelab-android19's vLLM report (4b5d89ee): Qwen2.5-7B-Instruct-AWQ on an RTX 5060 Ti
    # 16 GB passed through to a Proxmox VM, vLLM 0.11.0 (the report's header), util 0.85, 32,768, defaults otherwise
    "vp_1144": ("0.11.0", "the report's header 'vLLM Version: 0.11.0' (no banner committed)",
                {"gpu_catalog": {"gpu": "RTX-5060-Ti-16GB", "note": "'GPU: NVIDIA GeForce RTX 5060 Ti (16GB GDDR7)', "
                                 "'VRAM Usage 14.3GB / 16.3GB' (the report): the catalog's RTX-5060-Ti-16GB"}}, None),
    # helper bl36 (2026-12-07, session 36), added blind: round bl24's lead (SpecDecoding-Study's A100 40GB starts that no
    # case had, left for want of ids; logs vl_1030-vl_1033): Llama-3.1-8B fp16, util 0.85, 8,192, 8,192 batched tokens,
    # prefix caching off; EAGLE-3 eager, the same with fp8 KV, the model alone eager, EAGLE-3 with cudagraph_mode NONE
    **{f"vp_{n}": ("0.24.0", "printed 'version 0.24.0' / 'Initializing a V1 LLM engine (v0.24.0)'",
                   {"enable_prefix_caching": False, **({"speculative_config": _BL24_E3} if n != 1147 else {})}, None)
       for n in range(1145, 1149)},
    # helper bl36: sridhar1804/local-ai's committed server log (vl_138): Phi-3-mini-4k-instruct fp16 on an RTX 3090 under
    # WSL2 (the repository's session notes of the log's date), vLLM 0.19.1, util 0.85, 4,096
    "vp_1149": ("0.19.1", "printed 'version 0.19.1' / 'Initializing a V1 LLM engine (v0.19.1)'", {"wsl2": True}, None),
    # helper bl36: fpolica91/triton-example's committed vllm.log (vl_109): MiniMax-M2.5 block-FP8 on 4 x MI300X (printed in
    # the W8A8 kernel config paths), vLLM 0.16.0 ROCm, eager, util 0.92, 131,072, 32 sequences, custom all-reduce off
    "vp_1150": ("0.16.0", "printed 'version 0.16.0' / 'Initializing a V1 LLM engine (v0.16.0)'", {}, None),
    # helper bl36: ReidHarris/sql-agent-rl's committed vllm.log (vl_108): Qwen2.5-Coder-1.5B-Instruct fp16 on a GPU whose
    # printed total is 39.49 GiB (an A100 40GB), vLLM 0.31.0 Model Runner V2, default util 0.92, 16,384
    "vp_1151": ("0.31.0", "printed 'version 0.31.0' / 'Initializing a V1 LLM engine (v0.31.0)'", {"gpu_total_gib": 39.49}, None),
    # helper bl36b (2026-12-07, session 36), added blind: ajith-sirra-amd/InferenceMAX_Rocm_Team (59882861), the committed
    # server.log files of the 'agentic' Kimi-K2.5 NVFP4 sweep on B200 (vLLM 0.22.0, util 0.9, fp8 KV, CUDA graphs to
    # 2,048), the offload-none arm: tp 8 at --max-num-seqs 1 (vp_1061 = vl_1111), tp 4 at 8 (vp_1062 = vl_1112)
    **{f"vp_{n}": ("0.22.0", "printed 'version 0.22.0' / 'Initializing a V1 LLM engine (v0.22.0)'", {}, None)
       for n in (1061, 1062)},
    # helper bl36b: the same repository's MXFP4 sweeps on MI355X (AMD Quark MXFP4 checkpoints; configs assembled from the
    # base models, see their _assembled_note): amd/MiniMax-M2.5-MXFP4 tp 1 at --max-num-seqs 1 / 16 (vLLM 0.22.0,
    # ROCM_AITER_FA, --block-size 32, util 0.95; vp_1063 = vl_1107, vp_1064 = vl_1108) and amd/Kimi-K2.5-MXFP4 tp 4 at
    # 1 / 16 (vLLM 0.21.0, --block-size 1, util 0.9; vp_1065 = vl_1109, vp_1066 = vl_1110), fp8 KV throughout
    **{f"vp_{n}": ("0.22.0", "printed 'version 0.22.0' / 'Initializing a V1 LLM engine (v0.22.0)'", {}, None)
       for n in (1063, 1064)},
    **{f"vp_{n}": ("0.21.0", "printed 'version 0.21.0' / 'Initializing a V1 LLM engine (v0.21.0)'", {}, None)
       for n in (1065, 1066)},
    # helper bl36b: TW-10519/VLLM-ROUTER's committed logs/vllm.log (43179adf; explain corpus vl_134): gpt-oss-20b
    # (huihui-ai's abliterated MXFP4 fine-tune) on a GB10 in NVIDIA's 26.01 container, util 0.25, 8,192, prefix caching
    "vp_1067": ("0.13.0", "printed 'vLLM API server version 0.13.0+faa43dbf.nv26.01' (NVIDIA's 26.01 container build)",
                {"gpu_catalog": {"gpu": "GB10", "note": "printed by the start script: '✅ NVIDIA GPU: NVIDIA GB10': the "
                                 "catalog's GB10 (DGX Spark class, unified memory)"}}, None),
    # helper bl37 (2026-12-07, session 37), added blind: vLLM's own recipe for Kimi-K2-Thinking (vllm-project/recipes
    # 8959cf64, moonshotai/Kimi-K2-Think.md 'DCP Gain Analysis'): the quoted start-up lines of TP8 and TP8+DCP8 on
    # 8 x H200, serve defaults (util 0.9, the model's 262,144); release from the printed source lines (0.11.1 / 0.11.2's)
    "vp_1152": ("0.11.1", "not printed; source lines gpu_worker.py:349 / kv_cache_utils.py:1229 (0.11.1-0.11.2's, "
                "vp_301 / vp_120), runs dated 11-06 2025 (the 0.11.1 cycle)", {}, None),
    "vp_1153": ("0.11.1", "not printed; source lines gpu_worker.py:349 / kv_cache_utils.py:1224 and :1229 (0.11.1-0.11.2's, "
                "vp_301 / vp_120), runs dated 11-06 2025 (the 0.11.1 cycle)", {"decode_context_parallel_size": 8}, None),
    # helper bl38 (2026-12-08, session 38), added blind: a Chinese vLLM study report (search-index file 69080973712,
    # 'Week1 学习报告', 2026-09-08) on one A100 80GB PCIe with vLLM 0.28.0: Qwen3.5-0.8B and Qwen3.8-27B through the
    # offline LLM class (defaults: util 0.92, the config's 262,144) and Qwen3.5-0.8B through the API server (0.85, 8,192)
    "vp_1154": ("0.28.0", "printed 'Initializing a V1 LLM engine (v0.28.0)' (the report's §5.1) and its software table", {"gpu_catalog": {"gpu": "A100-PCIe-80GB", "note": "'A100 80GB PCIe ×1, 架构 sm_80' (the report's hardware section, node-worker-147): the catalog's A100-PCIe-80GB"}}, None),
    "vp_1155": ("0.28.0", "the same report and install (vLLM 0.28.0, uv wheel)", {"gpu_catalog": {"gpu": "A100-PCIe-80GB", "note": "'A100 80GB PCIe ×1, 架构 sm_80' (the report's hardware section, node-worker-147): the catalog's A100-PCIe-80GB"}}, None),
    "vp_1156": ("0.28.0", "printed banner 'vllm version 0.28.0' (§6.2) and system_fingerprint 'vllm-0.28.0-435c0409'", {"gpu_catalog": {"gpu": "A100-PCIe-80GB", "note": "'A100 80GB PCIe ×1, 架构 sm_80' (the report's hardware section, node-worker-147): the catalog's A100-PCIe-80GB"}}, None),
    # helper bl34 (2026-12-07, session 34): Huzifa1/vllm-profiling's vLLM release sweep (experiments/node7/examples/versions, figures/figure-1): facebook/opt-6.7b
    # on node7's one H100 NVL at 0.3.1, 0.4.0, 0.5.0, 0.6.0 (V0), 0.8.0, 0.9.0, 0.10.0, 0.10.1.1 and 0.11.0 (V1), defaults
    "vp_1111": ("0.3.1", "not printed (0.3.x's 'Initializing an LLM engine with config' carries no version); the study's file name v0.3.1 in its release sweep (versions/calc_avg_results.py: 'handle the differences in vLLM versions'), and the 0.3-era print and source lines (llm_engine.py:79 / :337, no version in the engine line)",
                {"gpu_catalog": _HUZ_H100NVL}, None),
    "vp_1112": ("0.4.0", "printed 'Initializing an LLM engine (v0.4.0)'",
                {"gpu_catalog": _HUZ_H100NVL}, None),
    "vp_1113": ("0.5.0", "printed 'Initializing an LLM engine (v0.5.0)'",
                {"gpu_catalog": _HUZ_H100NVL}, None),
    "vp_1114": ("0.6.0", "printed 'Initializing an LLM engine (v0.6.0)'",
                {"gpu_catalog": _HUZ_H100NVL}, None),
    "vp_1115": ("0.8.0", "printed 'Initializing a V1 LLM engine (v0.8.0)'",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 1024}, None),
    "vp_1116": ("0.9.0", "printed 'Initializing a V1 LLM engine (v0.9.0)'",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 1024}, None),
    "vp_1117": ("0.10.0", "printed 'Initializing a V1 LLM engine (v0.10.0)'",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128}, None),
    "vp_1118": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (the file is named v0.11.0; the study's timing lines 'NEW: … took' show its patched 0.10.1.1)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128, "compile_cache": "warm"}, None),
    "vp_1119": ("0.11.0", "printed 'Initializing a V1 LLM engine (v0.11.0)' (the venv path .venv-0.11.0)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128, "compile_cache": "warm"}, None),
    # helper bl34 (2026-12-07, session 34): Huzifa1/vllm-profiling's families the set is thin on: granite-4.0-h-micro (Mamba-2 hybrid) and
    # DeepSeek-V2-Lite (MLA) on node7's H100 NVL, Llama-3.1-8B-Instruct there, Mistral-7B-v0.1 on the A100-PCIE-40GB (0.10.0), node5's L40S and node7
    "vp_1120": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "flashinfer", "max_num_batched_tokens": 2048, "max_num_seqs": 128, "enable_prefix_caching": False, "compile_cache": "warm"}, None),
    "vp_1121": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128}, None),
    "vp_1122": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128}, None),
    "vp_1123": ("0.10.0", "printed 'Initializing a V1 LLM engine (v0.10.0)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_A100, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128, "compile_cache": "warm"}, None),
    "vp_1124": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_L40S, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128, "compile_cache": "warm"}, None),
    "vp_1125": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128, "compile_cache": "warm"}, None),
    # helper bl34 (2026-12-07, session 34): Huzifa1/vllm-profiling: in-flight bitsandbytes nf4 of Llama-2-7b-hf and Mistral-7B-v0.1 on node7's H100 NVL
    # (quantization experiment), and the A100-PCIE-40GB pair vp_1107 / vp_1108 with the compile cache empty (not_cached)
    "vp_1126": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128, "quantization": "bitsandbytes", "compile_cache": "warm"}, None),
    "vp_1127": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128, "quantization": "bitsandbytes", "compile_cache": "warm"}, None),
    "vp_1128": ("0.9.2", "printed 'Initializing a V1 LLM engine (v0.9.2)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_A100, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128}, None),
    "vp_1129": ("0.9.2", "printed 'Initializing a V1 LLM engine (v0.9.2)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_A100, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128}, None),
    # helper bl34 (2026-12-07, session 34): Huzifa1/vllm-profiling: Llama-2-13b-hf on node7's H100 NVL, node5's L40S and the A100-PCIE-40GB (warm
    # and cold compile cache), and Llama-2-13b-hf / Llama-3.2-3B at tensor parallel 2 on node5's two L40S (multi_gpu)
    "vp_1130": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_L40S, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128}, None),
    "vp_1131": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_L40S, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128}, None),
    "vp_1132": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_H100NVL, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128}, None),
    "vp_1133": ("0.10.1.1", "printed 'Initializing a V1 LLM engine (v0.10.1.1)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_L40S, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128}, None),
    "vp_1134": ("0.9.2", "printed 'Initializing a V1 LLM engine (v0.9.2)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_A100, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128, "compile_cache": "warm"}, None),
    "vp_1135": ("0.9.2", "printed 'Initializing a V1 LLM engine (v0.9.2)' (plus the study's timing logs)",
                {"gpu_catalog": _HUZ_A100, "topk_topp_sampler": "native", "max_num_batched_tokens": 2048, "max_num_seqs": 128}, None),
}

_A100_QWEN_MTP = {"speculative_algorithm": "EAGLE", "speculative_num_steps": 5, "speculative_eagle_topk": 1,
                  "speculative_num_draft_tokens": 6, "cuda_graph_max_bs": 4,
                  "gpu_catalog": {"gpu": "A100-PCIe-80GB", "note": "'2× A100 80GB PCIe (SM 8.0, TP=1, dense)' (the "
                                  "deployment's Qwen3.8 upgrade note), one replica per card: the catalog's A100-PCIe-80GB"}}
"""helper sgb14: the flags of the A100 deployment's EAGLE-on-MTP boots (gs_259-gs_267) that SglangOptions takes beside the
raw records' fraction, context, page size, chunk and running cap: EAGLE 5/1/6 (its OPERATIONS rollback block) and decode
CUDA graphs to 4 (--cuda-graph-max-bs-decode 4)"""
_EAGLE_3_1_4 = {"speculative_num_steps": 3, "speculative_eagle_topk": 1, "speculative_num_draft_tokens": 4}
"""the July boots' depth: steps 3 and draft tokens 4 (the results log), top-k 1 (SGLang's own choice for this target)"""

GS22_HAMI_SLICE_GIB = 38000 / 1024  # a HAMi slice of nvidia.com/gpumem 38000 (MiB), in GiB (gs_342-gs_344)

A6000_BY_ELIMINATION = {'gpu_assumed': {'candidates': ['RTX-A6000'],
                        'gpu': 'RTX-A6000',
                        'note': 'not named: every start on this machine (the notebooks Chayenne committed '
                                '2024-10-30 / 11-01, run under /home/chenyang 2024-10-28 ... 10-31; '
                                "sg_269's 509,971 too) prints 'Load weight begin. avail mem=47.27 GB' at "
                                'tp 1, the same figure on four days, so the card was empty. 47.27 GiB '
                                'free after the CUDA context leaves one catalog card: RTX A6000 (47.54 '
                                'GiB CUDA total, 0.27 GiB for the context); RTX 6000 Ada (47.37) would '
                                'leave 0.10 GiB, less than any CUDA context, and L40S / L40 / A40 '
                                '(44.3-44.4) hold less than 47.27. Planned on the RTX A6000, by '
                                'elimination'}}
"""gs_679 / gs_680's GPU (round gs32c): one machine, one evidence note"""

SGLANG_PUBLIC = {
    "gs_001": ("0.4.10", "log dated 2025-08-08 (v0.4.10 era, guessed from the date)", {}, None),
    "gs_002": ("0.4.10", "image lmsysorg/sglang:v0.4.10.post1-cu128-b200, SGLang rebuilt from a source checkout of "
                         "2025-08 (v0.4.10 era)", {}, None),
    "gs_003": ("0.4.9.post3", "PR #8258 branch of 2025-07-22 (after v0.4.9.post2, before v0.4.10; guessed)", {}, None),
    "gs_004": ("0.5.18", "printed by the pip install step (sglang 0.5.18)", {}, None),
    "gs_005": ("0.5.19", "image lmsysorg/sglang:v0.5.19 (printed by the image pull)", {}, None),
    "gs_006": ("0.4.2.post1", "the notes' install step got sglang-0.4.2.post1 (runs of 2025-02-03)", {}, None),
    # gs_007/008/009/011/012 re-read by helper npr (2026-12-03): what blocks each now (DP attention, speculative
    # decoding and the MI355X are modelled / catalogued on this branch)
    # gs_007 / gs_008 / sg_067: GPU not empty at start (other processes held memory).  Scored since helper npred
    # (2026-12-04) from the free memory the log prints before the weights, taken as the machine profile `tpkit plan
    # --machine` reads (``free_at_start``: the figure, its printed line; harness.machine_of)
    "gs_007": ("0.5.10.post1", "check_environment.py prints sglang: 0.5.10.post1",
               {"config_file": "Qwen--Qwen2.5-0.5B-Instruct.json", "config_confidence": "verbatim",
                "gpu_catalog": {"gpu": "H100-NVL", "note": "H100 NVL (94 GB): the catalog's H100-NVL-94GB"},
                "free_at_start": FREE_AT_START_H100NVL}, None),
    "gs_008": ("0.5.13.post1", "environment block of the tutorial (sglang 0.5.13.post1)",
               {"config_file": "OpenBMB--MiniCPM5-1B.json",  # helper cfg3 (2026-12-04): assembled, its note
                "config_confidence": "assembled (architecture fields from public code; bf16 assumed)",
                "gpu_catalog": {"gpu": "RTX-4090", "note": "RTX 4090 D (24 GB, the RTX 4090's memory): the catalog's "
                                                         "RTX-4090"},
                "free_at_start": {
                    "gib": 13.22,
                    "line": "[22:24:31] Load weight end. elapsed=0.95 s, type=LlamaForCausalLM, avail mem=11.06 GB, "
                            "mem usage=2.16 GB.",
                    "evidence": "SGLang's pre_model_load_memory = 'Load weight end' avail 11.06 + the load's mem usage "
                                "2.16 = 13.22 GiB (SGLang prints GiB as 'GB'); the excerpt has no 'Load weight "
                                "begin' line; of a 23.65 GiB RTX 4090 (D), so other processes held ~10 GiB"}}, None),
    "gs_009": ("0.4.6", "issue title ('sglang0.4.6')",
               {"gpu_assumed": {
                   "gpu": "A100-SXM-80GB", "candidates": ["A100-SXM-80GB", "H100-SXM-80GB"],
                   "note": "GPU not named in the thread; 78.84 GiB free before load fits the 80 GB class only "
                           "(A100-80GB or H100-80GB: 79.15 / 79.19 GiB CUDA totals). Planned on the first candidate; "
                           "every candidate's prediction lies inside the others' bands (helper npr, 2026-12-03; "
                           "tests/validation/test_validation_set.py checks it), so the memory class alone decides"}},
               None),
    "gs_010": ("0.5.18", "printed by the pip install step (sglang 0.5.18); config: the issue-12 corpus copy (partial, "
                         "architecture fields; helper val, 2026-12-01)", {}, None),
    "gs_011": ("0.5.4", "PR #11309's branch of 2025-10-07 (0.5.3 + the indexer term in the cell); 0.5.4 is the "
                        "first release with it (helper dsa, 2026-12-03; sglang 0.5.3/0.5.4 wheels)",
               {"config_file": "deepseek-ai--DeepSeek-V3.2.json", "enable_dp_attention": True,
                "config_confidence": "assumed model: DeepSeek-V3.2's whole config.json (same DeepseekV32ForCausalLM "
                                     "geometry; no V3.2-Exp config found, helper dsa 2026-12-03)"}, None),
    "gs_012": (None, "", {"gpu_note": "unknown SM100-class Blackwell (the log's 'SM100 GPUs') with 275.75 GiB free "
                                      "before load: more than the B200 or B300 CUDA totals"},
               "GPU not named (the log says only 'SM100 GPUs'): 275.75 GiB free before load exceeds the "
                             "B200's 178.35 GiB and the 267.69 GiB CUDA total of the 288 GB Blackwell parts (B300/GB300; "
                             "public CUDA OOM messages, GitHub code-search index file ids 66974703316, 66068615294), so "
                             "no known GPU fits and its total is unknown. Re-read by helper cat20 (2026-12-06): the GB300 "
                             "of NVL72 trays prints a larger nvidia-smi total, 284,208 MiB = 277.55 GiB ('4x NVIDIA "
                             "GB300, 284208 MiB each', code-search id 61984871060; id 71480380592), which 275.75 GiB "
                             "free fits (the DGX Station's GB300 prints 256,703 MiB, ids 58760980110, 58521305024); no "
                             "CUDA total of that GB300 was found, so it is not in the catalog, and the release (main of "
                             "2026-05, guessed) and mem_fraction_static (the default, sized by the GPU's memory) are "
                             "not printed: still not predicted"),
    # docs-CI builds of other release eras (helper val, 2026-12-01; read from the Stars1233 fork's history)
    "gs_013": ("0.3.5", "docs build 2024-11-06 (v0.3.5 era)", {}, None),
    "gs_014": ("0.3.4.post2", "docs build 2024-10-31 (main after v0.3.4.post2, before v0.3.5)", {}, None),
    "gs_015": ("0.4.0", "docs build 2024-12-06 (v0.4.0 era)", {}, None),
    "gs_016": ("0.4.2", "docs build 2025-01-31 (v0.4.2 era; the build of sg_007)", {}, None),
    # helper new (2026-12-03): public start-ups of issue 11/12's second search (their logs are also in
    # tests/logs/data/sglang/ under the same ids)
    "sg_065": ("0.5.6", "source checkout of 2025-11-30 (3 days before the 0.5.6 release, PyPI dates; guessed)",
               {"cuda_graph_max_bs": 512}, None),
    "sg_066": (None, "", {}, "GPU not named and mem_fraction_static not in the stored excerpt (DP attention, tp 4 / "
                             "dp 4 / ep 4); no config of the FP8 checkpoint in the set"),
    "sg_067": ("0.5.10.post1", "printed by check_environment.py (the README also names 0.5.14)",
               {"config_file": "Qwen--Qwen2.5-0.5B-Instruct.json", "config_confidence": "verbatim",
                "gpu_catalog": {"gpu": "H100-NVL", "note": "the log's 'GPU 0,1,2,3,4,5,6,7: NVIDIA H100 NVL': the "
                                                         "catalog's H100-NVL-94GB"},
                "free_at_start": FREE_AT_START_H100NVL}, None),
    # helper new2 (2026-12-04): public start-ups of releases / GPUs the set had few of
    "gs_017": ("0.5.18", "the report's environment table (SGLang 0.5.18)", {}, None),
    "gs_018": ("0.5.13.post1", "the report's environment list (SGLang 0.5.13.post1)",
               {"disable_custom_all_reduce": True}, None),  # --disable-custom-all-reduce in the launch command
    # helper new5 (2026-12-04): public start-ups of models / releases the set had few of
    "gs_019": ("0.4.4", "PR branch of 2025-03-27 (main between v0.4.4 and v0.4.5, as sg_013)", {}, None),
    # helper new7 (2026-12-04): a server log committed to a public repository
    "gs_020": ("0.5.7", "a 0.5.7 source build (the log's paths: src/sglang_0.5.7/...; FlashInfer 0.5.3, 0.5.7's pin)",
               {}, None),
    # helper sgx (2026-12-04): a public start-up of a GPU the set had none of (RTX 4070 Ti SUPER under WSL2)
    "gs_030": ("0.5.8", "the presentation's environment table (SGLang 0.5.8; line formats agree)",
               # helper q21s1 (2026-12-05): WSL2: nvidia-smi's total (_wsl2_total), and the card was not empty (the
               # author's nvidia-smi: 1,740 MiB used by the Windows desktop), so the free memory SGLang prints before
               # the weights is the start (free_at_start, harness.machine_of)
               {"gpu_catalog": {"gpu": "RTX-4070-Ti-SUPER", "note": "named in the environment table ('NVIDIA RTX "
                                "4070 Ti SUPER (16GB)', Windows 11 + WSL2): the catalog's RTX-4070-Ti-SUPER"},
                "wsl2": True,
                "free_at_start": {
                    "gib": 14.70, "line": "[2026-04-14 01:02:18] Load weight begin. avail mem=14.70 GB",
                    "evidence": "SGLang's pre_model_load_memory ('Load weight begin. avail mem', GiB printed as 'GB') "
                                "under WSL2, where the Windows desktop holds part of the card (1,740 MiB used in the "
                                "author's nvidia-smi before the start)"}}, None),
    # helper sgy (2026-12-04): engine logs committed to a public repository (StevenWang-CY/sglang-attention-
    # reproducibility, page-size study), a GPU the set had none of (RTX 5060 Ti, SM120)
    "gs_050": ("0.5.9", "a main build between 0.5.9 and 0.5.10 (ServerArgs fields: enable_mm_global_cache of 0.5.10 "
                        "next to hierarchical_sparse_attention_extra_config / speculative_ngram_branch_length of 0.5.9); "
                        "tpkit's rules for 0.5.9",
               {"gpu_catalog": {"gpu": "RTX-5060-Ti-16GB", "note": "named by the repository's raw-data folder "
                                "('report-14-shared-prefix-page-kernel-rtx5060ti'); the log prints compute capability "
                                "12.0 and 15.16 GiB free before loading: the catalog's RTX-5060-Ti-16GB"}}, None),
    "gs_051": ("0.5.9", "the same build as gs_050 (same venv and day; the same ServerArgs fields)",
               {"gpu_catalog": {"gpu": "RTX-5060-Ti-16GB", "note": "as gs_050 (same folder, same host, three minutes "
                                "later)"}}, None),
    "gs_052": ("0.5.15", "a source build dated 2026-07-17 (venv 'sglang_0b2e'): cuda_graph_config (absent in the 0.5.13 "
                         "wheel, present in 0.5.20) and elastic_ep_rejoin (gone in 0.5.23) in its ServerArgs; tpkit's "
                         "0.5.15 era",
               {"gpu_catalog": {"gpu": "RTX-5060-Ti-16GB", "note": "inferred: same host and user as gs_050/gs_051 two "
                                "days later, same 15.16 GiB free before loading, an SM120 FlashInfer cache ('0.6.6/120a')"}},
               None),
    "gs_053": ("0.5.5", "a source checkout of main between 0.5.5 and 0.5.6 (ServerArgs fields; FlashInfer 0.5.2): tpkit's "
                        "0.5.3 era, whose rules 0.5.5 and 0.5.6 share", {}, None),
    # helper sgz (2026-12-04): logs of public notes and committed server logs (round sgz)
    "gs_070": ("0.5.10", "printed by the note: SGLang 0.0.0.dev11582+g4df60434d, a main build run 2026-04-14, nine days "
                         "after 0.5.10 (2026-04-05): tpkit's 0.5.10 era",
               {"gpu_catalog": {"gpu": "RTX-4090", "note": "named by the note ('5x RTX 4090 (24GB each)'); the two "
                                "cards used were empty at start (nvidia-smi before the launch)"}}, None),
    # helper mv15 (2026-12-04): MI355X runs of two public READMEs (search-index ids 65830671609, 65732309288): the
    # pip route of sglang 0.5.17 on ROCm 7.2 (kernels shimmed, pools sized) and the official ROCm image
    "gs_140": ("0.5.17", "printed by the README's install step (pip install --no-deps sglang==0.5.17)", {}, None),
    "gs_141": ("0.5.17", "printed by the README's install step (pip install --no-deps sglang==0.5.17)",
               {"disable_radix_cache": True}, None),
    "gs_142": ("0.5.17", "printed inside the image: 0.5.17.dev20260819+g574274660f (rules 0.5.17)", {}, None),
    "gs_143": ("0.5.17", "printed inside the image: 0.5.17.dev20260819+g574274660f (rules 0.5.17)", {}, None),
    # helper mv13 (2026-12-04): cli991/qwctest's committed nohup log sglang.txt (release from the ServerArgs field set);
    # log also sg_200
    "gs_130": ("0.5.9", "ServerArgs field set = the 0.5.9 wheel's (0.5.8 lacks attn_cp_size / mamba_backend; 0.5.10 "
                        "drops speculative_ngram_min_match_window_size)",
               {"gpu_assumed": {
                   "gpu": "A100-SXM-80GB", "candidates": ["A100-SXM-80GB", "H100-SXM-80GB"],
                   "note": "GPU not named (cli991/qwctest); 78.64 GiB available before the load, after a 0.08 GiB "
                           "distributed init, fits the 80 GB class only (A100-80GB or H100-80GB: 79.15 / 79.19 GiB CUDA "
                           "totals). Planned on the first candidate; every candidate's prediction lies inside the "
                           "others' bands (tests/validation/test_validation_set.py checks it)"}}, None),
    # helper mv19 (2026-12-04): the other uncapped docs-CI start-ups of the Stars1233 fork's history (count not within
    # 2 tokens of one in the set); logs also sg_259-sg_268. Releases by build date, as sg_001-sg_008 / gs_013-gs_016
    "gs_160": ("0.4.0", "docs build 2024-12-03 (v0.3.6/v0.4.0 era, as sg_008's 2024-11-30)", {}, None),
    "gs_161": ("0.4.0", "docs build 2024-12-04 (v0.4.0 era)", {}, None),
    "gs_162": ("0.4.0", "docs build 2024-12-04 (v0.4.0 era)", {},
               "reward model Skywork/Skywork-Reward-Llama-3.1-8B-v0.2, as sg_004: the checkpoint's config.json is not "
               "in the set (sg_004's why_not)"),
    "gs_163": ("0.4.1", "docs build 2024-12-29 (v0.4.1 era)", {}, None),
    "gs_164": ("0.4.1", "docs build 2025-01-26 (v0.4.1/0.4.2 era, as sg_001's 2025-01-23; no rule boundary between "
                        "them in engines/sglang/versions.RELEASE_DATES)",
               {"free_at_start": {
                   "gib": 76.30, "line": "[2025-01-26 18:06:13 TP0] Load weight begin. avail mem=76.30 GB",
                   "evidence": "SGLang's pre_model_load_memory ('Load weight begin. avail mem', GiB printed as 'GB') "
                               "of the docs-CI H100 (78.81 GiB free on the same runners' empty starts): another "
                               "process held ~2.5 GiB"}}, None),
    "gs_165": ("0.4.1", "docs build 2025-01-27 (v0.4.1/0.4.2 era)",
               {"speculative_algorithm": "EAGLE", "speculative_num_steps": 5, "speculative_eagle_topk": 8,
                "speculative_num_draft_tokens": 64,  # the printed ServerArgs, as sg_006
                "speculative_draft_model_path": "lmzheng--sglang-EAGLE-llama2-chat-7B.json"}, None),
    "gs_166": ("0.4.1", "docs build 2025-01-27 (v0.4.1/0.4.2 era)", {}, None),
    "gs_167": ("0.4.1", "docs build 2025-01-27 (v0.4.1/0.4.2 era)", {},
               "reward model Skywork/Skywork-Reward-Llama-3.1-8B-v0.2, as sg_004: the checkpoint's config.json is not "
               "in the set (sg_004's why_not)"),
    "gs_168": ("0.4.2", "docs build 2025-02-13 (the build of sg_006)",
               {"speculative_algorithm": "EAGLE", "speculative_num_steps": 5, "speculative_eagle_topk": 8,
                "speculative_num_draft_tokens": 64, "cuda_graph_max_bs": 2,  # the printed ServerArgs (torch.compile on:
                "speculative_draft_model_path": "lmzheng--sglang-EAGLE-llama2-chat-7B.json",  # not a tpkit option)
                "free_at_start": {
                    "gib": 77.66, "line": "[2025-02-13 21:54:09 TP0] Load weight begin. avail mem=77.66 GB",
                    "evidence": "SGLang's pre_model_load_memory ('Load weight begin. avail mem', GiB printed as "
                                "'GB') of the docs-CI H100 (78.81 GiB on empty starts): another process held "
                                "~1.2 GiB"}}, None),
    "gs_169": ("0.3.4.post2", "docs build 2024-11-02 (main after v0.3.4.post2, as gs_014's 2024-10-31)",
               {"free_at_start": {
                   "gib": 76.83, "line": "[2024-11-02 00:24:32 TP0] Load weight begin. avail mem=76.83 GB",
                   "evidence": "SGLang's pre_model_load_memory ('Load weight begin. avail mem', GiB printed as 'GB') "
                               "of the docs-CI H100 (78.59 GiB on empty starts of that era): another process held "
                               "~1.8 GiB"}}, None),
    # helper mv27 (2026-12-05): an install-and-serve route on a DGX Spark (search-index id 57759592298); log also sg_403
    "gs_240": ("0.5.15", "the installed wheel (sha256 and a 3338-file identity check: sglang.__version__ = 0.5.15)",
               {"disable_radix_cache": True,
                "gpu_catalog": {"gpu": "GB10", "note": "the job's environment block prints device_name NVIDIA GB10 "
                                "(DGX Spark, 119.63 GiB unified memory): the catalog's GB10"},
                "free_at_start": {
                    "gib": 111.73,
                    "line": "[22:18:22] Load weight end. elapsed=353.55 s, type=Qwen3_5ForConditionalGeneration, "
                            "avail mem=59.87 GB, mem usage=51.86 GB.",
                    "evidence": "SGLang's pre_model_load_memory = 'Load weight end' avail 59.87 + the load's mem usage "
                                "51.86 = 111.73 GiB (GiB printed as 'GB'; the excerpt has no 'Load weight begin' line) "
                                "of the GB10's 119.63 GiB unified memory: the host held ~7.9 GiB"}}, None),
    # helper mv27: an A100 runbook quoting its server.log KV line (search-index id 68313218425)
    # helper mv31 (2026-12-05): a start-up note of a six-RTX-4090 host (search-index id 55182325604): sglang 0.5.9,
    # Qwen3.6-35B-A3B-FP8 at --tp-size 4, --mem-fraction-static 0.85, defaults otherwise; the pool from its crash record
    "gs_242": ("0.5.9", "the note's crash record: 'sglang 0.5.9' (the same environment and command)", {}, None),
    # helper mv31: a HeadKV study's environment record (search-index id 63320354795): the rlkv fork of sglang 0.5.2, its
    # FullKV smoke of Llama-3.1-8B-Instruct on a clean A6000 (mfs 0.85, 32 requests, radix cache and CUDA graphs off)
    "gs_243": ("0.5.2", "the record's frozen environment: 'sglang : 0.5.2' (the fork Kurt232/rlkv-sglang-v0.5.2)",
               {"disable_radix_cache": True, "disable_cuda_graph": True,
                "gpu_catalog": {"gpu": "RTX-A6000", "note": "'A6000 48GB' (the record): the catalog's RTX-A6000"}},
               None),
    # helper mv31: an llm-d session-control lab log (search-index id 60951762561): sglang 0.5.15.post1,
    # Qwen3-Coder-30B-A3B-Instruct-FP8 at TP 2 on H100 80 GB (GKE), 262,144, fp8_e4m3 KV, mfs 0.88
    "gs_244": ("0.5.15", "the manifest's image lmsysorg/sglang:v0.5.15.post1 (rules 0.5.15)", {}, None),
    "gs_241": ("0.5.19", "a main checkout of ~2026-09-07 (6ec32e6b7, nightly-dev-20260907 image), before 0.5.20 "
                         "(2026-09-18): tpkit's 0.5.19 rules", {}, None),
    # helper mv30 (2026-12-05): a Kimi K2.6 SGLang deployment guide (search-index id 67160078054), its 8x H20 run:
    # 0.5.12, TP 8, --mem-fraction-static 0.92, 32,768, chunked 8,192, 32 requests; the pool line only (no corpus log)
    # helper mv32 (2026-12-05): a profiling study's Phase 0 snapshot (search-index id 62110908920): Qwen3-VL-8B-Instruct
    # on one H200, default flags (resolved mem_fraction_static 0.8388), a main build of mid-April 2026
    "gs_250": ("0.5.10", "'0.0.0.dev1+ga4cf2ea12' with FlashInfer 0.6.7.post3, run 2026-04-17: after 0.5.10 (2026-04-05), "
                         "tpkit's 0.5.10 rules", {}, None),
    # helper mv32: a PD-disaggregation chat transcript (search-index id 53226581302): DeepSeek-R1 prefill server, TP 16
    # over two 8-GPU H100 nodes, mfs 0.8, CUDA graphs off; the pool from its /get_server_info
    "gs_251": ("0.5.9", "the router host's venv prompt '(sglang-0.5.9)' (the servers' /app/sglang/sglang-latest)",
               {"disable_cuda_graph": True}, None),
    # helper mv32: an autotuner's Docker test report (search-index id 5883226435): Llama-3.2-1B-Instruct in the
    # lmsysorg/sglang:v0.5.2-cu126 image at mfs 0.7 and 0.8 on one unnamed ~95 GiB Hopper GPU
    **{cid: ("0.5.2", "the container image lmsysorg/sglang:v0.5.2-cu126",
             {"gpu_assumed": {
                 "gpu": "H20-96GB", "candidates": ["H20-96GB", "GH200-96GB"],
                 "note": "GPU not named (the report guesses 'A100 80GB or H100'); its 'Total GPU Memory: ~94.76 GB' "
                         "exceeds an H100 NVL's 93.1 GiB CUDA total and fits the 96 GB class (H20: 94.98 GiB "
                         "derived; GH200-96GB: 95.00 GiB printed, helper gh18); FlashAttention 3 auto-selected and "
                         "the cu126 image say Hopper. Planned on the H20"}},
             None) for cid in ("gs_252", "gs_253")},
    # helper mv32: a one-GPU multi-instance demo (search-index id 60425974148): Qwen3-0.6B, instance A (first on the
    # empty H200) at mfs 0.42 and 0.44, sglang 0.5.18 image
    **{cid: ("0.5.18", "the environment section: 'sglang 0.5.18 (lmsysorg/sglang:latest image)'", {}, None)
       for cid in ("gs_254", "gs_255")},
    "gs_310": ("0.5.12", "the guide's 'SGLang 版本：v0.5.12' and the run's image sglang:v0.5.12-cu129", {}, None),
    # helper sgb13 (2026-12-05, session 13): an NLA reproduction record (NashChennc/natural_language_autoencoders,
    # search-index id 67328003014): the AV checkpoint (a Qwen2.5-7B-Instruct fine-tune) on one A40, mfs 0.75, radix
    # cache off (the launch script's --disable-radix-cache), flashinfer attention and sampling
    "gs_256": ("0.5.6", "the record's verified packages: 'SGLang：0.5.6.post2' (rules 0.5.6)",
               {"disable_radix_cache": True,
                "gpu_catalog": {"gpu": "A40", "note": "'8 张 NVIDIA A40，每张约 46 GB' (the record), GPU 4 essentially idle "
                                "before the run: the catalog's A40"}}, None),
    # helper sgb13: dw-flyingw/GLM-5.2-FP8 at commit 56c016e (2026-06-28): the Dynamo SGLang worker's command and the
    # pool its compose comment and README quote (max_total_num_tokens=540800), GLM-5.2-FP8 at TP 8 on 8x H200
    "gs_257": ("0.5.13", "the worker image built by the repository's Dockerfile (SGLANG_VERSION=0.5.13.post1)",
               {"speculative_algorithm": "EAGLE", "speculative_num_steps": 2, "speculative_eagle_topk": 1,
                "speculative_num_draft_tokens": 3}, None),
    # helper sgb13: the same deployment's Profile A boot of 2026-08-31 (dw-flyingw/GLM-SGLANG sglang/README.md,
    # search-index id 69497607941): --max-running-requests 128 and SGLang's hierarchical cache on (host tiers only)
    "gs_258": ("0.5.13", "the image glm52-dynamo-sglang:0.5.13post1 (the repository's Dockerfile: SGLang 0.5.13.post1)",
               {"speculative_algorithm": "EAGLE", "speculative_num_steps": 2, "speculative_eagle_topk": 1,
                "speculative_num_draft_tokens": 3}, None),
    # helper sgb14 (2026-12-05, session 14): one private 2x A100 80GB PCIe deployment's docs (Qwen3.6-27B, then
    # Qwen3.8-27B, one TP-1 replica per card, EAGLE on the MTP head; search-index ids 68576807532, 68412966540,
    # 60587723450, 68309342185, 68809995102, 68488034650): every boot its docs quote with the flags stated
    **{cid: (ver, basis, {**_A100_QWEN_MTP, **extra}, None) for cid, ver, basis, extra in (
        ("gs_259", "0.5.17", "the digest-pinned v0.5.17-cu130 image ('The engine digest (sha256:16aba892…, "
                             "v0.5.17-cu130) is untouched')", {}),
        ("gs_260", "0.5.18", "the v0.5.18 upgrade of 2026-08-24 (OPERATIONS)", {}),
        ("gs_261", "0.5.16", "the dev build pinned before 2026-08-08, '0.0.0.dev1+ga358374ae … = v0.5.16 + 2 days of "
                             "main' (the v0.5.17 note); rules 0.5.16", {**_EAGLE_3_1_4, "cuda_graph_max_bs": 2}),
        ("gs_262", "0.5.16", "the same dev build (rules 0.5.16)", _EAGLE_3_1_4),
        ("gs_263", "0.5.16", "the same dev build (rules 0.5.16)", _EAGLE_3_1_4),
        ("gs_264", "0.5.17", "the v0.5.17-cu130 image (the upgrade note of 2026-08-08)", {}),
        ("gs_265", "0.5.17", "the v0.5.17-cu130 image (the upgrade note of 2026-08-08)", {}),
        ("gs_266", "0.5.16", "the dev build (rules 0.5.16), the EAGLE-depth roll of 2026-08-01", {}),
        ("gs_267", "0.5.19", "the v0.5.19-cu130 image ('Engine unchanged' in the 2026-09-13 note)", {}))},
    **{cid: ("0.5.19", "the v0.5.19-cu130 image ('Engine unchanged' in the 2026-09-13 note)",
             {"gpu_catalog": _A100_QWEN_MTP["gpu_catalog"]},
             "--speculative-algorithm DFLASH (a 5-layer DFlash2 drafter, incoai/Qwen3.8-27B-DFlash2) is not a tpkit "
             "algorithm (engines.sglang.options SPEC_ALGORITHMS)") for cid in ("gs_268", "gs_269", "gs_271")},
    "gs_272": ("0.5.17", "the v0.5.17-cu130 image (the phase was tried and reverted on 2026-08-19, before v0.5.18)",
               {"gpu_catalog": _A100_QWEN_MTP["gpu_catalog"]},
               "--enable-linear-replayssm-spec (ReplaySSM spec-verify: a per-slot raw-input window replaces the "
               "per-draft-token SSM snapshots) is not a tpkit input"),
    # helper sgb14: a regime benchmark write-up (search-index id 55046645991): Qwen3-0.6B (mfs 0.7, default context) and
    # Qwen3-30B-A3B-Instruct-2507 (mfs 0.85, 32,768) on one H200 each, TP 1, 32 running, chunked prefill off, 0.5.12.post1
    **{cid: ("0.5.12", "'SGLang | 0.5.12.post1 (source: .../work/sglang)' (the write-up's environment table)", {}, None)
       for cid in ("gs_273", "gs_274")},
    # helper sgb14: two committed server logs of one RTX 4090 session (MuhammadHaseebUlHaqq/llm-inference-optimization,
    # logs/sglang_cliff/): Qwen2.5-0.5B-Instruct, default flags, and the same with --cuda-graph-max-bs-decode 128
    **{cid: ("0.5.20", "main 141febf3 logged 2026-09-08 (0.5.20 came 2026-09-18); its printed defaults (chunked prefill "
                       "4096, decode graph max bs 48 below 35 GB: #37898) are 0.5.20's rules", over, None)
       for cid, over in (("gs_275", {}), ("gs_276", {"cuda_graph_max_bs": 128}))},
    # helper bl16b (2026-12-05, session 16), added blind from GitHub issue threads: sglang#11970, Qwen3-30B-A3B bf16 at TP 1
    # with SGLang 0.5.3.post3's defaults on one unnamed 96 GB Hopper GPU; the pool from the leak check's error line
    "gs_331": ("0.5.3", "the issue's 'sglang==0.5.3.post3' (title: 'since v0.5.3.post3'); rules 0.5.3",
               {"gpu_assumed": {
                   "gpu": "H20-96GB", "candidates": ["H20-96GB", "GH200-96GB"],
                   "note": "GPU not named; 'Load weight begin. avail mem=94.69 GB' exceeds an H100 NVL's 93.1 GiB CUDA "
                           "total and fits the 96 GB class (H20: 94.98 GiB derived; GH200-96GB: 95.00 GiB printed, "
                           "helper gh18); the reporter's fa3 run rules out "
                           "the SM 12.0 RTX PRO 6000 (0.5.3.post3's FA3 backend needs SM 8.x / 9.x). Planned on the H20"}},
               None),
    # helper bl20s (2026-12-06, session 20), added blind: one benchmark repository's DeepSeek-R1-0528 MTP runs (search-index
    # ids 70331247796 / 70190506126 on 8x B200, 70149788602 / 70410972929 on 8x MI355X): TP 8, EAGLE 3/1/4 on the
    # checkpoint's MTP layer, fp8 KV, radix cache off, decode graphs to 128; the pools the run notes quote
    "gs_332": ("0.5.21", "the run note: 'all flags exist in local sglang 0.5.21' (2026-10-05)",
               {"speculative_algorithm": "EAGLE", **_EAGLE_3_1_4, "disable_radix_cache": True,
                "cuda_graph_max_bs": 128}, None),
    "gs_333": ("0.5.21", "the run note: 'this sglang build (0.5.21.dev20261004, affa261e3d)' (rules 0.5.21, as gs_142)",
               {"speculative_algorithm": "EAGLE", **_EAGLE_3_1_4, "disable_radix_cache": True,
                "cuda_graph_max_bs": 128}, None),
    # helper bl20s: a cancellation-audit data manifest (search-index id 69415794630): Qwen3-8B bf16 on one RTX 5090 at mfs
    # 0.60, triton attention, CUDA graphs off, sglang 0.5.19 (the wheel with Python trace hooks on the cancellation path)
    "gs_334": ("0.5.19", "the manifest's runtime table: 'sglang | 0.5.19'", {"disable_cuda_graph": True}, None),
    # helper bl20b (2026-12-06, session 20), added blind: an agentic-benchmark repository's SGLang server for
    # Qwen3-Coder-30B-A3B-Instruct, TP 2 on two cards of an 8x H200 host, mfs 0.85, context 262,144, 0.5.13 (its launch
    # script, id 56706735933, and /get_server_info capture, id 56856600245)
    "gs_335": ("0.5.13", "the server's /get_server_info 'version': '0.5.13'", {}, None),
    # helper gs21 (2026-12-06, session 21), added blind: bowenwan6/sglang-vllm-profiler (the repository of gs_250's
    # snapshot), Qwen3-VL-8B-Instruct bf16 on one card of its 8x H200 host: run 2's environment snapshot (main
    # 0c8049d9b of 2026-05-21, id 62304934542) and the PCG debug case D4 (main 62c505a196 of 2026-06-08, id 62079226025,
    # --enforce-piecewise-cuda-graph, a flag tpkit does not take)
    "gs_336": ("0.5.12", "'0.0.0.dev1+g0c8049d9b' (#25826), snapshot of 2026-05-21: after 0.5.12 (2026-05-16), before "
                         "0.5.13 (2026-06-11): tpkit's 0.5.12 rules", {}, None),
    "gs_337": ("0.5.12", "main 62c505a196 pulled and run 2026-06-08: after 0.5.12 (2026-05-16), before 0.5.13 "
                         "(2026-06-11): tpkit's 0.5.12 rules", {}, None),
    # helper gs21: an inference-benchmark project's pin-verification note (search-index id 68480202264, 2026-09-18):
    # Qwen2.5-3B-Instruct-AWQ on one RTX 4050 Laptop GPU (6,141 MiB, WSL2), SGLang 0.5.20 image, context 2,048, 32
    # running, chunk 2,048; awq at mfs 0.80 / 0.60, awq_marlin at 0.80, and STANDALONE with a Qwen2.5-0.5B-Instruct draft
    **{cid: ("0.5.20", "image lmsysorg/sglang:v0.5.20-runtime ('sglang 0.5.20' inside it)", over, None)
       for cid, over in (("gs_338", {}), ("gs_339", {}), ("gs_340", {}),
                         ("gs_341", {"speculative_algorithm": "STANDALONE",
                                     "speculative_draft_model_path": "Qwen--Qwen2.5-0.5B-Instruct.json",
                                     "speculative_num_steps": 3, "speculative_eagle_topk": 1,
                                     "speculative_num_draft_tokens": 4, "cuda_graph_max_bs": 32}))},
    # helper gs22 (2026-12-06, session 22), added blind: markat1/course-assistant, a k3s StatefulSet of two SGLang
    # 0.5.20 replicas of Qwen3-8B bf16 sharing one Lambda GPU through HAMi slices of 38,000 MiB (nvidia.com/gpumem);
    # HAMi shows the slice as the device total inside the pod (its gpu-check pod: 'GPU memory: 29.3 GiB' for 30,000
    # MiB), so each replica is planned on the catalog card with that total (as a WSL2 total, gpu_total_gib).  Flags:
    # context 8192, mfs 0.85, 8 running, chunk 2048 (cluster/workers/sglang.yaml)
    **{cid: ("0.5.20", "image lmsysorg/sglang:v0.5.20-cu130 pinned by digest; 'SGLang: 0.5.20' printed in it", over, None)
       for cid, over in (
           ("gs_342", {"gpu_total_gib": GS22_HAMI_SLICE_GIB, "gpu_note": "H100 80GB HBM3 (SXM5): the catalog's "
                       "H100-SXM-80GB, with the HAMi slice's 38,000 MiB as the total the pod sees"}),
           ("gs_343", {"gpu_total_gib": GS22_HAMI_SLICE_GIB, "gpu_note": "A100-SXM4-80GB: the catalog's A100-SXM-80GB, "
                       "with the HAMi slice's 38,000 MiB as the total the pod sees"}),
           ("gs_344", {"gpu_total_gib": GS22_HAMI_SLICE_GIB,
                       "gpu_catalog": {"gpu": "H100-PCIe-80GB",
                                       "note": "'NVIDIA H100 PCIe, 81559 MiB' (nvidia-smi): the catalog's H100-PCIe-80GB, "
                                               "with the HAMi slice's 38,000 MiB as the total the pod sees"}}))},
    # helper gs22b (2026-12-06, session 22), added blind: syseeker/inference-pipeline-benchmark, the raw server logs of
    # two solo SGLang baselines on one RTX PRO 6000 Blackwell Server Edition (an MPS daemon, one tenant): Qwen2.5-7B
    # bf16 at mfs 0.45 and Qwen2.5-72B-Instruct-AWQ (awq_marlin at runtime) at mfs 0.52, context 8192, other flags at
    # their defaults; SGLang pinned 'sglang==0.5.11' in the repository's pyproject.toml
    **{cid: ("0.5.11", "pyproject.toml pins 'sglang==0.5.11' (unchanged from 2026-05-09 to the log's commit of "
                       "2026-08-05)", {}, None) for cid in ("gs_345", "gs_346")},
    # helper gs23 (2026-12-06, session 23), added blind: the same repository's two-tenant run (Qwen2.5-7B at mfs 0.45
    # beside a Triton YOLOv8-L that held ~1.08 GiB of the RTX PRO 6000 at the LLM's start, MPS daemon): the free
    # memory SGLang printed before the weights is the start (free_at_start, harness.machine_of)
    "gs_347": ("0.5.11", "pyproject.toml pins 'sglang==0.5.11' (the host and venv of gs_345, the same day)",
               {"free_at_start": {
                   "gib": 93.11, "line": "[2026-08-05 08:43:12] Load weight begin. avail mem=93.11 GB",
                   "evidence": "SGLang's pre_model_load_memory ('Load weight begin. avail mem', GiB printed as 'GB') "
                               "with the Triton YOLOv8-L co-tenant resident; the solo start of the same command on "
                               "the same card (gs_345) printed 94.19 GB"}}, None),
    # helper gs23: TonyLi15/sglang-benchmark, /get_server_info inside sglang.bench_serving's result lines: Qwen2.5-3B-
    # Instruct at mfs 0.9 on a GH200 (aggregated, 0.5.5.post3; and the PD prefill server, CUDA graphs off by the
    # prefill mode) and the PD decode server on an A100 80 GB (0.5.6, radix cache off by the decode mode)
    "gs_348": ("0.5.5", "/get_server_info 'version': '0.5.5.post3' (image lmsysorg/sglang:dev-arm64)", {}, None),
    "gs_349": ("0.5.5", "/get_server_info 'version': '0.5.5.post3' (image lmsysorg/sglang:dev-arm64)",
               {"disable_cuda_graph": True}, None),
    "gs_350": ("0.5.6", "/get_server_info 'version': '0.5.6' (image lmsysorg/sglang:latest)",
               {"disable_radix_cache": True,
                "gpu_assumed": {
                    "gpu": "A100-SXM-80GB", "candidates": ["A100-SXM-80GB", "A100-PCIe-80GB"],
                    "note": "'NVIDIA A100' of an 8-GPU node (README, scripts/50_run_multi_decode_a100.sh), variant not "
                            "printed; weights 5.96 + KV 64.99 GiB at fraction 0.9 need at least 78.8 GiB: the 80 GB "
                            "class, SXM4 or PCIe (the catalog gives both 79.25 GiB). Planned on the first "
                            "candidate"}}, None),
    # helper gs23: an endpoint characterization report (search-index id 67494338468): Qwen3.6-27B-FP8 on one RTX PRO
    # 6000 Blackwell Max-Q, a dev build of the 0.5.14 era, context 262,144, mfs 0.92, fp8 KV, page 64, 4 running, EAGLE
    # 3/1/4 on the model's MTP head, decode graphs to 4
    "gs_351": ("0.5.14", "dev build 0.0.0.dev1+g70df09b83 probed 2026-07-07: takes 0.5.14's new flags "
                         "(--cuda-graph-max-bs-decode, --mamba-radix-cache-strategy), before 0.5.15 (2026-07-10)",
               {"speculative_algorithm": "EAGLE", **_EAGLE_3_1_4, "cuda_graph_max_bs": 4}, None),
    # helper gs23: RegularJoe-CEO/LuxiDemo's SGLang 0.5.19 runs on one H100 SXM 80GB (Qwen2-7B-Instruct fp16, fa3, radix
    # off, context 32,800, mfs 0.85 as printed by the engine's server_info).  Blind, tpkit refused the context: 32,800
    # exceeds the model's 32,768, which SGLang refuses too unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 is set
    # (this run must have set it: its server_info prints 32,800).  Planned at 32,768 as the refusal asks (an input, not
    # a rule; first_refused in blind_scores.json, as vp_231 / vp_606 / gs_257): the 32 tokens move only the
    # request-to-token table, by (running slots + 1) x 32 x 4 bytes
    "gs_352": ("0.5.19", "the run's engine metadata and server_info: 'sglang': '0.5.19' (cu129 wheels)",
               {"dtype": "float16", "disable_radix_cache": True, "context_length": 32768}, None),
    # helper gs24b (2026-12-06, session 24), added blind from issue threads: sglang#7227's RTX 5090 start of
    # Qwen3-8B-FP8 (tp 1, context 8000, other flags at their defaults), pip-installed on 2025-06-19 (0.4.7.post1, the
    # newest release that day); the pool is printed before the CUDA-graph capture that crashed
    "gs_373": ("0.4.7", "0.4.7.post1: the traceback's line numbers (scheduler.py 2546 / 312) are that wheel's; PyPI "
                        "install on 2025-06-19, newest release 0.4.7.post1 (built 2025-06-16)", {}, None),
    # helper gs24b: sglang#14173's Qwen3-VL-32B-Instruct-FP8 start (tp 1, --quantization fp8, defaults) on a main
    # checkout of 2025-12-01, two days before 0.5.6; the GPU inferred from 177.74 GiB free before the weights (B200)
    "gs_374": ("0.5.6", "main checkout of 2025-12-01 (server_args has 0.5.6's fastapi_root_path; 0.5.6 released "
                        "2025-12-03)", {}, None),
    # helper gs25 (2026-12-06, session 25), added blind: fakoli/anvil-serving's HEAVY tier (docs/findings/2026-06-28-
    # benchmark-capacity.md): cpatonn's Qwen3-Coder-30B-A3B AWQ-4bit on an RTX PRO 6000 Blackwell Max-Q under Docker
    # Desktop on Windows (WSL2), fp8_e5m2 KV, 131,072, 16 running, mfs 0.88, triton attention; chunk 2,048 as the
    # build printed it (its GPU-memory heuristic read the host's 32 GB RTX 5090)
    "gs_375": ("0.5.14", "not printed: image lmsysorg/sglang:latest on 2026-06-27/28, the newest release then 0.5.14 "
                         "(PyPI 2026-06-26); the 'KV Cache is allocated. dtype:' wording of 0.5.13.post1-0.5.14",
               {"wsl2": True, "chunked_prefill_size": 2048}, None),
    # helper gs25: a capacity-planner skill's test fixtures (search-index file id 54684172587): DeepSeek-V4-Flash-Base at
    # tp 8 on 8 x H20 (96 GB), a dev build of 2026-05-15 (before the 0.5.12 wheel), mfs 0.88 bf16 KV and mfs 0.60
    # fp8_e4m3 KV; the printed server_args (radix cache off, graph max bs 320) and the build's ratio 0.1
    **{cid: ("0.5.12", "dev build of ~2026-05-15 ('DSv4 memory calculation', server_args.py:1217), one day before the "
                       "0.5.12 wheel: tpkit's first DeepSeek-V4 rules",
             {"swa_full_tokens_ratio": 0.1, "cuda_graph_max_bs": 320, "disable_radix_cache": True}, None)
       for cid in ("gs_376", "gs_377")},
    # helper gs24 (2026-12-06, session 24), added blind: michael-amd/sglang-ci, AMD's nightly SGLang CI on MI355X
    # ('mi35x') and MI300X ('mi30x') nodes, server logs committed day by day (read from the snapshot's history).
    # The release: the CI image's tag (rocm/sgl-dev:v0.5.6[.postN]-rocm700-mi3Nx-DATE, AMD's nightly ROCm build
    # tagged with the newest release); the flags: the launch script at the log's date (test/sanity_check.py,
    # scripts/deepseek_perf_online_csv.sh, test/pd/run_pd_docker.sh), checked against the printed server_args
    **{cid: ("0.5.6", "image rocm/sgl-dev:v0.5.6.post2-rocm700 (the log's folder name; AMD's nightly ROCm build)", {},
             None) for cid in ("gs_353", "gs_354", "gs_355", "gs_357", "gs_358", "gs_359", "gs_361")},
    **{cid: ("0.5.6", "image rocm/sgl-dev:v0.5.6.post2-rocm700 (the log's folder name; AMD's nightly ROCm build)",
             {"quantization": "fp8"}, None) for cid in ("gs_356", "gs_360")},  # --quantization fp8 on grok-2
    "gs_362": ("0.5.6", "image rocm/sgl-dev:v0.5.6-rocm700-mi30x-20251203 (the log's folder name)",
               {"enable_dp_attention": True}, None),  # --dp-size 8 --enable-dp-attention inside --tp 8
    "gs_363": ("0.5.6", "image rocm/sgl-dev:v0.5.6.post1-rocm700-mi30x-20251210 (the log's folder name)",
               {"cuda_graph_max_bs": 16}, None),  # --cuda-graph-max-bs 16 of the torch-compile mode
    "gs_364": ("0.5.6", "image rocm/sgl-dev:v0.5.6.post2-rocm700-mi30x-20251216 (the log's folder name)",
               {"disable_cuda_graph": True}, None),  # PD prefill: graphs off by the mode (as gs_349)
    # helper gs25c (2026-12-06, session 25), added blind from issue threads: sglang#12419's Qwen3-Next-80B-A3B-Instruct
    # start at tp 4 (every other flag at its default) in the lmsysorg/sglang:v0.5.4.post1-rocm700-mi30x image; the GPU
    # (MI300X) from 190.26 GiB free before the weights on each rank and the '-mi30x' image
    "gs_365": ("0.5.4.post1", "image lmsysorg/sglang:v0.5.4.post1-rocm700-mi30x (the issue names it; v0.5.4-rocm630 also "
                        "tried)", {}, None),
    # helper gs26b (2026-12-06, session 26), added blind: a Qwen3.8-27B PD deployment report on A100-SXM4-40GB (search-index
    # ids 70185122176 report, 70659034661 script): the decode server at tp 2, mfs 0.90, 48 running (the mamba slots:
    # radix off by the decode mode), mamba-full-memory-ratio 0.6, decode graphs to 48, context 65,536
    "gs_378": ("0.5.10", "the report's environment table 'SGLang 0.5.10 + sglang_router' (2026-09-29)",
               {"disable_radix_cache": True, "mamba_full_memory_ratio": 0.6, "cuda_graph_max_bs": 48}, None),
    # helper gs26b: a DeepSeek-V3 tutorial's sglang.bench_one_batch runs of 2025-02-26 (search-index id 49118495057):
    # tp 8, every flag at its default but --cuda-graph-max-bs 1; the GPU (not named) from the memory class and the
    # write-up's NVIDIA_H200 tuning file
    "gs_379": ("0.4.3", "not printed: runs of 2025-02-26, the newest release then 0.4.3.post2 (wheel files of "
                        "2025-02-17)",
               {"cuda_graph_max_bs": 1,
                "gpu_assumed": {
                    "gpu": "H200-SXM-141GB", "candidates": ["H200-SXM-141GB", "H200-NVL", "H20-141GB"],
                    "note": "not named by the runs; the write-up's FP8 tuning file is for NVIDIA_H200 and DeepSeek-V3's "
                            "~80 GiB of FP8 weights per rank at tp 8 fit neither an 80 / 96 GB card at the default "
                            "fraction nor leave so small a pool on a 178-192 GB one: the 141 GB class. Planned on the "
                            "first candidate"}}, None),
    # helper gs25b (2026-12-06, session 25), added blind from the same CI history: Grok-1 (lmzheng/grok-1 with
    # --quantization fp8; amd/grok-1-W4A8KV8 with --quantization fp8 and SGLANG_INT4_WEIGHT=1, sanity check and
    # online benchmark) on both nodes, and the rocm630 image's starts (2025-12-13, an older 0.5.6.post2 tree with ROCm
    # 6.3) of gs24's mi30x commands; configs assembled (tests/validation/configs/lmzheng--grok-1.json,
    # amd--grok-1-W4A8KV8.json)
    **{cid: ("0.5.6", "image rocm/sgl-dev:v0.5.6.post2-rocm700 (the log's folder name; AMD's nightly ROCm build)",
             {"quantization": "fp8", "sglang_int4_weight": "off"}, None) for cid in ("gs_395", "gs_396")},  # =0
    # helper i4w25 (2026-12-06, session 25): the W4A8KV8 starts set SGLANG_INT4_WEIGHT=1 (their launch commands):
    # --sglang-int4-weight on (engines.sglang.int4)
    **{cid: ("0.5.6", "image rocm/sgl-dev:v0.5.6.post2-rocm700 (the log's folder name; AMD's nightly ROCm build)",
             {"quantization": "fp8", "sglang_int4_weight": "on"}, None)
       for cid in ("gs_397", "gs_398", "gs_399", "gs_400")},
    **{cid: ("0.5.6", "image rocm/sgl-dev:v0.5.6.post2-rocm630-mi30x-20251213 (the log's folder name)", {}, None)
       for cid in ("gs_401", "gs_402", "gs_403")},
    "gs_404": ("0.5.6", "image rocm/sgl-dev:v0.5.6.post2-rocm630-mi30x-20251213 (the log's folder name)",
               {"quantization": "fp8", "sglang_int4_weight": "off"}, None),  # SGLANG_INT4_WEIGHT=0
    **{cid: ("0.5.6", "image rocm/sgl-dev:v0.5.6.post2-rocm630-mi30x-20251213 (the log's folder name)",
             {"quantization": "fp8", "sglang_int4_weight": "on"}, None) for cid in ("gs_405", "gs_406")},
    "gs_407": ("0.5.6", "image rocm/sgl-dev:v0.5.6.post2-rocm630-mi30x-20251213 (the log's folder name)",
               {"cuda_graph_max_bs": 16}, None),  # as gs_363
    "gs_408": ("0.5.6", "image rocm/sgl-dev:v0.5.6.post2-rocm630-mi30x-20251213 (the log's folder name)",
               {"disable_cuda_graph": True}, None),  # PD prefill, as gs_364
    # helper gs26 (2026-12-06, session 26), added blind: devopsrustem/slurmv4's working notes (3/10.sh, 3/12.sh): DeepSeek-R1
    # PD servers at TP 16 over two 8 x H100 nodes, mfs 0.8 (gs_251 is the 0.5.9 NIXL prefill server of the same deployment)
    "gs_409": ("0.5.8.post1", "the shell prompt '(sglang-0.5.8.post1)' above the launch commands (3/10.sh)",
               {"disable_cuda_graph": True}, None),  # PD prefill with --disable-cuda-graph
    "gs_410": ("0.5.8.post1", "the log's install path /app/sglang/sglang-0.5.8.post1/... (3/12.sh)", {}, None),  # decode
    "gs_411": ("0.5.9", "the node's shell prompt '(sglang-0.5.9)' and the prefill server's /get_server_info version 0.5.9",
               {}, None),  # decode (NIXL), --max-running-requests 128
    # helper gs26: michael-amd/sglang-ci's v0.5.6.post1 image (2025-12-09 to -11) of gs24's commands gs_353-gs_361, in
    # gs24's table order (the ids ran out there; the other v0.5.6 / v0.5.6.post1 starts are listed in §6.4, round gs26)
    **{cid: ("0.5.6", "image rocm/sgl-dev:v0.5.6.post1-rocm700 (the log's folder name; AMD's nightly ROCm build)", {},
             None) for cid in ("gs_412", "gs_413", "gs_414", "gs_416", "gs_417", "gs_418", "gs_420")},
    **{cid: ("0.5.6", "image rocm/sgl-dev:v0.5.6.post1-rocm700 (the log's folder name; AMD's nightly ROCm build)",
             {"quantization": "fp8"}, None) for cid in ("gs_415", "gs_419")},  # --quantization fp8 on grok-2, as gs_356
    # helper gs27b (2026-12-06, session 27), added blind from PR threads: sglang PR #12978 (yuan-luo, 2025-11-10): Qwen3-30B-
    # A3B-FP8 at tp 2 with piecewise CUDA graph (eager), every other flag at its default, on a 96 GB Hopper (H20, inferred)
    "gs_380": ("0.5.5", "PR #12978 branch run on 2025-11-10 (after 0.5.5, before 0.5.6 of 2025-12-03; guessed)", {}, None),
    # helper gs27b: sglang PR #11830 (yuan-luo, 2025-11-30 11:18): sg_065's command without the piecewise-CUDA-graph flags
    # (the comment: 'Without Piecewise CUDA Graph'), same checkout and B200 host
    "gs_381": ("0.5.6", "source checkout of 2025-11-30 (3 days before the 0.5.6 release, PyPI dates; guessed, as sg_065)",
               {"cuda_graph_max_bs": 512}, None),
    # helper gs27 (2026-12-06, session 27), added blind from the code corpus: SGLang issue descriptions held in the
    # yunwei37/vllm-exp bug-study dump (commit d184d27).  gs_421: sglang#1386, Qwen2-72B-Instruct at tp 8 on H100 SXM,
    # every flag at its default (0.83 printed); gs_422: sglang#1612, RankZephyr 7B through sgl.Engine on an RTX 4090
    "gs_421": ("0.3.0", "the issue's check_env block 'sglang: 0.3.0' (server_args fields of the 0.3.0 wheel)", {}, None),
    "gs_422": ("0.3.3", "the reporter's fork at main of 2024-10 (an Engine.get_tokenizer added): server_args fields "
                        "exactly the 0.3.3 wheel's (dist_init_addr, no device)", {}, None),
    # gs_423: a kernel-tuning report (search-index id 61162742926) quoting its server log: Mixtral-8x7B-Instruct-v0.1 at
    # tp 8 on MI355X, a main build of 2026-08-12 (after the 0.5.17 wheel), fp8_e4m3 KV, context 11,264, radix cache off
    "gs_423": ("0.5.17", "dev build 0.5.17.dev20260812+gdc5f6c4883 (main after the 0.5.17 wheel of 2026-08-08)",
               {"disable_radix_cache": True}, None),
    # gs_441: helper gs28 (2026-12-06, session 28): an executed notebook of yukimaru77/qwen35-sglang-demo (the docker logs
    # cell): Qwen3.5-4B on a GB10 with lmsysorg/sglang:latest-cu130-runtime of 2026-03-30, mfs 0.8, context 32,768
    "gs_441": ("0.5.9", "image latest-cu130-runtime run 2026-03-30 (0.5.10 is dated 2026-04-05); the printed ServerArgs has "
                        "exactly the 0.5.9 wheel's 328 fields",
               {"gpu_catalog": {"gpu": "GB10", "note": "nvidia-smi 'NVIDIA GB10' (unified memory, memory 'Not Supported') and "
                                "torch's 'Found GPU0 NVIDIA GB10 ... capability 12.1': the catalog's GB10 (119.63 GiB)"},
                "free_at_start": {
                    "gib": 110.63,
                    "line": "[2026-03-30 23:08:01] Load weight begin. avail mem=110.63 GB",
                    "evidence": "SGLang's pre_model_load_memory ('Load weight begin. avail mem', GiB printed as 'GB') of the "
                                "GB10's 119.63 GiB unified memory: the host held ~9.0 GiB (as gs_240's ~7.9 GiB)"}}, None),
    # gs_442: helper gs28 (2026-12-06, session 28): a Colab notebook committed with its outputs (jinho-choi123/sglang,
    # sglang.ipynb): Qwen2.5-0.5B-Instruct on a T4 with sglang 0.4.3.post2, every memory flag at its default
    "gs_442": ("0.4.3.post2", "install '>=0.4.3.post2' on 2025-02-20 (post3's wheel is of 2025-03-06); the printed ServerArgs "
                              "has exactly the 0.4.3.post2 wheel's 98 fields",
               {"gpu_total_gib": 14.75,
                "gpu_note": "Colab Tesla T4 (gpuType 'T4', sm75 float16 cast printed): the catalog's T4 with the older "
                            "drivers' 14.75 GiB total, since the printed 14.64 GiB free at 'Load weight begin' exceeds the "
                            "catalog's current-driver 14.56 GiB"}, None),
    # gs_443: helper gs28 (2026-12-06, session 28): a Colab L4 setup notebook committed with its outputs (sgl-project/sglang,
    # 690AB/sglang_setup.ipynb): Qwen2.5-1.5B-Instruct from a source install of the v0.5.6 bump commit, every flag at its default
    "gs_443": ("0.5.6", "source checkout at 7ae368efd 'chore: bump SGLang version to 0.5.6' (printed); the printed ServerArgs "
                        "has exactly the 0.5.6 wheel's 287 fields", {}, None),
    # gs_444: helper gs28c (2026-12-06, session 28): a committed SGLang server log of an AMD InferenceMAX fork
    # (ajith-sirra-amd/InferenceMAX_Rocm_Team results/0604): Qwen3.5-397B-A17B-FP8 at tp 4 on MI355X, mfs 0.8, 8 requests
    "gs_444": ("0.5.13.dev20260531", "image lmsysorg/sglang-rocm:v0.5.12.post1-rocm720-mi35x-20260531 (the repository's "
                                     "amd-master.yaml entry at the results commit), run 2026-06-04: a main build after the "
                                     "tag that prints 0.5.13's 'KV Cache is allocated. dtype:' line and 391 of the 0.5.13 "
                                     "wheel's 396 ServerArgs fields (entered as 0.5.12.post1; same numbers)", {}, None),
    # gs_703: helper bl36b (2026-12-07, session 36): the same repository's GLM-5.1 MXFP4 SGLang log (results/0604, explain
    # corpus sg_634): amd/GLM-5.1-MXFP4 at tp 2 on MI355X, mfs 0.85, fp8_e4m3 KV, DSA page 64, 48 requests; config assembled
    "gs_703": ("0.5.13.dev20260531", "image lmsysorg/sglang-rocm:v0.5.12.post1-rocm720-mi35x-20260531, the build gs_444 "
                                     "places as a 0.5.13 dev build (its 'KV Cache is allocated. dtype:' line)", {}, None),
    # gs_704: helper bl36b: the same sweep's concurrency-4 offload-none start (results/0603_sa server_logs_…_conc4…amds_03)
    "gs_704": ("0.5.13.dev20260531", "the same image and build as gs_703 (the log prints 0.5.13's 'KV Cache is allocated. "
                                     "dtype:' line)", {}, None),
    # gs_684-gs_686: helper bl37b (2026-12-07, session 37): michael-amd/sglang-ci's DeepSeek-R1-MXFP4-Preview online
    # modes on MI355X (v0.5.5.post3 image, 2025-11-19; standard, torch-compile, DP attention), config assembled
    "gs_684": ("0.5.5.post3", "image rocm/sgl-dev:v0.5.5.post3-rocm700-mi35x-20251119 (the log's folder name)", {}, None),
    "gs_685": ("0.5.5.post3", "image rocm/sgl-dev:v0.5.5.post3-rocm700-mi35x-20251119 (the log's folder name)",
               {"cuda_graph_max_bs": 16}, None),
    "gs_686": ("0.5.5.post3", "image rocm/sgl-dev:v0.5.5.post3-rocm700-mi35x-20251119 (the log's folder name)",
               {"enable_dp_attention": True}, None),
    # gs_687: helper bl37b: the same repository's manual test folder test_dp4_torch_compile_no_cudagraph (DeepSeek-V3-0324
    # on MI300X, dp 4 DP attention, torch compile, graphs off); release placed by the printed ServerArgs field names
    # helper pl38 (session 38): placed at 0.5.4.post2 by its printed aiter step, as gs_624 (the build: see the basis)
    "gs_687": ("0.5.4.post2", "no image tag: the v0.5.4.post1-rocm630-mi30x-20251029 nightly build (helper pl38: the "
                              "log's warnings 'server_args.py:1135: Attention backend not explicitly specified' and "
                              "'server_args.py:1324: DP attention is enabled' sit at the lines that image's logs print "
                              "- its FP8_online log prints server_args.py:1135 - where the 20251028 image prints 1129 / "
                              "1318 and the 20251030 one 1142); that build already has the x 0.85 aiter step of "
                              "0.5.4.post2 (its FP8_online start prints mem_fraction_static=0.765 = 0.9 x 0.85; this "
                              "log prints 0.68 = 0.8 x 0.85), not 0.5.4.post1's x 0.90 (the 20251028 dp-attention start, "
                              "gs_510, prints 0.7200000000000001): placed at 0.5.4.post2, as gs_624",
               {"enable_dp_attention": True, "disable_cuda_graph": True}, None),
    # gs_688: helper bl38b (2026-12-08, session 38): the same CI's DeepSeek-R1-MXFP4-Preview online_dp_attention_torch_compile
    # mode on MI355X (v0.5.5.post3 image, 2025-11-17): dp 8 DP attention, torch compile, graphs to bs 8; the capture failed
    "gs_688": ("0.5.5.post3", "image rocm/sgl-dev:v0.5.5.post3-rocm700-mi35x-20251117 (the log's folder name)",
               {"enable_dp_attention": True, "cuda_graph_max_bs": 8}, None),
    # gs_689: helper bl38b: SGLang's docs page docs/references/deploy_on_k8s.md (DeepSeek-R1 on 2 x 8 H20 over RoCE, LWS yaml
    # with mfs 0.93, the leader's max_total_num_tokens lines of 2025-02-17)
    "gs_689": ("0.4.3", "guessed from the log's date 2025-02-17 (image sglang:latest; v0.4.3 of 2025-02-14 the newest "
                        "release that week)", {}, None),
    # gs_445-gs_451: helper gs29 (2026-12-06, session 29): committed SGLang server logs of an automated serving-tuning
    # repository (lawjarp-simplismart/autoresearch-inference-optimization experiments/*.log with their launch scripts):
    # gemma-4-31B-it at tp 4 / tp 2 on a yottah100 8x H100 host (nightly-dev-20260412 image), gemma-4-26B-A4B-it with
    # online FP8 and Qwen3.5-9B on a nebius H100 (sglang-main:v4 / lmsysorg/sglang:latest)
    **{cid: ("0.5.11.dev20260412", "image lmsysorg/sglang:nightly-dev-20260412-8da1cfb3 ('sglang 0.0.0.dev1+g2e70e4f4f'), "
                                   "run 2026-04-13: its printed ServerArgs holds the 0.5.10 wheel's 349 fields plus 9 and "
                                   "lacks 19 of the 0.5.11 wheel's 368: a main build between them", over, None)
       for cid, over in (("gs_445", {}), ("gs_446", {"disable_radix_cache": True, "cuda_graph_max_bs": 4}),
                         ("gs_447", {}), ("gs_448", {"quantization": "fp8"}))},
    **{cid: ("0.5.11.dev20260415", "image 'sglang-main:v4' (a local build of main), run 2026-04-15: its printed ServerArgs "
                                   "holds the 0.5.10 wheel's 349 fields plus 11 and lacks 18 of the 0.5.11 wheel's 368",
             over, None)
       for cid, over in (("gs_449", {"quantization": "fp8"}),
                         ("gs_450", {"quantization": "fp8", "disable_radix_cache": True, "cuda_graph_max_bs": 16}))},
    "gs_451": ("0.5.10", "image lmsysorg/sglang:latest run 2026-04-14; the printed ServerArgs has exactly the 0.5.10 "
                         "wheel's 349 fields", {"disable_radix_cache": True}, None),
    # gs_452-gs_463: helper gs29 (2026-12-06, session 29): SGLang bench_serving result lines of Massed-Compute/gpu-benchmark
    # (git blobs of its snapshot; each line's server_info is the server's /get_server_info): lmsysorg/sglang:latest on
    # Massed Compute VMs (1 x H100 / RTX PRO 6000 / L40S, 2 x H100 / RTX PRO 6000), context 4,096; the GPU from the
    # model write-up's SGLang row whose concurrency-32 output throughput is the line's
    **{cid: ("0.5.14", "the line's server_info 'version': '0.5.14'",
             {"gpu_catalog": {"gpu": "H100-PCIe-80GB", "note": "'gpu_1x_h100 — H100 80GB PCIe' (the repository's "
                              "bonsai-27b-q1-0.md / ideogram-v4-instant.md); entered blind as H100-SXM-80GB, corrected "
                              "after the first score (helper gs29)"}} if cid != "gs_458" else {}, None)
       for cid in ("gs_452", "gs_454", "gs_456", "gs_458", "gs_459", "gs_462")},
    **{cid: ("0.5.15", "the line's server_info 'version': '0.5.15.post1' (rules 0.5.15)", {}, None)
       for cid in ("gs_453", "gs_455", "gs_457", "gs_460", "gs_461", "gs_463")},
    # gs_484-gs_492: helper gs29c (2026-12-07, session 29): the nine Massed-Compute/gpu-benchmark SGLang start-ups gs29 left
    # (bench_serving result lines, each carrying /get_server_info); GPU from the write-up's SGLang row with the line's
    # concurrency-32 output throughput; 'gpu_{1,2}x_h100' is H100 80GB PCIe (the repository's bonsai / ideogram write-ups)
    **{cid: ("0.5.14", "the line's server_info 'version': '0.5.14'",
             {"gpu_catalog": {"gpu": "H100-PCIe-80GB", "note": "'gpu_1x_h100 — H100 80GB PCIe' (the repository's "
                              "bonsai-27b-q1-0.md / ideogram-v4-instant.md; the 2x SKU two of them)"}}, None)
       for cid in ("gs_484", "gs_487", "gs_489", "gs_491")},
    **{cid: ("0.5.15", "the line's server_info 'version': '0.5.15.post1' (rules 0.5.15)", {}, None)
       for cid in ("gs_485", "gs_486", "gs_488", "gs_490", "gs_492")},
    # gs_513-gs_517: helper gs30b (2026-12-07, session 30): SGLang start-ups from committed server logs and bench_serving
    # lines' server_info (HwaminJung00/sglang-peak-kv-admission, ItamarTerem/Moonlight-16B-A3B-Instruct-SGlang-benckmark,
    # gujialiang123/end2end-optimization: the repository of gs_273 / gs_274's write-up)
    "gs_513": ("0.5.18", "the README's 'SGLang 0.5.18 (71de97b)' (the v0.5.18 tag) and its vendored wheel files; a "
                         "scheduler-only patch, off", {"cuda_graph_max_bs": 24}, None),
    "gs_514": ("0.5.12", "the line's server_info 'version': '0.5.12'",
               {"cuda_graph_max_bs": 256,
                "gpu_catalog": {"gpu": "GB10", "note": "a DGX Spark host ('/home/runara_dgx_spark_1/...'); 94.03 GiB in "
                                "weights + KV + graphs at mfs 0.8 (server_info memory_usage): the catalog's GB10"}}, None),
    "gs_515": ("0.5.12", "the line's server_info 'version': '0.5.12.post1' (rules 0.5.12)", {"cuda_graph_max_bs": 256}, None),
    **{cid: ("0.5.12", "the write-up's 'SGLang 0.5.12.post1 (source)' and the log's sglang-dev env (rules 0.5.12)",
             {"disable_cuda_graph": True}, None) for cid in ("gs_516", "gs_517")},
    # gs_493-gs_512: helper gs30 (2026-12-07, session 30), added blind from michael-amd/sglang-ci's history: gs24's
    # sanity / online commands on the older image releases, the newest start of each command on the v0.5.3.post1 images
    # (2025-10-11..15; rocm630 on mi30x, rocm700 on mi35x) and the 2025-10-27/28 starts of the v0.5.4.post1 images (whose
    # ServerArgs prints aiter's x 0.90); the release is the image tag, the flags the CI script at the log's date
    "gs_493": ("0.5.3.post1", "image rocm/sgl-dev:v0.5.3.post1-rocm630-mi30x-20251013 (the log's folder name)",
               {}, None),
    "gs_494": ("0.5.3.post1", "image rocm/sgl-dev:v0.5.3.post1-rocm630-mi30x-20251013 (the log's folder name)",
               {"quantization": "fp8", "sglang_int4_weight": "on"}, None),
    "gs_495": ("0.5.3.post1", "image rocm/sgl-dev:v0.5.3.post1-rocm630-mi30x-20251013 (the log's folder name)",
               {"enable_dp_attention": True}, None),
    "gs_496": ("0.5.3.post1", "image rocm/sgl-dev:v0.5.3.post1-rocm630-mi30x-20251015 (the log's folder name)",
               {}, None),
    "gs_497": ("0.5.3.post1", "image rocm/sgl-dev:v0.5.3.post1-rocm630-mi30x-20251013 (the log's folder name)",
               {}, None),
    "gs_498": ("0.5.3.post1", "image rocm/sgl-dev:v0.5.3.post1-rocm630-mi30x-20251013 (the log's folder name)",
               {}, None),
    "gs_499": ("0.5.3.post1", "image rocm/sgl-dev:v0.5.3.post1-rocm630-mi30x-20251013 (the log's folder name)",
               {"quantization": "fp8", "sglang_int4_weight": "off"}, None),
    "gs_500": ("0.5.3.post1", "image rocm/sgl-dev:v0.5.3.post1-rocm700-mi30x-20251015 (the log's folder name)",
               {"quantization": "fp8"}, None),
    "gs_501": ("0.5.3.post1", "image rocm/sgl-dev:v0.5.3.post1-rocm700-mi35x-20251013 (the log's folder name)",
               {}, None),
    "gs_502": ("0.5.3.post1", "image rocm/sgl-dev:v0.5.3.post1-rocm700-mi35x-20251013 (the log's folder name)",
               {"quantization": "fp8", "sglang_int4_weight": "on"}, None),
    "gs_503": ("0.5.3.post1", "image rocm/sgl-dev:v0.5.3.post1-rocm700-mi35x-20251011 (the log's folder name)",
               {"enable_dp_attention": True}, None),
    "gs_504": ("0.5.3.post1", "image rocm/sgl-dev:v0.5.3.post1-rocm700-mi35x-20251013 (the log's folder name)",
               {}, None),
    "gs_505": ("0.5.3.post1", "image rocm/sgl-dev:v0.5.3.post1-rocm700-mi35x-20251013 (the log's folder name)",
               {}, None),
    "gs_506": ("0.5.4.post1", "image rocm/sgl-dev:v0.5.4.post1-rocm700-mi30x-20251028 (the log's folder name)",
               {}, None),
    "gs_507": ("0.5.4.post1", "image rocm/sgl-dev:v0.5.4.post1-rocm700-mi30x-20251028 (the log's folder name)",
               {"quantization": "fp8"}, None),
    "gs_508": ("0.5.4.post1", "image rocm/sgl-dev:v0.5.4.post1-rocm700-mi30x-20251028 (the log's folder name)",
               {"quantization": "fp8", "sglang_int4_weight": "off"}, None),
    "gs_509": ("0.5.4.post1", "image rocm/sgl-dev:v0.5.4.post1-rocm630-mi30x-20251028 (the log's folder name)",
               {}, None),
    "gs_510": ("0.5.4.post1", "image rocm/sgl-dev:v0.5.4.post1-rocm630-mi30x-20251028 (the log's folder name)",
               {"enable_dp_attention": True}, None),
    "gs_511": ("0.5.4.post1", "image rocm/sgl-dev:v0.5.4.post1-rocm700-mi30x-20251028 (the log's folder name)",
               {"quantization": "fp8", "sglang_int4_weight": "on"}, None),
    "gs_512": ("0.5.4.post1", "image rocm/sgl-dev:v0.5.4.post1-rocm700-mi30x-20251028 (the log's folder name)",
               {}, None),
    # gs_613-gs_640: helper gs31b (2026-12-07, session 31), added blind from michael-amd/sglang-ci's history: the
    # pre-0.5.6 image starts gs30 left, one per (release, checkpoint, node, flags) that no held start repeats (a start
    # with the same flags and a count within 0.01 % is a re-run); the release is the image tag, except the v0.5.4 /
    # v0.5.4.post1 images whose ServerArgs prints another release's aiter step (x 0.90 from 2025-10-26: 0.5.4.post1;
    # x 0.85 from 2025-10-29: 0.5.4.post2, engines.sglang.choices.rocm_aiter_factor); flags from the CI script
    "gs_613": ("0.5.3", "image rocm/sgl-dev:v0.5.3rc0-rocm630-mi30x-20251005 (the log's folder name); "
               "release 0.5.3rc0 (rules 0.5.3)",
               {"quantization": "fp8", "sglang_int4_weight": "off"}, None),
    "gs_614": ("0.5.3", "image rocm/sgl-dev:v0.5.3rc0-rocm630-mi30x-20251005 (the log's folder name); "
               "release 0.5.3rc0 (rules 0.5.3)",
               {}, None),
    "gs_615": ("0.5.3.post1", "image rocm/sgl-dev:v0.5.3.post1-rocm630-mi30x-20251015 (the log's folder name)",
               {}, None),
    "gs_616": ("0.5.3.post2", "image rocm/sgl-dev:v0.5.3.post2-rocm700-mi30x-20251016 (the log's folder name)",
               {}, None),
    "gs_617": ("0.5.3.post2", "image rocm/sgl-dev:v0.5.3.post2-rocm700-mi30x-20251016 (the log's folder name)",
               {}, None),
    "gs_618": ("0.5.3.post2", "image rocm/sgl-dev:v0.5.3.post2-rocm700-mi30x-20251016 (the log's folder name)",
               {"quantization": "fp8", "sglang_int4_weight": "off"}, None),
    "gs_619": ("0.5.3.post2", "image rocm/sgl-dev:v0.5.3.post2-rocm700-mi30x-20251016 (the log's folder name)",
               {}, None),
    "gs_620": ("0.5.3.post3", "image rocm/sgl-dev:v0.5.3.post3-rocm630-mi30x-20251023 (the log's folder name)",
               {"enable_dp_attention": True}, None),
    "gs_621": ("0.5.3.post3", "image rocm/sgl-dev:v0.5.3.post3-rocm630-mi30x-20251023 (the log's folder name)",
               {"enable_dp_attention": True}, None),
    "gs_622": ("0.5.4.post1", "image rocm/sgl-dev:v0.5.4.post1-rocm630-mi30x-20251028 (the log's folder name)",
               {"enable_dp_attention": True}, None),
    "gs_623": ("0.5.4.post1", "image rocm/sgl-dev:v0.5.4.post1-rocm630-mi30x-20251028 (the log's folder name)",
               {}, None),
    "gs_624": ("0.5.4.post2", "image rocm/sgl-dev:v0.5.4.post1-rocm700-mi35x-20251030 (the log's folder name); "
               "placed at 0.5.4.post2 by its printed aiter step",
               {"quantization": "fp8", "sglang_int4_weight": "off"}, None),
    "gs_625": ("0.5.4.post2", "image rocm/sgl-dev:v0.5.4.post2-rocm630-mi30x-20251104 (the log's folder name)",
               {}, None),
    "gs_626": ("0.5.4.post2", "image rocm/sgl-dev:v0.5.4.post2-rocm630-mi30x-20251104 (the log's folder name)",
               {"enable_dp_attention": True}, None),
    "gs_627": ("0.5.4.post2", "image rocm/sgl-dev:v0.5.4.post2-rocm630-mi30x-20251104 (the log's folder name)",
               {"enable_dp_attention": True, "cuda_graph_max_bs": 16}, None),
    "gs_628": ("0.5.4.post2", "image rocm/sgl-dev:v0.5.4.post2-rocm630-mi30x-20251104 (the log's folder name)",
               {}, None),
    "gs_629": ("0.5.4.post2", "image rocm/sgl-dev:v0.5.4.post2-rocm700-mi30x-20251104 (the log's folder name)",
               {"disable_cuda_graph": True}, None),
    "gs_630": ("0.5.4.post2", "image rocm/sgl-dev:v0.5.4.post2-rocm700-mi30x-20251104 (the log's folder name)",
               {"quantization": "fp8", "sglang_int4_weight": "off"}, None),
    "gs_631": ("0.5.4.post2", "image rocm/sgl-dev:v0.5.4.post2-rocm700-mi30x-20251104 (the log's folder name)",
               {"quantization": "fp8"}, None),
    "gs_632": ("0.5.4.post2", "image rocm/sgl-dev:v0.5.4.post2-rocm700-mi30x-20251104 (the log's folder name)",
               {}, None),
    "gs_633": ("0.5.4.post2", "image rocm/sgl-dev:v0.5.4.post2-rocm700-mi35x-20251104 (the log's folder name)",
               {"quantization": "fp8", "sglang_int4_weight": "on"}, None),
    "gs_634": ("0.5.4.post2", "image rocm/sgl-dev:v0.5.4.post2-rocm700-mi35x-20251104 (the log's folder name)",
               {"quantization": "fp8"}, None),
    "gs_635": ("0.5.4.post2", "image rocm/sgl-dev:v0.5.4.post2-rocm700-mi35x-20251104 (the log's folder name)",
               {}, None),
    "gs_636": ("0.5.4.post3", "image rocm/sgl-dev:v0.5.4.post3-rocm630-mi30x-20251105 (the log's folder name)",
               {"quantization": "fp8"}, None),
    "gs_637": ("0.5.4.post3", "image rocm/sgl-dev:v0.5.4.post3-rocm700-mi35x-20251105 (the log's folder name)",
               {"quantization": "fp8"}, None),
    "gs_638": ("0.5.5", "image rocm/sgl-dev:v0.5.5-rocm700-mi35x-20251109 (the log's folder name)",
               {}, None),
    "gs_639": ("0.5.5", "image rocm/sgl-dev:v0.5.5-rocm700-mi35x-20251109 (the log's folder name)",
               {}, None),
    "gs_640": ("0.5.5", "image rocm/sgl-dev:v0.5.5-rocm700-mi35x-20251109 (the log's folder name)",
               {}, None),
    # gs_661-gs_671: helper gs31d (2026-12-07, session 31): the 11 distinct pre-0.5.6 starts of michael-amd/sglang-ci that
    # round gs31b selected under its rule (one per release, checkpoint, node, flags; re-runs within 0.01 % once) and left
    "gs_661": ("0.5.5", "image rocm/sgl-dev:v0.5.5-rocm700-mi30x-20251110 (the log's folder name)",
               {"enable_dp_attention": True}, None),
    "gs_662": ("0.5.5.post1", "image rocm/sgl-dev:v0.5.5.post1-rocm700-mi35x-20251111 (the log's folder name)",
               {"quantization": "fp8", "sglang_int4_weight": "on"}, None),
    "gs_663": ("0.5.5.post1", "image rocm/sgl-dev:v0.5.5.post1-rocm700-mi35x-20251111 (the log's folder name)",
               {"quantization": "fp8"}, None),
    "gs_664": ("0.5.5.post2", "image rocm/sgl-dev:v0.5.5.post2-rocm700-mi30x-20251113 (the log's folder name)",
               {}, None),
    "gs_665": ("0.5.5.post2", "image rocm/sgl-dev:v0.5.5.post2-rocm700-mi30x-20251114 (the log's folder name)",
               {"enable_dp_attention": True}, None),
    "gs_666": ("0.5.5.post2", "image rocm/sgl-dev:v0.5.5.post2-rocm700-mi30x-20251114 (the log's folder name)",
               {"quantization": "fp8"}, None),
    "gs_667": ("0.5.5.post2", "image rocm/sgl-dev:v0.5.5.post2-rocm700-mi30x-20251114 (the log's folder name)",
               {"disable_cuda_graph": True}, None),
    "gs_668": ("0.5.5.post2", "image rocm/sgl-dev:v0.5.5.post2-rocm700-mi35x-20251114 (the log's folder name)",
               {"quantization": "fp8"}, None),
    "gs_669": ("0.5.5.post2", "image rocm/sgl-dev:v0.5.5.post2-rocm700-mi35x-20251114 (the log's folder name)",
               {}, None),
    "gs_670": ("0.5.5.post2", "image rocm/sgl-dev:v0.5.5.post2-rocm700-mi35x-20251114 (the log's folder name)",
               {}, None),
    "gs_671": ("0.5.5.post3", "image rocm/sgl-dev:v0.5.5.post3-rocm700-mi30x-20251130 (the log's folder name)",
               {"cuda_graph_max_bs": 256}, None),
    # gs_676: helper gs32a (2026-12-07, session 32): a start-up of SGLang as an RL framework's rollout engine, committed
    # by radixark/miles (logs/cp2_ep4.log, 304c748b): Qwen3.5-35B-A3B, one engine at tp 8 / ep 8 on 8x H200, EAGLE on
    # the MTP layer; the colocated Megatron trainer starts after the pool is sized.  Entered blind with free_at_start =
    # the smallest rank's 'Load weight begin' (137.72 GiB); tpkit refused it (harness.machine_of: that figure lies above
    # the plan's own pre-load prediction, 137.15 GiB at tp 8, so the profile's free memory would exceed the card), the
    # first outcome in blind_scores.json ('listed, not scored').  Changed after that outcome (docs/accuracy.md §6.4
    # round gs32a, not blind): free_at_start dropped, since the log's own lines show the cards empty before the engine
    # (Init torch distributed mem usage + 'Load weight begin' = 139.26-139.27 GiB on every rank of the H200's 139.80:
    # only the engine's CUDA context) and free_at_start is for cards other processes share
    "gs_676": ("0.5.9", "miles' Dockerfile at the log's commit: FROM lmsysorg/sglang:v0.5.9 with the 'sglang-miles' branch "
                        "over it; the printed ServerArgs = the 0.5.9 wheel's 328 fields + 2 of the branch's",
               {"speculative_algorithm": "EAGLE", "speculative_num_steps": 2, "speculative_eagle_topk": 1,
                "speculative_num_draft_tokens": 3, "cuda_graph_max_bs": 512, "disable_radix_cache": True,
                "disable_overlap_schedule": True}, None),
    # gs_677: helper gs32a: the SGLang server of TRL's GRPO SGLang-backend branch (huggingface/trl PR #2981,
    # mytest.ipynb at 10bcbb8c, 2025-02-20): Qwen2.5-0.5B-Instruct at tp 1 on one unnamed 80 GB card
    "gs_677": ("0.4.3", "not printed: the branch installs sglang from git main (2025-02-20); the printed ServerArgs = the "
                        "0.4.3 / 0.4.3.post2 wheels' 98 fields",
               {"gpu_assumed": {
                   "gpu": "A100-SXM-80GB", "candidates": ["A100-SXM-80GB", "H100-SXM-80GB"],
                   "note": "GPU not named (the notebook sets CUDA_VISIBLE_DEVICES=7); 78.84 GiB available before the load "
                           "fits the 80 GB class only (A100-80GB or H100-80GB: 79.15 / 79.19 GiB CUDA totals). Planned "
                           "on the first candidate, as gs_130; every candidate's prediction lies inside the others' "
                           "bands (tests/validation/test_validation_set.py checks it)"}}, None),
    # gs_678-gs_681: helper gs32c (2026-12-07, session 32): executed SGLang docs notebooks in the fork jhinpan/sglang-test
    'gs_678': ('0.3.4.post2',
               "the fork's pyproject.toml at the output's commit: version 0.3.4.post2 (docs run 2024-10-30, main before v0.3.5)",
               {'free_at_start': {'evidence': "SGLang's pre_model_load_memory ('Load weight begin. avail mem', "
                                              "GiB printed as 'GB') of the docs H100 (gs_169's machine, the same "
                                              '76.83 GiB on 2024-10-30 and 2024-11-02; 78.59 GiB on empty starts '
                                              'of that era): another process held ~1.8 GiB',
                                  'gib': 76.83,
                                  'line': '[2024-10-30 09:32:43 TP0] Load weight begin. avail mem=76.83 GB'}}, None),
    'gs_679': ('0.3.4.post2',
               "the fork's pyproject.toml at the output's commit: version 0.3.4.post2 (run 2024-10-28, main before v0.3.5)",
               A6000_BY_ELIMINATION, None),
    'gs_680': ('0.3.4.post2',
               "the fork's pyproject.toml at the output's commit: version 0.3.4.post2 (run 2024-10-31, main before v0.3.5)",
               A6000_BY_ELIMINATION, None),
    'gs_681': ('0.4.6.post2',
               "not printed: run 2025-05-05 from source between v0.4.6.post2 and v0.4.6.post3; the printed ServerArgs = the 0.4.6.post2 wheel's 124 fields",
               {'gpu_assumed': {'candidates': ['L40S', 'L40', 'L20', 'A40'],
                                'gpu': 'L40S',
                                'note': "not named (a dev container, /workspaces/sglang/.venv): 'Init torch "
                                        "distributed ends. mem usage=0.00 GB' then 'Load weight begin. avail "
                                        "mem=43.89 GB' at tp 1 fits the 44 GiB class only (L40S / L40 / L20: "
                                        '44.39 GiB CUDA totals; A40 44.34), 0.45-0.50 GiB below the total, the '
                                        'CUDA context of an empty card; a 48 GB card (47.4-47.5) or larger would '
                                        'print more. Planned on the first candidate, as vp_ cases of this class; '
                                        "every candidate's prediction lies inside the others' bands "
                                        '(tests/validation/test_validation_set.py checks it)'}}, None),
    # gs_682: helper gs34 (2026-12-07, session 34): a committed SGLang stdout (Abhinav-Kotta/sglang_work output.txt),
    # the release pinned by the same commit's conda file, the 24 GB card placed by the printed default mem fraction
    'gs_682': ('0.5.0rc1',
               "infEngine.yml at the output's commit pins sglang==0.5.0rc1 (run 2025-08-14); tpkit's 0.4.10-era rules",
               {'cuda_graph_max_bs': 8,
                'gpu_assumed': {'candidates': ['RTX-4090', 'RTX-3090', 'RTX-A5000'],
                                'gpu': 'RTX-4090',
                                'note': "not named: SGLang's own mem_fraction_static=0.879 (0.5.0rc1 server_args.py: "
                                        "round((gpu_mem - (2.8 + tp*pp/10) * 1024) / gpu_mem, 3), gpu_mem the "
                                        "nvidia-smi total in MiB) needs 24,441-24,644 MiB: the 24 GB class (RTX 4090 / "
                                        "RTX A5000 24,564 MiB, RTX 3090 24,576 MiB); 'Load weight begin. avail "
                                        "mem=23.16 GB' after 'Init torch distributed ends. mem usage=0.00 GB' leaves "
                                        "0.38-0.49 GiB of CUDA context. Planned on the first candidate; every "
                                        "candidate's prediction lies inside the others' bands "
                                        "(tests/validation/test_validation_set.py checks it)"}}, None),
    # gs_683: helper gs34 (2026-12-07, session 34): the FullKV arm of a HeadKV study's S5 round (XinzeLi-isuc/HeadKV-SGLang
    # artifacts/s5_fullkv_cg.log): SGLang main e1c4db962 ('0.5.18.dev') with the fork's HeadKV code off, RTX A6000
    'gs_683': ('0.5.18.dev20260813',
               "the commit message 'sglang 0.5.18.dev@e1c4db962' (main of 2026-08-13, run 2026-08-14): tpkit's 0.5.15-era rules",
               {'disable_radix_cache': True,
                'gpu_catalog': {'gpu': 'RTX-A6000', 'note': "the study's EXPERIMENTS.md §11.2 '4 server × 4 GPU, A6000': the catalog's RTX-A6000"}},
               None),
    # gs_465: helper gs29b (2026-12-06, session 29): a committed SGLang server log of a Nebius InferenceX reproduction
    # (heyram74/nebius_sopertors_inferencex_benchmark): DeepSeek-R1-0528 at tp 8 on H200, InferenceX's dsr1_fp8_h200.sh flags
    "gs_465": ("0.5.12", "image lmsysorg/sglang:v0.5.12-cu130 (scripts/run_deepseekr1.sh), run 2026-06-11; the printed "
                         "ServerArgs has exactly the 0.5.12 wheel's 381 fields",
               {"cuda_graph_max_bs": 512, "disable_radix_cache": True}, None),
    # gs_466-gs_481: helper gs29b (2026-12-06, session 29): bench_serving result files of a RunPod sweep (Scicom-AI-Enterprise-
    # Organization/llm-benchmaq benchmarks/sglang/runpod_*), each line carrying the server's /get_server_info (version printed)
    "gs_466": ("0.5.8.post1", "printed (server_info version); its server-args keys are the 0.5.8.post1 wheel's 325 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_467": ("0.5.8.post1", "printed (server_info version); its server-args keys are the 0.5.8.post1 wheel's 325 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_468": ("0.5.8.post1", "printed (server_info version); its server-args keys are the 0.5.8.post1 wheel's 325 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_469": ("0.5.8.post1", "printed (server_info version); its server-args keys are the 0.5.8.post1 wheel's 325 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_470": ("0.5.8.post1", "printed (server_info version); its server-args keys are the 0.5.8.post1 wheel's 325 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_471": ("0.5.8.post1", "printed (server_info version); its server-args keys are the 0.5.8.post1 wheel's 325 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_472": ("0.5.9", "printed (server_info version); its server-args keys are the 0.5.9 wheel's 328 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_473": ("0.5.9", "printed (server_info version); its server-args keys are the 0.5.9 wheel's 328 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_474": ("0.5.9", "printed (server_info version); its server-args keys are the 0.5.9 wheel's 328 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_475": ("0.5.9", "printed (server_info version); its server-args keys are the 0.5.9 wheel's 328 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_476": ("0.5.9", "printed (server_info version); its server-args keys are the 0.5.9 wheel's 328 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_477": ("0.5.9", "printed (server_info version); its server-args keys are the 0.5.9 wheel's 328 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_478": ("0.5.9", "printed (server_info version); its server-args keys are the 0.5.9 wheel's 328 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_479": ("0.5.9", "printed (server_info version); its server-args keys are the 0.5.9 wheel's 328 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_480": ("0.5.9", "printed (server_info version); its server-args keys are the 0.5.9 wheel's 328 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_481": ("0.5.9", "printed (server_info version); its server-args keys are the 0.5.9 wheel's 328 fields", {"cuda_graph_max_bs": 512}, None),
    # gs_482 / gs_483: helper gs29b: the same sweep's Qwen3.5-122B-A10B starts, with an assembled config (entered after the rest)
    "gs_482": ("0.5.9", "printed (server_info version); its server-args keys are the 0.5.9 wheel's 328 fields", {"cuda_graph_max_bs": 512}, None),
    "gs_483": ("0.5.9", "printed (server_info version); its server-args keys are the 0.5.9 wheel's 328 fields", {"cuda_graph_max_bs": 512}, None),
    # gs_533-gs_535: helper gs30c (2026-12-07, session 30): an agent-run SGLang prefix-cache study's committed raw files
    # (lyell0710/sglang-prefix-lab, 2026-08-24, two RTX 4090s, venv pinned to sglang 0.5.18): two server logs of Qwen3-0.6B
    # (mfs 0.8; mfs 0.35 with context 4,096) and the 8B arm's /metrics dump (Qwen3-8B, mfs 0.85)
    **{cid: ("0.5.18", "the venv's pip freeze 'sglang==0.5.18' (router-lab/data/raw/EXP-S01/20260824T161031_pip_freeze.txt) "
                       "and ENV.md's pin", {}, None)
       for cid in ("gs_533", "gs_534", "gs_535")},
    # gs_536 / gs_537: the same host's two colliding Qwen3-0.6B starts on GPU0 (2026-08-24 16:12): the sibling lab's
    # smoke (mfs 0.55, context 4,096) sized its pool on the empty card; the study's worker (mfs 0.8) then started beside it
    "gs_536": ("0.5.18", "the venv's pip freeze 'sglang==0.5.18' (router-lab/data/raw/EXP-S01/20260824T161031_pip_freeze.txt)",
               {}, None),
    "gs_537": ("0.5.18", "the venv's pip freeze 'sglang==0.5.18' (router-lab/data/raw/EXP-S01/20260824T161031_pip_freeze.txt)",
               {"free_at_start": {
                   "gib": 9.17,
                   "line": "[2026-08-24 16:12:34] Load weight begin. avail mem=9.17 GB",
                   "evidence": "SGLang's pre_model_load_memory ('Load weight begin. avail mem', GiB printed as 'GB') of the "
                               "RTX 4090 that printed 23.07 GiB when empty: gs_536's server held ~13.9 GiB, its memory "
                               "unchanged while this pool was sized (its first capture step ran 16:12:19-16:13:16)"}}, None),
    # gs_553-gs_561: helper gs30e (2026-12-07, session 30): committed sglang.benchmark.one_batch logs of a research fork
    # (matin-gugugu/sglang-dev experiment-results/**/run.log) on 8x B200: Qwen3-8B tp 2/4/8, Qwen3-30B-A3B tp 2/4,
    # DeepSeek-V2-Lite tp 2/4/8 at --mem-fraction-static 0.85 and DeepSeek-V3.2 tp 4 at 0.95, CUDA graphs off
    **{cid: ("0.5.15", "the fork's python/sglang/_version.py '0.5.15'; the same tree's launch_server log of 2026-08-07 "
                       "prints a ServerArgs with exactly the 0.5.15 wheel's 422 field names",
             {"disable_cuda_graph": True}, None)
       for cid in ("gs_553", "gs_554", "gs_555", "gs_556", "gs_557", "gs_558", "gs_559", "gs_560", "gs_561")},
    # gs_562: helper gs30e: QwQ-32B at tp 4 on four 96 GB Hopper cards (xiewanchao/sglang-test-data-table 1216/recaculate.log)
    "gs_562": ("0.5.5", "the printed ServerArgs has exactly the 0.5.5 wheel's 272 fields (run 2025-12-16)", {}, None),
    # gs_563: helper gs30e: Meta-Llama-3-8B-Instruct at tp 1 on an 80 GB Hopper card (Luoxiaogan/sglang_CUSTOM server_1.log)
    "gs_563": ("0.4.9.post4", "the printed ServerArgs has exactly the 0.4.9.post3 / 0.4.9.post4 wheels' 176 fields "
                              "(run 2025-07-29)", {}, None),
    # gs_573-gs_575: helper gs30f (2026-12-07, session 30): the same fork's pipeline-parallel launch_server logs
    # (matin-gugugu/sglang-dev experiment-results/phase19_pp_pattern/qwen3-8b-formal-v3/pp{2,4,8}/mb1/server.log):
    # Qwen3-8B at pp 2 / 4 / 8, tp 1, --mem-fraction-static 0.75, CUDA graphs off, on the 8x B200 host
    **{cid: ("0.5.15", "the fork's python/sglang/_version.py '0.5.15'; these logs' ServerArgs carry exactly the 0.5.15 "
                       "wheel's 422 field names (round gs30e)",
             {"disable_cuda_graph": True}, None)
       for cid in ("gs_573", "gs_574", "gs_575")},
    # gs_576-gs_584: helper gs30f: gujialiang123/end2end-optimization's v4 decode sweep (results/2026-07-07_v4_decode_sweep):
    # Qwen3-0.6B, Qwen3-30B-A3B-Instruct-2507 and its FP8 checkpoint on one H200, three launch configurations each
    **{cid: ("0.5.12", "the write-up's 'SGLang 0.5.12.post1 (source)' and the log's sglang-dev env (rules 0.5.12)", {}, None)
       for cid in ("gs_576", "gs_577", "gs_578", "gs_579", "gs_580", "gs_581", "gs_582", "gs_583", "gs_584")},
    # gs_585: helper gs30f: the v43 server A/B's 'tuned' arm (results/2026-07-20_v43_server_e2e/tuned_*.jsonl; gs_515 the default)
    "gs_585": ("0.5.12", "the line's server_info 'version': '0.5.12.post1' (rules 0.5.12)", {"cuda_graph_max_bs": 256}, None),
    # gs_593 / gs_594: helper gs31a (2026-12-07, session 31): the same fork's other one_batch logs (8x B200): Qwen3-30B-A3B
    # at tp 8 (phase12 admission smoke, CUDA graphs off) and Qwen3-8B at tp 2 with CUDA graphs on (phase0 qwen3_8b_hist_tp2)
    "gs_593": ("0.5.15", "the fork's python/sglang/_version.py '0.5.15'; the same tree's launch_server log of 2026-08-07 "
                         "prints a ServerArgs with exactly the 0.5.15 wheel's 422 field names (round gs30e)",
               {"disable_cuda_graph": True}, None),
    "gs_594": ("0.5.15", "the fork's python/sglang/_version.py '0.5.15'; the same tree's launch_server log of 2026-08-07 "
                         "prints a ServerArgs with exactly the 0.5.15 wheel's 422 field names (round gs30e)", {}, None),
    # gs_641: helper gs31c: end2end-optimization's harness arm 'sglang-native-cutlass-fp8' (results/2026-06-11_harness-v1),
    # the FP8 checkpoint with SGLang's cutlass MoE runner and CUDA graphs on (gs_517 the triton arm, graphs off)
    "gs_641": ("0.5.12", "the write-up's 'SGLang 0.5.12.post1 (source)' and the log's sglang-dev env (rules 0.5.12)", {}, None),
    # gs_642: helper gs31c: the 2026-06-25 autotuner's trial 14 of R_long_prefill (64 running, graphs on, triton MoE)
    "gs_642": ("0.5.12", "the write-up's 'SGLang 0.5.12.post1 (source)' and the log's sglang-dev env (rules 0.5.12)", {}, None),
    # gs_643-gs_646: helper gs31c: gujialiang123/MOEresearch (the same H200 host and sglang-dev env): the regime study's
    # gemma-3-1b-it, the spec study's Qwen3-32B baseline, the MoE-level study's triton_kernel arm, the v19 wall sweep
    **{cid: ("0.5.12", "the write-up's 'SGLang 0.5.12.post1 (source)' and the sibling server_info 'version' 0.5.12.post1 "
                       "(rules 0.5.12)", {}, None) for cid in ("gs_643", "gs_645", "gs_646")},
    "gs_644": ("0.5.12", "the folder's server_info 'version': '0.5.12.post1' (rules 0.5.12)", {"cuda_graph_max_bs": 256}, None),
    # gs_701 / gs_702: helper gs32b (2026-12-07, session 32): teo-ma/rtxpro6000-benchmark's two committed SGLang server
    # logs (Azure NC RTX PRO 6000 BSE v6, a whole-card MIG 4g.96gb vGPU instance of 94,895 MiB): Qwen3-14B-FP8 and
    # genovalabs' Qwen2.5-72B-Instruct FP8, tp 1, the launch script's --quantization fp8 (a flag the command gives)
    **{cid: ("0.5.6", "the printed ServerArgs carries exactly the 0.5.6.post2 wheel's 291 field names, in order; the "
                      "repository's 'sglang 0.5.6.post2' (rules 0.5.6, as gs_256)", {"quantization": "fp8"}, None)
       for cid in ("gs_701", "gs_702")},
}

# --- vLLM ------------------------------------------------------------------------------------------------------
VLLM = {
    "vl_001": ("v0", "V0 engine at main on 2025-01-16 (between v0.6.6 and v0.7.0)",
               {"config_file": "meta-llama--Llama-3.2-11B-Vision-Instruct.json"}, None),  # same layout as the base model
    "vl_002": ("0.8.5", "V1 engine at main on 2025-04-24 (v0.8.4/0.8.5)", {}, None),
    "vl_003": (None, "", {}, "GPU not stated; LMCache connector"),
    "vl_004": ("v0", "V0 engine, issue dated 2025-02-11 (v0.7.x)", {"block_size": 16}, None),
    "vl_010": (None, "", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "vl_012": (None, "", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "vl_021": ("0.10.2", "printed 'vLLM API server version 0.10.2'", {}, None),
    "vl_022": ("current", "2026-era wheels (CUDA 13); release not printed", {}, None),
    "vl_024": (None, "", {}, "Qwen3-VL-30B-A3B-Instruct-FP8: no config in the set"),
    "vl_025": ("v0", "printed 'Initializing a V0 LLM engine (v0.8.2)'", {}, None),
    "vl_030": ("v0", "V0-style profile line (v0.6.5-0.8.x)", {}, None),
    "vl_031": ("0.10.2", "printed 'Initializing a V1 LLM engine (v0.10.2)'",
               {"config_file": "llava-hf--llava-v1.6-mistral-7b-hf.json"}, None),
    "vl_044": ("0.7.2", "V1 engine of v0.7.2 (VLLM_USE_V1=1): the log's source line numbers are 0.7.2's",
               {"config_file": "ibm-granite--granite-3.0-3b-a800m-instruct.json"}, None),
    "vl_033": ("current", "late 0.2x (log of 2026-08, 'consumed memory' wording)", {}, None),
    "vl_039": ("v0", "V0, dated 2024-08-19 (v0.5.4)", {}, None),  # config completed (vocab, positions)
    "vl_046": ("v0", "V0 gpu_executor lines, torch 2.5.1 (v0.6.4-0.7.x)", {}, None),
    "vl_047": ("0.8.4", "title v0.8.4", {}, None),
    "vl_048": (None, "", {}, "pipeline over two different GPUs (RTX 5070 Ti + RTX 5090 D): one GPU type per plan"),
    "vl_050": (None, "", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "vl_051": (None, "", {}, "EAGLE speculative decoding (draft not modelled on this branch; helper V)"),
    "vl_056": ("0.9.1", "issue of 2025-07-24, kv_cache_utils.py:634 (V1 0.8.5-0.9.x)", {}, None),
    "vl_057": (None, "", {}, "GPU total not printed ('46GB', L40S/A40/L40 class)"),
    "vl_059": (None, "", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "vl_060": (None, "", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "vl_066": (None, "", {},
               "re-read 2026-12-03: COLLECTION_EDITS holds its current state"),
    "vl_068": ("v0", "V0 (Turing), log of 2025-06 (v0.8.5/0.9.0)", {"disable_custom_all_reduce": True}, None),
    "vl_069": ("v0", "V0 (as vl_068)", {}, None),
    "vl_071": ("0.8.2:v0", VL071_BASIS, {"config_file": "gaunernst--gemma-3-27b-it-int4-awq.json",
                                         "config_confidence": VL071_CONFIDENCE}, None),  # helper cfg3 (COLLECTION_EDITS)
}


def _gib(x):
    return round(x * 2**30)


def _config(name: str | None) -> str | None:
    if not name:
        return None
    for d in CONFIG_DIRS:  # the repo copy first: it may have been completed (see its _assembled_note)
        if (d / name).exists():
            CONFIGS.mkdir(parents=True, exist_ok=True)
            if d != CONFIGS:
                shutil.copyfile(d / name, CONFIGS / name)
            return name
    return None


def _kvdt(text: str | None) -> str:
    t = (text or "auto").split(" ")[0]
    return t if t in ("auto", "fp8", "fp8_e4m3", "fp8_e5m2", "bf16", "fp16") else "auto"


def _gpu(case: dict) -> dict:
    """Catalog name, or the printed total + family for GPUs the catalog lacks."""
    name = case["gpu"] or ""
    rep = (case.get("reported") or {}).get("extra") or {}
    known = ("H100-SXM-80GB", "H100-80GB", "H20-141GB", "H200-SXM-141GB", "B200", "GB200", "L4", "L40S", "RTX-4090", "RTX-5090",
             "RTX-3090", "RTX-PRO-6000", "A100-SXM-40GB", "A100-SXM-80GB", "A100-80GB", "MI300X", "H20-141GB",
             "MI355X", "H20-96GB", "T4", "RTX-5080",
             "GH200-96GB", "GH200-144GB", "RTX-A5000",  # GH200, RTX-A5000: helper gh18, 2026-12-05
             "Quadro-RTX-6000", "RTX-PRO-4000", "RTX-5090-Laptop",  # helper cat20, 2026-12-06
             "H200-NVL",  # helper gs29c, 2026-12-07: Massed Compute 'gpu_2x_h200_nvl' (the catalog's H200-NVL entry)
             "RTX-4060-Laptop")  # helper bl32b, 2026-12-07: the catalog's laptop entry (vp_1086 / vp_1087)
    if name in known:
        return {"gpu": name}
    if re.fullmatch(r"\S+-MIG-\d+g\.\d+gb", name):  # a MIG slice of a catalog GPU (helper mig18, 2026-12-05)
        return {"gpu": name, "gpu_note": case.get("gpu_variant_note") or name}
    if name.startswith("H800"):  # catalog entries added by helper gpux, 2026-12-04
        return {"gpu": "H800", "gpu_note": "H800 catalog entry (helper gpux, 2026-12-04): the H100 SXM total and rates, "
                                          "NVLink 400 GB/s; torch's name 'NVIDIA H800' has no 'h100' for vLLM <= 0.8.4"}
    if case.get("gpu_family") and (case.get("total_gpu_memory_gib") or rep.get("total_gpu_memory_gib")):
        total = case.get("total_gpu_memory_gib") or rep["total_gpu_memory_gib"]
        return {"gpu": None, "gpu_total_bytes": _gib(total), "gpu_family": case["gpu_family"],
                "gpu_note": f"{name}: {case.get('gpu_variant_note') or 'the total the source prints'}"}
    if "RTX-2080-Ti-22GB" in name:
        return {"gpu": None, "gpu_total_bytes": _gib(rep["total_gpu_memory_gib"]), "gpu_family": "turing",
                "gpu_note": "modded 22 GB RTX 2080 Ti: the total vLLM prints"}
    total = rep.get("total_gpu_memory_gib") or rep.get("total_gib")
    if total:
        return {"gpu": None, "gpu_total_bytes": _gib(total), "gpu_family": "unknown",
                "gpu_note": f"{name}: the total vLLM prints; family unknown"}
    return {"gpu": None, "gpu_note": name}


def _families(case: dict) -> list[str]:
    arch = (case.get("arch_class") or "") + " " + (case.get("notes") or "")[:0]
    out = []
    for key, fam in (("dense", "dense"), ("moe", "MoE"), ("mla", "MLA"), ("swa", "SWA"), ("vlm", "VLM"),
                     ("mamba", "hybrid"), ("linear", "hybrid")):
        if key in arch.lower():
            out.append(fam)
    if case.get("speculative"):
        out.append("spec-decode")
    if "dp-attention" in str(case.get("other_settings") or "").lower() or "dp attention" in str(case.get("parallelism_note") or "").lower():
        out.append("DP attention")
    return out or [case.get("arch_class") or "unknown"]


def _printed_sglang(case: dict) -> dict:
    rep = case["reported"]
    return {"metric": "kv_tokens", "value": rep["kv_tokens"],
            "line": "KV Cache is allocated. #tokens / max_total_num_tokens (rank 0)"}


def _printed_vllm(case: dict) -> dict | None:
    rep = case["reported"] or {}
    log = " ".join(case.get("log") or [])
    if rep.get("kv_blocks") and not rep.get("kv_tokens") or ("# GPU blocks" in log and rep.get("kv_blocks")):
        return {"metric": "kv_blocks", "value": rep["kv_blocks"], "line": "# GPU blocks"}
    if rep.get("kv_tokens"):
        if "estimated maximum model length" in log:
            return {"metric": "estimated_max_model_len", "value": rep["kv_tokens"],
                    "line": "estimated maximum model length (start-up error)"}
        return {"metric": "kv_tokens", "value": rep["kv_tokens"], "line": "GPU KV cache size: N tokens"}
    if rep.get("max_concurrency") and case.get("max_model_len"):
        return {"metric": "max_concurrency", "value": rep["max_concurrency"],
                "line": f"Maximum concurrency for {case['max_model_len']} tokens per request"}
    if rep.get("available_kv_cache_gib") is not None:  # no capacity quoted (helper new): the budget itself
        return {"metric": "available_kv_gib", "value": rep["available_kv_cache_gib"],
                "line": "gpu_worker.py 'Available KV cache memory: X GiB'"}
    return None


def _printed_weights(engine: str, case: dict) -> dict | None:
    """The weights the log prints (vLLM 'Model loading took'), or SGLang's load usage (avail before − after)."""
    rep = case.get("reported") or {}
    if engine == "vllm" and rep.get("weights_gib"):
        return {"gib": rep["weights_gib"], "what": "vLLM 'Model loading took' / profile 'model weights take'"}
    before, after = rep.get("avail_mem_before_load_gib"), rep.get("avail_mem_after_load_gib")
    if engine == "sglang" and before and after:
        return {"gib": round(before - after, 2), "what": "SGLang 'Load weight begin' − 'Load weight end' avail mem"}
    if engine == "sglang" and rep.get("weights_gib"):
        return {"gib": rep["weights_gib"], "what": "SGLang 'Load weight end … mem usage'"}
    return None


def _sglang_flags(case: dict, over: dict) -> dict:
    flags = {"mem_fraction_static": case["mem_fraction_static"], "context_length": case["context_length"],
             "page_size": case["page_size"], "kv_cache_dtype": _kvdt(case["kv_cache_dtype"]),
             "chunked_prefill_size": case["chunked_prefill_size"], "max_running_requests": case["max_running_requests"]}
    other = str(case.get("other_settings") or "")
    if "max_total_tokens=" in other:
        flags["max_total_tokens"] = int(other.split("max_total_tokens=")[1].split()[0])
    ssm = re.search(r"--mamba-ssm-dtype[ =]+(float32|bfloat16|float16)\b", other)
    if ssm:  # helper sgf14: the launch's --mamba-ssm-dtype (SglangOptions.mamba_ssm_dtype), for every case stating it
        flags["mamba_ssm_dtype"] = ssm.group(1)
    mmt = re.search(r"--mm-feature-transport[ =]+(cpu|cuda_ipc|cuda_vmm)\b", other)
    if mmt:  # helper sgf14: the launch's --mm-feature-transport as given (SglangOptions.mm_feature_transport)
        flags["mm_feature_transport"] = mmt.group(1)
    backend = re.search(r"--attention-backend[ =]+([a-z_0-9]+)\b", f"{case.get('command') or ''} {other}")
    if backend:  # helper ab28: the launch's --attention-backend (SglangOptions.attention_backend; the ROCm aiter x 0.85
        flags["attention_backend"] = backend.group(1)  # applies to aiter only: engines.sglang.choices.rocm_aiter_factor)
    flags.update(over)
    return {k: v for k, v in flags.items() if v is not None}


def _vllm_flags(case: dict, over: dict) -> dict:
    flags = {"gpu_memory_utilization": case["gpu_memory_utilization"], "max_model_len": case["max_model_len"],
             "block_size": case["block_size"], "max_num_batched_tokens": case["max_num_batched_tokens"],
             "max_num_seqs": case["max_num_seqs"], "kv_cache_dtype": _kvdt(case["kv_cache_dtype"])}
    cmd = case.get("command") or ""
    # the cuda_graph note names --enforce-eager when the run had it ("none: --enforce-eager (...)"), but also when it
    # says the flag was absent ("no --enforce-eager in the flags"): only an affirmative mention counts
    graphs = str(case.get("cuda_graph") or "")
    if "--enforce-eager" in cmd or ("--enforce-eager" in graphs and "no --enforce-eager" not in graphs):
        flags["enforce_eager"] = True
    # helper v11a: the offline API's keyword form (LLM(..., enforce_eager=True)), in the command or the graph note
    if re.search(r"\benforce_eager\s*=\s*True\b", cmd) or re.match(r"(none: )?enforce_eager=True\b", graphs):
        flags["enforce_eager"] = True
    if "--disable-custom-all-reduce" in str(case.get("other_settings") or ""):
        flags["disable_custom_all_reduce"] = True
    if (case.get("dtype") or "").startswith("float16"):
        flags["dtype"] = "float16"
    backend = re.search(r"--attention-backend[ =](\S+)", cmd)  # vLLM's --attention-backend, where the command names it
    if backend and backend.group(1) != "auto":
        flags["attention_backend"] = backend.group(1)
    cap = re.search(r"--max-cudagraph-capture-size[ =](\d+)", cmd)  # vLLM's --max-cudagraph-capture-size, where named
    if cap:
        flags["max_cudagraph_capture_size"] = int(cap.group(1))
    sizes = re.search(r"--cudagraph-capture-sizes[ =]((?:\d+[ ,]*)+)", cmd)  # vLLM's list flag (helper cap11)
    if sizes:
        flags["cudagraph_capture_sizes"] = [int(x) for x in re.findall(r"\d+", sizes.group(1))]
    level = re.search(r"(?:--optimization-level[ =]|(?<!\S)-O ?)([0-3])\b", cmd)  # vLLM's -O (helper cap11)
    if level:
        flags["optimization_level"] = int(level.group(1))
    mode = re.search(r"cudagraph_mode\W+(\w+)", cmd)  # --compilation-config '{"cudagraph_mode": ...}' (helper cap11)
    if mode:
        flags["cudagraph_mode"] = mode.group(1).upper()
    spec = re.search(r"--speculative[-_]config[ =]'([^']*)'", cmd)  # vLLM's JSON speculative config (helper hyb11)
    if spec:
        flags["speculative_config"] = spec.group(1)
    est = re.search(r"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=([01])\b", cmd)  # the env the command sets (hyb11)
    if est:
        flags["vllm_memory_profiler_estimate_cudagraphs"] = est.group(1)
    if case.get("entrypoint") == "llm":  # helper llmc: the offline LLM class's V1 batch defaults (VllmOptions)
        flags["vllm_entrypoint"] = "llm"
    q = case.get("quantization") or ""
    if "--quantization" in cmd:
        flags["quantization"] = next((m for m in ("awq", "gptq", "fp8") if m in q), None)
    flags.update(over)
    return {k: v for k, v in flags.items() if v is not None}


def _checkpoint_quant(case: dict, config_file: str | None) -> str | None:
    """The checkpoint's quantisation method when the config copy lacks its ``quantization_config`` block (the
    engine reads it from the checkpoint; tpkit gets it as the equivalent flag)."""
    if not config_file:
        return None
    cfg = json.loads((CONFIGS / config_file).read_text())
    if "quantization_config" in cfg or "compression_config" in cfg:
        return None
    text = (case.get("quantization") or "").lower()
    if "checkpoint" not in text and "awq" not in text and "gptq" not in text:
        return None
    return next((m for m in ("awq", "gptq", "fp8") if m in text), None)


def _record(engine: str, case: dict, sel) -> dict:
    version, basis, over, why = sel
    over = dict(over)
    if "config_file" in over:
        case = {**case, "config_file": over.pop("config_file")}
    if "config_confidence" in over:
        case = {**case, "config_confidence": over.pop("config_confidence")}
    assumed = over.pop("gpu_assumed", None)  # an unnamed GPU whose memory class alone decides the prediction
    gpu_note = over.pop("gpu_note", None)  # what is known of an unnamed GPU, where the source's wording misleads
    printed_total = over.pop("gpu_total_gib", None)  # a catalog GPU whose log prints another CUDA total (WSL2)
    named_gpu = over.pop("gpu_catalog", None)  # a catalog GPU the source names where the raw record has none (cfg3)
    free_at_start = over.pop("free_at_start", None)  # a GPU not empty at start: its printed free memory (npred)
    wsl2 = over.pop("wsl2", False)  # under WSL2, no CUDA total printed: nvidia-smi's total (q21s1, _wsl2_total)
    parallel = {k: case.get(k) or 1 for k in ("tp", "pp", "dp", "ep")}
    out = {"id": case["id"], "engine": engine, "status": case["status"], "quality": case.get("quality"),
           "source": case["source"], "source_url": case.get("source_url"),
           "source_kind": "url" if case.get("source_url") else "search-index id (no URL: the tools did not return the "
                                                                 "repository)",
           "model": case["model"], "config_file": _config(case.get("config_file")),
           "config_confidence": case.get("config_confidence"), **_gpu(case), **parallel,
           "engine_version_printed": case.get("engine_version"), "tpkit_engine_version": version,
           "engine_version_basis": basis or case.get("engine_version_note"),
           "flags": (_sglang_flags if engine == "sglang" else _vllm_flags)(case, over),
           "flags_note": None,
           "command": case.get("command"), "families": _families(case),
           "printed": (_printed_sglang if engine == "sglang" else _printed_vllm)(case),
           "printed_weights_gib": _printed_weights(engine, case),
           "engine_anomaly": case.get("engine_anomaly"), "predict": why is None, "why_not": why,
           "notes": (case.get("notes") or "")[:400]}
    if "entrypoint" in case:  # helper llmc: which vLLM entrypoint ran, and the quote that shows it
        out["entrypoint"], out["entrypoint_evidence"] = case["entrypoint"], case.get("entrypoint_evidence")
    if case.get("max_num_batched_tokens_note"):
        out["max_num_batched_tokens_note"] = case["max_num_batched_tokens_note"]
    if gpu_note:
        out["gpu_note"] = gpu_note
    if printed_total:
        out["gpu_total_bytes"] = _gib(printed_total)
        out.setdefault("gpu_note", f"{case['gpu']} with the total the log prints ({printed_total} GiB)")
    if assumed:
        out.update(gpu=assumed["gpu"], gpu_note=assumed["note"], gpu_candidates=list(assumed["candidates"]))
    if named_gpu:
        out.update(gpu=named_gpu["gpu"], gpu_note=named_gpu["note"])
    if wsl2:
        out["gpu_total_bytes"], out["gpu_note"] = _wsl2_total(out["gpu"])
    if free_at_start:
        out["free_at_start"] = dict(free_at_start)
    if case["id"] in OTHER_PROCESSES:
        out["other_processes"] = dict(OTHER_PROCESSES[case["id"]])
    quant = _checkpoint_quant(case, out["config_file"])
    if quant and "quantization" not in out["flags"]:
        out["flags"]["quantization"] = quant
        out["flags_note"] = (f"quantization {quant!r}: the checkpoint's method ({case.get('quantization')}); the "
                             "config copy lacks its quantization_config block, so it is given as the equivalent flag")
    if why is None and (out["config_file"] is None or (out["gpu"] is None and "gpu_total_bytes" not in out)
                        or out["printed"] is None):
        raise SystemExit(f"{case['id']}: chosen for prediction but config/GPU/printed value is missing")
    return out


# Hand edits of shared-set vLLM records (release read off the log wording, reasons a case is off or not predicted),
# applied on every rebuild so that re-running this script reproduces tests/validation/cases/ byte for byte
# (tests/validation/test_validation_set.py::test_rebuilding_the_set_reproduces_the_committed_cases).
VLLM_SHARED_EDITS = {'case_020': {'tpkit_engine_version': '0.9.2',
              'engine_version_basis': 'issue dated 2025-07-22, before the v0.10.0 wheel (files dated 2025-07-24): '
                                      'the newest release then was 0.9.2 (a main build cannot be excluded); '
                                      "tpkit's rules have no boundary between 0.9.1 and 0.10.1, so the figure is "
                                      'the same for either',
              'why_off': '--kv-transfer-config LMCacheConnectorV1 (helper v2, 2026-12-01; vllm 0.10.0 wheel). The '
                         'connector is created in init_worker_distributed_environment '
                         "(ensure_kv_transfer_initialized), after gpu_worker.init_device's MemorySnapshot, so "
                         'whatever it allocates outside torch is charged as non_torch_increase by '
                         "utils.memory_profiling; its torch tensors are in neither the weights nor the profile's "
                         "peak increase. LMCache's own allocations are outside vLLM's source and tpkit does not "
                         'model them; the 8.11 GiB printed available is 2.7 GiB under the plan at the '
                         "FlashInfer-sampler midpoint and 1.0 GiB under at the native sampler's end, which the band "
                         '(install not stated) covers. Scored, inside its band; the same reason (LMCache) is one of '
                         "vl_003's not-predicted reasons, but vl_003 also lacks its GPU, so case_020 is not "
                         'dropped. Re-read (helper c20, 2026-12-04; vllm 0.10.0 wheel): the inputs are right (tp 4 '
                         'from the command, gpu_memory_utilization and kv-cache dtype at their defaults 0.9 / auto, '
                         'FP8 from the checkpoint config, no max_model_len flag: the config\'s 40,960; release set '
                         'to 0.9.2 by date, same rules). The two quoted lines are not one worker\'s: 178,880 tokens '
                         '= 11,180 blocks x 770,048 B = 8.02 GiB, while 8.11 GiB would give 11,309 blocks, so the '
                         'pool comes from a worker with about 0.09 GiB less. profile_run does not touch the connector '
                         '(_dummy_run builds no attention metadata, so the per-layer connector hooks return at once; '
                         'maybe_setup_kv_connector only runs in execute_model), the dummy sampler run takes '
                         'max_num_seqs 1,024 rows with no penalties or logprobs, and the same box under SGLang '
                         '(sg_050, same thread) is +0.4 %, so the start-up terms (CUDA context, NCCL at tp 4) are '
                         'not the gap. The public thread carries only the two lines and a maintainer pointer to '
                         'PR #19312; no source-backed mechanism for the remaining 1.0-2.7 GiB was found, so no rule. '
                         'Sampler re-read (helper smp, 2026-12-04; vllm 0.10.0 / 0.10.2 / 0.11.0 wheel METADATA, 0.9.2 '
                         'topk_topp_sampler.py): flashinfer-python is no requirement of the 0.9.0-0.11.0 wheels, so a '
                         'plain pip install samples natively and the plan now takes the native sampler (band down to '
                         'FlashInfer): +34.8 % -> +13.1 %; about 1.0 GiB stays unexplained (the thread does not say '
                         'how vLLM was installed).'},
 'case_021': {'tpkit_engine_version': '0.6.4',
              'engine_version_basis': "the 'Memory profiling results: total_gpu_memory=… initial_memory_usage=… "
                                      "non_torch_memory=… kv_cache_size=' line is vllm ≤ 0.6.4's worker.py "
                                      "determine_num_available_blocks wording (0.6.5 prints 'Memory profiling takes "
                                      "… non_torch_memory takes …'); issue of Nov 2024"},
 'case_022': {'tpkit_engine_version': '0.6.4',
              'engine_version_basis': "same run series as case_021 (the ≤ 0.6.4 'Memory profiling results: "
                                      "total_gpu_memory=' wording)"},
 'case_027': {'predict': False,
              'config_confidence': "assembled (base-model architecture; quantization_config from a public "
                                   "provenance note of the checkpoint: compressed-tensors int4, group 32, routed "
                                   "experts only; helper cfg3)",
              'why_not': "vLLM's KDA prefill kernels are not in tpkit's activation estimate. The checkpoint's "
                         "quantization_config (compressed-tensors int4 g32 on the routed experts; attention, the "
                         "dense MLP, shared experts and lm_head bf16) is in the set since helper cfg3 (2026-12-04): "
                         "its derived size, 30.52 GB, is the published shards' 30.53 GB"},
 'case_032': {'tpkit_engine_version': '0.2.5',
              'engine_version_basis': "PR #2031's branch (2023-12-12), whose total - free profile first ships in "
                                      'v0.2.5 (wheel built 2023-12-14; 0.2.6, built 2023-12-17, adds '
                                      'TORCH_NCCL_AVOID_RECORD_STREAMS=1)'},
 'case_033': {'tpkit_engine_version': '0.2.5',
              'engine_version_basis': "PR #2031's branch (2023-12-12), whose total - free profile first ships in "
                                      'v0.2.5 (wheel built 2023-12-14; 0.2.6, built 2023-12-17, adds '
                                      'TORCH_NCCL_AVOID_RECORD_STREAMS=1)',
              'why_off': "PR #2031's own run (helper c20, 2026-12-04; vllm 0.2.4, 0.2.5, 0.2.6 wheels). The PR "
                         'switches worker/worker.py profile_num_available_blocks from max_memory_allocated (0.2.4) '
                         'to total - free after the profile, and that is what v0.2.5 ships, so the printed 20,865 is '
                         "0.2.5's behaviour, not an unreleased state (the record said 0.2.6 before). In 0.2.5 "
                         'all-reduce is torch.distributed.all_reduce and TORCH_NCCL_AVOID_RECORD_STREAMS is not '
                         'set: ProcessGroupNCCL records each all-reduced activation on the NCCL stream, the caching '
                         'allocator keeps the freed blocks reserved while the CPU runs ahead, and total - free '
                         'charges them. 0.2.6 sets the variable in Worker.init_model, its comment naming exactly '
                         'this growth with the number of all_reduce calls (kept in every later V0 worker read: '
                         '0.2.7, 0.3.0-0.4.1, 0.5.4), which is why vl_039 (0.5.4) shows none of it. Rule '
                         'v0_allreduce_held (0.2.5 only, tp > 1): 161 all-reduces x 4,096 x 8,192 x 2 B + the '
                         'logits gather = 10.1 GiB of the 13.1 GiB the PR added at tp 4 (0.1 GiB at tp 1, '
                         'case_032); +44.4 % -> +4.8 %, inside its band.'},
 'case_063': {'tpkit_engine_version': '0.3.0',
              'engine_version_basis': 'issue dated 2024-02-06: the v0.3.0 release of 2024-01-31 (V0 engine)'}}


# Re-reading of the collection's not-predicted cases (helper npr, 2026-12-03): DP attention, speculative decoding
# and the MI355X are modelled / catalogued now, so each case says what blocks it today, or is predicted.  The
# collection (/work/data) is not on disk, so its records are kept from cases/*.json; these edits are applied on
# every rebuild (with or without the collection) so that the script, not the output, holds them.
VLM_ENCODER_OFF_024 = (
    "Helper scor, 2026-12-04 (vllm 0.20.2 / 0.25.1 wheels): the plan is over by the same absolute amount in both of "
    "this source's start-ups: 1.21 GiB of KV at --gpu-memory-utilization 0.70 (vl_024) and at 0.50 (vp_024), so the "
    "miss is a fixed cost, not a proportional one. The load is derived (no printed weights line; the notebook's "
    "process total at 0.70, 68,702 MiB, is the budget plus the CUDA context, as planned). What tpkit leaves out "
    "is the multimodal encoder profile: v1/worker/gpu_model_runner.py profile_run runs the vision tower on dummy "
    "images up to the encoder budget before the text profile, and keeps the encoder-cache outputs; tpkit plans the "
    "text model's profile only and says so in every multimodal plan (engines/vllm/policy.py _notes). No rule is "
    "fitted: the encoder's peak depends on the image processor's maximum pixels, the attention backend and "
    "--limit-mm-per-prompt, none of which tpkit reads yet. Helper mmp, 2026-12-04: the encoder step is modelled "
    "now for the Qwen3-VL / Qwen3.5 tower (engines/vllm/encoder.py, read in the 0.15.0-0.29.0 wheels). It is one "
    "4096 x 4096 dummy image of 16,384 tokens under the released processor's 16,777,216-pixel longest_edge, a "
    "2.07 GiB pass against a 0.47 GiB text peak. Both start-ups now miss by the same -0.39 GiB: +3.6 -> -1.2 % "
    "and +8.3 -> -2.7 %.")
"""why vl_024 / vp_024 are over (one text, two cases)"""

VLM_ENCODER_OFF_076 = (
    "Helper scor, 2026-12-04 (vllm 0.25.1 wheel): the plan's available KV is 13.57 GiB against the printed 12.75 "
    "GiB. The load is reproduced (25.72 GiB planned, 25.8 printed) and so are the CUDA graphs (0.65 planned, 0.66 "
    "printed), so the rest sits in the profile: 0.92 x 44.39 GiB - 25.8 - 0.66 - 12.75 = 1.63 GiB of activation "
    "peak and non-torch growth, against the plan's 0.91 GiB (the sampler's logits for 256 rows of a 262,144 "
    "vocabulary, and the cuBLAS handles). The missing ~0.7 GiB is what vLLM's profile_run spends on the Gemma 4 "
    "vision tower first (v1/worker/gpu_model_runner.py: dummy images up to the encoder budget, each image 280 soft "
    "tokens pooled 3 x 3 from 2,520 patches) — the multimodal encoder profile tpkit does not model (engines/vllm/policy.py _notes). No "
    "rule is fitted to one case. Helper mmp, 2026-12-04 (0.25.1 gemma4_mm.py): the dummy item is a video, not an "
    "image. get_mm_max_tokens_per_item gives video 32 x (70 + 2 + 6) = 2,496 tokens against 280 for an image. Its "
    "32 frames of 630 patches go through transformers' tower in chunks that _encoder_chunk sizes from the free "
    "memory, min(free / 2, total / 10). The int64 F.one_hot position table and its bf16 copy would alone take "
    "about 2.8 GiB, against the 1.63 GiB this log leaves for the whole profile. So the installed transformers or "
    "the free memory differed from what was read, and no rule is fitted (engines/vllm/encoder.py keeps the "
    "warning).")

VL071_OFF = (
    "Helper vp90, 2026-12-04 (vllm 0.8.2 wheel, worker/model_runner.py _dummy_run): a V0 multimodal model profiles "
    "min(max_num_seqs, max_num_batched_tokens // max_mm_tokens) sequences, here 5,120 // 258 = 19 (Gemma 3: 256 "
    "soft tokens + <start_of_image> / <end_of_image>), each with one dummy image, so the sampler runs 19 rows, not "
    "the 256 tpkit plans (2.43 GiB of sampler phase). With 19 rows the peak is the SigLIP tower on 19 images "
    "(encoder_gemma3's live set, read for V1 0.11-0.29: about 2.0 GiB), and the case would go from -8.9 % to about "
    "+16 %: the printed run leaves 2.24 GiB for peak + non-torch beside the printed 17.61 GiB of weights. Neither "
    "the V0 row count nor a V0 Gemma 3 tower is applied; the derived weights are also 0.13 GiB short.")
VL071_GPU_NOTE = (
    "24 GB GPU, 21.99 GiB printed ('total_gpu_memory (21.99GiB)', worker.py:267; the issue says '24G GPU'): of the "
    "catalog's 24 GB boards only the A10 and A10G print 21.98-21.99 GiB (nvidia-smi 23028 MiB); the L4 prints "
    "22.03-22.05, the RTX 3090 / 4090 23.5-23.7. Both are SM 8.6, so the family is ampere-consumer (which "
    "of the two is not printed; helper near14, 2026-12-05)")
VL056_BASIS = (
    "helper near11 (2026-12-05): the log's source lines are vLLM 0.8.5's, all five: kv_cache_utils.py:634 'GPU KV "
    "cache size' and :637 'Maximum concurrency', fused_moe.py:668 'Using default MoE config', backends.py:136 'Cache "
    "the graph of shape' and :148 'Compiling a graph for general shape takes', monitor.py:33 'torch.compile takes' "
    "(0.9.0: 637/640, 682, 158/170; 0.9.1: 715/719, 683, 161/173; 0.9.2: 716/720, 690, 181/193; read in the 0.8.5, "
    "0.9.0, 0.9.1, 0.9.2 and 0.10.0 wheels). Was 0.9.1 (issue date).")
VL056_FLAGS_NOTE = (
    "topk_topp_sampler 'flashinfer' (helper near11, 2026-12-05): the image is vLLM's own docker/Dockerfile vllm-base "
    "stage (WORKDIR /vllm-workspace, 'COPY examples examples' with examples/online_serving/multi-node-serving.sh, "
    "'uv pip install --system' into /usr/local/lib/python3.X/dist-packages; built with PYTHON_VERSION=3.10). The "
    "0.8.5 sdist's docker/Dockerfile installs flashinfer_python-0.2.1.post2 on x86_64, and 0.8.5's "
    "v1/sample/ops/topk_topp_sampler.py TopKTopPSampler.__init__ takes FlashInfer for a version below 0.2.3 unless "
    "VLLM_USE_FLASHINFER_SAMPLER=0.")
VL056_OFF = (
    "Helper vp90, 2026-12-04. Two inputs the case does not carry, both seen in the issue: (1) the TP group spans two "
    "nodes (the second worker is a Ray actor at another IP, 'RayWorkerWrapper pid=345, ip=10.224.1.180', the other "
    "on the leader host 'vllm-0'; LWS leader / worker pods): with --nnodes 2 tpkit gives -8.2 % (custom all-reduce "
    "off, NCCL over the network taken from the PCIe row, which is not measured); (2) the image: "
    "/vllm-workspace/examples (vLLM's Dockerfile layout) but Python 3.10 dist-packages, not the official image's "
    "3.12, so whether flashinfer-python was installed (FlashInfer sampler, 14 B per logit: -1.0 %) is not known. "
    "Neither is set: the same --nnodes on the tp-16 runs vl_047 and vp_006 moves them away (+35 -> +44 %, "
    "+7.2 -> +15.1 %), so the network proxy, not the input, is what is missing. Helper near11 (2026-12-05): the "
    "release is 0.8.5 (its source lines, engine_version_basis) and the image installs FlashInfer 0.2.1.post2 "
    "(flags_note; its top_k_top_p_sampling_from_probs renormalises top-k first, so the 14 B per logit of the "
    "FlashInfer estimate holds for 0.8.5 too): -9.6 -> -2.5 %; --nnodes is still not set.")

PUBLIC_EDITS = {
    "vp_066": {"why_off": (
        "Helper vp90, 2026-12-04 (vllm 0.2.4-0.9.1 wheels). Printed vs planned: weights 13.93 vs 13.76 GiB (vp_065 at "
        "tp 1: 27.57 vs 27.52, so about 0.14 GiB per rank appears only at tp 2), non-torch 1.54 vs 0.36, activation "
        "2.84 vs 2.83 since V0's eager forward is modelled (engines/vllm/v0_forward.py: the layer loop holds the "
        "layer's input, Qwen2MLP keeps gate_up through down_proj). The non-torch gap is the rest: 0.7.2 V0 gathers "
        "the logits with torch.distributed.gather on the TP group, so torch's own NCCL communicator is created in the "
        "profile beside PyNccl's; two communicators over NVLink under NCCL 2.21.5 (every channel connected at init) "
        "would come to about 1.4 GiB, but the GPU (39.50 GiB, 0.11 above the catalog's A100 40 GB, as vp_065's "
        "79.26 is above the 80 GB's 79.15) is not named, so the PCIe row stays.")},
    "vl_076": {"model": "google/gemma-4-26B-A4B-it, an FP8 build (repository not named)",
               "families": ["MoE", "SWA", "VLM"],
               "flags_note": "--quantization fp8 stands for the unnamed FP8 build: the planned load (weights 25.34 GiB "
                             "+ the 0.38 GiB rotary caches vLLM allocates while loading = 25.72 GiB) is within "
                             "0.08 GiB of the printed 'Model loading took 25.8 GiB', i.e. ~0.6 % of the KV",
               "gpu_note": "L40S (46 GB), shared with other services per the note: vLLM 0.25.1's budget is total x "
                           "0.92 (v1/worker/utils.py request_memory) and the KV is that less the non-KV memory "
                           "(v1/worker/gpu_worker.py determine_available_memory), so memory other processes hold at "
                           "start does not change the pool",
               "notes": "gemma4: 25 sliding layers (8 KV heads x 256) + 5 full layers (2 KV heads x 512, K = V); "
                        "the printed 12.75 GiB / 321,600 tokens and 0.66 GiB of CUDA graphs are from the note's quoted "
                        "lines.",
               "why_off": VLM_ENCODER_OFF_076},
    "vp_024": {"gpu_note": "RTX PRO 6000 (96 GB), shared with ~11.9 GiB of other tenants, as vl_024",
               "flags_note": "the same server as vl_024 with one variable changed ('--gpu-memory-utilization 0.70 -> "
                             "0.50'); --max-model-len 32768, --max-num-seqs 4; KV dtype auto; "
                             "--limit-mm-per-prompt '{\"image\": 8, \"video\": 0}' as vl_024's compose (helper lmm)",
               "flags": {"limit_mm_per_prompt": '{"image": 8, "video": 0}'},
               "why_off": VLM_ENCODER_OFF_024},
}
"""hand edits of the repository-kept public records (helper scor), applied after normalisation"""

VRES = "Helper vres, 2026-12-05"
VRES_OFF = {
    "vp_301": (
        f"{VRES} (vllm 0.11.1 wheel; helper v301's reading confirmed). Printed vs planned, GiB: budget 0.9 x 15.47 = "
        "13.92; KV 6.62 vs 7.50; weights 5.98 vs 5.97 (+ 0.01 rotary); so peak + non-torch growth 1.32 vs 0.46 (0.19 "
        "MLP phase at T 2,048 + 0.27 cuBLAS): 0.86 GiB is off, in the profile window. No DEBUG 'Memory profiling "
        "takes' line splits it. The source rules out the FlashInfer workspace, fp8-KV scales and CUDA graphs (no "
        "attention metadata in the 0.11.1 _dummy_run without FULL graphs; capture after the KV line, 'took -0.37 "
        "GiB') and the NVFP4 GEMM (flashinfer mm_fp4, <= 0.05 GiB). Left: non-torch growth of NVIDIA's 25.12 "
        "container build (CUDA 13.1 in compatibility mode, its own torch / flashinfer) on SM 12.0; one "
        "blackwell-consumer cuBLAS sample. No rule."),
    "vp_374": (
        f"{VRES} (vllm 0.4.1 wheel). 0.4.1 sizes the cache as total x 0.9 - (init_device free - free after "
        "profile_run) (worker/worker.py determine_num_available_blocks): no empty_cache after the profile, so the "
        "caching allocator's reserved segments, not torch's allocated peak, are charged. Printed 2,358 blocks = "
        "4.61 GiB vs planned 5.03: 0.42 GiB more non-KV. Planned: weights 14.96 (printed 14.96), cuBLAS 0.01, "
        "sampler phase 1.22 (256 rows x 128,256 x 38 B + T x H; 0.4.1 samples bf16 logits: top-k/top-p sort, "
        "float probs and logprobs, the exponential draw, Sampler.forward / _multinomial). The world-1 NCCL group "
        "(torch.distributed.all_reduce warm-up, init_worker_distributed_environment) is made after init_gpu_memory "
        "and so is charged too. Neither reserved-vs-allocated fragmentation nor the world-1 communicator is "
        "measured anywhere in the corpus; no rule."),
    "vp_372": (
        f"{VRES}. Printed 51,554 blocks (126 layers x 8,192 B x 16 = 1,032,192 B) = 49.56 GiB vs planned 57.09: "
        "7.53 GiB more non-KV per rank; 0.6.3 prints only the weights (94.54 vs 94.53 planned). Planned non-weights: "
        "RCCL 0.19 (the pcie:8 cell: vLLM's ROCm path takes no xgmi cell), rocBLAS 0.10, the 131,072-token dense-MLP "
        "phase 20.88. The same machine and build leave 2.0 GiB at tp 1 (vp_370) and 5.1 GiB at tp 8 with a 7B "
        "model (vp_371): a ROCm start-up of 0.6.x (RCCL at 8 ranks without custom all-reduce, rocBLAS with "
        "TORCH_BLAS_PREFER_HIPBLASLT=0) is missing, which no V0 ROCm log prints; no rule."),
    "vp_470": (
        f"{VRES} (vllm 0.9.2 wheel, model_executor/models/qwen2_5_vl.py). Printed vs planned, GiB: budget 0.9 x "
        "22.05 = 19.85; KV 1.81 vs 1.99; weights 15.63 vs 15.62 (15.45 + 0.12 MRoPE cache + 0.06 allocator rounding); "
        "so peak + non-torch 2.41 vs 2.23 (0.18 off). The limiting phase is the vision tower on one 16,384-token "
        "dummy image (2.21 planned); the log prints the xFormers ViT backend ('vllm-flash-attn has a bug inside "
        "vision module'), whose Qwen2_5_VisionAttention path makes the same contiguous q/k/v copies as FLASH_ATTN "
        "and no score matrix, so the backend does not explain it. The sampler is FlashInfer (printed; now an input, "
        "not limiting). The 0.18 GiB is inside the tower estimate's or the Ada cuBLAS cell's (one sample) reach; "
        "no rule."),
    "vp_323": (
        f"{VRES}, from helper vp90's reading (docs/accuracy.md section 6.4, session 7). The printed 5,302 blocks are "
        "vLLM's minimum over 16 workers of two nodes (pp 2 x tp 8, V0 after 'Falling back to V0'); the log shows "
        "two of them. A second-stage worker shows 3.58 GiB of KV (28.48 weights, 2.15 non-torch, 1.35 activation "
        "peak), i.e. 6,951 blocks of 552,960 B, against which tpkit's 7,823 is +12.5 %; some worker the log does not "
        "show has about 0.85 GiB less. The two MoE rules of helper vres move it +47.5 -> +46.5 %. No rule. "
        "Helper v11c (2026-12-05; vllm 0.8.0-0.10.0 wheels, V0 attention/backends/mla/common.py): the flags lacked "
        "--enable-prefix-caching (in the command and the printed engine config); with it V0 MLA's profile run keeps "
        "the context workspace (65,536 rows x 576 x 2 B = 72 MiB) and allocates the simulated kv_b_proj output "
        "(65,536 x 16 heads x 256 x 2 B = 512 MiB) in each MLA layer's forward: +46.5 -> +43.9 %; the stage-0 "
        "worker's printed 1.27 GiB peak (no sampler) is then 0.24 GiB above the plan's largest forward phase (was 0.47)."),
    "vp_325": (
        f"{VRES} (vllm 0.7.3 wheel). Printed vs planned per rank, GiB: weights 83.88 vs 83.54 (79.29 + 4.23 "
        "absorbed MLA + 0.02 rotary); activation peak 6.37 vs 5.79; non-torch 7.16 vs 4.31 (NCCL 1.94, NVLS 2.25, "
        "custom AR 0.02, cuBLAS 0.10); KV 21.43 vs 25.20. Two rules of 0.7.3's fused MoE were added (cache3 apart "
        "before 0.8.0, the shared experts' output held before 0.11.0): activation 5.12 -> 5.79, +20.7 -> +17.6 %. "
        "Left: 2.85 GiB of non-torch (see 'NCCL NVLS memory', docs/accuracy.md section 5: multicast granularity, "
        "a third communicator, 24 connected channels at NCCL 2.21) and 0.58 GiB of activation. Helper v11c "
        "(2026-12-05; vllm 0.7.1-0.7.3 wheels, attention/backends/mla/utils.py): 0.7.x V0 also keeps the dequantised "
        "kv_b_proj as the views W_UK / W_UV (61 x 512 x 16 heads x 256 x 2 B = 0.24 GiB here): weights 83.54 -> "
        "83.78 of the printed 83.88, +17.6 -> +16.5 %."),
}

O19C = "Helper o19c, 2026-12-05 (vllm 0.7.3, 0.8.4, 0.8.5, 0.9.0, 0.9.1 wheels; docs/accuracy.md section 2)"
O19C_V1_08 = (
    "0.8.5 V1's v1/worker/gpu_worker.py determine_available_memory (the same code in 0.7.3, 0.8.4 and 0.9.0) sizes "
    "the pool as total x utilisation - (torch's allocated peak + (total - free) - torch's allocated bytes, read after "
    "empty_cache): everything another process holds on the card is charged 1:1 (from 0.9.1, memory_profiling "
    "leaves it out). The slack the expression also charges (reserved - allocated after empty_cache) is small for "
    "these weights: their < 10 MiB tensors come to under 1 MiB in all, and the split remainders of their >= 10 MiB "
    "tensors to ")
O19C_RUNBOOK = (
    "0 MiB for Qwen3-8B and its AWQ copy. The runbook's four starts (AWQ at 0.30 / 0.85, bf16 at 0.50 / 0.85) leave 3.37 / 3.48 / "
    "3.36 / 2.97 GiB of non-KV memory beyond the plan (+-0.07 where the author rounded the tokens): a fixed term at "
    "every utilisation and with both checkpoints, not one that scales with the budget, the weights or the sampler. "
    "The runbook shares 'GPU 7' with companion services (CosyVoice2, Qwen2-VL) and gives no figure for them at these "
    "starts; its nvidia-smi totals cannot size them (others cancel out of used = budget - transient + graphs). "
    "--quantization awq runs AWQLinearMethod, which from 256 tokens dequantises each weight into a K x N fp16 "
    "temporary before torch.matmul (awq.py apply; gate_up 4,096 x 24,576 x 2 B = 192 MiB at T 2,048): about "
    "0.33 GiB at the gate_up GEMM, under the 0.52 GiB FlashInfer sampler phase, so not the peak. No rule: a "
    "co-tenant's memory is given with tpkit plan --machine FILE (used_by_others_bytes), which 0.8.5 charges 1:1.")
O19C_OFF = {
    "vp_627": f"{O19C}. {O19C_V1_08}{O19C_RUNBOOK}",
    "vp_628": f"{O19C}. {O19C_V1_08}{O19C_RUNBOOK}",
    "vp_629": f"{O19C}. {O19C_V1_08}{O19C_RUNBOOK}",
    "vp_630": f"{O19C}. {O19C_V1_08}{O19C_RUNBOOK}",
    "vp_738": (
        f"{O19C}. {O19C_V1_08}1.5 MiB for granite-3.3-8b. Printed 29,696 tokens = 4.53 GiB at 160 KiB per token "
        "against 5.80 GiB planned: 1.26 GiB of non-KV memory beyond the plan. The host is Docker Desktop on WSL2 "
        "(the README's 'pin_memory=False as WSL is detected' warning), where the Windows desktop and its "
        "applications on the card are other processes that total - free counts; the source states no figure "
        "(sg_044, another RTX 3090 under WSL2, starts SGLang with 22.76 of 24.0 GiB free after its own context). "
        "No rule: tpkit plan --machine FILE carries a measured figure."),
}
BL20 = "Helper bl20, 2026-12-06 (blind round bl20)"
BL20_OFF = {
    "vp_789": (
        f"{BL20}: +20.8 % blind. The input, not a rule: the config is assembled (the E4B-it geometry with the Gemma-4 "
        "QAT w4a16 block the set carries for the E2B build, whose ignore list keeps only lm_head and the vision / "
        "audio towers and embedders in 16-bit), and it plans 9.73 GiB of weights where the source's table prints "
        "11.04 GiB: the E4B QAT checkpoint keeps about 1.3 GiB more of its body in 16-bit than that block says. The "
        "other three starts of the same recipe on the same image (vp_786-vp_788, each with the checkpoint's own or a "
        "matching config) land within 1.8 %. The weights are taken from the config, not from a vLLM rule, so no wheel "
        "rule applies; the checkpoint's own config.json (not in the index) would settle it."),
}
BL20B_OFF = {  # helper bl20b (2026-12-06, session 20): blind misses above 8 % (round bl20b, docs/accuracy.md §6.4)
    "vp_804": (
        "Blind +15.0 % (157,468 planned, 136,953 printed), no rule changed (helper bl20b, 2026-12-06). The project's "
        "no-MTP start with otherwise the same flags (vp_805) is +5.9 %, so about 9 points come with the MTP k=3 "
        "config. tpkit already plans the drafter's pieces the 0.22.0 wheel sizes (the MTP layer's weights, its "
        "KV, the speculative Mamba state blocks of MambaSpec.num_speculative_blocks, vllm/v1/kv_cache_interface.py, "
        "tpkit.engines.vllm.mamba); it plans the MTP layer at the checkpoint's FP8 (0.40 GiB), and the FP8 "
        "checkpoint's quantization_config, which would say whether the layer is kept in bf16 (+0.40 GiB, as the "
        "set's Qwen3.8-27B-FP8 config keeps it), is not in the index. With both the no-MTP start's offset and a "
        "bf16 MTP layer the plan lands near +3 %; the source prints neither 'Model loading took' nor 'Available KV "
        "cache memory', so which piece is off cannot be read from the figures, and no wheel rule is missing."),
}
CAT20_OFF = {  # helper cat20 (2026-12-06, session 20): first scored this session (blind: round cat20, §6.4)
    "vp_031": (
        "Blind −90.7 % (896 tokens planned, 9,584 printed), no rule changed (helper cat20, 2026-12-06). The pool is 1.17 "
        "GiB of a 21.02 GiB budget (0.88 x 23.89 GiB), so 1.06 GiB of overhead planned beyond the log (5 % of the "
        "budget) removes 91 % of it. The total is confirmed by the log itself: 'the current --gpu-memory-utilization="
        "0.8800 is equivalent to --gpu-memory-utilization=0.8596 without CUDA graph memory profiling' gives 0.49 GiB / "
        "(0.88 − 0.8596) = 24.0 GiB (23.7–24.3 with the rounding), the WSL2 total 23.89 GiB and not a native-Linux "
        "23.42. Weights planned as printed (18.02 GiB). The gap: vLLM printed 'Estimated CUDA graph memory: 0.49 GiB' "
        "where tpkit plans 1.17 GiB (FLASHINFER, 51 PIECEWISE + 35 FULL graphs: the 394 MiB FlashInfer workspace in "
        "the first capture + 84 graphs x 64 layers x 153 KiB, graphs.mechanism_estimate), and the log's remainder for "
        "activation and non-torch memory is 1.34 GiB against 1.72 planned (1.45 cold-compile phase + 0.27 cuBLAS). "
        "The capture itself took 0.95 GiB ('CUDA graph pool memory: 0.95 GiB (actual), 0.49 GiB (estimated)'), "
        "nearer tpkit's figure than vLLM's own estimate; the Linux samples of the fit print 0.81 GiB for the same 86 "
        "graphs on a 36-layer Qwen3-8B (vl_291, vl_700). One WSL2 source-built 0.21.1 pre-release; not a rule"),
    "vp_800": (
        "Blind +84.7 % (139,946 tokens planned, 75,776 printed), no rule changed (helper cat20, 2026-12-06). Weights "
        "planned as printed (14.45 GiB with the MRoPE cache and the Marlin group scales of the sm_75 weight-only FP8 "
        "path, 14.46 printed), so 2.2 GiB of non-KV memory lies beyond the plan: the budget 0.9 x 23.48 GiB less the "
        "weights leaves 6.67 GiB, the log's KV takes 2.67. Not read: which attention paths vLLM 0.27.1 takes on "
        "Turing (no FlashAttention on sm_75) for the vision tower's 16,384-token dummy image and the Gated DeltaNet "
        "layers, and the node's ECC state (not printed; ECC on would lower the total to about 22 GiB, 1.3 GiB less: "
        "the catalog's Quadro-RTX-6000 sources['ecc']). The same checkpoint at 0.27.1 on two RTX 3090 is +10.5 to "
        "+14.9 % (vp_671, vp_672, vp_701). One source, key lines only"),
}
O20 = "Helper o20, 2026-12-06 (vllm 0.21.0, 0.22.0, 0.27.1, 0.28.0 wheels; docs/accuracy.md section 6.4, round o20)"
O20_AWQ = (
    f"{O20}: no rule. The planned non-KV memory falls short by about one vocab x hidden x 2 B block on every cold "
    "0.28.0 / 0.30.0 AWQ start on SM 12.0 in the set, on three cards: vp_745 1.61 GiB and vp_746 / vp_747 1.50 "
    "(Qwen3-32B / 14B-AWQ, 1.45 GiB block, RTX 5090), vp_801 0.99 (Qwen2.5-7B-Instruct-AWQ, 1.02 GiB block, RTX PRO "
    "4000 Blackwell), vp_735 0.83 (Qwen3-8B-AWQ, 1.16 GiB block, RTX 5070 Ti). The same checkpoints and release on "
    "SM 8.9 keep 0.20 (vp_102 / vp_103, Qwen2.5-7B-AWQ, L4) and -0.09 to 0.38 GiB (vp_420-vp_423, Qwen3-14B-AWQ), a "
    "warm 0.28.0 start on the 5090 0.17 (vp_744), and cold non-AWQ starts on SM 12.0 none (vl_073 bf16 0.29.0 -0.12; "
    "vp_210 / vp_500-vp_507 FP8 0.29.0 -0.04 to -0.18); outside AWQ, cold18's pair of cold V2 FP8 starts on one L40S "
    "(vl_271 / vl_272, 0.29.0) splits one each way, so neither the card nor AWQ is the whole story. 0.28.0 gives the card no separate AWQ path: "
    "auto_awq.py AutoAWQConfig.override_quantization_method maps --quantization awq (vp_801) and the checkpoint's "
    "awq alike to auto_awq, get_quant_method takes AutoAWQMarlinLinearMethod wherever check_marlin_supported holds "
    "(SM 7.5 up), choose_mp_linear_kernel (kernels/linear/__init__.py) picks MarlinLinearKernel on SM 8.9 and 12.0 "
    "alike, and get_marlin_input_dtype changes the input dtype only under VLLM_MARLIN_INPUT_DTYPE; the load-time "
    "conversion _convert_awq_to_standard_format (int32 K x N unpack temporaries, about 0.5 GB at a 7B gate_up) runs "
    "inside load_model's 20 MiB max-split scope, so its freed segments go back at memory_profiling's empty_cache; "
    "the plain AWQ dequantise-then-matmul path (AutoAWQLinearMethod.apply, T >= 256) is not taken on CUDA. "
    "Where the block comes from is not in the wheels read; a torch.cuda.memory_snapshot() after profile_run on an "
    "SM 12.0 card would settle it")
O20_OFF = {
    "vp_735": O20_AWQ, "vp_745": O20_AWQ, "vp_746": O20_AWQ, "vp_747": O20_AWQ,
    "vp_801": (
        f"Blind +7.4 % (269,952 tokens planned, 251,344 printed; 0.99 GiB of non-KV memory beyond the plan at 56 KiB "
        f"per fp16 token). {O20_AWQ}"),
}
CAT20_OFF["vp_800"] += (
    f". {O20} (0.27.1 wheel): the decoder runs TRITON_ATTN (platforms/cuda.py _get_backend_priorities lists "
    "FLASH_ATTN, FLASHINFER, TRITON_ATTN; flash_attn.py supports_compute_capability needs SM 8.0, flashinfer.py "
    "raises its floor to SM 8.0 while FlashInfer is broken on Turing), as tpkit plans; the vision tower takes "
    "TORCH_SDPA (get_supported_vit_attn_backends below SM 8.0 lists FLASH_ATTN first, then TORCH_SDPA, which "
    "get_vit_attn_backend returns without a check), whose torch_sdpa_wrapper calls F.scaled_dot_product_attention "
    "per image with no mask: a memory-efficient kernel in fp16 on SM 7.5 (O(N) memory), not a materialised N x N "
    "score (65,536 patches x 16 heads would need 128 GiB, an OOM, not a smaller pool); tpkit's encoder phase is "
    "1.46 GiB. The Marlin workspace is marlin_make_workspace_new's per-SM int32 counters (KiB). The Gated DeltaNet "
    "layers take Triton/FLA (mamba/gdn/qwen_gdn_linear_attn.py _resolve_gdn_prefill_backend: FlashInfer only on SM "
    "9.0 and 10.x), the same path as on the RTX 3090 starts of this checkpoint and release (vp_671 / vp_672: 0.24 / "
    "0.25 GiB beyond the plan per rank, against 1.96 here in whole blocks), so the sm_75 start holds about 1.7 GiB "
    "that the 3090 starts do not, and what differs there is the ViT's TORCH_SDPA, the decoder's TRITON_ATTN, fp16 "
    "and eager mode, none of which the wheel sizes beyond the plan. The log's 'expandable_segments: memory mapping failed with OOM' warnings "
    "say the card was full at some moment of the start, consistent with a larger transient peak; still no rule")
CAT20_OFF["vp_031"] += (
    f". {O20} (0.21.0 and 0.22.0 wheels bracket 0.21.1rc1.dev76): determine_available_memory subtracts the "
    "estimate, not the capture's actual pool (gpu_worker.py: cudagraph_memory_estimate_applied when "
    "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, default 1 in envs.py); profile_cudagraph_memory measures it as the "
    "larger mode's first-capture free-memory drop + (n - 1) x the second capture's drop per mode. tpkit's graph "
    "term follows that rule (graphs.mechanism_estimate: the same formula, 50 + 34 later graphs); its inputs are "
    "what differ: the FlashInfer workspace in the first FULL sample and 153 KiB per layer per later graph give "
    "1.17 GiB where this start measured 0.49 (one sample; the estimate prints 0.13-0.53 GiB on the other consumer "
    "logs where tpkit plans 0.18-0.68, both ways). With the printed 0.49 the case is still about -32 %: 0.38 GiB of "
    "the 1.06 lies in the activation and non-torch terms")
BL20_OFF["vp_789"] += (
    f" {O20}: the checkpoint's own config.json was searched for again (code: find_string "
    "'gemma-4-E4B-it-qat-w4a16', '\"re:.*embed_audio.*\"'; docs / pages: 'google/gemma-4-E4B-it-qat-w4a16-ct "
    "compressed-tensors config ignore', '... model card files size'): not found, so the input stays as it is. The "
    "hits describe its ignore list only second-hand (id 55218563188: the bf16 lm_head in the quant ignore list; id "
    "59891586584: a third party's reading adds embed_tokens, per_layer and multi_modal_projector modules); the "
    "per-layer linears of E4B come to about 0.15 GiB in 16-bit, far from the 1.3 GiB gap.")
# helper why21 (2026-12-06, session 21): every headline case above its engine's p90 bar (vLLM 8 %, SGLang 5 %) that
# had no why_off gets the reading docs/accuracy.md already holds, with the section it comes from; "no reading yet"
# where the docs hold none, with what would settle it. No rule changed, no score moved (docs/accuracy.md section
# 6.4, "Every case above its bar carries its reason (helper why21, 2026-12-06, session 21)";
# tests/validation/test_why_off.py fails on a headline case above its bar without one).
WHY21 = "Helper why21, 2026-12-06 (session 21), the docs' reading copied into the record, no rule changed"
WHY21_GPT_OSS_L4 = (
    "gpt-oss-20b on one L4, vLLM 0.29.0 Model Runner V2 (Marlin MXFP4 experts, TRITON_ATTN). The whole miss is "
    "non-KV memory that vLLM charged beyond the plan (docs/accuracy.md section 2, 'Re-read: vp_194-vp_196, "
    "vp_602-vp_604, vp_715, vp_623 / vp_624', helper o19b, session 19). Read and not the cause (section 2, "
    "'gpt-oss-20b on an L4: the nvidia-smi lead', helper goss11): the log's nvidia-smi line (read after V2's sampler "
    "warm-up, allocator residue after the sizing), the MXFP4 repacking (freed under load_model's 20 MiB max-split "
    "scope), the Marlin lock workspace, the V2 profile's state, the request size; and the kept Marlin MoE workspace, "
    "0.27 GiB at T 4,096, under the 1.08 GiB cold-compile scratch (section 2, 'Recent-vLLM cases above 8 %', helper "
    "v11a). The gap is 0.75-0.96 GiB per rank at tp 1 and at tp 2 + EP (vp_197, +7.5 %) alike and does not grow "
    "with the FULL-graph count. Two readings fit part of it and were not applied, each failing a neighbour: a pinned "
    "cold-compile scratch (goss11: vp_194 / vp_196 to about -4.9 %, vp_195 to about -14 %; cold18's blanket V2 "
    "what-if made 18 cases better and 31 worse) and WorkspaceManager cutting the scratch segment (o19b: 0.81 / 0.54 "
    "GiB at T 4,096 / 8,192, but about 0 for vp_197, which shows 0.73). No reading yet of which allocation holds it: "
    "one 0.29.0 V2 start of gpt-oss-20b with Marlin MXFP4 and TRITON_ATTN, cold then warm, with "
    "VLLM_LOGGING_LEVEL=DEBUG (the profiling result and 'CUDA graph pool memory' lines) would settle it (goss11)")
WHY21_GB10 = (
    "GB10 (unified memory): from vLLM 0.11.1 MemorySnapshot.measure takes the host's MemAvailable as the free memory, "
    "so host memory taken between the worker's init snapshot and the end of profile_run (loader host copies, page "
    "cache, a cold torch.compile, other programs) is charged as non-torch memory and comes off the KV cache; nothing "
    "in the model config sizes it, and a constant for it would be a fit to these cases (docs/accuracy.md section 2, "
    "'Unified-memory GPUs in vLLM: GB10 and Jetson Thor', helper gb11, session 11; section 6.4, 'GB10 and LoRA "
    "misses', helper gb10; upstream vllm-project/vllm#35920)")
WHY21_CO_TENANT = (
    "A GLM-5.3 server shared the B200s and was still growing: 145,944 MiB per worker right after its start, 148,854 "
    "MiB after its first requests (2.84 GiB), at a time the notes do not relate to this profile (section 2, 'Other "
    "processes on the GPU as a case fact', helper co13)")
WHY21_OFF = {
    "vp_194": f"{WHY21}: +39.9 % (115,842 tokens planned, 82,819 printed; 0.95 GiB beyond the plan). {WHY21_GPT_OSS_L4}",
    "vp_196": f"{WHY21}: +39.8 % (115,297 tokens planned, 82,453 printed; 0.95 GiB beyond the plan). {WHY21_GPT_OSS_L4}",
    "vp_195": f"{WHY21}: +33.1 % (174,380 tokens planned, 130,986 printed; 0.75 GiB beyond the plan). {WHY21_GPT_OSS_L4}",
    "vp_261": (
        f"{WHY21}: +28.6 % (113,392 tokens planned, 88,176 printed; Qwen3-30B-A3B-FP8, 0.13.0, outside its band). "
        f"{WHY21_GB10}. This start compiled cold ('Cache the graph of compile range (1, 2048)'): its non-KV, "
        "non-weight memory is 2.81 GiB against 1.66 planned, where the same host and container loading its graphs "
        "warm (vp_260) shows 2.17 against 1.67 and is +1.5 %, inside its band; the cold logs of that host hold 1.1-2.3 "
        "GiB more (section 6.4, 'vLLM cases outside 8 %, session 8', helper vp92; 'Committed log files, round mv11'). "
        "The MoE path (Triton block-FP8 fused MoE, about 0.12 GiB of intermediates under the 1.38 GiB sampler) comes "
        "nowhere near (vp92). No reading of the term's size: the host's MemAvailable through the cold compile, or a "
        "printed profile split, on this host would settle it"),
    "vp_1067": (
        "Helper bl36b, 2026-12-07 (session 36), added blind, no rule changed: +15.6 % (326,736 tokens planned, "
        f"282,624 printed; gpt-oss-20b MXFP4 abliterated, NVIDIA's 0.13.0 container, util 0.25, outside its band). {WHY21_GB10}. Two parts, neither sized by a "
        "rule: the weights (12.85 GiB planned, 'Model loading took 13.7193 GiB' printed: 0.87 GiB more) - the log prints "
        "'Using Marlin backend' for the MXFP4 experts on the GB10 (compute capability 12.1), where tpkit's Marlin "
        "padding rule covers only CUDA below 9.0 (engines/vllm/mxfp4.py), so the 0.13.0 backend choice on SM 12.x "
        "would have to be read in the wheel; and the cold torch.compile on this unified-memory host (the cold GB10 "
        "logs of docs/accuracy.md section 6.4 hold 1.1-2.3 GiB more than planned)"),
    "vp_400": (
        f"{WHY21}: +647.8 % (290,510 tokens planned, 38,847 printed; gemma-4-26b-a4b-it with four LoRA slots, 0.25.0, "
        f"util 0.55). {WHY21_GB10}. Itemised from the source's results file (gb10, then at 253,201 planned tokens): "
        "the load delta (weights, rotary, the LoRA stacks) is planned within 0.3 % of the printed 53.62 GiB and the "
        "printed tokens follow from the printed 1.54 GiB (tpkit explain rebuilds 38,693-38,955), so about 8.3 GiB of "
        "non-KV memory lies beyond the device-side terms. The file's own free -g readings show host memory held after "
        "the load: 113 GB available before the launch, 44-50 GB about ten seconds after the second shard, where a "
        "torch-only load of 53.62 GiB would leave about 57-58 GB (7-13 GiB held; which process is not stated). No "
        "rule: the size depends on the loader, the compile cache and the host"),
    "vp_440": (
        f"{WHY21}: +10.7 % (907,481 tokens planned, 820,013 printed; Qwen3.8-27B bf16, 0.27.1, outside its band). "
        f"{WHY21_GB10}. The activation matches the print (encoder phase 1.88 vs the printed 1.84 GiB peak less the "
        "graph estimate; section 2, 'The cold-compile scratch explained', helper v11b); the rest is GB10's 4.64 GiB "
        "'consumed' above the weights (the log's 'Available RAM: 56.30 GiB' at the weight load is 4.6 GiB below what "
        "the weights leave: host memory taken after the init snapshot, gb10) and a printed graph estimate of 1.94 "
        "GiB against tpkit's 0.94, while the log's own capture of all 86 graphs took 0.94: profile_cudagraph_memory "
        "samples cudaMemGetInfo, which on unified memory moves with the page cache (section 2, 'vLLM's CUDA-graph "
        "estimate on GB10', helper gb10g). Both are host effects, not derivable from the inputs"),
    "vp_599": (
        f"{WHY21}: +287.2 % (4,278,751 tokens planned, 1,105,096 printed; DeepSeek-V4-Flash on two GB10 nodes, the "
        f"community image aidendle94/sparkrun-vllm-ds4-gb10:production-v2, 0.21.1 with patches). {WHY21_GB10}. Each "
        "node reads all 46 shards (the source's SETUP-NOTES: about 470 GB of model files in page cache on the head). "
        "Only the token count is quoted, no 'Available KV cache memory'; with vp_600 (the other profile of the same "
        "image) the two implied budgets differ by 2.36 GiB where tpkit's differ by 0.08, so the image holds something "
        "sized by the context or the batch that stock vLLM does not; the per-token layout is unlikely to be the cause "
        "(stock 0.25.0 on SM 12.0, vp_593: 193.7 K tokens/GiB against tpkit's 220 K here) (gb11). No reading yet of "
        "the image's term: its patch set and a start-up log with 'Available KV cache memory' would settle it"),
    "vp_600": (
        f"{WHY21}: +173.5 % (11.54x planned, 4.22x printed concurrency; DeepSeek-V4-Flash on two GB10 nodes, the "
        f"community image aidendle94/sparkrun-vllm-ds4-gb10:production-v2, 0.21.1 with patches). {WHY21_GB10}. Each "
        "node reads all 46 shards (about 470 GB of model files in page cache on the head). Only the concurrency line "
        "is quoted; with vp_599 (the other profile of the same image) the two implied budgets differ by 2.36 GiB where "
        "tpkit's differ by 0.08, so the image holds something sized by the context or the batch that stock vLLM does "
        "not (gb11). No reading yet of the image's term: its patch set and a start-up log with 'Available KV cache "
        "memory' would settle it"),
    "vp_605": (
        f"{WHY21}: +16.7 % (52,608 tokens planned, 45,088 printed; Qwen3-8B, 0.27.1, outside its band): about 1.04 "
        f"GiB of KV memory less than planned (7.23 planned, 6.19 implied; gb11). {WHY21_GB10}. The figure is the "
        "control run of a KVBM launcher, quoted in prose, whose other runs (an 8 GB KVBM host tier) reuse the same "
        "container name; whether anything else ran on the box, and the compile-cache state, are not stated (gb11). No "
        "reading yet: the run's own log (the source repository's results/logs) with its profile line, or the host's "
        "MemAvailable over the start, would settle it"),
    "vp_602": (
        f"{WHY21}: +46.6 % (254,134 tokens planned, 173,306 printed; Qwen3.8-27B-FP8, B200 tp 2, 0.30.0 V2, util "
        "0.14). The KV layout is right (30,351 printed tokens per GiB, 30,370 planned); the whole miss is 2.66 GiB of "
        "non-KV memory beyond the plan (o19b), with weights 14.09 printed against 13.84 planned. "
        f"{WHY21_CO_TENANT}. The notes call this start 'deflated, probably because GLM was still growing during its "
        "profiling' (a guess, not a reading), and a restart at 0.14 with MTP-2 printed 7.48 GiB / 200,791 tokens, "
        "not 5.71 (section 2, 'Recent-vLLM cases above 8 %', helper v11a); had all of GLM's 2,910 MiB gain fallen "
        "inside the profile, the case would have moved from +55.0 % to +5.0 % at co13's plan. A co-tenant effect "
        "tpkit cannot know; the co-tenant's memory over this profile window would settle it (v11a left marking the "
        "case not predicted to the lead)"),
    "vp_603": (
        f"{WHY21}: +61.8 % (581,319 tokens planned, 359,197 printed; Qwen3.5-4B, B200 tp 1, 0.30.0 V2, util 0.16). "
        "The KV layout is right (31,019 printed tokens per GiB, 31,038 planned). The printed CUDA-graph estimate, 7.12 "
        "GiB against 0.49 planned, is most of the miss, while the real capture of the same 24 graphs took 0.07 GiB; "
        "the rest, 1.85 GiB for peak and non-torch, is 0.43 over tpkit's 1.42. 0.30.0's profile_cudagraph_memory "
        "reads device-wide free memory (torch.accelerator.get_memory_info) around the sampled captures and takes "
        "first + 8 x second FULL sample, so any other allocation during the second sample counts 8 times; the source "
        "has no 7 GiB term (section 2, 'Re-read: vp_194-vp_196, vp_602-vp_604, ...', helper o19b; 'Recent-vLLM cases "
        f"above 8 %', helper v11a). {WHY21_CO_TENANT}; GLM's own estimate, made alone, was 1.77 GiB for a capture of "
        "0.42. Co-tenant growth or lazy first-capture allocations, neither derivable from the inputs; the same command "
        "started alone on the GPU would settle which"),
    "vp_623": (
        f"{WHY21}: +8.9 % (152,397 tokens planned, 139,914 printed; Qwen3.5-9B, one RTX 4090, 0.21.0, a repeat start "
        "planned warm), inside its band. With vp_624 (the same project's start at another util, max_model_len and "
        "dtype) tpkit plans 0.388 / 0.389 GiB less non-KV memory than vLLM charged: the two gaps agree within 0.001 "
        "GiB, weights exact (16.8). Read in the 0.21.0 wheel and not the cause (section 2, 'Re-read: vp_194-vp_196, "
        "vp_602-vp_604, vp_715, vp_623 / vp_624', helper o19b): the backend is FLASH_ATTN (supports_block_size(528), "
        "head 256), so FlashInfer's 394 MiB workspace, which equals the gap to 3 MiB, is not on this path; the GDN "
        "prefill is Triton/FLA; the V1 graph estimate measures warm-up and capture together, and the records quote no "
        "'Estimated CUDA graph memory' line, so tpkit's 0.16 GiB cannot be checked. No reading yet: a log of a 0.21 "
        "text-only Qwen3.5 run that prints the graph estimate or the debug profile line would settle it (o19b)"),
    "vp_624": (
        f"{WHY21}: +17.5 % (69,416 tokens planned, 59,068 printed; Qwen3.5-9B, one RTX 4090, 0.21.0, a repeat start "
        "planned warm), inside its band. With vp_623 (the same project's start at another util, max_model_len and "
        "dtype) tpkit plans 0.389 / 0.388 GiB less non-KV memory than vLLM charged: the two gaps agree within 0.001 "
        "GiB, weights exact (16.8); this pool is 2.22 GiB printed, so the same bytes weigh twice as much. Read in the "
        "0.21.0 wheel and not the cause (section 2, 'Re-read: vp_194-vp_196, vp_602-vp_604, vp_715, vp_623 / "
        "vp_624', helper o19b): FLASH_ATTN, not FlashInfer's 394 MiB workspace (which equals the gap to 3 MiB); the "
        "GDN prefill is Triton/FLA; no 'Estimated CUDA graph memory' line quoted to check tpkit's 0.16 GiB. No reading "
        "yet: a log of a 0.21 text-only Qwen3.5 run that prints the graph estimate or the debug profile line would "
        "settle it (o19b)"),
    "vp_676": (
        f"{WHY21}: +117.8 % (14,126 blocks planned, 6,487 printed; TheBloke Mixtral-8x7B-Instruct AWQ at tp 2 on two "
        "A100-80GB, 0.2.7 V0, util 0.5, eager, 32,768). tpkit replays 0.2.x's expert-parallel Mixtral MoE and AWQ's "
        "split-K fp32 accumulation buffer (engines/vllm/mixtral_v0.py; section 2, 'Mixtral's expert-parallel MoE in "
        "0.2.5-0.3.0', helper old02, and 'vLLM 0.2.x: the split-K sum's fp32 buffer (vp_676)', helper old03); the "
        "printed blocks still imply about 33.3 GiB outside the KV cache per rank against 25.9 planned, about 7.4 GiB "
        "more reserved. Read and ruled out (old02, old03): the weights (nvidia-smi's 20,238 MiB after the start fits "
        "11.5 GiB of weights), the router and expert-weight tensors, mul_ by the fp32 expert weights, AWQ's reshape, "
        "profile_run's T (32,768), the sampler, xformers' GQA expand, NCCL's held blocks. No reading yet: the 0.2.7 "
        "profile's max_memory_reserved / a torch.cuda.memory_snapshot() of this checkpoint at tp 2 would settle it"),
    "vp_715": (
        f"{WHY21}: +15.4 % (5,040 tokens planned, 4,368 printed; Qwen2.5-72B bf16 at tp 2 on two H100 SXM, 0.19.1, "
        "util 0.92, graphs on; the figure is the start-up refusal's 'caps context at 4,368', paraphrased in a table), "
        "inside its band (0-14,496). The pool is 0.67 GiB printed against 0.77 planned: 0.10 GiB on a 78 GiB budget, "
        "smaller than the band of the one-sample nccl[nvlink:2] cell it uses, so a 0.7 GiB pool turns it into 15 % "
        "(section 2, 'Re-read: ...', helper o19b: nothing to read). The large terms are read in the 0.19.1 wheel: the "
        "FlashInfer all-reduce fusion workspace, one 512 MiB multicast granule per buffer on SM 9.0 (section 2, "
        "helpers c715, c715b, fi20; engines/vllm/baseline.py). A start that prints its full profile lines would place "
        "the last 0.10 GiB"),
    "vp_731": (
        f"{WHY21}: -14.5 % (44,976 tokens planned, 52,608 printed; gemma-3-1b-it on an A100-40GB MIG 1g.5gb slice, "
        "0.10.1.1 V1, util 0.86, 32,768), inside its band (35,200-54,752). The slice's total is not printed; the "
        "catalog's 4.75 GiB (torch's figure for such a slice) is assumed. Printed 1.40 GiB available: 0.86 x 4.75 - "
        "1.9147 - 1.40 = 0.770 GiB beyond the weights, where tpkit plans an activation peak of 0.879 (the sampler, 256 "
        "x 262,144 x 14 B) and cuBLAS 0.090 = 0.969, 0.199 GiB more (section 5, 'MIG slices', helper mig18; section "
        "6.4, round bl17b). 0.10.1 prints no split of that gap and has no graph estimate; the RTX PRO 4500 slices' "
        "-2.2 ... -7.7 % share its sign. No reading yet: the slice's printed total and a debug profile line (torch "
        "peak, non-torch) would settle it"),
    "vp_742": (
        f"{WHY21}: -10.4 % (3.11x planned, 3.47x printed concurrency; Qwen3-8B FP8-dynamic on one RTX 5070 Ti under "
        "WSL2, 0.23.0 V1 runner, util 0.90), inside its band. The post's table rounds weights and KV to 0.1 GiB: "
        "printed overhead 1.63 GiB (weights 8.8, KV 3.9) against 2.03 planned (cold-compile peak 1.16, graph "
        "estimate 0.60, cuBLAS 0.27), so tpkit over-plans 0.40 GiB, as it does 0.43 for vp_743 and 0.30 for vp_741 "
        "(-4.4 %) of the same post (section 2, 'Consumer Blackwell outliers, AWQ / FP8 / NVFP4 at 0.23-0.30', helper "
        "o19a). A warm start for the three would give +4.0 / +22.7 / +4.0 %, so no one compile state fits the three "
        "rounded rows, and the post does not say which starts were first. WSL2 adds no GPU-memory term in 0.23.0 "
        "(in_wsl: host pinning and spawn only). The start order (which start compiled cold) or the full logs' profile "
        "lines would settle it"),
    "vp_743": (
        f"{WHY21}: -11.9 % (1.71x planned, 1.94x printed concurrency; Qwen3-14B NVFP4 on one RTX 5070 Ti under WSL2, "
        "0.23.0 V1 runner, util 0.90), inside its band. The post's table rounds weights and KV to 0.1 GiB: printed "
        "overhead 1.93 GiB (weights 9.97, KV 2.43) against 2.36 planned (cold-compile peak 1.45, graph estimate "
        "0.65), so tpkit over-plans 0.43 GiB, and its weights are 0.15 GiB short (9.82), as it over-plans 0.40 for "
        "vp_742 and 0.30 for vp_741 (-4.4 %) of the same post (section 2, 'Consumer Blackwell outliers, AWQ / FP8 / "
        "NVFP4 at 0.23-0.30', helper o19a). A warm start for the three would give +4.0 / +22.7 / +4.0 %, so no one "
        "compile state fits the three rounded rows, and the post does not say which starts were first. WSL2 adds no "
        "GPU-memory term in 0.23.0. The start order or the full logs' profile lines would settle it"),
    "vp_770": (
        f"{WHY21}: +20.3 % (123,312 tokens planned, 102,544 printed; Qwen2.5-7B-Instruct bf16 on one RTX 4090 under "
        "WSL2, 0.27.1, util 0.92, 8,192, outside its band): 5.48 GiB of KV printed at 56 KiB per token against 6.59 "
        "planned, 1.11 GiB of non-KV memory beyond the plan. The same script's next two starts on the same card land "
        "close (GPTQ-Int4 vp_771 +1.7 %, FP8-dynamic vp_772 +3.7 %), so the card's WSL2 total and the desktop are not "
        "the cause alone. The log's nvidia-smi while serving prints 22,951 MiB for this start against 23,859 / 23,792 "
        "for the other two: the bf16 engine held about 0.9 GiB less once serving while its pool is smaller, i.e. "
        "memory counted in the profile (peak or non-torch) and released after, of the size of the bf16 LM head "
        "(152,064 x 3,584 x 2 B = 1.02 GiB) (section 6.4, round bl19, helper bl19). It is the script's first start (a "
        "cold compile likely; the other two may have been cold too), so the cold-compile scratch tpkit plans does not "
        "explain it alone. No reading yet: the start's profile lines (torch peak, non-torch) would settle which term"),
    "vp_773": (
        f"{WHY21}: -12.0 % (66,144 tokens planned, 75,152 printed; Qwen3-0.6B eager on one RTX 3060 12GB, native "
        "Linux, 0.19.0, util 0.75, 8,192, outside its band). Printed 8.03 GiB of KV and 1.12 GiB of weights, 9.15 GiB, "
        "more than util x the printed total (0.75 x 11.63 = 8.72 GiB): the run's non-KV charge came out near -0.4 GiB. "
        "vLLM 0.19 reads the non-torch increase from the device's free memory (gpu_worker.determine_available_memory, "
        "utils.memory_profiling), and the desktop that held about 2.6 GiB of the card at 15:05 (free 9.02 of 11.63) "
        "must have released some during the 12-minute download and profile; tpkit plans a non-negative charge "
        "(section 6.4, round bl19b, helper bl19b). The same host's next start (vp_774, util 0.60, weights cached) is "
        "+2.5 %. Not a rule gap tpkit can close from the flags: the input would be the other processes' memory over "
        "time (free_at_start covers only the start)"),
    "gs_011": (
        f"{WHY21}: +6.3 % (1,036,544 tokens planned, 975,424 printed; DeepSeek-V3.2-Exp, B200 tp 8 dp 8 with DP "
        "attention, SGLang 0.5.4 rules for PR #11309's branch), inside its band (973,056-1,098,688), above SGLang's "
        "5 % bar. The pool's per-token cell (the MLA latent plus 128 fp8 indexer keys and one fp32 scale) is read in "
        "the 0.5.3-0.5.10 wheels; the PR's two runs (f 0.8: 1,462,784 tokens; the default f: 975,424) imply about 93 "
        "GiB of weights per GPU against tpkit's 90.3 GiB, so the gap is the weights, not the pool (docs/accuracy.md "
        "section 1, 'DeepSeek sparse attention pools', helper dsa). The config is assumed (DeepSeek-V3.2's whole "
        "config.json for V3.2-Exp, the same DeepseekV32ForCausalLM geometry). No reading yet of the 2.7 GiB: "
        "V3.2-Exp's own config.json and safetensors index, or a log of the run printing 'Load weight end ... mem "
        "usage', would settle it"),
}
_GS21_WSL2 = (
    "no rule changed (helper gs21, 2026-12-06). SGLang 0.5.20 sizes the pool from the free memory it measures "
    "before the weights (torch.cuda.mem_get_info in utils/common.py get_available_gpu_memory; the slack is "
    "pre_model_load_memory x (1 - mem_fraction_static), mem_cache/kv_cache_configurator.py), with no WSL2 branch. "
    "tpkit plans that free memory as the card's WSL2 total (6,141 MiB = 5.997 GiB) less the Ada CUDA context and "
    "init (0.58 GiB): 5.42 GiB. The source prints no 'Load weight begin. avail mem', but its two awq starts at "
    "0.80 and 0.60 (57,014 and 28,239 tokens of 36,864 B, the same weights) give it: 0.2 x F = 1.957 - 0.970 GiB, "
    "F = 4.94 GiB, 1.06 GiB below the total and 0.48 GiB below the plan (the WSL2 SGLang cases that print it, with "
    "a desktop on the card, sit 1.2-1.3 GiB below theirs: sg_044 24.00 -> 22.76, gs_030 15.99 -> 14.70 GiB). With F = 4.94 GiB the plan lands within +1.3 % "
    "(gs_338 +0.9, gs_339 +0.6, gs_340 +1.3 %). The free memory at start is a machine input (tpkit plan "
    "--machine), not an engine rule")
GS21_OFF = {  # helper gs21 (2026-12-06, session 21): blind misses above 8 % (round gs21, docs/accuracy.md §6.4)
    "gs_338": "Blind +17.8 % (67,188 planned, 57,014 printed), " + _GS21_WSL2 + ".",
    "gs_339": "Blind +26.2 % (35,632 planned, 28,239 printed), " + _GS21_WSL2 + ".",
    "gs_340": "Blind +18.3 % (67,188 planned, 56,786 printed), " + _GS21_WSL2 + "; awq_marlin prints 228 tokens "
              "(8 MiB) fewer than awq, a kernel-side buffer tpkit does not separate.",
    "gs_341": "Blind +41.4 % (24,231 planned, 17,142 printed), " + _GS21_WSL2 + "; with F = 4.94 GiB the STANDALONE "
              "start is still +7.6 %: the draft's printed load usage is 0.98 GB where tpkit plans 0.92 GiB for "
              "Qwen2.5-0.5B-Instruct's parameters, and 0.06 GiB of budget at 61,440 B per token (the target's 36,864 "
              "plus the draft's 24,576 set aside) is the remaining 1,300 tokens; one case, so no rule.",
}
BL21C_OFF = {  # helper bl21c (2026-12-06, session 21): blind misses above 8 % (round bl21c, docs/accuracy.md §6.4)
    "vp_753": ("Blind +38.0 % (58,496 planned, 42,384 printed): the plan's budget is 2.01 GiB of KV, the source's 1.46 GiB "
               "(weights 1.93 vs 1.95, graphs 0.24 vs 0.14 GiB: not the gap). The same laptop's V1-runner arm (vp_754, "
               "-2.8 %) consumes the same ~1.6 GiB outside weights and KV (1.51 GiB KV + 0.06 graphs vs 1.46 + 0.14), "
               "which tpkit reaches there only through the V1 pinned cold-compile scratch line (0.58 GiB, "
               "engines/vllm/profile_lines.py pinned_scratch_lines). On Model Runner V2 the 0.29.0 wheel's dummy "
               "sampler builds InputBatch.make_dummy slots with the default states (top_k = vocab, top_p = 1.0: "
               "v1/worker/gpu/model_runner.py _dummy_sampler_run, sample/sampler.py), so the Triton top-k/top-p "
               "buffer that pins the scratch on V1 is not made, and the 0.29.0 V2 cold runs vp_190-vp_200 show no "
               "second copy. No reading yet: the source quotes no 'Memory profiling takes' breakdown (torch peak, "
               "non-torch increase) for the arm; that line, or a V2 start with a warm compile cache on the same WSL2 "
               "laptop, would settle whether the 0.55 GiB is a second scratch copy or a WSL2 non-torch term "
               "(VLLM_WSL2_ENABLE_PIN_MEMORY=1, the UVA buffers of v1/worker/gpu/buffer_utils.py are host memory). "
               "One machine, so no rule."),
    "vp_755": ("Blind -31.2 % (7,552 planned, 10,976 printed): 0.15 GiB of budget. The per-token cost is right (49,152 B: "
               "target 36,864 + draft 12,288; 10,976 tokens = 686 blocks = 0.50 GiB, the printed 'KV available 0.5 "
               "GiB'), weights 2.85 vs 2.88 GiB and graphs 0.41 vs 0.42 GiB agree; the plan holds 0.15 GiB more "
               "outside them than the run did, inside the pinned-scratch line's +/- half (0.29 GiB; the printed figure "
               "is inside the band 0-27,216). A 0.5 GiB pool makes 0.15 GiB (3 % of the 4.80 GiB budget) a 31 % "
               "error. No reading yet: the arm's 'Memory profiling takes' breakdown would settle which of the scratch "
               "copy (V1 runner forced for draft_model) and the drafter's profile share is smaller on this run."),
}
BL22B_OFF = {  # helper bl22b (2026-12-06, session 22): blind misses above 8 % (round bl22b, docs/accuracy.md §6.4)
    "vp_833": ("Blind +13.5 % (39,174 blocks planned, 34,501 printed; 2,064,384 B per 16-token block per rank): 66.33 GiB "
               "of KV printed against 75.32 planned, so 8.99 GiB more non-KV memory per rank than the plan's 1.94 GiB "
               "inside the budget (RCCL 0.27, BLAS handles 0.10, the 8,192-token profile 1.56, custom all-reduce "
               "0.02). Weights agree (95.52 printed, 95.49 + 0.03 rotary planned), and the 2,080 CPU blocks confirm "
               "the 16-KV-head MP16 geometry. The vLLM 0.4.3 wheel (worker/worker.py) reads init_gpu_memory in "
               "init_device before init_worker_distributed_environment, and determine_num_available_blocks takes "
               "peak = init_gpu_memory - free after profile_run (no empty_cache between), so everything RCCL, the "
               "pynccl TP communicator (parallel_state.py) and the HIP runtime allocate at 8 ranks is in the peak; "
               "config.py ParallelConfig._verify_args turns custom all-reduce off under is_hip (0.02 GiB, not the "
               "gap). The profile itself is small (model_runner.py profile_run: 256 sequences of 32 tokens, the "
               "sampler's 256 x 128,256 rows). The same family misses the same way: ROCm V0 at tp 8 on 8 x MI300X "
               "keeps 5.1 GiB (vp_371, Llama-2-7B, 0.6.3) and 7.5 GiB (vp_372, Llama-3.1-405B, 0.6.3) beyond the "
               "plan (helper vres). Three starts, two builds, three amounts, and no V0 ROCm log before 0.6.4 prints "
               "the non-torch share: no rule. No reading yet of which allocation it is; a ROCm V0 tp 8 start that "
               "prints 'Memory profiling results' (0.6.4+: non_torch_memory) on 8 x MI300X, or torch.cuda.mem_get_info "
               "read before and after init_distributed_environment on such a host, would settle it. The GPU is "
               "inferred (ROCm, 95.52 GiB of weights per rank in July 2024) and the build is an AMD image "
               "(srjung/ll3.1_release_retune, tuned-GEMM file), so a fork-specific allocation is possible."),
}
_BL22C_WSL2 = (
    "The vLLM 0.28.0 wheel sizes the pool as requested - non_kv_cache_memory, where non_kv_cache_memory = "
    "total_consumed + transient peak and total_consumed = the worker's initial free memory - the free memory after "
    "profile_run, both from torch.accelerator.get_memory_info (utils/mem_utils.py memory_profiling, "
    "v1/worker/gpu_worker.py determine_available_memory): any change in another process's use of the card between the "
    "worker's first snapshot and the end of the profile moves the pool 1:1. On this WSL2 laptop the Windows desktop "
    "shares the 8 GB card ('Only ~7.0 GB is usable after driver reservation'). The wheel has no term that depends on "
    "--max-model-len here: get_batch_defaults (engine/arg_utils.py) gives 2,048 batched tokens and 256 sequences to an "
    "OpenAI server on a card under 70 GiB whatever the length, profile_run (v1/worker/gpu/model_runner.py) runs "
    "max_num_tokens = 2,048 and samples 256 rows, profile_cudagraph_memory returns 0 on Model Runner V2, and the one "
    "[max_num_reqs, max_model_len] buffer (v1/worker/gpu/states.py all_token_ids, int32) is UVA host memory of 2-8 MiB. "
)
BL22C_OFF = {  # helper bl22c (2026-12-06, session 22): blind misses above 8 % (round bl22c, docs/accuracy.md §6.4)
    "vp_837": ("Blind +18.8 % (196,928 planned, 165,824 printed; 12,288 B per token): the plan keeps 2.254 GiB of KV "
               "in the 3.60 GiB budget, the run 1.898 GiB, so the run held 0.356 GiB more outside weights and KV. The "
               "same laptop's 8,192-token boot at util 0.85 (vp_836, +7.0 %) holds the same 0.356 GiB more (to 0.3 "
               "MB) and the 2,048-token boot (vp_835, -1.0 %) 0.054 GiB less. " + _BL22C_WSL2 +
               "So a fixed 0.36 GiB on two boots at different utilizations and lengths is not an engine rule tpkit "
               "lacks; a machine term (another process's allocation during the start, counted by total_consumed) fits "
               "it. No reading yet: the boots' 'Available KV cache memory' and DEBUG memory-profile lines "
               "(non_torch_memory, torch peak; the README quotes only /metrics cache_config_info) would settle "
               "whether the 0.36 GiB is non-torch growth or the profile's peak. One laptop, so no rule."),
    "vp_839": ("Blind -59.7 % (7,424 planned, 18,400 printed; 57,344 B per token): the plan keeps 0.397 GiB of KV in "
               "the 6.80 GiB budget, the run printed 0.98 GiB, so the run held 0.58 GiB less outside weights and KV "
               "(weights 5.29 printed, 5.22 planned). The same card's 3B-AWQ start (vp_838, +3.3 %) held 0.86 GiB "
               "beside its 1.95 GiB of weights and 3.99 GiB of KV, the 7B-AWQ relaunch only 0.53 GiB with a larger "
               "hidden size (3,584 vs 2,048) and MLP (18,944 vs 11,008) and the same 151,936-row sampler profile, and "
               "the 7B's failed 8,192-token start just before it left 0.2 GiB (1.31 GiB outside weights and KV). " +
               _BL22C_WSL2 +
               "The relaunch followed the aborted start on the same card, so memory the dying process (or the desktop) "
               "released after the worker's first snapshot reads as negative consumption and enlarges the pool. "
               "No reading yet: the relaunch's 'Available KV cache memory' line with its DEBUG memory profile "
               "(initial free memory, non_torch_memory), or a clean second 2,048-token start, would settle it; the "
               "README's own '0.2 GiB / 3,696 tokens @2048' row is the 8,192 ValueError's figures, so the source "
               "may also have mixed two boots. One start, so no rule."),
}
BL23_OFF = {  # helper bl23 (2026-12-06, session 23): blind misses above 8 % (round bl23, docs/accuracy.md §6.4)
    "vp_861": ("Blind -8.2 % (12,545 blocks planned, 13,663 printed; 36,864 B per token): the validation start of "
               "siewong007/agent-kv-retention held 0.437 GiB (795 blocks) more KV than the same desktop RTX 5080's two "
               "other starts with the same model, utilization 0.85 and length 32,768: the calibration start (vp_860, "
               "12,868 blocks, -2.5 %) and the validation start with --max-num-seqs 8 (vp_862, 12,865 blocks, -2.5 %), "
               "which agree with each other to 3 blocks and are planned alike (neither prefix caching nor the "
               "sequence cap moves the plan, and the two runs that differ in both print the same pool). The vLLM "
               "0.26.0 wheel (pip download --no-deps vllm==0.26.0) sizes the pool as requested_memory - "
               "non_kv_cache_memory (v1/worker/gpu_worker.py determine_available_memory), requested_memory = "
               "total x utilization (v1/worker/utils.py request_memory), and non_kv_cache_memory = weights + torch "
               "peak increase + non_torch_increase, where non_torch_increase is the change of cuda_memory - "
               "torch_memory from the worker's init snapshot to the end of the profile and cuda_memory = total - "
               "free from torch.accelerator.get_memory_info (utils/mem_utils.py MemorySnapshot.measure, "
               "memory_profiling): memory that another process on the card allocates or frees during the start moves "
               "the pool 1:1 (the wheel's comment at that point assumes the card's other processes keep their usage "
               "constant through the profile). Under WSL2 the Windows desktop shares this card "
               "('the Windows desktop permanently holds ~1.3 GiB', docs/calibration.md), so a desktop release of "
               "0.44 GiB during this start, or a growth of that size during the other two, fits; nothing in the wheel "
               "depends on prefix caching or the default sequence cap here. No reading yet of which start moved: the "
               "three starts' DEBUG memory-profile lines ('Initial free memory', non_torch_memory) would settle it "
               "(the project keeps only the block counts). One desktop card, so no rule."),
}
GS24_OFF = {  # helper gs24 (2026-12-06, session 24): blind misses above 5 % left after the round's rule (gs24, §6.4)
    "gs_364": ("Blind -67.5 % (46,512 tokens planned, 142,943 printed): DeepSeek-V3-0324 at tp 4 on four MI300X as the "
               "PD prefill server of AMD's CI (0.5.6.post2 rocm700 image). The weights match (157.65 GiB planned with "
               "the RoPE cache, 158.02 printed) and SGLang's own arithmetic closes on the printed numbers: 'Load weight "
               "begin. avail mem=190.22 GB' x 0.88 - 158.02 = 9.37 GiB, the printed 'KV size: 9.36 GB' (the 0.5.6 "
               "wheel, pip download --no-deps sglang==0.5.6: the pool is pre_model_load_memory x mem_fraction_static "
               "- the load's usage; the triton backend the command names and the tp-4 MLA head count (32 per rank) "
               "keep the aiter x 0.85 off, as tpkit has it). The gap is before the weights: tpkit plans 182.61 GiB "
               "free at 'Load weight begin' (191.98 total - CUDA context 1.06 - NCCL 3.61 - warm-up 4.70, the "
               "start-up table's cuda_context[cdna3] and nccl[xgmi:4] rows, one sample each: sg-issue-25118-mi300x, "
               "8.31 GiB of NCCL on a 2026-05 rocm720 DeepSeek-V4 image), where this start prints 190.22 GB free "
               "and 'Init torch distributed ends. mem usage=1.21 GB': 7.6 GiB more free than planned, and a 9.4 GiB "
               "pool makes that -67 %. The tp-8 starts of the same source (gs_361-gs_363, nccl[xgmi:8], 6.61 GiB "
               "from one sample) are off by -4 to -5 % for the same reason on pools seven to ten times larger. No "
               "rule: the fix is start-up evidence (this source's logs print the init usage and the free memory on "
               "every rank at tp 4 and tp 8), and these are the cases' own logs (use false, as gs23 stored sg_531's "
               "row); an MI300X start-up of another source at tp 4 would settle the row."),
}
GS25C_OFF = {  # helper gs25c (2026-12-06, session 25): blind misses above 5 % (round gs25c, docs/accuracy.md §6.4)
    "gs_365": ("Blind -12.4 % (4,459,191 tokens planned, 5,091,015 printed): Qwen3-Next-80B-A3B-Instruct at tp 4 on "
               "four MI300X, every flag at its default, in the lmsysorg/sglang:v0.5.4.post1-rocm700-mi30x image "
               "(sglang#12419). Two terms, each read: (1) the aiter factor. tpkit applies x 0.85 to the default "
               "fraction (0.865 -> 0.735) as 0.5.4 does (model_executor/model_runner.py, 'mem_fraction_static *= "
               "0.85' when the backend is aiter and the context is over 8192); the 0.5.4.post1 wheel (pip download "
               "--no-deps sglang==0.5.4.post1) moved the step into ServerArgs._handle_attention_backend_compatibility "
               "with 'mem_fraction_static *= 0.90' ('AMD platforms backends'), and 0.5.4.post2, 0.5.4.post3 and "
               "0.5.5 have x 0.85 there again, so 0.5.4.post1 alone uses 0.90 (0.865 x 0.90 = 0.7785). The printed "
               "pools close on it: 190.26 GiB free before the weights (152.85 + 37.41) x 0.7785 - 37.41 = 110.70 "
               "GiB, the printed mamba pool (1.20 + 51.24) plus KV pool (29.13 + 29.13). tpkit folds post releases "
               "into their base (engines.release_tuple), so the blind score planned 0.5.4. The lead (session 25) made the "
               "rule (engines.sglang.choices.rocm_aiter_factor: x 0.90 for 0.5.4.post1 alone) and the case now "
               "plans 0.5.4.post1: -5.3 % (4,822,342). What is left is (2) the free memory before the weights, "
               "182.61 GiB planned against 190.26 printed: the start-up table's cuda_context[cdna3] and nccl[xgmi:4] "
               "rows (one sample, 8.31 GiB of NCCL on a 2026-05 rocm720 image), as gs_364's why_off says; with it "
               "the arithmetic lands at about +0.1 %. An MI300X tp-4 start-up of another source would settle the "
               "table row."),
}
_INT4_OFF = ("Blind {err} ({planned} tokens planned, {printed} printed): amd/grok-1-W4A8KV8 started with "
             "SGLANG_INT4_WEIGHT=1 and --quantization fp8, which tpkit then had no input for, so it planned FP8 "
             "experts, 37.07 GiB of weights per rank where the log prints 19.21 GB (helper gs25b). Rule since "
             "(helper i4w25): --sglang-int4-weight on (engines/sglang/int4.py; sglang 0.4.7-0.5.23 "
             "layers/quantization/fp8.py Fp8MoEMethod.create_weights, `_use_hip_int4`: on HIP the w13 / w2 expert "
             "weights are uint32 tensors of hidden // 8 and intermediate // 8 columns, int4 packed eight to a word, "
             "plus fp32 per-channel scale1 tensors); the case passes it as its launch sets the variable: weights "
             "19.07 GiB per rank, {now} now. What is left is the band: the 0.1-0.2 GiB the weights still fall short "
             "and the one-sample xgmi NCCL rows, shared with the FP8 Grok-1 starts of the same nodes (gs_395, "
             "gs_396, gs_404: -1.5 to -3.1 %).")
GS25B_OFF = {  # helper gs25b (2026-12-06, session 25): blind misses above 5 % (§6.4 round gs25b)
    "gs_397": _INT4_OFF.format(err="-9.6 %", planned="6,601,543", printed="7,301,392", now="-1.5 %"),
    "gs_398": _INT4_OFF.format(err="-15.3 %", planned="3,914,983", printed="4,624,438", now="-2.6 %"),
    "gs_399": _INT4_OFF.format(err="-9.4 %", planned="6,601,543", printed="7,286,595", now="-1.3 %"),
    "gs_400": _INT4_OFF.format(err="-15.1 %", planned="3,914,983", printed="4,609,641", now="-2.3 %"),
    "gs_405": _INT4_OFF.format(err="-15.5 %", planned="3,914,983", printed="4,633,251", now="-2.8 %"),
    "gs_406": _INT4_OFF.format(err="-14.7 %", planned="3,914,983", printed="4,588,137", now="-1.8 %"),
    "gs_408": ("Blind -68.0 % (46,512 tokens planned, 145,347 printed): gs_364's PD prefill command on the rocm630 "
               "image, off for gs_364's reason: SGLang's own arithmetic closes on the printed lines (190.43 x 0.88 - "
               "158.03 = 9.55 GiB, the printed KV size 9.51 GB), and the gap is the start-up before the weights: "
               "tpkit's one-sample cuda_context[cdna3] / nccl[xgmi:4] rows plan 182.61 GiB free at load where this "
               "start prints 190.43 GB and 'Init torch distributed ends. mem usage=0.89 GB'. No rule (helper gs25b); "
               "an MI300X tp-4 start-up of another source would settle the rows."),
}
AMD26_OFF = {  # helper amdev26 (2026-12-06, session 26): moved above the bar by the AMD CI start-up rows
    "sg_037": ("+5.1 % since the xgmi:8 cell holds the AMD CI rows (+0.5 % on the one sglang#2384 sample before): the "
               "README shows only the capacity lines, so this 0.4.2 ROCm-image start prints no pre-load line to read. "
               "The cell is keyed by world only and its MI300X samples split by release: the 0.4.0-era sglang#2384 "
               "start 7.1 GiB (total - avail - context), 0.5.3-0.5.6 CI images (michael-amd/sglang-ci) 2.1-3.7 GiB "
               "('Init torch distributed ends'), 0.5.11 images 8.2-10.0 GiB with AITER's all-reduce in the line "
               "(sg_103, sg_120). No rule (helper amdev26). Helper xg27 (session 27): the 0.5.11 images' excess is "
               "the release's HIP all-reduce buffers (aiter CustomAllreduce 3 x 1 GiB + QuickAllReduce 2 x 2 GiB, "
               "a rule: tpkit.engines.sglang.allreduce), and with them subtracted those rows agree with the CI rows "
               "(xgmi:8 2.94 GiB), so no release key on nccl[xgmi] is needed from 0.5.3 on. 0.4.2 allocates none of "
               "these on HIP at tp 8: its CustomAllreduce is off on more than two GPUs without NVLink (custom_all_"
               "reduce.py: full_nvlink is False off CUDA), QuickAllReduce and aiter's dispatch do not exist yet, so "
               "its init is RCCL's communicator and PyNccl's warm-up alone, as in the 0.5.3-0.5.6 images (both set "
               "NCCL_MIN_NCHANNELS=112). The 7.1 GiB of sglang#2384 is RCCL of a ROCm 6.2-era image, not a "
               "SGLang release boundary: one sample, no rule; a 0.4.x MI300X start that prints its pre-load lines "
               "would give the second."),
}
GS28C_OFF = {  # helper gs28c (2026-12-06, session 28): blind miss above 5 % (round gs28c, docs/accuracy.md §6.4)
    "gs_444": ("Blind -25.2 % (3,556,235 tokens planned, 4,756,841 printed): Qwen3.5-397B-A17B-FP8 at tp 4 on MI355X, "
               "mfs 0.8, ROCm image v0.5.12.post1, launched with --attention-backend triton (printed). tpkit has no "
               "SGLang attention-backend option and assumes the HIP default aiter, so it applies x 0.85 to the fraction "
               "(engines.sglang.choices.rocm_aiter_factor: 0.8 -> 0.68). SGLang applies that step only to aiter: the "
               "0.5.12.post1 wheel's ServerArgs._handle_attention_backend_compatibility ('AMD platforms backends': "
               "if self.attention_backend == 'aiter': if context_len > 8192: mem_fraction_static *= 0.85), and the "
               "printed ServerArgs keeps mem_fraction_static=0.8. With the factor off (--mem-fraction-static "
               "0.9411764706, i.e. 0.8 after x 0.85) tpkit plans 4,788,586 tokens and 1,377 mamba slots (1,368 "
               "printed): +0.67 %; the weights agree (93.22 planned, 93.35 GiB printed). The fix is an SGLang "
               "--attention-backend in SglangOptions, the plan CLI and the validation flags (the CLI's flag is vLLM's "
               "today); explain.sgrelease.aiter_factor already reads a log's backend (sg_633 hits). Not made in the "
               "round: left to the lead. Made by helper ab28 (2026-12-06, session 28; docs/accuracy.md §1.2): "
               "SglangOptions.attention_backend, taken from the launch's --attention-backend, and the factor only for "
               "aiter (0.4.7 / 0.5.4 ModelRunner, 0.5.6 / 0.5.9 / 0.5.12.post1 / 0.5.13 ServerArgs): today +0.7 % "
               "(4,788,586), inside the band; the blind record keeps -25.2 %."),
}
_GS29B_OSS = ("Blind {err} ({planned} tokens planned, {printed} printed): gpt-oss-120b from /workspace/gpt-oss-120b at {par} "
              "on {gpu}, SGLang 0.5.8.post1 (printed), mfs 0.9, context 12,000, a server_info dump of the llm-benchmaq RunPod "
              "sweep. All six gpt-oss starts of the sweep sit far below tpkit's MXFP4 plan, and the H100 / H200 pairs at one "
              "tp (same weights, other total) fix what the pool lost: at 15.6 KB a token per rank at tp 4 (7.8 KB at tp 8), "
              "about 40 GiB per GPU more than the plan's usage at tp 4 and 20 GiB at tp 8, i.e. ~160 GiB over the node "
              "divided by tp: weights, not a per-GPU overhead, and about the difference between bf16 and MXFP4 experts "
              "(~114 B expert parameters). The dump names no checkpoint (the local folder only); the same organisation's "
              "example config serves Scicom-intl/gpt-oss-120b-Malaysian-Reasoning-SFT-v0.1, a fine-tune with LoRA merged "
              "into the experts, and SGLang 0.5.8.post1 picks moe_runner_backend='triton_kernel' for GptOss with or without "
              "an MXFP4 quantization_config (ServerArgs._handle_model_specific_adjustments: 'ep_size == 1 and "
              "is_triton_kernels_available()'), so the printed backend does not tell the format; its Mxfp4MoEMethod keeps "
              "MXFP4 experts swizzled under triton_kernels (layers/quantization/mxfp4.py process_weights_after_loading), so "
              "an MXFP4 checkpoint would not load this large. With the set's bf16 config (lmsys--gpt-oss-120b-bf16) tpkit "
              "gives {bf16} (all six within -10 % to -12 %): the experts are most likely bf16, and the rest is not read. "
              "No rule changed (helper gs29b).")
_GX31_OSS = (" Re-read by helper gx31 (2026-12-07, session 31, docs/accuracy.md §6.4 round gx31): the same dump's "
             "internal_states memory_usage prints weight {w} GiB per rank (Scheduler.get_internal_state: the model "
             "runner's weight_load_mem_usage), the bf16 experts' size, so the case now uses the set's bf16 config "
             "(lmsys--gpt-oss-120b-bf16); and SGLang 0.5.8 - 0.5.9 give gpt-oss the hybrid SWA pool "
             "(configs/model_config.py is_hybrid_swa_model lists GptOssForCausalLM from 0.5.8; the GptOss branch of "
             "_handle_model_specific_adjustments disables it only with trtllm_mha or, in 0.5.8 / 0.5.8.post1, speculative "
             "decoding; the dump prints disable_hybrid_swa_memory=False), which tpkit had for 0.5.10+ only: today "
             "{today} (memory_usage kvcache {kv} GiB = the full and SWA pools at 0.8).")
GS29B_OFF = {  # helper gs29b (2026-12-06, session 29): blind misses above 5 % (round gs29b, docs/accuracy.md §6.4)
    "gs_466": _GS29B_OSS.format(err="+217.4 %", planned="3,161,342", printed="996,064", par="tp 4 x dp 2", gpu="A100 SXM", bf16="877,502 (-11.9 %)")
              + _GX31_OSS.format(w="54.62", today="975,002 (-2.1 %)", kv="15.39"),
    "gs_467": _GS29B_OSS.format(err="+29.5 %", planned="7,145,772", printed="5,519,745", par="tp 8", gpu="A100 SXM", bf16="4,862,652 (-11.9 %)")
              + _GX31_OSS.format(w="27.38", today="5,402,946 (-2.1 %)", kv="42.64"),
    "gs_468": _GS29B_OSS.format(err="+224.6 %", planned="3,152,531", printed="971,113", par="tp 4 x dp 2", gpu="H100 SXM", bf16="868,691 (-10.5 %)")
              + _GX31_OSS.format(w="54.62", today="965,212 (-0.6 %)", kv="15.0"),
    "gs_469": _GS29B_OSS.format(err="+30.3 %", planned="7,128,149", printed="5,469,844", par="tp 8", gpu="H100 SXM", bf16="4,845,029 (-11.4 %)")
              + _GX31_OSS.format(w="27.37", today="5,383,366 (-1.6 %)", kv="42.25"),
    "gs_470": _GS29B_OSS.format(err="+40.6 %", planned="6,330,278", printed="4,503,074", par="tp 4 x dp 2", gpu="H200 SXM", bf16="4,046,438 (-10.1 %)")
              + _GX31_OSS.format(w="54.62", today="4,496,042 (-0.2 %)", kv="69.57"),
    "gs_471": _GS29B_OSS.format(err="+7.6 %", planned="13,483,644", printed="12,533,773", par="tp 8", gpu="H200 SXM", bf16="11,200,524 (-10.6 %)")
              + _GX31_OSS.format(w="27.37", today="12,445,027 (-0.7 %)", kv="96.82"),
}
GS30B_OFF = {  # helper gs30b (2026-12-07, session 30): blind misses above 5 % (round gs30b, docs/accuracy.md §6.4)
    "gs_514": ("Blind +6.6 % (2,257,359 planned, 2,117,360 printed; outside 2,239,605-2,275,114). Read after the score, "
               "from the line's own server_info (no rule changed): SGLang 0.5.12 sizes the pool as mfs x free-before-"
               "weights less the load, so memory_usage (weights 30.39 + kvcache 61.34 GiB at mfs 0.8) puts the free "
               "memory before the weights near 114.7 GiB, where the plan takes the catalog GB10's 119.02 (119.63 less "
               "the CUDA context and init): a GB10's unified memory is shared with the host, whose use at start the "
               "line does not print (gs_240 / gs_441's logs printed 7.9 / 9.0 GiB held). The plan's weights are also "
               "0.64 GiB under the printed 30.39 (29.75), not read. With the implied free memory (114.76 GiB) and the "
               "plan's weights the figure would be about +1.1 % (2,139,600); not entered, as the source prints no free "
               "memory."),
}
GS30E_OFF = {  # helper gs30e (2026-12-07, session 30): blind misses (round gs30e, docs/accuracy.md §6.4)
    "gs_561": ("Blind +11.2 % (224,704 tokens planned, 202,112 printed): DeepSeek-V3.2 at tp 4 on B200, SGLang 0.5.15 "
               "(the fork matin-gugugu/sglang-dev's source tree), sglang.benchmark.one_batch at --mem-fraction-static "
               "0.95, CUDA graphs off; SGLang set fp8_e4m3 KV and page 64 for DSA on SM 10. The bytes per token agree: "
               "the 0.5.15 wheel's ModelRunner.calculate_mla_kv_cache_dim (model_runner_kv_cache_mixin.py) returns "
               "kv_lora_rank + qk_rope_head_dim = 576 unscaled for the trtllm DSA backends the log names, plus the "
               "indexer's 128 + 4, i.e. 708 B a layer (8.13 GiB / 202,112 / 61 = 708). The miss is the weights: tpkit "
               "plans 158.34 GiB per rank, SGLang's load prints 159.24, and 0.89 GiB on an 8.13 GiB pool is +11 %. The "
               "indexer is already replicated in tpkit (models.params._dsa_indexer, as the wheel's dsa_indexer.py "
               "ReplicatedLinear wq_b / wk / weights_proj); no reading yet of the other 0.89 GiB: a per-tensor count "
               "of the checkpoint against the 0.5.15 DeepseekV32ForCausalLM parameters (FlashInfer TRTLLM fp8 MoE "
               "layout, scales, the MTP layer) would settle it. No rule changed."),
}
_BL30B_GRAPHS = (
    "the log shows vLLM 0.25.1 profiling the CUDA graphs of this start ('Profiling CUDA graph memory: PIECEWISE=51 "
    "(largest=512), FULL=35 (largest=256)', 'Estimated CUDA graph memory: 1.27 GiB total', taken out of the KV budget: "
    "'--gpu-memory-utilization=0.8800 is equivalent to --gpu-memory-utilization=0.8261 without CUDA graph memory "
    "profiling', 0.0539 x 23.54 GiB = 1.27 GiB), and the EPLB twin (vp_1016) printed the pool it then captured, 'CUDA "
    "graph pool memory: 1.22 GiB (actual), 1.27 GiB (estimated)'; tpkit's mechanism estimate (first capture 0.155 GiB + "
    "84 graphs x 48 layers x 153 KiB) is 0.74 GiB, 0.53 GiB short: the FP8 block-scaled path on SM 8.9 "
    "(TritonFp8BlockScaledMMKernel, the TRITON FP8 MoE backend, +quant_fp8 custom ops with the norm_quant / act_quant "
    "fusions, all printed) has no sample in the graph fit. The host's cards also report 23.54 GiB total (EXP-017's failed "
    "start: 'Free memory on device cuda:1 (7.64/23.54 GiB)'), 0.11 GiB below the catalog's 23.65 GiB RTX 4090, 0.10 GiB "
    "of budget at util 0.88 (planned with --gpu-memory 23.54GiB: 102,688 tokens, +15.1 % for the control). ")
BL30B_OFF = {  # helper bl30b (2026-12-07, session 30): blind misses above 8 % (round bl30b, docs/accuracy.md §6.4)
    "vp_1013": ("Blind +17.4 % (104,800 tokens planned, 89,248 printed; weights 14.54 GiB planned as printed; KV memory "
                "4.80 GiB planned, 4.09 GiB printed). Read after scoring: " + _BL30B_GRAPHS + "Graphs and total make "
                "about 0.63 of the 0.71 GiB gap; the rest lies in the profile peak. No rule changed: a graph term for "
                "the FP8 block-scaled Triton kernels needs the 0.25 wheel's capture path read (not in /tmp/wheels)."),
    "vp_1015": ("Blind +17.4 % (104,800 tokens planned, 89,248 printed at 4,096 tokens; the same pool as vp_1013 at "
                "8,192: 4.09 GiB KV memory, weights 14.54 GiB as planned). Read after scoring: " + _BL30B_GRAPHS +
                "No rule changed (as vp_1013)."),
    "vp_1016": ("Blind +28.8 % (104,800 tokens planned, 81,344 printed). EPLB (--enable-eplb with no redundant experts, "
                "async, the NIXL EPLB communicator; printed) is not a tpkit input, and the log shows what it costs: "
                "'Model loading took 14.87 GiB' against the no-EPLB control's 14.54 GiB (vp_1015, the same host, "
                "release and flags but EPLB), and 3.72 GiB KV memory against the control's 4.09 GiB, so EPLB takes 0.33 "
                "GiB at load ('EPLB is enabled', 'Initialized EPLB communicator: NixlEplbCommunicator') and about "
                "0.04 GiB more in the profile ('Rearranging experts (async mode) (profile)'). The rest is the control's "
                "gap (+17.4 %: the printed 1.27 GiB CUDA-graph estimate against tpkit's 0.74 GiB, and the host's "
                "23.54 GiB total; see vp_1013). No rule changed: an EPLB input needs the 0.25 wheel's EplbState buffers "
                "read. Round vr31 (session 31) read them: --enable-eplb / --eplb-config are plan inputs now "
                "(engines/vllm/eplb.py: one MoE layer's local experts as the transfer buffer, the int64 expert maps "
                "and the load window, 0.33 GiB in the load delta from 0.20.0), which leaves the control's gap and the "
                "0.04 GiB of the profile."),
    "vp_1020": ("Blind +19.2 % (19,232 tokens planned, 16,128 printed): 1.03 GiB of KV memory planned, 0.86 GiB "
                "printed, an absolute gap of 0.17 GiB on a small pool (util 0.7, 14.25 GiB of fp16 weights on a 24 GB "
                "card); its prefill twin vp_1019 (util 0.9, the same flags) is over by about the same absolute amount "
                "(5.76 GiB planned, 5.57 printed: +3.3 %). Read after scoring: the host's cards report 23.54 GiB total "
                "(EXP-017's failed start: 'Free memory on device cuda:1 (7.64/23.54 GiB)'), 0.11 GiB below the "
                "catalog's 23.65 GiB, 0.08 GiB of budget at util 0.7 (planned with --gpu-memory 23.54GiB: 17,792, "
                "+10.3 %); the other 0.09 GiB lies in the eager profile at 10,000 batched tokens (1.26 GiB activation "
                "peak planned, the dense-MLP phase). No rule changed: the 0.17.1 profile run at 10,000 tokens would "
                "settle it (the 0.17.0 wheel is in /tmp/wheels, 0.17.1 is not)."),
}
_GS31B_DP = ("Blind +5.3 % ({planned} tokens planned, {printed} printed): DeepSeek-V3-0324 with DP attention "
              "(--dp-size 8 --enable-dp-attention inside --tp 8) on 8 x MI300X, the CI's online dp_attention "
              "command on the {image} image. The printed lines close on SGLang's own arithmetic: 187.6 GiB free at "
              "load, 90.47 GiB of weights per rank (79.56 for the same checkpoint without DP attention, gs_615 / "
              "gs_623), 36.76 GiB of KV and 59.1 GiB free after the pool at an effective 0.68. The plan (its "
              "ledger, read after the first score) charges 89.48 GiB of weights, 0.99 GiB under the print (the "
              "attention replication it adds is 10.06 GiB where the prints differ by 10.91), and leaves 0.89 GiB "
              "more free before the load than the run (188.52 against 187.63, as for the non-DP start gs_615, +1.9 "
              "%): 1.9 GiB more KV (38.71 against 36.76 GiB). The same command scores +3.5 % on the 0.5.6 image "
              "(gs_362) and +4.5 % on 0.5.3.post1 / 0.5.4.post1 (gs_495, gs_510). No reading yet of the 0.85 GiB of"
              " weights the plan's DP-attention replication leaves out; what would settle it: the wheel's list of "
              "the modules DP attention keeps whole per rank (dp_attention.py, the model's attention and embedding "
              "layers) read against the plan's 89.48 GiB.")
GS31B_OFF = {  # helper gs31b (2026-12-07, session 31): blind misses above 5 % (round gs31b, docs/accuracy.md §6.4)
    cid: _GS31B_DP.format(planned=planned, printed=printed, image=image)
    for cid, planned, printed, image in (
        ("gs_620", "591,513", "561,715", "v0.5.3.post3-rocm630"),
        ("gs_621", "591,513", "561,715", "v0.5.3.post3-rocm630"),
        ("gs_626", "591,513", "561,512", "v0.5.4.post2-rocm630"),
        ("gs_627", "591,513", "561,512", "v0.5.4.post2-rocm630"))}

GS31D_OFF = {  # helper gs31d (2026-12-07, session 31): blind misses above 5 % (round gs31d, docs/accuracy.md §6.4)
    "gs_667": ("Blind +5.6 % (151,004 planned, 143,003 printed; inside the band). Read after the first score: the "
               "v0.5.5.post2-rocm700-mi30x-20251114 nightly image prints 190.22 GiB free before the weights on rank 0, "
               "as the 0.5.6.post2 image does for the same PD prefill command (gs_364: 190.22) and 0.10 GiB under the "
               "v0.5.4.post2 image (gs_629: 190.32). The plan charges aiter's HIP all-reduce buffers (0.13 GiB at tp "
               "4) from 0.5.6 only, as the wheels say (engines/sglang/allreduce.py ROCM_RELEASES: the 0.5.5.post2 "
               "wheel has no dispatch_custom_allreduce), and so leaves 0.13 GiB more free; at the 0.5.6 rules the "
               "same inputs plan 149,203 (+4.3 %, gs_364's +4.4 %). AMD's nightly images are built from main after "
               "the tag, so this one may already carry the dispatch; not settled (no wheel or source of that build "
               "read), no rule changed. The rest, about +4.4 %, is the PD prefill family's (gs_364 +4.4 %, gs_629 "
               "+3.8 %, gs_408 +2.7 %): no reading yet."),
}

BL32B_OFF = {  # helper bl32b (2026-12-07, session 32): blind misses above 8 % (round bl32b, docs/accuracy.md §6.4)
    cid: ("Blind -35.5 % (10,880 tokens planned, 16,864 printed): Qwen3.5-2B through `vllm bench throughput` (0.19.1, "
          "the LLM class) on an RTX 4060 Laptop GPU under WSL2 (8,188 MiB), util 0.85, 2,048" + arm + ". The pool is "
          "12 % of the budget (Available KV cache memory 0.79 of 6.80 GiB printed), so tpkit's 0.27 GiB more non-KV "
          "memory (0.52 GiB available planned) is -35 %; the hybrid groups round it further (tokens = num_blocks // 4 "
          "groups x 544: 82 blocks -> 20 x 544 planned; 0.79 GiB / 6,684,672 B is about 126 -> 31 x 544 printed). Two "
          "inputs, no rule: (1) the weights, 4.38 GiB planned against 4.25 printed, are tpkit's 4.25 GiB of parameters "
          "plus the MRoPE cache (4 x 262,144 rows, 0.125 GiB, in the load since vp_603); the case's config carries a "
          "sibling's vision widths (1152 / 4304), and with the Qwen3.5-4B's official ones (1024 / 4096: "
          "OFFICIAL_VISION_CONTRACTS['4B'], search-index file 61026521556) the parameters are 69.5 M fewer, 4.12 GiB, "
          "4.25 with the cache, as printed; (2) the profile's peak is the vision encoder's dummy image, 1.88 GiB planned "
          "with 1152 / 4304, 1.70 with 1024 / 4096. With the 4B's widths (not the 2B's published vision_config: none "
          "was found) tpkit plans 17,952 tokens (+6.5 %). VLLM_LANGUAGE_MODEL_ONLY=1 is no 0.19.1 variable, so the "
          "tower is built and profiled, as planned. Input corrected after the blind score (helper bl33, session 33; "
          "the first score stays in blind_scores.json): the config's vision widths are now 1024 / 4096, the 2B "
          "tower's per three public sources (jina-embeddings-v5-omni's merger 4096 -> 2048, a training memory plan, "
          "the 0.64 GB mmproj-f16; the config's _vision_note), not a verbatim config.json: 17,952 planned, +6.5 %, "
          "weights 4.25 GiB as printed.")
    for cid, arm in (("vp_1086", ""), ("vp_1087", ", --enable-prefix-caching (the same pool printed and planned)"))
}

EV32_OFF = {  # helper ev32 (2026-12-07, session 32): start-up NCCL cell by rule (docs/accuracy.md §5, round ev32)
    "vp_006": ("+7.16 -> +8.67 % with round ev32's rule B (an SGLang NVLink NCCL sample needs the run's flags printed: "
               "sg_051 out), which moved the pooled nccl[nvlink:8] cell that vLLM's plans read from 1.94 to 1.61 GiB; "
               "world 16 takes world 8's cell. The run is tp 16 over two 8 x H20 nodes (ray, vllm#17242): no start-up "
               "row measures NCCL over the network, and vLLM leaves NVLink SHARP at NCCL's default on NVSwitch Hopper "
               "(vllm 0.7.1 vllm/__init__.py sets only NCCL_CUMEM_ENABLE=0; 0.8.4 not read), which SGLang's rows "
               "switch off, so the pooled cell is low for this run; ~1.7 -> 2.0 GiB of non-KV memory beyond the plan "
               "with a 1-token batch (vl_047's reading, item 2). No reading of the two-node NCCL bytes yet: a vLLM "
               "tp-16 two-node log printing its non-torch memory would settle it. Round ev33 (session 33): vLLM's plans "
               "read NCCL cells of vLLM's own non-torch lines before 0.11 (vllm:nvlink:8 is vl_058 alone, 1.99 GiB, "
               "and world 16 takes it), +8.67 -> +6.93 %: inside 8 % again, the two-node NCCL bytes still unmeasured."),
}

BL37B_OFF = {  # helper bl37b (2026-12-07, session 37): blind misses above 5 % (round bl37b, docs/accuracy.md §6.4)
    "gs_686": ("Blind -11.8 % (1,935,461 tokens planned, 2,193,451 printed): amd/DeepSeek-R1-MXFP4-Preview with DP "
               "attention (dp 8 in tp 8) on eight MI355X. The weights are planned 16.96 GiB over the printed 49.66: "
               "tpkit's mxfp4 method (models/quant.py, scope experts_only) quantises the routed experts only, and "
               "under DP attention every rank holds the whole attention, 21.2 GiB in bf16 against 5.6 in MXFP4; the "
               "standard-mode starts of the same checkpoint (gs_684 / gs_685, -1.9 / -2.3 %) are 3.48 GiB over for "
               "the same reason at tp 8. The checkpoint quantises every linear layer but lm_head (the later text of "
               "AMD's card); the assembled config assumed the earlier scope. No reading yet of SGLang 0.5.5's quark "
               "MXFP4 path for MLA (w_kc / w_vc copies); a Quark reader in models/quant.py would settle it. Rule since "
               "(helper pl38, session 38): models/quark.py reads quant_method quark as SGLang 0.5.5.post3 / vLLM 0.21.0 "
               "QuarkConfig do (every linear and MoE layer not in 'exclude' takes the Quark scheme), and the config "
               "now carries the -Preview recipe's Quark block (w_mxfp4_a_mxfp4, exclude lm_head; AMD's card at "
               "commit 2c11de69): weights 48.94 GiB planned against 49.66 printed (66.62 before), -11.8 -> +0.6 %, "
               "inside; gs_684 / gs_685 -1.9 / -2.3 -> +0.3 / +0.3 %. The first score stays -11.8 %."),
    "gs_687": ("Blind +20.4 % (774,109 tokens planned, 642,775 printed): DeepSeek-V3-0324 on eight MI300X with DP "
               "attention at dp 4 (attention tp 2), torch compile, graphs off, a manual test of AMD's CI. The weights "
               "match (-0.2 %). The entered inputs (0.8 given, release 0.5.4.post1 placed by the ServerArgs field "
               "names) plan 0.8 x 0.90 = 0.720 (0.5.4.post1's ServerArgs step, as gs_506 / gs_507 print), while the "
               "log prints mem_fraction_static 0.68 (= 0.8 x 0.85); at the printed 0.68 the budget is 7.5 GiB "
               "smaller (about 115 k tokens), leaving about +2.5 %. No reading yet of which build the test ran (the "
               "0.5.4.post1 field set with the 0.85 step, or 0.7556 given) nor of DP attention at dp < tp, which no "
               "other case holds; the test's launch line would settle the first. Helper pl38 (session 38): the build is the "
               "v0.5.4.post1-rocm630-mi30x-20251029 nightly image (its server_args.py warning lines 1135 / 1324; the "
               "same image's FP8_online log prints 1135 and 0.765 = 0.9 x 0.85), whose aiter step is already 0.5.4.post2's "
               "x 0.85 (sglang 0.5.4.post1 server_args.py 'AMD platforms backends' x 0.90, 0.5.4.post2 x 0.85): the "
               "case is placed at 0.5.4.post2 (as gs_624), +20.4 -> +2.5 %, inside the band. The first score stays "
               "+20.4 % in blind_scores.json."),
}

BL38B_OFF = {  # helper bl38b (2026-12-08, session 38): blind misses above 5 % (round bl38b, docs/accuracy.md §6.4)
    "gs_688": ("Blind -17.8 % (1,196,627 tokens planned, 1,455,210 printed): amd/DeepSeek-R1-MXFP4-Preview with DP "
               "attention (dp 8 in tp 8) and torch compile on eight MI355X, fraction 0.6 given (0.51 printed). The "
               "weights are planned 16.96 GiB over the printed 49.66, as for gs_686 (the same checkpoint, mode and "
               "image family at fraction 0.8): the 258,583-token gap is 16.92 GiB of this 70,272 B cell, so the "
               "weights are the whole miss and the rest of the budget matches within 0.1 GiB. tpkit's mxfp4 method "
               "(models/quant.py, scope experts_only) quantises the routed experts only, while under DP attention "
               "every rank holds the whole attention (21.2 GiB in bf16 against 5.6 in MXFP4). The smaller fraction "
               "makes the same bytes a larger share of the pool than gs_686's -11.8 %. A Quark reader in "
               "models/quant.py (MXFP4 on every linear layer the checkpoint's exclude list leaves) would settle it."),
}

for _cid, _why in {**VRES_OFF, **O19C_OFF, **BL20_OFF, **BL20B_OFF, **CAT20_OFF, **O20_OFF, **WHY21_OFF,
                   **GS21_OFF, **BL21C_OFF, **BL22B_OFF,
                   **BL22C_OFF, **BL23_OFF, **GS24_OFF, **GS25C_OFF, **GS25B_OFF, **AMD26_OFF, **GS28C_OFF, **GS29B_OFF,
                   **GS30B_OFF, **GS30E_OFF, **BL30B_OFF, **GS31B_OFF, **GS31D_OFF, **BL32B_OFF, **EV32_OFF,
                   **BL37B_OFF, **BL38B_OFF}.items():
    PUBLIC_EDITS.setdefault(_cid, {})["why_off"] = _why
PUBLIC_EDITS["vp_066"]["why_off"] += (
    f" {VRES}: the weights gap is torch's caching allocator (engines/vllm/weight_blocks.py): at tp 2 the "
    "Qwen2.5-14B tensors of >= 10 MiB that leave <= 1 MiB of their 2 MiB-rounded segment are counted with it, 168 MiB "
    "in all; "
    "planned 13.93 GiB as printed, +7.8 -> +6.9 %.")

COLLECTION_EDITS = {
    # helper q21s1 (2026-12-05): an RTX 3090 under WSL2 (Docker Desktop): nvidia-smi's total (_wsl2_total), and the
    # free memory SGLang prints before the weights as the start (the Windows desktop holds part of the card)
    "sg_044": {"gpu_total_bytes": _wsl2_total("RTX-3090")[0], "gpu_note": _wsl2_total("RTX-3090")[1],
               "free_at_start": {
                   "gib": 22.76, "line": "[2025-02-04 05:21:40 TP0] Load weight begin. avail mem=22.76 GB",
                   "evidence": "SGLang's pre_model_load_memory ('Load weight begin. avail mem', GiB printed as 'GB') "
                               "under WSL2 (Docker Desktop), where the Windows desktop holds part of the card"}},
    # helper cfg3 (2026-12-04): the AWQ checkpoint's config assembled (its _assembled_note); its only blocker was the
    # config, so the case is predicted, blind
    "vl_071": {"config_file": "gaunernst--gemma-3-27b-it-int4-awq.json", "config_confidence": VL071_CONFIDENCE,
               "tpkit_engine_version": "0.8.3:v0", "engine_version_basis": VL071_BASIS, "predict": True,
               "source_url": "https://github.com/vllm-project/vllm/issues/16199",
               "why_not": None, "why_off": VL071_OFF,
               # helper near14 (2026-12-05): the card's family from its printed total (VL071_GPU_NOTE)
               "gpu_family": "ampere-consumer", "gpu_note": VL071_GPU_NOTE},
    # helper near11 (2026-12-05): the release from the log's source lines, the sampler from the image (VL056_BASIS)
    "vl_056": {"tpkit_engine_version": "0.8.5", "engine_version_basis": VL056_BASIS,
               "flags": {"topk_topp_sampler": "flashinfer"}, "flags_note": VL056_FLAGS_NOTE, "why_off": VL056_OFF},
    # GPUs added to the catalog by helper gpux (2026-12-04): the cases name the catalog entry (the total the log
    # prints is kept, as for every case whose log prints one)
    "vl_025": {"gpu": "T4", "gpu_family": None,
               "gpu_note": "T4 catalog entry (helper gpux, 2026-12-04) with the CUDA total vLLM prints (14.74 GiB)"},
    "vl_046": {"gpu": "T4", "gpu_family": None,
               "gpu_note": "T4 catalog entry (helper gpux, 2026-12-04) with the CUDA total vLLM prints (14.74 GiB)"},
    "vl_047": {"gpu": "H800", "gpu_note": "H800 catalog entry (helper gpux, 2026-12-04): the H100 SXM total and rates, "
                                          "NVLink 400 GB/s; torch's name 'NVIDIA H800' has no 'h100' for vLLM <= 0.8.4",
               "why_off": (
                          "vLLM 0.8.4 V1, DeepSeek-V3 tp 16 EP 16 over two H800 nodes (helper v2, 2026-12-01; vllm 0.8.5 wheel,"
                          " the same gpu_worker/gpu_model_runner code as vl_002). The plan's limiting phase is the dummy "
                          "sampler (1,024 rows x 129,280 x 38 B plus the 8,192 x 7,168 hidden rows = 4.8 GiB, "
                          "engine/arg_utils.py _set_default_args_v1: max_num_seqs 1,024 on >= 70 GiB GPUs); ~3.7 GiB more non-"
                          "KV memory is charged than modelled, as vl_002 (same era), with no source found in the 0.8.5 worker "
                          "or runner; the NCCL start-up cell for world 16 across nodes has no sample (world 8's cell, wider "
                          "band). Scored, outside its band. Re-read (helper v08, 2026-12-03; vllm 0.8.4 and 0.8.5 wheels): (1) "
                          "0.8.4's _set_default_args_v1 gives the large batch defaults by device NAME ('h100'/'h200' in torch's"
                          " name); this GPU is 'NVIDIA H800' (the log's device_name=NVIDIA_H800), so without batch flags 0.8.4 "
                          "ran 2,048 tokens / 256 sequences on the API server: a 1.2 GiB sampler instead of 4.8 GiB and ~7.3 "
                          "GiB unexplained. The set mapped the H800 to the H100 entry, whose name kept tpkit on 8,192/1,024 "
                          "(+17.2 %); since the H800 has its own catalog entry (helper gpux, 2026-12-04) tpkit follows 0.8.4's "
                          "name rule and plans 2,048/256 (+35.3 %): the run's batch flags are not printed (the same author's V0"
                          " command on this cluster passed --max-num-seqs 16 --max-num-batched-tokens 16384): the case is flag-"
                          "limited. (2) vp_006 (vllm#17242: DeepSeek-R1, 0.8.4 V1, tp 16 over two 8 x H20 nodes, a 1-token "
                          "batch) is +7.7 %, i.e. ~1.7 GiB of non-KV memory beyond the plan with negligible activations: part "
                          "of this gap is two-node start-up memory (NCCL over the network; world 16 has no start-up sample). "
                          "(3) MLA V1's chunked-prefill workspace (v1/attention/backends/mla/common.py "
                          "MLACommonMetadataBuilder: min(max(8 x max_model_len, 4 x max_num_seqs x block), 131,072) x 576 x 2 B"
                          " = 144 MiB here) is allocated before the profile and not in the plan: 0.14 of the 3.7 GiB, not added"
                          " (its later releases not read)."),
               },
    "sg_004": {"why_not": "reward model (LlamaForSequenceClassification: the Llama-3.1-8B body with a 1-label score "
                          "head and no LM head): tpkit sizes that head now (models/params.py, lead 2026-12-03), but "
                          "the checkpoint's own config.json is not in the set (vocab size, num_labels and dtype "
                          "unconfirmed), and the Llama-3.1-8B-Instruct config would count a 128,256 x 4,096 LM "
                          "head (0.98 GiB) the checkpoint does not have. Re-read by helper npred (2026-12-04): the "
                          "checkpoint's config.json is not in the search tools (no stored file of the "
                          "Skywork/Skywork-Reward-Llama-3.1-8B-v0.2 repository; code and page search return users' "
                          "scripts and model-card mirrors only, one of which gives BF16 and 7.5 B parameters: the "
                          "Llama-3.1-8B body without its 0.53 B-parameter LM head, but neither vocab size nor "
                          "num_labels)"},
    "sg_010": {"why_not": "xai-org/grok-2: its config is assembled in the explain corpus only "
                          "(tests/logs/data/configs/xai-org__grok-2, partial; the FFN widths are confirmed by the "
                          "log's '#parameters (actual): 269.56 B' and its MoE kernel config N=2048), not copied "
                          "into this set. tpkit's Grok rule (residual MLP beside the experts, four norms, own "
                          "lm_head; helper wts) derives 31.67 GiB per rank against a 36.73 GiB load: 5.06 GiB "
                          "stay unexplained (SGLang 0.5.2rc2 online FP8 loads bf16 and quantises afterwards, "
                          "sglang#8337; not modelled)"},
    "sg_019": {"gpu": "MI355X", "gpu_note": "MI355X (catalog entry added by helper npr, 2026-12-03: 287.98 GiB HIP total)",
               "tpkit_engine_version": "0.5.15",
               "engine_version_basis": "log dated 2026-07-15: main after the 0.5.15 release (2026-07-10), before "
                                       "0.5.20 (guessed)",
               "engine_anomaly": "not stock SGLang: the author's build prints 'initial available_bytes 204.63 GB' and "
                                 "'Case 2: candidate_kv_budget 152.88 GB', i.e. the KV budget less the AITER workspace "
                                 "(51.75 GB, printed) — the PR's adjustment; stock main sizes the pool from the initial "
                                 "available bytes and over-allocates (the PR's subject). tpkit plans the stock rule",
               "predict": True, "why_not": None},
    "sg_021": {"gpu": "MI355X", "gpu_note": "MI355X (catalog entry added by helper npr, 2026-12-03: 287.98 GiB HIP total)",
               "why_not": "MI355X is in the GPU catalog now, but the excerpt prints neither the command nor the "
                          "ServerArgs (mem_fraction_static, context length, chunked prefill unknown) nor the release"},
    "sg_022": {"why_not": "DP attention is modelled now, but the excerpt (a 2025-05-09 comment) prints neither the "
                          "command nor the ServerArgs: the same author's command of the day before (a decode server, "
                          "tp 16 x dp 16 over 2 nodes, DeepEP low_latency, mem_fraction_static 0.846, 32 redundant "
                          "experts) need not be this run's; release not printed; GPU only known as the 141 GB class "
                          "(H200 or H20-141GB)"},
    "sg_023": {"gpu_note": "AMD gfx942 class (the issue's environment: ROCm, 'AMD Radeon Graphics', compute "
                           "capability 9.4): MI300X, MI308X or MI325X",
               "engine_version_basis": "the issue's environment prints sglang 0.4.6.post5",
               "why_not": "DP attention is modelled now, but the GPU's memory class is not known: the issue's "
                          "environment is ROCm with compute capability 9.4 (gfx942: MI300X 191.98 GiB, MI325X 255.98 "
                          "GiB, or MI308X), whose pools differ by tens of GiB; the excerpt prints no free memory and "
                          "no flags beyond tp/dp/ep and chunked prefill"},
    "sg_047": {"why_not": "re-read by helper scor (2026-12-04): tpkit has Gemma 4 rules for SGLang 0.5.11+ now (helper "
                          "gs4) and the base geometry is in the set (google--gemma-4-26B-A4B-it.json), but the "
                          "checkpoint is the author's own text-only FP8 (W8A8) conversion whose quantization_config "
                          "(which modules stay bf16; the vision tower removed) is not public, the SGLang build is a "
                          "2026-10 tree (release not named), and the pool is small against the load (~3 GiB of KV: "
                          "29,061 tokens of ~110 KB by the report's own per-token check, beside 25.12 GiB of weights "
                          "on a 31.4 GiB card), so every 0.1 GiB the guessed conversion misses moves the figure by "
                          "~3 %"},
    "sg_052": {"why_not": "GPU unknown: the excerpts name no device and print no free memory before load (tp 2 x pp 2 "
                          "itself is planned)"},
    "sg_054": {"why_not": "engine_anomaly: v0.5.19's MTP draft holds its own embed/lm_head while the pool is sized "
                          "(the PR's subject; tpkit's SGLang rules model that stock order from helper qmtp, "
                          "2026-12-04: 2.37 GiB at TP 2, as the PR measures); the "
                          "Qwen3.8-27B geometry is in the explain corpus now (tests/logs/data/configs/"
                          "Qwen__Qwen3.8-27B) but not the AutoRound INT4 quantization_config, and the author's table "
                          "gives no flags beyond the fp8 KV cache"},
    "sg_055": {"why_not": "re-read by helper scor (2026-12-04): the DSA pool (MLA latent plus indexer keys per layer) "
                          "is modelled now (helper dsa), but no GLM-5 config is public in the tools (the explain "
                          "corpus stands GLM-5.1's in, tests/logs/data/configs/zai-org__GLM-5.1), the NVFP4 "
                          "checkpoint's quantization_config (which modules stay bf16 or FP8) and its MTP draft "
                          "layer are not known, and the condensed log prints no release"},
    "sg_057": {"flags": {"max_running_requests": 128, "cuda_graph_max_bs": 4, "dtype": "float16",
                         "speculative_algorithm": "EAGLE3",
                         "speculative_draft_model_path": "jamesliu1--sglang-EAGLE3-Llama-3.1-Instruct-8B.json",
                         "speculative_num_steps": 5, "speculative_eagle_topk": 8, "speculative_num_draft_tokens": 32},
               "flags_note": "from the printed ServerArgs (speculative settings, dtype, max_running_requests, "
                             "cuda_graph_max_bs); the EAGLE-3 draft config is assembled (its _assembled_note)",
               "predict": True, "why_not": None},
    "vl_010": {"why_not": "Qwen3.6-27B AutoRound INT4 with the title's DFlash drafts ('dual dflash on'): the "
                          "Qwen3.5/3.6-27B geometry is in the explain corpus (tests/logs/data/configs/"
                          "Qwen__Qwen3.5-27B) but not the AutoRound quantization_config, DFlash is not among tpkit's "
                          "vLLM speculative methods, and the one-line excerpt prints neither the release nor "
                          "gpu_memory_utilization"},
    "vl_012": {"why_not": "Qwen3.6-35B-A3B NVFP4 (ModelOpt): the base geometry is in the explain corpus "
                          "(tests/logs/data/configs/Qwen__Qwen3.6-35B-A3B), but not the build's quantization_config "
                          "(a mix of NVFP4 and FP8 modules), so its weights cannot be derived"},
    "vl_050": {"config_file": "ibm-granite--granite-4.0-micro.json", "config_confidence": "assembled (partial)",
               "tpkit_engine_version": "0.11.0",
               "engine_version_basis": "printed 'Initializing a V1 LLM engine (v0.11.0)'",
               "flags": {"quantization": "fp8"},
               "flags_note": "quantization 'fp8': the printed engine config (quantization=fp8, online FP8 of the bf16 "
                             "checkpoint)",
               "predict": True, "why_not": None},
    "vl_059": {"tpkit_engine_version": "0.8.2:v0",  # helper npred (2026-12-04)
               "engine_version_basis": "V0 line numbers: loader.py:1155 'Loading weights with BitsAndBytes' and "
                                       "model_runner.py:1146 'Model loading took' are 0.8.2's and 0.8.3's (0.8.4: "
                                       "loader.py:1166; 0.8.5: 1187 / 1140); tpkit's V0 rules are the same for both",
               "flags": {"quantization": "bitsandbytes", "enable_lora": True},
               "flags_note": "quantization 'bitsandbytes' (the log: 'Loading weights with BitsAndBytes quantization' "
                             "of the bf16 Phi-4 checkpoint, in-flight nf4) and --enable-lora (the log's 'Using "
                             "PunicaWrapperGPU'); max_loras and max_lora_rank are not printed: vLLM's defaults (1, "
                             "16) assumed; the printed CPU blocks (1,966 x 16 x 204,800 B = 6.0 GiB) say swap_space "
                             "6, which takes no GPU memory",
               "predict": True, "why_not": None,
               "why_off": (
                   "Scored since helper npred (2026-12-04): +1.3 % blind, outside its band. The load is reproduced: "
                   "nf4 weights with their compressed absmax (models/quant.py bnb_online; vllm 0.8.2 loader.py "
                   "_quantized_4bit_generator) 8.464 GiB, LoRA buffers at vLLM's defaults (max_loras 1, rank 16; "
                   "engines/vllm/lora.py) 0.138 GiB, rotary cache 0.004 GiB: 8.606 against the printed 8.6253 GiB "
                   "(-0.2 %). The gap is the profile run's activation peak: 0.93 GiB planned (logits + sampler "
                   "phase) against the printed 1.16 GiB; bitsandbytes' 4-bit matmul dequantises each weight to bf16 "
                   "for a prefill (0.33 GiB for gate_up) but that lifts the MLP phase to ~0.6 GiB only, under the "
                   "sampler phase, so no rule was added; the remaining ~0.23 GiB has no source found yet")},
    "vl_060": {"why_not": "GLM-5.3-Flash: no config in the set or found public (re-read by helper scor, 2026-12-04); "
                          "per an unverified test fixture it mixes Kimi Delta Attention layers with DeepSeek sparse "
                          "attention layers whose indexer keys are compressed, a layer mix tpkit's vLLM page rules "
                          "have not been read for (the log: 640-token attention blocks, mamba page padded 20.75 %)"},
    "vl_066": {"why_not": "engine_anomaly: the kvcached plugin allocates the KV cache itself (elastic virtual "
                          "memory), so the printed count is the plugin's, not vLLM's sizing; gpu_memory_utilization is "
                          "not in the excerpt either. Re-read by helper scor (2026-12-04): a gemma-3-4b-it config "
                          "(public architecture fields) would not unblock it"},
    "vl_024": {"config_file": "Qwen--Qwen3-VL-30B-A3B-Instruct-FP8.json", "config_confidence": "assembled (partial)",
               "tpkit_engine_version": "0.20.2",
               "engine_version_basis": "'vLLM 0.20.2 confirmed by vllm.__version__ (torch 2.11.0+cu130)'",
               "flags_note": "the notebook's flags: --gpu-memory-utilization 0.70, --max-model-len 32768, --max-num-seqs "
                             "4 (its compose also sets --limit-mm-per-prompt '{\"image\": 8, \"video\": 0}', "
                             "planned since helper lmm, 2026-12-04); KV dtype auto (the notebook's 96 KiB/token is bf16)",
               "flags": {"limit_mm_per_prompt": '{"image": 8, "video": 0}'},
               "gpu_note": "RTX PRO 6000 (96 GB; the notebook's 'GPU total 97,887 MiB' is nvidia-smi's figure); other "
                           "tenants held ~11.9 GiB, which vLLM 0.20's budget (total x utilisation, "
                           "v1/worker/utils.py request_memory) does not depend on",
               "predict": True, "why_not": None,
               "why_off": VLM_ENCODER_OFF_024},

    # helper v0p, 2026-12-04: vl_001's Mllama profile replayed on an H200; vl_069's flags from the post's command
    "vl_001": {"why_off": (
        "vLLM V0 encoder-decoder profile with the Mllama vision encoder (helper v2, 2026-12-01; vllm 0.6.6 and "
        "0.7.0 wheels, whose enc_dec_model_runner.py and mllama.py agree). EncoderDecoderModelRunner.profile_run "
        "builds max_num_seqs (128) dummy sequences, each with dummy_encoder_data_for_mllama's one 1024x1024 image "
        "(4 tiles x 1,601 patches, padded to 1,608), so MllamaVisionModel.forward runs 512 tiles in one pass with "
        "a 9.86 GiB aspect-ratio mask (_prepare_aspect_ratio_attention_mask), five saved intermediate states and "
        "CLIPMLP's fc1 and GELU outputs live. A PyTorch replay of that live set (helper v0p, 2026-12-04: the vision "
        "tower's tensor sequence with random bf16 weights on one H200, torch 2.11; the two float32 pixel copies "
        "of _parse_and_validate_image_input included) peaks at 46.85 GiB in the 32-layer transformer and 58.63 "
        "GiB in the global one (the five saved states, their torch.stack copy and the mask live together): "
        "0.458 GiB per image, linear (14.68 GiB at 32 images). The printed 'PyTorch activation peak memory "
        "takes 36.63GiB' is therefore not that 128-image profile as the source reads (it equals about 80 images, "
        "for which the source gives no reason), so no rule is pinned; tpkit's activation estimate is the text "
        "model's (6.75 GiB at 65,536 batched tokens), and the band does not cover the rest.")},
    "vl_069": {"flags": {"block_size": 32, "max_num_batched_tokens": 2048, "disable_custom_all_reduce": True,
                         "dtype": "float16"},
               "flags_note": "from the post's docker command (vllm/vllm-openai:v0.8.5 --tensor-parallel-size 4 "
                             "--dtype half --max-model-len 131072 --max-num-batched-tokens 2048 "
                             "--gpu-memory-utilization 0.92 --block-size 32 --enable-chunked-prefill "
                             "--swap-space 24 --disable-custom-all-reduce, YaRN factor 4 over 32,768)",
               "tpkit_engine_version": "0.8.5:v0",
               "notes": "Per rank: 48 layers x 1 KV head (4 / tp 4) x 128 x 2 x 2 B = 24,576 B/token; the printed "
                        "4.07 GiB gives 5,556 blocks of 32 = 1.36x of 131,072, the printed concurrency 1.21x (see "
                        "why_off). Pair with vl_068 (32K config, same machine).",
               "engine_version_basis": "the post's image vllm/vllm-openai:v0.8.5 (V0 on Turing; worker.py:287 and "
                                       "executor_base.py:117 are 0.8.5's line numbers)",
               "why_off": (
        "Not an activation error (helper v0p, 2026-12-04; vllm 0.8.5 wheel). The run profiles 2,048 tokens "
        "(--max-num-batched-tokens 2048 --enable-chunked-prefill in the post's command; V0 also enables chunked "
        "prefill by default above 32,768, engine/arg_utils.py _set_default_args_v0); its printed peak 1.39 GiB "
        "equals vl_068's 1.40 GiB at 4,096 tokens, and tpkit's logits + sampler phase is 1.38 GiB (fused-MoE "
        "intermediates at 2,048 tokens: 0.08 GiB). The load is reproduced too (14.27 GiB: the YaRN rotary cache "
        "of 131,072 rows, policy.rotary_cache_positions), and the plan's available KV is 4.10 GiB against the "
        "4.07 GiB printed (+0.6 %). The concurrency line (executor_base.py:117) uses the minimum block count over the "
        "four workers; the printing worker is the driver (its peak holds the gathered logits and the sampler, "
        "which model_runner.py execute_model skips on the other ranks), so the other ranks have more room and "
        "the 0.8.5 source gives 4.07 GiB / 786,432 B = 5,556 blocks = 1.36x, not the printed 1.21x. The "
        "printed 1.21x is what the same printed terms give at the default gpu_memory_utilization 0.90 "
        "(21.66 x 0.90 - 15.86 = 3.63 GiB = 4,961 blocks = 1.21x), i.e. consistent with a line from another "
        "run, or with one rank losing 0.44 GiB to something outside vLLM; the post shows neither. Scored as "
        "printed, inside its band.")},
}
COLLECTION_EDITS.setdefault("sg_037", {})["why_off"] = AMD26_OFF["sg_037"]  # a collection case: edited here


ENTRYPOINTS = {  # helper llmc (2026-12-05): the vLLM entrypoint of the records not in data_public (corpus logs, the
    # shared set), with its evidence; the public cases carry theirs in data_public/vllm_cases.json.  "llm" plans with
    # --vllm-entrypoint llm (the LLM class's V1 batch defaults, engines.vllm.batch_defaults.default_batched_tokens)
    "case_020": ("serve", "command: 'vllm serve /path/to/Qwen3-235B-A22B-FP8 --tensor-parallel-size 4 --kv-transfer-config …'"),
    "case_021": (None, "not stated"),
    "case_022": (None, "not stated"),
    "case_027": (None, "not stated"),
    "case_032": (None, "not stated"),
    "case_033": (None, "not stated"),
    "case_063": ("serve", "command: 'python -m vllm.entrypoints.openai.api_server --model qwen/Qwen1.5-7B-Chat-GPTQ-Int4 …'"),
    "case_064": (None, "not stated"),
    "case_065": (None, "not stated"),
    "vl_001": ("serve", "command: 'vllm serve meta-llama/Llama-3.2-11B-Vision --load-format dummy --max-model-len 65536 …'"),
    "vl_002": (None, "not stated"),
    "vl_003": (None, "not stated"),
    "vl_004": ("serve", "command: 'vllm serve --trust-remote-code --tensor_parallel_size 2 --gpu_memory_utilization=0.98  …'"),
    "vl_010": ("serve", "log vl_010.log: '(APIServer pid=1) INFO 06-01 09:20:16 [utils.py:278] non-default args: {'mode'"),
    "vl_012": ("serve", "log vl_012.log: '(APIServer pid=1) INFO 07-06 22:50:34 [api_utils.py:273] non-default args: {''"),
    "vl_021": ("serve", "log vl_021.log: 'vllm serve Qwen/Qwen3-235B-A22B-Instruct-2507-FP8 \\'"),
    "vl_022": ("serve", "command: 'vllm serve ~/models/Qwen2.5-7B-Instruct-AWQ --served-model-name qwen2.5-7b-awq …'"),
    "vl_024": (None, "not stated"),
    "vl_025": ("serve", "log vl_025.log: '[api_server.py:241] Started engine process with PID 1401'"),
    "vl_030": (None, "not stated"),
    "vl_031": ("llm", "log vl_031.log: '[llm.py:295] Supported_tasks: ['generate']'"),
    "vl_033": ("serve", "command: 'vllm serve ... --served-model-name qwen3-235b --tensor-parallel-size 4 …'"),
    "vl_039": (None, "not stated"),
    "vl_044": ("serve", "log vl_044.log: 'INFO 02-13 15:01:59 api_server.py:756] Using supplied chat template:'"),
    "vl_046": (None, "not stated"),
    "vl_047": (None, "not stated"),
    "vl_048": ("serve", "command: 'vllm serve ./Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8 --gpu-memory-utilization 0.9 …'"),
    "vl_050": ("llm", "log vl_050.log: '[llm.py:306] Supported_tasks: ['generate']'"),
    "vl_051": (None, "not stated"),
    "vl_056": ("serve", "command: 'python3 -m vllm.entrypoints.openai.api_server --max-log-len=200 …'"),
    "vl_057": ("serve", "command: 'vllm serve Qwen/Qwen3-14B --disable-log-stats'"),
    "vl_058": (None, "not stated"),
    "vl_059": (None, "not stated"),
    "vl_060": ("serve", "command: 'vllm serve /root/.cache/huggingface/GLM-5.3-Flash --trust-remote-code …'"),
    "vl_066": (None, "not stated"),
    "vl_067": ("serve", "command: 'vllm serve openai/gpt-oss-20b --port 10000 --max-model-len 131072 --gpu-memory-utilization'"),
    "vl_068": (None, "not stated"),
    "vl_069": (None, "not stated"),
    "vl_070": ("serve", "command: 'vllm/vllm-openai:v0.8.5'"),
    "vl_071": ("serve", "command: 'vllm serve gaunernst/gemma-3-27b-it-int4-awq --max-model-len 4096 --gpu-memory-utilization'"),
}


DUPLICATE_OF = {
    # helper dedup15 (2026-12-05): the same start-up recorded twice (tests/validation/same_run.py, listed by
    # scripts/same_run_check.py); the record kept is the fuller one, the other is listed as "duplicate of X" and not
    # scored (harness.score), so the run weighs once in the median / p90 / inside-band figures
    "vl_021": ("vp_020",
               "both read search-index file 38962983769 ('Hosting Qwen3-235B-A22B-Instruct-2507-FP8 on 8xL40S') and "
               "share its time-stamped lines (09-24 20:53:41 'GPU KV cache size: 238,208 tokens'); vp_020 keeps the "
               "run: its record holds the `vllm serve` command and the --enable-expert-parallel it ran with (vl_021's "
               "longer excerpt stays in the explain corpus, tests/logs/data/vllm/vl_021.log)"),
    "gs_007": ("sg_067",
               "both read willxxy/sglang-play's README 'Current status' (search-index id 55068335887) and share its "
               "time-stamped lines ('[2026-07-08 16:06:48] Load weight begin. avail mem=36.54 GB'); sg_067 keeps the "
               "run: its record holds the repository URL, the launch command, page_size and the longer excerpt"),
}
"""case -> (the case that keeps the run, the note): each mark is checked by harness.score (same_run.check_duplicate_of)"""


def _edited(rec: dict, table: dict | None = None) -> dict:
    """``rec`` with its COLLECTION_EDITS (or ``table``'s edits; flags merged); applying them twice gives the same
    record."""
    edits = (COLLECTION_EDITS if table is None else table).get(rec["id"])
    if not edits:
        return rec
    rec = dict(rec)
    for key, value in edits.items():
        rec[key] = {**rec[key], **value} if key == "flags" else value
    return rec


def _shared(engine: str) -> list[dict]:
    """The shared validation set (already in the repo), in the same normalised form."""
    out = []
    for case in json.loads((SHARED[engine] / "cases.json").read_text()):
        if case["engine"] != engine:
            continue
        if engine == "sglang":
            sel = SGLANG.get(case["id"])
            if sel is None:
                continue
            rec = _record("sglang", {**case, "quality": "high", "arch_class": case.get("arch_class", "")}, sel)
        else:
            version = case["tpkit_engine_version"]
            rec = _record("vllm", {**case, "quality": "high"}, (version, "the shared set's era", {}, None))
            if case.get("gpu_total_bytes_reported"):
                rec.update(gpu_total_bytes=case["gpu_total_bytes_reported"],
                           gpu_note=f"{case['gpu']} with the total the log prints")
        edits = dict(VLLM_SHARED_EDITS.get(case["id"], {})) if engine == "vllm" else {}
        why_off = edits.pop("why_off", None)
        rec.update(edits)
        rec["shared_set"] = True
        if why_off is not None:
            rec["why_off"] = why_off
        out.append(rec)
    return out


_STATED_SAMPLER_LINES = ("Using FlashInfer for top-p", "FlashInfer is not available", "FlashInfer is available, but",
                         "Falling back to the PyTorch-native implementation of top-p",
                         "FlashInfer version >= 0.2.3 required")
"""the topk_topp_sampler.py lines that name the sampler (``tpkit.logs.settings._SAMPLER_LINES``): they win"""


def _image_sampler(rec: dict, text: str) -> dict:
    """Input rule (helper img16, 2026-12-05): a vLLM case whose source shows the official image
    (``engines.vllm.versions.OFFICIAL_IMAGE_MARKERS``: /vllm-workspace, vllm/vllm-openai) on a release that leaves the
    top-k/top-p sampler to the install (0.8.0–0.11.0 V1) gets the sampler that image runs, FlashInfer
    (``engines.vllm.versions.image_sampler``: every such release's docker/Dockerfile installs flashinfer-python; not the
    arm64 image before 0.10.0), unless a topk_topp_sampler line of its log names the sampler or its inputs already
    give one.  Without such evidence the release's default (PyTorch-native, with a band) stays.  ``text``: the
    record and its source record, as JSON."""
    import sys
    sys.path.insert(0, str(ROOT / "src"))
    from tpkit.engines.vllm.versions import image_sampler, official_image_marker

    version = rec.get("tpkit_engine_version")
    flags = rec.get("flags")
    if rec.get("engine") != "vllm" or not version or flags is None or flags.get("topk_topp_sampler"):
        return rec
    if any(line in text for line in _STATED_SAMPLER_LINES):
        return rec
    marker = official_image_marker(text)
    sampler = image_sampler(version, rec.get("gpu")) if marker else None
    if sampler:
        flags["topk_topp_sampler"] = sampler
        rec["sampler_note"] = (f"{sampler}: the source shows the official image ('{marker}'), whose docker/Dockerfile "
                               f"installs flashinfer-python for {version} (input rule, helper img16)")
    return rec


def _public(engine: str) -> list[dict]:
    """The cases kept in the repository with their log excerpt (``tests/validation/data_public/``)."""
    path = PUBLIC.get(engine)
    if path is None or not path.exists():
        return []
    table = SGLANG_PUBLIC if engine == "sglang" else VLLM_PUBLIC
    out = []
    for case in json.loads(path.read_text()):
        rec = _edited(_record(engine, case, table[case["id"]]), PUBLIC_EDITS)
        rec = _image_sampler(rec, json.dumps(case, ensure_ascii=False) + json.dumps(rec, ensure_ascii=False))
        rec["public_data"] = str(path.relative_to(ROOT))
        out.append(rec)
    return out


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for engine, table, path in (("sglang", SGLANG, DATA / "sglang_logs" / "cases.json"),
                                ("vllm", VLLM, DATA / "vllm_logs" / "cases.json")):
        rebuilt = _shared(engine) + _public(engine)
        if path.exists():
            cases = {c["id"]: c for c in json.loads(path.read_text())}
            records = [_record(engine, cases[cid], sel) for cid, sel in table.items() if cid in cases]
        else:  # the collection is not in the repository: keep its records as built before
            fresh = {r["id"] for r in rebuilt}
            records = [r for r in json.loads((OUT / f"{engine}.json").read_text()) if r["id"] not in fresh]
            print(f"{engine}: {path} absent; {len(records)} records kept from cases/{engine}.json")
        records = [_edited(r) for r in records]
        records += rebuilt
        records = [_image_sampler(r, json.dumps(r, ensure_ascii=False)) for r in records]
        for rec in records:
            if rec["id"] in ENTRYPOINTS:
                rec["entrypoint"], rec["entrypoint_evidence"] = ENTRYPOINTS[rec["id"]]
                if rec["entrypoint"] == "llm":
                    rec["flags"]["vllm_entrypoint"] = "llm"
        for rec in records:  # the same run recorded twice: listed once as a duplicate (DUPLICATE_OF)
            if rec["id"] in DUPLICATE_OF:
                rec["duplicate_of"], rec["duplicate_note"] = DUPLICATE_OF[rec["id"]]
        records.sort(key=lambda r: r["id"])
        (OUT / f"{engine}.json").write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n")
        print(f"{engine}: {len(records)} cases, {sum(r['predict'] for r in records)} predicted")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
