"""What the session-23 new-user walk-through met (helper ux23, 2026-12-06): a fresh clone, README.md top to bottom,
then 128 sessions of a user who serves models (docs/accuracy.md §8, helper ux23's subsection lists them).

Failed or read badly before their fix (each test says "Before:"):

- ``tpkit explain`` on a traceback whose frame prints ``from vllm.entrypoints.cli.main import main`` (a server that
  never started: ``ModuleNotFoundError``): the import line was read as a launch command, model ``import``, tp 1.
- ``tpkit explain a.log b.log`` (``logs/*.log``), ``docker logs vllm 2>&1 | tpkit explain`` (no ``-``) and
  ``tpkit perf … --batch 1,8,32`` / ``--batch 1 8 32``: argparse's words, with no way to what was meant.
- ``--link PCIe``, ``--link NVLink``, ``--allreduce-backend NCCL``, ``--compile-cache WARM``: refused, "the engine
  spells it in lower case", though these are tpkit's own flags (no engine reads them).
- ``tpkit plan MODEL --gpu H100 --gpu-memory-utilization 0.95`` (a pasted vLLM line without ``--engine``): told to
  use ``--mem-fraction-static``, not that ``--engine vllm`` plans the vLLM server it came from.
- an EAGLE / EAGLE-3 draft that is a whole model (the target's checkpoint, a 72B config): planned and sped up as
  given (34 GiB of draft weights, 0.09×) without a word.
- README: ``tpkit perf``'s default vLLM release read 0.33.0; perf runs 0.34.0.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from clirun import SYNTHETIC_KIMI, cli, refused

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "tests" / "validation" / "configs"
VLLM_OK = ROOT / "tests" / "logs" / "data" / "vllm" / "vl_128.log"
"""vLLM 0.22.1, Qwen3-30B-A3B on one H100 (starts)"""
WHOLE_72B = CONFIGS / "Qwen--Qwen2.5-72B-Instruct-AWQ.json"
"""an 80-layer Qwen2ForCausalLM config: a whole model, not an EAGLE head"""


# --- explain: an import line in a traceback is no launch command -----------------------------------------------------

def test_an_import_line_in_a_traceback_is_not_read_as_the_launch_command(capsys, tmp_path):
    """Before: model 'import', run tp=1 (``from vllm.entrypoints.cli.main import main`` taken for ``vllm.entrypoints…
    MODEL``)."""
    log = tmp_path / "noimport.log"
    log.write_text("Traceback (most recent call last):\n"
                   '  File "/usr/local/bin/vllm", line 5, in <module>\n'
                   "    from vllm.entrypoints.cli.main import main\n"
                   "ModuleNotFoundError: No module named 'vllm'\n")
    code, out, err = cli(capsys, "explain", str(log), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["model"]["name"] is None, doc["model"]
    assert doc["diagnosis"]["status"] == "failed" and "ModuleNotFoundError" in doc["diagnosis"]["cause"]
    assert not any(s.get("name") == "tp" for s in doc["run"]) if isinstance(doc["run"], list) else \
        "tp" not in (doc["run"] or {})
    from tpkit.logs.command import is_command

    assert not is_command("    from vllm.entrypoints.cli.main import main")
    assert not is_command("import sglang.launch_server")
    assert is_command("python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B")
    assert is_command("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2")


# --- what argparse said about positional words -----------------------------------------------------------------------

def test_several_logs_are_refused_with_a_loop(capsys):
    """Before: 'unexpected argument(s) b.log; `tpkit explain --help` shows what it takes'."""
    line = refused(capsys, "explain", str(VLLM_OK), str(SYNTHETIC_KIMI),
                   says=("reads one log at a time", "got 2 files", "run it once per file", "for f in *.log"))
    assert str(SYNTHETIC_KIMI) in line
    refused(capsys, "explain", str(VLLM_OK), "not_a_file", says=("unexpected argument(s) not_a_file",))


def test_a_missing_log_says_how_to_pipe_one(capsys):
    """Before: 'the following arguments are required: LOG; …' for ``docker logs vllm 2>&1 | tpkit explain``."""
    refused(capsys, "explain", says=("required: LOG", "tpkit explain server.log",
                                     "a piped log needs - for standard input", "| tpkit explain -"))
    code, out, err = cli(capsys, "explain", "--json")
    assert code == 2 and "| tpkit explain -)" in json.loads(out)["error"]["message"]


@pytest.mark.parametrize("argv", [("--batch", "1,8,32"), ("--batch", "1 8 32"), ("--batch", "[1, 8, 32]"),
                                  ("--batch", "1", "8", "32")])
def test_a_batch_list_says_the_table_sweeps_it(capsys, argv):
    """Before: "expected a whole number, got '1,8,32'" / "unexpected argument(s) 8 32"."""
    refused(capsys, "perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", *argv,
            says=("--batch takes one batch size", "already sweeps 1, 2, 4, … 256", "e.g. --batch 1", "by_batch"))


def test_a_number_with_a_thousands_separator_is_still_one_batch(capsys):
    """``1,024`` is one number written with a separator (the session-20 hint), not a list."""
    refused(capsys, "perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--batch", "1,024",
            says=("write it without the thousands separator: 1024",))
    code, out, _ = cli(capsys, "perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--batch", "8", "--json")
    assert code == 0 and json.loads(out)["batch"] == 8


# --- tpkit's own words in any case ----------------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [("--link", "PCIe"), ("--link", "NVLink"), ("--allreduce-backend", "NCCL"),
                                  ("--impl", "SGLang")])
def test_perf_takes_its_own_words_in_any_case(capsys, argv):
    """Before: "invalid choice: 'PCIe' … (the engine spells it in lower case)": --link is tpkit's, not an engine's."""
    code, out, err = cli(capsys, "perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "2", *argv,
                         "--json")
    doc = json.loads(out)
    assert code == 0, err
    key = {"--link": "link", "--allreduce-backend": "allreduce", "--impl": "impl"}[argv[0]]
    value = doc[key]["backend"] if key == "allreduce" else doc[key]
    assert str(value).lower().startswith(argv[1].lower()) or argv[1].lower() in json.dumps(doc[key]).lower()


def test_plan_takes_its_own_words_in_any_case_and_keeps_the_engines_strict(capsys):
    """Before: --link NVLink, --compile-cache WARM, --vllm-entrypoint LLM refused; an engine's own choice (SGLang's
    --speculative-algorithm) keeps the engine's spelling, as the engine reads it."""
    code, out, err = cli(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--tp", "2", "--engine", "vllm",
                         "--link", "NVLink", "--compile-cache", "WARM", "--vllm-entrypoint", "LLM", "--json")
    doc = json.loads(out)
    assert code == 0, err
    text = json.dumps(doc, ensure_ascii=False)
    assert doc["vllm"]["vllm_entrypoint"] == "llm" and "--compile-cache warm" in text and "from --link nvlink" in text
    refused(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", "vllm", "--compile-cache", "lukewarm",
            says=("invalid choice: 'lukewarm'",))
    refused(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--speculative-algorithm", "eagle3",
            says=("did you mean 'EAGLE3'?",))


