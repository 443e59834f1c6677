"""The start-up terms a serving process charges before its weights, and the order it creates them.

    term               bytes from                                          charged when
    CUDA context       the probe's own context on the deciding GPU (a      always
                       measurement: no band), else the start-up table by
                       GPU family; a family with < 3 samples (or an NVIDIA
                       GPU without one): the model by SMs × threads per SM
    NCCL init          the start-up table by transport (NVLink / PCIe)     the engine's start-up world > 1
    NCCL warm-up       and world size, split in the measured ratio
    custom all-reduce  the engine's implementation (``custom_allreduce``)  the engine initialises it
    extra              the caller (e.g. tpkit's own all-reduce buffers)    given
    cuBLAS             the start-up table by GPU family                    always
    process overhead   an engine's own start-up allocations (SGLang: what  the engine has one
                       init_torch_distributed allocates besides NCCL)

Every table term carries its ± band (``Cost.uncertainty``) and is returned at the band end being planned
(``tpkit.memory.band``); ``startup_costs`` resolves the terms an engine passes in the same way, so a constant
such as ``SGLANG_PROCESS_OVERHEAD`` moves with the band too.
"""

from __future__ import annotations

from tpkit.hardware.gpu import GpuSpec, is_nvidia
from tpkit.memory.ledger import LineItem
from tpkit.startup.cost import Cost
from tpkit.startup.families import gpu_family
from tpkit.hardware.sm import resident_threads
from tpkit.startup.table import context_model, entry, nccl_entry, nccl_init_fraction, own_samples
from tpkit.units import Bytes, gib_text

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.hardware.machine import GpuState

__all__ = ["cuda_context", "nccl_costs", "cublas", "extra_costs", "startup_costs", "SGLANG_PROCESS_OVERHEAD",
           "sglang_process_overhead", "table_cost", "sglang_load_extra", "vllm_nontorch_growth"]


def table_cost(key: str, term: str, table_key: str, *, item: str, note: str = "") -> Cost:
    """A ``Cost`` from the start-up table cell ``term[table_key]``, at the current band end."""
    e = entry(term, table_key)
    return Cost(key=key, item=item, bytes=e.bytes, uncertainty=e.uncertainty, source=e.source + note).resolved()


_INIT = entry("sglang_tp1_init", "all")
SGLANG_PROCESS_OVERHEAD = Cost(
    key="process_overhead", item="SGLang init_torch_distributed (besides NCCL)", bytes=_INIT.bytes,
    uncertainty=_INIT.uncertainty,
    source="SGLang's 'Init torch distributed ends. mem usage' at tp 1, every release pooled (0.00 GiB up to 0.5.7, "
           "0.09 GiB from 0.5.8, H100/H200/B200/16 GB cards); " + _INIT.source)
"""What SGLang's ``init_torch_distributed`` allocates at world 1, every release pooled (the SGLang rules charge the
release's cell, ``sglang_process_overhead``, before weights on every world).

It replaces the 0.39 GiB "process overhead" fitted on one RTX PRO 6000 log: the "Load weight begin" lines of 16
Hopper start-ups, one B200, one RTX 5090, two L40S/L4 and one A100 put total − free before weights at the CUDA
context plus this term (docs/accuracy.md §5), with no 0.39 GiB left over on any of them.
"""


def sglang_process_overhead(since_058: bool | None) -> Cost:
    """``SGLANG_PROCESS_OVERHEAD`` for a release: SGLang's 'Init torch distributed ends. mem usage' at tp 1 prints
    0.00 GiB up to 0.5.7 and 0.09 GiB from 0.5.8 (evidence rows with a release or a date that places it: docs builds
    of main switch on 2026-01-20, between the 0.5.7 and 0.5.8 wheels; 0.5.10 and 0.5.20 cases print 0.09).  The
    likely cause (not measured): 0.5.8's ``GroupCoordinator.__init__`` (distributed/parallel_state.py; not in 0.5.7)
    puts a tensor on the GPU for every group (``active_ranks``), so at world 1 the first CUDA allocation and kernel
    launch, and what the context allocates at its first launch, fall inside that line; before 0.5.8 they came later
    (the tp-1 load rows of 0.3.5–0.4.4 hold 0.09–0.19 GiB beyond weights and rotary cache, those of 0.5.10/0.5.20
    ≈ 0).  ``None`` (release unknown): every row pooled."""
    key = "all" if since_058 is None else (">=0.5.8" if since_058 else "<0.5.8")
    e = entry("sglang_tp1_init", key)
    return Cost(key="process_overhead", item="SGLang init_torch_distributed (besides NCCL)", bytes=e.bytes,
                uncertainty=e.uncertainty,
                source=f"SGLang's 'Init torch distributed ends. mem usage' at tp 1, releases {key}; " + e.source)


