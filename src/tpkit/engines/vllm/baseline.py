"""vLLM's start-up baseline: the memory in use at its init snapshot, and what start-up creates after it
(vLLM 0.33 ``vllm/v1/worker/gpu_worker.py`` ``Worker.init_device``,
``vllm/v1/worker/utils.py`` ``request_memory``, ``vllm/distributed/device_communicators/custom_all_reduce.py``
``CustomAllreduce.__init__``).

The terms come from the shared start-up cost model (``tpkit.startup``); this policy says only what vLLM
charges, under which names and when:

    term                 vLLM's name                     charged
    CUDA context         CUDA context                    always
    NCCL init, warm-up   NCCL communicator init,         tp × pp × dp > 1
                         NCCL first all-reduce buffers
    custom all-reduce    custom all-reduce buffers       on its world sizes and links, not with
                                                         --disable-custom-all-reduce (``allreduce.py``)
    torch symm-mem AR    torch symm-mem all-reduce       ≥ 0.11, TP group on cap 9.x/10.x (``allreduce.py``)
                         buffer
    MNNVL Lamport        custom all-reduce MNNVL …       ≥ 0.27 with multicast (``allreduce.py``)
    the caller's extra   (their own names)               before cuBLAS, always before the snapshot
    cuBLAS               cuBLAS/cuBLASLt handles         always

Where each counts: V0 charges all of it to the budget (its "non_torch_memory" counts everything outside
torch's allocator); V1 charges only what is created after its init snapshot, as non-torch increase: NCCL and
the all-reduce buffers before 0.11.0 (``v1/worker/gpu_worker.py init_device`` takes the snapshot before the
distributed init in 0.10.x), cuBLAS up to 0.32 (the cuBLAS/cuBLASLt warm-up before the snapshot arrives in
0.33.0; earlier the profile run's first GEMM creates the handles).  Everything before the snapshot sits outside
the budget and only tightens the start-up free-memory check.  With a ``MachineProfile`` the tightest GPU's
measured total and free memory replace the catalog total.
"""

from __future__ import annotations

from tpkit.engines.vllm.versions import VllmRules
from tpkit.hardware.gpu import GpuSpec
from tpkit.memory.ledger import LineItem
from tpkit.parallel import ParallelSpec
from tpkit.records import dataclass
from tpkit.startup.cost import Cost
from tpkit.startup.custom_allreduce import VllmAllreduceRelease, vllm_allreduce_costs
from tpkit.hardware.topology import GroupTopology
from tpkit.startup.links import LinkChoice, group_links, links_note
from tpkit.startup.nvls import vllm_nvls_cost
from tpkit.startup.terms import cublas, cuda_context, nccl_costs, startup_costs, vllm_nontorch_growth
from tpkit.units import Bytes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.hardware.machine import MachineProfile

__all__ = ["Baseline", "plan_baseline", "custom_allreduce_cost", "allreduce_costs", "profile_nontorch_growth",
           "others_growth_line", "OTHERS_GROWTH_ITEM", "NAMES"]

NAMES = {"nccl_init": "NCCL communicator init", "nccl_warmup": "NCCL first all-reduce buffers",
         "cublas": "cuBLAS/cuBLASLt handles"}
"""vLLM's ledger names for the shared start-up terms (the others keep the cost model's names)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Baseline:
    """Device capacity and the memory in use when vLLM takes its init snapshot (limiting rank)."""

    capacity: LineItem
    """device total (catalog or measured)"""
    pre_existing: LineItem | None
    """memory other processes hold (machine profile only)"""
    uses: tuple[LineItem, ...]
    """what exists at vLLM's init snapshot: CUDA context, and NCCL, custom all-reduce, cuBLAS where the
    release creates them before it"""
    after_snapshot: tuple[LineItem, ...] = ()
    """start-up memory created after the snapshot (V1 charges it as non-torch increase)"""
    total_bytes: Bytes
    """``init_snapshot.total_memory`` (what the utilisation multiplies)"""
    rank_label: str
    context: Bytes = Bytes(0)
    """the CUDA context among ``uses`` (V0 ≥ 0.6.5 leaves it outside the budget: ``VllmRules.v0_context_outside``)"""

    @property
    def held(self) -> Bytes:
        """memory other processes hold (0 without a machine profile)"""
        return self.pre_existing.bytes if self.pre_existing else Bytes(0)

    @property
    def free_at_snapshot(self) -> Bytes:
        """``init_snapshot.free_memory``: capacity − what others hold − baseline uses."""
        held = self.pre_existing.bytes if self.pre_existing else Bytes(0)
        return self.capacity.bytes - held - sum((u.bytes for u in self.uses), Bytes(0))


def allreduce_costs(gpu: GpuSpec, links: GroupTopology, world: int, rules: VllmRules, *,
                    disable_custom_all_reduce: bool) -> tuple[Cost | None, tuple[Cost, ...]]:
    """The release's TP all-reduce buffers from the shared start-up model: (custom all-reduce or None, the others)."""
    release = VllmAllreduceRelease(torch_symm_mem=rules.torch_symm_mem_allreduce,
                                   world_sizes=rules.custom_ar_world_sizes, signal_bytes=rules.custom_ar_signal_bytes,
                                   staging_mib=rules.custom_ar_buffer_mib, mnnvl_lamport=rules.mnnvl_lamport)
    return vllm_allreduce_costs(gpu, links, world, release, disable_custom_all_reduce=disable_custom_all_reduce)


