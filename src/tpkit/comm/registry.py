"""The all-reduce backends: one row each, and the rules that decide where a backend may run (pure).

Adding a backend is one module under ``tpkit/comm/backends/`` with
``start(name, group, *, max_bytes: Bytes, device, **options)`` returning an object with ``name``,
``capacity`` (``Bytes`` or None), ``run(x, out)`` and ``ledger_lines()``, plus one ``BackendRow`` in
``ROWS`` below.  The dispatcher (``comm.dispatch``), the start-up rules (``AllReduce.create``,
``comm.plan``), the buffer ledger (``comm.ledger``), ``TPKIT_ALLREDUCE`` (``comm.env``), the bench
(``tpkit bench allreduce``) and the profile reader all read this table.

The rules every peer-memory backend obeys, stated once here:

- one node, CUDA peer access between every pair, at most ``MAX_PEER_WORLD_SIZE`` (8) ranks: the
  kernels take up to eight peer pointers;
- on more than 2 GPUs, a full NVLink mesh (PCIe contends) unless ``TPKIT_ALLREDUCE_FORCE_PCIE=1``;
- compute capability ≥ ``MIN_COMPUTE_CAPABILITY`` (8.0): symmetric memory and the kernels' atomics;
- messages a multiple of ``ALIGN_BYTES`` (16-byte vectors) and no larger than the buffer;
- a row's own ``world_sizes`` (torch's two-shot is compiled for 2, 4 and 8 ranks).
"""

from __future__ import annotations

from tpkit.errors import PlanInputError
from tpkit.records import dataclass
from tpkit.units import Bytes, format_bytes

__all__ = ["BackendRow", "ROWS", "row", "names", "register", "env_choices", "env_family", "startup_reason",
           "dtype_reason", "device_reason", "message_reason", "MAX_PEER_WORLD_SIZE", "MIN_COMPUTE_CAPABILITY",
           "ALIGN_BYTES", "CROSSOVER_KINDS"]

MAX_PEER_WORLD_SIZE = 8
"""most ranks a peer-memory kernel serves (it takes eight peer pointers)"""
MIN_COMPUTE_CAPABILITY = (8, 0)
"""oldest GPU generation (major, minor) with the symmetric memory and atomics the kernels use"""
ALIGN_BYTES = 16
"""peer-memory messages are whole 16-byte vectors (bytes)"""
CROSSOVER_KINDS = ("one_shot", "two_shot", "fallback", "last")
"""where a row sits in the published crossover order (``comm.dispatch.default_order``)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class BackendRow:
    """Everything tpkit knows about one all-reduce backend."""

    name: str
    """the name used everywhere (dispatch, bench rows, profiles, ledger items)"""
    module: str
    """module whose ``start(name, group, *, max_bytes, device, **options)`` starts it"""
    dtypes: frozenset[str]
    """dtypes it sums (``bf16``, ``fp16``, ``fp32``)"""
    device: str
    """``cuda`` or ``cpu``: where the tensors it reduces live"""
    peer_memory: bool
    """reads and writes peer GPUs' memory directly, so the peer-memory rules of this module apply"""
    crossover: str
    """one of ``CROSSOVER_KINDS``: its place in the published order when no profile was measured"""
    env_name: str | None = None
    """the ``TPKIT_ALLREDUCE`` value that forces it (several rows may share one); None = not forceable"""
    world_sizes: tuple[int, ...] | None = None
    """the only world sizes it is built for (None = any the other rules allow)"""
    world_sizes_why: str = ""
    """what restricts ``world_sizes``, for the skip reason"""
    slots: int = 0
    """message-sized regions in its symmetric buffer (count)"""
    slots_per_rank: int = 0
    """further regions per rank of the group (count)"""
    call_counters: bool = False
    """keeps one 4-byte call counter per CUDA block next to its buffer"""
    buffer_note: str = ""
    """the buffer's layout in words, for the ledger line"""
    baseline: bool = False
    """a reference implementation the bench compares ``auto`` against"""

    def __post_init__(self) -> None:
        if self.crossover not in CROSSOVER_KINDS:
            raise PlanInputError(f"backend {self.name}: crossover {self.crossover!r} is not one of {CROSSOVER_KINDS}")
        if self.device not in ("cuda", "cpu"):
            raise PlanInputError(f"backend {self.name}: device {self.device!r} is not 'cuda' or 'cpu'")

    def buffer_slots(self, world_size: int) -> int:
        """Message-sized regions in its buffer on each GPU of a ``world_size`` group (0 = no buffer)."""
        return self.slots + self.slots_per_rank * world_size


