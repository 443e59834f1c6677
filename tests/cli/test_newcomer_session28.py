"""Newcomer pass of session 28 (helper tidy28, 2026-12-06) from a fresh clone with ``pip install -e .`` only: the
mistakes the brief lists, each refused with what was wrong, what was received and how to fix it (exit 2, no
traceback, nothing written).  The first four groups fail on main 9ef19d9f; the last guards what already held."""

from __future__ import annotations

import json

import pytest
from clirun import cli, refused

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
CONFIG = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
          "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "intermediate_size": 14336,
          "vocab_size": 128256, "max_position_embeddings": 8192, "torch_dtype": "bfloat16"}
PDF = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"
"""the first bytes of a PDF whose text is mostly ASCII: main read it as a text log"""


@pytest.fixture()
def here(tmp_path, monkeypatch):
    """A working folder holding mymodel/config.json, log.pdf, empty.log and note.txt."""
    (tmp_path / "mymodel").mkdir()
    (tmp_path / "mymodel" / "config.json").write_text(json.dumps(CONFIG))
    (tmp_path / "log.pdf").write_bytes(PDF)
    (tmp_path / "empty.log").write_bytes(b"")
    (tmp_path / "note.txt").write_text("the server was started on Monday\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _unchanged(folder, before):
    assert sorted(p.name for p in folder.rglob("*")) == before  # nothing half-written


# --- a whole number typed in exponent notation ----------------------------------------------------------------------

@pytest.mark.parametrize("argv, digits", [
    (("plan", LLAMA, "--gpu", "H100", "--engine", "vllm", "--max-model-len", "1e6"), "1000000"),
    (("plan", LLAMA, "--gpu", "H100", "--context-length", "1.5e4"), "15000"),
    (("perf", LLAMA, "--gpu", "H100", "--tp", "2", "--batch", "1e2"), "100"),
])
def test_exponent_notation_is_refused_with_the_digits_it_stands_for(capsys, argv, digits):
    """Before: "expected a whole number, got '1e6'" and nothing on how to write it."""
    refused(capsys, *argv, says=(f"got '{argv[-1]}'", f"write it out in digits: {digits}"))


@pytest.mark.parametrize("text", ["1e400", "1.25e0", "1e19"])
def test_no_digits_offered_for_a_fraction_or_a_number_past_int64(capsys, text):
    error = refused(capsys, "plan", LLAMA, "--gpu", "H100", "--context-length", text, says=(f"got '{text}'",))
    assert "write it out" not in error


# --- a PDF passed for a log ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [("explain", "log.pdf"), ("explain", "log.pdf", "--json"),
                                  ("plan", "--from-log", "log.pdf")])
def test_a_pdf_is_named_as_such_not_read_as_a_log(capsys, here, argv):
    """Before: explain said 'none of its 5 lines is a start-up … line', plan --from-log 'neither SGLang nor vLLM
    recognised in the log'; neither said the file is a PDF."""
    code, out, err = cli(capsys, *argv)
    assert code == 2 and "Traceback" not in err
    assert "LOG 'log.pdf' is not a text log: it is a PDF document" in err
    assert "plain text the server wrote" in err
    if "--json" in argv:
        assert json.loads(out)["exit_code"] == 2


# --- plan --from-log on a text that is no engine log -----------------------------------------------------------------

def test_plan_from_log_refuses_a_non_log_with_explains_message(capsys, here):
    """Before: '--from-log note.txt: neither SGLang nor vLLM recognised in the log; give a server log that prints its
    memory lines' (explain gave the full message: what it looked for and where the log is)."""
    error = refused(capsys, "plan", "--from-log", "note.txt", "--gpu", "H100",
                    says=("--from-log 'note.txt' is not an SGLang or vLLM log", "none of its 1 line",
                          "'Load weight end'", "the file its stdout/stderr went to"))
    refused_explain = refused(capsys, "explain", "note.txt")
    assert error.split("is not an SGLang", 1)[1] == refused_explain.split("is not an SGLang", 1)[1]