def custom_allreduce_cost(parallel: ParallelSpec, rules: VllmRules, gpu: GpuSpec | None = None,
                          machine: MachineProfile | None = None, links: LinkChoice | None = None) -> Cost:
    """vLLM's custom all-reduce buffers on the TP group for the release's rules (0 bytes when not initialised)."""
    from tpkit.hardware.catalog import lookup_gpu

    gpu = gpu or lookup_gpu("H100")
    car, _ = allreduce_costs(gpu, group_links(gpu, machine, range(parallel.tp), links), parallel.tp, rules,
                                  disable_custom_all_reduce=False)
    return car or Cost(key="custom_allreduce", item="custom all-reduce buffers", bytes=Bytes(0),
                       source=f"not initialised (TP {parallel.tp})")


_AFTER_SNAPSHOT_SRC = {
    "distributed": "created after vLLM's init snapshot: < 0.11.0 gpu_worker.init_device takes MemorySnapshot() "
                   "before init_worker_distributed_environment (vllm 0.10.1/0.10.2 wheels), so "
                   "memory_profiling counts it in non_torch_increase",
    "cublas": "created by the profile run's first GEMM, after vLLM's init snapshot (no cuBLAS warm-up in "
              "0.11.0 gpu_worker.init_device), so it lands in the profile's increase",
}
_DISTRIBUTED = ("nccl_init", "nccl_warmup", "nccl_nvls", "custom_allreduce", "allreduce_extra")


def _after_snapshot(key: str, rules: VllmRules) -> str | None:
    """Why the release creates term ``key`` after its init snapshot (V1 only), None when it exists before."""
    return _late(key, rules)


def _late(key: str, rules: VllmRules) -> str | None:
    if rules.engine != "V1" or rules.memory_rule == "v0_peak":
        return None  # V0 (and V1 < 0.9.1) charge everything anyway, so all stay before
    if key == "cublas" and rules.cublas_after_snapshot:
        return _AFTER_SNAPSHOT_SRC["cublas"]
    if key in _DISTRIBUTED and rules.distributed_after_snapshot:
        return _AFTER_SNAPSHOT_SRC["distributed"]
    return None


def nccl_window(rules: VllmRules) -> str:
    """Which start-up-table NCCL cells the release's TP × PP communicator reads (``tpkit.startup.table.nccl_entry``,
    helper ev33).  Before 0.11 (``distributed_after_snapshot``) the init snapshot precedes the distributed init and
    the non-torch increase is read after the profile run (V0 ``worker/worker.py`` ``init_device`` /
    ``determine_num_available_blocks``, 0.6.6.post1 / 0.7.1 / 0.8.5; V1 ``v1/worker/gpu_worker.py`` ``init_device``
    / ``determine_available_memory``, 0.10.2), so vLLM charges the communicator with every channel the profile
    connected: ``"profile"``, the cells of vLLM's own non-torch lines of those releases.  From 0.11.0 the snapshot
    follows the distributed init: the communicator and its 1-element warm-up sit before it (``"init"``, the cells of
    the init window) and what the profile connects grows after it (``profile_nontorch_growth``).  V0 (every
    release; its rules charge every non-torch byte, ``v0_peak``) reads ``"profile"``: its profile-end figure holds the
    whole communicator too."""
    return "profile" if rules.engine == "V0" or rules.distributed_after_snapshot else "init"


