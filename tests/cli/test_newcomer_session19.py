"""What the session-19 newcomer sweep met (helper nc19, 2026-12-05): invariants under tiny inputs, MIG slices that
are not in ``hardware/data/mig.json``, and CLI edges.

Failed before their fix (each test says "Before:"):

- ``tpkit plan MODEL --engine sglang --page-size 32768 --gpu-memory 2GiB`` (opt-125m, gpt2; Phi-3-mini at 20 GiB;
  a sweep of the 139 catalog models × page sizes 1 … 65,536 × 600 MiB … 80 GiB): an AssertionError traceback "plan
  breaks the invariant (tpkit bug): KV pool larger than the GPU".  SGLang sizes the pool's tokens from the budget,
  then allocates them plus one padding page; a page larger than what is left is a CUDA out of memory in the pool's
  buffers, so the pool never exists: the plan now says so ("does not fit", knob ``--page-size``) with no pool.
- ``tpkit explain`` of a log that names a MIG slice of a card the catalog does not hold ('NVIDIA RTX PRO 4500
  Blackwell MIG 1g.16gb'): the name was read as '… MIG 1g' and the diagnosis offered ``--tensor-parallel-size 2``
  (tp > 1 is refused on MIG).  Now the name is read in full, no fix asks for more GPUs, and the notes say to pass
  the slice's CUDA total with ``--gpu-memory``; with it, the GPU is planned as a slice.
- ``tpkit explain LOG --max-model-len <400 digits>``: an OverflowError traceback comparing it with the log's value.
- ``tpkit probe --out <400 characters>``: an OSError traceback (File name too long).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import cli, refused
from tpkit.memory.invariant import problems

ROOT = Path(__file__).resolve().parents[2]
VL_292 = ROOT / "tests" / "logs" / "data" / "vllm" / "vl_292.log"
"""vLLM 0.29.0, Qwen3-8B-FP8 on a MIG 1g.16gb slice of an RTX PRO 4500 Blackwell (akamaslabs/vllm-benchmark study
28): out of memory while loading the weights; the log itself does not name the GPU"""


def _plan_json(capsys, *argv):
    code, out, err = cli(capsys, "plan", *argv, "--json")
    assert code in (0, 3) and "Traceback" not in err, (argv, code, err[-1500:])
    return code, json.loads(out)


# --- 1. SGLang / vLLM page sizes on tiny GPUs --------------------------------------------------------------------

@pytest.mark.parametrize("model,memory,page", [("facebook/opt-125m", "2GiB", 32768),
                                               ("openai-community/gpt2", "4GiB", 65536),
                                               ("microsoft/Phi-3-mini-4k-instruct", "20GiB", 32768)])
def test_a_page_larger_than_the_slack_is_a_plan_that_does_not_fit(capsys, model, memory, page):
    """Before: AssertionError 'plan breaks the invariant (tpkit bug): KV pool larger than the GPU' (raised by a
    re-plan of the verdict's fixes)."""
    code, plan = _plan_json(capsys, model, "--engine", "sglang", "--gpu", "H100", "--gpu-memory", memory,
                            "--page-size", str(page))
    assert code == 3 and not plan["verdict"]["fits"] and problems(plan) == []


def test_the_padding_page_that_does_not_fit_is_named(capsys):
    """opt-125m on 3 GiB, page 32,768 at fraction 0.9: the budget holds one page (32,768 tokens), the padding page
    (1.12 GiB) does not fit beside it."""
    code, plan = _plan_json(capsys, "facebook/opt-125m", "--engine", "sglang", "--gpu", "H100", "--gpu-memory",
                            "3GiB", "--page-size", "32768", "--mem-fraction-static", "0.9")
    verdict = plan["verdict"]
    assert code == 3 and verdict["knob"] == "--page-size" and problems(plan) == []
    assert "one padding page of 32,768 token(s)" in verdict["message"] and "CUDA out of memory" in verdict["message"]
    assert plan["kv_pool"] is None and plan["kv_tokens"] == 0
    pool = [line for line in plan["ledger"] if line["item"] == "KV pool"]
    assert pool[0]["bytes"] == 0 and pool[0]["source"].startswith("not allocated")
    # a page that leaves room for its padding page fits on the same GPU (page 2,048: at 4,096 the slack left after the
    # pool, 32 MiB less since the plan charges DeepGEMM's workspace after the pre sample (helper gx33), is 95 MiB, under
    # the 98 MiB cuBLAS workspace)
    code, plan = _plan_json(capsys, "facebook/opt-125m", "--engine", "sglang", "--gpu", "H100", "--gpu-memory",
                            "3GiB", "--page-size", "2048", "--mem-fraction-static", "0.9")
    assert code == 0 and plan["verdict"]["fits"] and plan["kv_tokens"] % 2048 == 0


MODELS = ("facebook/opt-125m", "meta-llama/Llama-3.1-8B-Instruct", "openai/gpt-oss-20b", "deepseek-ai/DeepSeek-V3",
          "google/gemma-3-27b-it")
"""five cell sizes and layouts: 36 KiB MHA, 128 KiB GQA, SWA hybrid, MLA, Gemma 3's SWA with a vision tower"""


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
@pytest.mark.parametrize("model", MODELS)
def test_every_page_and_memory_gives_a_sound_plan(capsys, engine, model):
    """Each result is a plan that keeps its own invariant (fits or not), never a traceback."""
    flag = "--page-size" if engine == "sglang" else "--block-size"
    for memory in ("600MiB", "1GiB", "2GiB", "3GiB"):
        for page in (16, 4096, 32768, 65536):
            code, plan = _plan_json(capsys, model, "--engine", engine, "--gpu", "H100", "--gpu-memory", memory,
                                    flag, str(page))
            assert problems(plan) == [], (memory, page, problems(plan))


# --- 2. a MIG slice tpkit's MIG table does not hold --------------------------------------------------------------

def _slice_log(tmp_path, name: str, total: str | None = None) -> str:
    lines = VL_292.read_text(encoding="utf-8").splitlines()
    lines.insert(3, f"GPU 0: {name} (UUID: MIG-3f1c2d7e-0000-5000-8000-000000000000)")
    if total:
        lines.append(f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total "
                     f"capacity of {total} of which 1.12 GiB is free.")
    path = tmp_path / "slice.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_a_slice_of_an_unknown_card_is_read_in_full():
    """Before: ('NVIDIA RTX PRO 4500 Blackwell MIG 1g', None)."""
    from tpkit.logs.gpu_names import gpu_in

    assert gpu_in("GPU 0: NVIDIA RTX PRO 4500 Blackwell MIG 1g.16gb (UUID: MIG-1)") == (
        "NVIDIA RTX PRO 4500 Blackwell MIG 1g.16gb", None)
    assert gpu_in("device_name=NVIDIA_RTX_PRO_4500_Blackwell_MIG_1g.16gb,dtype=fp8")[0] == \
        "NVIDIA RTX PRO 4500 Blackwell MIG 1g.16gb"
    assert gpu_in("NVIDIA RTX PRO 4500 Blackwell") == ("NVIDIA RTX PRO 4500 Blackwell", None)


@pytest.mark.parametrize("extra", [(), ("--gpu-memory", "15.66GiB")])
def test_explain_on_an_unknown_slice_offers_no_tp(capsys, tmp_path, extra):
    """Before: 'fits --tensor-parallel-size 2' on a log of an RTX PRO 4500 Blackwell 1g.16gb slice."""
    log = _slice_log(tmp_path, "NVIDIA RTX PRO 4500 Blackwell MIG 1g.16gb")
    assert "--tensor-parallel-size 2" in cli(capsys, "explain", str(VL_292), "--json")[1]  # the card's log: tp ok
    code, out, err = cli(capsys, "explain", log, *extra, "--json")
    assert code == 0, err
    doc = json.loads(out)
    flags = [f["flags"] for f in doc["diagnosis"]["fixes"]]
    assert not any("tensor-parallel" in f or "--tp " in f for f in flags), flags
    said = " ".join(doc["diagnosis"]["findings"]) + " ".join(doc.get("notes", ()))
    assert "NVIDIA RTX PRO 4500 Blackwell MIG 1g.16gb is a MIG slice" in said
    if not extra:
        assert "pass the slice's CUDA total with --gpu-memory" in said and "nvidia-smi mig -lgip" in said


def test_a_known_slice_whose_total_differs_offers_no_tp(capsys, tmp_path):
    """An H100 3g.40gb that prints 39.38 GiB (the table's 39.50): the printed total is used and no tp is offered."""
    log = _slice_log(tmp_path, "NVIDIA H100 80GB HBM3 MIG 3g.40gb", total="39.38 GiB")
    code, out, err = cli(capsys, "explain", log, "--json")
    doc = json.loads(out)
    assert code == 0 and not any("tensor-parallel" in f["flags"] for f in doc["diagnosis"]["fixes"])
    assert any("device total of 39.38 GiB" in n for n in doc.get("notes", ())), doc.get("notes")


def test_tp_refusal_on_an_unknown_slice_names_no_parent():
    from dataclasses import replace

    from tpkit.errors import PlanInputError
    from tpkit.hardware.catalog import custom_gpu, refuse_mig_layout
    from tpkit.units import GiB

    gpu = replace(custom_gpu(GiB(15.66), name="NVIDIA RTX PRO 4500 Blackwell MIG 1g.16gb"), mig_profile="1g.16gb")
    with pytest.raises(PlanInputError) as exc:
        refuse_mig_layout(gpu, tp=2)
    assert "None" not in str(exc.value) and "--gpu <the whole card> --tp 2" in str(exc.value)
    from tpkit.engines.layoutfix import larger_gpus

    assert larger_gpus(gpu) == ()


# --- 3. CLI edges ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("flag", ["--max-model-len", "--max-num-seqs", "--max-num-batched-tokens"])
def test_a_huge_whole_number_flag_on_explain_is_no_traceback(capsys, flag):
    """Before: OverflowError 'int too large to convert to float' (explain.flagmerge._same)."""
    code, out, err = cli(capsys, "explain", str(VL_292), flag, "1" * 400)
    assert code in (0, 2) and "Traceback" not in err and "OverflowError" not in err


def test_probe_out_with_a_name_too_long(capsys):
    """Before: OSError [Errno 36] File name too long, a traceback."""
    line = refused(capsys, "probe", "--out", "m" * 400, says=("--out", "not a usable file name", "400 characters"))
    assert len(line) < 400


@pytest.mark.parametrize("argv", [("perf", "Qwen/Qwen3-8B", "--gpu", "H100", "--batch"),
                                  ("plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--chunked-prefill-size"),
                                  ("plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--cuda-graph-max-bs"),
                                  ("plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", "vllm", "--max-num-seqs")])
@pytest.mark.parametrize("value", ["1" * 400, str(2**64)])
def test_a_whole_number_beyond_64_bits_is_refused_where_it_is_parsed(capsys, argv, value):
    """Before (400 digits): OverflowError 'int too large to convert to float' in the perf model's GEMM flops
    (perf.work) or SGLang's reserve (engines.sglang.defaults.slack_estimate_mib)."""
    line = refused(capsys, *argv, value, says=("a 64-bit integer", argv[-1]))
    assert len(line) < 400


def test_the_largest_64_bit_number_is_still_taken():
    from tpkit.cli.argtypes import INT64_MAX, whole_number

    assert whole_number(str(INT64_MAX)) == INT64_MAX and whole_number(str(-INT64_MAX)) == -INT64_MAX


@pytest.mark.parametrize("argv", [("plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", "vllm", "--max-model-len"),
                                  ("plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", "vllm", "--max-num-seqs")])
@pytest.mark.parametrize("value", ["9" * 400 + "k", "1" * 20 + "k"])
def test_a_suffixed_number_beyond_64_bits_is_refused(capsys, argv, value):
    """Helper rev19 (2026-12-06). Before: '9'*400 + 'k' ended in OverflowError 'cannot convert float infinity to
    integer' (argtypes.whole_number's suffix readings, engine_flags' vLLM 'k' = 1000 for --max-model-len), a
    traceback; and '1'*20 + 'k' was taken as 1.1e22 tokens by --max-model-len, past the 64-bit bound."""
    line = refused(capsys, *argv, value, says=("a 64-bit integer", argv[-1]))
    assert len(line) < 400
