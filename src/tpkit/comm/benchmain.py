"""Launch and report ``tpkit bench allreduce``: torchrun ranks, or ``--nproc N`` spawned processes."""

from __future__ import annotations

import datetime
import importlib
import json
import logging
import os
import re
import socket
import sys

from tpkit.comm.benchreport import rows_path
from tpkit.comm.benchrun import BenchConfig, env_rank, multicast_off, row_to_dict, worker
from tpkit.comm.profile import profile_to_dict
from tpkit.errors import RuntimeSetupError, TpkitError
from tpkit.fileio import write_atomic
from tpkit.units import format_bytes

__all__ = ["run_bench", "user_error_from_rank"]


def run_bench(opts: dict) -> int:
    """Run the bench as described by ``opts`` (the CLI's checked flags as a dict)."""
    ranks = env_rank()
    if ranks is not None:
        _rank_main(ranks[0], ranks[1], opts, "env://")
        return 0
    nproc = opts["nproc"]
    if nproc <= 1:
        _rank_main(0, 1, opts, f"tcp://127.0.0.1:{_free_port()}")
        return 0
    import torch.multiprocessing as mp

    try:
        mp.spawn(_spawned, args=(nproc, opts, f"tcp://127.0.0.1:{_free_port()}"), nprocs=nproc, join=True)
    except mp.ProcessRaisedException as exc:
        user = user_error_from_rank(exc.error_index, str(exc))
        if user is None:
            raise
        raise user from None
    return 0


def user_error_from_rank(rank: int, traceback_text: str) -> TpkitError | None:
    """The ``TpkitError`` a spawned rank raised, rebuilt from its traceback text (None for any other error)."""
    found = list(re.finditer(r"^(tpkit(?:\.\w+)+)\.(\w+): ", traceback_text, re.M))
    if not found:
        return None
    last = found[-1]
    try:
        cls = getattr(importlib.import_module(last.group(1)), last.group(2))
    except (ImportError, AttributeError):
        return None
    if not (isinstance(cls, type) and issubclass(cls, TpkitError)):
        return None
    message = traceback_text[last.end():].strip()
    try:
        return cls(f"rank {rank}: {message}")
    except TypeError:
        return RuntimeSetupError(f"rank {rank}: {message}")


def _spawned(rank: int, world: int, opts: dict, init: str) -> None:
    _rank_main(rank, world, opts, init)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _device_for(rank: int, world: int, opts: dict):
    import torch

    if opts["device"] == "cpu":
        return torch.device("cpu")
    if torch.cuda.device_count() < world:
        raise RuntimeSetupError(f"{world} ranks need {world} GPUs, found {torch.cuda.device_count()}; "
                                "lower --nproc or use --device cpu --backend gloo")
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    return torch.device("cuda", local)


def _rank_main(rank: int, world: int, opts: dict, init: str) -> None:
    import torch.distributed as dist

    from tpkit.comm.allreduce import AllReduce

    multicast_off()
    logging.getLogger("tpkit.comm").setLevel(logging.ERROR)  # the report prints each skipped backend once
    device = _device_for(rank, world, opts)
    kwargs = {"device_id": device} if device.type == "cuda" else {}
    dist.init_process_group("nccl" if device.type == "cuda" else "gloo", init_method=init, rank=rank,
                            world_size=world, **kwargs)
    try:
        cfg = BenchConfig(sizes=opts["sizes"], backends=opts["backends"], modes=opts["modes"], dtype=opts["dtype"],
                          max_bytes=opts["max_bytes"] or max(opts["sizes"]), iters=opts["iters"],
                          graph_calls=opts["graph_calls"], repeats=opts["repeats"],
                          backend_options=opts.get("backend_options") or {})
        ar = AllReduce.create(dist.group.WORLD, max_bytes=cfg.max_bytes, backends=cfg.backends, device=device,
                              **cfg.backend_options)
        _report(rank, world, opts, cfg, ar, device)
    finally:
        dist.barrier()
        dist.destroy_process_group()


