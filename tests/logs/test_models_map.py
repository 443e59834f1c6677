"""tests/logs/data/models.json: every log of cases.json has its model, the evidence, and a config tpkit loads.

The map is what lets a test rebuild a log's capacity from its own anchors (issue 12): each entry names the model
the log served, where that is written (the log itself, cases.json's source, the validation set or the source
thread), and a config (tpkit's catalog, tests/validation/configs, or tests/logs/data/configs/<org>__<name> with a
SOURCE.md). The checks below fail when an entry drifts from its log, its config does not load, or the config's
architecture is not the one the engine printed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tpkit.models import load_model
from tpkit.models.catalog import find_entry
from tpkit.models.config_file import read_config_file

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "logs" / "data"
MAP = json.loads((DATA / "models.json").read_text(encoding="utf-8"))["cases"]
CASES = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))
BY_ID = {c["id"]: c for c in CASES}
FIDELITY = {"exact", "same architecture", "base architecture; quantization_config missing", "assumed model",
            "partial"}
EVIDENCE_FROM = {"log", "case_source", "validation_set", "thread", None}


def _validation_models() -> dict[str, str]:
    out = {}
    for name in ("sglang.json", "vllm.json"):
        for case in json.loads((ROOT / "tests" / "validation" / "cases" / name).read_text(encoding="utf-8")):
            out[case["id"]] = case["model"]
    return out


def _log_text(entry: dict) -> str:
    return (DATA / entry["file"]).read_bytes().decode("utf-8", "replace")


def _config_dict(ref: str) -> dict:
    if ref.startswith("catalog:"):
        found = find_entry(ref[len("catalog:"):])
        assert found is not None, f"{ref} is not in the embedded catalog"
        return found.config
    return read_config_file(ROOT / ref)


def test_ids_and_files_match_cases_json():
    assert [e["id"] for e in MAP] == [c["id"] for c in CASES]
    for entry in MAP:
        assert entry["file"] == BY_ID[entry["id"]]["file"]
        assert entry["engine"] == BY_ID[entry["id"]]["engine"]


@pytest.mark.parametrize("entry", MAP, ids=[e["id"] for e in MAP])
def test_evidence_is_where_the_entry_says(entry):
    frm, ev = entry["evidence_from"], entry["model_evidence"]
    assert frm in EVIDENCE_FROM
    if frm == "log":
        assert ev and ev in _log_text(entry)
    elif frm == "case_source":
        assert ev and ev in BY_ID[entry["id"]]["source"]
    elif frm == "validation_set":
        assert _validation_models()[entry["id"].removeprefix("validation_")] == ev
    elif frm == "thread":
        assert ev and entry.get("note") or BY_ID[entry["id"]]["source_url"]
    if entry["model"] is None or entry["config"] is None:
        assert entry.get("note"), "a null model or config needs the reason in 'note'"
    if "draft" in entry:
        assert entry["draft"]["evidence"] in _log_text(entry)


WITH_CONFIG = [e for e in MAP if e["config"]]


@pytest.mark.parametrize("entry", WITH_CONFIG, ids=[e["id"] for e in WITH_CONFIG])
def test_config_loads(entry):
    ref = entry["config"]
    assert entry["config_fidelity"] in FIDELITY
    if ref.startswith("catalog:"):
        spec = load_model(ref[len("catalog:"):])
        assert spec.source == f"catalog:{find_entry(ref[len('catalog:'):]).id}"
    else:
        path = ROOT / ref
        assert path.is_file(), ref
        if path.parent.parent == DATA / "configs":
            source = (path.parent / "SOURCE.md").read_text(encoding="utf-8")
            assert "index file id" in source or "http" in source
        spec = load_model(str(path))
    assert spec.num_layers > 0 and spec.hidden_size > 0


def _printed_architecture(text: str) -> str | None:
    m = re.search(r"Load weight end\..*?type=(\w+)", text) or re.search(r"Resolved architecture: (\w+)", text)
    return m.group(1) if m else None


PRINTED = [e for e in WITH_CONFIG if _printed_architecture(_log_text(e))]


def test_architecture_check_covers_the_logs_that_print_one():
    assert len(PRINTED) >= 35   # 35 logs with a config print 'Load weight end. type=' or 'Resolved architecture'


@pytest.mark.parametrize("entry", PRINTED, ids=[e["id"] for e in PRINTED])
def test_config_architecture_is_the_printed_one(entry):
    printed = _printed_architecture(_log_text(entry))
    arch = (_config_dict(entry["config"]).get("architectures") or [None])[0]
    if printed == arch:
        assert "printed_architecture_differs" not in entry
    else:
        assert entry.get("printed_architecture_differs", "").startswith(f"the log prints {printed}")
        assert entry["config_fidelity"] != "exact"


def test_validation_configs_referenced_exist():
    paths = {e["config"] for e in MAP if e["config"] and not e["config"].startswith("catalog:")}
    missing = [p for p in paths if not (ROOT / p).is_file()]
    assert missing == []


def _prints_capacity_anchor(entry: dict) -> bool:
    anchor = "Load weight end" if entry["engine"] == "sglang" else "Available KV cache memory"
    return anchor in _log_text(entry)


def test_capacity_logs_with_a_config_do_not_regress():
    """Issue 12's bar counts the logs that print 'Load weight end' (SGLang) / 'Available KV cache memory' (vLLM):
    63 of the 146; 50 of them have a config here (43 before helper cfg; docs/accuracy.md §7.1). Helper new
    (2026-12-03) added sg_067, vl_072, vl_073, vl_074 and vl_076: 68 of the 154, 53 with a config; helper lfm
    (2026-12-03) added the configs of sg_014 and sg_015: 55; helper cfg2 (2026-12-03) sg_067's (Qwen2.5-0.5B-Instruct):
    56. Helper new2 (2026-12-04) added vl_077-vl_081, all with a config: 73 and 61; helper new3 (2026-12-04) vl_082 to
    vl_084, all with a config: 76 and 64; helper new5 (2026-12-04) sg_069, with a config: 77 and 65; helper new4
    (2026-12-04) vl_085 to vl_089, all with a config: 82 and 70; helper new6 (2026-12-04) vl_090 to vl_093, all with
    a config: 86 and 74; helper new7 (2026-12-04) sg_070 and vl_094, with a config: 88 and 76; helper mv1
    (2026-12-04) twelve committed server logs of vl_100-vl_114, ten with a config (vl_108 Qwen2.5-Coder-1.5B and
    vl_109 MiniMax-M2.5 have none): 100 and 86; helper mv3 (2026-12-04) vl_150 to vl_158, all with a config, and vl_160 without one (vl_159
    crashes before the anchor): 110 and 95; helper cfg3 (2026-12-04) the configs of vl_108, vl_109 and vl_160: 110
    and 98; helper mv2 (2026-12-04) vl_125-vl_129, vl_133, vl_134 with a config and vl_137, vl_138 without
    (committed server logs): 119 and 105; helper v2c (2026-12-04)
    vl_175-vl_179 (vp_100-vp_104), all with a config, of which vl_175, vl_176 and vl_179 print the anchor: 122 and
    108; helper cfg4 (2026-12-04) the configs of vl_137 (GPT-2) and vl_138 (Phi-3-mini): 122 and 110; helper mv4 (2026-12-04) vl_200-vl_208
    (committed server logs), all with a config: 131 and 119; helper sgx (2026-12-04) sg_080 and sg_081 with a config
    and sg_082 (Laguna-S-2.1-INT4 on a GB10) without one (committed server logs): 134 and 121; helper mv5 (2026-12-04)
    vl_220-vl_223 and vl_227 (committed server logs), all with a config (vl_224 - vl_226 crash before the anchor):
    139 and 126; helper g3v (2026-12-04) vl_240 and vl_241 (Gemma 3 on ROCm), both with a
    config: 141 and 128; helper mv6 (2026-12-04) vl_251-vl_255 with a config and vl_256 (a shared-GPU crash) without
    one (committed logs; vl_250 is V0, no anchor): 147 and 133; helper sgy (2026-12-04) sg_100 and sg_101 with a
    config and sg_102 (Qwen3-VL-32B-Instruct, a pool crash) without one (committed engine logs): 150 and 135; sg_103
    (amd/GLM-5.1-MXFP4 on MI355X) on the GLM-5.1 config: 151 and 136; sg_104 (Qwen3-VL-30B-A3B-Instruct on a B200):
    152 and 137; sg_105 (DeepSeek-V3.2, a pool crash on B200s): 153 and 138; sg_106 (DeepSeek-V3.2-AWQ on B200s, a
    capture crash after the pool): 154 and 139;
    helper mv7 (2026-12-04) vl_270-vl_273 (committed
    run logs of akamaslabs/vllm-benchmark, gemma-4-26B-A4B-it FP8 on an L40S), vl_274 and vl_275, all with a config: 160
    and 145 with sgy's; helper cfg5 (2026-12-04) sg_102's (Qwen3-VL-32B-Instruct, partial) and sg_082's (Laguna-S-2.1,
    assembled, partial): 160 and 147;
    helper mv8 (2026-12-04) vl_290, vl_291 (akamaslabs/vllm-benchmark study 28, Qwen3-8B-FP8 on a
    MIG slice), vl_293 (Qwen2.5-7B bitsandbytes) and vl_294 (Qwen3-VL-Embedding-2B pooling), all with a config: 164
    and 149; then vl_296 (Qwen3-14B-AWQ), vl_297 (Qwen3-30B-A3B Int4 tp 2) and vl_298 (dots.ocr), all with a config:
    167 and 154 with cfg5's;
    helper sgz (2026-12-04) sg_120 (the tp-8 sibling of sg_103, same GLM-5.1 config): 161 and
    146, sg_121 (sglang#25118, DeepSeek-V4-Flash on MI300X, no config): 162 and 146, and sg_122 (sg_120 on the
    v0.5.10rc0 image): 170 and 156 with the rounds above;
    helper mv9 (2026-12-04) vl_310 (LMCache's xPyD decoder log, Llama-3.1-8B tp 2, with a config): 171 and 157
    (vl_311, its 1P1D sibling on 0.9.0.1, and vl_312 print no anchor); vl_313 (vp_230, Qwen2-7B tp 2): 172 and 158;
    vl_314 (ragflow#9856, Qwen3-30B-A3B-Thinking-2507-FP8 tp 2): 173 and 159; vl_315 (vp_231, Ray Serve LLM Qwen3-8B):
    174 and 160; helper mv10 (2026-12-04) vl_330 and vl_331 (StellaLee/vllm-experiment, Qwen2.5-Coder-7B-Instruct on
    vLLM 0.23.0), both with a config: 176 and 162; vl_332 (belonghim/vllm-optimizer's KV-too-small fixture, an unnamed
    Qwen3.5 checkpoint, no config): 177 and 162; helper mv12 (2026-12-04) vl_370 (vp_290, sipeed/sipeed_wiki's
    Qwen3-VL-30B-A3B-Instruct tp 4 on RTX 3090s, with a config): 178 and 163; vl_371 (vp_291, gnosia93/eks-agentic-ai's
    Qwen2.5-72B-Instruct tp 4 on L40S, with a config): 179 and 164; vl_372 (a vLLM 0.17.0 Qwen3-8B-AWQ tp 2 session
    on two Ada GPUs, on the base Qwen3-8B config): 180 and 165.
    Merged with helper mv11 (2026-12-04) vl_340-vl_342 (guardkit/guardkit's GB10 docker
    logs: Qwen2.5-14B-Instruct-FP8-dynamic twice, Qwen3-30B-A3B-FP8), with a config, and vl_343-vl_345
    (Nemotron-3-Nano-4B-FP8 twice, Qwen3.5-35B-A3B-FP8) without one (vl_346 fails its start-up check before the
    anchor): 183 and 165; vl_347 (a notebook's vLLM 0.20.2 Qwen3-Reranker-8B start-up, with a config): 184 and 166;
    vl_348 (the same repository's Kaggle T4 Qwen3-8B-AWQ start-up, assembled config): 185 and 167 on its branch; 188 and 174 merged
    (with capV's vl_332 config); 177 with cfg6's Nemotron-3-Nano-4B (vl_343, vl_344) and Qwen3.5-35B-A3B (vl_345)
    configs. Helper mv13 (2026-12-04): vl_380-vl_382 and sg_200 (committed server logs, each with a config): 192
    and 181; vl_383 (vLLM 0.31.0 Qwen/Qwen3.8-27B, the set's config): 193 and 182. Helper mv15 (2026-12-04):
    sg_220-sg_225 (SGLang on an RTX 5080, an SM100 GPU and MI355X, each with a config): 199 and 188. Helper mv14 (2026-12-04):
    vl_402-vl_404 (vLLM 0.22.0 / a 0.23.1rc1 nightly), each with a config (vl_403's assembled): 196 and 185 on its
    branch, 202 and 191 merged; vl_400 / vl_401 (V0 logs) do not print the anchor. Helper mv16 (2026-12-04): vl_431
    (club-3090 #652, vLLM 0.24.0 Qwen3.6-35B-A3B NVFP4 on an RTX 5090, with a config): 203 and 192; vl_432
    (club-3090 #487, Qwen3.6-27B AutoRound INT4 tp 2, the base Qwen3.6-27B config): 204 and 193; vl_430 (a V0
    crash log) does not print the anchor. Helper mv18 (2026-12-04): vl_520 (vLLM 0.25.0 Gemma-4-26B-A4B with LoRA on a
    GB10, the set's Gemma-4-26B-A4B config): 205 and 194; vl_521 (vLLM 0.23.0 DeepSeek-V4-Flash tp 2, the set's
    DeepSeek-V4-Flash config): 206 and 195; vl_522 (a lab's vLLM 0.23 Qwen3.5-0.8B, the set's config): 207 and 196;
    vl_523 (vLLM 0.20.0 Qwen3.6-35B-A3B NVFP4 on a DGX Spark, the base config): 208 and 197; sg_290 / sg_291
    (SGLang 0.5.14 Ornith-1.0-9B on a GB10, the Qwen3.5-9B config assumed): 210 and 199; vl_524 (vl_404's compose
    with MTP 2, the base Qwen3.6-27B config): 211 and 200; vl_525 (vLLM 0.17.1 Qwen3.5-2B, the config assembled
    from the Megatron-LM variant table): 212 and 201.
    Helper mv19 (2026-12-04): SGLang logs sg_250 onward, each with a config (counts in the asserts): 232 and 221 merged with mv18.
    Helper vds4 (2026-12-04): vl_064 gets the assembled DeepSeek-V4-Flash
    config (194) and vl_540 (vLLM 0.23.0 DeepSeek-V4-Flash server, with it) is added: 205 and 195; merged (lead): 233 and 223.
    Helper mv17 (2026-12-04): vl_440 / vl_441 (club-3090 #1084 / #1085,
    Qwen3.8-27B on two RTX 5090, the set's Qwen3.8-27B config): 206 and 196; vl_442 (club-3090 PR #594, Qwen3.6-27B
    FP8 on two RTX 3090, the base Qwen3.6-27B config): 207 and 197; vl_443 / vl_444 (Llama-3.1-8B fine-tunes, the
    set's Llama-3.1-8B-Instruct config): 209 and 199; vl_445 - vl_456 (TheBuccaneer/vllm-offload-profiles, the set's
    Llama-3.1-8B-Instruct and Qwen2.5-7B-Instruct configs): 221 and 211; vl_457 / vl_458 (the corpus's Qwen3.5-9B,
    the set's Qwen2.5-14B-Instruct): 223 and 213; vl_459 / vl_460 (GLM-5.1, Qwen3-0.6B): 225 and 215; vl_461
    (gemma-4-26B-A4B): 226 and 216; merged (lead, session 8): 255 and 246.
    Helper mv20 (2026-12-04): vl_483 / vl_484 (vLLM 0.10.2 / 0.10.1.1
    Llama-3.1-8B-Instruct, the set's config): 206 and 195; vl_480-vl_482 (V0 logs) do not print the anchor; vl_485 /
    vl_486 (vLLM 0.9.2 Qwen2.5-VL-7B-Instruct / Qwen2.5-0.5B-Instruct, each with a config): 208 and 197; vl_490
    (vLLM 0.10.2 TinyLlama-1.1B-Chat, assembled config): 209 and 198; merged (lead, session 8): 260 and 251.
    Helper mv21 (2026-12-04): vl_550 (a jishuzhan.net note, Qwen3-0.6B-FP8,
    the corpus's Qwen3-0.6B config): 205 and 194; vl_551-vl_555 (Seed-OSS-36B-Instruct, an assembled config): 210
    and 199; merged (lead, session 8): 266 and 257.
    Helper mv23 (2026-12-04): sg_330 (DeepSeek-R1 channel-FP8 on Hygon DCUs, the catalog's DeepSeek-R1): 267 and 258;
    sg_331 (MiniCPM5-1B, the validation set's config): 268 and 259; sg_332 (Qwen2.5-0.5B-Instruct, the corpus
    copy): 269 and 260; sg_333 (Qwen3.5-4B, the corpus config): 270 and 261;
    sg_334 (TinyLlama-1.1B-Chat, the assembled config): 271 and 262.
    Helper mv22 (2026-12-04): vl_580 (Unsloth, vLLM 0.9.2 Qwen2.5-VL-3B-Instruct, config added from a public copy): 267 and 258; vl_581 (V0) does not print the anchor.
    vl_582 (facebook/opt-2.7b tp 4 on four A30, assembled config): 268 and 259.
    vl_583 (llm-d guide, Qwen3-0.6B on L40S, the corpus's config): 269 and 260.
    vl_584 (KServe Qwen2.5-VL-7B-Instruct on one L4, the set's config): 270 and 261.
    vl_585 (a Chinese blog post, Qwen2-7B-Instruct, the set's Qwen2.5-7B-Instruct config): 271 and 262; merged with mv23 (lead, session 8): 276 and 267.
    and 199; merged (lead, session 8): 266 and 257. Helper mv24 (2026-12-04): vl_620 (Qwen3.8-27B with the YaRN x3
    override, Qwen--Qwen3.8-27B-yarn3.json): 267 and 258; vl_621-vl_623 print no anchor; vl_624 (Qwen3-0.6B, the
    corpus's config): 268 and 259; vl_625 (Gemma-4-26B-A4B-NVFP4, the base config): 269 and 260; vl_626
    (Qwen3.6-35B-A3B-NVFP4, the base config): 270 and 261; merged (lead, session 8): 280 and 271. vl_660 (Qwen2.5-1.5B-Instruct on a GB10, the set's config): 281 and 272. vl_661 (GLM-4-9B-Chat, an assembled glm-4-9b-chat-hf config): 282 and 273. vl_662 (Qwen3.6-27B-Text-NVFP4-MTP, the base config): 283 and 274. vl_663 (Qwen3.6-35B-A3B-NVFP4, the base config): 284 and 275. vl_664 (Qwen3.6-35B-A3B-NVFP4, the base config): 285 and 276. vl_665 (Qwen2.5-3B-Instruct, the corpus's Qwen2.5-3B config): 286 and 277. vl_666 (Qwen3-VL-30B-A3B from a local mount, the set's Instruct config): 287 and 278. vl_667 (Qwen2.5-1.5B-Instruct AWQ, the set's base config): 288 and 279; vl_668 (Qwen2.5-0.5B-Instruct, the corpus config): 289 and 280. vl_669 (Qwen3-VL-8B-Instruct, the catalog's Qwen3-8B text geometry): 290 and 281. Helper gb10 (2026-12-05): vl_720 (Qwen3.6-35B-A3B-FP8 on a GB10, the base config): 291 and 282. Helper mv27 (2026-12-05): sg_400 (Qwen3-30B-A3B under sglang-kt, the set's config): 291 and 282. sg_401 (Qwen3.8-27B-FP8 under sglang-kt, the set's base config): 292 and 283. sg_402 (gemma-4-E4B-it on a GB10, the corpus config): 293 and 284. sg_403 (Qwen3.8-27B on a GB10, the set's config): 294 and 285. Merged (lead, session 9): 295 and 286. A floor, so that entries are not lost.
    (Qwen3.6-35B-A3B-NVFP4, the base config): 270 and 261; merged (lead, session 8): 280 and 271. vl_660 (Qwen2.5-1.5B-Instruct on a GB10, the set's config): 281 and 272. vl_661 (GLM-4-9B-Chat, an assembled glm-4-9b-chat-hf config): 282 and 273. vl_662 (Qwen3.6-27B-Text-NVFP4-MTP, the base config): 283 and 274. vl_663 (Qwen3.6-35B-A3B-NVFP4, the base config): 284 and 275. vl_664 (Qwen3.6-35B-A3B-NVFP4, the base config): 285 and 276. vl_665 (Qwen2.5-3B-Instruct, the corpus's Qwen2.5-3B config): 286 and 277. vl_666 (Qwen3-VL-30B-A3B from a local mount, the set's Instruct config): 287 and 278. vl_667 (Qwen2.5-1.5B-Instruct AWQ, the set's base config): 288 and 279; vl_668 (Qwen2.5-0.5B-Instruct, the corpus config): 289 and 280. vl_669 (Qwen3-VL-8B-Instruct, the catalog's Qwen3-8B text geometry): 290 and 281. vl_700-vl_703 (Qwen3-8B-FP8, the set's config; helper akam 2026-12-05): 294 and 285; vl_704-vl_707 (the same): 298 and 289. vl_708 / vl_709 (gemma-4-26B-A4B FP8-dynamic, the bf16 base config): 300 and 291; vl_710 / vl_711 (the same): 302 and 293. A floor, so that entries are not lost. Merged (lead, session 10): 307 and 298. Helper mv29 (2026-12-05): vl_840 (gemma-4-31B-it on an RTX PRO 6000, the config printed by a public model report): 321 and 312. vl_841 (GLM-5.1-FP8 on 8x H200, the corpus's GLM-5.1 config, as vl_459): 322 and 313. vl_842 (the same at vLLM 0.20.1.dev1): 323 and 314. vl_843 (gemma-4-31b-it on Kaggle, vl_840's config): 324 and 315.
    (Qwen3.6-35B-A3B-NVFP4, the base config): 270 and 261; merged (lead, session 8): 280 and 271. vl_660 (Qwen2.5-1.5B-Instruct on a GB10, the set's config): 281 and 272. vl_661 (GLM-4-9B-Chat, an assembled glm-4-9b-chat-hf config): 282 and 273. vl_662 (Qwen3.6-27B-Text-NVFP4-MTP, the base config): 283 and 274. vl_663 (Qwen3.6-35B-A3B-NVFP4, the base config): 284 and 275. vl_664 (Qwen3.6-35B-A3B-NVFP4, the base config): 285 and 276. vl_665 (Qwen2.5-3B-Instruct, the corpus's Qwen2.5-3B config): 286 and 277. vl_666 (Qwen3-VL-30B-A3B from a local mount, the set's Instruct config): 287 and 278. vl_667 (Qwen2.5-1.5B-Instruct AWQ, the set's base config): 288 and 279; vl_668 (Qwen2.5-0.5B-Instruct, the corpus config): 289 and 280. vl_669 (Qwen3-VL-8B-Instruct, the catalog's Qwen3-8B text geometry): 290 and 281. Helper mv26 (2026-12-05): vl_730 (Qwen3.5-9B on an L40S, the corpus config): 291 and 282. vl_731 (gemma-4-26B-A4B-it-NVFP4, the base config): 292 and 283. vl_732 (Qwen2.5-7B-Instruct-AWQ, the set's config): 293 and 284. vl_733 (Qwen2.5-1.5B-Instruct, the set's config): 294 and 285. vl_734 (Qwen3.5-2B AutoRound W4A16, the base config): 295 and 286. vl_735 (Qwen3.8-27B-FP8, the base config): 296 and 287. vl_736 (a merged Qwen3.6-27B, the corpus config): 297 and 288. vl_737 (Qwen3-8B, the set's config): 298 and 289. vl_738 (gemma-4-26B-A4B-it-NVFP4, the base config): 299 and 290. vl_739 (MiniCPM5-1B, the set's assembled config): 300 and 291. vl_740 (Qwen3.5-4B, the corpus config): 301 and 292. vl_741 (gemma-4-26B-A4B-it-NVFP4 with an EAGLE-3 drafter, the base config): 302 and 293. vl_742 (Qwen3.5-4B, the corpus config): 303 and 294. A floor, so that entries are not lost. Merged (lead, session 10): 320 and 311. Helper mv28 (2026-12-05): vl_712 (gemma-4-26B-A4B-it-FP8-dynamic, the base config): 321 and 312. vl_743 (Qwen3.6-35B-A3B PrismaQuant mixed NVFP4 / MXFP8, the base config): 322 and 313. vl_810 (gemma-4-E2B-it QAT w4a16, an assembled config: the E2B architecture with the source's int4 group-32 description): 323 and 314. vl_812 (gemma-4-E2B-it QAT w4a16 on an L4, the same assembled config): 324 and 315. vl_813 (gemma-4-26B-A4B-it bf16 on an MI300X, the corpus config): 325 and 316. Merged (lead, session 10): 329 and 320. Helper crash9 (2026-12-05): the crash logs vl_780 (Qwen2.5-14B-Instruct AWQ, the set's AWQ config) and vl_783 (Qwen2.5-Math-1.5B, the set's Qwen2.5-1.5B config) print the vLLM anchor: 322 and 313; vl_788 and vl_789 (Qwen3-32B, the set's config): 324 and 315; vl_790 (the GLM-5.1 config for a GLM-5.2 REAP cut): 325 and 316. Merged (lead, session 10): 334 and 325. Helper mv30 (2026-12-05): vl_870 (nvidia/Llama-3.3-70B-Instruct-FP8, the catalog's Llama-3.1-70B-Instruct-FP8 config copied into the validation configs): 335 and 326. vl_871 (google/gemma-4-26B-A4B, the corpus's -it config): 336 and 327. Helper blind12 (2026-12-05): six anchored logs added blind, four with a config (vl_844 DeepSeek-V4-Flash, the corpus config; vl_853 Qwen3.5-9B AWQ, the base config; vl_854 Qwen3-8B, the catalog; sg_484 DeepSeek-V4-Flash-0731-w4a8, the Flash geometry assumed) and two without (vl_845 names no model; vl_852 LFM2.5-1.2B): 342 and 331. Helper cap12 (2026-12-05): vl_852 (LFM2.5-1.2B-Instruct) gets LFM2-1.2B's public config, the same architecture by the LFM2.5 card: 342 and 332. Helper mv33 (2026-12-05): vl_873-vl_884 (twelve public vLLM start-ups, each with a config; vl_874, vl_875, vl_879, vl_880 and vl_884 print the anchor): 347 and 337. Helper mv34 (2026-12-05): vl_885 (nvidia/Llama-3.1-8B-Instruct-FP4, the assembled NVFP4 config of vp_622): 348 and 338; vl_886 / vl_887 (Qwen3.5-9B, vp_623 / vp_624) quote no budget anchor and do not count. Helper mv35 (2026-12-05): vl_857-vl_865 (nine public vLLM start-ups of round mv35, each with the validation set's config; vl_857, vl_859, vl_860, vl_861, vl_862, vl_863 and vl_864 print the anchor): 355 and 345. Helper cfg13 (2026-12-05): sg_038 (no anchor) is mapped to the catalog's gemma-3-12b-it config; no whole public config.json of the checkpoints of sg_106, vl_342 and vl_048 was found (vl_038 / vl_041 name no NVFP4 repository), so they keep their base configs: 355 and 345. Helper mv36 (2026-12-05): vl_866 (vp_637, Llama-2-7b-hf, the set's config) prints vLLM 0.8.1's V0 memory-profile lines, not the anchor: 355 and 345. Helper sgb14 (2026-12-05): sg_487-sg_492 (six SGLang crash excerpts, four with a config) print no anchor: 355 and 345; sg_493 (gemma-4-26B-A4B-it on a GB10, the set's config): 356 and 346. Helper bl14a (2026-12-05): vl_901 (vp_653, uer/gpt2-chinese-cluecorpussmall, the set's assembled config) prints the anchor: 356 and 346; vl_900 (vp_652, a Phi-4-mini-instruct fine-tune, the set's assembled config) prints vLLM 0.7.3's V0 lines, not the anchor; vl_902 (vp_654, rho-1b-sft-GSM8K, the set's TinyLlama-geometry copy) prints vLLM 0.6.4's V0 lines, not the anchor. vl_903 (vp_655, Qwen2.5-7B-Instruct-AWQ, the set's base config with the source's --quantization awq) prints the anchor: 357 and 347; with sgb14's sg_493 (lead merge): 358 and 348. Helper rt16 (2026-12-05): vl_048 (a crash, no anchor) gets
    Qwen3-Coder-30B-A3B-Instruct-FP8's own config.json (a public copy, SOURCE.md), in place of the assembled bf16
    Qwen3-30B-A3B one: 358 and 348. Helper bl16 (2026-12-05): vl_904-vl_912 (vp_703-vp_711, each with the validation set's config) print the anchor, vl_913 (vp_702, vLLM 0.8.3) does not: 367 and 357. Helper bl16c (2026-12-05): vl_914 (vp_712, the set's Qwen2.5-1.5B-Instruct config) prints the anchor, vl_915 (vp_716) does not: 368 and 358. Helper bl17 (2026-12-05): vl_916-vl_918 (vp_721-vp_723, each with the validation set's config) print the anchor: 371 and 361. Helper bl17b (2026-12-05): vl_919 / vl_920 (vp_731 / vp_732, each with the validation set's assembled config) print the anchor: 373 and 363. Helper bl18b (2026-12-05): sg_494 (a quoted 'Not enough memory', the set's Qwen3-32B config) pins the anchor: 374 and 364; vl_950 (vp_761, the set's Qwen3-30B-A3B-Instruct-2507 config): 375 and 365. Helper bl18 (2026-12-05): of vl_921-vl_926 (vp_736-vp_741, each with the validation set's config) only vl_924 and vl_926 print the anchor: 375 and 365; vl_927 / vl_928 (vp_746 / vp_747, the set's Qwen3-14B-AWQ config) print it: 377 and 367. Merged (lead, session 18): 379 and 369. Helper bl19 (2026-12-05): vl_929 / vl_930 (vp_762 / vp_763, the set's configs) print the anchor, vl_931 (vp_764, the set's assembled Qwen3-0.6B-FP8) does not: 381 and 371; vl_932 (vp_769, the set's Qwen3-0.6B) prints it, vl_933-vl_935 (vp_770-vp_772, the set's Qwen2.5-7B configs) do not: 382 and 372. Helper bl19b (2026-12-06): vl_951-vl_954 (vp_773-vp_776, each with the validation set's config) print the anchor: 386 and 376. Helper bl20 (2026-12-06): vl_955 / vl_956 (vp_784 / vp_785, the set's assembled Qwen3-32B W4A4 NVFP4 / MXFP4 configs) print the anchor: 388 and 378. Helper gs22 (2026-12-06): sg_495 / sg_496 (gs_342 / gs_344, the set's Qwen3-8B config) print the anchor: 390 and 380. Helper gs22b (2026-12-06): sg_497 / sg_498 (gs_345 / gs_346, the set's Qwen2.5-7B-Instruct / Qwen2.5-72B-Instruct-AWQ configs) print the anchor: 392 and 382. Helper gs23 (2026-12-06): sg_531 (gs_347, the set's Qwen2.5-7B-Instruct config) prints the anchor: 405 and 393. Helper bl23 (2026-12-06): vl_1000-vl_1007 (vp_843, vp_849, vp_853-vp_856, vp_858, vp_848, each with the validation set's config; vl_1003's and vl_1006's assembled) print the anchor; merged (lead, session 23): 413 and 401. Helper ex23 (2026-12-06): vl_936-vl_943, sg_546, sg_547 print the anchor, vl_936-vl_942 with the corpus's Qwen3.6-27B / Qwen3.8-27B configs: 415 and 399; vl_958 (no model named): 416 and 399; merged (lead, session 23): 440 and 423. Helper bl24 (2026-12-06, session 24): vl_1030-vl_1044
    (SpecDecoding-Study's vLLM 0.24.0 starts, the validation set's Llama-3.1-8B-Instruct / assembled AWQ-INT4 configs,
    the EAGLE-3 head's config as a quoted --speculative-config) print the anchor: 455 and 438. Helper miss24 (2026-12-06): sg_529 takes BAAI/bge-m3's config and vl_943 the corpus's
    MiniMax-M2 architecture block (its recipe's checkpoint, cyankiwi/MiniMax-M2.7-AWQ-4bit); merged (lead, session 24): 455 and 440. Helper bl24b (2026-12-06): vl_1045-vl_1059, each with the validation set's config; merged (lead, session 24): 472 and 457.
    Helper bl27 (2026-12-06): vl_1060-vl_1067 (vp_923-vp_930), each with the validation set's config: 518 and 503.
    Helper bl28 (2026-12-06, session 28): vl_1100-vl_1112 print the anchor, each with a config (vl_1100-vl_1106 the
    validation set's for vp_931-vp_937; vl_1107-vl_1112 the set's MiniMax-M2.5 / Kimi-K2.5 architecture for AMD Quark MXFP4
    and ModelOpt NVFP4 checkpoints, fidelity partial): 534 and 519.
    Helper ex28 (2026-12-06): of the held-back round's 25 logs only vl_1154 (openPangu Ultra MoE, no config) prints
    the anchor: 538, the configs unchanged.
    Helper bl29 (2026-12-06, session 29): vl_1158-vl_1162 (vp_939-vp_943, the validation set's gpt-oss-120b config)
    and vl_1163 / vl_1164 (the set's Kimi-K2.5 / MiniMax-M2.5 architecture for NVFP4 checkpoints on a GB300 node,
    fidelity partial) print the anchor, each with a config: 547 and 531.

    Helper ex29 (2026-12-06, session 29): of the held-back round's 19 logs only vl_1205 (Qwen3.8-27B on two Arc Pro
    B70, the validation set's config) prints the anchor: 549 and 533 with gs29b's sg_655 and bl29's 7."""
    anchored = [e for e in MAP if _prints_capacity_anchor(e)]
    assert len(anchored) == 754  # + ex38: sg_1035 (the thread's Qwen3-14B); + ex38b: vl_1511 (the catalog's Qwen3-VL-235B-A22B), sg_1049 (Qwen2.5-0.5B's layout), sg_1050 (gpt-oss-20b; no KV line); + ex37: vl_1489 (no config), sg_1029 (the thread's Qwen2.5-0.5B-Instruct); + bl35: vl_1480; + bl34: vl_1448-vl_1465 (vl_1446 / vl_1447, vLLM 0.8.0 / 0.9.0, print no available-memory anchor); + gs34: sg_1021, sg_1022; + bl33: vl_1411-vl_1429 (vl_1410 is V0: no anchor); + gs32c: sg_970-sg_973; + gs32b: sg_981, sg_982; + gs32a: sg_961, sg_962; + gs31d: sg_931-sg_949; + gs31b: sg_871-sg_890; + gs31c: sg_891-sg_896; + gs31a: sg_851-sg_860; + gs30f: sg_831-sg_834; + bl30b: vl_1320-vl_1330; + gs30e: sg_781-sg_785; + gs30: sg_721-sg_740; + bl30: vl_1250-vl_1270; + gs30b: sg_741-sg_743; + gs30c: sg_761-sg_764; + gs29c: sg_720; + bl29b: vl_1230-vl_1249; + gs29: sg_635-sg_641; + ex29: vl_1205; + gs29b: sg_655; + bl29: vl_1158-vl_1164; + gs28c: sg_633, sg_634; + ex28: vl_1154 (no config); + bl28: vl_1100-vl_1112; + gs28: sg_630-sg_632; + bl27: vl_1060-vl_1067; + gs27b: sg_568; + gs27: sg_606, sg_607; + gs26: sg_594-sg_605 but the fragment sg_596; + bl23b: vl_1015-vl_1029; + bl24: vl_1030-vl_1044; + gs24b: sg_563, sg_564; + bl24b: vl_1045-vl_1059
    # + helper gs24 (2026-12-06): sg_548-sg_559 (gs_353-gs_364), each with the validation set's config
    # + helper gs25c (2026-12-06, session 25): sg_560 (gs_365), the validation set's Qwen3-Next-80B-A3B-Instruct config
    # + helper gs25b (2026-12-06, session 25): sg_580-sg_593 (gs_395-gs_408), each with the validation set's config
    # + helper gs26 (2026-12-06, session 26): sg_594-sg_605 (gs_409-gs_420), each with the validation set's config
    # + helper gs27b (2026-12-06, session 27): sg_568 (gs_380), the validation set's Qwen3-30B-A3B-FP8 config
    assert sum(1 for e in anchored if e["config"]) >= 711  # + ex38 sg_1035; + ex38b vl_1511, sg_1049, sg_1050; + ex37 sg_1029; + bl35 vl_1480; + bl34 vl_1448-vl_1465; + gs34 sg_1021, sg_1022; + gs32b sg_981, sg_982; + gs32a sg_961, sg_962; + gs31d sg_931-sg_949; + gs31b sg_871-sg_890; + gs31c sg_891-sg_896; + gs31a sg_851-sg_860; + gs30f sg_831-sg_834; + bl30b vl_1320-vl_1330; + gs30e sg_781-sg_785; + gs30 sg_721-sg_740; + bl30 vl_1250-vl_1270; + gs30b sg_741-sg_743; + gs30c sg_761-sg_764; + gs29c sg_720; + bl29b vl_1230-vl_1249; + gs29 sg_635-sg_641; + ex29's vl_1205; + gs29b sg_655; + bl29's 7; + gs28c's sg_633 / sg_634; + bl28's 13; + gs28's sg_630-sg_632; + bl27's 8, gs27's sg_606 / sg_607


# --- plan flags quoted from the source threads (issue 12: "Plan flags given on the command line fill in what the
# log lacks"): scripts/explain_capacity_check.py passes them to explain_log through tpkit explain's own parser.

WITH_FLAGS = [e for e in MAP if "flags" in e]
FLAG_KEYS = ("flags", "flags_evidence", "flags_from", "flags_defaults")


def _explain_dests() -> set[str]:
    """The argparse dests of ``tpkit explain`` that are plan flags (the log, --rank, --model and --json are not)."""
    import argparse

    from tpkit.cli.explain import register

    parser = argparse.ArgumentParser(prog="tpkit")
    register(parser.add_subparsers(dest="command"))
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["explain"]
    return {a.dest for a in sub._actions} - {"help", "log", "rank", "model", "json"}


def _value_quoted(value, quote: str) -> bool:
    """The flag's value as the quote writes it: a number (``0.9`` also as ``0.90``; ``4`` not inside ``16``;
    ``32768`` also as ``32,768`` or ``32_768``),
    ``True`` as the flag itself (``--enable-dp-attention``), a GPU name by its model number (``L40S``, ``3090``)."""
    if value is True:
        return True  # checked by the caller against the flag's spelling
    if isinstance(value, int) and value >= 1000 and any(
            re.search(rf"(?<![\d.{sep}]){re.escape(f'{value:{sep}}')}(?![\d{sep}])", quote) for sep in ",_"):
        return True  # written with thousands separators ("32,768", Python's "53_248")
    if isinstance(value, (int, float)):
        return re.search(rf"(?<![\d.]){re.escape(str(value))}0*(?![\d.]*\d)", quote) is not None
    runs = [r for r in re.findall(r"[A-Za-z0-9.]+", str(value)) if re.search(r"\d", r)]
    return bool(runs) and all(r.lower() in quote.lower() for r in runs)


def test_flag_entries_exist():
    """Issue 12's flag pass: the entries whose source states a flag (vl_023, validation_case_020 … sg_063, and
    sg_014 / sg_015's tp 1 from their commands, helper lfm; vl_074's from the compose file its issue's slug names,
    helper cfg2); a floor. Helper cap10 (2026-12-05): vl_736 takes tp 1 and max_model_len 53,248 from its module,
    sg_290 / sg_291 tp 1 as sg_403 (one GB10); vl_736 is the one new entry with flags. Helper cap12 (2026-12-05):
    vl_854 adds tp 1 (its notes size the one RTX 4090's KV per token with all 8 KV heads). Helper mv33 (2026-12-05):
    vl_874 / vl_875 add engine_version 0.20.0 (their notes' environment check prints 'vllm 0.20.0'). Helper rd12
    (2026-12-05): the reader takes a bare 'vllm 0.20.0' / `vllm --version` print, so vl_874 / vl_875 lose their flags
    and vl_082 its engine_version (the log gives the same value). Helper mv35 (2026-12-05): vl_857, vl_860-vl_865 take
    the GPU their sources name (vl_862 also the notes' listed tp / release / settings, vl_864 the script's release,
    vl_865 its recipe's --language-model-only), each quoted before the blind score."""
    assert len(WITH_FLAGS) >= 13
    assert all(k not in e for e in MAP if "flags" not in e for k in FLAG_KEYS[1:])


@pytest.mark.parametrize("entry", WITH_FLAGS, ids=[e["id"] for e in WITH_FLAGS])
def test_flags_are_known_and_quoted(entry):
    flags, evidence = entry["flags"], entry["flags_evidence"]
    known = _explain_dests()
    assert flags and set(flags) <= known, f"unknown flag(s) {set(flags) - known}; tpkit explain takes {sorted(known)}"
    assert isinstance(evidence, dict) and set(evidence) == set(flags), "one verbatim quote per flag"
    where = entry["flags_from"]
    assert "http" in where or "index file id" in where, "flags_from names a URL or a search-index file id"
    defaults = entry.get("flags_defaults", {})
    assert set(defaults) <= set(flags) and all(isinstance(v, str) and v for v in defaults.values())
    for flag, value in flags.items():
        quote = evidence[flag]
        assert isinstance(quote, str) and len(quote) >= 10, f"{flag}: the evidence is a verbatim quote"
        if value is True:
            assert "--" + flag.replace("_", "-") in quote or flag in quote
        elif flag not in defaults:
            assert _value_quoted(value, quote), f"{flag}={value!r} is not written in its quote {quote!r}"


@pytest.mark.parametrize("entry", WITH_FLAGS, ids=[e["id"] for e in WITH_FLAGS])
def test_flags_parse_as_the_cli_does_and_do_not_contradict_the_log(entry):
    """The flags go through ``tpkit explain``'s parser (types, choices) and none of them contradicts what the log
    prints (``explain.context`` keeps the log's value and reports a contradiction)."""
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    from explain_capacity_check import cli_flags, model_flag

    from tpkit.explain import explain_log

    flags = cli_flags(entry["flags"])
    assert {k: v for k, v in flags.items()} == {k: (float(v) if isinstance(v, float) else v)
                                               for k, v in entry["flags"].items()}
    model = model_flag(entry)
    e = explain_log((DATA / entry["file"]).read_bytes(), flags={**flags, **({"model": model} if model else {})})
    assert [c.text() for c in e.context.contradictions] == []
