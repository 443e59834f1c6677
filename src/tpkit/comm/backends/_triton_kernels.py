"""tpkit's one-shot and two-shot all-reduce kernels (Triton) over symmetric-memory buffers.

Both accumulate in fp32 and add the ranks in order 0..WS−1, so every rank gets bitwise the same
result.  Messages are cut into chunks of ``CHUNK_BYTES`` bytes; chunk ``c`` always belongs to block
``c mod MAXB`` (two-shot: chunk group ``g = c div WS`` to block ``g mod MAXB``), whatever the dtype or
size.  Each block keeps its own call counter in device memory; its parity picks one of two buffer
slots.  A block's barrier of call k tells it that the peers' same block finished call k−1, so writing
slot k mod 2 in call k+1 cannot race a reader — one barrier per one-shot call instead of two, and
all of it lives on the device, so CUDA-graph replays of any call count stay correct.

Every wait is bounded by ``limit`` polls; one that runs out reports a code (``_triton_sync.report``: the
first timeout wins the device word ``claim`` and is stored into the host error word ``err``, which the host
raises, ``backends.error_flag``) instead of hanging or summing missing data silently.

Layout of one rank's symmetric buffer (elements of the call's dtype, ``S = slot_elems``):
one-shot  ``[slot0: S][slot1: S]``;   two-shot ``[slot0 in: S | out: S][slot1 in: S | out: S]``.
"""

from __future__ import annotations

import triton
import triton.language as tl

from tpkit.comm.backends._triton_sync import block_sync, report, select8

__all__ = ["one_shot_kernel", "two_shot_kernel", "push_one_shot_kernel", "CHUNK_BYTES", "PUSH_CHUNK_BYTES"]

CHUNK_BYTES = 16384
"""bytes per chunk (fixed across dtypes so the chunk → block map never changes)"""


@triton.jit
def _reduce_chunk(offs, m, base, b0, b1, b2, b3, b4, b5, b6, b7, WS: tl.constexpr):
    acc = tl.zeros(offs.shape, tl.float32)
    for r in tl.static_range(WS):
        buf = select8(r, b0, b1, b2, b3, b4, b5, b6, b7)
        acc += tl.load(buf + base + offs, mask=m, other=0.0).to(tl.float32)
    return acc


@triton.jit
def one_shot_kernel(inp, out, mybuf, b0, b1, b2, b3, b4, b5, b6, b7,
                    sp0, sp1, sp2, sp3, sp4, sp5, sp6, sp7, sp_self,
                    counters, numel, slot_elems, rank, err, claim, code_base, limit,
                    WS: tl.constexpr, BLOCK: tl.constexpr, MAXB: tl.constexpr):
    """Copy-in to the local slot, one barrier, read every rank's slot and sum in fp32."""
    bid = tl.program_id(0)
    count = tl.load(counters + bid)
    base = tl.multiple_of((count % 2) * slot_elems, 16)
    nchunks = tl.cdiv(numel, BLOCK)
    lanes = tl.arange(0, BLOCK)
    for c in range(bid, nchunks, MAXB):
        offs = c * BLOCK + lanes
        m = offs < numel
        tl.store(mybuf + base + offs, tl.load(inp + offs, mask=m), mask=m)
    block_sync(sp0, sp1, sp2, sp3, sp4, sp5, sp6, sp7, sp_self, bid, rank, err, claim, code_base, limit, WS)
    for c in range(bid, nchunks, MAXB):
        offs = c * BLOCK + lanes
        m = offs < numel
        acc = _reduce_chunk(offs, m, base, b0, b1, b2, b3, b4, b5, b6, b7, WS)
        tl.store(out + offs, acc.to(out.dtype.element_ty), mask=m)
    tl.debug_barrier()
    tl.store(counters + bid, count + 1)


@triton.jit
def two_shot_kernel(inp, out, mybuf, b0, b1, b2, b3, b4, b5, b6, b7,
                    sp0, sp1, sp2, sp3, sp4, sp5, sp6, sp7, sp_self,
                    counters, numel, slot_elems, rank, err, claim, code_base, limit,
                    WS: tl.constexpr, BLOCK: tl.constexpr, MAXB: tl.constexpr):
    """Copy-in, barrier, reduce-scatter (own chunk, pushed to every rank), barrier, copy-out."""
    bid = tl.program_id(0)
    count = tl.load(counters + bid)
    in_base = tl.multiple_of((count % 2) * (2 * slot_elems), 16)
    out_base = tl.multiple_of(in_base + slot_elems, 16)
    ngroups = tl.cdiv(tl.cdiv(numel, BLOCK), WS)
    lanes = tl.arange(0, BLOCK)
    for g in range(bid, ngroups, MAXB):
        for j in tl.static_range(WS):
            offs = (g * WS + j) * BLOCK + lanes
            m = offs < numel
            tl.store(mybuf + in_base + offs, tl.load(inp + offs, mask=m), mask=m)
    block_sync(sp0, sp1, sp2, sp3, sp4, sp5, sp6, sp7, sp_self, bid, rank, err, claim, code_base, limit, WS)
    for g in range(bid, ngroups, MAXB):
        offs = (g * WS + rank) * BLOCK + lanes
        m = offs < numel
        val = _reduce_chunk(offs, m, in_base, b0, b1, b2, b3, b4, b5, b6, b7, WS).to(out.dtype.element_ty)
        for r in tl.static_range(WS):
            buf = select8(r, b0, b1, b2, b3, b4, b5, b6, b7)
            tl.store(buf + out_base + offs, val, mask=m)
    block_sync(sp0, sp1, sp2, sp3, sp4, sp5, sp6, sp7, sp_self, bid, rank, err, claim, code_base, limit, WS)
    for g in range(bid, ngroups, MAXB):
        for j in tl.static_range(WS):
            offs = (g * WS + j) * BLOCK + lanes
            m = offs < numel
            tl.store(out + offs, tl.load(mybuf + out_base + offs, mask=m), mask=m)
    tl.debug_barrier()
    tl.store(counters + bid, count + 1)


