"""Issue 10, CLI friction: catalog listings, model suggestions, a ledger that fits the terminal, one sign style,
--gpu with --gpu-memory, exit 3 for DOES NOT FIT, the vLLM header/JSON, and a cheap `tpkit plan` import set."""

import json
import re
import subprocess
import sys
import textwrap

import pytest

from tpkit.cli import build_parser, main
from tpkit.cli.render import format_ledger, format_plan
from tpkit.hardware.catalog import list_gpus
from tpkit.models.catalog import catalog_entries

LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"
LLAMA_70B = "meta-llama/Llama-3.1-70B-Instruct"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _plan(*argv):
    from tpkit.cli.plan import plan

    parser = build_parser(["plan"])
    return plan(parser.parse_args(["plan", *argv]))


# ---- catalog listings and suggestions


def test_list_gpus_prints_every_catalog_gpu_and_its_aliases(capsys):
    code, out, err = run(capsys, "plan", "--list-gpus")
    assert code == 0, err
    for gpu in list_gpus():
        assert gpu.name in out
    assert "H100-SXM-80GB" in out and "79.19 GiB" in out and "NVIDIA H100 80GB HBM3" in out


def test_list_gpus_and_models_as_json(capsys):
    code, out, err = run(capsys, "plan", "--list-gpus", "--list-models", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert [g["name"] for g in doc["gpus"]] == [g.name for g in list_gpus()]
    h100 = next(g for g in doc["gpus"] if g["name"] == "H100-SXM-80GB")
    assert h100["total_bytes"] == 85_029_615_043 and "H100" in h100["aliases"]
    assert [m["id"] for m in doc["models"]] == [e.id for e in catalog_entries()]


def test_list_models_names_every_embedded_model(capsys):
    code, out, err = run(capsys, "plan", "--list-models")
    assert code == 0, err
    for entry in catalog_entries():
        assert entry.id in out
    assert "LlamaForCausalLM" in out


def test_the_listings_fit_80_columns(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = run(capsys, "plan", "--list-gpus", "--list-models")
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 80


def test_help_promises_only_flags_that_exist(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # one help line per flag: no flag name cut by wrapping
    with pytest.raises(SystemExit):
        main(["plan", "--help"])
    out = capsys.readouterr().out
    flags = set(re.findall(r"--[a-z][a-z0-9-]*[a-z0-9]", out))
    commands = build_parser()._subparsers._group_actions[0].choices
    known = {o for name in ("plan", "probe") for a in commands[name]._actions for o in a.option_strings}
    assert "--list-gpus" in flags and "--list-models" in flags
    assert flags <= known, flags - known


@pytest.mark.parametrize("typed, expected", [
    ("mixtral", "mistralai/Mixtral-8x7B-Instruct-v0.1"),
    ("Llama-3.1-8B-Instrct", LLAMA_8B),
    ("405b", "meta-llama/Llama-3.1-405B-Instruct"),
])
def test_an_unknown_model_gets_close_matches_and_the_list_flag(capsys, typed, expected):
    code, out, err = run(capsys, "plan", typed, "--gpu", "H100")
    assert code == 2 and "Traceback" not in err
    assert expected in err.split("close matches:")[1]
    assert "--list-models" in err


def test_a_missing_model_is_a_user_error_that_points_at_the_list(capsys):
    code, out, err = run(capsys, "plan", "--gpu", "H100")
    assert code == 2 and "no MODEL given" in err and "--list-models" in err


# ---- the ledger fits the terminal


_PLANS = [
    (LLAMA_8B, "--gpu", "H100", "--engine", "vllm"),
    ("deepseek-ai/DeepSeek-V3", "--gpu", "H200", "--tp", "8"),
    ("Qwen/Qwen3-30B-A3B", "--gpu", "RTX-4090", "--tp", "2", "--engine", "vllm", "--tpkit-allreduce", "8MiB"),
]


@pytest.mark.parametrize("argv", _PLANS)
@pytest.mark.parametrize("width", [60, 80, 132])
def test_every_line_but_the_quoted_engine_log_fits_the_width(argv, width):
    result = _plan(*argv)
    text = format_plan(result, width=width)
    body = text.split("would log")[0]
    too_long = [line for line in body.splitlines() if len(line) > width]
    assert not too_long, too_long


def test_the_width_comes_from_the_terminal_and_is_80_when_unknown(monkeypatch, capsys):
    monkeypatch.delenv("COLUMNS", raising=False)
    code, out, _ = run(capsys, "plan", LLAMA_8B, "--gpu", "H100")  # stdout is captured: no terminal
    ledger = out.split("Memory ledger")[1].split("KV cache:")[0]
    assert max(len(line) for line in ledger.splitlines()) == 80
    monkeypatch.setenv("COLUMNS", "100")
    code, out, _ = run(capsys, "plan", LLAMA_8B, "--gpu", "H100")
    ledger = out.split("Memory ledger")[1].split("KV cache:")[0]
    assert max(len(line) for line in ledger.splitlines()) == 100


_ROW = re.compile(r"^\S.*\s(-?[\d,]+)\s+(-?\d+\.\d\d)( ± \d+\.\d\d)?$")


@pytest.mark.parametrize("width", [60, 80])
def test_a_long_item_name_continues_indented_and_never_reads_as_a_new_item(width):
    result = _plan(LLAMA_8B, "--gpu", "H100", "--engine", "vllm")
    lines = format_ledger(result, width=width).splitlines()[3:]
    rows = [line for line in lines if not line.startswith(" ")]
    assert len(rows) == len(result.ledger.items) + 1  # one unindented line per item, + "= remaining"
    assert all(_ROW.match(r) for r in rows), [r for r in rows if not _ROW.match(r)]
    # the long item name is cut into pieces that are all there, the rest indented under it
    name = "activation peak (profile run, estimate)"
    i = next(k for k, line in enumerate(lines) if line.startswith("activation peak"))
    pieces = [lines[i][:width - 30].strip()] + [line.strip() for line in lines[i + 1:] if line.startswith("  ")
                                                  and not line.startswith("    ")][:1]
    assert name.startswith(pieces[0].split("  ")[0])
    if width == 60:
        assert lines[i + 1].startswith("  ") and not lines[i + 1].startswith("    ")
        assert " ".join(p.split("  ")[0] for p in pieces) == name


# ---- signs


@pytest.mark.parametrize("argv", [*_PLANS, (LLAMA_70B, "--gpu", "H100", "--engine", "vllm")])
def test_numbers_use_one_minus_sign_and_never_minus_zero(argv):
    result = _plan(*argv)
    text = format_plan(result, width=100)
    assert not re.search(r"−\d", text), re.findall(r".{20}−\d.{10}", text)
    assert not re.search(r"-0\.0+(?!\d*[1-9])\b", text), re.findall(r".{30}-0\.00.{5}", text)
    assert not re.search(r"(?<![\w.])-0(?![.,\d])", text)


def test_a_negative_remaining_is_signed_like_every_other_number():
    result = _plan(LLAMA_70B, "--gpu", "H100", "--engine", "vllm")
    assert result.ledger.remaining.bytes < 0
    row = next(line for line in format_ledger(result, width=80).splitlines() if line.startswith("= remaining"))
    assert re.search(r" -[\d,]+\s+-\d+\.\d\d$", row), row


def test_signed_gib_rounds_to_an_unsigned_zero():
    from tpkit.cli.render import signed_gib

    from tpkit.units import Bytes

    assert signed_gib(Bytes(-1_370_896)) == "0.00" and signed_gib(Bytes(0)) == "0.00"
    assert signed_gib(Bytes(-2**30)) == "-1.00" and signed_gib(Bytes(5 * 2**28)) == "1.25"
    with pytest.raises(TypeError):
        signed_gib(2**30)  # a bare count could be in any unit


# ---- --gpu with --gpu-memory, and the ledger's header


def test_gpu_memory_alone_is_not_called_a_catalog_total(capsys):
    code, out, err = run(capsys, "plan", LLAMA_8B, "--gpu-memory", "80GiB", "--json")
    doc = json.loads(out)
    assert "catalog" not in doc["ledger_rank"] and "--gpu-memory" in doc["ledger_rank"]
    code, out, err = run(capsys, "plan", LLAMA_8B, "--gpu-memory", "80GiB")
    assert "catalog total" not in out


def test_gpu_with_gpu_memory_keeps_the_gpu_and_says_the_memory_wins(capsys):
    code, out, err = run(capsys, "plan", LLAMA_8B, "--gpu", "H100", "--gpu-memory", "80GiB", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["gpu"]["total_bytes"] == 80 * 2**30
    assert doc["gpu"]["name"] == "H100-SXM-80GB" and doc["gpu"]["compute_capability"] == "9.0"
    assert doc["ledger"][0]["bytes"] == 80 * 2**30 and "replaces the catalog's 79.19 GiB" in doc["ledger"][0]["source"]
    assert any("--gpu-memory 80.00 GiB replaces the catalog total of H100-SXM-80GB" in w for w in doc["warnings"])
    code, out, err = run(capsys, "plan", LLAMA_8B, "--gpu", "H100", "--json")
    assert not any("replaces" in w for w in json.loads(out)["warnings"])


# ---- exit status


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
def test_does_not_fit_exits_3_and_still_prints_the_plan(capsys, engine):
    code, out, err = run(capsys, "plan", LLAMA_70B, "--gpu", "H100", "--engine", engine, "--json")
    assert code == 3, err
    assert json.loads(out)["verdict"]["fits"] is False
    code, out, err = run(capsys, "plan", LLAMA_70B, "--gpu", "H100", "--engine", engine)
    assert code == 3 and "verdict: DOES NOT FIT" in out and "Memory ledger" in out
    code, out, err = run(capsys, "plan", LLAMA_8B, "--gpu", "H100", "--engine", engine)
    assert code == 0 and "verdict: FITS" in out


def test_help_documents_the_exit_statuses(capsys):
    with pytest.raises(SystemExit):
        main(["plan", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "3 DOES NOT FIT" in out and "2 a user error" in out


# ---- vLLM: the version in the header, not a warning on every run; the vllm JSON block


def test_vllm_states_its_rules_in_the_header_not_in_a_warning(capsys):
    code, out, err = run(capsys, "plan", LLAMA_8B, "--gpu", "H100", "--engine", "vllm")
    assert out.splitlines()[0].startswith("tpkit plan · vllm 0.34 rules")  # helper cur17: current = 0.34
    assert "'current' means" not in out
    code, out, err = run(capsys, "plan", LLAMA_8B, "--gpu", "H100", "--engine", "vllm", "--json")
    assert json.loads(out)["warnings"] == []


def test_vllm_json_has_its_own_block_like_sglang(capsys):
    _, out, _ = run(capsys, "plan", LLAMA_8B, "--gpu", "H100", "--engine", "vllm", "--json")
    doc = json.loads(out)
    block = doc["vllm"]
    assert {"rule_era", "gpu_memory_utilization", "available_kv_bytes", "requested_bytes", "bytes_per_block",
            "kv_groups", "cuda_graph_bytes", "kv_blocks", "block_size"} <= set(block)
    assert block["kv_blocks"] == doc["kv_blocks"] and block["block_size"] == doc["block_size"]
    assert block["kv_blocks"] * block["bytes_per_block"] <= block["available_kv_bytes"]
    _, out, _ = run(capsys, "plan", LLAMA_8B, "--gpu", "H100", "--json")
    assert "sglang" in json.loads(out) and "vllm" not in json.loads(out)


# ---- what `tpkit plan` imports


def test_plan_in_text_imports_no_rich_and_no_other_command():
    code = textwrap.dedent("""
        import contextlib, io, sys
        from tpkit.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100"]) == 0
        loaded = [m for m in sys.modules if m.startswith(("rich", "torch", "tpkit.comm", "tpkit.runtime",
                                                           "tpkit.perf", "tpkit.logs"))
                  or m in ("tpkit.cli.probe", "tpkit.cli.bench", "tpkit.cli.perf", "tpkit.cli.catalogs")]
        assert not loaded, loaded
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
