"""vLLM pipeline stages on unlike GPUs (``tpkit plan --pp N --gpu A,B``): one plan per stage, combined as the
engine combines its workers (imported only for such a plan: tests/cli/test_cold_imports.py).

Read in the wheels (``v1/core/kv_cache_utils.py`` ``get_kv_cache_configs``, 0.13.0, 0.14.0, 0.15.1, 0.16.0,
0.17.0): every worker profiles its own GPU (``gpu_worker.py`` ``determine_available_memory``: its own weights and
activation peak, its own budget) and sizes blocks for its own stage's layers
(``get_kv_cache_config_from_groups(…, available_memory_one_worker)``); then every worker's ``num_blocks`` becomes
the smallest over the workers (``min_num_blocks``), so the capacity line the engine prints ("GPU KV cache size",
``_report_kv_cache_config``, logged once) is the fewest blocks over the stages.

The one-request check differs by release (``ALL_LAYER_CHECK``):
- 0.13.0 and before: ``check_enough_kv_cache_memory`` per worker, its own layers against its own memory;
- 0.14.0 – 0.16.x: ``_check_enough_kv_cache_memory(min(available_memory), …global_kv_cache_groups…)``: the
  smallest worker's available memory against the KV of **all** layers (the merged specs of every stage);
- 0.17.0 on: each worker's projected groups against its own memory (``_project_kv_cache_groups_to_worker``).
"""

from __future__ import annotations

from dataclasses import replace

from tpkit.memory.result import PlanResult, Verdict
from tpkit.units import Bytes, format_bytes

__all__ = ["ALL_LAYER_CHECK", "all_layer_check_applies", "plan_vllm_stages"]

ALL_LAYER_CHECK = ((0, 14, 0), (0, 17, 0))
"""[first, next) vLLM releases whose one-request check compares the smallest worker's available KV memory with the
KV cache of all layers (``get_kv_cache_configs``: 0.13.0 checks each worker alone, 0.14.0 / 0.15.1 / 0.16.0 take
``min(available_memory)`` against ``global_kv_cache_groups``, 0.17.0 checks each worker's projected groups)"""


def all_layer_check_applies(version: str) -> bool:
    """Whether the vLLM release ``version`` names checks all layers against the smallest worker (``ALL_LAYER_CHECK``);
    an alias ("current", "0.11", "v0") or an unreadable version: no."""
    from tpkit.engines.vllm.versions import parse_version
    from tpkit.errors import PlanInputError

    text = str(version).strip().partition(":")[0]
    try:
        release = parse_version(text)
    except PlanInputError:
        return False
    return text.count(".") >= 1 and ALL_LAYER_CHECK[0] <= release < ALL_LAYER_CHECK[1]


_TOO_LONG = "To serve at least one request"
"""the start of vLLM's one-request error (``engines.vllm.logs.too_long_message``)"""


def _kv_short(plan: PlanResult) -> bool:
    """The stage's plan stops at its own one-request check (not at load or start-up)."""
    return any(_TOO_LONG in line for line in plan.engine_log)


def _stage_need(model, gpu, parallel, options) -> tuple[callable, int]:
    """``need(n)``: KV bytes one request of n tokens needs on this stage's own layers; and the max_model_len."""
    from tpkit.engines.vllm.capacity import needed_bytes
    from tpkit.engines.vllm.inputs import resolve_inputs
    from tpkit.engines.vllm.layout import resolve_parallel
    from tpkit.engines.vllm.policy import _drafter, _layout
    from tpkit.engines.vllm.versions import resolve_rules

    rules = resolve_rules(options.engine_version)
    par = resolve_parallel(parallel, options, model, machine=False)
    r = resolve_inputs(model, gpu, options, rules, par)
    layout = _layout(model, par, r, rules, _drafter(model, par, options, r, rules))
    in_flight = r.max_num_batched_tokens * r.concurrent_batches
    return (lambda n: needed_bytes(layout, n, in_flight, rules, r.dcp)), r.max_model_len


