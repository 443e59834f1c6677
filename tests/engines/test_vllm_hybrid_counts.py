"""vLLM hybrid counts (helper vhy, issues 11/12): the release a log's ``[file.py:N]`` prefixes bound, the printed
'GPU KV cache size' of a KDA + MLA hybrid on each side of the 0.21 boundary, and drafter pages a release cannot
put in one pool (NotImplementedError before 0.12; a page that does not divide the largest, 0.12–0.21)."""

import pytest

from tpkit.engines.vllm.capacity import plan_capacity
from tpkit.engines.vllm.pages import DraftKv, build_layout
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.errors import PlanInputError
from tpkit.logs import engine as eng
from tpkit.logs.reader import parse_log
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import config_model, llama3_8b

KIMI = "cyankiwi--Kimi-Linear-48B-A3B-Instruct-AWQ-4bit"


@pytest.mark.parametrize("line, versions", [
    ("[kv_cache_utils.py:982] Add 1 padding layers, may waste at most 5.00% KV cache memory", "0.11.0"),
    ("[kv_cache_utils.py:979] Add 1 padding layers, may waste at most 5.00% KV cache memory", "0.11.1–0.11.2"),
    ("[kv_cache_utils.py:1028] Add 1 padding layers, may waste at most 5.00% KV cache memory", "0.12.0"),
    ("[kv_cache_utils.py:1087] GPU KV cache size: 75,840 tokens", "0.11.0"),
    ("[kv_cache_utils.py:1229] GPU KV cache size: 75,840 tokens", "0.11.1–0.11.2"),
    ("[gpu_worker.py:298] Available KV cache memory: 2.30 GiB", "0.10.2–0.11.0"),
    ("[gpu_worker.py:359] Available KV cache memory: 2.30 GiB", "0.11.1–0.12.0"),
])
def test_logger_line_numbers_bound_the_release(line, versions):
    _, evidence = eng.source_line_format(line)
    assert evidence.claim.split(": ", 1)[1].startswith(versions + " (")
    assert eng.release_range(versions) is not None


@pytest.mark.parametrize("line", [
    "[gpu_worker.py:349] Available KV cache memory: 2.30 GiB",  # no read wheel has it (a dev build)
    "[kv_cache_utils.py:979] GPU KV cache size: 75,840 tokens",  # the padding warning's line, another message
    "Add 1 padding layers, may waste at most 5.00% KV cache memory",  # no prefix
])
def test_unknown_lines_say_nothing(line):
    assert eng.source_line_format(line) is None


KDA_LOG = ("INFO 11-05 10:00:00 [gpu_worker.py:349] Available KV cache memory: 2.30 GiB\n"
           "WARNING 11-05 10:00:00 [kv_cache_utils.py:979] Add 1 padding layers, may waste at most 5.00% KV cache "
           "memory\n")


def test_the_padding_warning_of_a_log_sets_the_rules():
    parsed = parse_log(KDA_LOG)
    assert parsed.engine.engine == "vllm" and not parsed.engine.version_printed
    assert parsed.engine.version.startswith("0.11.1–0.11.2 (")
    rules = resolve_rules("0.11.2")  # the newest end of the range (explain's Context.rules_version)
    assert rules.tokens_rule == "groups" and not rules.capacity_per_worker


def _kimi_capacity(version: str, available_gib: float = 2.30, max_model_len: int = 120_000):
    rules = resolve_rules(version)
    layout = build_layout(config_model(KIMI), ParallelSpec(tp=2), block_size=16, era=rules.era, dtype_bytes=2,
                          dtype_name="bfloat16", rules=rules)
    return layout, plan_capacity(layout, Bytes(int(available_gib * 2**30)), max_model_len=max_model_len,
                                 max_num_batched_tokens=8192, pp=1, rules=rules)


