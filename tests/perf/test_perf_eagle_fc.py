"""The EAGLE(-1/2) head's fc over [token embedding, target hidden state] (2·hidden → hidden) is part of every
EAGLE draft step (helper be11, 2026-12-05): sglang 0.4.4 ``models/llama_eagle.py`` ``LlamaModel.fc =
nn.Linear(hidden_size * 2, hidden_size)``; vllm 0.17.1 ``models/llama_eagle.py`` ``self.fc = ReplicatedLinear(2 ×
hidden, hidden)``: replicated, so every rank reads all of it.  Before, perf charged only EAGLE3's fusion fc and
MTP's eh_proj."""

from tpkit.models import load_model
from tpkit.perf import SpecSettings
from tpkit.perf.spec import extra_draft_kernels

LLAMA = load_model("meta-llama/Llama-3.1-8B-Instruct")
EAGLE = SpecSettings(algorithm="EAGLE", num_steps=3, topk=1, num_draft_tokens=4)


def test_eagle_head_fc_is_a_draft_kernel_replicated_over_tp():
    h = LLAMA.hidden_size
    for tp in (1, 4):
        (fc,) = extra_draft_kernels(LLAMA, EAGLE, tokens=8, tp=tp)
        assert fc.name == "EAGLE fc"
        assert fc.flops == 2.0 * 8 * (2 * h) * h                 # 2h → h on all rows, the full width on every rank
        assert fc.bytes >= 2.0 * (2 * h) * h                      # bf16 weights: 64 MiB for Llama-3.1-8B

