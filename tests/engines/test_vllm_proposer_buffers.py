"""The speculative proposer's ``hidden_states`` and ``inputs_embeds`` buffers (engines/vllm/runner_buffers.py
``v1_proposer_buffer_lines``; helper q38, 2026-12-05, session 16).

vllm 0.27.0 / 0.27.1 / 0.33.0 ``v1/spec_decode/llm_base_proposer.py SpecDecodeBaseProposer.__init__`` allocates both,
max_num_batched_tokens × the draft config's hidden size × the model dtype, when ``GPUModelRunner.__init__`` builds
the proposer, which ``gpu_worker.init_device`` does after the init snapshot.  ``memory_profiling`` charges them from
0.27.0 (``total_consumed``), never up to 0.26 (torch increase over the profile), and Model Runner V2 has its own
speculator state.  vp_701 / vp_700 print the split: 'Actual usage is 15.25 / 15.03 GiB for consumed memory'."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.runner_buffers import PROPOSER_BUFFERS_ITEM, proposer_buffer_bytes
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

HERE = Path(__file__).resolve().parent
CONFIGS = HERE.parent / "validation" / "configs"
QWEN38_FP8 = "Qwen--Qwen3.8-27B-FP8.json"
MTP = json.dumps({"method": "mtp", "num_speculative_tokens": 3})
DRAFT = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048, "num_hidden_layers": 16,
         "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 8192,
         "vocab_size": 128256, "rms_norm_eps": 1e-5, "max_position_embeddings": 131072, "torch_dtype": "bfloat16",
         "tie_word_embeddings": True}


def _model(name=QWEN38_FP8):
    return from_config_dict(json.loads((CONFIGS / name).read_text()), name=name, source=name)


def _plan(version, spec=MTP, model=None, gpu="H100-SXM-80GB", tp=1, **kw):
    kw.setdefault("vllm_use_v2_model_runner", "0")
    opts = VllmOptions(engine_version=version, max_model_len=32768, max_num_batched_tokens=8192, max_num_seqs=4,
                       speculative_config=spec, **kw)
    return plan_vllm(model or _model(), lookup_gpu(gpu), ParallelSpec(tp=tp), opts)


def _lines(result):
    return [li for li in result.ledger.items if li.item == PROPOSER_BUFFERS_ITEM]


def test_bytes_by_hand():
    """vp_701 per rank: T 8,192 × (5,120 + 5,120) × 2 B = 160 MiB (neither buffer is sharded)."""
    assert proposer_buffer_bytes(max_num_batched_tokens=8192, hidden_states_width=5120, inputs_embeds_width=5120,
                                 act_bytes=2) == Bytes(167_772_160)
    with pytest.raises(ValueError, match="hidden_states_width must be a positive integer, got 0"):
        proposer_buffer_bytes(max_num_batched_tokens=8192, hidden_states_width=0, inputs_embeds_width=5120,
                              act_bytes=2)


def test_release_boundary_0_26_vs_0_27():
    """0.26.0 charges the torch increase over the profile: no line; 0.27.0 (and 0.33.0) charge the free-memory drop
    since the init snapshot: the line, and the KV memory is smaller by it."""
    r26, r27, r33 = _plan("0.26.0"), _plan("0.27.0"), _plan("0.33.0")
    assert _lines(r26) == []
    for r in (r27, r33):
        assert len(_lines(r)) == 1 and _lines(r)[0].bytes == Bytes(8192 * 2 * 5120 * 2)
    base = _plan("0.27.0", spec=None)
    assert _lines(base) == []
    # the same run without the line: the KV memory differs by the two buffers plus what the drafter itself costs
    assert r27.extra["available_kv_bytes"] < base.extra["available_kv_bytes"] - 167_772_160


def test_not_on_model_runner_v2_nor_v0_nor_ngram():
    assert _lines(_plan("0.29.0", vllm_use_v2_model_runner=True)) == []
    ngram = json.dumps({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4})
    assert _lines(_plan("0.27.1", spec=ngram)) == []


def test_draft_model_width_is_the_drafts_hidden_size(tmp_path):
    """A draft_model proposer sizes both buffers with the draft config's hidden size (2,048), not the target's."""
    d = tmp_path / "draft"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(DRAFT))
    target = from_config_dict(json.loads((HERE.parent / "validation" / "data_vllm" / "configs" /
                                          "meta-llama--Llama-3.1-8B-Instruct.json").read_text()),
                              name="llama", source="test")
    spec = json.dumps({"method": "draft_model", "model": str(d), "num_speculative_tokens": 3})
    lines = _lines(_plan("0.27.1", spec=spec, model=target))
    assert len(lines) == 1 and lines[0].bytes == Bytes(8192 * (2048 + 2048) * 2)


def test_vp_701_end_to_end():
    """vp_701 (two RTX 3090, 0.27.1, MTP-3): the line is 0.156 GiB and the planned KV memory 4.87 GiB (4.76 printed;
    5.12 before the rule; 4.96 before helper w38's config fix, 2026-12-05: the FP8 config's interleaved MRoPE, a
    4 × 262,144-row rotary cache).  Helper g593 (2026-12-05): 4.89 GiB once the V1 runner's capture sizes are rounded
    to multiples of 4 (3 PIECEWISE + 2 FULL graphs, not 5 + 2: the graph estimate 0.43 → 0.41 GiB).  Helper mtp17
    (2026-12-05): 4.71 GiB once the MTP head is named ``mtp.…`` (``mtp_parts.mtp_layer_name``): the assembled config's
    modules_to_not_convert entry ``mtp`` now keeps the head in BF16 (0.18 GiB more drafter weights)."""
    sys.path.insert(0, str(HERE.parent / "validation"))
    import harness

    case = next(c for c in harness.load_cases("vllm") if c["id"] == "vp_701")
    model, gpu, parallel, options = harness.inputs(case)
    r = plan_vllm(model, gpu, parallel, options)
    assert _lines(r)[0].bytes == Bytes(167_772_160)
    assert round(r.extra["available_kv_bytes"] / 2**30, 2) == 4.71
