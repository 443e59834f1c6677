"""``tpkit plan --engine vllm`` for DeepSeek-V4 (``model_type`` deepseek_v4): the KV layout and capacity come from
``engines.vllm.dsv4`` (vLLM 0.20.0 – 0.25.1 wheels) instead of the standard groups of ``pages.build_layout``.

In the plan's ``KvLayout`` each vLLM group is one slot: ``page_bytes`` is the sum of its layers' pages (the layers of
one group hold pages of different sizes: 37,440 / 8,640 / 1,728 B in V4-Flash's full group), ``num_layers`` 1.
The pool is one uint8 buffer of num_blocks × bytes per block, as vLLM 0.24's packed layout allocates one backing
tensor (``_get_kv_cache_config_packed``).  Refused with a clear error: a release outside 0.20.0 – 0.25.1, a KV dtype
other than fp8 (the fp8_ds_mla layout), speculative decoding other than MTP, pipeline parallelism and decode
context parallelism.  MTP (``--speculative-config`` method mtp; helper fix11, 2026-12-05): the model's
``num_nextn_predict_layers`` MTP layers join the SWA groups (``engines.vllm.dsv4``, ``mtp_layers``) and their
weights the load (``engines.vllm.drafter``).
"""

from __future__ import annotations

from tpkit.engines.vllm.capacity import KvCapacity
from tpkit.engines.vllm.dsv4 import BLOCK, SUPPORTED, build_groups, config_of, plan_dsv4
from tpkit.engines.vllm.kvgroups import KvGroup, KvLayout
from tpkit.errors import PlanInputError
from tpkit.units import Bytes

__all__ = ["dsv4_layout", "dsv4_capacity", "dsv4_kv_source", "mtp_layers"]


def _kv_name(r) -> str:
    """the ``--kv-cache-dtype`` value as given (``Resolved.kv_format``), not its storage dtype"""
    return r.kv_format.name if r.kv_format is not None else r.kv_dtype


def _check(model, parallel, r, rules) -> None:
    what = f"vLLM {rules.label} DeepSeek-V4 ({model.name})"
    if parallel.pp > 1:
        raise PlanInputError(f"{what}: pipeline parallelism (pp {parallel.pp}) is not modelled for DeepSeek-V4's KV "
                             "groups; plan with --pp 1")
    if r.dcp > 1:
        raise PlanInputError(f"{what}: decode context parallelism (dcp {r.dcp}) is not modelled for DeepSeek-V4's "
                             "KV groups; plan without --decode-context-parallel-size")
    if r.spec is not None and r.spec.method != "mtp":
        raise PlanInputError(f"{what}: speculative method {r.spec.method!r} is not modelled for DeepSeek-V4's KV "
                             "groups (MTP is); plan with {\"method\": \"mtp\"} or without --speculative-config")


def mtp_layers(model, r) -> int:
    """The MTP drafter's layers that join the KV groups: the model's ``num_nextn_predict_layers`` with MTP
    speculative decoding (vLLM builds every one, ``DeepSeekV4MultiTokenPredictor``), else 0."""
    if r.spec is None or r.spec.method != "mtp":
        return 0
    n = model.num_nextn_layers
    if not n:
        raise PlanInputError(f"{model.name}: --speculative-config method mtp needs the config's "
                             "num_nextn_predict_layers ≥ 1 (the MTP layers the drafter loads), got none")
    return n


def dsv4_layout(model, parallel, r, rules) -> KvLayout:
    """The plan's layout of vLLM's DeepSeek-V4 groups (module doc)."""
    _check(model, parallel, r, rules)
    mtp = mtp_layers(model, r)
    groups, buckets = build_groups(config_of(model), where=f"{model.name} config", mtp_layers=mtp)
    cap = plan_dsv4(config_of(model), 0, version=rules.label, max_model_len=r.max_model_len,
                    max_num_batched_tokens=r.max_num_batched_tokens, kv_cache_dtype=_kv_name(r),
                    where=f"{model.name} config", mtp_layers=mtp)
    kv_groups = tuple(KvGroup(kind="mla" if g.window is None else "sliding", num_layers=1,
                              page_bytes=Bytes(g.page_sum()), block_size=g.block_size, window=g.window)
                      for g in groups)
    return KvLayout(groups=kv_groups, group_size=1, padding_layers=0, bytes_per_block=Bytes(cap.bytes_per_block),
                    block_size=BLOCK, dtype_bytes=1, element_dtype="uint8")


def dsv4_capacity(model, available: Bytes, r, rules) -> KvCapacity:
    """Blocks, printed tokens, concurrency and the fit check of one rank (``engines.vllm.dsv4.plan_dsv4``)."""
    cap = plan_dsv4(config_of(model), max(int(available), 0), version=rules.label, max_model_len=r.max_model_len,
                    max_num_batched_tokens=r.max_num_batched_tokens, kv_cache_dtype=_kv_name(r),
                    where=f"{model.name} config", mtp_layers=mtp_layers(model, r))
    fits = cap.fits and available > Bytes(0)
    return KvCapacity(num_blocks=cap.num_blocks, tokens=cap.tokens, max_concurrency=cap.max_concurrency,
                      blocks_per_request=cap.blocks_per_request, needed=Bytes(cap.needed_bytes), fits=fits,
                      estimated_max_model_len=cap.estimated_max_model_len if available > Bytes(0) else 0)


def dsv4_kv_source(layout: KvLayout, cap: KvCapacity) -> str:
    """The ledger source of a DeepSeek-V4 KV pool: ``available // bytes per block`` with each group's block size and
    page bytes (``engines.vllm.dsv4``) and the blocks one request holds."""
    groups = ", ".join(f"{g.kind}{'' if g.window is None else ' ' + str(g.window)} block {g.block_size}: "
                       f"{g.page_bytes.bytes:,} B" for g in layout.groups)
    return (f"num_blocks {cap.num_blocks:,} = available // {layout.bytes_per_block.bytes:,} B per block (vLLM "
            f"{SUPPORTED} DeepSeek-V4 groups, engines.vllm.dsv4: {groups}); {cap.blocks_per_request:,} blocks per "
            "request")
