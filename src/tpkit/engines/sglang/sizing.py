"""All SGLang sizing numbers for one configuration (pure; the ledger and verdict read this).

    pre        = capacity − context − NCCL − custom AR − extra − cuBLAS − process   (pre_model_load_memory)
    available  = pre − weights                                          (after weight load)
    slack      = pre × (1 − f)                                          (activations, graphs, req_to_token)
    rest       = available − slack                                      (KV budget, spec §3.2)
    tokens     = floor_page(min(rest // cell, --max-total-tokens))      (spec §3.4)
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from tpkit.dtypes import WEIGHT_DTYPES, lookup_dtype
from tpkit.engines.sglang.baseline import Baseline, plan_baseline
from tpkit.engines.sglang.defaults import (CapacityDefaults, FractionChoice, capacity_defaults,
                                           default_mem_fraction, graph_reserve_mib)
from tpkit.engines.sglang.mamba import RADIX_SLOTS_PER_REQUEST, MambaPool, plan_mamba_pool
from tpkit.engines.sglang.options import SglangOptions, explicit_kv_dtype
from tpkit.engines.sglang.pool import (CellSize, compute_cell, max_running_requests, pool_buffers,
                                       req_to_token_bytes, size_tokens, stage_layer_kinds)
from tpkit.engines.sglang.versions import parse_version, rule_era
from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import GpuSpec
from tpkit.memory.kvpool import KVPoolPlan
from tpkit.memory.ledger import LineItem
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, MiB

if TYPE_CHECKING:
    from tpkit.hardware.machine import MachineProfile

__all__ = ["SglangSizing", "KvBudget", "kv_budget", "size_sglang", "resolve_kv_dtype", "validate_layout", "graph_slack_need"]

def _served(name: str | None) -> str | None:
    """KV dtype for a model dtype under ``--dtype auto`` (an fp32 checkpoint is served in bf16); None: not one."""
    found = lookup_dtype(name) if name else None
    if found is None or found.name not in WEIGHT_DTYPES:
        return None
    return "bfloat16" if found.name == "float32" else found.name


def resolve_kv_dtype(model: ModelSpec, options: SglangOptions) -> tuple[str, str]:
    """(KV element dtype, why): explicit flag, checkpoint fp8 KV, or the model dtype (spec §3.3)."""
    explicit = explicit_kv_dtype(options.kv_cache_dtype)
    if explicit is not None:
        return explicit, f"--kv-cache-dtype {options.kv_cache_dtype}"
    if model.quant is not None and model.quant.kv_cache_fp8:
        return "fp8_e4m3", "checkpoint kv_cache_quant_algo FP8"
    raw = options.dtype or model.torch_dtype or "bfloat16"
    flag = lookup_dtype(options.dtype) if options.dtype else None
    if flag is not None and flag.name == "float32":
        return "float32", f"--dtype {options.dtype}"  # only dtype=auto turns an fp32 checkpoint into bf16
    dtype = _served(raw) or _served(model.torch_dtype) or "bfloat16"
    return dtype, f"model dtype {raw}"


def validate_layout(model: ModelSpec, parallel: ParallelSpec) -> None:
    """Refuse layouts SGLang refuses: TP must divide the heads; PP must not exceed the layers."""
    tp, heads, kv = parallel.tp, model.num_attention_heads, model.num_kv_heads
    if heads % tp:
        ok = [t for t in (1, 2, 4, 8, 16, 32) if heads % t == 0]
        raise PlanInputError(f"--tp {tp} does not divide the {heads} attention heads of {model.name}; "
                             f"use a TP size that divides {heads}: {', '.join(map(str, ok))}")
    if model.mla is None and kv and (kv % tp if kv >= tp else tp % kv):
        raise PlanInputError(f"--tp {tp} and the {kv} KV heads of {model.name} do not split evenly (one must "
                             f"divide the other); use --tp dividing {kv} or a multiple of it")
    if parallel.pp > model.num_layers:
        raise PlanInputError(f"--pp {parallel.pp} exceeds the {model.num_layers} layers of {model.name}")


def _context_len(model: ModelSpec, options: SglangOptions) -> int:
    limit = model.max_position_embeddings
    if options.context_length is None:
        return limit
    if options.context_length > limit:
        raise PlanInputError(
            f"--context-length {options.context_length} exceeds the model limit {limit} of {model.name}; SGLang "
            f"refuses it unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 is set; use ≤ {limit}")
    return options.context_length


def _fraction(options: SglangOptions, era: str, gpu_mem_mib: float, parallel: ParallelSpec,
              cap: CapacityDefaults, model: ModelSpec) -> FractionChoice:
    if options.mem_fraction_static is not None:
        return FractionChoice(value=float(options.mem_fraction_static), reserved_mib=None,
                              source="--mem-fraction-static")
    choice = default_mem_fraction(era, gpu_mem_mib=gpu_mem_mib, tp=parallel.tp, pp=parallel.pp,
                                  cpp=cap.chunked_prefill_size, max_bs=cap.cuda_graph_max_bs, is_mla=model.is_mla)
    if model.is_multimodal and choice.reserved_mib is not None:
        value = round(choice.value * 0.95, 3)
        return FractionChoice(value=value, reserved_mib=choice.reserved_mib,
                              source=choice.source + " × 0.95 multimodal (vision-size factor assumed 1)")
    return choice


@dataclass(frozen=True, kw_only=True, slots=True)
class KvBudget:
    """The first half of a plan: free memory, fraction, KV budget and token count (no buffers, no text)."""

    era: str
    """rule era (first release of the era)"""
    context_len: int
    """tokens per request"""
    page_size: int
    """tokens per KV page"""
    gpu_mem_mib: float
    """capacity SGLang's defaults read (nvidia-smi MiB)"""
    capacity: CapacityDefaults
    """chunked-prefill size and graph max batch in effect"""
    fraction: FractionChoice
    """``mem_fraction_static`` in effect and why"""
    baseline: Baseline
    """capacity and pre-weight uses of the tightest rank"""
    cell: CellSize
    """KV bytes per token per rank"""
    pre: Bytes
    """predicted pre_model_load_memory (bytes)"""
    slack: Bytes
    """pre × (1 − f) (bytes)"""
    rest: Bytes
    """KV budget: pre − weights − slack (bytes, before the state pool)"""
    mamba: MambaPool | None
    """linear-attention state pool (None for pure attention models)"""
    mamba_bytes: Bytes
    """bytes of that pool"""
    tokens: int
    """full-pool tokens per rank"""
    swa_tokens: int
    """sliding-window pool tokens per rank"""


