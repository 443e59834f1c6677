"""The workspace of vLLM's FlashInfer all-reduce + RMSNorm fusion pass (``fi_allreduce_fusion_workspace``): the
trtllm buffers of 0.17–0.21 and the mnnvl Lamport workspace of 0.26–0.34, by compute capability, TP size and the
largest fused all-reduce; what ``tpkit plan`` charges as a use before the KV budget.  Split from ``baseline.py``
(helper tidy29), which holds the rest of vLLM's start-up baseline."""

from __future__ import annotations

from tpkit.engines.vllm.versions import VllmRules
from tpkit.hardware.gpu import GpuSpec, is_amd
from tpkit.memory.ledger import LineItem
from tpkit.parallel import ParallelSpec
from tpkit.startup.links import LinkChoice, group_links
from tpkit.units import Bytes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.hardware.machine import MachineProfile

__all__ = ["fi_allreduce_fusion_workspace", "FI_AR_FUSION_RELEASES", "FI_AR_FUSION_MAX_SIZE_MIB",
           "FI_AR_MNNVL_RELEASES"]

FI_AR_FUSION_RELEASES = ((0, 17, 0), (0, 22, 0))
"""releases read for the FlashInfer all-reduce + RMSNorm fusion workspace (``fi_allreduce_fusion_workspace``):
0.17.0, 0.17.1, 0.18.0, 0.18.1, 0.19.0, 0.19.1, 0.20.0, 0.20.2 and 0.21.0 wheels (helpers c715, fi20), pinning
flashinfer-python 0.6.4 (0.17), 0.6.6 (0.18–0.19) and 0.6.8.post1 (0.20–0.21), all read.  From 0.22.0 (flashinfer
0.6.11.post2 and later) the trtllm buffers come from torch symmetric memory (``torch_symmetric_memory.py
_alloc_symm_buffer_bytes``), from 0.25.0 one node defaults to the mnnvl backend, and from 0.29.0 the standalone
FlashInfer all-reduce (``VLLM_ALLREDUCE_USE_FLASHINFER`` default 1) also builds a workspace: not charged (fi20;
0.26.0–0.33.x are charged since helper v17, ``FI_AR_MNNVL_RELEASES``)"""


FI_AR_MNNVL_RELEASES = ((0, 26, 0), (0, 35, 0))
"""releases whose one-node default is FlashInfer's mnnvl workspace, charged by ``fi_allreduce_fusion_workspace``
(helper v17): vllm 0.26.0, 0.27.0, 0.27.1, 0.28.0, 0.29.0, 0.30.0, 0.31.0, 0.32.0, 0.33.0 wheels (helper fi20's
downloads) with the flashinfer-python they pin, 0.6.14, 0.6.16.post3, 0.6.18, 0.6.18.post1, 0.7.0.post1, 0.7.2.post1.
``distributed/device_communicators/flashinfer_all_reduce.py _resolve_fi_ar_backend``: ``auto`` → mnnvl on one node
(the quant workspace reuses it, ``get_fi_ar_quant_workspace``); where mnnvl cannot build (no multicast) one node
falls back to trtllm (torch symmetric memory), not charged.  0.22.0–0.25.x are not charged (fi20: trtllm in torch
symmetric memory, 0.25.0's separate trtllm quant workspace; sizes not read).

0.34.0 (helper cur17b, vllm 0.33.0 / 0.34.0 wheels): ``compilation/passes/fusion/allreduce_rms_fusion.py`` is the
same file, ``config/vllm.py enable_allreduce_rms_fusion`` keeps its gates (the same body as 0.33.0), the pass table ``FI_ALLREDUCE_FUSION_MAX_SIZE_MB`` is unchanged, and ``_resolve_fi_ar_backend``
still maps ``auto`` to mnnvl on one node, except with a HiSparse attention config (``attention_config.
hisparse_config``: trtllm, not charged; tpkit has no such option).  0.34 pins flashinfer-python 0.7.3, which PyPI does
not serve; 0.7.2.post1 and 0.7.4 size the workspace alike (``trtllm_mnnvl_ar.py MNNVLAllReduceFusionWorkspace.
__init__``, ``MNNVL_ONE_SHOT_THRESHOLD``; ``mnnvl.py SIGNAL_PAD_SIZE``, ``McastGPUBuffer._get_allocation_prop``
rounding), so 0.7.3 is taken as the same.  Under the extensible KV cache (0.34 default) the pass is built when
``profile_run`` first compiles inside ``memory_profiling`` (so the printed reservation counts it as non-torch growth)
and it stays allocated when ``extensible_kv_cache.py measure_kv_cache_blocks`` reads the free memory after warm-up:
``measure_kv_cache_bytes``'s ``non_kv_used`` (init free − free − committed KV) holds it, and ``headroom`` (free +
committed) is read after it, so both sides of the min lose it: the non-torch growth term of ``budget.compute_budget``'s
extensible formula, not the margin"""


