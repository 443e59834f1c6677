"""SGLang's RoPE pre-expansion after 'Load weight end' (``engines.sglang.rope``).

Boundary read in the wheels: ``ModelRunner.load_model`` calls ``reserve_rope_cache_for_long_sequences`` after it
prints 'Load weight end' from 0.5.6 (read 0.5.6–0.5.23); 0.5.5 has no call.
"""

from dataclasses import replace

from tpkit.engines.sglang.rope import rope_reserve, rotary_dim
from tpkit.explain import explain_log
from tpkit.models import load_model
from tpkit.units import Bytes, MiB

QWEN3 = load_model("Qwen/Qwen3-8B")  # max_position 40960, head_dim 128: a 20 MiB cache, its own segment
SMALL = replace(QWEN3, max_position_embeddings=32_768, head_dim=64)  # an 8 MiB cache: a shared 20 MiB segment


def test_boundary_0_5_6():
    assert rope_reserve(SMALL, "0.5.5") is None
    r = rope_reserve(SMALL, "0.5.6")
    assert r is not None and rope_reserve(SMALL, "0.5.23") is not None
    # ceil_128(32768 + 256) = 33024 → needs 33023 rows → ((33023 + 128) // 128) × 128 = 33024 rows, float32
    assert r.rows == 33_024 and r.tensor == Bytes(33_024 * 64 * 4)
    assert r.high == MiB(20)  # a request in [1, 10) MiB takes a 20 MiB segment


def test_large_cache_charges_only_the_rounded_growth():
    r = rope_reserve(QWEN3, "0.5.10")
    assert r.rows == 41_216 and r.tensor == Bytes(41_216 * 128 * 4)
    # new 20.125 MiB → 22 MiB segment; the old 20 MiB cache's own segment comes back at the sample
    assert r.high == MiB(2)