_HALF = frozenset({"bf16", "fp16", "fp32"})
_PKG = "tpkit.comm.backends."

ROWS: dict[str, BackendRow] = {r.name: r for r in (
    BackendRow(name="one_shot", module=_PKG + "one_shot", dtypes=_HALF, device="cuda", peer_memory=True,
               crossover="one_shot", env_name="one_shot", slots_per_rank=2, call_counters=True,
               buffer_note="tpkit push one-shot: 2 slots × world size × capacity (one region per sender, "
                           "double-buffered)"),
    BackendRow(name="one_shot_pull", module=_PKG + "one_shot_pull", dtypes=_HALF, device="cuda",
               peer_memory=True, crossover="one_shot", env_name="one_shot", slots=2, call_counters=True,
               buffer_note="tpkit pull one-shot: 2 slots × capacity (double-buffered, one barrier per call)"),
    BackendRow(name="two_shot", module=_PKG + "two_shot", dtypes=_HALF, device="cuda", peer_memory=True,
               crossover="two_shot", env_name="two_shot", slots=4, call_counters=True,
               buffer_note="tpkit two-shot: 2 slots × (input + output) × capacity"),
    BackendRow(name="symm_mem_one_shot", module=_PKG + "symm_mem", dtypes=frozenset({"bf16", "fp32"}),
               device="cuda", peer_memory=True, crossover="one_shot", env_name="symm_mem", slots=1, baseline=True,
               buffer_note="torch symm-mem one-shot staging buffer: 1 × capacity"),
    BackendRow(name="symm_mem_two_shot", module=_PKG + "symm_mem", dtypes=frozenset({"bf16", "fp32"}),
               device="cuda", peer_memory=True, crossover="two_shot", env_name="symm_mem", slots=1, baseline=True,
               world_sizes=(2, 4, 8), world_sizes_why="torch two_shot_all_reduce_out is compiled",
               buffer_note="torch symm-mem two-shot staging buffer: 1 × capacity"),
    BackendRow(name="nccl", module=_PKG + "nccl", dtypes=_HALF, device="cuda", peer_memory=False,
               crossover="fallback", env_name="nccl", baseline=True),
    BackendRow(name="gloo", module=_PKG + "gloo", dtypes=_HALF, device="cpu", peer_memory=False,
               crossover="last"),
)}
"""every backend, in preference order (the order of ties, explain output and ledger lines)"""


def names() -> tuple[str, ...]:
    """Every backend name, in ``ROWS`` order."""
    return tuple(ROWS)


def row(name: str) -> BackendRow:
    """The row of ``name``; ``PlanInputError`` listing the names when there is none."""
    try:
        return ROWS[name]
    except KeyError:
        raise PlanInputError(f"unknown all-reduce backend {name!r}; choose from {', '.join(ROWS)}") from None


def register(new: BackendRow) -> BackendRow:
    """Add ``new`` at the end of ``ROWS`` (a plug-in backend; tpkit's own are listed above)."""
    if new.name in ROWS or new.name in ("auto", "none"):
        raise PlanInputError(f"all-reduce backend {new.name!r} is already registered (or reserved)")
    ROWS[new.name] = new
    return new