FI_AR_MNNVL_ONE_SHOT_BYTES = 64 * 1024 * 8 * 2
"""flashinfer ``comm/trtllm_mnnvl_ar.py MNNVL_ONE_SHOT_THRESHOLD`` (0.6.14–0.7.2.post1)"""


FI_AR_FUSION_MAX_SIZE_MIB = {(9, 0): {2: 64, 4: 2, 8: 0.5}, (10, 0): {2: 64, 4: 32, 8: 1},
                             (10, 3): {2: 64, 4: 64, 8: 2}}
"""``FI_ALLREDUCE_FUSION_MAX_SIZE_MB`` (``compilation/passes/fusion/allreduce_rms_fusion.py``, the table
``PassConfig.default_fi_allreduce_fusion_max_size_mb`` returns; the ``compilation.py`` docstring's 1 MB at SM 9.0 /
tp 8 is not the table's 0.5), keyed by ``capability.to_int()``: 90 and 100 in 0.17.0–0.18.x, 103 added in 0.19.0"""


FI_AR_SIGNAL_PAD_BYTES = 2048
"""flashinfer ``comm/mnnvl.py SIGNAL_PAD_SIZE``, added to each ``SymmDeviceMemory`` buffer before rounding"""


FI_AR_GRANULARITY_BYTES = 1 << 21
"""``cuMemCreate`` granularity (2 MiB on H100/H200, ``tpkit.comm.ledger.VMM_GRANULARITY``)"""


FI_AR_MULTICAST_GRANULARITY_BYTES = {(9, 0): 1 << 29}
"""``cuMulticastGetGranularity(…, CU_MULTICAST_GRANULARITY_RECOMMENDED)`` by compute capability, which flashinfer
0.6.4–0.6.8.post1 ``comm/mnnvl.py SymmDeviceMemory._get_allocation_prop`` rounds every buffer up to (with
``enable_multicast=False`` too; ``__init__`` raises first where ``CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED`` is 0, and
vLLM's ``flashinfer_all_reduce._create_workspace`` then builds no workspace).  A driver value, not in any source
read.  SM 9.0: 512 MiB, EVIDENCE (helper c715b): a public SGLang log of this allocation path at tp 2 (sgl-project/
sglang PR #18341, 2026-02-07, gpt-oss-120b, FlashInfer all-reduce fusion, which SGLang then enabled on Hopper only,
PR #17474) prints each buffer's peer pointers 0x20000000 apart (``uc_ptrs[i] = base + allocation_size × i``) for
a 24 MiB, a 2 MiB and a 68 MiB buffer, so allocation_size = 512 MiB for all three; microsoft/mscclpp's
``nvls.hpp`` (search-index id 357005700) keeps ``DefaultNvlsBufferSize = 1 << 29`` as "the recommended buffer size
for NVLS, returned by cuMulticastGetGranularity".  The granularity is taken as the same at tp 4 and 8 (the log is
tp 2).  Other capabilities: not known, so 2 MiB only (a lower bound)"""