PUSH_CHUNK_BYTES = 2048
"""push one-shot chunk: one 16-byte vector per thread of a 4-warp block; small chunks spread an 8–64 KiB
message over many SMs (one SM alone pushes only ~12 GB/s over NVLink, measured: 16 KiB in one block
took 1.4 µs longer than 1 KiB)"""

SENTINEL16 = -32768
"""int16 0x8000: bf16/fp16 −0.0, the "not yet arrived" mark of the push kernel"""
SENTINEL32 = -2147450880
"""int32 0x80008000: two int16 sentinels, so one fill serves 2- and 4-byte dtypes (an fp32 −1.2e-38 denormal)"""


@triton.jit
def _wait_arrived(p, m, SENT: tl.constexpr, limit):
    """Poll until no lane holds the sentinel or ``limit`` polls ran out; (values, timed out)."""
    v = tl.load(p, mask=m, other=0, volatile=True)
    tries = 0
    while (tl.max((v == SENT).to(tl.int32), axis=0) > 0) & (tries < limit):
        v = tl.load(p, mask=m, other=0, volatile=True)
        tries += 1
    return v, tl.max((v == SENT).to(tl.int32), axis=0) > 0


@triton.jit
def push_one_shot_kernel(inp, out, mybuf, b0, b1, b2, b3, b4, b5, b6, b7, counters, numel, region_elems, rank,
                         err, claim, code_base, limit,
                         WS: tl.constexpr, BLOCK: tl.constexpr, MAXB: tl.constexpr, SENT: tl.constexpr):
    """Barrier-free one-shot: push the input into slot ``rank`` of every rank's buffer, wait for data
    (no sentinel left), sum in fp32 in rank order, reset the read slots to the sentinel.

    Buffers are integer views (int16 for 2-byte dtypes, int32 for fp32); an input equal to the
    sentinel (−0.0 / the 0x80008000 denormal) is sent as +0.0.  Two slots alternate per block call
    counter: a rank can only reach call k+2 after receiving everyone's call k+1 data, which each rank
    sends after it finished reading and resetting call k.  A peer whose data does not arrive within
    ``limit`` polls makes the chunk NaN and reports ``code_base + 1 << 8 + peer`` (``_triton_sync.report``).
    A rank's own slot is written by this block just before it reads it, so it does not time out.
    """
    bid = tl.program_id(0)
    count = tl.load(counters + bid)
    slot = tl.multiple_of((count % 2) * (WS * region_elems), 16)
    mine = tl.multiple_of(slot + rank * region_elems, 16)
    nchunks = tl.cdiv(numel, BLOCK)
    lanes = tl.arange(0, BLOCK)
    for c in range(bid, nchunks, MAXB):
        offs = c * BLOCK + lanes
        m = offs < numel
        v = tl.load(inp + offs, mask=m, other=0.0).to(mybuf.dtype.element_ty, bitcast=True)
        v = tl.where(v == SENT, 0, v)
        for r in tl.static_range(WS):
            buf = select8(r, b0, b1, b2, b3, b4, b5, b6, b7)
            tl.store(buf + mine + offs, v, mask=m)
    for c in range(bid, nchunks, MAXB):
        offs = c * BLOCK + lanes
        m = offs < numel
        acc = tl.zeros([BLOCK], tl.float32)
        for r in tl.static_range(WS):
            p = mybuf + slot + r * region_elems + offs
            v, late = _wait_arrived(p, m, SENT, limit)
            report(late.to(tl.int32), err, claim, code_base + (1 * 256 + r))
            acc += tl.where(late, float("nan"), v.to(out.dtype.element_ty, bitcast=True).to(tl.float32))
            tl.store(p, tl.full([BLOCK], SENT, mybuf.dtype.element_ty), mask=m)
        tl.store(out + offs, acc.to(out.dtype.element_ty), mask=m)
    tl.debug_barrier()
    tl.store(counters + bid, count + 1)
