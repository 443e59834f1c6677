"""``tpkit plan --from-log``: the plan with the terms the log measured (``plan_from_log``: ``cli.fromlog``'s
``measured_from_log``, the extensible-pool and re-layout paths of ``cli.fromlog_extensible`` / ``cli.fromlog_replan``),
and on a vLLM log the non-KV memory it measured, kept where the flags change nothing vLLM's profile run sees
(``non_kv_from_log``, with ``profile_neutral_flags`` for ``--enforce-eager``), with the same arithmetic pinning the
tightest pipeline stage on its own GPU (``stage_pin_from_log``).  Split from ``cli.fromlog`` at 471 lines (helper
tidy31, session 31): the code moved unchanged but for ``non_kv_from_log``'s two named steps; the two helpers the tests
call, ``_budget_only_change`` and ``_same_profile``, are public now, the latter renamed so that it is not the name of
the flag set it returns."""

from __future__ import annotations

from tpkit.cli.fromlog import FILLED, measured_from_log
from tpkit.units import Bytes, gib_text

__all__ = ["plan_from_log", "BUDGET_ONLY_FLAGS", "budget_only_change", "profile_neutral_flags", "non_kv_from_log",
           "stage_pin_from_log"]


BUDGET_ONLY_FLAGS = frozenset({"gpu_memory_utilization", "max_model_len", "kv_cache_dtype", "block_size"})
"""vLLM flags that do not enter the profile run (it runs before the KV cache is sized: ``gpu_worker.py``
``determine_available_memory``, V1): a plan that changes only these keeps the log's non-KV memory.
``max_model_len`` only where the profile batch it resolves is the log's: V0 without chunked prefill sizes it
``max(max_model_len, 2048)`` and V1 from 0.11.1 caps a default one at ``max_num_seqs × max_model_len`` (read in the
0.11.1 wheel's ``engine/arg_utils.py``, absent from 0.11.0's), so there ``cli.fromlog_replan.reprofiles`` re-plans
it first"""

_CONTEXT_FLAGS = frozenset({"command", "func", "model", "from_log", "json", "engine", "engine_version", "gpu",
                            "gpu_memory", "num_gpus", "link", "no_p2p", "p2p", "nnodes", "list_gpus", "list_models"})
"""what a --from-log plan is given that says which machine, model and release the log ran, not a change of the run"""


def budget_only_change(args, ctx, same_profile: frozenset = frozenset()) -> bool:
    """The plan runs at the log's layout (tp, pp, dp, ep) and changes only what the profile run does not see
    (``BUDGET_ONLY_FLAGS``, ``same_profile``: what ``profile_neutral_flags`` returns; ``_CONTEXT_FLAGS`` say where
    the log ran)."""
    for name in FILLED:
        if name in args.user_given and int(getattr(args, name)) != int(ctx.get(name, 1) or 1):
            return False
    return not (set(args.user_given) - _CONTEXT_FLAGS - BUDGET_ONLY_FLAGS - set(FILLED)
                - set(same_profile))


def profile_neutral_flags(args, log, result, plan_at) -> frozenset:
    """{"enforce_eager"} where it is the one flag beyond ``BUDGET_ONLY_FLAGS`` and the planner's non-KV memory is the
    same with it: the log's measured one is kept, explain's rule (rt22, vl_996).  vLLM 0.9.1 ``gpu_worker``
    ``determine_available_memory``: requested − the profile's non-KV memory, no graph term; ``enforce_eager``
    switches torch.compile, custom ops, capture sizes (``config.py``), priced by the planner where they move a line."""
    if ("enforce_eager" not in args.user_given or log.context.get("enforce_eager")
            or set(args.user_given) - _CONTEXT_FLAGS - BUDGET_ONLY_FLAGS - set(FILLED) != {"enforce_eager"}):
        return frozenset()
    other = plan_at(enforce_eager=False).extra or {}

    def non_kv(x: dict) -> int:  # requested − available − the applied graph estimate
        return int(x["requested_bytes"]) - int(x["available_kv_bytes"]) - int(x.get("cuda_graph_bytes") or 0)
    extra = result.extra or {}
    if not all("available_kv_bytes" in x and "requested_bytes" in x for x in (extra, other)):
        return frozenset()
    return frozenset({"enforce_eager"}) if abs(non_kv(extra) - non_kv(other)) < 2**20 else frozenset()


