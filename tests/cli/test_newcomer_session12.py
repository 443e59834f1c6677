"""What the session-12 newcomer pass met (helper rev12, 2026-12-05), pinned: logs piped through a log collector
explain as the server's own lines do; a pasted server command line is planned (serving-only flags ignored with a
note) or refused with what to drop; ``--json FILE`` and ``--gpu 80GB`` say what the user meant."""

from __future__ import annotations

import json
import pathlib
import re

import pytest
from clirun import cli, refused

from tpkit.explain import explain_log
from tpkit.logs import text as log_text

DATA = pathlib.Path(__file__).resolve().parents[1] / "logs" / "data"
QWEN = "Qwen/Qwen3-8B"

WRAPPERS = {
    "docker compose logs": lambda line: b"vllm-server-1  | " + line if b"sglang" not in line else b"svc-1  | " + line,
    "docker compose logs (colour)": lambda line: b"\x1b[36msvc-1  |\x1b[0m " + line,
    "kubectl logs --prefix": lambda line: b"[pod/server-0/server] " + line,
    "journalctl": lambda line: b"Dec 05 10:00:00 gpu01 python3[1234]: " + line,
    "docker logs -t": lambda line: b"2026-12-05T10:00:00.123456789Z " + line,
}


def _wrapped(data: bytes, wrap) -> bytes:
    return b"\n".join(wrap(line) if line else line for line in data.split(b"\n"))


def _key(data: bytes, *, date: bool = True) -> dict:
    d = explain_log(data).to_dict()
    values = dict(d["run"]["values"])
    if not date:
        values.pop("log_date", None)
    return {"engine": d["engine"], "version": d["engine_version"], "kv": d["kv_tokens"], "values": values,
            "status": d["diagnosis"]["status"], "phase": d["diagnosis"]["phase"], "model": d["model"]}


@pytest.mark.parametrize("log", ["vllm/vl_062.log", "vllm/vl_784.log", "vllm/vl_009.log", "vllm/vl_018.log",
                                 "vllm/vl_128.log", "sglang/sg_031.log", "sglang/sg_221.log", "sglang/sg_403.log"])
@pytest.mark.parametrize("how", sorted(set(WRAPPERS) - {"docker logs -t"}))
def test_a_collectors_line_prefix_changes_nothing(log, how):
    """Before: with `docker compose logs`' 'svc-1  | ' (or kubectl's, journalctl's) before every line, vl_062's
    crash read as 'ok', vl_784 lost its release range (the '(EngineCore pid=' header is read at the line start),
    sg_221 its tp and rebuilt range (free-form text read off the raw bytes); 49 of the 502 corpus logs moved
    (kubectl's prefix: 88)."""
    data = (DATA / log).read_bytes()
    assert _key(_wrapped(data, WRAPPERS[how])) == _key(data)


@pytest.mark.parametrize("log", ["vllm/vl_784.log", "sglang/sg_031.log", "vllm/vl_128.log"])
def test_docker_timestamps_change_nothing_but_the_date(log):
    """`docker logs -t`: the time stamps go like the other prefixes; their date still dates the log."""
    data = (DATA / log).read_bytes()
    wrapped = _wrapped(data, WRAPPERS["docker logs -t"])
    assert _key(wrapped, date=False) | {"kv": None, "version": None} == _key(data, date=False) | {"kv": None,
                                                                                                   "version": None}
    own = explain_log(data).to_dict()["run"]["values"].get("log_date")  # a date the lines print themselves wins
    assert explain_log(wrapped).to_dict()["run"]["values"]["log_date"] == (own or "2026-12-05")


def test_strip_wrappers_keeps_line_numbers_and_unprefixed_lines():
    text = "svc-1  | INFO a\nsvc-1  | INFO b\nwrapped tail of a long line\nsvc-1  |\nsvc-1  | INFO c\n"
    out, notes = log_text.strip_wrappers(text)
    assert out == "INFO a\nINFO b\nwrapped tail of a long line\n\nINFO c\n" and out.count("\n") == text.count("\n")
    assert notes and "docker compose" in notes[0] and "4 line(s)" in notes[0]
    assert log_text.strip_wrappers(text.encode())[0] == out.encode()


@pytest.mark.parametrize("text", [
    "INFO 04-24 16:33:13 [kv_cache_utils.py:634] GPU KV cache size: 158,656 tokens\n",
    "| model | tokens |\n| a | 1 |\n| b | 2 |\n| c | 3 |\n",            # a markdown table: no name before the bar
    "a  | x\nINFO 1\nINFO 2\nINFO 3\nINFO 4\n",                        # one line of five
])
def test_a_log_without_a_collector_prefix_is_left_alone(text):
    assert log_text.strip_wrappers(text) == (text, ())


def test_the_prefix_is_named_in_the_notes():
    data = _wrapped((DATA / "vllm/vl_128.log").read_bytes(), WRAPPERS["docker compose logs"])
    assert any("docker compose" in n for n in log_text.prepare(data)[2])


@pytest.mark.parametrize("argv", [
    ("plan", QWEN, "--gpu", "H100", "--json", "plan.json"),
    ("plan", "--json", "plan.json", QWEN, "--gpu", "H100"),
    ("plan", QWEN, "--gpu", "H100", "--json=plan.json"),
    ("perf", QWEN, "--gpu", "H100", "--json", "plan.json"),
    ("explain", str(DATA / "vllm/vl_128.log"), "--json", "plan.json"),
])
def test_json_with_a_file_name_says_to_redirect(capsys, argv, tmp_path, monkeypatch):
    """Before: 'unexpected argument(s) plan.json' (or, with --json=…, argparse's 'ignored explicit argument')."""
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, *argv)
    assert code == 2 and "Traceback" not in err
    assert "--json takes no file name" in err and "--json > plan.json" in err, err
    assert json.loads(out)["exit_code"] == 2  # the error object on stdout, as for any user error with --json
    assert not (tmp_path / "plan.json").exists()


