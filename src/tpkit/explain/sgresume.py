"""The diagnosis of SGLang failing to resume the memory it released for training (round fx37; the reader's rule is
``logs.memsaver``).

``resume_memory_occupation`` re-maps, at the same sizes, the CUDA graphs, weights and KV pool that
``release_memory_occupation`` paused (SGLang 0.5.13.post1, ``managers/scheduler_components/weight_updater.py``): the
engine asks for nothing it did not hold at start-up, so an out-of-memory there means the memory it held is taken by
something else on the GPU — in a co-located RL job the trainer's parameters, gradients or optimizer state not yet
offloaded, or a resume that ran before the trainer's own release finished.  The memory saver's line prints no size
(neither the allocation nor the free memory), so no fix can be re-planned from it or shown to fit: the remedies are
offered as suggestions, with what the log would have to print.  A result other than out-of-memory is no shortage, and
no memory fix is given for it."""

from __future__ import annotations

from tpkit.explain.diagnose import SUGGESTION, Fix
from tpkit.logs.memsaver import PREFIX

__all__ = ["resume_failure"]

_STEP = ("while resuming the memory released for training (resume_memory_occupation: torch_memory_saver re-maps the "
         "CUDA graphs, weights and KV pool that release_memory_occupation paused, at their start-up sizes; nothing is "
         "re-read from the checkpoint) — after start-up and not a request")
_UNSIZED = ("the line prints no size (neither the allocation nor the free memory), so no fix can be re-planned or "
            "shown to fit; the start-up log of the same engine (its 'KV Cache is allocated' and 'Load weight end' "
            "lines) and the free memory at the resume would size it")


def resume_failure(failure) -> tuple[str, None, list[Fix]] | None:
    """(cause, no shortfall, fixes) for a memory-saver failure placed at the resume (``other``), else None."""
    if failure.phase != "other" or not (failure.detail or "").startswith(PREFIX):
        return None
    if failure.kind != "cuda_oom":
        return (f"the resume failed, not for lack of memory, {_STEP}: {failure.detail}; a smaller "
                "--mem-fraction-static would not help, so no memory fix is given", None, [])
    cause = (f"out of memory {_STEP}: {failure.detail}. The engine asks only for what it held at start-up, so "
             "another tenant of the GPU holds that memory now — in a co-located RL job the trainer's weights, "
             f"gradients or optimizer state not yet offloaded, or a resume issued before the trainer's release "
             f"finished; {_UNSIZED}")
    note = f"{SUGGESTION}: {_UNSIZED}"
    fixes = [Fix(flags="offload the trainer's model, gradients and optimizer state (and wait for its release) before "
                       "resume_memory_occupation", kv_tokens=None, fits=False,
                 why="the resume re-maps the engine's start-up footprint; the memory it lacks is held by the trainer",
                 note=note),
             Fix(flags="--mem-fraction-static <lower>", kv_tokens=None, fits=False,
                 why="the resumed KV pool is the start-up one: a smaller fraction leaves the trainer that much more "
                     "room at every resume (fewer KV tokens while serving)", note=note)]
    return cause, None, fixes