# --- a pasted vLLM line without --engine -----------------------------------------------------------------------------

@pytest.mark.parametrize("flag,value,own", [("--gpu-memory-utilization", "0.95", "--mem-fraction-static"),
                                            ("--max-model-len", "8192", "--context-length")])
def test_a_vllm_flag_under_the_default_engine_names_engine_vllm(capsys, flag, value, own):
    """Before: '… for --engine sglang use --mem-fraction-static' only."""
    refused(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "H100", flag, value,
            says=(f"for --engine sglang use {own}", "or, to plan a vLLM server, add --engine vllm"))
    line = refused(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", "sglang", flag, value)
    assert "add --engine vllm" not in line  # the user chose sglang: the SGLang flag is the answer


# --- an EAGLE draft that is a whole model ----------------------------------------------------------------------------

@pytest.fixture()
def whole_model(tmp_path) -> Path:
    folder = tmp_path / "big"
    folder.mkdir()
    (folder / "config.json").write_bytes(WHOLE_72B.read_bytes())
    return folder


def _warnings(capsys, *argv) -> list[str]:
    code, out, err = cli(capsys, "plan", *argv, "--json")
    assert code in (0, 3), err
    return json.loads(out)["warnings"]


def test_plan_says_when_an_eagle3_draft_is_a_whole_model(capsys, whole_model):
    """Before: 'draft weights (EAGLE3) 34.24 GiB' and no warning."""
    sg = _warnings(capsys, "Qwen/Qwen3-8B", "--gpu", "H100", "--speculative-algorithm", "EAGLE3",
                   "--speculative-draft-model-path", str(whole_model))
    [note] = [w for w in sg if "is a whole model" in w]
    assert note.startswith(f"--speculative-draft-model-path {whole_model} is a whole model (Qwen2ForCausalLM, 80 "
                           "decoder layers), not an EAGLE3 head") and "--speculative-algorithm STANDALONE" in note
    config = json.dumps({"method": "eagle3", "model": str(whole_model), "num_speculative_tokens": 3})
    vl = _warnings(capsys, "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", "vllm", "--speculative-config", config)
    [note] = [w for w in vl if "is a whole model" in w]
    assert note.startswith(f"--speculative-config's \"model\" {whole_model}") and '"method": "draft_model"' in note


def test_a_real_eagle3_head_and_a_standalone_draft_give_no_note(capsys):
    head = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"
    assert not [w for w in _warnings(capsys, "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100",
                                     "--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", head)
                if "whole model" in w]
    code, out, _ = cli(capsys, "perf", "Qwen/Qwen3-8B", "--gpu", "H100", "--speculative-algorithm", "STANDALONE",
                       "--speculative-draft-model-path", "Qwen/Qwen3-0.6B")
    assert code == 0 and "whole model" not in out


def test_perf_notes_a_whole_model_eagle_draft_under_its_header(capsys, whole_model):
    """Before: 0.09× and a break-even accept length of 28.73, the draft named nowhere."""
    code, out, err = cli(capsys, "perf", "Qwen/Qwen3-8B", "--gpu", "H100", "--speculative-algorithm", "EAGLE3",
                         "--speculative-draft-model-path", str(whole_model))
    assert code == 0, err
    assert out.splitlines()[2].startswith(f"note: --speculative-draft-model-path {whole_model} is a whole model")


# --- README ------------------------------------------------------------------------------------------------------------

def test_readme_names_perfs_default_releases():
    """Before: "the default is the newest version tpkit read (SGLang 0.5.23, vLLM 0.33.0)", while perf ran 0.34.0."""
    from tpkit.perf.runtime import NEWEST

    text = " ".join((ROOT / "README.md").read_text().split())
    m = re.search(r"the default is the newest version tpkit read \(SGLang ([\d.]+), vLLM ([\d.]+)\)", text)
    assert m, "README's perf section no longer names the default releases"
    assert (m.group(1), m.group(2)) == tuple(".".join(map(str, NEWEST[e])) for e in ("sglang", "vllm"))


def test_every_flag_of_every_command_has_help():
    """Before: ``tpkit perf --help`` listed --speculative-num-steps S, --speculative-eagle-topk K and
    --speculative-num-draft-tokens D with no word on what they count or their defaults."""
    import argparse

    from tpkit.cli import build_parser

    bare = []

    def walk(parser, name):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, sp in action.choices.items():
                    walk(sp, f"{name} {sub}")
            elif not action.help:
                bare.append(f"{name} {'/'.join(action.option_strings) or action.dest}")

    walk(build_parser(None), "tpkit")
    assert not bare, bare


# --- a fraction where a size goes, a size where a fraction goes --------------------------------------------------------

@pytest.mark.parametrize("value,frac", [("0.9", "0.9"), ("90%", "0.9"), (".85", "0.85")])
def test_a_fraction_given_as_gpu_memory_names_the_fraction_flags(capsys, value, frac):
    """Before: "'0.9' has no unit; say which you mean, e.g. '0.9GiB' …" (a 0.9 GiB card) and "cannot read '90%' as a
    memory size", for a user who meant the share of the card the engine may use."""
    for command in (("plan", "Qwen/Qwen3-8B"), ("explain", str(VLLM_OK))):
        refused(capsys, *command, "--gpu-memory", value,
                says=(f"reads as a fraction ({frac})", "the card's whole memory", "e.g. 80GiB",
                      "--mem-fraction-static (SGLang) or --gpu-memory-utilization (vLLM)"))
    refused(capsys, "plan", "Qwen/Qwen3-8B", "--gpu-memory", "2", says=("'2' has no unit",))  # 2 GiB or 2 GB


@pytest.mark.parametrize("flag,engine", [("--mem-fraction-static", "sglang"), ("--gpu-memory-utilization", "vllm")])
def test_a_size_given_as_a_fraction_says_where_sizes_go(capsys, flag, engine):
    """Before: "expected a number in (0, 1], got '80GB'" with no word on where 80GB goes."""
    refused(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", engine, flag, "80GB",
            says=("not a size", "--gpu-memory 80GB", "--kv-cache-memory-bytes"))
    refused(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", engine, flag, "0.9GiB",
            says=("a fraction takes no unit: write 0.9",))


# --- an HF cache pinned to a commit ---------------------------------------------------------------------------------

def test_a_cache_without_refs_main_is_read_alike_with_or_without_huggingface_hub(capsys, tmp_path, monkeypatch):
    """Before, where huggingface_hub is installed (CI's hf extra): "no cached config.json" for a repo downloaded at a
    pinned commit (``hf download ORG/NAME --revision <sha>`` writes no refs/main), which a plain install found (its
    one snapshot with a config.json)."""
    from tpkit.models.hf_cache import find_cached_config

    snap = tmp_path / "hub" / "models--acme--Pinned-7B" / "snapshots" / "0123abcd"
    snap.mkdir(parents=True)
    (snap / "config.json").write_bytes(WHOLE_72B.read_bytes())
    found, note = find_cached_config("acme/Pinned-7B", str(tmp_path / "hub"))
    assert found == snap / "config.json", note
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    code, out, err = cli(capsys, "plan", "acme/Pinned-7B", "--gpu", "H100", "--tp", "2", "--json")
    assert code == 0 and str(snap / "config.json") in json.dumps(json.loads(out)["model"]), err
    (snap / "config.json").unlink()
    found, note = find_cached_config("acme/Pinned-7B", str(tmp_path / "hub"))
    assert found is None and note.endswith("(no snapshot holds one)")


# --- engine spellings tpkit knows the meaning of -------------------------------------------------------------------

def test_mtp_under_sglang_plan_names_nextn(capsys):
    """Before: "invalid choice: 'MTP' (choose from 'EAGLE', 'EAGLE3', 'NEXTN', 'STANDALONE')", while tpkit perf reads
    MTP as NEXTN."""
    refused(capsys, "plan", "deepseek-ai/DeepSeek-V3", "--gpu", "H200", "--tp", "8", "--speculative-algorithm", "MTP",
            says=("MTP is NEXTN in SGLang's spelling: --speculative-algorithm NEXTN",))


@pytest.mark.parametrize("argv,says", [
    (("--mem-fraction-static", "0.85", "--context-length", "32768"),
     ("--mem-fraction-static, --context-length: read by tpkit plan", "which sizes no KV pool",
      "--context-length is the server's longest request, while perf's --context is the tokens each decoded")),
    (("--engine", "vllm", "--gpu-memory-utilization", "0.9"),
     ("--gpu-memory-utilization: read by tpkit plan", "leave it out here")),
])
def test_perf_says_where_a_pasted_servers_memory_flags_go(capsys, argv, says):
    """Before: "tpkit perf has no flag --mem-fraction-static, --context-length (did you mean --accept-length or
    --context?)"."""
    line = refused(capsys, "perf", "Qwen/Qwen3-8B", "--gpu", "H100", *argv, says=says)
    assert "--accept-length" not in line
    refused(capsys, "perf", "Qwen/Qwen3-8B", "--gpu", "H100", "--foo", "1", "--mem-fraction-static", "0.8",
            says=("tpkit perf has no flag --foo",))  # a flag neither command has: the usual answer
