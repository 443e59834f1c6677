"""Device memory taken by a process's first ``torch.cuda.Stream()`` (SGLang's forward stream; issue 12/11 evidence).

SGLang 0.5.9+ creates ``ModelRunner.forward_stream`` after ``init_torch_distributed`` has sampled
``pre_model_load_memory`` and before 'Load weight begin' (``tpkit/engines/sglang/streams.py``).  This script
(no SGLang import) does what the process has done by then at world size 1 — a CUDA context and a first kernel
launch — and prints what ``torch.cuda.mem_get_info`` sees, after ``torch.cuda.empty_cache()`` as SGLang's
``get_available_gpu_memory`` does, around the first ``Stream()`` and around further streams of each priority.

Run: python scripts/stream_pool_memory_check.py   (one CUDA GPU; writes JSON to stdout)
"""

import json
import os

from cuda_memory_lib import free_mib, torch  # NVLink multicast off, then torch


def main() -> dict:
    torch.cuda.set_device(0)
    torch.zeros(1, device="cuda")  # context + first kernel (inside init_torch_distributed from SGLang 0.5.8)
    out = {"torch": torch.__version__, "cuda": torch.version.cuda, "gpu": torch.cuda.get_device_name(0),
           "module_loading": os.environ.get("CUDA_MODULE_LOADING", "(default)"), "steps_mib": {}}
    keep = []
    for name, make in (("first Stream()", lambda: torch.cuda.Stream()),
                       ("second Stream()", lambda: torch.cuda.Stream()),
                       ("Stream(priority=-1)", lambda: torch.cuda.Stream(priority=-1)),
                       ("kernel on the new stream", None)):
        before = free_mib()
        if make is None:
            with torch.cuda.stream(keep[0]):
                keep.append(torch.zeros(1, device="cuda") + 1)
        else:
            keep.append(make())
        out["steps_mib"][name] = round(before - free_mib(), 2)
    return out


if __name__ == "__main__":
    print(json.dumps(main(), indent=1))
