"""SGLang's pre-model-load baseline: free memory after the CUDA context, process groups and custom
all-reduce buffers, before weights (sglang 0.5.23 ``python/sglang/srt/distributed/bootstrap.py``
``measure_pre_model_load_memory``; custom all-reduce buffers: ``device_communicators/custom_all_reduce.py``,
``custom_all_reduce_v2.py``).

SGLang never computes these terms; it measures free memory after them (``pre_model_load_memory``, min over
the ranks of its replica).  tpkit predicts that measurement from the shared start-up cost model
(``tpkit.startup``); this policy says only what SGLang charges:

    term                      SGLang's name               charged
    CUDA context              CUDA context                always
    NCCL init, warm-up        NCCL process group,         tp × pp > 1 (PyNccl warm-up all-reduce)
                              NCCL communicator warm-up
    custom all-reduce         custom all-reduce buffers   CustomAllReduceV2 from 0.5.12 (issue 11 rule 9:
                                                          ``SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2`` defaults on
                                                          from 0.5.12; opt-in before), else legacy;
                                                          not with --disable-custom-all-reduce, without
                                                          GPU P2P, nor across nodes (``startup.links``)
    the caller's extra uses   (their own names)           before pre_model_load_memory
    SGLang init (not NCCL)    SGLang init_torch_distr…    always (start-up table, from SGLang logs)
    rank spread               rank spread (MIN over …)    tp × pp > 1 without a machine profile: 0 ± 0.05 GiB,
                                                          the band's high end only (``startup.rankspread``
                                                          ``sglang_plan_spread``: the MIN over ranks lies up to
                                                          that far below rank 0, p90 of 16 logs)
    cuBLAS                    cuBLAS workspace            AFTER the KV pool, out of the slack: ``init_cublas``
                                                          follows ``init_memory_pool`` in every release read
                                                          (0.2.15 … 0.5.3 ``model_runner.py``; 0.5.10
                                                          ``ModelRunner.initialize``; 0.5.15
                                                          ``init_attention_backends``; 0.5.23
                                                          ``attention_backend_setup.build_attention_backends``)

With a ``MachineProfile`` the starting point is the free memory of the tightest GPU, and SGLang's balance
check (min free < 0.9 × a rank's own free memory aborts start-up, §2.1) is applied to every replica.
"""

from __future__ import annotations

from tpkit.engines.sglang.versions import at_least
from tpkit.hardware.gpu import GpuSpec, is_amd
from tpkit.memory.ledger import LineItem
from tpkit.parallel import ParallelSpec
from tpkit.records import dataclass
from tpkit.startup.cache import startup_cache
from tpkit.engines.sglang.allreduce import custom_allreduce_cost
from tpkit.startup.links import LinkChoice, group_links, links_note
from tpkit.startup.rankspread import gpu_platform, sglang_plan_spread
from tpkit.startup.terms import cublas, cuda_context, nccl_costs, sglang_process_overhead, startup_costs
from tpkit.units import Bytes, format_bytes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.hardware.machine import MachineProfile

__all__ = ["Baseline", "plan_baseline", "custom_allreduce_cost"]

_BALANCE_RATIO = 0.9
"""SGLang aborts start-up when a rank's min-over-ranks free memory is below 0.9 × its own (§2.1)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Baseline:
    """The starting capacity and the uses that precede weight loading, for the tightest rank."""

    capacity: LineItem
    """device total (catalog) or measured free memory (machine profile)"""
    uses: tuple[LineItem, ...]
    """CUDA context, NCCL, custom all-reduce, the caller's extra uses, cuBLAS, process overhead"""
    rank_label: str
    """which GPU the ledger describes"""
    free_before_weights: Bytes
    """predicted ``pre_model_load_memory``: capacity − uses (bytes)"""
    after_pool: tuple[LineItem, ...] = ()
    """start-up terms SGLang creates after the KV pool (cuBLAS): they come out of the slack"""
    warnings: tuple[str, ...] = ()
    """notes for the plan (e.g. memory imbalance)"""