def test_kda_mla_hybrid_prints_blocks_per_group_before_0_21():
    """vLLM 0.11.1 ``_report_kv_cache_config``: num_blocks // len(kv_cache_groups) × min block size.  Kimi-Linear
    at tp 2: 7 MLA + 20 KDA layers → 1 + 3 groups of 7, 960-token blocks (64-aligned MLA page ≥ the KDA state),
    7 × 960 × 1,152 B per block; 2.30 GiB → 319 blocks → 319 // 4 × 960 = 75,840 tokens."""
    layout, cap = _kimi_capacity("0.11.1")
    assert len(layout.groups) == 4 and layout.block_size == 960
    assert cap.num_blocks == 319 and cap.tokens == 319 // 4 * 960 == 75_840


def test_kda_mla_hybrid_prints_concurrency_times_length_from_0_20_1():
    """0.20.1 and 0.20.2 backport 0.21.0's printed figure (v1/core/kv_cache_utils.py _report_kv_cache_config, read
    in the 0.20.0 / 0.20.1 / 0.20.2 / 0.21.0 wheels by helper mv1); 0.20.0 prints blocks // groups × block."""
    for version in ("0.20.0", "0.20.1", "0.20.2", "0.21.0"):
        layout, cap = _kimi_capacity(version)
        if version == "0.20.0":
            assert cap.tokens == cap.num_blocks // len(layout.groups) * layout.block_size
        else:
            assert cap.tokens == int(cap.max_concurrency * 120_000)


def _draft(per_token: int, kind: str = "full") -> DraftKv:
    return DraftKv(kind=kind, num_layers=1, per_token_bytes=per_token, label="test drafter")


def _layout_with(model, version: str, draft: DraftKv):
    rules = resolve_rules(version)
    return build_layout(model, ParallelSpec(), block_size=16, era=rules.era, dtype_bytes=2, dtype_name="bfloat16",
                        rules=rules, draft=draft)


def test_a_drafter_page_unlike_the_targets_is_refused_before_0_11_for_one_type_targets():
    """0.10.2 ``get_kv_cache_config``: neither one spec nor one page size → NotImplementedError; 0.11.0 puts every
    full-attention layer in one uniform-type group."""
    target = llama3_8b()  # 8 KV heads × 128 → 4,096 B per token
    with pytest.raises(PlanInputError, match=r"vLLM 0\.10\.2 cannot put the drafter's KV layers.*"
                                             r"NotImplementedError.*--engine-version 0\.11 or later"):
        _layout_with(target, "0.10.2", _draft(2_048))
    layout = _layout_with(target, "0.11.0", _draft(2_048))
    assert layout.draft_layers == 1 and not layout.draft_in_groups
    same = _layout_with(target, "0.10.2", _draft(4_096))  # the target's spec: it joins the target's group
    assert same.draft_merged


def test_hybrid_target_drafter_pages_before_0_12_then_grown_then_padded():
    target = _sliding_target()
    tok = 2 * target.num_kv_heads * target.head_dim * 2
    with pytest.raises(PlanInputError, match=r"vLLM 0\.11\.2 .*NotImplementedError.*0\.12 or later"):
        _layout_with(target, "0.11.2", _draft(tok // 2))
    grown = _layout_with(target, "0.12.0", _draft(tok // 2))
    draft_group = next(g for g in grown.groups if g.draft)
    assert draft_group.block_size == 32 and draft_group.page_bytes.bytes == tok * 16
    with pytest.raises(PlanInputError, match=r"vLLM 0\.21\.0 .*does not divide.*Cannot unify by adjusting "
                                             r"block_size.*0\.22 or later"):
        _layout_with(target, "0.21.0", _draft(tok * 2 // 3))
    padded = _layout_with(target, "0.22.0", _draft(tok * 2 // 3))
    assert next(g for g in padded.groups if g.draft).page_bytes.bytes == tok * 16


def _sliding_target():
    from dataclasses import replace

    model = llama3_8b()
    kinds = tuple("sliding" if i % 2 else "full" for i in range(model.num_layers))
    return replace(model, layer_kinds=kinds, sliding_window=4096)
