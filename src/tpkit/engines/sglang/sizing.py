"""All SGLang sizing numbers for one configuration (pure; the ledger and verdict read this): the KV budget and token
count (``budget.kv_budget``), then the buffers SGLang allocates for them (the target's and the draft's KV pools, as
allocated or refused), the request slots and the req_to_token table, and the slack its graph heuristic wants.
Engine functions (sglang 0.5.23, ``python/sglang/srt/``): ``mem_cache/memory_pool.py`` ``MHATokenToKVPool
._create_buffers``, ``mem_cache/kv_cache_configurator.py`` ``KVCacheConfigurator.resolve_max_num_reqs``,
``arg_groups/memory_hook.py`` ``reserve_for_graph_mb``.
"""

from __future__ import annotations

from dataclasses import fields

from tpkit.dtypes import DTYPES
from tpkit.engines.sglang.budget import KvBudget, kv_budget
from tpkit.engines.sglang.dsv4 import DEFAULT_RUNNING as DSV4_DEFAULT_RUNNING
from tpkit.engines.sglang.defaults import ReserveExtras, graph_reserve_mib
from tpkit.engines.sglang.options import SglangOptions
from tpkit.engines.sglang.pool import max_running_requests, pool_buffers, req_to_token_bytes
from tpkit.engines.sglang.spec import spec_running_cap
from tpkit.hardware.gpu import GpuSpec
from tpkit.memory.kvpool import KVBuffer, KVPoolPlan
from tpkit.memory.ledger import LineItem
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.records import dataclass
from tpkit.units import Bytes, MiB

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.hardware.machine import MachineProfile

__all__ = ["SglangSizing", "size_sglang", "graph_slack_need"]


@dataclass(frozen=True, kw_only=True, slots=True)
class SglangSizing(KvBudget):
    """Every number of an SGLang plan for the tightest rank: the KV budget plus buffers and request slots."""

    weights: Bytes
    """weight bytes per rank"""
    weights_source: str
    """where the weight bytes came from"""
    pool: KVPoolPlan
    """every KV buffer of the target's pool"""
    kv_bytes: Bytes
    """bytes of the target's KV buffers (= pool.total_bytes)"""
    draft_pool: KVPoolPlan | None
    """the draft's KV pool (same token count), None without speculative decoding"""
    draft_kv_bytes: Bytes
    """bytes of the draft's KV pool"""
    max_running_requests: int
    """requests running at once per attention-DP rank (count)"""
    req_to_token_rows: int
    """rows of the int32 req_to_token table (count)"""
    req_to_token_cols: int
    """columns of that table: context + 4 (+ draft tokens)"""
    req_to_token: Bytes
    """bytes of the req_to_token table (taken from the slack)"""
    running_rule: str
    """the max_running_requests rule, in words"""
    pool_end_free: Bytes
    """free memory after the pools ("Memory pool end. avail mem" of the target worker)"""
    kv_pool_refused: Bytes = Bytes(0)
    """bytes the target's KV pool asked for when they exceed all the memory left after the weights (CUDA out of
    memory in the pool's buffers: the pool is then not allocated and ``pool`` is empty); 0 otherwise"""
    kv_pool_refused_free: Bytes = Bytes(0)
    """what was free for that pool (bytes)"""
    after_pool: Bytes
    """taken from the slack after that line: cuBLAS, and before 0.5.14 the draft's weights and KV pool"""


