"""What a log says about the TP group's links: no CUDA peer access, no NVLink mesh, hosts spanned (pure).

Both engines create their custom all-reduce on the TP group only (vllm 0.10.1.1
``device_communicators/cuda_communicator.py``: "only tp uses custom allreduce"; SGLang's ``GroupCoordinator`` the
same), and say why when they turn it off:

    printed (vLLM 'Custom allreduce', SGLang 'CustomAllreduce' /     fact                  source
    'CustomAllReduceV2' … 'is disabled because')
    'your platform lacks GPU P2P capability or P2P test failed'     no peer access        vllm 0.5–0.33, sglang
                                                                                          0.4.2–0.5.23
    'it's not supported on more than two PCIe-only GPUs'            no full NVLink mesh   the same
    'this process group spans across nodes'                         more than one host    vllm ≤ 0.26, sglang
    'Custom collectives are disabled because this multi-node        more than one host    vllm ≥ 0.29 (MNNVL path)
    group …'

(vllm 0.10.1.1 / 0.29.0 ``custom_all_reduce.py CustomAllreduce.__init__``; sglang 0.5.9 ``custom_all_reduce.py``,
0.5.23 ``custom_all_reduce_utils.py can_use_custom_all_reduce_with_nvlink``.)

How many hosts: vLLM's Ray executor warns "tensor_parallel_size=N is bigger than a reserved number of GPUs (K GPUs)
in a node" (``executor/ray_utils.py``, 0.10.1.1), and its workers print as ``(RayWorkerWrapper pid=…, ip=…)`` from
hosts other than the driver's (no ``ip=`` on the driver's own); the count is the larger of the distinct hosts seen
and ⌈N / K⌉, at least 2.
"""

from __future__ import annotations

from tpkit.logs.lazyre import lazy
from tpkit.records import dataclass

__all__ = ["LinkSigns", "read_link_signs"]

_DISABLED = lazy(r"(?:Custom allreduce|CustomAllreduce|CustomAllReduceV2) is disabled because (your platform lacks "
                 r"GPU P2P capability|it's not supported on more than two PCIe-only GPUs|this process group spans "
                 r"across nodes)")
_MULTINODE = lazy(r"Custom collectives are disabled because this multi-node group")
_RAY_SPREAD = lazy(r"tensor_parallel_size=(\d{1,6}) is bigger than a reserved number of GPUs \((\d{1,6}) GPUs\) in "
                   r"a node")
_RAY_WORKER = lazy(r"\(RayWorkerWrapper pid=\d{1,12}(?:, ip=([0-9A-Fa-f.:]{3,64}))?\)")


@dataclass(frozen=True, kw_only=True, slots=True)
class LinkSigns:
    """The link facts a log prints, each with the line that says it (None: not printed)."""

    no_p2p: tuple[int, str] | None = None
    """(line, text): the GPUs have no CUDA peer access"""
    pcie: tuple[int, str] | None = None
    """(line, text): more than two GPUs without a full NVLink mesh"""
    nodes: tuple[int, str] | None = None
    """(line, text): the TP group spans hosts"""
    num_nodes: int = 1
    """hosts the TP group spans (count; ≥ 2 with ``nodes``)"""
    nodes_how: str = ""
    """how ``num_nodes`` was counted"""

    @property
    def any(self) -> bool:
        return bool(self.no_p2p or self.pcie or self.nodes)


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def read_link_signs(text: str, *, tp: int | None = None) -> LinkSigns | None:
    """The link facts ``text`` (a log) prints; None when it prints none.  ``tp``: the run's TP size, if known
    (bounds the host count)."""
    found: dict[str, tuple[int, str]] = {}
    for m in _DISABLED.finditer(text):
        key = "no_p2p" if "P2P" in m.group(1) else "pcie" if "PCIe" in m.group(1) else "nodes"
        found.setdefault(key, (_line(text, m.start()), m.group(0)))
    m = _MULTINODE.search(text)
    if m and "nodes" not in found:
        found["nodes"] = (_line(text, m.start()), m.group(0))
    if not found:
        return None
    count, how = 1, ""
    if "nodes" in found:
        hosts = {m.group(1) for m in _RAY_WORKER.finditer(text)}
        seen = len(hosts - {None}) + (1 if None in hosts else 0)
        spread = _RAY_SPREAD.search(text)
        per_node = max(1, int(spread.group(2))) if spread else None
        from_spread = -(-int(spread.group(1)) // per_node) if spread else 0
        count = max(2, seen, from_spread)
        if tp:
            count = min(count, max(tp, 2))
        parts = [f"{seen} Ray worker hosts seen"] if seen else []
        parts += [f"tensor_parallel_size {spread.group(1)} over {per_node} GPU(s) per node (line "
                  f"{_line(text, spread.start())})"] if spread else []
        how = "; ".join(parts) or "spans nodes: 2 taken (the count is not printed)"
    return LinkSigns(no_p2p=found.get("no_p2p"), pcie=found.get("pcie"), nodes=found.get("nodes"),
                     num_nodes=count, nodes_how=how)