def test_short_context_keeps_the_cache_and_speculation_grows_it():
    assert rope_reserve(SMALL, "0.5.10", context_len=8_192) is None
    spec = rope_reserve(SMALL, "0.5.10", spec_steps=3, spec_draft_tokens=4)
    assert spec.rows == ((32_768 + 24 + 256 + 127) // 128 * 128 - 1 + 128) // 128 * 128


def test_amd_model_dtype_before_0_5_23():
    assert rope_reserve(SMALL, "0.5.20", vendor="AMD").tensor == Bytes(33_024 * 64 * 2)
    assert rope_reserve(SMALL, "0.5.23", vendor="AMD").tensor == Bytes(33_024 * 64 * 4)


def test_an_old_cache_whose_segment_rest_is_split_off_may_keep_its_segment():
    """torch's caching allocator splits a large block's rest off when it exceeds 1 MiB (``shouldSplit``), and a
    parameter allocated after the cache may hold it: the old cache's segment need not come back at the sample.
    GLM-5.1-like on AMD before 0.5.23: 202,752 rows × 64 × 2 B = 24.75 MiB in a 26 MiB segment (1.25 MiB rest):
    the high end is the new cache's whole 26 MiB segment, not the 0 of two equal rounded segments.  A CUDA float32
    cache of 202,752 rows × 64 × 4 B = 49.5 MiB leaves 0.5 MiB of its 50 MiB segment, not split: it comes back."""
    glm = replace(QWEN3, max_position_embeddings=202_752, head_dim=64)
    amd = rope_reserve(glm, "0.5.11", vendor="AMD")
    assert amd.tensor == Bytes(203_008 * 64 * 2) and amd.high == MiB(26)
    cuda = rope_reserve(glm, "0.5.11")
    assert cuda.tensor == Bytes(203_008 * 64 * 4) and cuda.high == MiB(0)
    # QWEN3's 20 MiB float32 cache fills its segment: only the rounded growth is charged, as before
    assert rope_reserve(QWEN3, "0.5.10").high == MiB(2)


def test_rotary_dim_mla_and_partial():
    assert rotary_dim(load_model("deepseek-ai/DeepSeek-V3")) == 64
    assert rotary_dim(replace(QWEN3, extra={**QWEN3.extra, "partial_rotary_factor": 0.25})) == 32


_LOG = """\
[2026-03-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2, mem_fraction_static=0.85, page_size=1)
[2026-03-01 10:00:03] Load weight begin. avail mem=78.48 GB
[2026-03-01 10:00:09] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=70.80 GB, mem usage=7.68 GB.
"""


def test_explain_widens_the_budget_down_from_0_5_6_only():
    flags = {"model": "Qwen/Qwen3-8B", "gpu": "H100-SXM-80GB"}
    old = explain_log(_LOG, flags={**flags, "engine_version": "0.5.5"})
    new = explain_log(_LOG, flags={**flags, "engine_version": "0.5.6"})
    assert not any(r.item.startswith("RoPE cache") for r in old.anchored.rows)
    assert any(r.item.startswith("RoPE cache") for r in new.anchored.rows)
    assert new.anchored.rest.high == old.anchored.rest.high
    assert old.anchored.rest.low - new.anchored.rest.low == MiB(2)
    assert new.anchored.free_after_weights == old.anchored.free_after_weights  # the printed line is unchanged


def test_a_log_dated_before_0_5_6_gets_no_charge():
    """RELEASE_DATES holds 0.5.6's wheel date (2025-12-03, ``unzip -l``): a log of the 0.2.15–0.5.8 line formats
    dated before it reads with 0.5.5's rules, without the pre-expansion; one dated after it with 0.5.8's."""
    from tpkit.engines.sglang.versions import newest_by_date

    assert newest_by_date("0.5.8", "2025-11-20")[0] == "0.5.5"
    assert newest_by_date("0.5.8", "2025-12-10")[0] == "0.5.8"
    flags = {"model": "Qwen/Qwen3-8B", "gpu": "H100-SXM-80GB"}
    before = explain_log(_LOG.replace("2026-03-01", "2025-11-20"), flags=flags)
    after = explain_log(_LOG.replace("2026-03-01", "2025-12-10"), flags=flags)
    assert not any(r.item.startswith("RoPE cache") for r in before.anchored.rows)
    assert any(r.item.startswith("RoPE cache") for r in after.anchored.rows)


def test_grok_builds_one_scaling_rope_per_layer():
    """sglang 0.5.6 / 0.5.9 / 0.5.23 ``models/grok.py``: a config with a top-level ``rope_type`` (xai-org/grok-2:
    "original", 8192 × 16) gives every ``Grok1Attention`` its own ``ScalingRotaryEmbedding`` of
    arange(original × scaling_factor) rows × head_dim, outside ``get_rope``'s ``_ROPE_DICT``: 64 caches, each grown
    by the pre-expansion.  On AMD before 0.5.23 in bf16: 131,072 × 128 × 2 B = 32 MiB (its own segment) → 131,328
    rows = 32.06 MiB, a 34 MiB segment each; the 64 old segments come back: 0 … 64 × 2 MiB.  Without the rope
    fields, or for another architecture with them, one shared get_rope cache as before."""
    from tpkit.engines.sglang.rope import rotary_modules

    grok = load_model("tests/validation/configs/xai-org--grok-2.json")
    mods = rotary_modules(grok, "0.5.6")
    assert len(mods) == 64 and {(m.rows, m.dim) for m in mods} == {(131_072, 128)}
    r = rope_reserve(grok, "0.5.6", vendor="AMD")
    assert r.rows == 131_328 and r.tensor == Bytes(64 * 131_328 * 128 * 2) and r.high == MiB(128)
    assert "64 new cos/sin caches" in r.source and "(64 × 128)" in r.source
    assert rope_reserve(grok, "0.5.5", vendor="AMD") is None
    bare = replace(grok, extra={k: v for k, v in grok.extra.items() if k != "rope_type"})
    assert len(rotary_modules(bare, "0.5.6")) == 1
    other = replace(QWEN3, extra={**QWEN3.extra, "rope_type": "original", "original_max_position_embeddings": 8192,
                                  "scaling_factor": 16.0})
    assert len(rotary_modules(other, "0.5.6")) == 1


def test_grok_2_on_rocm_0_5_6_rebuilds_its_printed_count():
    """sg_551 (AMD CI, SGLang 0.5.6 image, grok-2 fp8 on an MI355X, tp 8): with the capacity line removed, the
    rebuilt range holds the printed 5,600,170 tokens only once the 64 per-layer caches' growth (0 … 128 MiB) comes
    off the free memory the KV budget samples; with one shared cache (0 … 2 MiB) it lay 2,709 tokens below."""
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import explain_capacity_check as check

    cases = json.loads((check.DATA / "cases.json").read_text())
    cases = cases["cases"] if isinstance(cases, dict) else cases
    row = check.check(next(c for c in cases if c["id"] == "sg_551"), check.model_map())
    assert row["printed"] == 5_600_170 and row["outcome"] == "hit"
    assert row["range"][0] <= 5_600_170 <= row["range"][1] and row["range"][0] < 5_600_170 - 1_000
