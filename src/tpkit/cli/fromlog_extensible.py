"""``tpkit plan --from-log`` on a vLLM ≥ 0.34 log with the extensible KV cache (helper fl34, 2026-12-05): the pool
re-planned from the log's "Memory after warmup" line (``explain.vextensible``), split from ``cli.fromlog``."""

from __future__ import annotations

from tpkit.units import gib_text

__all__ = ["extensible_from_log", "extensible_relayout", "reserved_from_log", "extensible_default_utilization"]


def extensible_default_utilization(args, e) -> bool:
    """The log's utilisation is vLLM 0.34's extensible default (1.0), which ``--no-enable-extensible-kv-cache``
    does not keep: ``config/cache.py`` / ``resolved_gpu_memory_utilization`` (0.34.0) default to 1.0 only with the
    extensible KV cache on, 0.92 without it.  True where the plan turns it off, the log is an extensible one (it
    prints the warm-up line: ``explain.vextensible``) and its 'non-default args' dict (the parsed settings of that
    source) does not name gpu_memory_utilization (the launch left it at the default)."""
    if not getattr(args, "no_enable_extensible_kv_cache", False) or e.context.engine != "vllm":
        return False
    from tpkit.explain.vextensible import is_extensible_log

    launch = [s for s in e.parsed.settings if s.source == "non_default_args"]
    return bool(launch) and is_extensible_log(e.parsed) and not any(s.name == "mem_fraction" for s in launch)


_DEFAULT = {"kv_cache_dtype": "auto"}
"""a flag's default where ``None`` is not its default spelling (``VllmOptions``)"""


def extensible_from_log(args, log, engine, model, gpu, parallel, options, machine, extra_uses, terms: dict,
                         weights: dict, weights_where: str, profile_flags: tuple) -> tuple[object, str] | None:
    """(the plan, its note) of a vLLM ≥ 0.34 log that prints its extensible KV sizing ("Memory after warmup":
    ``explain.vextensible``), planned at the log's layout with the extensible rule anchored on the printed numbers
    (helper fl34).  vLLM 0.34.0 ``v1/worker/extensible_kv_cache.py measure_kv_cache_bytes`` sizes the pool as
    min(requested − used, free + committed − margin) − kept with used = F − free − committed, i.e.
    min(requested, F − margin) − used − kept, F the snapshot's free memory, margin = max(1 GiB, 0.75 × peak):
    the planner's extensible budget (``engines.vllm.budget.compute_budget``) with F, the non-KV memory used since the
    snapshot and the transient peak taken from the log.  Three measured terms carry them: the CUDA context (the
    plan's snapshot free becomes the log's F), the activation peak (the printed allocated peak, so the margin is the
    log's) and the captured CUDA graphs (the rest of used + kept beside the weights and the planned lines).  A flag
    that moves the profile (``profile_flags``: ``cli.fromlog.PROFILE_FLAGS``) scales the log's peak by the planner's
    ratio (new / the log's value: the planner's own sampler estimate can be far from the print, 4.11 GiB planned
    against 1.21 GiB on the test log, so a difference could go negative) and moves the graphs by the planner's
    difference; utilisation and KV dtype change only requested and the block bytes.  None where the log has no
    warm-up line, the plan (or the log's own settings) is not extensible
    (``--no-enable-extensible-kv-cache``: the usual path) or the numbers do not fit (a negative term)."""
    from dataclasses import replace

    from tpkit.explain.refusals import REFUSED
    from tpkit.memory.band import measured_terms

    w = _warmup(log)
    if args.engine != "vllm" or log.context.engine != "vllm" or w is None or "weights" not in weights:
        return None
    base = {k: v for k, v in terms.items() if k not in ("activation_peak", "cuda_graphs", "cuda_context")}
    given = [d for d in profile_flags if d in args.user_given]

    def plan(opts, calibrated: dict, band: bool = True):
        with measured_terms(base, source=f"measured in {args.from_log}"), \
                measured_terms(weights, source=f"{weights_where} of {args.from_log}"), \
                measured_terms(calibrated, source=f"the extensible KV sizing {args.from_log} printed ('Memory after "
                                                  "warmup'), less the other lines"):
            return _plan_once(engine, model, gpu, parallel, opts, machine, extra_uses, band)

    try:
        own = plan(replace(options, no_enable_extensible_kv_cache=False,
                           **_log_own_settings(args, log.context, profile_flags)),
                   {},
                   band=False)  # the log's run: extensible (it printed the warm-up line)
        new = plan(options, {}, band=False)
    except REFUSED:
        return None
    eo, en = own.extra or {}, new.extra or {}
    if not eo.get("extensible_kv"):
        return None
    if not en.get("extensible_kv"):
        return reserved_from_log(log, new, eo, en, plan, options)

    got = _calibrate(own, new, w)
    if got is None:
        return None
    cal, act_own, act_new = got
    result = plan(options, {**_held_terms(plan, options, cal), **cal})
    return result, _extensible_note(w, given, act_own, act_new)


