"""The speculative drafter's own cold compile inside the profile window (helper mtp12, 2026-12-05;
``engines/vllm/profile.drafter_compile_phase``, ``profile_lines.drafter_cold_compile``).

vLLM 0.26.0 / 0.30.0 wheels: the profile's dummy pass runs the EAGLE / MTP drafter after the target (Model Runner V2
``_dummy_run`` → ``speculator.propose(dummy_run=True, is_profile=True)`` → ``_run_model`` → ``self.model(...)``;
V1 runner ``_dummy_run`` → ``drafter.dummy_run``, also 0.11.2 and 0.20.2).  The drafter is a ``support_torch_compile``
module compiled with the target's config (its own cache tag ``eagle_head``), and on a text run its graph looks the
token ids up in the shared embedding table, so Inductor's combo-kernel benchmark copies that table again.  torch
frees the copy after each benchmarked partition, so the phase is the table plus the target's held hidden states,
not a second table on top of the target's scratch."""

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parent.parent / "validation" / "configs"
VH = "profile phase: cold compile scratch ≈ vocab × hidden"
DR = "profile phase: drafter cold compile scratch ≈ vocab × hidden + target hidden states"
ACT = "activation peak (profile run, estimate)"
MTP = json.dumps({"method": "qwen3_next_mtp", "num_speculative_tokens": 2})


def _model():
    path = CONFIGS / "Qwen--Qwen3.5-4B.json"
    return from_config_dict(json.loads(path.read_text()), name="Qwen/Qwen3.5-4B", source=str(path))


def _plan(version="0.30.0", **kw):
    opts = dict(max_model_len=65536, gpu_memory_utilization=0.12, max_num_seqs=48, language_model_only=True,
                speculative_config=MTP) | kw
    return plan_vllm(_model(), lookup_gpu("B200"), ParallelSpec(), VllmOptions(engine_version=version, **opts))


def _line(plan, item):
    return next((l for l in plan.ledger.items if l.item == item), None)


@pytest.mark.parametrize("version", ["0.26.0", "0.30.0"])
def test_text_mtp_cold_start_adds_the_drafter_phase(version):
    p = _plan(version)
    m = _model()
    table = m.vocab_size * m.hidden_size * 2
    drafter, target = _line(p, DR), _line(p, VH)
    assert target.bytes.bytes == table
    assert drafter.bytes.bytes > table                      # the table copy plus the held hidden states
    assert drafter.bytes.bytes - table < 0.2 * table        # not a second table on top of the first
    assert _line(p, ACT).bytes == drafter.bytes
    assert p.kv_tokens < _plan(version, speculative_config=None).kv_tokens


@pytest.mark.parametrize("kw", [dict(speculative_config=None),
                                dict(speculative_config=json.dumps({"method": "ngram", "num_speculative_tokens": 2,
                                                                    "prompt_lookup_max": 4})),
                                dict(compile_cache="warm"),
                                dict(enforce_eager=True),
                                dict(language_model_only=False)])
def test_no_drafter_phase_without_a_compiled_text_drafter(kw):
    assert _line(_plan(**kw), DR) is None


@pytest.mark.parametrize("version,has", [("0.11.0", False), ("0.11.1", True), ("0.32.0", True)])
def test_release_range_follows_the_target_scratch(version, has):
    # 0.11.0 pins torch 2.8 and turns no combo-kernel benchmark on: no target scratch, no drafter scratch
    p = _plan(version, language_model_only=False, limit_mm_per_prompt='{"image": 0, "video": 0}', max_model_len=32768)
    assert (_line(p, DR) is not None) is has
    assert (_line(p, VH) is not None) is has