def _running(b: KvBudget, options: SglangOptions, architecture: str | None = None) -> tuple[int, int, str]:
    """max_running_requests and req_to_token rows, capped by the state pool for hybrids."""
    user = options.max_running_requests
    cap = None
    hook = user is None and b.cell.layout == "dsv4" and b.cell.dsv4[1].c128_per_request
    if hook:  # 0.5.15 – 0.5.19 arg_groups/deepseek_v4_hook.py sets 256 when unset (dsv4.DEFAULT_RUNNING)
        user = DSV4_DEFAULT_RUNNING
    if user is None and b.spec is not None:  # the release's speculative cap when unset (spec.spec_running_cap)
        cap = spec_running_cap(b.version, b.spec.algorithm, architecture=architecture)
        user = cap.requests
    running, rows, rule = max_running_requests(b.era, tokens=b.tokens, context_len=b.context_len,
                                               user=user, dp=b.attn_dp, version=b.version)
    if cap is not None and cap.requests is not None:
        rule += f"; speculative decoding sets {cap.requests} when unset"
    if hook:
        rule += f"; DeepSeek-V4's hook sets {DSV4_DEFAULT_RUNNING} when unset"
    if b.mamba is not None:  # the req_to_token pool keeps its padding row over the capped value
        padding = rows - running
        running = min(running, b.mamba.slots // b.mamba.ratio)
        rows = running + padding
    return max(running, 0), max(rows, 0), rule


def _draft_pool(b: KvBudget) -> KVPoolPlan | None:
    """The draft worker's KV pool: the target's token count, the draft's own per-layer KV."""
    if b.spec is None or b.tokens <= 0:
        return None
    heads, k_dim, v_dim = b.spec.draft_kv_dims
    e, rows, layers = DTYPES[b.spec.draft_kv_dtype].bytes, b.tokens + b.page_size, b.spec.draft_layers
    if v_dim == 0:
        buffers = (KVBuffer(name="draft_kv_latent", count=layers, shape=(rows, 1, k_dim), element_bytes=e),)
    else:
        buffers = (KVBuffer(name="draft_k", count=layers, shape=(rows, heads, k_dim), element_bytes=e),
                   KVBuffer(name="draft_v", count=layers, shape=(rows, heads, v_dim), element_bytes=e))
    return KVPoolPlan(num_tokens=b.tokens, padded_tokens=rows, cell_bytes=Bytes(b.spec.draft_bytes_per_token),
                      buffers=buffers, page_size=b.page_size, dtype=b.spec.draft_kv_dtype)


def _allocated_pools(pool: KVPoolPlan, draft_pool, tokens: int, free_for_kv: Bytes):
    """(target pool, draft pool, bytes refused): the pools as allocated, or none where the target's does not fit.

    SGLang sizes the tokens from the budget, then allocates the KV buffers of tokens + page_size rows
    (``mem_cache/memory_pool.py`` ``MHATokenToKVPool._create_buffers``, ``self.size + self.page_size``; read in
    sglang 0.4.4.post2, 0.4.9, 0.5.6 and 0.5.21): the padding page comes out of the slack, and a pool larger than all
    the memory left after the weights (``free_for_kv``) is a CUDA out of memory in torch.zeros whatever else is
    allocated beside it.  The pool then never exists (helper nc19: --page-size 32768 on 2 GiB planned a pool larger
    than the GPU): the target's pool comes back empty, no draft pool, and the bytes it asked for.  A pool that fits
    alone but not beside the req_to_token table keeps the verdict that names that table (``verdict.make_verdict``,
    pool_end_free)."""
    if tokens <= 0 or pool.total_bytes <= free_for_kv:
        return pool, draft_pool, Bytes(0)
    empty = KVPoolPlan(num_tokens=0, padded_tokens=0, cell_bytes=pool.cell_bytes, buffers=(),
                       page_size=pool.page_size, dtype=pool.dtype)
    return empty, None, pool.total_bytes


def size_sglang(model: ModelSpec, gpu: GpuSpec, parallel: ParallelSpec, options: SglangOptions, *,
                machine: MachineProfile | None, weights_bytes: Bytes, weights_source: str,
                extra_uses: tuple[LineItem, ...] = (), draft_weights: Bytes | None = None) -> SglangSizing:
    """Compute every sizing number (no ledger, no text)."""
    b = kv_budget(model, gpu, parallel, options, machine=machine, weights_bytes=weights_bytes,
                  extra_uses=extra_uses, draft_weights=draft_weights)
    pool = pool_buffers(b.cell, b.tokens, b.swa_tokens, b.page_size)
    draft_pool = _draft_pool(b)
    running, rows, rule = _running(b, options, model.architecture)
    extra_cols = b.spec.num_draft_tokens if b.spec else 0
    req = req_to_token_bytes(rows, b.context_len, extra_cols) if b.tokens > 0 else Bytes(0)
    free_for_kv = (b.pre - b.stream_pool - b.deepgemm_workspace - b.first_kernels - weights_bytes - b.rope_reserve
                   - b.draft_weights_before - b.lora - b.mamba_bytes)   # the memory left after the weights (and the pool_end_free line below)
    pool, draft_pool, refused = _allocated_pools(pool, draft_pool, b.tokens, free_for_kv)
    draft_kv = draft_pool.total_bytes if draft_pool else Bytes(0)
    kv_bytes = pool.total_bytes
    before = b.spec is None or b.spec.loaded_before_pool
    in_budget = draft_kv if before and b.draft_in_budget else Bytes(0)
    after = sum((u.bytes for u in b.baseline.after_pool), Bytes(0))
    if not before:
        after = after + b.spec.weights + draft_kv
    elif not b.draft_in_budget:  # the draft pool follows the target's, from the slack (spec.draft_cell_counted)
        after = after + draft_kv
    budget = {f.name: getattr(b, f.name) for f in fields(KvBudget)}
    return SglangSizing(
        **budget, weights=weights_bytes, weights_source=weights_source,
        pool=pool, kv_bytes=kv_bytes, draft_pool=draft_pool, draft_kv_bytes=draft_kv, max_running_requests=running,
        req_to_token_rows=rows, req_to_token_cols=b.context_len + 4 + extra_cols, req_to_token=req,
        running_rule=rule, after_pool=after, kv_pool_refused=refused, kv_pool_refused_free=free_for_kv,
        pool_end_free=free_for_kv - kv_bytes - in_budget - req)


def graph_slack_need(s: SglangSizing) -> Bytes:
    """Slack SGLang's own heuristic sets aside for CUDA graphs + base overhead (512 MiB + sglang 0.5.23
    ``arg_groups/memory_hook.py`` ``reserve_for_graph_mb``).  With --disable-cuda-graph no decode graph is
    captured in any release (``ModelRunner.init_device_graphs`` returns early), so the decode and DP-padding terms
    (both sized by the graph max bs) are left out; the prefill term stays only where those graphs are still
    captured (0.5.10–0.5.13 piecewise graphs, ``graphs.prefill_graphs``)."""
    extras = ReserveExtras(version=s.version, prefill_graphs=s.prefill_graphs[0], attn_dp=s.attn_dp)
    max_bs = s.capacity.cuda_graph_max_bs if s.cuda_graphs else 0
    mib = 512 + graph_reserve_mib(s.era, max_bs=max_bs,
                                   cpp=s.capacity.chunked_prefill_size, is_mla=s.cell.layout == "mla", extras=extras)
    return MiB(mib)