def _plan_once(engine, model, gpu, parallel, options, machine, extra_uses, band: bool):
    """One plan under the measured terms in force; with ``band`` its band too (``memory.band.with_band``)."""
    if band:
        from tpkit.memory.band import with_band

        return with_band(engine.plan, model, gpu, parallel, options, machine=machine, extra_uses=extra_uses)
    return engine.plan(model, gpu, parallel, options, machine=machine, extra_uses=extra_uses)


def _warmup(log):
    """The log's "Memory after warmup" anchor (``explain.vextensible``) where it carries all four numbers the
    extensible rule reads (used, the snapshot's free memory, kept, the peak), else None."""
    w = getattr(log.anchored, "warmup", None)
    if w is None or w.used is None or w.snapshot_free is None or w.kept is None or w.peak is None:
        return None
    return w


def _log_own_settings(args, ctx, profile_flags: tuple) -> dict:
    """The flags the plan was given that move the profile or the KV sizing (``profile_flags``, utilisation, KV dtype,
    block size), each at the log's value (its own flag values: ``explain.fromlog.log_flag_values``), else at its
    default: the options that plan the log's own run."""
    from tpkit.explain.fromlog import log_flag_values

    own_flags = [d for d in (*profile_flags, "gpu_memory_utilization", "kv_cache_dtype", "block_size")
                 if d in args.user_given]
    logged = {d: v for d, _, v in log_flag_values(ctx) if d in own_flags}
    return {d: logged.get(d, _DEFAULT.get(d)) for d in own_flags}


def _held_terms(plan, options, cal: dict) -> dict:
    """What else the plan estimates lies inside the measured F, used and kept: each such term (one nominal only)
    held at its nominal, so it carries no band (``memory.band.collecting`` records them in a trial plan)."""
    from tpkit.memory.band import collecting
    from tpkit.units import Bytes

    with collecting() as seen:
        plan(options, cal, band=False)
    held: dict = {}
    for (term, _), est in seen.items():
        if term not in cal and est.uncertainty.bytes:
            held.setdefault(term, set()).add(est.nominal.bytes)
    return {t: Bytes(v.pop()) for t, v in held.items() if len(v) == 1}


def _extensible_note(w, given: list, act_own, act_new) -> str:
    """The note of ``extensible_from_log``: the warm-up line's numbers, the rule, and how a profile flag moved them."""
    f_log, used, kept, peak = w.snapshot_free.mid, w.used.mid, w.kept.mid, w.peak.mid
    moved = (f"; {', '.join(given)} scaled the peak by the planner's ratio ({gib_text(act_own, label='')} → "
             f"{gib_text(act_new)}) and moved the graphs by its difference" if given else "")
    return (f"vLLM ≥ 0.34 extensible KV sizing re-planned from the log's 'Memory after warmup': free at the snapshot "
            f"{gib_text(f_log)}, non-KV used since it {gib_text(used)}, kept {gib_text(kept)} "
            f"(peak {gib_text(peak)}: the margin); pool = min(requested, free − margin) − used − kept "
            f"(measure_kv_cache_bytes); the CUDA-graph line holds the used memory beside the weights and the planned "
            f"lines{moved}")


def reserved_from_log(log, new, eo: dict, en: dict, plan, options) -> tuple[object, str] | None:
    """An extensible-KV log planned with ``--no-enable-extensible-kv-cache`` (helper fl34): vLLM 0.34.0 then sizes
    the KV cache from the profile alone (``v1/worker/gpu_worker.py determine_available_memory``): requested −
    consumed − the profile's peak − the CUDA-graph estimate, and the log's "Available KV cache memory" (the
    reservation) is requested(the log's utilisation) − consumed − peak with no estimate.  So the plan's available is
    the reservation + requested(the plan's) − requested(the log's) − the planner's graph estimate; the activation
    peak (the one estimated term of the sum) is moved to give it, as ``non_kv_from_log`` does for earlier logs."""
    from tpkit.units import Bytes

    available = getattr(log.anchored, "available", None)
    line = next((x for x in new.ledger.items if x.item.startswith("activation peak")), None)
    if available is None or line is None:
        return None
    target = (available.mid.bytes + int(en["requested_bytes"]) - int(eo["requested_bytes"])
              - int(en.get("cuda_graph_bytes") or 0))
    peak = abs(line.bytes.bytes) + int(en["available_kv_bytes"]) - target
    if peak < 0:
        return None
    result = plan(options, {"activation_peak": Bytes(peak)})
    return result, (f"--no-enable-extensible-kv-cache on a vLLM ≥ 0.34 extensible log: available = the log's "
                    f"reservation {available.text()} + requested at utilization {en['gpu_memory_utilization']:g} − "
                    f"requested at the log's {eo['gpu_memory_utilization']:g} − the planned CUDA-graph estimate "
                    f"{gib_text(Bytes(int(en.get('cuda_graph_bytes') or 0)))} (determine_available_memory); the "
                    f"activation peak is charged {gib_text(Bytes(peak))} to give it")


