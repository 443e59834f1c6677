"""The Qwen3-VL vision tower's rope in SGLang's RoPE pre-expansion (``engines.sglang.rope.tower_rotary_modules``;
helper miss27, docs/accuracy.md §7.2 miss27).

Read in the wheels: from 0.5.7 ``Qwen3VLMoeVisionModel.__init__`` (``models/qwen3_vl.py``; 0.5.7, 0.5.8, 0.5.9, 0.5.10,
0.5.11–0.5.15, 0.5.17, 0.5.18, 0.5.20, 0.5.23 and sglang-kt 0.7.0) builds ``get_rope(head_size=head_dim,
rotary_dim=head_dim // 2, max_position=8192)``; 0.5.3–0.5.6 build none.  ``reserve_rope_cache_for_long_sequences``
walks ``model.children()`` and grows every module with a ``cos_sin_cache``; the wrapper registers ``visual`` before
the language model, so the tower's 8,192-row cache grows first, to the text context's reserve.
``--language-model-only`` (0.5.18+) sets ``visual = None``.

sg_401 (sglang-kt 0.7.0, the upstream 0.5.9 tree by its wheel: no multimodal reservation, the mamba ratio split
without the padding slot) needs 35–50 MiB taken after 'Load weight end': the tower's 36.04 MiB cache in a new
38 MiB segment (+ the text cache's 2 MiB growth) rebuilds it; without the tower it stays below the range.
"""

from dataclasses import replace
from pathlib import Path

import tpkit.engines.sglang.rope as rope_mod
from tpkit.engines.sglang.rope import rope_reserve, tower_rotary_modules
from tpkit.explain import explain_log
from tpkit.models import load_model
from tpkit.units import Bytes, MiB

from tests.scripts_testlib import load_script

ROOT = Path(__file__).resolve().parents[2]
QWEN35 = load_model(str(ROOT / "tests/validation/configs/Qwen--Qwen3.8-27B.json"))  # tower 1152 / 16 heads: head 72
QWEN3VL = load_model(str(ROOT / "tests/validation/configs/Qwen--Qwen3-VL-2B-Instruct.json"))  # 1024 / 16: head 64
TEXT = load_model("Qwen/Qwen3-8B")
CHECK = load_script("explain_capacity_check")


def test_the_tower_rope_from_0_5_7_only():
    assert tower_rotary_modules(QWEN35, "0.5.6") == ()
    (mod,) = tower_rotary_modules(QWEN35, "0.5.7")
    assert (mod.rows, mod.dim) == (8_192, 36)
    (mod,) = tower_rotary_modules(QWEN3VL, "0.5.23")
    assert (mod.rows, mod.dim) == (8_192, 32)
    assert tower_rotary_modules(TEXT, "0.5.23") == ()  # no vision tower
    # a tower of another family (not models/qwen3_vl.py) is not grown by this rule
    other = replace(QWEN35, extra={**QWEN35.extra, "wrapper_model_type": "qwen2_5_vl"})
    assert tower_rotary_modules(other, "0.5.23") == ()


def test_language_model_only_leaves_no_tower_from_0_5_18():
    assert tower_rotary_modules(QWEN35, "0.5.18", language_model_only=True) == ()
    assert len(tower_rotary_modules(QWEN35, "0.5.17", language_model_only=True)) == 1  # no such flag before 0.5.18


def test_the_walk_grows_the_tower_first_and_charges_its_new_segment():
    # text: 262,144 → 262,400 rows × 64 × 4 B (64 → 64.06 MiB: a 66 MiB segment, the old 64 MiB one comes back);
    # tower: 8,192 rows (1.13 MiB, a shared segment) → 262,400 × 36 × 4 B = 36.04 MiB: a new 38 MiB segment
    with_tower = rope_reserve(QWEN35, "0.5.9")
    assert with_tower.tensor == Bytes(262_400 * (36 + 64) * 4)
    assert with_tower.high == MiB(40)
    before = rope_reserve(QWEN35, "0.5.6")
    assert before.tensor == Bytes(262_400 * 64 * 4) and before.high == MiB(2)
    assert rope_reserve(QWEN35, "0.5.20", language_model_only=True).high == MiB(2)
    # a short context grows the tower a little (8,448 rows: a 1–10 MiB request, a 20 MiB segment) and not the text
    short = rope_reserve(QWEN3VL, "0.5.13", context_len=8_192)
    assert short.tensor == Bytes(8_448 * 32 * 4) and short.high == MiB(20)
    # AMD before 0.5.23: both caches in the model dtype (tower 18.02 MiB → a 20 MiB segment)
    amd = rope_reserve(QWEN35, "0.5.17", vendor="AMD")
    assert amd.tensor == Bytes(262_400 * (36 + 64) * 2) and amd.high == MiB(22)


def _sg_401(**extra):
    entry = CHECK.model_map()["sg_401"]
    flags = {"model": CHECK.model_flag(entry), **CHECK.source_flags(entry), **extra}
    return explain_log(CHECK.strip_capacity((ROOT / "tests/logs/data/sglang/sg_401.log").read_bytes()), flags=flags)


def test_sg_401_is_rebuilt_with_the_tower_and_not_without(monkeypatch):
    printed = 238_285
    lo, hi = _sg_401().kv_predicted_range  # --engine-version 0.5.9 (sglang-kt 0.7.0's tree), from models.json
    assert lo <= printed <= hi
    monkeypatch.setattr(rope_mod, "VISION_ROPE_RELEASE", "0.5.10")  # the same rebuild without the tower's rope
    lo, hi = _sg_401().kv_predicted_range
    assert printed < lo
