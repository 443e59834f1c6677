"""One GPU: tpkit's Triton all-reduce kernels raise on a timed-out wait instead of returning a wrong sum.

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 python scripts/gpu_timeout_check.py --out OUT

Two "ranks" live on one GPU: each rank's symmetric buffer and signal pad are plain local tensors, and the
peer views are the other rank's tensors.  Launched on two streams at once, the two kernels complete a real
2-rank all-reduce (the happy path, several calls of a multi-block message).  Launched alone, rank 0 waits
for a peer that never comes: the kernel must report the timeout (backend, kind, peer rank 1) through the
error word, the host must raise ``AllReduceTimeout``, the push one-shot's output must be NaN (not a partial
sum), and later calls must refuse to run; also on a CUDA-graph replay.  A stale signal checks that the
*first* timeout is kept.  Then: ns per poll (two limits, the slope; to state the default limit in seconds),
a 1-GPU ``tpkit bench allreduce`` (real symmetric memory, real start-up), ``tpkit probe``, and the GPU tests
that run on one GPU.  Prints one PASS/FAIL line per check and writes ``OUT/timeout_check.json``.

What keeps this one-GPU simulation honest:

- The signal pads are owned by the stand-in buffer for its whole life.  (The first version kept only their
  addresses: the caching allocator handed the freed pads to the next tensors of the same size, the test
  input and output, so the "pads" held data, rank 0 failed its handshake with its own slot and reported
  itself as the late peer, and the barrier kernels' happy path timed out.)
- Both ranks' grids fit on the GPU at once.  Two real ranks each have a whole GPU; here they share one, and
  the barrier kernels' blocks spin until their peer blocks arrive, so a block of rank 1 that cannot be
  resident until rank 0's spinning blocks leave would deadlock (until the spin limit) a protocol that is
  correct on two GPUs.  Grids are capped at ``MAX_BLOCKS`` per rank (a 16-warp block per SM at worst, so
  2 × ``MAX_BLOCKS`` ≤ the SM count) and each launch checks that.  The observed happy-path failures were the
  freed pads (a 4,096-element message runs one block per rank), not residency.
- Every kernel variant is compiled and loaded before either rank launches (``CUDA_MODULE_LOADING=EAGER``
  plus an explicit load): with CUDA's lazy loading, launching rank 1's kernel while rank 0's spins waits for
  a context synchronisation that rank 0 never allows (the deadlock the CUDA programming guide describes under
  "Lazy Loading").  Separate rank processes, as in ``AllReduce``, do not share a context.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("CUDA_MODULE_LOADING", "EAGER")  # before CUDA starts: see the module docstring

import torch  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tpkit.comm.backends import error_flag as ef  # noqa: E402
from tpkit.comm.backends.one_shot import PushOneShotBackend  # noqa: E402
from tpkit.comm.backends.triton_base import TritonSymmBackend  # noqa: E402
from tpkit.comm.ledger import buffer_bytes, round_capacity  # noqa: E402
from tpkit.units import KiB  # noqa: E402

DEV = torch.device("cuda", 0)
RESULTS: dict[str, object] = {}
MAX_BLOCKS = 8
"""blocks per rank at most: both ranks' grids must be resident at once (module docstring)"""
NUMEL = 32768
"""happy-path message: 64 KiB of bf16 = 4 blocks (pull one-shot), 2 (two-shot), 8 (push, 4 chunks each)"""
PAD_INTS = MAX_BLOCKS * 2


class LocalBuf:
    """Stands in for ``SymmBuffer``: rank ``rank`` of 2; buffers and signal pads are local tensors that this
    object keeps alive (a pad known only by its address is freed and reused: module docstring)."""

    def __init__(self, name: str, rank: int, raws: list, pads: list) -> None:
        self.name, self.rank, self.world_size = name, rank, 2
        self.capacity = round_capacity(KiB(64))
        self.raw, self._raws, self.pads = raws[rank], raws, pads
        self.handle = type("Handle", (), {"signal_pad_ptrs": [p.data_ptr() for p in pads],
                                          "signal_pad_size": pads[0].numel() * 4})()

    def peer_views(self, dtype):
        return [r.view(dtype) for r in self._raws]

    def ledger_lines(self, **_kw):
        return ()


