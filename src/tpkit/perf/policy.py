"""All-reduce backends as an engine runs them: which are available, which is the default, and the
cost of every collective of a forward under one of them (pure).

    nccl      NCCL for every call (SGLang/vLLM ``--disable-custom-all-reduce``)
    custom    the engine's custom all-reduce: one-shot or two-shot (the faster) up to 8 MiB, NCCL above
              (SGLang/vLLM default on a full NVLink mesh, on a full xGMI mesh of AMD Instinct GPUs, and on
              exactly 2 PCIe GPUs with CUDA peer access: without it both engines' P2P check turns it off).  ROCm: both engines ask amdsmi whether every pair is one xGMI hop
              (``amdsmi_topo_get_link_type`` type 2: vLLM platforms/rocm.py ``is_fully_connected``, 0.9.2–0.27.1;
              SGLang custom_all_reduce_utils ``is_full_nvlink``, 0.4.10–0.5.23) and then run their custom
              all-reduce; SGLang from 0.5.6 dispatches it to aiter's (``SGLANG_USE_AITER_AR`` default true,
              ``dispatch_custom_allreduce``), with a 16 MiB buffer on HIP; vLLM's quick-reduce stays off unless
              ``VLLM_ROCM_QUICK_REDUCE_QUANTIZATION`` is set (default NONE, 0.9.2–0.27.1)
    oneshot   one-shot for every size (a forced PCIe one-shot; not an upstream SGLang/vLLM option on more
              than 2 PCIe GPUs, where both engines refuse custom all-reduce)
    symm_mem  torch symmetric memory up to 8 MiB, NCCL above (SGLang ``--enable-torch-symm-mem``: SM90 with
              world size 4, 6, 8; SM100 with 6, 8 — sglang 0.5.23 arg_groups/fields/exec_.py; not on SM120)
"""

from __future__ import annotations

from tpkit.perf.allreduce import ArCost, Link, allgather_cost, allreduce_cost
from tpkit.perf.calls import Collective
from tpkit.records import dataclass

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:  # the profile type only: tpkit.comm.profile loads when a profile file is given
    from tpkit.comm.profile import BenchProfile

__all__ = ["POLICIES", "CommSetup", "available_policies", "default_policy", "collectives_us", "policy_cost"]

POLICIES = ("nccl", "custom", "oneshot", "symm_mem")
_CUSTOM_MAX_BYTES = 8 * 2**20
"""SGLang/vLLM custom all-reduce buffer (8 MiB default); larger messages go to NCCL"""


@dataclass(frozen=True, kw_only=True, slots=True)
class CommSetup:
    """Everything that prices a collective: the link, an optional measured profile, the attention group."""

    link: Link
    """the TP group's interconnect"""
    attn_link: Link | None = None
    """DP attention's attention-TP group (None = same as ``link``)"""
    profile: BenchProfile | None = None
    """measured ``tpkit bench allreduce --json`` profile"""
    profile_name: str = ""
    """file name of that profile (for the output)"""


def available_policies(link: Link, compute_capability: tuple[int, int] | None, engine: str = "sglang",
                       engine_version: str | None = None) -> list[tuple[str, bool, str]]:
    """(policy, usable by the engine as shipped, why) for every policy.  ``symm_mem``'s why names the switch the
    engine has: SGLang ``--enable-torch-symm-mem`` (not usable in a release whose parser lacks it:
    ``engines.cliflags``, first in 0.5.3), vLLM the environment variable ``VLLM_ALLREDUCE_USE_SYMM_MEM=1`` (vLLM has
    no such flag; helper fix22)."""
    cc = compute_capability or (9, 0)
    nv = link.kind == "nvlink"
    mesh = link.kind in ("nvlink", "xgmi")
    custom_ok = mesh or (link.world == 2 and link.p2p)
    symm_worlds = {9: (4, 6, 8), 10: (6, 8)}.get(cc[0], ())
    symm_ok = nv and link.world in symm_worlds
    switch = "env VLLM_ALLREDUCE_USE_SYMM_MEM=1" if engine == "vllm" else "--enable-torch-symm-mem"
    symm_why = (f"{switch} (SM{cc[0]}{cc[1]}, world {link.world})" if symm_ok else
                f"torch symm-mem needs NVLink and SM90 world 4/6/8 or SM100 world 6/8 (here SM{cc[0]}{cc[1]}, "
                f"{link.kind}, world {link.world})")
    if symm_ok and engine == "sglang":
        from tpkit.engines.cliflags import accepts, first_release

        if accepts("sglang", "--enable-torch-symm-mem", engine_version) is False:
            symm_ok = False
            symm_why = (f"SGLang {engine_version} has no --enable-torch-symm-mem (first in "
                        f"{first_release('sglang', '--enable-torch-symm-mem')}): upgrade SGLang to run torch "
                        "symmetric memory")
    return [
        ("nccl", True, "always available"),
        ("custom", custom_ok, "engine default on a full NVLink / xGMI mesh or 2 PCIe GPUs" if custom_ok else
         "SGLang and vLLM disable custom all-reduce on GPUs without CUDA peer access (their P2P check)"
         if not link.p2p else "SGLang and vLLM disable custom all-reduce on more than two PCIe-only GPUs"),
        ("oneshot", custom_ok, "forced one-shot for every size" + (
            "" if custom_ok else ": needs CUDA peer access" if not link.p2p else ": needs a patched engine on PCIe")),
        ("symm_mem", symm_ok, symm_why),
    ]


def default_policy(link: Link) -> str:
    """What SGLang and vLLM use when no all-reduce flag is given (NCCL on PCIe GPUs without peer access)."""
    return "custom" if link.kind in ("nvlink", "xgmi") or (link.world == 2 and link.p2p) else "nccl"


def policy_cost(nbytes: float, link: Link, policy: str, setup: CommSetup) -> ArCost:
    """One all-reduce of ``nbytes`` under ``policy``."""
    def cost(backend):
        return allreduce_cost(nbytes, link, backend, profile=setup.profile, profile_name=setup.profile_name)

    if policy == "nccl":
        return cost("nccl")
    if not link.p2p and link.world > 1:  # both engines' P2P check turns their custom all-reduce off (Link.p2p)
        return ArCost(us=float("inf"), backend=policy, source="the engines' custom all-reduce needs CUDA peer access")
    if policy == "oneshot":
        return cost("custom_oneshot")
    if nbytes > _CUSTOM_MAX_BYTES:
        return cost("nccl")
    if policy == "symm_mem":
        return cost("symm_mem")
    return min(cost("custom_oneshot"), cost("custom_twoshot"), key=lambda c: c.us)


def collectives_us(calls: list[Collective], policy: str, setup: CommSetup) -> tuple[float, ArCost | None]:
    """Total µs of ``calls`` and the cost of the main (per-layer) all-reduce call."""
    total, main = 0.0, None
    for call in calls:
        link = setup.attn_link if call.group == "attn_tp" and setup.attn_link else setup.link
        if call.op == "all_gather":
            total += call.count * allgather_cost(call.nbytes, link).us
            continue
        c = policy_cost(call.nbytes, link, policy, setup)
        total += call.count * c.us
        if main is None or call.count > 1:
            main = c
    return total, main
