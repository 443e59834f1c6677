"""The import set of each command, pinned (issues 12 and 13: cold start of `tpkit plan`, `perf`, `explain`).

Each command runs once through ``tpkit.cli.main`` in a fresh interpreter; what it imported is checked: the
modules of other commands and of the engine not asked for stay out, no heavy standard module that tpkit can do
without comes in (typing, statistics, shutil for perf and explain, importlib.metadata), nothing optional (rich,
torch, huggingface_hub), and the number of tpkit modules stays under a ceiling (the count on 2026-12-04 plus 3), so
a new import on a command's path is a decision made here, not a silent cost.  The ceilings are for a cold start
cost: a module that must come in raises them with the reason written beside.  Helper draft13 (2026-12-05): the perf
ceilings +1 for ``tpkit.perf.draft_terms`` (plan.py is at its line limit; the draft terms got their own module).
Helper aw13 (2026-12-05): the perf ceilings +1 for ``tpkit.perf.fa2_verify`` (vLLM FA2's verify without KV split; its
own module for the same reason).  Helper q14 (2026-12-05): +1 where ``models.config`` comes in, for
``tpkit.models.classic`` (GPT-2 / OPT spellings, split from config.py at its line limit), and +1 on SGLang explain for
``tpkit.explain.sgbudget`` (the KV budget re-plan, split from sgdiagnose.py at its line limit).
Lead (2026-12-05, session 16): the vLLM plan ceiling +1 for ``tpkit.engines.vllm.lora_lines`` (the LoRA lines, split
from load_lines.py at its line limit).
Helper tri18 (2026-12-05): the perf ceilings +1 for ``tpkit.perf.triton_verify`` (vLLM Triton attention's verify without
KV split and the drafter's own backend; its own module, as fa2_verify).
Helper vx25 (2026-12-06): the vLLM plan ceiling +1 for ``tpkit.engines.vllm.graph_fa3`` (FlashAttention 3's split-KV
accumulators in the first FULL capture), imported only for FLASH_ATTN on SM 9.x (graphs.py is at its line limit).
Helper tidy29 (2026-12-06, session 29): modules at the 500-line limit split along a concept, each half on the same
path: plan sglang +3 (engines.sglang.load, .swa_cap, .budget), explain sglang +1 (the budget and the SWA cap come in
with the plan's rules, one of them already under the ceiling), plan vllm +1 (engines.vllm.graph_evidence, the rows
behind graphs.py's constants, whose count the formula prints), perf +1 (perf.kernels: the Kernel / Shard / Batch
records, split from perf/work.py), every command +1 (cli.streams: the standard streams every command sets up,
split from cli/__init__.py), plan vllm +1 more (engines.vllm.fi_allreduce: the FlashInfer all-reduce fusion workspace,
split from engines/vllm/baseline.py; every plan asks whether it applies), plan vllm +1 more (engines.vllm.sampler: the
profile run's sampler phase, split from engines/vllm/profile.py).
Helper tidy30 (2026-12-07, session 30): every command +1 (models.config_file: reading a config.json file, split from
models/config.py at 492 lines; ``models.load`` reads every model through it); plan vllm +1 more
(engines.vllm.plan_notes: the plan's warnings, split from engines/vllm/policy.py at 490 lines); plan vllm and
explain vllm +1 (engines.vllm.batch_defaults: vLLM's default batch sizes, split from engines/vllm/inputs.py at 480).
Helper ex34 (2026-12-07, session 34): every explain command +1 (logs.recovered: wrapped frame lines, a re-logged
exception and a linker's error, read back; logs/scan.py is at its 500-line limit and logs/failures.py at 495).
Helper fx35c (2026-12-07, session 35): plan vllm and explain vllm +1 (engines.mamba2_state: vLLM's Mamba-2 state sizes
and SSM dtype rule, moved out of engines/vllm/layer_bytes.py so that `tpkit perf` prices the same state without the
vLLM package; perf imports it only for a model with linear-attention layers, so its ceilings stay).
"""

import contextlib
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
KIMI_LOG = "tests/logs/data/synthetic/kimi_k25_8x_rtx_pro_6000_sglang.log"
VLLM_LOG = "tests/logs/data/vllm/vl_067.log"
KIMI = ["moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8"]

NEVER = ("torch", "rich", "huggingface_hub", "importlib.metadata", "typing", "statistics", "threading",
         "tpkit.runtime", "tpkit.comm.backends", "tpkit.comm.allreduce", "tpkit.cli.probe", "tpkit.cli.bench")
"""imported by no plan / perf / explain command below"""