@dataclass(frozen=True, kw_only=True, slots=True)
class SglangSizing(KvBudget):
    """Every number of an SGLang plan for the tightest rank: the KV budget plus buffers and request slots."""

    version: str
    """SGLang release whose rules apply"""
    weights: Bytes
    """weight bytes per rank"""
    weights_source: str
    """where the weight bytes came from"""
    pool: KVPoolPlan
    """every KV buffer to allocate"""
    kv_bytes: Bytes
    """bytes of every KV buffer together (= pool.total_bytes)"""
    max_running_requests: int
    """requests running at once (count)"""
    req_to_token_rows: int
    """rows of the int32 req_to_token table (count)"""
    req_to_token: Bytes
    """bytes of the req_to_token table (taken from the slack)"""
    running_rule: str
    """the max_running_requests rule, in words"""
    pool_end_free: Bytes
    """free memory after the KV and req_to_token pools ("Memory pool end. avail mem")"""


def kv_budget(model: ModelSpec, gpu: GpuSpec, parallel: ParallelSpec, options: SglangOptions, *,
              machine: MachineProfile | None, weights_bytes: Bytes,
              extra_uses: tuple[LineItem, ...] = ()) -> KvBudget:
    """Validate the layout and size the KV budget and token count (spec §2–§3.4).

    ``extra_uses`` are charged before ``pre_model_load_memory`` like the CUDA context (see ``plan_baseline``).
    """
    validate_layout(model, parallel)
    era = rule_era(options.engine_version)
    page = options.page_size or 1
    gpu_mem_mib = gpu.nvidia_smi_total_mib or gpu.total_bytes.bytes / 2**20
    cap = capacity_defaults(gpu_mem_mib, parallel.tp, era, chunked_prefill_size=options.chunked_prefill_size,
                            cuda_graph_max_bs=options.cuda_graph_max_bs,
                            max_running_requests=options.max_running_requests)
    fraction = _fraction(options, era, gpu_mem_mib, parallel, cap, model)
    baseline = plan_baseline(gpu, parallel, era, machine, extra_uses=extra_uses,
                             disable_custom_all_reduce=options.disable_custom_all_reduce)
    split_v = parse_version(options.engine_version) >= (0, 5, 8)
    cell = compute_cell(model, parallel.tp, parallel.pp, resolve_kv_dtype(model, options)[0], split_v_dim=split_v)
    pre = baseline.free_before_weights
    slack = pre * (1.0 - fraction.value)
    rest = pre - weights_bytes - slack
    linear = stage_layer_kinds(model, parallel.pp).count("linear")
    mamba = plan_mamba_pool(model, parallel.tp, linear, rest, era)
    mamba_bytes = mamba.total_bytes if mamba else Bytes(0)
    tokens, swa_tokens = size_tokens(rest - mamba_bytes, cell, page_size=page,
                                     max_total_tokens=options.max_total_tokens)
    return KvBudget(era=era, context_len=_context_len(model, options), page_size=page, gpu_mem_mib=gpu_mem_mib,
                    capacity=cap, fraction=fraction, baseline=baseline, cell=cell, pre=pre, slack=slack, rest=rest,
                    mamba=mamba, mamba_bytes=mamba_bytes, tokens=tokens, swa_tokens=swa_tokens)