def _costs(gpu: GpuSpec, parallel: ParallelSpec, rules: VllmRules, machine: MachineProfile | None,
           context: Cost, disable_car: bool, extra: tuple[LineItem, ...],
           choice: LinkChoice | None = None) -> tuple[tuple[Cost, ...], frozenset]:
    """(every start-up term in creation order, the ids of vLLM's own all-reduce buffers among the extras).  The NCCL
    row's transport is the links of the group whose communicator NCCL builds (``_nccl_group``)."""
    links = group_links(gpu, machine, range(parallel.tp), choice)
    car, others = allreduce_costs(gpu, links, parallel.tp, rules, disable_custom_all_reduce=disable_car)
    own = tuple(LineItem(item=c.item, bytes=c.bytes, source=c.source) for c in others if c.bytes)
    group = links if parallel.tp > 1 else group_links(gpu, machine, _nccl_group(parallel), choice)
    nccl = nccl_costs(gpu, parallel.num_gpus, transport="nvlink" if group.full_nvlink else "pcie",
                      nodes=group.num_nodes, links=links_note(group), window=nccl_window(rules))
    nvls = vllm_nvls_cost(gpu, parallel.tp, rules.release, full_nvlink=links.full_nvlink, nodes=links.num_nodes)
    costs = startup_costs(
        context=context, nccl=nccl + ((nvls,) if nvls is not None else ()),
        custom_allreduce=car, extra=own + tuple(extra), cublas_cost=cublas(gpu))
    mine = {c.item for c in others}
    return costs, frozenset(mine)


def _nccl_group(parallel: ParallelSpec) -> range:
    """The ranks of the group whose NCCL communicator the start-up row sizes: the TP group (ranks 0 … tp − 1) at
    tp > 1; at tp 1 with pp > 1 the first PP group (ranks 0, tp, 2·tp, …: 0 … pp − 1), the only group of more than one
    rank.  vLLM builds a PyNccl communicator for every model-parallel group of more than one rank, the PP group's
    included (``init_model_parallel_group`` → ``GroupCoordinator``: ``use_pynccl=True`` and ``world_size > 1`` in
    0.4–0.6 parallel_state.py; ``use_device_communicator`` → ``CudaCommunicator``'s ``PyNcclCommunicator`` when
    ``world_size > 1`` from 0.7, vllm 0.6.3.post1 and 0.25.1 wheels), while a TP group of one rank builds none: a
    pp-only world's NCCL runs over the links between its stages' GPUs, not over one GPU's (which read as a full NVLink
    mesh: round ac33's A40 pp 2 starts on a PCIe host)."""
    return range(0, parallel.tp * parallel.pp, parallel.tp)


def _split(costs: tuple[Cost, ...], rules: VllmRules,
           own_allreduce: frozenset = frozenset()) -> tuple[tuple[LineItem, ...], tuple[LineItem, ...]]:
    """(lines before the init snapshot, lines after it)."""
    before, after = [], []
    for c in costs:
        key = "allreduce_extra" if c.key == "extra" and c.item in own_allreduce else c.key
        late = _after_snapshot(key, rules)
        if late is None:
            before.append(c.line(item=NAMES.get(c.key)))
        else:
            after.append(c.line(item=NAMES.get(c.key), note=f"; {late}"))
    return tuple(before), tuple(after)


def plan_baseline(gpu: GpuSpec, parallel: ParallelSpec, rules: VllmRules, machine: MachineProfile | None = None,
                  *, disable_custom_all_reduce: bool = False, extra_uses: tuple[LineItem, ...] = (),
                  links: LinkChoice | None = None) -> Baseline:
    """Capacity and pre-snapshot uses of the limiting rank.

    ``extra_uses``: memory the process allocates before vLLM's init snapshot (e.g. tpkit's all-reduce
    buffers), charged like the CUDA context in every era.  ``disable_custom_all_reduce`` drops vLLM's own
    custom all-reduce buffers (``--disable-custom-all-reduce``).  ``links``: what the user or the log says about the
    GPUs' links (``--link``, ``--no-p2p``, ``--nnodes``), in place of the catalog's or the profile's.
    """
    tight = None
    if machine is not None:
        from tpkit.startup.capacity import tightest_rank

        tight = tightest_rank(machine, parallel, gpu)
    context = cuda_context(gpu, tight.state if tight else None)
    costs, own = _costs(gpu, parallel, rules, machine, context, disable_custom_all_reduce, tuple(extra_uses), links)
    uses, after = _split(costs, rules, own)
    if tight is None:
        cap = LineItem(item="device memory", bytes=gpu.total_bytes, kind="capacity",
                       source=f"{gpu.name} total as CUDA reports it ({gpu.total_with_os_note()})")
        return Baseline(capacity=cap, pre_existing=None, uses=uses, after_snapshot=after,
                        total_bytes=gpu.total_bytes, rank_label="per GPU (every rank alike)" if parallel.pp < 2 else
                        "per GPU of the heaviest PP stage (the stages hold different layers: see the weights line)",
                        context=context.bytes)
    state = tight.state
    cap = LineItem(item="device memory", bytes=state.total_bytes, kind="capacity",
                   source=f"GPU {state.index} ({state.name}) total, measured by tpkit probe")
    held = LineItem(item="held by other processes", bytes=tight.held_by_others,
                    source=f"GPU {state.index}: total − measured free (tpkit probe)")
    return Baseline(capacity=cap, pre_existing=held, uses=uses, after_snapshot=after, total_bytes=state.total_bytes,
                    rank_label=f"GPU {state.index} (least free memory)", context=context.bytes)


