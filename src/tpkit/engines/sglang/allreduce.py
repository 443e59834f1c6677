"""SGLang's own custom all-reduce buffers for a plan's first TP group (its own module: `tpkit explain` needs it
without the rest of the start-up baseline)."""

from __future__ import annotations

from tpkit.engines.sglang.versions import at_least
from tpkit.hardware.gpu import GpuSpec
from tpkit.parallel import ParallelSpec
from tpkit.startup.cost import Cost
from tpkit.startup.custom_allreduce import sglang_custom_allreduce
from tpkit.startup.links import LinkChoice, group_links

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.hardware.machine import MachineProfile

__all__ = ["custom_allreduce_cost"]


def custom_allreduce_cost(gpu: GpuSpec, parallel: ParallelSpec, version: str,
                          machine: MachineProfile | None = None, links: LinkChoice | None = None) -> Cost:
    """SGLang's custom all-reduce buffers on the first TP group for a release (0 bytes when disabled); ``links``:
    what the user or the log says about the links (``tpkit.startup.links``)."""
    links = group_links(gpu, machine, range(parallel.tp), links)
    return sglang_custom_allreduce(gpu, links, parallel.tp, v2=at_least(version, "0.5.12"))
