"""What the session-16 newcomer pass met (lead, 2026-12-05), pinned: the issue's own DeepSeek-V3 command without
``--enable-dp-attention`` (``--tp 8 --dp 8 --ep 8 --num-gpus 8``) is refused as 64 GPUs, and the refusal now names the
layout that was most likely meant, per engine: SGLang's DP attention flag, or vLLM's ``--tp 1 --dp 8`` (its data
parallel always multiplies the GPUs)."""

from __future__ import annotations

from clirun import cli, refused

V3 = ("deepseek-ai/DeepSeek-V3", "--gpu", "H200", "--num-gpus", "8", "--ep", "8")


def test_sglang_dp_inside_tp_names_the_dp_attention_flag(capsys):
    refused(capsys, "plan", *V3, "--tp", "8", "--dp", "8",
            says=("8×1×8 = 64 GPUs but --num-gpus is 8", "add --enable-dp-attention"))


def test_the_flag_it_names_plans(capsys):
    code, out, _ = cli(capsys, "plan", *V3, "--tp", "8", "--dp", "8", "--enable-dp-attention")
    assert code == 0 and "DP attention: 8 attention ranks" in " ".join(out.split())


def test_vllm_names_the_layout_that_fits(capsys):
    refused(capsys, "plan", *V3, "--tp", "8", "--dp", "8", "--engine", "vllm",
            says=("multiplies the GPUs", "on 8 GPUs use --tp 1 --dp 8"))
    # 0.33: fits; vLLM 0.34's extensible KV cache keeps 0.75 × this MoE profile peak free beside it (helper cur17),
    # which leaves less than one 163,840-token request (exit 3, DOES NOT FIT, but planned)
    code, _, _ = cli(capsys, "plan", *V3, "--tp", "1", "--dp", "8", "--engine", "vllm", "--engine-version", "0.33")
    assert code == 0
    code, _, _ = cli(capsys, "plan", *V3, "--tp", "1", "--dp", "8", "--engine", "vllm")
    assert code == 3


def test_no_hint_where_no_layout_fits(capsys):
    _, _, err = cli(capsys, "plan", *V3, "--tp", "8", "--dp", "3")
    assert "64 GPUs" not in err and "24 GPUs but --num-gpus is 8" in err
    assert "--enable-dp-attention" not in err and "use --tp" not in err