def cuda_context(gpu: GpuSpec | None, state: GpuState | None = None) -> Cost:
    """The CUDA context on ``state`` (a probed GPU): the probe's own context when it recorded one, which was
    measured on that very machine and driver (no band); else the start-up table for the GPU's family.

    A family with fewer than 3 samples of its own (turing, ampere, ampere-consumer, blackwell today) and an NVIDIA
    GPU of no family take the table's model instead, context = a + b × SMs × max resident threads per SM (fitted
    across families, one point per GPU; docs/accuracy.md §5, "CUDA context by SM count"): the driver sizes the
    context's local memory (per-thread stack) as max threads per SM × SMs × the per-thread size (NVIDIA developer
    forum "Local memory management", t/289339; ``cuCtxSetLimit`` CU_LIMIT_STACK_SIZE), so the context grows with
    the GPU's resident threads across families.  Families with ≥ 3 samples keep their measured cell; AMD GPUs and a
    GPU without an SM count or listed compute capability keep the family / pooled cell.

    A MIG slice (``gpu.mig_profile``) always takes the model with the slice's own SMs: every family cell was
    measured on whole cards, and the slice's local memory is sized for its SMs only (helper mig18, 2026-12-05: an
    RTX PRO 4500 Blackwell MIG 1g.16gb slice prints 'Free memory on device (15.46/15.66 GiB) on startup', 0.20 GiB
    in use, vp_210 / vp_500-vp_507, against the blackwell-consumer whole-card cell of 0.52 GiB)."""
    own = state.used_by_this_process_bytes if state is not None else Bytes(0)
    if own > Bytes(0):
        return Cost(key="cuda_context", item="CUDA context", bytes=own,
                    source=f"measured by tpkit probe on GPU {state.index} (the probe's own context)")
    family = gpu_family(gpu)
    model = context_model()
    n_own = own_samples("cuda_context", family) if family != "unknown" else 0
    nvidia = gpu is not None and is_nvidia(gpu.vendor)
    threads = resident_threads(gpu.sm_count, gpu.compute_capability) if nvidia else None
    mig = gpu is not None and gpu.mig_profile is not None
    if model.use and threads is not None and (n_own < model.below_n or mig):
        why = (f"a MIG slice: the family's {n_own} sample(s) are whole cards" if mig and n_own >= model.below_n else
               f"family {family} has {n_own} sample(s) of its own (< {model.below_n})")
        return Cost(key="cuda_context", item="CUDA context", bytes=model.predict(threads),
                    uncertainty=model.uncertainty,
                    source=(f"{gpu.name}: {gpu.sm_count} SMs × {threads // gpu.sm_count} threads per SM; {why}; "
                            + model.source)
                    ).resolved()
    return table_cost("cuda_context", "cuda_context", family, item="CUDA context")