def non_kv_from_log(args, log, result, weights: dict,
                    same_profile: frozenset = frozenset()) -> tuple[object, str] | None:
    """(the activation-peak term, the note) that makes a vLLM --from-log plan charge the non-KV memory the log
    measured, or None where it does not apply.

    vLLM sizes the KV cache as requested − non-KV memory (weights + non-torch + the profile's activation peak; −
    the applied CUDA-graph estimate: ``engines.vllm.budget.compute_budget``), and the log prints what is left:
    'Available KV cache memory'.  Where the plan runs the log's model at the log's layout and quantization (its
    measured weights kept), the log prints no peak activation of its own, and the flags change only what the profile
    run does not see (``BUDGET_ONLY_FLAGS``), its non-KV memory is the log's: requested(log's utilization) −
    available − the log's applied graph estimate.  The planner's activation peak is moved by the difference (it is
    the one estimated term of the sum), so the plan's
    available KV is the log's plus requested(the plan's utilization) − requested(the log's) − the change of the
    applied graph estimate: the arithmetic ``tpkit explain`` re-plans its fixes with (``explain.vdiagnose``).  Without
    it a plan of the log's own settings missed the log's printed capacity (vl_455: 960 tokens planned, 7,664
    printed).  ``same_profile``: the flags beyond ``BUDGET_ONLY_FLAGS`` that leave the profile as it was
    (``profile_neutral_flags``), passed in, not read from ``args`` (helper rt23)."""
    from tpkit.memory.band import measured_term

    a = log.anchored
    failure = log.parsed.primary_failure
    no_blocks = _no_blocks(a, failure)
    if args.engine != "vllm" or log.context.engine != "vllm" or a is None or "weights" not in weights and not no_blocks:
        return None
    if measured_term("activation_peak") is not None or getattr(a, "activation", None) is not None:
        return None  # the log prints its peak activation: that term is measured, not moved
    available, pinned = _log_available(a, failure, no_blocks)
    extra = result.extra or {}
    available = available or _pool_in_tokens(args, a, extra)
    if available is None or "available_kv_bytes" not in extra or extra.get("override"):
        return None
    if not budget_only_change(args, log.context, same_profile):
        return None
    line = next((x for x in result.ledger.items if x.item.startswith("activation peak (profile run")), None)
    if line is None:
        return None
    u_plan = float(extra["gpu_memory_utilization"])
    u_log = float(a.utilization) if getattr(a, "utilization", None) else u_plan
    requested = int(extra["requested_bytes"])
    use = getattr(a, "graph_use", None)
    graphs_log = use.subtracted.mid.bytes if use is not None and use.subtracted is not None else 0
    graphs_plan = int(extra.get("cuda_graph_bytes") or 0)
    target = available.mid.bytes + round(requested * (1 - u_log / u_plan)) - (graphs_plan - graphs_log)
    peak = abs(line.bytes.bytes) + int(extra["available_kv_bytes"]) - target
    if peak < 0:
        return None
    non_kv = round(requested * u_log / u_plan) - available.mid.bytes - graphs_log
    said = _available_said(a, failure, available, pinned, no_blocks)
    note = (f"non-KV memory from the log: {gib_text(Bytes(non_kv))} = requested at utilization {u_log:g} − {said}"
            + (f" − the applied CUDA-graph estimate {gib_text(Bytes(graphs_log))}" if graphs_log else "")
            + f"; the activation peak is charged {gib_text(Bytes(peak))}, the rest of it beside the weights and "
              "the planned lines (the flags change nothing the profile run sees)")
    return Bytes(peak), note


def _no_blocks(a, failure) -> bool:
    """vLLM 0.8.5's no-blocks error (``check_enough_kv_cache_memory``) and nothing else printed: available 0 at the
    log's utilization (helper rt22)."""
    return (a is not None and getattr(a, "available", None) is None and getattr(a, "weights", None) is None
            and failure is not None and failure.kind in ("no_kv_memory", "kv_budget_non_positive"))


def _log_available(a, failure, no_blocks: bool) -> tuple[object, object]:
    """(the available KV memory the log gives, None where none; the part of it vLLM's printed estimate of the longest
    request pins, None where none): the estimate narrows the two-decimal print, as explain's fixes take it; the
    no-blocks error gives 0."""
    from tpkit.explain.interval import Iv
    from tpkit.explain.vtokens import estimate_pins_available

    pinned = estimate_pins_available(a, failure)
    return pinned or getattr(a, "available", None) or (Iv(Bytes(0), Bytes(0)) if no_blocks else None), pinned


def _pool_in_tokens(args, a, extra: dict):
    """The pool a log prints only in tokens ('GPU KV cache size: N tokens', vLLM 0.8.x V1, no 'Available KV cache
    memory'), as memory: whole blocks of the plan's own KV page at the log's layout, [N, N + one block) tokens
    (``explain.vrequest.pool_from_tokens``, helper cr35c); None where the log prints the memory, no tokens, or the
    flags change the page (``--kv-cache-dtype``, ``--block-size``)."""
    from tpkit.explain.interval import Iv

    tokens, per_block, block = getattr(a, "tokens_printed", None), extra.get("bytes_per_block"), extra.get("block_size")
    if getattr(a, "available", None) is not None or not tokens or not per_block or not block:
        return None
    if {"kv_cache_dtype", "block_size"} & set(getattr(args, "user_given", ())):
        return None
    low = int(tokens) // int(block) * int(per_block)
    return Iv(Bytes(low), Bytes(low + int(per_block) - 1))