def _line(result, prefix: str) -> int:
    got = next((x for x in result.ledger.items if x.item.startswith(prefix)), None)
    return abs(got.bytes.bytes) if got is not None else 0


def _calibrate(own, new, w) -> tuple[dict, Bytes, Bytes] | None:
    """(the three measured terms that make the planner's extensible budget the log's, the planner's activation peak
    at the log's settings, at the plan's) from the log's run planned (``own``), the plan (``new``) and the log's
    warm-up line ``w`` (helper fl34; split out by helper g34 for the relayout).  The CUDA context moves the plan's
    snapshot free to the log's F; the activation peak is the printed allocated peak × the planner's ratio new / own;
    the CUDA-graph line holds the rest of used + kept beside the planned lines at the log's settings, moved by the
    planner's graph difference.  None where a term would be negative."""
    from tpkit.units import Bytes

    eo, en = own.extra or {}, new.extra or {}
    ctx_own, act_own, act_new = _line(own, "CUDA context"), _line(own, "activation peak"), _line(new, "activation peak")
    g_own, g_new = int(eo.get("cuda_graph_bytes") or 0), int(en.get("cuda_graph_bytes") or 0)
    f_own, f_log = int(eo["free_at_snapshot_bytes"]), w.snapshot_free.mid.bytes
    ceiling = min(int(eo["requested_bytes"]), f_own - int(eo["extensible_margin_bytes"]))
    rest_own = ceiling - int(eo["available_kv_bytes"]) - act_own - g_own  # weights + planned lines + growth
    used, kept, peak = w.used.mid.bytes, w.kept.mid.bytes, w.peak.mid.bytes
    context = ctx_own + f_own - f_log
    activation = round(peak * act_new / act_own) if act_own else peak
    graphs = used + kept - peak - rest_own + g_new - g_own
    if min(context, activation, graphs) < 0:
        return None
    return ({"cuda_context": Bytes(context), "activation_peak": Bytes(activation), "cuda_graphs": Bytes(graphs)},
            Bytes(act_own), Bytes(act_new))


