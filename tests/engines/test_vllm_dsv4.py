"""vLLM's DeepSeek-V4 KV cache (``tpkit.engines.vllm.dsv4``; vLLM 0.20.0 – 0.25.1 wheels), checked against the
hand arithmetic of the module doc and against vl_064 (tests/logs/data/vllm/vl_064.log: DeepSeek-V4-Flash, tp 2,
fp8 KV "fp8_ds_mla", max_model_len 4096; it prints "Available KV cache memory: 29.07 GiB",
"GPU KV cache size: 82,301 tokens", "Maximum concurrency for 4,096 tokens per request: 20.09x"; its release is not
printed).  The config is the assembled one (tests/logs/data/configs/deepseek-ai__DeepSeek-V4-Flash, SOURCE.md)."""

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm.dsv4 import approximate_gcd, build_groups, layer_pages, plan_dsv4
from tpkit.errors import PlanInputError

CONFIG = Path(__file__).resolve().parents[1] / "logs" / "data" / "configs" / "deepseek-ai__DeepSeek-V4-Flash" \
    / "config.json"
GIB = 2 ** 30


def _cfg():
    return json.loads(CONFIG.read_text())


def _plan(version, available=int(29.07 * GIB), length=4096, batched=16384, **kw):
    return plan_dsv4(_cfg(), available, version=version, max_model_len=length, max_num_batched_tokens=batched, **kw)


def test_pages_are_the_584_byte_token_and_fp32_states_rounded_to_576():
    p = layer_pages(_cfg())
    # 64 × 584 = 37,376 -> 37,440; 2 × 584 = 1,168 -> 1,728; 64 × 132 = 8,448 -> 8,640; 4 × 2048 × 4 = 32,768 -> 32,832
    assert {k: v[0] for k, v in p.items()} == {"swa": 37440, "c4a": 37440, "c128a": 1728, "c4i": 8640,
                                               "c4a_state": 32832, "c128a_state": 32832, "c4i_state": 8640}
    assert {k: v[3] for k, v in p.items()} == {"swa": 43, "c4a": 21, "c128a": 20, "c4i": 21, "c4a_state": 21,
                                               "c128a_state": 20, "c4i_state": 21}


def test_five_groups_with_22_tuples():
    assert approximate_gcd([21, 43, 21, 20], 21) == 22  # padding 5 at 22, 21 at 21
    groups, buckets = build_groups(_cfg())
    assert [len(g.pages) for g in groups] == [62, 22, 21, 42, 20]
    assert [g.page_sum() for g in groups] == [1002240, 823680, 786240, 967680, 748800]
    assert buckets[3] == {37440: 21, 8640: 21}  # the c4 states padded to the nearest full-group page


