"""vLLM: which of an EAGLE-3 head's tensors the proposer takes from the target (``engines.vllm.drafter``:
``eagle3_shares_lm_head``, the embedding under pipeline parallelism), both sides of each release boundary."""

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm.drafter import EAGLE3_LM_HEAD_SHARED_FROM, eagle3_shares_lm_head, plan_drafter
from tpkit.engines.vllm.speculative import parse_speculative_config
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
FULL = CONFIGS / "dishantghai--Qwen3-8B-eagle3-head.json"  # draft_vocab_size 151,936 = Qwen3's vocab
SMALL = CONFIGS / "dishantghai--Qwen3-8B-eagle3-head-32k.json"  # a 32k draft vocabulary
LM_HEAD = 151_936 * 4_096 * 2  # Qwen3-8B's lm_head in bf16, one rank


def _model(path: Path):
    return from_config_dict(json.loads(path.read_text()), name=path.stem, source=path.stem)


TARGET = _model(CONFIGS / "Qwen--Qwen3-8B.json")


def _weights(head: Path, release, pp: int = 1) -> int:
    spec = parse_speculative_config(json.dumps({"method": "eagle3", "model": str(head),
                                                "num_speculative_tokens": 2}))
    return int(plan_drafter(TARGET, spec, ParallelSpec(tp=1, pp=pp), kv_bytes=2, act_dtype="bfloat16",
                            target_quantization=None, release=release).weights)


@pytest.mark.parametrize("release, shared", [((0, 10, 1, 1), False), ((0, 10, 2), False),
                                             (EAGLE3_LM_HEAD_SHARED_FROM, True), ((0, 11, 1), True),
                                             ((0, 20, 0), True), ((0, 24, 0), True), ((0, 33, 0), True),
                                             (None, True)])
def test_full_vocabulary_head_shares_the_lm_head_from_0_11(release, shared):
    assert eagle3_shares_lm_head(TARGET, _model(FULL), release) is shared


@pytest.mark.parametrize("release", [(0, 10, 2), (0, 11, 0), (0, 20, 0), None])
def test_a_head_of_another_vocabulary_keeps_its_own(release):
    assert not eagle3_shares_lm_head(TARGET, _model(SMALL), release)


def test_a_head_of_another_hidden_size_keeps_its_own():
    cfg = json.loads(FULL.read_text()) | {"hidden_size": 5_120}
    assert not eagle3_shares_lm_head(TARGET, from_config_dict(cfg, name="h", source="h"), (0, 20, 0))


def test_the_planned_load_drops_exactly_the_lm_head():
    before, after = _weights(FULL, (0, 10, 2)), _weights(FULL, (0, 11, 0))
    assert before - after == LM_HEAD
    assert _weights(FULL, (0, 20, 0)) == after
    # the 32k head's load does not move across the boundary
    assert _weights(SMALL, (0, 10, 2)) == _weights(SMALL, (0, 20, 0))


def test_pipeline_parallel_loads_the_embedding_again():
    one, two = _weights(FULL, (0, 20, 0)), _weights(FULL, (0, 20, 0), pp=2)
    assert two - one == 151_936 * 4_096 * 2  # the embedding, vocab × hidden in bf16