SHARED = ("tpkit.engines.vllm", "tpkit.engines.vllm.backend_choice")
"""the one vLLM rule `tpkit perf` shares with the planner (vLLM's automatic attention backend; helper be11,
2026-12-05): a pure module whose package ``__init__`` is lazy, so PERF_NOT's ``tpkit.engines.vllm`` lets these in"""

PERF_NOT = ("tpkit.logs", "tpkit.explain", "tpkit.cli.explain", "tpkit.cli.plan", "tpkit.memory", "tpkit.startup",
            "tpkit.engines.vllm", "tpkit.cli.engine_flags", "tpkit.engines.registry", "shutil")
EXPLAIN_NOT = ("tpkit.perf", "tpkit.cli.perf", "tpkit.cli.plan", "tpkit.cli.engine_flags", "tpkit.memory.band",
               "shutil")
PLAN_NOT = ("tpkit.perf", "tpkit.cli.perf", "tpkit.logs", "tpkit.explain", "tpkit.cli.explain")

CASES = {
    # name: (argv, prefixes it must not import, ceiling on tpkit modules (count on 2026-12-04 + 3))
    "plan sglang text": (["plan", *KIMI, "--mem-fraction-static", "0.85"], PLAN_NOT + ("tpkit.engines.vllm.policy",),
                         98),  # +1 engines.sglang.mla_copies (gx32: SGLang's MLA w_kc / w_vc copies)
    "plan vllm json": (["plan", "meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm", "--gpu", "H100", "--json"],
                       PLAN_NOT + ("tpkit.engines.sglang.policy", "tpkit.cli.render"), 117),  # +1 engines.mamba2_state (fx35c), +1 engines.vllm.maxlen (tidy27: the max model length vLLM accepts), +1 backend_choice (be11), +1 q14, +1 v0chunk, +1 lora_lines, +1 option_checks, +1 graph_fa3 (vx25: FLASH_ATTN on Hopper only), +1 cli.pasted (ux25)
    "perf sglang spec": (["perf", *KIMI, "--speculative-algorithm", "EAGLE3"], PERF_NOT + ("tpkit.perf.runtime_vllm",),
                         70),
    "perf sglang json": (["perf", *KIMI, "--json"], PERF_NOT + ("tpkit.perf.runtime_vllm",), 70),
    "perf vllm": (["perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--engine", "vllm"], PERF_NOT, 67),
    # perf +1: tpkit.perf.flashinfer_spec, FlashInfer's speculative PIECEWISE window, shared by runtime_vllm and
    # spec_sync without an import cycle (lead, session 32)
    # 56: + tpkit.engines(.vllm) packages and backend_choice, the shared backend choice (SHARED; be11)
    # perf +1: tpkit.perf.draft_terms, the draft step's measured terms, imported by perf.spec (helper draft13)
    # perf +1: tpkit.perf.fa2_verify, the verify's attention mode, imported by perf.runtime and perf.work (aw13)
    # perf +1: tpkit.perf.triton_verify, Triton attention's verify and the drafter's backend, imported by perf.work (tri18)
    # perf +1: tpkit.perf.linear_state, a linear-attention layer's state traffic (a verify keeps one per token),
    # imported by perf.work (gdn23; work.py is at its 500-line limit)
    # perf +1, explain vllm +1: tpkit.models.classic; explain sglang +2: models.classic and explain.sgbudget (q14)
    # plan vllm +1, explain vllm +1: tpkit.engines.vllm.v0chunk, V0's chunked-prefill default per release (lead, session 14)
    # plan vllm +1: tpkit.engines.vllm.option_checks, VllmOptions' validators (split from options.py at its line limit,
    # opt21, session 21); imported when options are built (not by the flag table), so the other cases stay as they were
    # every case +1: tpkit.cli.pasted, a pasted launch line and its engine variables read before argparse (ux25); perf
    # +1 more: tpkit.perf.context, split from perf/plan.py at its 500-line limit (ux25)
    # explain +1: tpkit.logs.phases, split out of logs/failures.py to keep it under 500 lines (ex28)
    # explain +2: tpkit.logs.prefilter (the scan's trigger prefilter) and tpkit.logs.command (the launch-command parse),
    # split out of logs/scan.py and logs/settings.py at their 500-line limit (lead, session 29)
    # explain +1: tpkit.logs.releases, the release-range arithmetic split out of logs/engine.py at its 500-line limit
    # (ex30); +1 tpkit.logs.recovered (ex34)
    # explain sglang +1: tpkit.explain.sgload, the load anchors split out of explain/sglang.py at its 500-line limit
    # (tidy34)
    # explain +1: tpkit.logs.oommessage, torch's OOM message split out of logs/failures.py at its 500-line limit (lead,
    # session 34)
    # explain sglang +2: tpkit.explain.hostgpus and tpkit.logs.hostcount (fx35b: the host's GPU count, read for every
    # SGLang log too)
    # explain (all three) +1: tpkit.logs.ascendmem (fx38: vLLM-Ascend's 'Available memory: N, total memory: M' line,
    # a rule of logs.rules read for every log)
    "explain sglang text": (["explain", KIMI_LOG], EXPLAIN_NOT + ("tpkit.explain.vllm", "tpkit.engines.vllm"), 108),
    "explain sglang json": (["explain", KIMI_LOG, "--json"], EXPLAIN_NOT + ("tpkit.explain.vllm", "tpkit.engines.vllm"),
                            107),
    # explain vllm: +1 engines.vllm.maxlen (tidy27); +1 explain.voom (cr31: vdiagnose.py split at 500 lines);
    # +1 explain.vhostgpus (cr35b: the host's GPU count, read for every vLLM log); +1 logs.hostcount (fx35b: the rule
    # moved to explain.hostgpus, the context imports it there, vhostgpus only where a diagnosis checks fixes)
    # explain vllm +1: tpkit.engines.mamba2_state (fx35c: vLLM's Mamba-2 state rule, shared with perf)
    "explain vllm": (["explain", VLLM_LOG], EXPLAIN_NOT + ("tpkit.explain.sglang", "tpkit.engines.sglang.pool"), 105),
}