# --- a config path typed with a slip ---------------------------------------------------------------------------------

@pytest.mark.parametrize("typed, near", [("./mymodel/confg.json", "mymodel/config.json"),
                                         ("mymodel/conifg.json", "mymodel/config.json"), ("./mymdl", "mymodel")])
def test_a_mistyped_config_path_names_the_near_names_in_its_folder(capsys, here, typed, near):
    """Before: 'path mymodel/confg.json: does not exist' and the generic advice only."""
    before = sorted(p.name for p in here.rglob("*"))
    code, out, err = cli(capsys, "plan", typed, "--gpu", "H100")
    assert code == 2 and not out and "Traceback" not in err
    assert f"does not exist; near names there: {near}" in err
    _unchanged(here, before)


@pytest.mark.parametrize("typed", ["acme/NotAModel-7B", "Llama-3.1-8B", "/nonexistent/dir/config.json",
                                   "./nothing-like-it"])
def test_no_near_names_for_an_hf_id_a_catalog_name_or_a_missing_folder(capsys, here, typed):
    code, out, err = cli(capsys, "plan", typed, "--gpu", "H100")
    assert code == 2 and "near names" not in err and "Traceback" not in err


def test_the_draft_path_of_perf_gets_the_near_names_too(capsys, here):
    code, out, err = cli(capsys, "perf", LLAMA, "--gpu", "H100", "--tp", "2", "--speculative-algorithm", "EAGLE",
                         "--speculative-draft-model-path", "./mymodl")
    assert code == 2 and "the draft model" in err and "near names there: mymodel" in err


# --- what already held (guards) ----------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, says", [
    (("plan", "acme/NotAModel-7B", "--gpu", "H100", "--engine", "vllm"),
     ("model 'acme/NotAModel-7B' not found", "hf download acme/NotAModel-7B config.json")),
    (("plan", LLAMA, "--gpu", "H100-SXM-80GB", "--mem-fraction-static", "85"),
     ("got 85.0", "85 looks like a percentage: write 0.85")),
    (("plan", LLAMA, "--gpu", "H100", "--tp", "3"), ("--tp 3 does not divide the 32 attention heads", "1, 2, 4, 8")),
    (("plan", LLAMA, "--gpu-memory", "80"), ("'80' has no unit", "'80GiB' (= 80 × 2^30 bytes)")),
    (("explain", "empty.log"), ("LOG 'empty.log' is empty (0 bytes)",)),
    (("perf", LLAMA, "--gpu", "H100", "--tp", "2", "--speculative-algorithm", "EAGLE3",
      "--speculative-draft-model-path", "/nonexistent/draft"), ("the draft model", "'/nonexistent/draft' not found")),
    (("perf", LLAMA, "--gpu", "H100", "--tp", "3"), ("--tp 3 does not divide",)),
])
def test_the_briefs_mistakes_are_refused_clearly(capsys, here, argv, says):
    before = sorted(p.name for p in here.rglob("*"))
    code, out, err = cli(capsys, *argv)
    assert code == 2 and not out and "Traceback" not in err and "usage:" not in err, (code, out, err)
    for words in says:
        assert words in err, (words, err)
    _unchanged(here, before)


def test_gpu_h100_and_80gb_are_planned_and_say_what_they_were_read_as(capsys):
    """``--gpu H100`` is the catalog's H100-SXM-80GB (the header names it; at tp > 1 a warning names the PCIe board);
    ``--gpu-memory 80GB`` is 80 × 10^9 B with a warning that names 80GiB and the card."""
    code, out, err = cli(capsys, "plan", LLAMA, "--gpu", "H100", "--tp", "2", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["gpu"]["name"] == "H100-SXM-80GB"
    assert any("--gpu 'H100' is read as H100-SXM-80GB (NVLink)" in w for w in doc["warnings"])
    code, out, err = cli(capsys, "plan", LLAMA, "--gpu-memory", "80GB", "--json")
    assert code == 0 and any("if you meant GiB, write --gpu-memory 80GiB" in w for w in json.loads(out)["warnings"])