def _available_said(a, failure, available, pinned, no_blocks: bool) -> str:
    """Where ``non_kv_from_log``'s available KV memory comes from, in words."""
    row = next((r for r in a.rows if r.item == "available KV cache memory" and r.line_no), None)
    est = failure.count("estimated_max_len") if failure is not None else None
    kv = failure.count("kv_tokens") if failure is not None else None
    if no_blocks:
        return f"0 available (vLLM's no-blocks error, line {failure.line_no}: at most 0, taken at the bound)"
    if getattr(a, "available", None) is not None:
        return (f"'Available KV cache memory' {available.text()} ({f'log line {row.line_no}' if row else 'the log'})"
                + (f", narrowed by the log's 'estimated maximum model length is {est.text}' (vLLM's exact available "
                   "memory holds that many blocks)" if pinned is not None and est is not None else ""))
    if getattr(a, "tokens_printed", None) and (failure is None or failure.count("kv_tokens") is None):
        return f"the KV pool the log prints as {a.tokens_printed:,} tokens, in whole blocks of the plan's page: " \
               f"{available.text()}"
    # V0: the capacity the error prints pins the available memory to whole blocks
    return (f"the available KV memory {available.text()} that the log's KV capacity of {kv.text} tokens pins "
            f"(line {failure.line_no})" if kv is not None else f"the available KV memory {available.text()}")


def stage_pin_from_log(args, log, weights: dict) -> tuple | None:
    """(the available KV memory the log printed, the log's utilization, its estimate) for a vLLM plan of each
    pipeline stage on its own GPU read from the log (``args.log_stage_gpus``; not GPUs given with --gpu), where the
    flags change only what the profile run does not see (``BUDGET_ONLY_FLAGS``) and the layout is the log's:
    ``engines.vllm.stages`` pins the stage with the least available memory to it (vLLM ≤ 0.16's one-request error
    prints the minimum over the workers; helper cr17, 2026-12-05: vl_048).  The same pin as ``tpkit explain``'s
    fixes of such a log (``explain.vstages``).  None otherwise, and where the log measured its weights or peak
    (``non_kv_from_log``'s terms)."""
    if (not getattr(args, "stage_gpus", None) or not getattr(args, "log_stage_gpus", None) or args.engine != "vllm"
            or log.context.engine != "vllm"):
        return None  # GPUs the user names are not the ones the printed memory was measured on
    from tpkit.explain.vstages import log_pin

    if not budget_only_change(args, log.context) or "weights" in weights:
        return None
    return log_pin(log.parsed, log.anchored)


def plan_from_log(args, log, engine, model, gpu, parallel, options, machine, extra_uses) -> tuple[object, tuple]:
    """(the plan with the log's measured terms, the notes on them): ``measured_from_log``'s terms and weights; for
    vLLM, where ``non_kv_from_log`` applies, planned again with the log's non-KV memory."""
    from dataclasses import replace

    from tpkit.memory.band import measured_terms, with_band

    terms, weights, weights_where, notes = measured_from_log(args, log, gpu, parallel, model)
    args.stage_pin = stage_pin_from_log(args, log, weights)
    from tpkit.cli.fromlog_replan import PROFILE_FLAGS, layout_changed, profile_oom_of, relayout_plan, reprofiles

    if not layout_changed(args, log, parallel, model):
        from tpkit.cli.fromlog_extensible import extensible_from_log

        done = extensible_from_log(args, log, engine, model, gpu, parallel, options, machine, extra_uses, terms,
                                   weights, weights_where, PROFILE_FLAGS)
        if done is not None:
            return done[0], tuple(notes) + (done[1],)
    if layout_changed(args, log, parallel, model):
        from tpkit.cli.fromlog_extensible import extensible_relayout

        done = extensible_relayout(args, log, engine, model, gpu, parallel, options, machine, extra_uses,
                                   PROFILE_FLAGS)  # a vLLM ≥ 0.34 extensible log on its GPU (helper g34)
        if done is not None:
            return done[0], tuple(getattr(args, "log_notes", ())) + (done[1],)
    if (layout_changed(args, log, parallel, model) or profile_oom_of(log) is not None  # rt23: its profile's demand
            or reprofiles(args, log, engine, model, gpu, parallel, options, machine)):
        return relayout_plan(args, log, engine, model, gpu, parallel, options, machine, extra_uses)

    def planned(calibrated: dict, opts=options):
        with measured_terms(terms, source=f"measured in {args.from_log}"), \
                measured_terms(weights, source=f"{weights_where} of {args.from_log}"), \
                measured_terms(calibrated, source=f"the non-KV memory {args.from_log} measured, less the other "
                                                  "lines"):
            return with_band(engine.plan, model, gpu, parallel, opts, machine=machine, extra_uses=extra_uses)

    result = planned({})
    same = profile_neutral_flags(args, log, result, lambda **o: planned({}, replace(options, **o)))
    non_kv = non_kv_from_log(args, log, result, weights, same_profile=same)
    if non_kv is not None:  # the log's non-KV memory, where the flags change nothing the profile run sees
        result = planned({"activation_peak": non_kv[0]})
        notes += (non_kv[1],)
    return result, tuple(notes)
