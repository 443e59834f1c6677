"""What a cold torch.compile leaves in vLLM's "consumed" memory, log by log (helper cold18, session 18).

vLLM 0.27.0-0.33.x print ``Actual usage is X GiB for consumed memory (weights + non-torch), Y GiB for peak
activation`` (``v1/worker/gpu_worker.py compile_or_warm_up_model``); X is ``utils/mem_utils.py memory_profiling``'s
``total_consumed`` = the init snapshot's free memory − the free memory after ``profile_run`` and ``empty_cache()``
(0.27.0, 0.28.0, 0.29.0, 0.33.0 wheels; 0.19.0-0.26.x print "X GiB for weight, …, Z GiB for non-torch memory" from
``non_torch_increase`` = device use − torch's reserved memory, so a reserved block torch cannot release is not in it).
X − "Model loading took" is everything the profile window left resident beyond the load delta: torch allocations
that outlive the profile, reserved segments ``empty_cache()`` cannot release, and non-torch memory (cuBLAS, NCCL,
kernel modules).  This script sets it beside what tpkit plans for the same case (the ledger's "use" lines other than
the CUDA context, the weights, the KV cache, the CUDA graphs, the activation peak and lines kept in the load delta).

    PYTHONPATH=src python scripts/cold_compile_evidence.py            # the table (docs/accuracy.md §5, cold18)
    PYTHONPATH=src python scripts/cold_compile_evidence.py --what-if  # + every case that a V2 pinned-scratch term moves

``--what-if`` re-scores the vLLM validation set with the pinned scratch block (``profile_lines.pinned_scratch_lines``,
0.27.0-0.30.x, V1 runner only) charged on Model Runner V2 cold starts too: the rule this evidence would suggest,
shown here to be refuted by the set (docs/accuracy.md, "Cold compile non-torch memory").
"""
from __future__ import annotations

import contextlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GIB = 2**30
CONSUMED = re.compile(r"Actual usage is ([0-9.]+) GiB for consumed memory \(weights \+ non-torch\),\s*"
                      r"([0-9.]+) GiB for peak activation")
LOADED = re.compile(r"Model loading took ([0-9.]+) ?GiB")
SKIPPED = ("CUDA context", "model weights", "KV cache")


@dataclass(frozen=True, kw_only=True, slots=True)
class Row:
    """One start-up: the printed split beside tpkit's plan of its validation case."""

    log: str
    case: str
    version: str
    gpu: str
    runner: str
    compile_state: str
    beyond_load_printed_gib: float
    beyond_load_planned_gib: float
    pinned_planned_gib: float
    peak_printed_gib: float
    peak_planned_gib: float
    vocab_hidden_gib: float

    @property
    def gap_gib(self) -> float:
        """printed − planned memory beyond the load delta"""
        return self.beyond_load_printed_gib - self.beyond_load_planned_gib


def _harness():
    for path in (ROOT, ROOT / "tests" / "validation"):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))
    from tests.validation import harness

    return harness


def _compile_state(text: str, case: dict) -> str:
    """What the log prints about the compile cache, then the case's ``compile_cache`` input."""
    if case["flags"].get("enforce_eager"):
        printed = "eager"
    elif "Directly load the compiled graph" in text:
        printed = "warm (printed load)"
    elif re.search(r"Compiling a graph for (dynamic shape|compile range)", text):
        printed = "cold (printed compile)"
    else:
        printed = "not printed"
    return f"{printed}; input {case['flags'].get('compile_cache') or 'cold'}"


def planned(case: dict) -> tuple[str, float, float, float, float]:
    """(runner, beyond-load bytes, pinned-scratch bytes, activation peak bytes, vocab × hidden bytes) planned."""
    harness = _harness()
    from tpkit.engines.registry import get_engine

    model, gpu, parallel, options = harness.inputs(case)
    machine = harness.machine_of(case, model, gpu, parallel, options)
    others, growth = harness.others_of(case, gpu, parallel)
    kw = {"machine": others or machine}
    if growth:
        kw["others_growth"] = growth
    result = get_engine("vllm").plan(model, gpu, parallel, options, **kw)
    runner, beyond, pinned, peak = "V1", 0, 0, 0
    for line in result.ledger.items:
        if line.item.startswith("Model Runner V2"):
            runner = "V2"
        if line.kind != "use" or line.item in SKIPPED or line.item.startswith("CUDA graphs"):
            continue
        if line.item.startswith("activation peak"):
            peak = int(line.bytes)
            continue
        if "in the load delta" in line.source:
            continue
        if line.item.startswith("cold-compile scratch block"):
            pinned = int(line.bytes)
        beyond += int(line.bytes)
    vocab_hidden = model.vocab_size * model.hidden_size * 2 // parallel.tp
    return runner, beyond, pinned, peak, vocab_hidden


