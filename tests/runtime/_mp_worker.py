"""One rank of a multi-process gloo test (run as a subprocess by test_group_mp.py).

argv: rank world port scenario out_json spec_json
"""

import json
import os
import sys
import time
import warnings

rank, world, port, scenario, out_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
spec = json.loads(sys.argv[6])

from tpkit.errors import RuntimeSetupError  # noqa: E402
from tpkit.runtime.group import MemoryImbalanceWarning, init_cpu_group, init_memory  # noqa: E402
from tpkit.runtime.probe import FakeProbe, ProcessUsage  # noqa: E402
from tpkit.units import GiB  # noqa: E402


def probe(frees_gib):
    procs = (ProcessUsage(pid=4242, name="squatter", used_bytes=GiB(30)),) if rank == spec.get("squatter") else ()
    return FakeProbe(total_bytes=GiB(80), free_bytes=GiB(frees_gib[rank]), device_index=0,
                     device_name=f"Fake GPU {rank}", processes=procs)


def attempt(frees_gib, allow):
    os.environ["TPKIT_ALLOW_MEMORY_IMBALANCE"] = "1" if allow else "0"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            g = init_memory(probe=probe(frees_gib), timeout_s=spec.get("timeout_s", 10))
        except RuntimeSetupError as exc:
            return {"error": str(exc)}
    return {"min_rank": g.min_rank.rank, "min_free": g.min_free_bytes.bytes, "local_rank": g.local_rank,
            "ranks": [r.rank for r in g.ranks], "imbalance": g.imbalance,
            "warned": any(issubclass(w.category, MemoryImbalanceWarning) for w in caught)}


init_cpu_group(rank=rank, world_size=world, init_method=f"tcp://127.0.0.1:{port}",
               timeout_s=spec.get("group_timeout_s", 30))
result = {"rank": rank}
if scenario == "table":
    result["balanced"] = attempt(spec["balanced"], allow=False)
    result["imbalanced"] = attempt(spec["imbalanced"], allow=False)
    result["allowed"] = attempt(spec["imbalanced"], allow=True)
elif scenario == "early_exit":
    if rank == spec["dead"]:
        os._exit(0)
    t0 = time.monotonic()
    result["outcome"] = attempt([50.0] * world, allow=False)
    result["elapsed_s"] = time.monotonic() - t0
elif scenario == "hang":  # the dead rank is alive but never calls init_memory; survivors stay alive after failing
    if rank == spec["dead"]:
        time.sleep(spec["hang_s"])
        os._exit(0)
    t0 = time.monotonic()
    result["outcome"] = attempt([50.0] * world, allow=False)
    result["elapsed_s"] = time.monotonic() - t0
    with open(out_path, "w") as fh:
        json.dump(result, fh)
    time.sleep(spec["linger_s"])
    os._exit(0)
with open(out_path, "w") as fh:
    json.dump(result, fh)
os._exit(0)