def _pinned(plans, gpus, stages, model, options, pinned, *, machine, extra_uses, others_growth):
    """The stage with the least available KV memory re-planned so that it has the ``pinned`` (bytes, utilization,
    the estimate the error printed or None) the log printed (helper cr17, 2026-12-05): vLLM ≤ 0.16's one-request error prints ``min(available_memory)``
    over the workers (``get_kv_cache_configs``), the one measured number of such a log.  As for one stage
    (``cli.fromlog_plan.non_kv_from_log``), the planner's activation peak, its one estimated term, is moved by the
    difference, and a utilization other than the log's moves the target by Δu × that GPU's total.  (plans, the
    note), or (plans, None) where the peak would go negative."""
    from tpkit.engines.vllm.policy import plan_vllm
    from tpkit.memory.band import measured_terms

    if any(not p.verdict.fits and not _kv_short(p) for p in plans):
        return plans, None  # a stage that does not start has no available memory to pin
    avail = [p.extra.get("available_kv_bytes", 0) for p in plans]
    s = min(range(len(plans)), key=lambda i: (avail[i], i))
    line = next((x for x in plans[s].ledger.items if x.item.startswith("activation peak (profile run")), None)
    printed, u_log, est = (tuple(pinned) + (None,))[:3]
    printed = _narrowed(printed, est, gpus, stages, model, options)
    u_plan = float(plans[s].extra.get("gpu_memory_utilization") or u_log)
    target = int(printed.bytes) + round(gpus[s].total_bytes.bytes * (u_plan - u_log))
    if line is None:
        return plans, None
    peak = abs(line.bytes.bytes) + int(avail[s]) - target
    if peak < 0:
        return plans, None
    with measured_terms({"activation_peak": Bytes(peak)}, source="the smallest worker's available KV memory the "
                                                                 "log printed, less the other lines"):
        plans = list(plans)
        plans[s] = plan_vllm(model, gpus[s], stages[s], options, machine=machine, extra_uses=extra_uses,
                             others_growth=others_growth)
    return plans, (f"PP stage {s} on {gpus[s].name} (the least available KV memory planned) pinned to the "
                   f"{format_bytes(printed)} the log printed at utilization {u_log:g} (the minimum over the workers): "
                   f"its activation peak is charged {format_bytes(Bytes(peak))}")


