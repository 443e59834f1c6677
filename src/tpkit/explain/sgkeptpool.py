"""``--disable-cuda-graph`` after an SGLang capture OOM where no anchor sizes the pool: the run's own pool is kept
(helper cr36a, 2026-12-07, session 36).

Round cr34a (``explain.sggraphs``) re-plans the pool the flag keeps from the log's anchors ('Load weight begin/end',
the cell); a capture excerpt without them was a suggestion ("the pool the flag keeps"). The pool needs no re-plan
where the flags leave it as it was, because the log shows it was allocated and held a token:

- SGLang sizes and allocates its KV pool in ``ModelRunner.initialize`` before ``init_device_graphs`` (the 0.5.13.post1
  wheel, ``model_executor/model_runner.py``: ``init_memory_pool`` then the attention backend, the kernel warm-up and
  ``init_device_graphs``), and refuses a pool of no token there ('Not enough memory. Please try to increase
  --mem-fraction-static.', ``pool_configurator.MemoryPoolConfig.__post_init__`` in 0.5.13–0.5.23; ``init_memory_pool``
  before). A run that reached the capture therefore has a pool of at least one token;
- with the flag ``init_device_graphs`` returns before building the graph runner; the pool is sized as before where the
  fraction does not move (``sggraphs._flags``: a release before 0.5.14, or the run's fraction given and pinned). Only
  a fraction the log or the flags give counts as the run's here: a default the planner computes from an assumed model
  is not;
- the largest batch's eager forward ran where torch prints graph pools > 0 (cr34a's condition, unchanged);
- a speculative draft worker is built after the target's worker, whose model runner captures its graphs first
  (``Scheduler.init_tp_model_worker``: ``TpModelWorker`` then ``DraftWorkerClass``, 0.5.13.post1 and 0.5.15 wheels):
  with the capture skipped, the draft's weights and pool are taken from the memory the capture left, which the log
  does not size. So the log must show speculative decoding off (SGLang's ServerArgs ``speculative_algorithm=None``).

The fix states no token count (``kv_tokens`` None: the run's pool, not printed).
"""

from __future__ import annotations

from tpkit.explain.diagnose import Fix

__all__ = ["kept_pool_fix"]


def kept_pool_fix(ctx, run, flags: str, why: str, note: str) -> tuple[Fix | None, str]:
    """(the fit, '') where the run's pool is kept, else (None, what the log would have to show). ``flags`` are
    ``sggraphs._flags``' (non-empty: the fraction does not move), ``run`` the parsed log's ``RunSettings`` (None when
    not known); graph pools > 0 are the caller's condition."""
    if "--mem-fraction-static" in flags and not ctx.sources.get("mem_fraction"):
        return None, ("the run's mem_fraction_static printed or given (the pinned value is a default computed for "
                      "an assumed model, not the run's)")
    spec = getattr(run, "speculative", None) if run is not None else None
    if spec is None or spec.value is not None:
        return None, ("speculative decoding shown off (ServerArgs speculative_algorithm=None): SGLang builds a draft "
                      "worker after the target's graph capture, and its weights and pool would come out of the memory "
                      "the skipped capture leaves, which the log does not size")
    kept = ("the pool the run allocated before the capture is kept (its size not printed; it held at least one token: "
            "SGLang refuses a pool of none with 'Not enough memory' before capturing)")
    return Fix(flags=flags, kv_tokens=None, fits=True, why=why, note=f"{kept}; {note}"), ""