def nccl_costs(gpu: GpuSpec | None, world: int, *, transport: str, nodes: int = 1,
               links: str = "", engine: str | None = None, window: str | None = None) -> tuple[Cost, ...]:
    """NCCL communicator init and its first (warm-up) collective for a ``world``-rank group over ``transport``
    (``"nvlink"``, ``"pcie"``, or ``"xgmi"``: RCCL on AMD Instinct boards, whose cells hold SGLang's distributed init
    there less its HIP all-reduce buffers); none for one rank.  The table's total is split in the ratio measured on 2× H200.

    ``nodes`` > 1: the group spans hosts.  No row of the start-up table measures NCCL's GPU memory over a network
    transport (InfiniBand/RoCE with GPUDirect keeps its buffers on the GPU, sockets in host memory), so the row of
    ``transport`` is charged as an ASSUMPTION with a band of ± its nominal (from none of it to twice it).
    ``links``: which links were assumed and from where (``GroupTopology.describe`` and its source), stated in the
    lines' source.  ``engine="sglang"`` / ``window="init"`` read the init window's cell, ``window="profile"`` the
    cell of vLLM's non-torch lines before 0.11 (``nccl_entry``)."""
    if world < 2:
        return ()
    e = nccl_entry(transport, world, engine=engine, window=window)
    share = nccl_init_fraction()
    total_unc = e.uncertainty
    source = e.source
    if nodes > 1:
        total_unc = max(e.uncertainty, e.bytes)
        source += (f"; the group spans {nodes} nodes: NCCL's GPU memory over the network is not measured in this "
                   f"repository, the {transport} row is an ASSUMPTION, band ± its nominal")
    init = Bytes(round(e.bytes.bytes * share))
    init_unc = Bytes(round(total_unc.bytes * share))
    split = f" (init {share:.0%} of the total, as measured on 2× H200)"
    return (Cost(key="nccl_init", item="NCCL process group", bytes=init, uncertainty=init_unc,
                 source=source + split + (f"; links: {links}" if links else "")).resolved(),
            Cost(key="nccl_warmup", item="NCCL communicator warm-up", bytes=e.bytes - init,
                 uncertainty=total_unc - init_unc, source=source + split).resolved())


def cublas(gpu: GpuSpec | None) -> Cost:
    """cuBLAS/cuBLASLt handles and workspace (first GEMM)."""
    return table_cost("cublas", "cublas", gpu_family(gpu), item="cuBLAS workspace")


def sglang_load_extra(since_058: bool | None = None) -> Cost:
    """What SGLang's model load allocates beyond the parameters and the rotary cos/sin cache ("Load weight begin" −
    "Load weight end" avail, minus the weights and the cache; 10 cases on H100/B200/L4/RTX 4090/RTX 3090, SGLang
    0.3.5–0.5.20), by release: up to 0.5.7 every row holds 0.09–0.22 GiB (7 rows, H100/RTX 3090/L4, tp 1 and 4);
    from 0.5.8 the tp-1 rows hold ≈ 0 (0.5.10, 0.5.20) and one tp-4 row 0.18 (0.5.15).  ``load_model`` keeps no
    other buffer (0.4.2.post1 / 0.5.9 wheels); the likely cause is what the CUDA context and the caching allocator
    take at the first kernel launches, which 0.5.8 moved into the init line (``sglang_process_overhead``).  The
    SGLang rules charge it with the weights and the cache (``tpkit.engines.sglang.load``).  ``None``: every row."""
    key = "all" if since_058 is None else (">=0.5.8" if since_058 else "<0.5.8")
    return table_cost("extra", "sglang_load_extra", key, item="SGLang model-load allocations (beyond the weights)")


