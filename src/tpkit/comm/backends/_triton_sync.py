"""Graph-safe cross-GPU block barrier for Triton kernels over symmetric memory.

Protocol (the one torch's ``sync_remote_blocks`` uses): block ``b`` of rank ``r`` signals peer ``p`` by a
system-scope CAS 0→1 on ``pad_p[b·WS + r]`` (release), then waits by a CAS 1→0 on its own
``pad_r[b·WS + p]`` (acquire).  Flags return to 0 after every barrier, so no host epoch is needed and
CUDA-graph replays stay in step.  Thread ``p`` of the block handles peer ``p``; ``bar.sync`` orders
the rest of the block around it.  Spins are bounded (``limit`` tries, a kernel argument): a peer that
never answers makes the waiting thread write a code into the error word (``error_flag``) and go on, so
the host raises instead of the GPU hanging.
"""

from __future__ import annotations

import triton
import triton.language as tl

__all__ = ["block_sync", "select8", "report"]


@triton.jit
def _thread_id():
    return tl.inline_asm_elementwise("mov.u32 $0, %tid.x;", "=r", [], dtype=tl.int32, is_pure=True, pack=1)


@triton.jit
def report(err, code):
    """Write ``code`` into the error word at address ``err`` (host-mapped memory; generic addressing)."""
    return tl.inline_asm_elementwise(
        "st.volatile.u32 [$1], $2; mov.u32 $0, 0;", "=r,l,r", [err, code], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def _send(addr, err, code, limit):
    return tl.inline_asm_elementwise(
        """{
        .reg .u32 %old;
        .reg .u32 %tries;
        .reg .pred %busy;
        .reg .pred %again;
        mov.u32 %tries, 0;
        SEND_AGAIN:
        atom.release.sys.global.cas.b32 %old, [$1], 0, 1;
        add.u32 %tries, %tries, 1;
        setp.ne.u32 %busy, %old, 0;
        setp.lt.u32 %again, %tries, $4;
        and.pred %again, %again, %busy;
        @%again bra SEND_AGAIN;
        @%busy st.volatile.u32 [$2], $3;
        mov.u32 $0, %old;
        }""",
        "=r,l,l,r,r", [addr, err, code, limit], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def _wait(addr, err, code, limit):
    return tl.inline_asm_elementwise(
        """{
        .reg .u32 %old;
        .reg .u32 %tries;
        .reg .pred %busy;
        .reg .pred %again;
        mov.u32 %tries, 0;
        WAIT_AGAIN:
        atom.acquire.sys.global.cas.b32 %old, [$1], 1, 0;
        add.u32 %tries, %tries, 1;
        setp.ne.u32 %busy, %old, 1;
        setp.lt.u32 %again, %tries, $4;
        and.pred %again, %again, %busy;
        @%again bra WAIT_AGAIN;
        @%busy st.volatile.u32 [$2], $3;
        mov.u32 $0, %old;
        }""",
        "=r,l,l,r,r", [addr, err, code, limit], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def select8(i: tl.constexpr, a0, a1, a2, a3, a4, a5, a6, a7):
    """The ``i``-th of eight arguments (``i`` known at compile time)."""
    if i == 0:
        return a0
    elif i == 1:
        return a1
    elif i == 2:
        return a2
    elif i == 3:
        return a3
    elif i == 4:
        return a4
    elif i == 5:
        return a5
    elif i == 6:
        return a6
    else:
        return a7


@triton.jit
def block_sync(sp0, sp1, sp2, sp3, sp4, sp5, sp6, sp7, sp_self, bid, rank, err, code_base, limit,
               WS: tl.constexpr):
    """Barrier between block ``bid`` of every rank; ``sp*`` are the ranks' signal-pad addresses (uint32).

    A wait that runs out of ``limit`` tries writes ``code_base + kind << 8 + peer`` to the error word ``err``
    (kind 2: signal not taken, 3: peer never signalled; ``backends.error_flag``).
    """
    tl.debug_barrier()
    tid = _thread_id()
    for p in tl.static_range(WS):
        if tid == p:
            peer_pad = select8(p, sp0, sp1, sp2, sp3, sp4, sp5, sp6, sp7)
            _send(peer_pad + (bid * WS + rank) * 4, err, code_base + (2 * 256 + p), limit)
            _wait(sp_self + (bid * WS + p) * 4, err, code_base + (3 * 256 + p), limit)
    tl.debug_barrier()