def pair(name: str, spin_limit: int):
    """Two backends (rank 0 and rank 1) whose 'peer memory' is each other's local tensors."""
    size = buffer_bytes(name, KiB(64), 2).bytes
    raws = [torch.zeros(size, dtype=torch.uint8, device=DEV) for _ in range(2)]
    pads = [torch.zeros(PAD_INTS, dtype=torch.int32, device=DEV) for _ in range(2)]
    out = []
    for rank in range(2):
        buf = LocalBuf(name, rank, raws, pads)
        if name == "one_shot":
            out.append(PushOneShotBackend(name, buf, max_blocks=MAX_BLOCKS, num_warps=4, spin_limit=spin_limit))
        else:
            from tpkit.comm.backends import _triton_kernels as k

            kernel = k.one_shot_kernel if name == "one_shot_pull" else k.two_shot_kernel
            out.append(TritonSymmBackend(name, buf, kernel, regions=1 if name == "one_shot_pull" else 2,
                                         max_blocks=MAX_BLOCKS, num_warps=16, spin_limit=spin_limit))
    return out


def check(label: str, ok: bool, detail: str = "") -> None:
    RESULTS[label] = {"ok": bool(ok), "detail": detail}
    print(f"{'PASS' if ok else 'FAIL'} {label}" + (f": {detail}" if detail else ""), flush=True)


def preload(backends, x) -> list:
    """Compile and load every rank's kernel variant (rank 1 is its own Triton specialisation)."""
    compiled = [b.compile_for(x, torch.empty_like(x)) for b in backends]
    for c in compiled:
        init = getattr(c, "_init_handles", None)
        if init is not None:
            init()
    torch.cuda.synchronize()
    return compiled


def co_resident(backends, x) -> int:
    """Blocks both ranks launch for ``x``; raises unless they fit at one 16-warp block per SM."""
    blocks = sum(b.grid(x.numel(), x.element_size()) for b in backends)
    sms = torch.cuda.get_device_properties(DEV).multi_processor_count
    if blocks > sms:
        raise RuntimeError(f"{blocks} blocks for two ranks > {sms} SMs: rank 1 may never become resident")
    return blocks


def no_self_handshake(name: str, rank1) -> None:
    """Rank 1's variant (``rank`` specialised to 1 by Triton) signals and waits once per barrier: rank 0 only."""
    ptx = rank1.asm["ptx"]
    barriers = 1 if name == "one_shot_pull" else 2
    sends, waits = ptx.count("atom.release.sys.global.cas"), ptx.count("atom.acquire.sys.global.cas")
    check(f"{name}: compiled rank 1 of 2 handshakes with rank 0 only (no handshake with itself)",
          (sends, waits) == (barriers, barriers), f"{sends} signals, {waits} waits for {barriers} barrier(s)")


def freed_pads_were_reused() -> None:
    """The first version's bug, shown without a kernel: pads known only by address, then the test tensors."""
    pads = [torch.zeros(2048, dtype=torch.int32, device=DEV) for _ in range(2)]  # its 128 × 2 × 8 ints
    addresses = {p.data_ptr() for p in pads}
    del pads
    x = torch.randn(4096, device=DEV, dtype=torch.bfloat16)
    out = torch.full_like(x, 7.0)
    reused = addresses & {x.data_ptr(), out.data_ptr()}
    check("diagnosis: pads kept only by address are reused by the next same-size tensors (the first version's "
          "wrong-peer and happy-path failures)", bool(reused), f"{len(reused)} of 2 pad addresses reused")


