"""Requested and available KV memory and the per-GPU ledger, per era (vLLM 0.33
``vllm/v1/worker/utils.py`` ``request_memory``, ``vllm/utils/mem_utils.py`` ``memory_profiling``,
``vllm/v1/worker/gpu_worker.py`` ``Worker.determine_available_memory``; 0.11 as noted).

    requested         = ceil(total × gpu_memory_utilization)   (0.33; ≤ 0.11: the float product)

    V1 (0.11, 0.33)   available = requested − (weights + profile peak + non-torch growth) − CUDA-graph estimate
                      what exists at the init snapshot sits outside the budget; start-up memory created after
                      it (NCCL before 0.11.0, cuBLAS in the 0.11 era) is part of the non-torch growth
    V0, V1 < 0.9.1    available = total × util − (torch peak + non-torch memory), where non-torch memory is
                      everything outside torch's allocator (CUDA context, NCCL, cuBLAS, other processes); V0 0.3.1–0.6.3
                      and ≥ 0.6.5 leave the CUDA context and other processes out (``v0_context_outside``);
                      V0 0.2.0–0.2.4 charges torch's peak alone (``v0_torch_peak_only``: non-torch = 0)
    override          available = --kv-cache-memory-bytes (V1; the profile still runs, the budget is ignored)
    extensible (0.34) available = min(requested, free at the snapshot − margin) − (weights + non-torch growth +
                      captured CUDA graphs) − transient peak, margin = max(1 GiB (ROCm 3 GiB), 0.75 × transient
                      peak), util default 1.0 and no start-up check (``v1/worker/extensible_kv_cache.py
                      measure_kv_cache_bytes`` / ``measure_kv_cache_blocks``, ``v1/worker/utils.py request_memory``,
                      vLLM 0.34.0; the transient peak is the profile's, ``reserved_headroom_bytes``; a larger peak of
                      the sizing warm-up steps or of torch's reservation growth is not modelled)

The ledger adds up exactly: capacity − uses − reserves = the shortfall (0 when the KV pool fits).
"""

from __future__ import annotations

import math
from dataclasses import replace

from tpkit.engines.vllm.baseline import OTHERS_GROWTH_ITEM, Baseline
from tpkit.engines.vllm.versions import VllmRules
from tpkit.memory.ledger import Ledger, LineItem
from tpkit.records import dataclass
from tpkit.units import Bytes, gib_text