def plan_baseline(gpu: GpuSpec, parallel: ParallelSpec, era: str, machine: MachineProfile | None, *,
                  disable_custom_all_reduce: bool = False, extra_uses: tuple[LineItem, ...] = (),
                  version: str | None = None, links: LinkChoice | None = None) -> Baseline:
    """Capacity and pre-weight uses of the rank with the least memory.

    ``extra_uses``: memory the process allocates before SGLang measures ``pre_model_load_memory`` (e.g.
    tpkit's all-reduce buffers), charged like the CUDA context.  ``disable_custom_all_reduce`` drops SGLang's
    own custom all-reduce buffers (``--disable-custom-all-reduce``).  ``links``: what the user or the log says about
    the GPUs' links (``--link``, ``--no-p2p``, ``--nnodes``), in place of the catalog's or the profile's.
    """
    version = version or era
    if machine is None:
        return _catalog_baseline(gpu, parallel.tp, parallel.pp, version, disable_custom_all_reduce, extra_uses,
                                 links)
    return _baseline(gpu, parallel, version, machine, disable_custom_all_reduce, extra_uses, links)


@startup_cache(maxsize=512)
def _catalog_baseline(gpu: GpuSpec, tp: int, pp: int, version: str, disable_car: bool = False,
                      extra_uses: tuple[LineItem, ...] = (), links: LinkChoice | None = None) -> Baseline:
    """Baseline from the catalog total (memoised: it depends only on these values)."""
    return _baseline(gpu, ParallelSpec(tp=tp, pp=pp), version, None, disable_car, extra_uses, links)


_NOTES = {"nccl_init": "; world {world} (buffers grow with peers: UNVERIFIED)",
          "nccl_warmup": "; PyNccl 1-element warm-up all-reduce"}
"""what SGLang's ledger adds to the shared sources"""


def _baseline(gpu: GpuSpec, parallel: ParallelSpec, version: str, machine: MachineProfile | None,
              disable_car: bool = False, extra_uses: tuple[LineItem, ...] = (),
              choice: LinkChoice | None = None) -> Baseline:
    capacity, label, warnings, state = _capacity(gpu, parallel, machine)
    world = parallel.tp * parallel.pp
    links = group_links(gpu, machine, _nccl_group(parallel), choice)
    costs = startup_costs(
        context=cuda_context(gpu, state),
        nccl=nccl_costs(gpu, world, transport=_transport(gpu, links.full_nvlink), nodes=links.num_nodes,
                        links=links_note(links), engine="sglang"),
        custom_allreduce=None if disable_car else custom_allreduce_cost(gpu, parallel, version, machine, choice),
        extra=extra_uses, cublas_cost=cublas(gpu),
        process_overhead=sglang_process_overhead(at_least(version, "0.5.8")))
    platform = gpu_platform(gpu.vendor) or "cuda"  # the one vendor → platform map (startup.rankspread)
    spread = sglang_plan_spread(world, platform) if machine is None else None
    if spread is not None:
        spread = spread.resolved()
        if spread.bytes:  # the band's high end only: the nominal is rank 0's, the MIN over ranks may be lower
            costs = (*costs, spread)
    uses = tuple(c.line(note=_NOTES.get(c.key, "").format(world=world)) for c in costs if c.key != "cublas")
    after = tuple(c.line(item="cuBLAS workspace (after the KV pool, from the slack)") for c in costs
                  if c.key == "cublas")
    free = capacity.bytes - sum((u.bytes for u in uses), Bytes(0))
    return Baseline(capacity=capacity, uses=uses, rank_label=label, free_before_weights=free, after_pool=after,
                    warnings=warnings)