def _running(b: KvBudget, options: SglangOptions) -> tuple[int, int, str]:
    """max_running_requests and req_to_token rows, capped by the state pool for hybrids."""
    running, rows, rule = max_running_requests(b.era, tokens=b.tokens, context_len=b.context_len,
                                               user=options.max_running_requests, dp=1)
    if b.mamba is not None:  # the req_to_token pool keeps its padding row over the capped value
        padding = rows - running
        running = min(running, b.mamba.slots // RADIX_SLOTS_PER_REQUEST)
        rows = running + padding
    return max(running, 0), max(rows, 0), rule


def size_sglang(model: ModelSpec, gpu: GpuSpec, parallel: ParallelSpec, options: SglangOptions, *,
                machine: MachineProfile | None, weights_bytes: Bytes, weights_source: str,
                extra_uses: tuple[LineItem, ...] = ()) -> SglangSizing:
    """Compute every sizing number (no ledger, no text)."""
    b = kv_budget(model, gpu, parallel, options, machine=machine, weights_bytes=weights_bytes,
                  extra_uses=extra_uses)
    pool = pool_buffers(b.cell, b.tokens, b.swa_tokens, b.page_size)
    running, rows, rule = _running(b, options)
    kv_bytes = pool.total_bytes
    req = req_to_token_bytes(rows, b.context_len) if b.tokens > 0 else Bytes(0)
    budget = {f.name: getattr(b, f.name) for f in fields(KvBudget)}
    return SglangSizing(
        **budget, version=options.engine_version, weights=weights_bytes, weights_source=weights_source,
        pool=pool, kv_bytes=kv_bytes, max_running_requests=running, req_to_token_rows=rows, req_to_token=req,
        running_rule=rule, pool_end_free=b.pre - weights_bytes - b.mamba_bytes - kv_bytes - req)


def graph_slack_need(s: SglangSizing) -> Bytes:
    """Slack SGLang's own heuristic sets aside for CUDA graphs + base overhead (spec §4.1 graph term + 512 MiB)."""
    mib = 512 + graph_reserve_mib(s.era, max_bs=s.capacity.cuda_graph_max_bs,
                                   cpp=s.capacity.chunked_prefill_size, is_mla=s.cell.layout == "mla")
    return MiB(mib)