__all__ = ["Budget", "requested_bytes", "compute_budget", "build_ledger", "extensible_margin", "extensible_reservation"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Budget:
    """The numbers vLLM computes before sizing the KV cache (limiting rank)."""

    requested: Bytes
    """requested_memory (total × utilisation)"""
    free_at_snapshot: Bytes
    """init_snapshot.free_memory"""
    weights: Bytes
    """"Model loading took": weights + vLLM's persistent buffers (rotary cache)"""
    activation: Bytes
    """profile-run peak above what stays allocated (estimate)"""
    non_torch: Bytes
    """V0: all non-torch memory; V1: growth during profiling"""
    graphs: Bytes
    """CUDA-graph estimate subtracted (0 when not applied)"""
    available: Bytes
    """bytes the KV cache may take"""
    override: bool = False
    """available came from --kv-cache-memory-bytes"""
    extensible: bool = False
    """vLLM ≥ 0.34's extensible KV cache sized the pool (``VllmRules.extensible_kv_cache``)"""
    margin: Bytes = Bytes(0)
    """extensible: the headroom kept free beside the transient peak (``KV_CACHE_MARGIN_FLOOR_BYTES`` /
    ``KV_CACHE_MARGIN_FRACTION``)"""

    @property
    def ceiling(self) -> Bytes:
        """What the KV cache and the engine's own memory must fit in: requested, or for the extensible KV cache the
        smaller of requested and the free memory at the snapshot less the margin."""
        return min(self.requested, self.free_at_snapshot - self.margin) if self.extensible else self.requested

    @property
    def non_kv(self) -> Bytes:
        return self.weights + self.activation + self.non_torch


def requested_bytes(total: Bytes, utilization: float, rules: VllmRules) -> Bytes:
    """``requested_memory`` (0.33: ceil of total × util; earlier: the float product, floored here because
    the available bytes are truncated to int afterwards)."""
    product = total.bytes * utilization
    return Bytes(math.ceil(product) if rules.ceil_requested else math.floor(product))


EXTENSIBLE_MARGIN_FLOOR = {False: Bytes(1 << 30), True: Bytes(3 << 30)}
"""``KV_CACHE_MARGIN_FLOOR_BYTES`` by ROCm (``v1/worker/extensible_kv_cache.py``, vLLM 0.34.0): 1 GiB, 3 GiB on ROCm"""
EXTENSIBLE_MARGIN_FRACTION = 0.75
"""``KV_CACHE_MARGIN_FRACTION`` (vLLM 0.34.0): the margin's share of the transient peak"""


def extensible_margin(peak: Bytes, *, rocm: bool = False) -> Bytes:
    """The extensible KV cache's margin: max(floor, int(0.75 × the transient peak)) (``measure_kv_cache_bytes``)."""
    return max(EXTENSIBLE_MARGIN_FLOOR[rocm], Bytes(int(max(peak.bytes, 0) * EXTENSIBLE_MARGIN_FRACTION)))


def compute_budget(baseline: Baseline, rules: VllmRules, *, utilization: float, weights: Bytes,
                   activation: Bytes, graphs: Bytes, override: Bytes | None,
                   growth: Bytes = Bytes(0), extensible: bool = False, rocm: bool = False,
                   transient: Bytes | None = None) -> Budget:
    """Requested and available KV bytes for the era (``extensible``: vLLM ≥ 0.34 sizes the pool after warm-up and
    graph capture, ``graphs`` then being the captured graphs' memory; ``rocm``: its larger margin floor;
    ``transient``: the profile's transient peak the margin scales with, where ``activation`` also holds persistent
    buffers made after the snapshot; None: ``activation``)."""
    requested = requested_bytes(baseline.total_bytes, utilization, rules)
    free = baseline.free_at_snapshot
    if rules.memory_rule == "v0_peak":
        charged = baseline.capacity.bytes - free  # other processes + every start-up use
        if rules.v0_torch_peak_only:
            charged = Bytes(0)  # max_memory_allocated: nothing outside torch's allocator
            growth = Bytes(0)
        elif rules.v0_context_outside:
            charged = charged - baseline.held - baseline.context
        non_torch = charged + growth
        graphs = Bytes(0)
    else:
        non_torch = growth
    if override is not None and rules.engine == "V1":
        return Budget(requested=requested, free_at_snapshot=free, weights=weights, activation=activation,
                      non_torch=non_torch, graphs=Bytes(0), available=override, override=True)
    if extensible and override is None and rules.engine == "V1":
        margin = extensible_margin(activation if transient is None else transient, rocm=rocm)
        ceiling = min(requested, free - margin)
        return Budget(requested=requested, free_at_snapshot=free, weights=weights, activation=activation,
                      non_torch=non_torch, graphs=graphs, extensible=True, margin=margin,
                      available=ceiling - weights - activation - non_torch - graphs)
    available = requested - weights - activation - non_torch - graphs
    return Budget(requested=requested, free_at_snapshot=free, weights=weights, activation=activation,
                  non_torch=non_torch, graphs=graphs, available=available)


def extensible_reservation(budget: Budget) -> Bytes:
    """What an extensible-KV run (vLLM ≥ 0.34) prints as "Available KV cache memory": the profile's budget, requested
    − weights − transient peak − non-torch growth with no graph estimate (``v1/worker/gpu_worker.py
    determine_available_memory``), the capacity it reserves address space for; the pool is then sized after warm-up
    (``Budget.available``, "Extended KV cache to N blocks")."""
    return budget.requested - budget.weights - budget.activation - budget.non_torch


def _budget_lines(baseline: Baseline, budget: Budget, rules: VllmRules, utilization: float) -> list[LineItem]:
    lines = [baseline.capacity]
    if baseline.pre_existing is not None:
        lines.append(baseline.pre_existing)
    if rules.memory_rule == "v0_peak":
        inside = "; counted as non-torch memory inside the budget (V0 rule: total × util − peak − non-torch)"
        if rules.v0_torch_peak_only:
            return lines + _torch_peak_only_lines(baseline, budget, utilization)
        if not rules.v0_context_outside:
            lines.append(LineItem(item="outside the utilisation budget", kind="reserve",
                                  bytes=baseline.capacity.bytes - budget.requested,
                                  source=f"total × (1 − gpu_memory_utilization {utilization})"))
            return lines + [LineItem(item=u.item, bytes=u.bytes, kind=u.kind, source=u.source + inside)
                            for u in baseline.uses]
        outside = v0_room(baseline) - budget.requested
        # the activation peak is released before the KV cache is allocated (engines.vllm.verdict.decide): a budget
        # above the free memory by less than that peak allocates; the ledger then states no negative margin, the
        # activation line says what the KV cache re-uses of it (helper rt16)
        reused = outside < Bytes(0) and outside + budget.activation >= Bytes(0)
        if not reused:
            lines.append(LineItem(item="outside the utilisation budget" if outside >= Bytes(0) else
                                  "requested beyond the free memory after the CUDA context", kind=(
                                      "reserve" if outside >= Bytes(0) else "info"), bytes=outside,
                                  source=f"free after the CUDA context (init_device's init_gpu_memory) − total × "
                                         f"gpu_memory_utilization {utilization} (V0 0.3.1–0.6.3 and ≥ 0.6.5: the "
                                         "context and other processes sit outside the budget)"))
        context_seen = False
        for u in baseline.uses:
            if not context_seen and u.bytes == baseline.context and u.item == "CUDA context":
                context_seen = True
                lines.append(replace(u, source=u.source + "; before init_device's free-memory reading, so outside "
                                                          "the budget (V0 0.3.1–0.6.3 and ≥ 0.6.5)"))
            else:
                lines.append(replace(u, source=u.source + inside))
        return lines
    lines += list(baseline.uses)
    if budget.override:
        return lines
    if budget.extensible:
        kept = budget.free_at_snapshot - budget.ceiling
        if budget.ceiling < budget.requested:
            return lines + [LineItem(item="extensible KV cache margin", kind="reserve", bytes=kept, source=(
                f"max(1 GiB (3 GiB on ROCm), {EXTENSIBLE_MARGIN_FRACTION} × the transient peak): left free when vLLM "
                "sizes the KV cache from the memory measured after warm-up and CUDA-graph capture "
                "(v1/worker/extensible_kv_cache.py "
                "measure_kv_cache_bytes, vLLM ≥ 0.34; requested = total × "
                f"{utilization} lies above the free memory less it)"))]
        return lines + [LineItem(item="outside the utilisation budget", kind="reserve", bytes=kept,
                                 source=f"free at vLLM's snapshot − requested (total × {utilization}, ceil); the "
                                        f"extensible KV cache's margin ({gib_text(budget.margin)}) lies inside it")]
    outside = budget.free_at_snapshot - budget.requested
    how = f"requested (total × {utilization}{', ceil' if rules.ceil_requested else ''})"
    if outside < Bytes(0):  # the start-up check fails: a shortfall, not memory set aside
        return lines + [LineItem(item="requested beyond the free memory (start-up check fails)", kind="info",
                                 bytes=outside, source=f"free at vLLM's snapshot − {how}: vLLM refuses to start")]
    return lines + [LineItem(item="outside the utilisation budget", kind="reserve", bytes=outside,
                             source=f"free at vLLM's snapshot − {how}")]


def _torch_peak_only_lines(baseline: Baseline, budget: Budget, utilization: float) -> list[LineItem]:
    """V0 0.2.0–0.2.4: start-up uses are not charged to the budget, so they come out of the (1 − util) margin."""
    note = ("; not charged by V0 0.2.0–0.2.4 (budget = total × util − torch.cuda.max_memory_allocated): "
            "taken from the (1 − gpu_memory_utilization) margin")
    lines = [replace(u, source=u.source + note) for u in baseline.uses]
    outside = budget.free_at_snapshot - budget.requested
    if outside < Bytes(0):
        return lines + [LineItem(item="requested beyond the free memory after the start-up uses", kind="info",
                                 bytes=outside, source=f"free before loading − total × gpu_memory_utilization "
                                                       f"{utilization}: the KV allocation cannot fit")]
    return lines + [LineItem(item="outside the utilisation budget", kind="reserve", bytes=outside,
                             source=f"free before loading − total × gpu_memory_utilization {utilization} (the "
                                    "start-up uses above already took their share of the margin)")]


def v0_room(baseline: Baseline) -> Bytes:
    """V0 with the context outside the budget: the free memory init_device reads (capacity − other processes −
    the CUDA context); a budget (total × util) above it cannot be allocated."""
    return baseline.capacity.bytes - baseline.held - baseline.context


def build_ledger(baseline: Baseline, budget: Budget, rules: VllmRules, *, utilization: float,
                 weight_lines: list[LineItem], activation_line: LineItem, graph_line: LineItem | None,
                 growth_lines: tuple[LineItem, ...], kv_bytes: Bytes, kv_source: str,
                 info: list[LineItem], draft_kv: LineItem | None = None,
                 granule_segments: int = 0) -> tuple[Ledger, Bytes]:
    """The ledger of the limiting rank and the remaining bytes it must add up to; ``draft_kv``: the speculative
    drafter's share of the ``kv_bytes`` pool, shown as its own line; ``granule_segments``: the extensible KV
    cache's per-layer segments whose 2 MiB granules the block count left room for
    (``engines.vllm.capacity.granule_floor``)."""
    over = budget.requested - v0_room(baseline) if rules.memory_rule == "v0_peak" and rules.v0_context_outside and \
        not rules.v0_torch_peak_only else Bytes(0)
    if Bytes(0) < over <= budget.activation:  # _budget_lines: the KV cache re-uses part of the released peak
        activation_line = replace(activation_line, source=(
            f"{activation_line.source}; released (gc + torch.cuda.empty_cache) before V0 allocates the KV cache, which "
            f"re-uses {gib_text(over)} of it: the budget (total × {utilization}) lies that far above the free "
            "memory after the CUDA context, so 'remaining' is negative by as much"))
    lines = _budget_lines(baseline, budget, rules, utilization) + weight_lines + [activation_line]
    if rules.engine == "V1":
        lines += list(growth_lines)  # with --kv-cache-memory-bytes too: the memory exists either way
    else:  # V0 plans no growth terms of its own; other processes' stated gain is charged in every era
        lines += [g for g in growth_lines if g.item == OTHERS_GROWTH_ITEM]
    if graph_line is not None:
        lines.append(graph_line)
    own = kv_bytes - (draft_kv.bytes if draft_kv is not None else Bytes(0))
    lines.append(LineItem(item="KV cache", bytes=own, source=kv_source))
    if draft_kv is not None:
        lines.append(draft_kv)
    if budget.override:
        left = budget.free_at_snapshot - budget.weights - budget.activation - budget.non_torch - kv_bytes
    else:
        left = budget.available - kv_bytes
    expected = min(left, Bytes(0))
    if not budget.override and not budget.extensible and rules.memory_rule != "v0_peak" and \
            budget.free_at_snapshot < budget.requested:
        expected = expected + (budget.free_at_snapshot - budget.requested)  # that line is info, not a reserve
    if rules.memory_rule == "v0_peak" and rules.v0_torch_peak_only and budget.free_at_snapshot < budget.requested:
        expected = expected + (budget.free_at_snapshot - budget.requested)  # V0 0.2.0–0.2.4: that line is info
    if rules.memory_rule == "v0_peak" and rules.v0_context_outside and v0_room(baseline) < budget.requested:
        expected = expected + (v0_room(baseline) - budget.requested)  # the same, V0 with the context outside
    if left > Bytes(0):
        lines.append(LineItem(item="unused (rounding to whole blocks)" if not budget.override else
                              "left free (outside --kv-cache-memory-bytes)", kind="reserve", bytes=left,
                              source=("available − num_blocks × bytes_per_block" + (
                                  f"; num_blocks = blocks_within(available): each of the {granule_segments} per-layer "
                                  "segments is committed in whole 2 MiB granules (v1/worker/extensible_kv_cache.py "
                                  "physical_bytes_for, vLLM ≥ 0.34)" if granule_segments else ""))
                              if not budget.override
                              else "free at snapshot − weights − activation peak − KV override"))
    ledger = Ledger(items=tuple(lines + info), rank_label=baseline.rank_label)
    return ledger, expected