def _nccl_group(parallel: ParallelSpec) -> range:
    """The ranks whose links the NCCL row reads: the TP group (0 … tp − 1) at tp > 1; at tp 1 with pp > 1 the first
    PP group (0 … pp − 1), the only group of more than one rank.  SGLang's ``initialize_model_parallel`` (run in
    ``ModelRunner.init_torch_distributed`` before 'Init torch distributed ends' reads the free memory) builds the PP
    group with ``init_model_parallel_group(..., use_custom_allreduce=False, group_name="pp")``, whose
    ``GroupCoordinator`` makes a ``PyNcclCommunicator`` whenever ``use_pynccl and world_size > 1`` (use_pynccl True
    on CUDA), while a one-rank TP group makes none (``srt/distributed/parallel_state.py``, sglang 0.4.3, 0.4.6,
    0.5.0rc1, 0.5.10 and 0.5.16 wheels; round rl35, as vLLM's ``engines.vllm.baseline._nccl_group``).  One GPU's own
    "links" read as a full NVLink mesh, so a pp-only world on a PCIe host took the NVLink cell before."""
    if parallel.tp > 1:
        return range(parallel.tp)
    return range(0, parallel.tp * parallel.pp, parallel.tp)


def _transport(gpu: GpuSpec, full_nvlink: bool) -> str:
    """The start-up table's NCCL transport: ``xgmi`` on AMD GPUs (RCCL), whose cells are SGLang's distributed init
    on MI300X / MI355X less the release's HIP all-reduce buffers (aiter CustomAllreduce, QuickAllReduce: charged as
    the custom all-reduce line, ``tpkit.engines.sglang.allreduce``; helper xg27) — 0.9–1.2 GiB per rank at world 4
    and 2.1–3.7 GiB at world 8 in the 0.5.3–0.5.11 images, 7.1 GiB in sglang#2384's 0.4.0-era image: SGLang's ROCm
    images set ``NCCL_MIN_NCHANNELS=112`` (``docker/rocm.Dockerfile``), which sizes RCCL's per-channel buffers; else
    ``nvlink`` for a full NVLink mesh, ``pcie`` without one."""
    if is_amd(getattr(gpu, "vendor", None)):
        return "xgmi"
    return "nvlink" if full_nvlink else "pcie"


def _capacity(gpu: GpuSpec, parallel: ParallelSpec, machine: MachineProfile | None):
    """(capacity line, rank label, warnings, the deciding GPU's state or None)."""
    if machine is None:
        line = LineItem(item=f"{gpu.name} total", bytes=gpu.total_bytes, source=gpu.total_with_os_note(),
                        kind="capacity")
        given = gpu.total_source.startswith("--gpu-memory")
        return line, "per GPU (--gpu-memory total)" if given else "per GPU (catalog total)", (), None
    from tpkit.startup.capacity import tightest_rank

    tight = tightest_rank(machine, parallel, gpu)
    g = tight.state
    line = LineItem(item=f"free on GPU {g.index} ({g.name})", bytes=tight.free_before_process, kind="capacity",
                    source=f"machine profile: cudaMemGetInfo free, min over {tight.ranks} ranks (probe's own context "
                           f"{format_bytes(g.used_by_this_process_bytes)} added back)")
    return line, f"rank {tight.rank} = GPU {g.index} (min free)", _imbalance(machine, parallel, gpu), g


def _imbalance(machine: MachineProfile, parallel: ParallelSpec, gpu: GpuSpec) -> tuple[str, ...]:
    """SGLang's TP balance check: min free < 0.9 × a rank's own free memory aborts start-up (§2.1)."""
    if parallel.tp < 2:
        return ()
    from tpkit.startup.capacity import find_imbalance

    found = find_imbalance(machine, parallel, gpu, ratio=_BALANCE_RATIO)
    if found is None:
        return ()
    return (f"memory is unbalanced: GPU {found.tight.index} has {format_bytes(found.tight_free)} free, "
            f"GPU {found.rich.index} has {format_bytes(found.rich_free)} (min < 0.9 × local): SGLang raises "
            "'The memory capacity is unbalanced' at start-up; free the busy GPU or set "
            "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=false",)