def env_choices() -> tuple[str, ...]:
    """``TPKIT_ALLREDUCE`` values: ``auto`` and every row's ``env_name``, first appearance first."""
    return ("auto",) + tuple(dict.fromkeys(r.env_name for r in ROWS.values() if r.env_name))


def env_family(value: str) -> tuple[str, ...]:
    """Backend names that ``TPKIT_ALLREDUCE=value`` allows."""
    return tuple(r.name for r in ROWS.values() if r.env_name == value)


def startup_reason(name: str, *, world_size: int, topology, force_pcie: bool) -> str | None:
    """Why ``name`` cannot run on this group at all (None = it can); the message does not matter.

    ``topology`` is the group's ``hardware.topology.GroupTopology``; ``force_pcie`` is
    ``TPKIT_ALLREDUCE_FORCE_PCIE``.  Only peer-memory rows have start-up rules.
    """
    r = row(name)
    if not r.peer_memory:
        return None
    if topology.num_nodes > 1:
        return f"the group spans {topology.num_nodes} nodes; peer-memory kernels need one node"
    if world_size > MAX_PEER_WORLD_SIZE:
        return f"world size {world_size} > {MAX_PEER_WORLD_SIZE}"
    if not topology.p2p:
        return "no CUDA P2P access between the GPUs"
    if world_size > 2 and not topology.full_nvlink and not force_pcie:
        return (f"PCIe rule: {world_size} GPUs without a full NVLink mesh (custom kernels contend on PCIe; "
                "set TPKIT_ALLREDUCE_FORCE_PCIE=1 to force)")
    cc = topology.compute_capability
    if cc is None:
        return "compute capability unknown (no CUDA device)"
    if tuple(cc) < MIN_COMPUTE_CAPABILITY:
        return f"compute capability {cc[0]}.{cc[1]} < {MIN_COMPUTE_CAPABILITY[0]}.{MIN_COMPUTE_CAPABILITY[1]}"
    if r.world_sizes is not None and world_size not in r.world_sizes:
        sizes = ", ".join(map(str, r.world_sizes))
        return f"{r.world_sizes_why} for world sizes {sizes} only (got {world_size})"
    return None


def dtype_reason(name: str, dtype: str) -> str | None:
    """Why ``name`` cannot sum ``dtype`` (None = it can)."""
    r = row(name)
    if dtype not in r.dtypes:
        return f"{dtype} is not supported by {name} (supports {', '.join(sorted(r.dtypes))})"
    return None


def device_reason(name: str, device_type: str) -> str | None:
    """Why ``name`` cannot reduce tensors on ``device_type`` (``cuda``/``cpu``; None = it can)."""
    r = row(name)
    if r.device != device_type:
        where = {"cuda": "GPU", "cpu": "CPU"}
        return f"needs tensors on the {where[r.device]}; this group's are on the {where.get(device_type, device_type)}"
    return None


def message_reason(name: str, *, nbytes: Bytes, capacity: Bytes | None, cap_bytes: Bytes | None) -> str | None:
    """Why ``name`` cannot take a message of ``nbytes`` (None = it can), dtype and start-up rules aside.

    ``capacity`` is the started backend's buffer (None = any size); ``cap_bytes`` is
    ``TPKIT_ALLREDUCE_MAX_BYTES`` (None = unset), which only peer-memory rows obey.
    """
    r = row(name)
    if not r.peer_memory:
        return None
    if nbytes.bytes % ALIGN_BYTES:
        return f"{nbytes.bytes} bytes is not a multiple of {ALIGN_BYTES} bytes (16-byte vectors)"
    if capacity is not None and nbytes > capacity:
        return f"{format_bytes(nbytes)} exceeds its {format_bytes(capacity)} symmetric buffer"
    if cap_bytes is not None and nbytes > cap_bytes:
        return f"{format_bytes(nbytes)} is above TPKIT_ALLREDUCE_MAX_BYTES={format_bytes(cap_bytes)}"
    return None
