"""SGLang's own ``--attention-backend`` given to an SGLang plan or log (helper rev11, 2026-12-05; helper ab28,
2026-12-06, session 28).

``tpkit plan MODEL --gpu H100 --attention-backend fa3`` (the default engine is SGLang) answered with argparse's list
of vLLM backends; rev11 made it a refusal that named SGLang's own flag.  Helper ab28 made the flag an SGLang plan
input (the ROCm aiter × 0.85 follows it: ``engines.sglang.choices.rocm_aiter_factor``): SGLang's names are planned,
an unknown one is refused with SGLang's list; an SGLang log given another backend is a contradiction (the log's value
is used).  vLLM's unknown names are still refused with vLLM's list, by VllmOptions, once the engine is known.
"""

import pytest
from clirun import SYNTHETIC_KIMI, cli, refused


@pytest.mark.parametrize("value", ["fa3", "flashinfer", "triton"])
def test_an_sglang_plan_takes_sglangs_own_names(capsys, value):
    code, out, err = cli(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--attention-backend", value)
    assert code == 0 and "KV cache:" in out and "FLASH_ATTN_DIFFKV" not in err


def test_an_sglang_log_given_another_backend_keeps_the_logs(capsys):
    code, out, _ = cli(capsys, "explain", str(SYNTHETIC_KIMI), "--attention-backend", "fa3")
    assert code == 0 and "--attention-backend fa3 contradicts the log (flashinfer" in out


@pytest.mark.parametrize("argv", [["plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", "vllm"],
                                  ["explain", "tests/logs/data/vllm/vl_067.log"]])
def test_vllm_still_refuses_an_unknown_backend_with_its_list(capsys, argv):
    refused(capsys, *argv, "--attention-backend", "fa3", says=("must be one of auto, FLASH_ATTN",))


def test_help_names_the_value_as_the_flag_declares(capsys):
    from tpkit.cli import main

    with pytest.raises(SystemExit):
        main(["plan", "--help"])
    assert "--attention-backend BACKEND" in capsys.readouterr().out