def profile_nontorch_growth(gpu: GpuSpec, parallel: ParallelSpec, rules: VllmRules, *,
                            moe: bool = True, links: LinkChoice | None = None,
                            machine: MachineProfile | None = None) -> tuple[LineItem, ...]:
    """Non-torch memory that first appears during the V1 profile run, as lines.

    * From 0.11.0 (the init snapshot follows the distributed init, ``distributed_after_snapshot`` False) with
      tp × pp > 1: the NCCL communicators exist before the snapshot, warmed up by one one-element all-reduce, and
      the profile run's first large collectives connect further channels and protocols (NCCL ≥ 2.22 connects at
      runtime), next to kernel workspaces outside torch's allocator.  vLLM's ``memory_profiling`` counts it as
      non_torch_increase (≥ 0.27: inside total_consumed = init free − free after the profile) and charges it to
      the KV budget (utils/mem_utils.py, v1/worker/gpu_worker.py determine_available_memory; vllm 0.11.0 and
      0.28.0 wheels).  Its size is the start-up table's ``vllm_nontorch_growth`` row for the world (``tp2`` or
      ``tp>2``: public logs, beyond the family's cuBLAS, which is its own term), with its band.  At world 1 the rows give 0 beyond cuBLAS.
      A group on one node without CUDA peer access (``--no-p2p``, a log's "lacks GPU P2P capability", or a probed
      ``--machine`` profile) gets the world-1 row instead: NCCL then connects the ranks over its SHM transport,
      "used between devices when peer-to-peer cannot happen, therefore, host memory is used" (NCCL
      environment-variable docs, NCCL_SHM_DISABLE), so the lazily connected channels hold no device memory.  Evidence:
      kaggle-vllm's 2 x T4 runs (NCCL 2.27.5 'via SHM/direct/direct', 'isAllDirectP2p 0' on the same machine; vLLM
      0.18.1 source, eager, custom all-reduce off): weights + profile + growth took 0.35 GiB of the budget at tp 2 as at
      tp 1 (Llama-3.2-3B: 13.28 − 3.05 − 9.88 against 13.28 − 6.02 − 6.90 GiB), not the tp2 row's 0.46 GiB.
      A group on one node with peer access but no full NVLink mesh (PCIe) takes the row bounded by NCCL's whole
      footprint over PCIe at that world (``vllm_nontorch_growth(world, transport="pcie")``): the pre-0.11 lines
      behind the PCIe cells hold all of NCCL, of which only the part made after the 0.11+ snapshot grows (helper
      ntg, docs/accuracy.md §5 "vLLM non-torch growth by transport").
    * With DP > 1 (with or without EP: ``FusedMoE.forward_impl`` ``do_naive_dispatch_combine``, vllm 0.10.1),
      the MoE layers broadcast tokens over the DP group's torch.distributed NCCL communicator (the "naive"
      all-to-all), which NCCL creates lazily at that first use: its init and first-collective buffers land
      inside the profile.

    Start-up memory created after the snapshot (NCCL before 0.11.0, cuBLAS before 0.33) is charged separately
    (``Baseline.after_snapshot``).
    """
    zero = LineItem(item="non-torch growth during profiling", bytes=Bytes(0),
                    source="assumed 0 beyond the start-up lines created after the snapshot (listed separately)")
    if rules.engine != "V1" or rules.memory_rule == "v0_peak":
        return (zero,) if rules.engine == "V1" else ()
    parts: list[tuple[Bytes, Bytes, str]] = []
    world = parallel.tp * parallel.pp
    if not rules.distributed_after_snapshot and world > 1:
        parts.append(_tp_group_growth(gpu, world, links, machine))
    if parallel.dp > 1 and moe:
        group = group_links(gpu, None, range(0, parallel.num_gpus, parallel.tp * parallel.pp), links)
        nccl = nccl_costs(gpu, parallel.dp, transport="nvlink" if group.full_nvlink else "pcie",
                          nodes=group.num_nodes, window="profile")
        parts.append((sum((c.bytes for c in nccl), Bytes(0)), sum((c.uncertainty for c in nccl), Bytes(0)),
                      "DP-group NCCL communicator created lazily by the MoE all-to-all broadcast; init + first "
                      "collective " + nccl[0].source))
    if not parts:
        return (zero,)
    return (LineItem(item="non-torch growth during profiling", bytes=sum((p[0] for p in parts), Bytes(0)),
                     uncertainty=sum((p[1] for p in parts), Bytes(0)), source=" + ".join(p[2] for p in parts)),)