def _narrowed(printed: Bytes, est: int | None, gpus, stages, model, options) -> Bytes:
    """The printed minimum available memory (two decimals of GiB) narrowed by vLLM's estimate of the longest request
    in the same error, where the release checks all layers (``ALL_LAYER_CHECK``): the estimate is the largest L whose
    all-layer need fits (``kv_cache_utils.estimate_max_model_len``), so the memory lies in [need(L), need(L + 1)); the
    middle of that interval where it meets the print's rounding (± 0.005 GiB), else the print."""
    from tpkit.engines.vllm.versions import resolve_rules

    if est is None or not (resolve_rules(options.engine_version).engine == "V1"
                           and all_layer_check_applies(options.engine_version)):
        return printed
    needs = [_stage_need(model, g, st, options)[0] for g, st in zip(gpus, stages)]
    lo = sum(int(need(est).bytes) for need in needs)
    hi = sum(int(need(est + 1).bytes) for need in needs)
    half = 2**30 // 200
    if hi <= lo or hi <= printed.bytes - half or lo > printed.bytes + half:
        return printed
    return Bytes((max(lo, printed.bytes - half) + min(hi, printed.bytes + half)) // 2)


def plan_vllm_stages(model, gpus, parallel, options, *, machine=None, extra_uses=(),
                     others_growth: Bytes = Bytes(0), pinned: tuple | None = None) -> PlanResult:
    """One vLLM plan per PP stage, stage s on ``gpus[s]`` (``ParallelSpec.stage``), combined as the engine does:
    the fewest KV blocks over the stages is what every worker keeps and what the engine prints; a stage that does not
    start stops the run; in ``ALL_LAYER_CHECK`` releases the smallest stage's available KV memory must also hold one
    request of max_model_len over all layers.  The result is the limiting stage's plan, with a note per stage."""
    from tpkit.engines.vllm.policy import plan_vllm
    from tpkit.engines.vllm.versions import resolve_rules

    if len(gpus) != parallel.pp:
        from tpkit.errors import PlanInputError

        raise PlanInputError(f"{len(gpus)} GPU(s) for --pp {parallel.pp}: name one GPU per pipeline stage")
    stages = [replace(parallel, stage=s) for s in range(parallel.pp)]
    plans = [plan_vllm(model, g, st, options, machine=machine, extra_uses=extra_uses, others_growth=others_growth)
             for g, st in zip(gpus, stages)]
    pin_note = None
    if pinned is not None:
        plans, pin_note = _pinned(plans, gpus, stages, model, options, pinned, machine=machine,
                                  extra_uses=extra_uses, others_growth=others_growth)
    blocks = [p.extra.get("kv_blocks", 0) for p in plans]
    avail = [Bytes(p.extra.get("available_kv_bytes", 0)) for p in plans]
    rules = resolve_rules(options.engine_version)
    whole_check = rules.engine == "V1" and all_layer_check_applies(options.engine_version)
    # 0.14.0 – 0.16.x run no per-worker one-request check: a stage short of its own request is judged by the
    # all-layer check below (stricter: all layers against the smallest worker)
    failed = [s for s, p in enumerate(plans) if not p.verdict.fits and not (whole_check and _kv_short(p))]
    limiting = failed[0] if failed else min(range(len(plans)), key=lambda s: (blocks[s], s))
    notes = _stage_notes(plans, gpus, blocks, avail, limiting) + ((pin_note,) if pin_note else ())
    result = plans[limiting]
    verdict, log = result.verdict, result.engine_log
    if whole_check:
        log = tuple(line for line in log if _TOO_LONG not in line)
    if whole_check and not failed and not verdict.fits:  # its own-layer check is not the release's: judged below
        verdict = Verdict(fits=True, knob=None, message=(
            f"fits: every stage loads and profiles, and one request of {result.context_length:,} tokens over all "
            f"{model.num_layers} layers fits the smallest stage's KV cache memory (vLLM 0.14.0 – 0.16.x check)"))
    if not failed and whole_check:
        short = _all_layers_short(model, gpus, stages, options, min(avail), result, rules)
        if short is not None:
            verdict, error, note = short
            log, notes = log + (error,), notes + (note,)
    return replace(result, parallel=parallel, verdict=verdict, engine_log=log,
                   warnings=tuple(result.warnings) + notes,
                   gpu={**result.gpu, "stages": [g.name for g in gpus]})


def _stage_notes(plans, gpus, blocks: list[int], avail: list[Bytes], limiting: int) -> tuple[str, ...]:
    """The plan's notes on the stages (text): each stage's available KV memory and blocks of its own layers, then
    which stage's fewest blocks every worker keeps (``kv_cache_utils.get_kv_cache_configs`` ``min_num_blocks``)."""
    notes = tuple(f"PP stage {s} on {gpus[s].name}: available KV cache memory {format_bytes(avail[s])}, "
                  f"{blocks[s]:,} blocks of its own layers" + ("" if plans[s].verdict.fits else "; does not start")
                  for s in range(len(plans)))
    return notes + (f"vLLM keeps the fewest blocks over the workers ({blocks[limiting]:,}, stage {limiting} on "
                    f"{gpus[limiting].name}: kv_cache_utils.get_kv_cache_configs min_num_blocks); the capacity "
                    "shown is that stage's",)


def _all_layers_short(model, gpus, stages, options, smallest: Bytes, result: PlanResult,
                      rules) -> tuple[Verdict, str, str] | None:
    """The ``ALL_LAYER_CHECK`` releases' one-request check (0.14.0 – 0.16.x ``get_kv_cache_configs``): one request of
    max_model_len over all layers (the stages' own needs summed, Bytes) against the ``smallest`` worker's available
    KV memory (Bytes).  None where it fits; else (the failing verdict, the ValueError log line, a note)."""
    from tpkit.engines.vllm.capacity import longest_fitting
    from tpkit.engines.vllm.logs import too_long_message

    needs = [_stage_need(model, g, st, options) for g, st in zip(gpus, stages)]
    length = needs[0][1]
    whole = sum((need(length) for need, _ in needs), Bytes(0))
    if whole <= smallest:
        return None
    est = longest_fitting(lambda n: sum((need(n) for need, _ in needs), Bytes(0)) <= smallest, length)
    line = too_long_message(max_model_len=length, needed=whole, available=smallest, estimated=est,
                            tokens=result.kv_tokens, rules=rules)
    verdict = Verdict(fits=False, knob="--max-model-len", message=(
        f"vLLM {options.engine_version} checks the smallest worker's available KV cache memory "
        f"({format_bytes(smallest)}) against one request of {length:,} tokens over all "
        f"{model.num_layers} layers ({format_bytes(whole)}; kv_cache_utils.get_kv_cache_configs, 0.14.0 – "
        f"0.16.x), although each stage holds only its own layers. Use --max-model-len {est} or lower, or "
        "vLLM ≥ 0.17.0 (each worker is checked against its own layers)."))
    return verdict, f"ValueError: {line}", (
        f"vLLM 0.14.0 – 0.16.x: the one-request check takes all layers against the smallest worker: "
        f"{format_bytes(whole)} needed, {format_bytes(smallest)} available")
