"""``tpkit plan --from-log`` on a vLLM ≥ 0.34 log with the extensible KV cache (helper fl34, 2026-12-05): the pool
re-planned from the log's "Memory after warmup" line (``explain.vextensible``), split from ``cli.fromlog``."""

from __future__ import annotations

__all__ = ["extensible_from_log", "reserved_from_log", "extensible_default_utilization"]


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

    from tpkit.explain.fromlog import log_flag_values
    from tpkit.explain.refusals import REFUSED
    from tpkit.memory.band import collecting, measured_terms, with_band
    from tpkit.units import Bytes

    w = getattr(log.anchored, "warmup", None)
    if (args.engine != "vllm" or log.context.engine != "vllm" or w is None or w.used is None
            or w.snapshot_free is None or w.kept is None or w.peak is None or "weights" not in weights):
        return None
    base = {k: v for k, v in terms.items() if k not in ("activation_peak", "cuda_graphs", "cuda_context")}
    given = [d for d in profile_flags if d in args.user_given]
    own_flags = [d for d in (*profile_flags, "gpu_memory_utilization", "kv_cache_dtype", "block_size")
                 if d in args.user_given]
    logged = {d: v for d, _, v in log_flag_values(log.context) if d in own_flags}

    def plan(opts, calibrated: dict, band: bool = True):
        with measured_terms(base, source=f"measured in {args.from_log}"), \
                measured_terms(weights, source=f"{weights_where} of {args.from_log}"), \
                measured_terms(calibrated, source=f"the extensible KV sizing {args.from_log} printed ('Memory after "
                                                  "warmup'), less the other lines"):
            if band:
                return with_band(engine.plan, model, gpu, parallel, opts, machine=machine, extra_uses=extra_uses)
            return engine.plan(model, gpu, parallel, opts, machine=machine, extra_uses=extra_uses)

    try:
        own = plan(replace(options, no_enable_extensible_kv_cache=False,
                           **{d: logged.get(d, _DEFAULT.get(d)) for d in own_flags}),
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

    def line(result, prefix: str) -> int:
        got = next((x for x in result.ledger.items if x.item.startswith(prefix)), None)
        return abs(got.bytes.bytes) if got is not None else 0

    ctx_own, act_own, act_new = line(own, "CUDA context"), line(own, "activation peak"), line(new, "activation peak")
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
    cal = {"cuda_context": Bytes(context), "activation_peak": Bytes(activation), "cuda_graphs": Bytes(graphs)}
    # what else is estimated lies inside the measured F, used and kept: held at its nominal, it carries no band
    with collecting() as seen:
        plan(options, cal, band=False)
    held: dict = {}
    for (term, _), est in seen.items():
        if term not in cal and est.uncertainty.bytes:
            held.setdefault(term, set()).add(est.nominal.bytes)
    result = plan(options, {**{t: Bytes(v.pop()) for t, v in held.items() if len(v) == 1}, **cal})
    moved = (f"; {', '.join(given)} scaled the peak by the planner's ratio ({act_own / 2**30:.2f} → "
             f"{act_new / 2**30:.2f} GiB) and moved the graphs by its difference" if given else "")
    note = (f"vLLM ≥ 0.34 extensible KV sizing re-planned from the log's 'Memory after warmup': free at the snapshot "
            f"{Bytes(f_log).gib:.2f} GiB, non-KV used since it {Bytes(used).gib:.2f} GiB, kept {Bytes(kept).gib:.2f} "
            f"GiB (peak {Bytes(peak).gib:.2f} GiB: the margin); pool = min(requested, free − margin) − used − kept "
            f"(measure_kv_cache_bytes); the CUDA-graph line holds the used memory beside the weights and the planned "
            f"lines{moved}")
    return result, note


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
                    f"{Bytes(int(en.get('cuda_graph_bytes') or 0)).gib:.2f} GiB (determine_available_memory); the "
                    f"activation peak is charged {Bytes(peak).gib:.2f} GiB to give it")
