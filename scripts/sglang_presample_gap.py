"""Free memory an SGLang start lost between its pre-load sample and 'Load weight begin', per CI image (helper amdcap26).

SGLang 0.4.6-0.5.8 (read 0.5.6, 0.5.6.post2, 0.5.7 ``model_executor/model_runner.py``) samples the free memory
three times around ``init_torch_distributed``: ``before`` at its start, ``local`` (and ``min_per_gpu_memory``, the
MIN over ranks that sizes the KV budget as ``pre``) at its end, and prints 'Init torch distributed ends. mem
usage=' before - local; ``load_model`` then prints 'Load weight begin. avail mem=' = local - X, X being what the
steps between took (``ModelRunner.initialize``: the expert-location metadata, ``Sampler()``).  So, per rank,

    C = 'Load weight begin' + 'Init torch distributed ends. mem usage' = before - X

``before`` (device total - context) is not printed, so X is not measurable from one log; starts on one kind of CI
node share it (the image tag's machine label, mi30x / mi35x: the starts without metadata print the same C on every
image of the set, 191.47 GiB on mi30x from the rocm630 image of 2025-12-13 to the rocm700 one of 2025-12-18).  The
expert-location metadata touches the GPU only for the classes that define ``get_model_config_for_expert_location``
(``eplb/expert_location.py ModelConfigForExpertLocation.from_model_config``, 0.5.6-0.5.7; ``EXPERT_LOCATION_CLASSES``,
read in the 0.5.6.post2 wheel's ``models/``); for the others (Grok-1, Grok-2, dense models) X has nothing to come
from, so the largest C among them is the node's reference and ``ref - C`` the X of a metadata class's start.  With
``--windows`` the X the capacity check's miss would need is printed beside it: the rebuilt KV budget less the
printed pool, over (1 - f) (``explain.sgbudget``: the budget is free after the weights - (1 - f) x pre).  Figures:
docs/accuracy.md §7.2 amdcap26.

    PYTHONPATH=src python scripts/sglang_presample_gap.py [--windows]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "logs" / "data"
MIB_PER_GIB = 1024
PRINT_STEP_GIB = 0.01
"""two printed numbers of 0.01 GB (GiB) steps: C carries ± 0.01"""

EXPERT_LOCATION_CLASSES = frozenset({
    "BailingMoEForCausalLM", "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
    "DotsVLMForCausalLM", "Glm4MoeForCausalLM", "GptOssForCausalLM", "LLaDA2MoeModelLM", "LongcatFlashForCausalLM",
    "MiniMaxM2ForCausalLM", "Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM", "Qwen3NextForCausalLM",
    "Qwen3VLMoeForConditionalGeneration", "Step3VLForConditionalGeneration"})
"""SGLang 0.5.6.post2 model classes with ``get_model_config_for_expert_location`` (DeepseekV3 / V32 inherit it)"""

_INIT = re.compile(r"TP(\d+)\] Init torch distributed ends\. mem usage=([\d.]+) GB")
_BEGIN = re.compile(r"TP(\d+)\] Load weight begin\. avail mem=([\d.]+) GB")
_CLASS = re.compile(r"Load weight end\. type=(\w+)")
_IMAGE = re.compile(r"rocm/sgl-dev:(\S+)")
_NODE = re.compile(r"-(mi\d+x)-")


def image_starts(models: list[dict]) -> list[dict]:
    """The SGLang logs of tests/logs/data/models.json whose source names a rocm/sgl-dev image tag and that print
    both lines on every rank: id, image, class, C on the rank with the smallest 'Load weight begin' (SGLang's and
    explain's pre), GiB as printed.  Images tagged 0.5.6 or later only: the releases whose ``ModelRunner`` and
    expert-location code were read (helper gs30 added 0.5.3.post1 / 0.5.4.post1 CI logs, sg_721-sg_740, left out)."""
    rows = []
    for entry in models:
        tag = _IMAGE.search(json.dumps((entry.get("flags_evidence") or {}).get("engine_version", "")))
        if entry.get("engine") != "sglang" or not tag:
            continue
        text = (DATA / entry["file"]).read_text(encoding="utf-8", errors="replace")
        init = {int(r): float(v) for r, v in _INIT.findall(text)}
        begin = {int(r): float(v) for r, v in _BEGIN.findall(text)}
        kind = _CLASS.search(text)
        if not init or not kind or set(init) != set(begin):
            continue
        rank = min(begin, key=begin.get)
        image = tag.group(1).rstrip('"')
        if tuple(int(n) for n in re.findall(r"\d+", image)[:3]) < (0, 5, 6):
            continue  # images tagged before 0.5.6 (gs30's sg_721-sg_740): not the releases whose runner was read
        node = _NODE.search(image)
        rows.append({"id": entry["id"], "image": image, "node": node.group(1) if node else image, "class": kind.group(1),
                     "metadata": kind.group(1) in EXPERT_LOCATION_CLASSES, "C": round(begin[rank] + init[rank], 2)})
    return rows


def with_reference(rows: list[dict]) -> list[dict]:
    """Each row with its node's reference (the largest C of a start without expert-location metadata on the same
    machine label) and X = reference - C in MiB (low, high: ± ``PRINT_STEP_GIB``); None where there is no such start."""
    ref: dict[str, float] = {}
    for r in rows:
        if not r["metadata"]:
            ref[r["node"]] = max(ref.get(r["node"], 0.0), r["C"])
    for r in rows:
        top = ref.get(r["node"])
        r["reference"] = top
        r["x_mib"] = None if top is None else (
            round(max(0.0, top - r["C"] - PRINT_STEP_GIB) * MIB_PER_GIB), round((top - r["C"] + PRINT_STEP_GIB) * MIB_PER_GIB))
    return rows


def needed_x(case_id: str, models: dict[str, dict]) -> tuple[float, float] | None:
    """(low, high) MiB that SGLang's pre would have to exceed 'Load weight begin' by for the printed pool to lie in
    the range the capacity check rebuilds (the stripped log, the source's flags)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import explain_capacity_check as check
    from tpkit.explain import explain_log

    entry = models[case_id]
    raw = (DATA / entry["file"]).read_bytes()
    printed = explain_log(raw).kv_printed
    flags = check.cli_flags(check.source_flags(entry))
    model = check.model_flag(entry)
    if model:
        flags["model"] = model
    a = explain_log(check.strip_capacity(raw), flags=flags).anchored
    if printed is None or a is None or a.rest is None or not a.cell_bytes or a.fraction is None:
        return None
    mib = 2 ** 20
    low = (a.rest.low.bytes - (printed + a.page) * a.cell_bytes) / mib / (1 - a.fraction)
    high = (a.rest.high.bytes - printed * a.cell_bytes) / mib / (1 - a.fraction)
    return low, high


def main(argv: list[str]) -> int:
    entries = json.loads((DATA / "models.json").read_text(encoding="utf-8"))["cases"]
    rows = with_reference(image_starts(entries))
    by_id = {e["id"]: e for e in entries}
    print("| log | image | class | expert-location metadata | C = begin + init (GiB) | node reference | X (MiB) |"
          + (" X the printed pool needs (MiB) |" if "--windows" in argv else ""))
    print("|---|---|---|---|---|---|---|" + ("---|" if "--windows" in argv else ""))
    for r in sorted(rows, key=lambda r: (r["node"], r["image"], r["id"])):
        x = "—" if r["x_mib"] is None else f"{r['x_mib'][0]}–{r['x_mib'][1]}"
        line = (f"| {r['id']} | {r['image']} | {r['class']} | {'yes' if r['metadata'] else 'no'} | {r['C']:.2f} | "
                f"{r['reference'] if r['reference'] is not None else '—'} | {x} |")
        if "--windows" in argv:
            need = needed_x(r["id"], by_id)
            line += " — |" if need is None else f" {need[0]:.0f}–{need[1]:.0f} |"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
