"""Pure all-reduce dispatch: which backend takes a message, and why (no torch import).

``choose_allreduce`` walks the backends in preference order — measured order from a bench profile
when one covers the world size, published crossovers otherwise — and returns the first one whose
eligibility rules pass, with a one-line reason that names the skipped faster backends.

Backends
--------
one_shot                              tpkit's barrier-free push one-shot (Triton, data-as-flag, fp32 accumulation)
one_shot_pull, two_shot               tpkit's barrier-synchronised Triton kernels over symmetric memory (fp32)
symm_mem_one_shot, symm_mem_two_shot  torch.ops.symm_mem built-ins (bf16/fp32 only, bf16 adds in bf16)
nccl                                  torch.distributed on the NCCL group (any size, any dtype)
gloo                                  torch.distributed on CPU tensors (tests, CI)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tpkit.comm.env import CommEnv, parse_env
from tpkit.comm.profile import BenchProfile
from tpkit.comm.topology import CommTopology
from tpkit.errors import PlanInputError, RuntimeSetupError
from tpkit.units import Bytes, MiB, KiB, format_bytes

__all__ = ["Decision", "choose_allreduce", "skip_reason", "normalize_dtype", "BACKENDS", "CUSTOM_BACKENDS",
           "DTYPES", "default_order", "as_capacities"]

BACKENDS = ("one_shot", "one_shot_pull", "two_shot", "symm_mem_one_shot", "symm_mem_two_shot", "nccl", "gloo")
CUSTOM_BACKENDS = frozenset(BACKENDS[:5])
"""backends that read peer memory directly (need P2P, one node, the PCIe rule, 16-byte multiples)"""

DTYPES: dict[str, frozenset[str]] = {
    "one_shot": frozenset({"bf16", "fp16", "fp32"}),
    "one_shot_pull": frozenset({"bf16", "fp16", "fp32"}),
    "two_shot": frozenset({"bf16", "fp16", "fp32"}),
    "symm_mem_one_shot": frozenset({"bf16", "fp32"}),
    "symm_mem_two_shot": frozenset({"bf16", "fp32"}),
    "nccl": frozenset({"bf16", "fp16", "fp32"}),
    "gloo": frozenset({"bf16", "fp16", "fp32"}),
}
"""dtypes each backend sums (torch 2.11 symm-mem kernels are compiled for float and bfloat16 only)"""

_DTYPE_ALIASES = {"bf16": "bf16", "bfloat16": "bf16", "torch.bfloat16": "bf16", "fp16": "fp16", "float16": "fp16",
                  "half": "fp16", "torch.float16": "fp16", "fp32": "fp32", "float32": "fp32", "float": "fp32",
                  "torch.float32": "fp32"}
MIN_COMPUTE_CAPABILITY = (8, 0)
MAX_CUSTOM_WORLD = 8
ALIGN_BYTES = 16


@dataclass(frozen=True, kw_only=True, slots=True)
class Decision:
    """A dispatch choice."""

    backend: str
    """one of ``BACKENDS`` or ``"none"`` (world size 1)"""
    reason: str
    """one line saying why"""


def normalize_dtype(dtype: str) -> str:
    """``"bfloat16"``/``torch.bfloat16``/``"bf16"`` → ``"bf16"``; raise PlanInputError for others."""
    key = str(dtype).strip().lower()
    if key not in _DTYPE_ALIASES:
        raise PlanInputError(f"all-reduce dtype {dtype!r} is not supported; use bf16, fp16 or fp32")
    return _DTYPE_ALIASES[key]


def as_capacities(available: Mapping[str, Bytes | None] | Iterable[str]) -> dict[str, Bytes | None]:
    """Normalise ``available`` to {backend: buffer capacity or None (no cap)}."""
    if isinstance(available, Mapping):
        return dict(available)
    return {name: None for name in available}


def skip_reason(name: str, *, nbytes: int, dtype: str, world_size: int, topology: CommTopology,
                compute_capability: tuple[int, int] | None, env: CommEnv,
                capacity: Bytes | None) -> str | None:
    """Why ``name`` cannot take this message (None = it can)."""
    if dtype not in DTYPES[name]:
        return f"{dtype} is not supported by {name} (supports {', '.join(sorted(DTYPES[name]))})"
    if name not in CUSTOM_BACKENDS:
        return None
    static = _static_custom_reason(name, world_size, topology, compute_capability, env)
    if static:
        return static
    if nbytes % ALIGN_BYTES:
        return f"{nbytes} bytes is not a multiple of {ALIGN_BYTES} bytes (16-byte vectors)"
    if capacity is not None and nbytes > capacity.bytes:
        return f"{format_bytes(Bytes(nbytes))} exceeds its {format_bytes(capacity)} symmetric buffer"
    if env.max_bytes is not None and nbytes > env.max_bytes.bytes:
        return f"{format_bytes(Bytes(nbytes))} is above TPKIT_ALLREDUCE_MAX_BYTES={format_bytes(env.max_bytes)}"
    return None


def _static_custom_reason(name, world_size, topology, cc, env) -> str | None:
    """Reasons that do not depend on the message."""
    if topology.num_nodes > 1:
        return f"the group spans {topology.num_nodes} nodes; peer-memory kernels need one node"
    if world_size > MAX_CUSTOM_WORLD:
        return f"world size {world_size} > {MAX_CUSTOM_WORLD}"
    if not topology.p2p:
        return "no CUDA P2P access between the GPUs"
    if world_size > 2 and not topology.full_nvlink and not env.force_pcie:
        return (f"PCIe rule: {world_size} GPUs without a full NVLink mesh (custom kernels contend on PCIe; "
                "set TPKIT_ALLREDUCE_FORCE_PCIE=1 to force)")
    if cc is None:
        return "compute capability unknown (no CUDA device)"
    if tuple(cc) < MIN_COMPUTE_CAPABILITY:
        return f"compute capability {cc[0]}.{cc[1]} < 8.0"
    if name == "symm_mem_two_shot" and world_size not in (2, 4, 8):
        return f"torch two_shot_all_reduce_out is compiled for world sizes 2, 4, 8 only (got {world_size})"
    return None


_PUBLISHED = {2: (None, MiB(16)), 4: (KiB(512), MiB(8)), 8: (KiB(256), MiB(8))}
"""world size ≤ key → (one-shot below, custom below): TRT-LLM heuristic, vLLM/SGLang 1-stage limits"""


def default_order(world_size: int, nbytes: int) -> tuple[tuple[str, ...], str]:
    """Published crossovers, used when no measured profile covers the world size."""
    one, two = ("one_shot", "one_shot_pull", "symm_mem_one_shot"), ("two_shot", "symm_mem_two_shot")
    key = min((k for k in _PUBLISHED if world_size <= k), default=8)
    one_below, custom_below = _PUBLISHED[key]
    if nbytes > custom_below.bytes:
        order, rule = ("nccl",) + one + two, f"NCCL above {format_bytes(custom_below)}"
    elif one_below is None or nbytes < one_below.bytes:
        order, rule = one + two + ("nccl",), "one-shot" + (f" below {format_bytes(one_below)}" if one_below else
                                                          f" up to {format_bytes(custom_below)} (2 GPUs)")
    else:
        order, rule = two + one + ("nccl",), f"two-shot from {format_bytes(one_below)} to {format_bytes(custom_below)}"
    return order + ("gloo",), f"published crossover for world size ≤ {key}: {rule} (no measured profile)"


def _measured_order(profile: BenchProfile | None, world_size: int, nbytes: int, mode: str):
    """(order, note, row) from the profile, or None when it does not cover ``world_size``."""
    row = profile.row_for(world_size, nbytes, mode) if profile is not None else None
    if row is None:
        return None
    rest = tuple(n for n in BACKENDS if n not in row.order())
    eager_rows = mode == "eager" and profile.mode != "eager" and bool(dict(profile.eager_world_sizes).get(world_size))
    used = "eager" if eager_rows else profile.mode
    note = f"measured at {format_bytes(row.nbytes)}, world size {world_size} ({used} mode)"
    return row.order() + rest, note, row


def choose_allreduce(*, nbytes: int, dtype: str, world_size: int, topology: CommTopology,
                     compute_capability: tuple[int, int] | None, profile: BenchProfile | None,
                     env: Mapping[str, str] | CommEnv,
                     available: Mapping[str, Bytes | None] | Iterable[str], mode: str = "graph") -> Decision:
    """Pick the backend for one all-reduce of ``nbytes`` bytes of ``dtype`` and say why.

    ``mode`` is ``"graph"`` (the call is being captured in a CUDA graph) or ``"eager"``; a profile
    with eager rows orders the backends by those for eager calls (launch overhead differs).
    """
    if world_size == 1:
        return Decision(backend="none", reason="world size 1: nothing to reduce, the input is the result")
    if nbytes < 0 or world_size < 1:
        raise PlanInputError(f"nbytes must be ≥ 0 and world_size ≥ 1, got nbytes={nbytes}, world_size={world_size}")
    cenv = env if isinstance(env, CommEnv) else parse_env(env)
    dtype = normalize_dtype(dtype)
    caps = as_capacities(available)
    measured = _measured_order(profile, world_size, nbytes, mode)
    order, note = (measured[0], measured[1]) if measured else default_order(world_size, nbytes)
    row = measured[2] if measured else None

    def reason_of(name: str) -> str | None:
        if name not in caps:
            return "not initialised in this group"
        return skip_reason(name, nbytes=nbytes, dtype=dtype, world_size=world_size, topology=topology,
                           compute_capability=compute_capability, env=cenv, capacity=caps[name])

    allowed = cenv.allowed()
    if allowed is not None:
        forced = _first_ok(allowed, order, reason_of)
        if forced[0] is not None:
            return Decision(backend=forced[0], reason=f"forced by TPKIT_ALLREDUCE={cenv.force}")
        auto = _first_ok(None, order, reason_of)
        prefix = f"TPKIT_ALLREDUCE={cenv.force} cannot take it ({'; '.join(forced[1])}); fallback"
        return _decide(auto, prefix, note, row, nbytes)
    return _decide(_first_ok(None, order, reason_of), None, note, row, nbytes)


def _first_ok(allowed, order, reason_of):
    """(first eligible name or None, ['name: reason' for skipped names before it])."""
    skipped = []
    for name in order:
        if allowed is not None and name not in allowed:
            continue
        why = reason_of(name)
        if why is None:
            return name, skipped
        if why != "not initialised in this group" or allowed is not None:
            skipped.append(f"{name} skipped: {why}")
    return None, skipped


def _decide(found, prefix, note, row, nbytes) -> Decision:
    name, skipped = found
    if name is None:
        raise RuntimeSetupError(
            f"no all-reduce backend can take {nbytes} bytes: {'; '.join(skipped) or 'none initialised'}; "
            "initialise the group with nccl (GPU) or gloo (CPU)")
    timing = ""
    if row is not None and row.time_of(name) is not None:
        others = [(n, t) for n, t in row.time_us if n != name]
        timing = f" ({row.time_of(name):.1f} µs" + (f"; next {others[0][0]} {others[0][1]:.1f} µs)" if others else ")")
        head = f"fastest eligible, {note}{timing}"
    else:
        head = f"first eligible in order, {note}"
    parts = [p for p in (prefix, head, "; ".join(skipped)) if p]
    return Decision(backend=name, reason="; ".join(parts))