def test_hand_computed_blocks_per_request():
    # full 16 × 1,002,240 + SWA 65 × (823,680 + 786,240) + c4 states 1025 × 967,680 + c128 states 513 × 748,800
    need = 16 * 1002240 + 65 * (823680 + 786240) + 1025 * 967680 + 513 * 748800
    assert need == 1496687040
    assert _plan("0.25.1").blocks_per_request == -(-need // 1002240) == 1494


@pytest.mark.parametrize("version,per_block", [("0.22.1", 47808 * 22), ("0.23.0", 37440 * 22 + 8640 * 21 + 1728 * 20)])
def test_bytes_per_block_either_side_of_0_23(version, per_block):
    assert _plan(version).bytes_per_block == per_block


def test_tokens_rule_either_side_of_0_20_1():
    old, new = _plan("0.20.0"), _plan("0.20.1")
    assert old.num_blocks == new.num_blocks == int(29.07 * GIB) // (47808 * 22)
    assert old.tokens == old.num_blocks // 5 * 4
    assert new.tokens == int(new.num_blocks / 1494 * 4096)


def test_vl_064_printed_tokens_lie_in_the_0_23_range_rebuilt_over_the_print_rounding():
    lo, hi = _plan("0.25.1", available=int(29.065 * GIB)), _plan("0.25.1", available=int(29.075 * GIB))
    assert lo.tokens <= 82301 <= hi.tokens
    assert round(lo.max_concurrency, 2) <= 20.09 <= round(hi.max_concurrency, 2)
    old = _plan("0.22.1", available=int(29.075 * GIB))
    assert old.tokens < 82301  # the 0.20.1 – 0.22.1 layout cannot print it: the release is 0.23 or later


def test_short_batches_shrink_the_sliding_need():
    assert _plan("0.25.1", batched=256).blocks_per_request < _plan("0.25.1").blocks_per_request


@pytest.mark.parametrize("version", ["0.19.1", "0.26.0", "0.33.0"])
def test_unread_releases_are_refused_with_the_supported_range(version):
    with pytest.raises(PlanInputError, match=r"0\.20\.0 – 0\.25\.1"):
        _plan(version)


@pytest.mark.parametrize("version", ["0.20.0", "0.25.1"])
def test_range_ends_are_accepted(version):
    assert _plan(version).fits


def test_other_kv_dtypes_and_bad_configs_are_refused():
    with pytest.raises(PlanInputError, match="fp8"):
        _plan("0.25.1", kv_cache_dtype="auto")
    cfg = _cfg()
    cfg["compress_ratios"] = cfg["compress_ratios"][:10]
    with pytest.raises(PlanInputError, match="compress_ratios"):
        plan_dsv4(cfg, GIB, version="0.25.1", max_model_len=4096, max_num_batched_tokens=8192)
    cfg = _cfg()
    cfg["head_dim"] = 256
    with pytest.raises(PlanInputError, match="584"):
        plan_dsv4(cfg, GIB, version="0.25.1", max_model_len=4096, max_num_batched_tokens=8192)


def test_fit_check_reproduces_a_public_crash():
    """vllm-project/vllm#44376 (a comment of 2026-06-03): DeepSeek-V4-Flash, LLM class, tp 2 on two GH200,
    max_model_len 30,000, fp8 KV, block 256, no --max-num-batched-tokens (the LLM class's 16,384 on a ≥ 70 GiB
    device) prints '(6.66 GiB KV cache is needed, which is larger than the available KV cache memory (5.44 GiB).
    ... the estimated maximum model length is 13528'.  By hand: pages per request 118 (full) + 2 × 259 (SWA)
    + 4,099 (c4 states) + 2,065 (c128 states) = 6,800, × 22 tuples × 47,808 B = 7,152,076,800 B."""
    from tpkit.engines.vllm.dsv4 import estimate_max_model_len, needed_bytes

    groups, buckets = build_groups(_cfg())
    need = needed_bytes(groups, buckets, 30000, 16384)
    assert need == 6800 * 22 * 47808 and f"{need / GIB:.2f}" == "6.66"
    lo, hi = needed_bytes(groups, buckets, 13528, 16384), needed_bytes(groups, buckets, 13529, 16384) - 1
    assert f"{lo / GIB:.2f}" == f"{hi / GIB:.2f}" == "5.44"  # both ends print as the log's available memory
    assert {estimate_max_model_len(groups, buckets, a, 30000, 16384) for a in (lo, hi)} == {13528}
    cap = plan_dsv4(_cfg(), lo, version="0.22.1", max_model_len=30000, max_num_batched_tokens=16384)
    assert not cap.fits and cap.estimated_max_model_len == 13528 and cap.needed_bytes == need


def _plan_json(capsys, *extra):
    import json as _json

    from tpkit.cli import main

    argv = ["plan", str(CONFIG.parent), "--engine", "vllm", "--gpu", "H200", "--tp", "2", "--max-model-len", "4096",
            "--gpu-memory-utilization", "0.78", "--kv-cache-memory-bytes", f"{int(29.07 * GIB)}B", "--json", *extra]
    rc = main(argv)
    out = capsys.readouterr()
    return rc, (_json.loads(out.out) if out.out.strip().startswith("{") else None), out.err


@pytest.mark.parametrize("version,tokens,blocks", [("0.22.1", 81363, 29677), ("0.23.0", 82309, 30022)])
def test_plan_sizes_the_pool_with_the_dsv4_groups(capsys, version, tokens, blocks):
    # the weights of deepseek_v4 are still planned as a standard decoder (DOES NOT FIT, exit 3); the KV numbers
    # are the groups' (with the budget given: --kv-cache-memory-bytes 29.07 GiB, vl_064's printed available)
    rc, plan, _ = _plan_json(capsys, "--kv-cache-dtype", "fp8", "--engine-version", version)
    assert rc in (0, 3)
    assert (plan["kv_tokens"], plan["kv_blocks"], plan["block_size"]) == (tokens, blocks, 256)
    assert round(plan["max_concurrency"], 2) == round(blocks / 1494, 2)


@pytest.mark.parametrize("extra,words", [
    (("--kv-cache-dtype", "fp8"), "0.20.0 – 0.25.1"),  # the default release (0.33) is not read
    (("--kv-cache-dtype", "fp8", "--engine-version", "0.26.0"), "0.20.0 – 0.25.1"),
    (("--engine-version", "0.23.0"), "--kv-cache-dtype fp8"),
    (("--kv-cache-dtype", "fp8", "--engine-version", "0.23.0", "--speculative-config",
      '{"method": "ngram", "num_speculative_tokens": 2}'), "speculative method 'ngram'"),  # MTP is (fix11)
])
def test_plan_refuses_what_is_not_modelled(capsys, extra, words):
    rc, _, err = _plan_json(capsys, *extra)
    assert rc == 2 and words in err


def test_release_candidates_and_dev_builds_read_as_their_release():
    """A pre-release names the release it leads to (vLLM's own reader): 0.20.0rc1 is 0.20.0 (the printed-token rule of
    0.20.0, not 0.20.1's), and 0.25.1rc1 is 0.25.1, inside the modelled range (it was read as 0.25.11 and refused)."""
    from tpkit.engines.vllm.dsv4 import check_release, parse_release
    assert parse_release("0.20.0rc1") == (0, 20, 0)
    assert parse_release("0.23.1rc1.dev5+gabc") == (0, 23, 1)
    assert parse_release("v0.22.1") == (0, 22, 1)
    assert check_release("0.25.1rc1") == (0, 25, 1)
    with pytest.raises(PlanInputError):
        check_release("0.26.0rc1")


# MTP speculative decoding (helper fix11, 2026-12-05; vp_593: vLLM 0.25.0, DeepSeek-V4-Flash at tp 2 on two RTX PRO
# 6000 with --speculative-config {"method": "mtp", "num_speculative_tokens": 2}: 'Model loading took 75.64 GiB' with
# the drafter, 'Available KV cache memory: 10.29 GiB', 'GPU KV cache size: 1,993,100 tokens', 1.90x at 1,048,576)

def test_an_mtp_layer_adds_one_swa_layer_and_nothing_else():
    base, mtp = layer_pages(_cfg()), layer_pages(_cfg(), mtp_layers=1)
    assert mtp["swa"][3] == base["swa"][3] + 1 == 44
    assert {k: v for k, v in mtp.items() if k != "swa"} == {k: v for k, v in base.items() if k != "swa"}
    with pytest.raises(PlanInputError, match="mtp_layers"):
        _plan("0.25.0", mtp_layers=-1)


def test_vp_593_printed_pool_is_rebuilt_with_the_mtp_layer():
    caps = [plan_dsv4(_cfg(), int(gib * GIB), version="0.25.0", max_model_len=1048576, max_num_batched_tokens=4096,
                      mtp_layers=1) for gib in (10.285, 10.295)]
    assert caps[0].tokens <= 1_993_100 <= caps[1].tokens
    assert {f"{c.max_concurrency:.2f}" for c in caps} <= {"1.90", "1.89", "1.91"}


def _vp593(spec):
    from tpkit.engines.registry import get_engine
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.models.config import from_config_dict
    from tpkit.parallel import ParallelSpec

    path = Path(__file__).resolve().parents[1] / "validation" / "configs" / "deepseek-ai--DeepSeek-V4-Flash.json"
    model = from_config_dict(json.loads(path.read_text()), name="deepseek-ai/DeepSeek-V4-Flash", source=str(path))
    engine = get_engine("vllm")
    kw = {"speculative_config": spec} if spec else {}
    options = engine.options(engine_version="0.25.0", gpu_memory_utilization=0.95, max_model_len=1048576,
                             max_num_batched_tokens=4096, max_num_seqs=64, kv_cache_dtype="fp8",
                             disable_custom_all_reduce=True, quantization="deepseek_v4_fp8", **kw)
    return engine.plan(model, lookup_gpu("RTX-PRO-6000"), ParallelSpec(tp=2), options)


def test_the_mtp_drafter_loads_one_decoder_layer_and_joins_the_pool():
    plain, mtp = _vp593(None), _vp593('{"method": "mtp", "num_speculative_tokens": 2}')
    items = {l.item: l.bytes.bytes for l in mtp.ledger.items}
    drafter = items["drafter weights (mtp)"]
    assert 1.5 * GIB < drafter < 1.9 * GIB  # one V4-Flash layer per rank (FP4 experts), + e_proj / h_proj / hc_head
    loaded = items["model weights"] + items["rotary cos/sin cache"] + drafter
    assert abs(loaded - 75.64 * GIB) / (75.64 * GIB) < 0.01  # 'Model loading took 75.64 GiB' (the drafter inside)
    assert "drafter KV cache (mtp)" not in items  # its SWA pages are inside the DeepSeek-V4 pool line
    assert mtp.kv_tokens < plain.kv_tokens


def test_other_speculative_methods_stay_refused_for_deepseek_v4():
    with pytest.raises(PlanInputError, match="speculative method 'ngram' is not modelled"):
        _vp593('{"method": "ngram", "num_speculative_tokens": 2}')


def _vp593_with(version, **kw):
    from tpkit.engines.registry import get_engine
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.models.config import from_config_dict
    from tpkit.parallel import ParallelSpec

    path = Path(__file__).resolve().parents[1] / "validation" / "configs" / "deepseek-ai--DeepSeek-V4-Flash.json"
    model = from_config_dict(json.loads(path.read_text()), name="deepseek-ai/DeepSeek-V4-Flash", source=str(path))
    engine = get_engine("vllm")
    opts = dict(gpu_memory_utilization=0.95, max_model_len=1048576, max_num_batched_tokens=4096, max_num_seqs=64,
                kv_cache_dtype="fp8", disable_custom_all_reduce=True, quantization="deepseek_v4_fp8") | kw
    return engine.plan(model, lookup_gpu("RTX-PRO-6000"), ParallelSpec(tp=2),
                       engine.options(engine_version=version, **opts))


IDX = "profile phase: sparse indexer profile reservation"


def test_indexer_profile_reservation_is_the_gather_workspace_and_the_512_mib_dummy():
    # helper v11b: sparse_attn_indexer's profile branch (0.20.2-0.29.0): max_model_len x 40 / 4 entries x (128 + 4) B
    # + 1 MiB radix top-k, plus the 512 MiB dummy logits block, on top of the attention phase's live tensors.
    # Helper v417 (2026-12-05): pinned at 0.22.0; from 0.23.0 the phase is inside DeepSeek-V4's own attention phase
    # (engines.vllm.dsv4_profile; tests/engines/test_vllm_dsv4_profile.py)
    p = _vp593_with("0.22.0")
    items = {l.item: l.bytes.bytes for l in p.ledger.items}
    entries = 1048576 * 40 // 4
    reservation = entries * 128 + entries * 4 + 2**20 + 512 * 2**20
    assert items[IDX] == items["profile phase: attention"] + reservation
    assert items["activation peak (profile run, estimate)"] == items[IDX]  # vp_593's peak: 2.14 GiB (printed ~2.2)
    short = {l.item: l.bytes.bytes for l in _vp593_with("0.22.0", max_model_len=4096).ledger.items}
    assert short[IDX] - short["profile phase: attention"] == 4096 * 10 * 132 + 2**20 + 512 * 2**20


@pytest.mark.parametrize("version, compiles", [("0.22.0", True), ("0.23.0", False), ("0.25.0", False)])
def test_breakable_cuda_graphs_turn_torch_compile_off_from_0_23(version, compiles):
    # config/vllm.py: DeepseekV4ForCausalLM sets VLLM_USE_BREAKABLE_CUDAGRAPH=1 (0.23.0+) -> compilation mode NONE
    p = _vp593_with(version)
    phases = {l.item for l in p.ledger.items}
    assert ("profile phase: cold compile scratch ≈ vocab × hidden" in phases) is compiles
    warm = _vp593_with(version, compile_cache="warm")
    if not compiles:
        assert "breakable CUDA graphs" in " ".join(warm.warnings)