def _imported(argv: list[str]) -> list[str]:
    code = (
        "import contextlib, io, json, sys\n"
        "from tpkit.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main({argv!r})\n"
        "assert rc == 0, rc\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    env.pop("COLUMNS", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("name", CASES)
def test_each_command_imports_only_what_it_needs(name):
    argv, forbidden, ceiling = CASES[name]
    mods = _imported(argv)
    bad = [m for m in mods if m.startswith(NEVER + forbidden) and not (name.startswith("perf") and m in SHARED)]
    assert bad == [], f"tpkit {' '.join(argv)} imported {bad}"
    ours = [m for m in mods if m == "tpkit" or m.startswith("tpkit.")]
    assert len(ours) <= ceiling, f"{len(ours)} tpkit modules > {ceiling}: {ours}"
    assert "tpkit.records" in ours  # the dataclasses come from the deferring decorator


def test_every_dataclass_goes_through_tpkit_records():
    """``tpkit.records.dataclass`` compiles the generated methods on first use; a module that takes
    ``dataclasses.dataclass`` itself brings back the cost at import (``docs/benchmarks.md`` §1.1)."""
    direct = []
    for path in sorted((SRC / "tpkit").rglob("*.py")):
        if path.name == "records.py":
            continue
        text = path.read_text()
        if re.search(r"^\s*from dataclasses import [^\n]*\bdataclass\b(?!es)", text, re.M) \
                or "dataclasses.dataclass(" in text or "@dataclasses.dataclass" in text:
            direct.append(str(path.relative_to(SRC)))
    assert direct == []


def test_the_local_median_is_statistics_median():
    from tpkit.engines.vllm.graph_evidence import GRAPH_EVIDENCE, median

    samples = [[0.78], [0.36, 0.43], [3.0, 1.0, 2.0], [0.27, 0.61, 1.21, 0.65], [0.1] * 5 + [0.3] * 4,
               [s.printed_gib for s in GRAPH_EVIDENCE]]
    for values in samples:
        assert median(values) == statistics.median(values)
        assert type(median(values)) is type(statistics.median(values))


@pytest.mark.parametrize("columns", [None, "", "abc", "0", "-5", "37", "200"])
def test_terminal_columns_is_shutils(columns, monkeypatch):
    from tpkit.cli import terminal_columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns


def test_help_wraps_at_the_width_argparse_picks(monkeypatch):
    """The help page at COLUMNS=61 is what argparse's own formatter (which asks shutil) writes."""
    import argparse

    from tpkit.cli import TpkitArgumentParser, build_parser

    monkeypatch.setenv("COLUMNS", "61")
    perf = build_parser(["perf", "--help"])._subparsers._group_actions[0].choices["perf"]

    def page() -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            perf.print_help()
        return out.getvalue()

    ours = page()
    with monkeypatch.context() as m:
        m.setattr(TpkitArgumentParser, "_get_formatter", argparse.ArgumentParser._get_formatter)
        standard = page()
    monkeypatch.setenv("COLUMNS", "200")
    assert ours == standard and page() != ours  # the same page, and the width is what moves it