def extensible_relayout(args, log, engine, model, gpu, parallel, options, machine, extra_uses,
                        profile_flags: tuple) -> tuple[object, str] | None:
    """(the plan, its note) of a vLLM ≥ 0.34 extensible log re-planned at another tp, pp or quantization (helper
    g34): ``extensible_from_log``'s rule with the log's run planned at its own layout.  What the warm-up line
    measured holds where the GPU and the engine are the log's: F, the free memory at vLLM's snapshot, is the
    device less the CUDA context and the cuBLAS handles (per GPU: carried) and what the world size creates before
    the snapshot (vllm 0.34.0 ``v1/worker/gpu_worker.py init_device``: ``init_worker_distributed_environment``'s
    NCCL and custom all-reduce buffers, then the snapshot: the planner's at the new world size); requested = total
    × utilisation is per GPU.  Re-planned: the weights (the log's 'Model loading took' ×
    the planner's weights at the new layout / at the log's: ``explain.replan.scaled_weights``, as the 0.33 relayout
    does), the activation peak (the printed allocated peak × the planner's ratio, so the margin max(1 GiB,
    0.75 × peak) follows), the captured CUDA graphs (the log's rest of used + kept, moved by the planner's graph
    difference), the non-torch growth (NCCL, custom all-reduce: the planner's lines at the new world size) and the
    KV layout.  The plan keeps the band of those planned lines.  None where the log prints no warm-up line or no
    weights, the plan's GPU total is not the log's, the config refuses the log's quantization, or either plan is not
    extensible (``--no-enable-extensible-kv-cache``: ``cli.fromlog_replan.relayout_plan``)."""
    from dataclasses import replace

    from tpkit.explain.fromlog import quantization_from_log
    from tpkit.explain.refusals import REFUSED
    from tpkit.explain.replan import log_quantization_planned, planned_weights, scaled_weights
    from tpkit.memory.band import measured_terms

    ctx, w, measured = log.context, _warmup(log), getattr(log.anchored, "weights", None)
    if (args.engine != "vllm" or ctx.engine != "vllm" or w is None or measured is None or measured.mid.bytes <= 0
            or not _same_gpu_total(log, gpu)):
        return None
    own_q = log_quantization_planned(ctx, model)
    if quantization_from_log(ctx, None)[0] is not None and own_q is None:
        return None  # the config refuses the quantization the log ran: another checkpoint than the one measured
    own_parallel = replace(parallel, tp=int(ctx.get("tp", 1) or 1), pp=int(ctx.get("pp", 1) or 1))
    own_options = replace(options, quantization=own_q, no_enable_extensible_kv_cache=False,
                          **_log_own_settings(args, ctx, profile_flags))
    src = f"the extensible KV sizing {args.from_log} printed ('Memory after warmup'), re-planned at the new layout"

    def plan(par, opts, terms: dict, band: bool = False):
        with measured_terms(terms, source=src):
            return _plan_once(engine, model, gpu, par, opts, machine, extra_uses, band)

    try:
        w_own = planned_weights(plan(own_parallel, own_options, {}))
        w_new = planned_weights(plan(parallel, options, {}))
        if w_own is None or w_new is None or w_own.bytes <= 0:
            return None
        weights = scaled_weights(measured.mid, own=w_own, new=w_new)
        own = plan(own_parallel, own_options, {"weights": measured.mid})
        new = plan(parallel, options, {"weights": weights})
    except REFUSED:
        return None
    if not (own.extra or {}).get("extensible_kv") or not (new.extra or {}).get("extensible_kv"):
        return None
    got = _calibrate(own, new, w)
    if got is None:
        return None
    cal, act_own, act_new = got
    result = plan(parallel, options, {"weights": weights, **cal}, band=True)
    return result, _relayout_note((parallel, options.quantization), (own_parallel, own_q), w, measured, weights,
                                  (w_own, w_new), cal, (act_own, act_new))


def _same_gpu_total(log, gpu) -> bool:
    """The log's printed GPU total is the plan's GPU's (within its print's rounding): what the warm-up line measured
    (F, requested) holds only on the log's GPU."""
    total = getattr(getattr(log.parsed, "run", None), "gpu_total", None)
    return total is not None and abs(total.value.bytes - gpu.total_bytes.bytes) <= total.rounding.bytes + 1


def _relayout_note(new: tuple, logs: tuple, w, measured, weights, planned_w: tuple, cal: dict, act: tuple) -> str:
    """The note of ``extensible_relayout``: what changed from the log's layout (``new`` and ``logs``: (parallel,
    quantization) each), what the log's warm-up line carries, what is re-planned and how."""
    (parallel, q), (own_parallel, own_q) = new, logs
    (w_own, w_new), (act_own, act_new), log_tp = planned_w, act, own_parallel.tp
    changed = ", ".join(x for x in (f"tp {parallel.tp}" if parallel.tp != log_tp else "",
                                    f"pp {parallel.pp}" if parallel.pp != own_parallel.pp else "",
                                    f"quantization {q}" if q != own_q else "") if x) or "the log's layout"
    return (f"vLLM ≥ 0.34 extensible KV sizing re-planned at {changed} from the log's 'Memory after warmup' (same GPU "
            f"and engine): carried: the CUDA context and cuBLAS of the log's snapshot (free "
            f"{gib_text(w.snapshot_free.mid)} at tp {log_tp}) and requested; re-planned: the NCCL / custom "
            f"all-reduce lines before the snapshot, weights {gib_text(weights)} = the log's {measured.text()} × "
            f"{gib_text(w_new, label='')} / {gib_text(w_own)} (planned per rank at the new layout / at the log's), activation peak "
            f"{gib_text(cal['activation_peak'])} = the printed {gib_text(w.peak.mid)} × the planner's "
            f"ratio ({gib_text(act_own, label='')} → {gib_text(act_new)}; the margin follows), CUDA graphs "
            f"{gib_text(cal['cuda_graphs'])} (the log's used + kept beside the planned lines, moved by the planner's "
            f"graph difference), the non-torch growth and the KV layout (planner's at the new layout); pool = "
            f"min(requested, free − margin) − used − kept (measure_kv_cache_bytes)")