@pytest.mark.parametrize("size, says", [("80GB", "--gpu-memory 80GB"), ("96GiB", "--gpu-memory 96GiB"),
                                        ("80", "--gpu-memory 80GiB (2^30 bytes) or 80GB")])
def test_a_size_given_as_the_gpu_names_the_flag_for_sizes(capsys, size, says):
    """Before: "unknown GPU '80GB'; did you mean H800, H100-SXM-80GB …" and the whole catalog."""
    refused(capsys, "plan", QWEN, "--gpu", size, says=("is a memory size, not a GPU name", says))


def test_perf_does_not_offer_a_flag_it_lacks(capsys):
    """Before: tpkit perf's unknown-GPU message said to pass --gpu-memory, which tpkit perf does not have."""
    for gpu in ("141GB", "TPU-v5e"):
        line = refused(capsys, "perf", QWEN, "--gpu", gpu, says=("name the catalog GPU closest to yours",))
        assert "--gpu-memory" not in line


def test_serving_flags_of_a_pasted_command_are_ignored_with_a_note(capsys):
    """Before: 'tpkit plan has no flag --host, --port' for a `vllm serve` line pasted as it was run."""
    plain = cli(capsys, "plan", QWEN, "--engine", "vllm", "--gpu", "H100", "--json")
    code, out, err = cli(capsys, "plan", QWEN, "--engine", "vllm", "--gpu", "H100", "--json", "--host", "0.0.0.0",
                         "--port", "8000", "--served-model-name", "qwen", "--trust-remote-code",
                         "--enable-auto-tool-choice", "--tool-call-parser", "hermes")
    assert code == plain[0] == 0 and out == plain[1]
    assert "note: ignored --host, --port, --served-model-name, --tool-call-parser, --trust-remote-code" in err
    code, out, err = cli(capsys, "perf", QWEN, "--gpu", "H100", "--port", "30000", "--trust-remote-code")
    assert code == 0 and "ignored --port, --trust-remote-code" in err


def test_serving_flags_stay_out_of_help(capsys):
    code, out, _ = cli(capsys, "plan", "--help")
    # the serving flag --host, not tpkit's --host-gpus (helper cap27)
    assert code == 0 and not re.search(r"--host(?![\w-])", out) and "--served-model-name" not in out


@pytest.mark.parametrize("argv, drop", [
    (("plan", "vllm", "serve", QWEN, "--gpu", "H100"), "'vllm serve'"),
    (("plan", "python3", "-m", "sglang.launch_server", "--model-path", QWEN, "--gpu", "H100"),
     "'python3 -m sglang.launch_server'"),
    (("perf", "vllm", "serve", QWEN, "--gpu", "H100"), "'vllm serve'"),
])
def test_a_pasted_launch_command_says_what_to_drop(capsys, argv, drop):
    """Before: 'unexpected argument(s) serve Qwen/Qwen3-8B'; then (session 12) refused with the words to drop; since
    ux25 (cli.pasted) taken, the launch words naming the engine, with a note; a contradicting --engine still
    refused with the words to drop."""
    code, _, err = cli(capsys, *argv)
    assert code == 0 and f"note: read the pasted {drop} as --engine" in err
    other = "sglang" if "vllm" in drop else "vllm"
    refused(capsys, *argv, "--engine", other, says=("is the engine's own command", f"(drop {drop})"))


def test_served_model_name_takes_several_names_as_vllm_does(capsys):
    """Before: `--served-model-name a b` (vLLM's nargs='+') left 'b', which was read as a unit word: "'b' stands on
    its own: write a size as one word"."""
    code, _, err = cli(capsys, "plan", QWEN, "--gpu", "H100", "--served-model-name", "qwen", "b")
    assert code == 0 and "ignored --served-model-name" in err


def test_a_unit_word_is_one_only_after_a_number(capsys):
    refused(capsys, "plan", QWEN, "--gpu-memory", "80", "GiB", says=("'GiB' stands on its own",))
    line = refused(capsys, "plan", QWEN, "--gpu", "H100", "--no-such-flag", "b", says=("has no flag --no-such-flag",))
    assert "stands on its own" not in line


@pytest.mark.parametrize("tp, ep, says", [(2, 4, "use --ep 1 or 2, or keep --ep 4 with --tp 4"),
                                          (8, 3, "keep --ep 3 with --tp 24")])
def test_perf_refuses_more_expert_ranks_than_its_tp_group_has(capsys, tp, ep, says):
    """Before: `tpkit perf … --tp 2 --ep 4` costed each of the 2 GPUs holding a quarter of the experts (plan refuses
    the layout: parallel.ParallelSpec)."""
    refused(capsys, "perf", "Qwen/Qwen3-30B-A3B", "--gpu", "H100", "--tp", str(tp), "--ep", str(ep),
            says=(f"--ep {ep} must divide the {tp} GPU(s) of --tp {tp}", says))


@pytest.mark.parametrize("spelling", [("-O0",), ("-O", "0"), ("-O=0",)])
def test_vllms_short_optimization_level(capsys, spelling):
    """Before: 'tpkit plan has no flag -O0'; vLLM 0.29.0's FlexibleArgumentParser rewrites -O0, -O 0 and -O=0 to
    --optimization-level 0."""
    long = cli(capsys, "plan", QWEN, "--engine", "vllm", "--gpu", "H100", "--optimization-level", "0", "--json")
    short = cli(capsys, "plan", QWEN, "--engine", "vllm", "--gpu", "H100", *spelling, "--json")
    assert short[0] == long[0] == 0 and short[1] == long[1]