def happy_path(name: str) -> None:
    b0, b1 = pair(name, spin_limit=1 << 20)
    x = [torch.randn(NUMEL, device=DEV, dtype=torch.bfloat16) for _ in range(2)]
    outs = [torch.empty_like(t) for t in x]
    compiled = preload((b0, b1), x[0])
    blocks = co_resident((b0, b1), x[0])
    if name != "one_shot":
        no_self_handshake(name, compiled[1])
    streams = [torch.cuda.Stream() for _ in range(2)]
    torch.cuda.synchronize()
    ok = True
    want = (x[0].float() + x[1].float()).to(torch.bfloat16)
    for _ in range(3):  # several calls: the double-buffered slots alternate
        for o in outs:
            o.fill_(-1.0)
        torch.cuda.synchronize()
        for b, s, xi, o in zip((b0, b1), streams, x, outs):
            with torch.cuda.stream(s):
                b.run(xi, o)
        torch.cuda.synchronize()
        ok &= torch.equal(outs[0], want) and torch.equal(outs[1], want)
    b0.check_errors()
    b1.check_errors()
    check(f"{name}: two ranks on two streams sum correctly over 3 calls, no error word",
          ok, f"{blocks} blocks in all, {NUMEL:,} bf16")


def lone_call(b0, x, out, graph: bool, b1=None) -> None:
    """Rank 0 alone (eagerly or as a CUDA-graph replay after one complete call of both ranks)."""
    if not graph:
        b0.run(x, out)
        return
    streams = [torch.cuda.Stream() for _ in range(2)]
    torch.cuda.synchronize()
    for b, s in zip((b0, b1), streams):
        with torch.cuda.stream(s):
            b.run(x, torch.empty_like(x))
    torch.cuda.synchronize()
    b0.check_errors()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        b0.run(x, out)
    out.fill_(7.0)
    g.replay()


def raised_text(backend) -> str:
    try:
        backend.check_errors()
    except ef.AllReduceTimeout as exc:
        return str(exc)
    return ""


def timeout_path(name: str, graph: bool = False) -> None:
    b0, b1 = pair(name, spin_limit=20000)
    x = torch.randn(4096, device=DEV, dtype=torch.bfloat16)
    out = torch.full_like(x, 7.0)
    preload((b0, b1), x)
    lone_call(b0, x, out, graph, b1)
    torch.cuda.synchronize()
    code = b0.errors.code()
    raised = raised_text(b0)
    backend, kind, peer = ef.decode(code) if code else ("", 0, 0)
    want_kind = ef.KIND_DATA if name == "one_shot" else ef.KIND_WAIT
    where = " (CUDA graph replay)" if graph else ""
    check(f"{name}: lone rank 0 times out and the host raises, naming peer rank 1{where}",
          bool(raised) and (backend, kind, peer) == (name, want_kind, 1) and "peer rank 1" in raised
          and name in raised and int(b0.errors.claim.item()) == 1, raised[:160])
    if name == "one_shot":
        check(f"one_shot: the timed-out output is NaN, not a partial sum{where}", bool(torch.isnan(out).all()))
    try:
        b0.run(x, out)
        refused = False
    except ef.AllReduceTimeout:
        refused = True
    check(f"{name}: later calls refuse to run{where}", refused)
    RESULTS.setdefault("codes", {})[f"{name}{where}"] = {"code": code, "kind": kind, "peer": peer}


def first_error_kept() -> None:
    """Rank 1 never took rank 0's previous signal: the signal times out first (kind 2), then the wait (kind 3);
    the error word must keep the first."""
    b0, b1 = pair("one_shot_pull", spin_limit=20000)
    x = torch.randn(4096, device=DEV, dtype=torch.bfloat16)
    preload((b0, b1), x)
    b0.buf.pads[1][0 * 2 + 0] = 1  # block 0 of rank 0's signal, still in rank 1's pad
    torch.cuda.synchronize()
    b0.run(x, torch.empty_like(x))
    torch.cuda.synchronize()
    kind_peer = ef.decode(b0.errors.code())[1:]
    check("one_shot_pull: the first timeout is kept (signal not taken), not the later wait",
          kind_peer == (ef.KIND_SIGNAL, 1), raised_text(b0)[:160])