def rows() -> list[Row]:
    """Every corpus log with the 0.27+ "consumed" split, a load delta and a validation case."""
    harness = _harness()
    cases = {c["id"]: c for c in harness.load_cases("vllm")}
    corpus = json.loads((ROOT / "tests/logs/data/cases.json").read_text())
    out = []
    for entry in sorted(corpus, key=lambda e: e["id"]):
        path = ROOT / "tests/logs/data" / entry.get("file", "")
        if entry.get("engine") != "vllm" or not path.is_file():
            continue
        text = path.read_text(errors="replace")
        split, loaded = CONSUMED.search(text), LOADED.search(text)
        refs = [r for r in re.findall(r"\bvp_\d{3}\b", entry.get("source", "")) if r in cases]
        if not (split and loaded and refs):
            continue
        case = cases[refs[0]]
        runner, beyond, pinned, peak, vocab_hidden = planned(case)
        out.append(Row(log=entry["id"], case=case["id"], version=case["tpkit_engine_version"], gpu=str(case["gpu"]),
                       runner=runner, compile_state=_compile_state(text, case),
                       beyond_load_printed_gib=float(split.group(1)) - float(loaded.group(1)),
                       beyond_load_planned_gib=beyond / GIB, pinned_planned_gib=pinned / GIB,
                       peak_printed_gib=float(split.group(2)), peak_planned_gib=peak / GIB,
                       vocab_hidden_gib=vocab_hidden / GIB))
    return out


@contextlib.contextmanager
def v2_pinned_scratch():
    """Charge the pinned scratch block on Model Runner V2 cold starts too (the refuted what-if)."""
    import tpkit.engines.vllm.policy as policy
    import tpkit.engines.vllm.profile_lines as lines
    from tpkit.engines.vllm.profile import vocab_hidden_scratch
    from tpkit.memory.ledger import LineItem

    shipped = policy.pinned_scratch_lines

    def with_v2(model, parallel, options, r, rules):
        got = shipped(model, parallel, options, r, rules)
        if got or not (rules.pinned_profile_scratch and lines._cold_compile(model, options, r, rules)
                       and lines._v2_runner(model, options, r, rules)):
            return got
        nbytes, how = vocab_hidden_scratch(model, parallel.tp, r.act_bytes)
        return (LineItem(item="what-if: V2 pinned scratch", bytes=nbytes, source=how),)

    policy.pinned_scratch_lines = with_v2
    try:
        yield
    finally:
        policy.pinned_scratch_lines = shipped


def what_if() -> tuple[float, float, list[tuple[str, float, float]]]:
    """(p90 before, p90 after, [(case, error before, error after)] for every case that moves)."""
    harness = _harness()
    before = {r.case["id"]: r for r in harness.score("vllm")[0]}
    with v2_pinned_scratch():
        after = {r.case["id"]: r for r in harness.score("vllm")[0]}

    def p90(scored):
        return harness.percentile(sorted(abs(r.error) for r in scored if r.headline), 0.9)

    moved = [(k, before[k].error, after[k].error) for k in sorted(before)
             if k in after and after[k].predicted != before[k].predicted]
    return p90(before.values()), p90(after.values()), moved


def main(argv: list[str]) -> int:
    print("| log / case | vLLM | GPU | runner | compile cache | beyond load, printed | planned (pinned) | gap | "
          "peak printed / planned | vocab × hidden / tp |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows():
        pinned = f" ({r.pinned_planned_gib:.2f})" if r.pinned_planned_gib else ""
        print(f"| {r.log} / {r.case} | {r.version} | {r.gpu} | {r.runner} | {r.compile_state} | "
              f"{r.beyond_load_printed_gib:.2f} | {r.beyond_load_planned_gib:.2f}{pinned} | {r.gap_gib:+.2f} | "
              f"{r.peak_printed_gib:.2f} / {r.peak_planned_gib:.2f} | {r.vocab_hidden_gib:.2f} |")
    if "--what-if" in argv:
        p_before, p_after, moved = what_if()
        print(f"\nwhat-if V2 pinned scratch: vLLM p90 {p_before:.2%} -> {p_after:.2%}; {len(moved)} cases move")
        for case, e_before, e_after in moved:
            print(f"  {case}: {e_before:+.1%} -> {e_after:+.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
