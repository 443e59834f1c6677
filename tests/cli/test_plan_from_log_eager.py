"""``tpkit plan --from-log`` takes vLLM's ``enforce_eager`` from the log (the run setting ``cuda_graph_disabled``,
``tpkit.logs.settings``), as it takes SGLang's ``disable_cuda_graph``; a flag given on the command line wins."""

from pathlib import Path

from tpkit.cli import build_parser
from tpkit.cli.fromlog import from_log as _from_log

ROOT = Path(__file__).resolve().parents[1]
QWEN_3B = str(ROOT / "validation" / "configs" / "Qwen--Qwen2.5-3B-Instruct.json")


def _filled(log: str, *flags: str):
    argv = ["plan", QWEN_3B, "--from-log", str(ROOT / "logs" / "data" / "vllm" / log), *flags]
    args = build_parser(argv).parse_args(argv)
    _from_log(args)
    return args


def test_the_logs_enforce_eager_fills_the_flag():
    # vl_152 (vLLM 0.30.0) prints enforce_eager=True in its engine config line
    args = _filled("vl_152.log")
    assert args.enforce_eager is True and "cuda_graph_disabled" in args.log_filled


def test_a_log_without_it_leaves_the_default():
    # vl_025 prints enforce_eager=False (its 'enforce_eager=True' is vLLM's advice text, not the setting)
    args = _filled("vl_025.log")
    assert not args.enforce_eager