def _tp_group_growth(gpu: GpuSpec, world: int, links: LinkChoice | None,
                     machine: MachineProfile | None) -> tuple[Bytes, Bytes, str]:
    """(bytes, ±, source) of the TP × PP group's growth during the profile run (``profile_nontorch_growth``'s first
    bullet): the world-1 row without CUDA peer access on one node (NCCL's SHM transport), else the world's row, over
    PCIe where the node has no full NVLink mesh."""
    group = group_links(gpu, machine, range(world), links)
    if group.num_nodes == 1 and not group.p2p:
        c = vllm_nontorch_growth(1)
        return (c.bytes, c.uncertainty, f"tp × pp = {world} on one node without CUDA peer access: NCCL connects over "
                                        f"its SHM transport, whose buffers are host memory (NCCL docs, "
                                        f"NCCL_SHM_DISABLE), so the profile's collectives grow no device memory "
                                        f"beyond one rank's ({links_note(group)}); {c.source}")
    pcie = group.num_nodes == 1 and not group.full_nvlink
    c = vllm_nontorch_growth(world, transport="pcie" if pcie else None)
    over = f"over PCIe ({links_note(group)}), " if pcie else ""
    return (c.bytes, c.uncertainty, f"tp × pp = {world}: NCCL connections made lazily by the profile run's "
                                    f"collectives and workspaces outside torch (vLLM ≥ 0.11 charges them); "
                                    f"{over}{c.source}")


OTHERS_GROWTH_ITEM = "other processes' growth during the profile"
OTHERS_GROWTH_SOURCE = (
    "memory other processes on the GPU gained between vLLM's start-up free-memory sample and its after-profile "
    "sample (stated by the case's source); vLLM reads device-wide free memory (torch.cuda.mem_get_info) at both, so "
    "the gain is charged to the KV budget as if vLLM had allocated it: V0 0.4.1-0.6.3 worker.py "
    "determine_num_available_blocks (peak = init free - free after the profile), V0 0.7.1-0.10.0 and V1 >= 0.9.1 "
    "utils memory_profiling (non_torch_increase from the init snapshot; >= 0.27 total_consumed = init free - free "
    "after the profile), V1 0.7.1-0.9.0 gpu_worker.determine_available_memory (total - free after the profile, "
    "less torch's allocations: everything others hold then; V0 <= 0.3.0 and 0.6.4 likewise total - free)")
"""where the other processes' growth enters each release's budget (vllm 0.4.1, 0.6.3, 0.7.1, 0.7.3, 0.8.0, 0.8.5,
0.9.0, 0.9.1, 0.9.2, 0.10.0 and 0.30.0 wheels; helper co13, 2026-12-05)"""


def others_growth_line(growth: Bytes, rules: VllmRules) -> tuple[LineItem, ...]:
    """The memory other processes gained during vLLM's profile window as a non-torch line (none when 0).

    Every release that measures free memory before and after its profile charges the gain (``OTHERS_GROWTH_SOURCE``);
    memory they held already at the start is charged only by V1 0.7.1-0.9.0 (``memory_rule == "v0_peak"`` without
    ``v0_context_outside``: total - free after the profile) and by V0 <= 0.3.0 / 0.6.4, which the machine profile's
    ``used_by_others`` already gives.  V0 0.2.0-0.2.4 charge torch's peak alone (``v0_torch_peak_only``): nothing.
    A release's CUDA-graph estimate (>= 0.20, ``profile_cudagraph_memory``) is another device-wide free-memory
    difference taken after the profile; a gain that falls in that capture is not this line (no source states one)."""
    if growth == Bytes(0) or rules.v0_torch_peak_only:
        return ()
    return (LineItem(item=OTHERS_GROWTH_ITEM, bytes=growth, kind="use",
                     source=OTHERS_GROWTH_SOURCE),)