def vllm_nontorch_growth(world: int, *, transport: str | None = None) -> Cost:
    """Non-torch memory vLLM (≥ 0.11) finds grown after its init snapshot beyond cuBLAS (its own term), for a
    ``world`` of tp × pp ranks: NCCL channels and protocols connected lazily at the profile run's first large
    collectives and kernel workspaces outside torch's allocator (late-0.2x 'non-torch' / 'consumed memory' lines).
    The vLLM rules charge it at world > 1 (``tpkit.engines.vllm.baseline.profile_nontorch_growth``); at world 1 the
    rows give 0 beyond cuBLAS.  Rows by world: ``tp1``, ``tp2`` and ``tp>2``.  World 2 has its own row (two printed
    splits: vLLM 0.10.2 on 2 x H200, 0.46 GiB beyond NCCL's init + warm-up and cuBLAS; llm-d's 0.14-era table on
    2 x H100, 0.45 GiB beyond cuBLAS; against 0.85-1.64 GiB at world 4 and 8): at two GPUs NCCL does not set up NVLink SHARP, whose buffers it otherwise allocates at the first
    NVLS collective (NCCL src/transport/nvls.cc ``ncclNvlsInit``: nvlsSupport stays 0 when ``gpuCount <= 2`` without
    MNNVL; ``ncclNvlsBufferSetup``; read at NVIDIA/nccl commit 178b6b7), and a ring or chain has a single peer, so the
    larger worlds' row does not carry over.  Not the whole cause: A100s (no NVLS) show the same split.

    ``transport="pcie"`` (one node, CUDA peer access, no full NVLink mesh; helper ntg, 2026-12-04): the row is
    bounded by the start-up table's vLLM NCCL cell for PCIe at that world (``nccl[profile:pcie:W]``: vLLM's non-torch
    lines before 0.11, helper ev33), when that is smaller.  Why it bounds it: before 0.11
    ``gpu_worker.init_device`` takes its snapshot before ``init_worker_distributed_environment`` (vllm 0.10.1/0.10.2 wheels; V0 ``worker.py init_device``, 0.7.1), so
    the non-torch lines of those releases, from which the PCIe cells are derived, hold NCCL's communicators, their
    warm-up and every channel the profile run connected (vl_021: 8 x L40S, vLLM 0.10.2, NCCL 2.27.3, 0.21 GiB in
    all); from 0.11 the init and warm-up sit before the snapshot (0.11.0 / 0.19.0 wheels) and only the rest
    grows.  With NCCL >= 2.22 connecting an algorithm's buffers at its first use (``NCCL_RUNTIME_CONNECT``,
    src/init.cc and src/group.cc, NVIDIA/nccl v2.27.5) that rest is what the profile's first large collectives
    connect, and each connection's buffers scale with the channels (SIMPLE 4 MiB + LL128 ~4.7 MiB + LL 0.5 MiB per
    channel and peer, src/init.cc DEFAULT_*BUFFSIZE): few over PCIe, 16-32 over NVSwitch, plus NVLink SHARP buffers
    there at more than two GPUs (src/transport/nvls.cc ``ncclNvlsBufferSetup``: channels x 2 x 1 MiB x ranks).
    The PCIe cells' samples are L4 / L40S / RTX 4090 / RTX 2080 Ti; the tp>2 row's are NVLink (GB200 tp4, H200 tp8)
    and one 0.27 'consumed memory' figure on 4 x RTX PRO 6000, a definition that also counts torch memory kept
    after the load (world-1 logs of 0.26.1-0.31 print consumed − 'Model loading took' of 0.25-2.29 GiB without any
    NCCL, against 0.07-0.22 GiB of non-torch memory at world 1 in 0.14-0.26; docs/accuracy.md §5)."""
    key = "tp1" if world < 2 else "tp2" if world == 2 else "tp>2"
    item = "non-torch memory grown after the snapshot"
    if transport not in (None, "pcie"):
        raise ValueError(f"transport must be None or 'pcie' (one node, peer access, no NVLink mesh), got {transport!r}")
    if transport is None or world < 2:
        return table_cost("extra", "vllm_nontorch_growth", key, item=item)
    row, nccl = entry("vllm_nontorch_growth", key), nccl_entry("pcie", world, window="profile")
    if nccl.bytes >= row.bytes:  # the nominals decide; the band end is applied to the cell taken
        return table_cost("extra", "vllm_nontorch_growth", key, item=item)
    return Cost(key="extra", item=item, bytes=nccl.bytes,
                uncertainty=nccl.uncertainty,
                source=(f"bounded by NCCL's whole footprint over PCIe at world {world} ({nccl.source}), below the "
                        f"vllm_nontorch_growth[{key}] row ({gib_text(row.bytes)}, its samples mostly NVLink): "
                        "before 0.11 the init snapshot precedes the distributed init, so the non-torch lines behind "
                        "the PCIe cells hold NCCL's init, warm-up and every connection the profile made; from 0.11 "
                        "only the part made after the snapshot grows, so it cannot exceed them")).resolved()


def extra_costs(lines: tuple[LineItem, ...]) -> tuple[Cost, ...]:
    """The caller's own start-up allocations (``use`` lines) as costs."""
    return tuple(Cost(key="extra", item=u.item, bytes=u.bytes, source=u.source, uncertainty=u.uncertainty)
                 for u in lines)


def startup_costs(*, context: Cost, nccl: tuple[Cost, ...], custom_allreduce: Cost | None,
                  extra: tuple[LineItem, ...] = (), cublas_cost: Cost,
                  process_overhead: Cost | None = None) -> tuple[Cost, ...]:
    """Every charged term in creation order, each at the current band end; a custom all-reduce of 0 bytes (not
    initialised) is left out."""
    car = (custom_allreduce,) if custom_allreduce is not None and custom_allreduce.bytes else ()
    tail = (process_overhead,) if process_overhead is not None else ()
    return tuple(c.resolved() for c in (context, *nccl, *car, *extra_costs(extra), cublas_cost, *tail))
