"""The context of one ``plan_perf`` call (split from ``perf/plan.py``, helper ux25): the device rates, the TP group's
link (NVLink, xGMI or PCIe; with or without CUDA peer access), the kernel layout, the draft, the accept rate, and a
memo of the forwards computed so far.  ``perf.plan`` prices the forwards on it."""

from __future__ import annotations

from tpkit.errors import PlanInputError
from tpkit.models.spec import ModelSpec
from tpkit.perf.accept import accept_rate_for
from tpkit.perf.allreduce import make_link
from tpkit.perf.device import DeviceRates, device_rates
from tpkit.perf.impl import ImplProfile, impl_for
from tpkit.perf.policy import CommSetup
from tpkit.perf.request import PerfRequest, check_request, kv_bytes_of
from tpkit.perf.runtime import Runtime, runtime_for
from tpkit.perf.spec import SpecSettings, default_accept_rate, draft_spec
from tpkit.perf.kernels import Shard
from tpkit.records import dataclass

__all__ = ["default_link_kind", "peer_access"]


@dataclass(frozen=True, kw_only=True, slots=True)
class _Ctx:
    req: PerfRequest
    dev: DeviceRates
    impl: ImplProfile
    setup: CommSetup
    shard: Shard
    kv_bytes: int
    draft: ModelSpec | None
    rate: float | None
    rate_source: str
    memo: dict
    """forward results already computed in this call: (model, batch shape, policy, extra) → result"""

    def runtime(self, settings: SpecSettings | None) -> Runtime:
        """Engine facts for plain decoding (None) or for one speculative setting (memoised by its settings)."""
        key = ("runtime", settings and (settings.topk, settings.algorithm, settings.num_draft_tokens))
        if key not in self.memo:
            r = self.req
            head_dim = r.model.head_dim
            if r.engine == "vllm":  # vLLM's automatic backend reads the largest head dim (Gemma 4's full layers)
                from tpkit.engines.vllm.backend_choice import attention_head_dim
                head_dim = attention_head_dim(r.model)
            self.memo[key] = runtime_for(
                r.engine, r.engine_version, compute_capability=r.gpu.compute_capability, mla=r.model.mla is not None,
                topk=settings.topk if settings else None, algorithm=settings.family if settings else None,
                attention_backend=r.attention_backend, eager=r.eager, architecture=r.model.architecture,
                moe=r.model.moe is not None, quantized=r.model.quant is not None, sparse=r.model.dsa is not None,
                hybrid=r.model.linear_attn is not None, spec_v2=r.sglang_spec_v2 if settings else None,
                head_dim=head_dim, kv_quantized=self.kv_bytes == 1, verify_tokens=getattr(settings, "num_draft_tokens", 2),
                vendor=r.gpu.vendor, kv_heads_per_rank=max(1, r.model.num_kv_heads // r.tp))
        return self.memo[key]


def _context(req: PerfRequest) -> _Ctx:
    check_request(req)
    dev = device_rates(req.gpu)
    kind = req.link or ("pcie" if req.p2p is False else default_link_kind(req.gpu))
    if kind not in ("nvlink", "xgmi", "pcie"):
        raise PlanInputError(f"--link must be nvlink, xgmi or pcie, got {kind!r}")

    peer, why = peer_access(req, kind)

    def link_of(world):
        return make_link(kind=kind, world=world, gpu_name=req.gpu.name, nvlink_gbps=req.gpu.nvlink_gbps_per_direction,
                         pcie_gbps=req.gpu.pcie_gbps_per_direction, compute_capability=req.gpu.compute_capability,
                         fabric_gbps=req.fabric_gbps, xgmi_gbps_per_link=req.gpu.xgmi_gbps_per_link,
                         xgmi_links=req.gpu.xgmi_links, peer=peer, p2p_source=why)

    attn_tp = req.tp // req.dp_attention
    setup = CommSetup(link=link_of(req.tp), attn_link=link_of(attn_tp) if req.dp_attention > 1 else None,
                      profile=req.profile, profile_name=req.profile_name)
    draft = draft_spec(req.model, req.spec, req.draft) if req.spec else None
    rate, source = _rate(req)
    kv = kv_bytes_of(req)
    return _Ctx(req=req, dev=dev, impl=impl_for(req), setup=setup,
                shard=Shard(tp=req.tp, ep=req.ep, attn_tp=attn_tp), kv_bytes=kv, draft=draft, rate=rate,
                rate_source=source, memo={})


def default_link_kind(gpu) -> str:
    """The TP group's link when ``--link`` is not given: NVLink when the catalog GPU has it, the Infinity Fabric
    (xGMI) mesh on the AMD Instinct boards that have one (MI300X / MI325X / MI355X: both engines check the mesh and
    run their custom all-reduce over it, docs/accuracy.md §4.4 helper xgmi), else PCIe.  Made the default by the lead
    (2026-12-04) although it moves the held-out published rows' within-25 % count 130 → 127 of 166 (sign unchanged):
    pricing an xGMI mesh as PCIe is a known error, and the AMD rows it hurts already predict the plain step far too
    fast (§4.3)."""
    if gpu.nvlink_gbps_per_direction:
        return "nvlink"
    return "xgmi" if gpu.xgmi_gbps_per_link else "pcie"


def _rate(req: PerfRequest) -> tuple[float | None, str]:
    if req.spec is None:
        return None, ""
    if req.accept_length is None:
        return default_accept_rate(req.spec.family)
    s = req.spec
    rate = accept_rate_for(req.accept_length, num_steps=s.num_steps, topk=s.topk, num_draft_tokens=s.num_draft_tokens)
    return rate, (f"--accept-length {req.accept_length} given; per-token acceptance {rate:.3f} reproduces it for these "
                  "settings and is used for the settings grid")


def peer_access(req: PerfRequest, kind: str) -> tuple[bool, str]:
    """(CUDA peer access between the TP group's GPUs, where that comes from): ``--p2p`` / ``--no-p2p``, else the GPU
    catalog's ``pcie_p2p`` fact on PCIe (an unrecorded one counts as peer access, as ``tpkit plan`` assumes); an NVLink
    or xGMI mesh has it.  ``--no-p2p`` with ``--link nvlink`` is refused: NVLink traffic is peer access."""
    if req.p2p is False and kind == "nvlink":
        raise PlanInputError("--no-p2p with --link nvlink: NVLink is CUDA peer access, so a TP group without it runs "
                             "over PCIe; drop --link nvlink (--no-p2p then prices PCIe without peer access)")
    if kind != "pcie":
        return True, ""
    if req.p2p is not None:
        return req.p2p, "--p2p" if req.p2p else "--no-p2p"
    if req.gpu.pcie_p2p is False:
        why = req.gpu.source_of("pcie_p2p").split(":")[0]
        return False, f"catalog fact pcie_p2p of {req.gpu.name}: {why}; pass --p2p if these GPUs have it"
    return True, ""
