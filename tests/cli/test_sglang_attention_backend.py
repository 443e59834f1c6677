"""SGLang's own ``--attention-backend`` given to an SGLang plan or log (helper rev11, 2026-12-05).

``tpkit plan MODEL --gpu H100 --attention-backend fa3`` (the default engine is SGLang) answered with argparse's list
of vLLM backends ("invalid choice: 'fa3' (choose from 'auto', 'FLASH_ATTN', …)"), and ``flashinfer`` with "a vLLM
flag … SGLang has no such flag", which is not so: SGLang has the flag; tpkit's SGLang plan does not read it. vLLM's
unknown names are still refused with vLLM's list, by VllmOptions, once the engine is known.
"""

import pytest
from clirun import SYNTHETIC_KIMI, refused


@pytest.mark.parametrize("value", ["fa3", "flashinfer", "triton"])
def test_an_sglang_plan_names_sglangs_own_flag(capsys, value):
    err = refused(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--attention-backend", value,
                  says=("read for vLLM plans only", "SGLang's own --attention-backend", "--page-size"))
    assert "FLASH_ATTN_DIFFKV" not in err and "has no such flag" not in err


def test_an_sglang_log_too(capsys):
    refused(capsys, "explain", str(SYNTHETIC_KIMI), "--attention-backend", "fa3",
            says=("SGLang's own --attention-backend", "read from the log"))


@pytest.mark.parametrize("argv", [["plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", "vllm"],
                                  ["explain", "tests/logs/data/vllm/vl_067.log"]])
def test_vllm_still_refuses_an_unknown_backend_with_its_list(capsys, argv):
    refused(capsys, *argv, "--attention-backend", "fa3", says=("must be one of auto, FLASH_ATTN",))


def test_help_names_the_value_as_the_flag_declares(capsys):
    from tpkit.cli import main

    with pytest.raises(SystemExit):
        main(["plan", "--help"])
    assert "--attention-backend BACKEND" in capsys.readouterr().out
