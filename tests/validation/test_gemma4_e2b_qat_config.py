"""The assembled google/gemma-4-E2B-it-qat-w4a16-ct config (vp_563, vp_565, vp_568; logs vl_810, vl_812) against the
real checkpoint's size (helper e2b10, 2026-12-05).

The pinned checkpoint (revision 971342c0) is one ``model.safetensors`` of 8,316,306,646 bytes (search-index id
70671995086; vLLM prints 'Checkpoint size: 7.75 GiB' for it in vl_812).  Its quantization scope is every
language-model Linear at 4 bits (group 32, symmetric), with the vision / audio towers, their projectors and lm_head
left out (search-index ids 71129587301, 55116102085).  With a tied head the plan falls one 262,144 × 1,536 bf16
tensor (0.75 GiB) short of the file; with the file's own full-width head it lands within 0.5 %."""

import copy
import json
from pathlib import Path

from tpkit.models.config import from_config_dict
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).parent / "configs"
QAT = "google--gemma-4-E2B-it-qat-w4a16-ct.json"
BF16 = "google--gemma-4-E2B.json"
CHECKPOINT_BYTES = 8_316_306_646
"""``model.safetensors`` of google/gemma-4-E2B-it-qat-w4a16-ct at revision 971342c0 (search-index id 70671995086)"""
HEAD_BYTES = 262_144 * 1_536 * 2


def _planned(cfg: dict) -> int:
    model = from_config_dict(cfg, name="google/gemma-4-E2B-it-qat-w4a16-ct", source=QAT)
    return int(plan_weights(model, ParallelSpec(tp=1), dtype="float16").total_bytes)


def _config(name: str) -> dict:
    return json.loads((CONFIGS / name).read_text())


def test_qat_config_plans_the_checkpoint_size():
    planned = _planned(_config(QAT))
    assert abs(planned - CHECKPOINT_BYTES) / CHECKPOINT_BYTES < 0.005, planned


def test_a_tied_head_falls_one_vocab_by_hidden_tensor_short():
    tied = copy.deepcopy(_config(QAT))
    tied["tie_word_embeddings"] = tied["text_config"]["tie_word_embeddings"] = True
    untied = _planned(_config(QAT))
    assert untied - _planned(tied) == HEAD_BYTES
    assert (CHECKPOINT_BYTES - _planned(tied)) / CHECKPOINT_BYTES > 0.08  # the −10 % mv28 recorded


def test_towers_and_head_stay_out_of_the_quantization_scope():
    ignore = _config(QAT)["quantization_config"]["ignore"]
    assert set(ignore) == {"lm_head", "re:.*vision_tower.*", "re:.*audio_tower.*", "re:.*embed_vision.*",
                           "re:.*embed_audio.*"}


def test_bf16_release_keeps_its_tied_head():
    cfg = _config(BF16)
    assert cfg["text_config"]["tie_word_embeddings"] is True