def lone_seconds(name: str, limit: int) -> float:
    b0, _ = pair(name, spin_limit=limit)
    x = torch.randn(256, device=DEV, dtype=torch.bfloat16)
    out = torch.empty_like(x)
    preload((b0,), x)
    t0 = time.perf_counter()
    b0.run(x, out)
    torch.cuda.synchronize()
    took = time.perf_counter() - t0
    if not b0.errors.code():
        raise RuntimeError(f"{name} alone did not time out at {limit} polls")
    return took


def ns_per_poll() -> None:
    """Time a lone rank 0 (one block, one waiting thread or block) at two limits; the slope is one poll."""
    lo, hi = 1 << 16, 1 << 20
    text = []
    for name, key in (("one_shot", "push"), ("one_shot_pull", "barrier")):
        slope = (lone_seconds(name, hi) - lone_seconds(name, lo)) / (hi - lo)
        RESULTS[f"{key}_ns_per_poll"] = slope * 1e9
        RESULTS[f"{key}_default_limit_s"] = slope * ef.DEFAULT_SPIN_LIMIT
        text.append(f"{key} {slope * 1e9:.1f} ns/poll = {slope * ef.DEFAULT_SPIN_LIMIT:.1f} s at the default "
                    f"{ef.DEFAULT_SPIN_LIMIT:,} polls")
    check("poll cost measured", all(RESULTS[f"{k}_ns_per_poll"] > 0 for k in ("push", "barrier")), "; ".join(text))


def run(label: str, cmd: list[str], out: Path, timeout: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
        text, rc = r.stdout + r.stderr, r.returncode
    except subprocess.TimeoutExpired as exc:
        text, rc = f"timed out after {timeout} s: {exc}", -1
    (out / f"{label}.log").write_text(text)
    check(f"{label} (rc {rc}, {time.time() - t0:.0f} s)", rc == 0, text.strip().splitlines()[-1][:200] if text.strip() else "")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="out")
    out = Path(ap.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    RESULTS["device"] = torch.cuda.get_device_name(DEV)
    RESULTS["torch"] = torch.__version__
    import triton

    RESULTS["triton"] = triton.__version__
    steps = [freed_pads_were_reused, lambda: happy_path("one_shot"), lambda: happy_path("one_shot_pull"),
             lambda: happy_path("two_shot"), lambda: timeout_path("one_shot"), lambda: timeout_path("one_shot_pull"),
             lambda: timeout_path("two_shot"), lambda: timeout_path("one_shot", graph=True),
             lambda: timeout_path("two_shot", graph=True), first_error_kept, ns_per_poll]
    for i, step in enumerate(steps):
        t0 = time.time()
        try:
            step()
        except Exception as exc:  # noqa: BLE001 - report and go on to the next check
            check(f"step {i} raised {type(exc).__name__}", False, str(exc)[:300])
        print(f"  (step {i}: {time.time() - t0:.1f} s)", flush=True)
    py = sys.executable
    run("bench_1gpu", [py, "-m", "tpkit", "bench", "allreduce", "--nproc", "1", "--max-size", "64KiB",
                       "--repeats", "2", "--iters", "3", "--explain"], out, 120)
    run("probe", [py, "-m", "tpkit", "probe", "--out", str(out / "machine.json")], out, 40)
    run("gpu_tests", [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/runtime/test_gpu.py",
                      "tests/runtime/test_topology.py", "tests/runtime/test_kv_alloc.py",
                      "tests/comm/test_gpu_allreduce.py", "tests/engines/test_vllm_gpu.py",
                      "tests/comm/test_error_flag.py"], out, 150)
    (out / "timeout_check.json").write_text(json.dumps(RESULTS, indent=1))
    failed = [k for k, v in RESULTS.items() if isinstance(v, dict) and v.get("ok") is False]
    print(f"{'ALL PASSED' if not failed else 'FAILED: ' + '; '.join(failed)}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
