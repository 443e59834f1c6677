"""SGLang's memory saver failing to resume the memory released for training (round fx37, issue 12).

An RL trainer that shares the GPUs with SGLang (verl, slime, miles) calls ``release_memory_occupation`` before a
training step and ``resume_memory_occupation`` after it.  In SGLang 0.5.13.post1
(``managers/scheduler_components/weight_updater.py``) release pauses the KV cache, the weights and the CUDA graphs
through torch_memory_saver (``memory_saver_adapter.pause``: the physical memory is freed, the virtual addresses
kept) and resume re-maps them in the order CUDA graphs, weights, KV cache (``memory_saver_adapter.resume``; tags from
``constants.GPU_MEMORY_ALL_TYPES``).  Nothing is read from the checkpoint again: the paused tensors get fresh physical
memory (torch_memory_saver's ``cuMemCreate``, its ``cu_mem_create`` helper) at their old addresses, and the trainer
pushes its new weights afterwards.  So a failure there is neither a start-up step nor a request: it is the ``other``
phase, and the memory it lacks is the engine's own start-up footprint that something else — the trainer's memory not
yet offloaded — still occupies.

torch_memory_saver's C++ prints a failed driver / runtime call as ``[torch_memory_saver.cpp] CUresult error: N (name)
file=… func=… line=…`` (``cudaError error: …`` for a runtime call, ``CUresult error  result=N …`` in its older
releases; fzyzcjy/torch_memory_saver#4, #35, #99, sgl-project/sglang#14092).  Result 2 is the driver's
``CUDA_ERROR_OUT_OF_MEMORY`` (and the runtime's ``cudaErrorMemoryAllocation``): device memory ran out.  Other codes
(1, ``CUDA_ERROR_INVALID_VALUE``) are not a shortage.  Its notice 'cuMemCreate CUDA_ERROR_OUT_OF_MEMORY (may not be an
issue …)' is a recoverable allocation that torch retries, not a failure.

The line names no size, so no fix can be re-planned from it.  vLLM does not use torch_memory_saver (its sleep mode is
its own ``CuMemAllocator``; no such name in the 0.11.0 or 0.30.0 wheels), so the library's name is SGLang's
(``logs.engine.ENGINE_WORDS``).
"""

from __future__ import annotations

from tpkit.logs.lazyre import lazy

__all__ = ["NEEDLE", "PREFIX", "RESUME_API", "memsaver_failures", "memsaver_phase"]

NEEDLE = "[torch_memory_saver.cpp]"
PREFIX = "torch_memory_saver"
"""how a memory-saver failure's detail starts (``explain.sgresume`` matches on it)"""
RESUME_API = "resume_memory_occupation"
_ERROR = lazy(r"\[torch_memory_saver\.cpp\] (CUresult|cudaError|hipError_t) error:?[ \t]+(?:result=)?(\d{1,5})"
              r"(?:[ \t]+\(([^)\n]{1,60})\))?[ \t]+file=(\S{1,120})[ \t]+func=(\w{1,60})")
_OUT_OF_MEMORY = "2"
"""CUDA_ERROR_OUT_OF_MEMORY (cuda.h) and cudaErrorMemoryAllocation (driver_types.h) are both 2; hipErrorOutOfMemory
is 2 as well (hip_runtime_api.h)"""
_MEANINGS = {"1": "CUDA_ERROR_INVALID_VALUE: an invalid argument, not a memory shortage"}


def memsaver_failures(message: str) -> list[tuple]:
    """``detect``'s (kind, severity, sizes, counts, detail) for torch_memory_saver's failed call: a ``cuda_oom`` for
    result 2 (out of memory), an ``exception`` for any other result; [] for any other record."""
    m = _ERROR.search(message)
    if m is None:
        return []
    api, code, name, path, func = m.groups()
    where = f"{api} error {code}{f' ({name})' if name else ''} in {func} ({path.rsplit('/', 1)[-1]})"
    if code == _OUT_OF_MEMORY:
        return [("cuda_oom", "error", (), (), f"{PREFIX} could not map device memory: {where}"
                                            f"{'' if name else ' (out of memory)'}")]
    meaning = _MEANINGS.get(code, "not the out-of-memory code (2)")
    return [("exception", "error", (), (), f"{PREFIX} failed: {where}, {meaning}")]


def memsaver_phase(message: str) -> tuple[str, str] | None:
    """``other`` for a memory-saver failure in its ``resume`` or next to SGLang's ``resume_memory_occupation`` call
    (``message`` holds the record and the lines after it): the re-mapping of the memory released for training.
    None for an allocation that names neither (a memory-saver pool allocating at start-up or while serving)."""
    m = _ERROR.search(message)
    if m is None or (m.group(5) != "resume" and RESUME_API not in message):
        return None
    return ("other", "torch_memory_saver's resume: SGLang's resume_memory_occupation re-maps the weights, KV cache "
                     "and CUDA graphs that release_memory_occupation paused for training — after start-up, not a "
                     "request")