def fi_allreduce_fusion_workspace(model, gpu: GpuSpec, parallel: ParallelSpec, rules: VllmRules, *,
                                  compile_on: bool, optimization_level: int | None, max_num_batched_tokens: int,
                                  act_bytes: int, links: LinkChoice | None = None,
                                  machine: MachineProfile | None = None) -> tuple[LineItem, ...]:
    """The FlashInfer all-reduce + RMSNorm fusion workspace vLLM allocates outside torch when it compiles, as a line
    (none where it does not).  Helper c715 (0.18.1–0.19.1), extended by helper fi20 to 0.17.0–0.21.x (wheels in
    ``FI_AR_FUSION_RELEASES``) and by helper v17 to 0.26.0–0.33.x (``FI_AR_MNNVL_RELEASES``).  The steps:

    * whether the pass is built, and its size table (``_fusion_sizes_mib``); ``AllReduceFusionPass.__init__``'s
      max_token_num T = table[cc][tp] MiB // (hidden × dtype bytes), capped at ``max_num_batched_tokens``;
    * the workspace: 0.17.0–0.21.x trtllm IPC buffers (``_trtllm_workspace``), 0.26.0–0.34.x one mnnvl buffer
      (``_mnnvl_workspace``), each rounded to the allocation and multicast granularities (``_symm_bytes``).
    * The pass is built when the model first compiles, after the init snapshot, and the buffers are not torch's,
      so ``determine_available_memory`` charges them as non-torch memory.
    * Only GPUs with multicast build it (helper v17): ``SymmDeviceMemory.__init__`` (flashinfer 0.6.4, 0.6.6,
      0.6.8.post1 ``comm/mnnvl.py``) raises "Device does not support multicasting" where
      ``CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED`` is 0, before any cuMemCreate.  vLLM catches it and builds no
      workspace: 0.17.0–0.18.x in ``AllReduceFusionPass.__init__`` (the pass is then disabled), 0.19.0–0.21.0 in
      ``flashinfer_all_reduce.py _create_workspace`` (returns None); both log that this "is expected on GPUs
      without NVSwitch (e.g., NVLink bridge-only or PCIe topologies)".  tpkit reads multicast as a TP group whose
      GPUs form a full NVLink mesh (``startup.links.group_links``: the catalog's NVLink GPUs, a probed
      NVLink matrix, ``--link``), as ``startup.nvls`` does for NCCL's NVLS buffers; so H100 PCIe / H100 NVL (no
      NVLink in the catalog, a bridge at most: ``--p2p``), ``--link pcie``, ``--no-p2p`` and a group spanning hosts
      without an NVLink domain get none.

    Qwen2.5-72B at tp 2 on H100 (64 MiB → T 4,096): 130 + 2 + 386 MiB a rank before the multicast rounding, 3 × 512
    MiB after it (0.17–0.21); one 386 MiB buffer, 512 MiB after the rounding (0.26–0.34).

    0.34.x (helper cur17b, ``FI_AR_MNNVL_RELEASES``): the same pass, gates, table and backend; under the extensible KV
    cache the workspace is resident at the after-warm-up free-memory read, so it is non-torch growth there too."""
    sizes = _fusion_sizes_mib(gpu, parallel, rules, compile_on=compile_on, optimization_level=optimization_level)
    if sizes is None:
        return ()
    group = group_links(gpu, machine, range(parallel.tp), links)
    if not group.full_nvlink:  # no NVSwitch, no multicast: flashinfer raises, vLLM skips
        return ()
    hidden, tp, cc = model.hidden_size, parallel.tp, tuple(gpu.compute_capability or ())
    tokens = min(int(sizes[tp] * 2**20) // (hidden * act_bytes), max_num_batched_tokens)
    mc = FI_AR_MULTICAST_GRANULARITY_BYTES.get(cc)
    head = (f"fuse_allreduce_rms on (O2 default, tp {tp}, SM {cc[0]}{cc[1]}): T = min({sizes[tp]} MiB // (H "
            f"{hidden:,} × {act_bytes} B), {max_num_batched_tokens:,}) = {tokens:,}; ")
    if _mnnvl_era(rules):
        return (_mnnvl_workspace(tp=tp, hidden=hidden, act_bytes=act_bytes, tokens=tokens, mc=mc, head=head),)
    return (_trtllm_workspace(tp=tp, hidden=hidden, act_bytes=act_bytes, tokens=tokens, mc=mc, head=head,
                              release=rules.release),)


def _mnnvl_era(rules: VllmRules) -> bool:
    """Whether ``rules``' release builds FlashInfer's mnnvl workspace (``FI_AR_MNNVL_RELEASES``)."""
    return FI_AR_MNNVL_RELEASES[0] <= rules.release < FI_AR_MNNVL_RELEASES[1]


def _fusion_sizes_mib(gpu: GpuSpec, parallel: ParallelSpec, rules: VllmRules, *, compile_on: bool,
                      optimization_level: int | None) -> dict | None:
    """The pass's size table (tp → MiB) on ``gpu`` under ``rules``, or None where vLLM builds no fusion pass at this
    layout: the release, compile and -O gates, AMD, dp/pp before 0.21.0, the compute capability, the tp sizes the
    table holds (the NVLink gate is the caller's).  Read in the wheels:

    * ``config/vllm.py``: ``OPTIMIZATION_LEVEL_02`` / ``_03`` (the default level is O2) set ``pass_config.
      fuse_allreduce_rms`` to ``enable_allreduce_rms_fusion``: tp > 1, CUDA, FlashInfer installed (a hard
      requirement of these wheels), compute capability exactly 10.0 or 9.0 (0.17.0–0.18.x,
      ``is_device_capability(100)``) or the 10.x family or 9.0 (0.19.0+, ``is_device_capability_family(100)``),
      and dp 1 and pp 1 up to 0.20.x (0.21.0 drops both gates).  ``--enforce-eager`` (and -O0) sets
      ``CompilationMode.NONE``, so no Inductor pass runs; -O1 sets the fusion off.
    * ``AllReduceFusionPass.__init__`` (same in 0.19.0–0.21.0): world size 2/4/8 only (``PassConfig.
      flashinfer_max_size``), sized from ``FI_ALLREDUCE_FUSION_MAX_SIZE_MB[cc][tp]`` MiB.  A capability the table
      lacks (10.x other than 10.0 / 10.3) builds nothing.
    * 0.26.0–0.33.x (helper v17): the same gates without dp/pp (0.24.0 on), the pass table gains 10.7 (0.27.0:
      {2: 64, 4: 64, 8: 2}) and 10.3 at tp 8 becomes 4 MiB (0.29.0)."""
    lo, hi = FI_AR_FUSION_RELEASES
    mnnvl_era = _mnnvl_era(rules)
    if rules.engine != "V1" or not (lo <= rules.release < hi or mnnvl_era) or not compile_on \
            or optimization_level == 1:
        return None
    if is_amd(gpu.vendor):
        return None
    if rules.release < (0, 21, 0) and (parallel.pp != 1 or parallel.dp != 1):
        return None
    cc = tuple(gpu.compute_capability or ())
    family = cc == (9, 0) or (cc[:1] == (10,) if rules.release >= (0, 19, 0) else cc == (10, 0))
    if not family or (cc == (10, 3) and rules.release < (0, 19, 0)):
        return None
    sizes = FI_AR_FUSION_MAX_SIZE_MIB.get(cc, {})
    if mnnvl_era and cc == (10, 3) and rules.release >= (0, 29, 0):
        sizes = {**sizes, 8: 4}
    if mnnvl_era and cc == (10, 7) and rules.release >= (0, 27, 0):
        sizes = {2: 64, 4: 64, 8: 2}
    return sizes if parallel.tp in sizes else None


def _symm_bytes(n: int, mc: int | None) -> int:
    """One ``SymmDeviceMemory`` buffer of ``n`` bytes: + the signal pad, rounded to the allocation granularity, then
    to the multicast granularity ``mc`` where it is known."""
    g = FI_AR_GRANULARITY_BYTES
    n = -(-(n + FI_AR_SIGNAL_PAD_BYTES) // g) * g
    return -(-n // mc) * mc if mc else n


def _multicast_note(mc: int | None) -> str:
    return f", then to the {mc >> 20} MiB multicast granularity (SM 9.0, public logs)" if mc else ""


def _mnnvl_workspace(*, tp: int, hidden: int, act_bytes: int, tokens: int, mc: int | None, head: str) -> LineItem:
    """0.26.0–0.34.x: one mnnvl ``McastGPUBuffer`` of three Lamport buffers, as a line (Bytes per rank).  The pass
    asks for the mnnvl workspace (``_resolve_fi_ar_backend``: ``auto`` → mnnvl), and the quant patterns reuse it.
    flashinfer ``trtllm_mnnvl_ar.py MNNVLAllReduceFusionWorkspace.__init__``: per Lamport buffer max(one-shot:
    min(1 MiB // (tp × B × H), T) × H × tp × B, two-shot: 2 × ⌈T / tp⌉ × tp × H × B), rounded to 32 B; one
    ``McastGPUBuffer`` (``SymmDeviceMemory`` with multicast) of 3 × that: + 2 KiB signal pad, rounded to 2 MiB, then
    to the multicast granularity.  The standalone FlashInfer all-reduce (0.29.0 on, ``VLLM_ALLREDUCE_USE_FLASHINFER``)
    reuses the workspace the pass made first (``get_fi_ar_workspace`` keeps one); the tuned standalone size
    (``FI_MNNVL_ALLREDUCE_MAX_SIZE_MB``) exists for SM 10.3 at tp 4 / 8 only and is not added.  0.30.0's pass sizes
    for the wider of target and draft hidden sizes (``_fused_ar_workspace_hidden_dim``); the target's is used.
    Eager runs of 0.29+ build the standalone workspace lazily at the first all-reduce that fits it: not charged."""
    one_shot = min(FI_AR_MNNVL_ONE_SHOT_BYTES // (tp * act_bytes * hidden), tokens) * hidden * tp * act_bytes
    two_shot = 2 * -(-tokens // tp) * tp * hidden * act_bytes
    per = -(-max(one_shot, two_shot) // 32) * 32
    return LineItem(item="FlashInfer all-reduce fusion workspace", bytes=Bytes(_symm_bytes(3 * per, mc)),
                    source=f"{head}mnnvl workspace (vLLM 0.26.0–0.34.x default on one node): 3 Lamport buffers of "
                           f"max(one-shot, two-shot 2 × ⌈T / tp⌉ × tp × H × {act_bytes} B) = {per:,} B in one "
                           f"buffer, + 2 KiB pad rounded to 2 MiB{_multicast_note(mc)}, cuMemCreate'd outside torch "
                           f"(flashinfer 0.6.14–0.7.4 trtllm_mnnvl_ar.py MNNVLAllReduceFusionWorkspace, mnnvl.py "
                           f"McastGPUBuffer / SymmDeviceMemory"
                           f"{'' if mc else '; multicast granularity not known here, not added'}; helper v17)")


def _trtllm_workspace(*, tp: int, hidden: int, act_bytes: int, tokens: int, mc: int | None, head: str,
                      release: tuple[int, int, int]) -> LineItem:
    """0.17.0–0.21.x: the trtllm IPC workspace's data, flag and Lamport buffers, as a line (Bytes per rank).

    * 0.19.0–0.21.x ``flashinfer_all_reduce.py get_fi_ar_workspace``: backend ``trtllm`` on one node (``auto``),
      the quant workspace reuses it.  0.17.0–0.18.x pass ``auto`` to flashinfer, whose heuristic (0.6.4 / 0.6.6
      ``allreduce.py _workspace_creation_heuristic``) picks mnnvl; the quant workspace is then a separate trtllm one.
      Only the trtllm workspace is charged there (the mnnvl buffer is not sized: a lower bound).
    * flashinfer 0.6.4 / 0.6.6 / 0.6.8.post1 ``TRTLLMAllReduceFusionWorkspace`` → ``trtllm_ar.py
      trtllm_create_ipc_workspace_for_all_reduce_fusion(use_symm_dev_mem=True)``: three buffers, tp × T × H × 2 B,
      flags tp × 256 × 4 B, Lamport 3 × tp × T × H × 2 B (× 4 B for float32 models; capped at 2^31 − 2 MiB per
      third), each a ``mnnvl.py SymmDeviceMemory``: cuMemCreate of buffer + 2 KiB signal pad rounded to the
      allocation granularity (2 MiB), then to the multicast granularity (``CU_MULTICAST_GRANULARITY_RECOMMENDED``,
      ``SymmDeviceMemory._get_allocation_prop``): 512 MiB on SM 9.0 from public evidence
      (``FI_AR_MULTICAST_GRANULARITY_BYTES``, helper c715b), not added elsewhere (a lower bound)."""
    lamport_third = min(tp * tokens * hidden * (4 if act_bytes == 4 else 2), (2**31 - 1) & ~((1 << 21) - 1))
    data = _symm_bytes(tp * tokens * hidden * 2, mc)
    flags = _symm_bytes(tp * 256 * 4, mc)
    lamport = _symm_bytes(3 * lamport_third, mc)
    mnnvl = " (0.17–0.18: plus an mnnvl workspace, not sized)" if release < (0, 19, 0) else ""
    return LineItem(item="FlashInfer all-reduce fusion workspace", bytes=Bytes(data + flags + lamport),
                    source=f"{head}tp × T × H × 2 B + flags + 3 × tp × T × H × 2 B, each + 2 KiB pad rounded to 2 "
                           f"MiB{_multicast_note(mc)}, cuMemCreate'd outside torch (flashinfer 0.6.4–0.6.8 "
                           f"trtllm_ar.py trtllm_create_ipc_workspace_for_all_reduce_fusion, mnnvl.py "
                           f"SymmDeviceMemory{'' if mc else '; multicast granularity not known here, not added'}; "
                           f"vLLM 0.17.0–0.21.x AllReduceFusionPass){mnnvl}")
