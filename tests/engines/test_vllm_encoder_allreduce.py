"""The vision towers' row-parallel projections reduce out of place at tp > 1 (``engines/vllm/encoder_qwen2vl_tower.py``
``reduced_copy_bytes``, ``qwen3_vl_mlp_bytes``; helper pcie15).

Hand numbers from the vllm 0.27.1 wheel (``RowParallelLinear.forward``, ``GroupCoordinator.all_reduce`` →
``PyNcclCommunicator.all_reduce``'s ``torch.empty_like``, ``Qwen2_5_VisionAttention.forward``,
``Qwen3_VisionMLP.forward``).  The Qwen3.8-27B tower: d 1152, i 4304, 16 heads, 65,536 patches of the dummy image.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tpkit.engines.registry import get_engine
from tpkit.engines.vllm.encoder import encoder_profile
from tpkit.engines.vllm.encoder_qwen2vl_tower import attention_0_11, qwen3_vl_mlp_bytes, reduced_copy_bytes
from tpkit.models import from_config_dict

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "validation" / "configs"
N, D, I, A = 65536, 1152, 4304, 2
HELD = N * 1536 * A + N * D * A + N * 72 * A  # pixels (3·2·16·16), position embeddings, rotary cos/sin (hd 72)


def _tower(tp: int, release=(0, 27, 1)):
    model = from_config_dict(json.loads((CONFIGS / "Qwen--Qwen3.8-27B-FP8.json").read_text()), name="q",
                             source="test")
    return encoder_profile(model, release=release, engine="V1", tp=tp, max_num_batched_tokens=8192,
                           max_num_seqs=3, max_model_len=262144, act_bytes=A, v2_runner=False)[0]


def test_the_reduced_copy_exists_only_with_a_tp_group():
    assert reduced_copy_bytes(n=N, d=D, act_bytes=A, tp=1) == 0
    assert reduced_copy_bytes(n=N, d=D, act_bytes=A, tp=2) == N * D * A == 150_994_944  # 0.14 GiB
    assert reduced_copy_bytes(n=N, d=D, act_bytes=A, tp=4) == N * D * A  # full width whatever the tp


def test_qwen3_vl_attention_at_the_projection_on_both_sides_of_tp_1():
    # tp 1: input, norm, qkv 3d, q‖k copy 2d, rotated 2d, output d, projection d = 11d (the MLP 3d + 2i is below)
    assert _tower(1).peak.bytes == HELD + N * 11 * D * A
    # tp 2: input, norm, 8d/2 sharded, the partial sum d and the all-reduced output d = 8d (MLP fc2 5d + i/2 below)
    assert _tower(2).peak.bytes == HELD + N * 8 * D * A
    assert "all-reduced out of place" in _tower(2).formula and "all-reduced out of place" not in _tower(1).formula


def test_mlp_fc2_moment_beats_fc1_only_when_2d_exceeds_i_over_tp():
    # tp 1: 3d + 2i > 4d + i (i > d)
    assert qwen3_vl_mlp_bytes(n=N, d=D, i=I, act_bytes=A, tp=1) == N * (3 * D + 2 * I) * A
    # tp 2: 2d = 2,304 > i/2 = 2,152, so fc2's moment 4d + i/2 + d is the MLP's peak
    assert qwen3_vl_mlp_bytes(n=N, d=D, i=I, act_bytes=A, tp=2) == N * (5 * D + I // 2) * A
    # a wider MLP (i/tp > 2d): fc1 + activation stays the peak at tp 2
    assert qwen3_vl_mlp_bytes(n=N, d=D, i=6 * D, act_bytes=A, tp=2) == N * (3 * D + 6 * D) * A


def test_0_11_forms_take_the_copy_only_where_the_projection_moment_is_counted():
    shard = D // 8  # tp 8: the projection moment beats the fp32 rotation in the 0.11.1 form
    reduced = reduced_copy_bytes(n=N, d=D, act_bytes=A, tp=8)
    new, _ = attention_0_11((0, 11, 1), n=N, d=D, shard=shard, hd=72, a=A, reduced=reduced)
    assert new == N * (3 * D + 8 * shard) * A + N * D * A
    plain, _ = attention_0_11((0, 11, 1), n=N, d=D, shard=shard, hd=72, a=A)
    assert new - plain == N * D * A
    # 0.11.0's term is the rotation moment (q‖k concatenated): unchanged
    old = [attention_0_11((0, 11, 0), n=N, d=D, shard=shard, hd=72, a=A, reduced=r)[0] for r in (0, reduced)]
    assert old[0] == old[1]


def test_vp_672_plans_the_copy_on_each_rtx_3090():
    sys.path.insert(0, str(ROOT / "validation"))
    import harness

    case = next(c for c in harness.load_cases("vllm") if c["id"] == "vp_672")
    model, gpu, parallel, options = harness.inputs(case)
    plan = get_engine("vllm").plan(model, gpu, parallel, options)
    act = next(li for li in plan.ledger.items if li.item.startswith("activation peak"))
    assert act.bytes.bytes == HELD + N * 8 * D * A  # 1.46 GiB: the encoder step is the profile's peak
    assert round(act.bytes.bytes / 2**30, 2) == 1.46
