"""Round fx37 (helper fx37, 2026-12-07, docs/accuracy.md §7.3 "round fx37"): explain leads of issue 12.

Item 1 — SGLang's resume of memory released for training (torch_memory_saver).  The labels below were written from
each thread before tpkit was run on the logs (the first commit of this file holds only them); the blind results and
the rule made after are recorded in docs/accuracy.md.

| log | source | label (status, phase) | evidence for the phase |
|---|---|---|---|
| sg_1041 | sgl-project/sglang#14092 (verl, 8 SGLangHttpServer actors) | crash other | 'CUresult error: 2 (out of memory) … func=cu_mem_create' while verl's 'resume_memory_occupation' requests time out: the resume re-maps the released weights / KV pool / graphs (weight_updater.resume_memory_occupation, 0.5.13.post1), after start-up and not a request |
| sg_1042 | fzyzcjy/torch_memory_saver#99 ('OOM when resume kv cache', SGLang 0.5.12.post1) | crash other | 'cudaError error: 2 (out of memory) file=csrc/core.cpp func=resume' |
| sg_1043 | fzyzcjy/torch_memory_saver#35 | crash other | 'CUresult error result=1 … func=resume' (CUDA_ERROR_INVALID_VALUE, not a shortage), then SGLang's 'Child process unexpectedly failed with an exit code 256' |
"""

from __future__ import annotations

LABELS = {
    "sg_1041": ("sglang", "crash", "other"),
    "sg_1042": ("sglang", "crash", "other"),
    "sg_1043": ("sglang", "crash", "other"),
}
