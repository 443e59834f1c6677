"""``--disable-cuda-graph`` after an SGLang CUDA-graph capture OOM, re-planned from the log's anchors (helper cr34a,
2026-12-07; round cr33c withdrew it as a fit taken from the log's pool without a re-plan).

With the flag SGLang returns from ``init_cuda_graphs`` / ``init_device_graphs`` before building the graph runner,
after ``init_memory_pool`` (0.4.3.post2 and 0.5.9 wheels, ``model_executor/model_runner.py``): the capture that failed
is not run and the pool is sized as before, from ``mem_fraction_static``.  The fraction itself moves with the flag
only where it is SGLang's default from 0.5.14 (``engines.sglang.defaults``: 0.4.x–0.5.13 no change, 0.5.14 the
prefill-graph term goes, 0.5.15+ the decode term too; ``engines.sglang.choices.reserve_extras``).  So:

- a fraction given by a flag, or a default under a release before 0.5.14 (the newest the log allows,
  ``sgrelease.log_release``), keeps the log's budget: the fix's tokens are re-planned from the anchors at the run's
  fraction (``sgbudget.BudgetReplan``), what ``tpkit plan --from-log LOG --disable-cuda-graph`` plans;
- the graphs free what torch's OOM message prints as held in private pools; a whole message without that clause
  means no graph had been captured (``sgdiagnose._graph_pool_bytes``): the failure came in the eager warm-up of the
  largest batch, which SGLang captures first, and the same eager forward serves that batch without graphs — so the
  fix is a fit only where the pools printed are > 0 (the largest batch's eager forward ran) and the re-planned
  budget holds a token;
- otherwise it is offered as a suggestion with what the log would have to print.
"""

from __future__ import annotations

from tpkit.explain.diagnose import Fix, unshown

__all__ = ["graphs_off_fix"]

GRAPH_RESERVE_MOVES_FROM = "0.5.14"
"""the first release whose default fraction drops a graph term under --disable-cuda-graph (``engines.sglang.defaults``)"""


def graphs_off_fix(a, ctx, plan, pools, run=None) -> Fix:
    """The ``--disable-cuda-graph`` fix: ``pools`` is ``sgdiagnose._graph_pool_bytes``' (bytes, as printed) or None;
    ``plan`` the run's :class:`~tpkit.explain.sgbudget.BudgetReplan`; ``run`` the parsed log's settings.  From 0.5.14
    the run's fraction is pinned with the flag (``--mem-fraction-static``: SGLang's default would drop its graph
    reserve, and a printed ServerArgs value does not say whether it was a default).  Without anchors the run's own
    pool may be kept (``explain.sgkeptpool``, helper cr36a)."""
    why = "no CUDA graph is captured (slower decode): the capture that failed is not run"
    flags, words = _flags(ctx, plan)
    rest, tokens = plan.budget() if flags else (None, None)
    missing = []
    if rest is None or tokens is None:
        missing.append("the pool the flag keeps: the log prints no 'Load weight begin/end' free memory, "
                       "mem_fraction_static and cell to re-plan it from")
    if pools is None or pools[0] <= 0:
        missing.append("a graph already captured (torch's 'allocated in private pools' > 0): without one the failure "
                       "may be the largest batch's eager forward, which runs without graphs too")
    note = f"{words}; the graphs' private pools at the failure: {pools[1] if pools else 'not printed'}"
    if flags and len(missing) == 1 and pools is not None and pools[0] > 0:
        from tpkit.explain.sgkeptpool import kept_pool_fix

        kept, lacking = kept_pool_fix(ctx, run, flags, why, note)
        if kept is not None:
            return kept
        missing = [f"{missing[0]}; or, to keep the run's own pool, {lacking}"]
    if tokens is not None and plan.context and tokens < int(plan.context):
        note += f"; holds {tokens:,} tokens, less than one {int(plan.context):,}-token request"
    fix = Fix(flags=flags or "--disable-cuda-graph", kv_tokens=tokens,
              fits=bool(rest is not None and rest > 0 and tokens), why=why, note=note)
    return unshown(fix, "; ".join(missing)) if missing else fix


def _flags(ctx, plan) -> tuple[str, str]:
    """(the flags that leave the run's mem_fraction_static as it was with --disable-cuda-graph, why); ('' , why)
    where the run's fraction is not known."""
    from tpkit.engines.sglang.versions import at_least
    from tpkit.explain.sgrelease import log_release

    version = log_release(ctx)[0]
    if not at_least(version, GRAPH_RESERVE_MOVES_FROM):
        return "--disable-cuda-graph", (f"SGLang {version}: mem_fraction_static, given or default, does not change "
                                        f"with the flag before {GRAPH_RESERVE_MOVES_FROM}; the pool is sized as before")
    if plan.f is None:
        return "", (f"SGLang {version}: a default mem_fraction_static drops its graph reserve with the flag (from "
                    f"{GRAPH_RESERVE_MOVES_FROM}) and the log prints no fraction to pin")
    value = f"{plan.f / plan.factor:.4f}".rstrip("0").rstrip(".")
    return f"--disable-cuda-graph --mem-fraction-static {value}", (
        f"SGLang {version}: the run's mem_fraction_static pinned, as a default would drop its graph reserve with the "
        f"flag (from {GRAPH_RESERVE_MOVES_FROM}); the pool is sized as before")
