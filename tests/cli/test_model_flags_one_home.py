"""The engines' model flags (vLLM ``--model``, SGLang ``--model-path``) have one home, ``cli.pasted.MODEL_FLAGS``
(helper tidy29, session 29): ``tpkit.cli`` kept a copy of its own for the refusal of a left-over flag, the same
tuple written twice.  Both uses read the one tuple: a pasted line's flag is read as MODEL, a flag left over beside
MODEL is refused with the message that names the positional argument."""

import pytest

import tpkit.cli
from tpkit.cli import main
from tpkit.cli import pasted


def test_one_tuple():
    assert pasted.MODEL_FLAGS == ("--model", "--model-path")
    assert not hasattr(tpkit.cli, "_MODEL_FLAGS") and not hasattr(pasted, "_MODEL_FLAGS")


@pytest.mark.parametrize("argv", [["plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--model", "Qwen/Qwen3-8B"],
                                  ["perf", "Qwen/Qwen3-8B", "--gpu", "H100", "--model-path", "x"]])
def test_a_left_over_model_flag_is_refused_with_the_positional_argument(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"{argv[-2]} is the engines' flag for the model" in err and f"tpkit {argv[0]} MODEL" in err
    assert "Traceback" not in err


def test_a_pasted_model_flag_is_still_read_as_model(capsys):
    code = main(["plan", "--engine", "vllm", "--model", "Qwen/Qwen3-8B", "--gpu", "H100", "--json"])
    assert code == 0 and "as MODEL" in capsys.readouterr().err