def _report(rank, world, opts, cfg, ar, device) -> None:
    import torch

    from tpkit.comm import benchreport as rep

    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    ceiling = rep.link_ceiling_gbps(name) if device.type == "cuda" else None
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    source = (f"tpkit {' '.join(opts.get('argv', []))} | {world}× {name} | torch {torch.__version__}"
              f" | {stamp}")
    say = (lambda *a: print(*a, flush=True)) if rank == 0 else (lambda *a: None)
    say(f"# {source}\n# topology: {ar.topology.describe()}; buffers {format_bytes(cfg.max_bytes)}")
    for n, why in ar.skipped.items():
        say(f"# skipped {n}: {why}")
    rows = worker(cfg, ar, sorted(ar.backends))
    mode = "graph" if "graph" in cfg.modes and device.type == "cuda" else "eager"
    profile = rep.build_profile(rows, world, source=source, mode=mode, dtype=cfg.dtype, ceiling=ceiling)
    if world > 1 and not opts.get("keep_profile"):
        ar.set_profile(profile)
    rows += worker(cfg, ar, ["auto"]) if world > 1 else []
    say(rep.format_table(rows, world, ceiling))
    for m in cfg.modes if world > 1 else ():
        summary = rep.speed_summary(rows, world, m)
        if summary:
            say(f"\n# auto vs best of NCCL / torch symm-mem ({m} mode, same run):\n" + summary)
    if opts.get("explain"):
        say(_explain_text(ar, cfg, device.type == "cuda"))
    if rank == 0:
        _write_outputs(opts, rows, profile, ar, cfg, world, mode)


def _explain_text(ar, cfg, cuda: bool) -> str:
    """Dispatch per size: graph and eager decisions on GPUs, eager only on CPU ranks (no CUDA graphs there)."""
    from tpkit.comm.explain import explain_backends, format_explain

    modes = ("graph", "eager") if cuda else ("eager",)
    head = ("CUDA-graph capture uses the graph rows, eager calls the eager rows" if cuda
            else "CPU ranks run eager calls only")
    lines = [f"\n# dispatch ({cfg.dtype}, world size {ar.world_size}, {ar.topology.describe()}); {head}:"]
    for n in cfg.sizes:
        decisions = {m: ar.decide_bytes(n, cfg.dtype, m) for m in modes}
        picks = " ".join(f"{m} {d.backend:<18}" for m, d in decisions.items())
        lines.append(f"  {format_bytes(n):>10} → {picks} {decisions[modes[0]].reason}")
    out = "\n".join(lines)
    for mode in modes:
        uses = explain_backends(world_size=ar.world_size, dtype=cfg.dtype, topology=ar.topology, profile=ar.profile,
                                env=ar.env, available=ar.available, skipped_at_init=ar.skipped, sizes=cfg.sizes,
                                mode=mode)
        # the backends skipped at init were printed once at the top ("# skipped NAME: why"): named, not repeated
        listed = [u for u in uses if u.backend not in ar.skipped]
        out += f"\n# backends ({mode} calls):\n" + format_explain(listed)
        if len(listed) < len(uses):
            out += f"\n  (skipped at init, see above: {', '.join(u.backend for u in uses if u.backend in ar.skipped)})"
    return out


def _write_outputs(opts, rows, profile, ar, cfg, world, mode) -> None:
    from tpkit.comm import benchreport as rep

    if opts.get("json"):
        write_atomic(opts["json"], json.dumps(profile_to_dict(profile), indent=1))
        write_atomic(rows_path(opts["json"]), json.dumps([row_to_dict(r) for r in rows], indent=1))
        print(f"# wrote {opts['json']}", file=sys.stderr)
    if opts.get("plot") and world > 1:
        chosen = {n: ar.decide_bytes(n, cfg.dtype, mode).backend for n in cfg.sizes}
        rep.plot_rows(rows, opts["plot"], world=world, chosen=chosen, mode=mode,
                      title=f"{cfg.dtype} all-reduce, {world} ranks ({mode} mode)")
        print(f"# wrote {opts['plot']}", file=sys.stderr)
