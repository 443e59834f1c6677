"""Graph-safe cross-GPU block barrier for Triton kernels over symmetric memory, and timeout reporting.

Protocol (the one torch's ``sync_remote_blocks`` uses): block ``b`` of rank ``r`` signals peer ``p`` by a
system-scope CAS 0→1 on ``pad_p[b·WS + r]`` (release), then waits by a CAS 1→0 on its own
``pad_r[b·WS + p]`` (acquire).  Flags return to 0 after every barrier, so no host epoch is needed and
CUDA-graph replays stay in step.  Thread ``p`` of the block handles peer ``p ≠ r`` (a rank never signals
itself: its own slot ``pad_r[b·WS + r]`` is never touched); ``bar.sync`` orders the rest of the block
around it.  Spins are bounded (``limit`` tries, a kernel argument): a peer that never answers makes the
waiting thread report a code (``report``) and go on, so the host raises instead of the GPU hanging.

``report`` keeps the *first* timeout of a backend, not the last: every thread that timed out races for a
claim word in device memory (a relaxed, gpu-scope CAS 0→1: only this GPU's threads contend, and it orders
no other data), and the one winner stores the code into the error word with one relaxed system-scope
32-bit store.  The error word is pinned host memory (PCIe, or NVLink-C2C on Grace Hopper), so it is
never the target of an atomic read-modify-write: GPU atomics on mapped host memory are not atomic for the
host, and over PCIe they depend on the platform (``hostNativeAtomicSupported`` is 0 on x86 + PCIe).  An
aligned 32-bit store arrives whole (one posted write), so the host reads 0 or the full code, and it reads
it after the kernel has finished (a synchronise) or, racing the kernel, sees 0 and checks again later.
The first timeout is the cause; later ones (a second barrier signalling a peer that never took the first
signal, say) are its consequences.
"""

from __future__ import annotations

import triton
import triton.language as tl

__all__ = ["block_sync", "select8", "report"]


@triton.jit
def _thread_id():
    return tl.inline_asm_elementwise("mov.u32 $0, %tid.x;", "=r", [], dtype=tl.int32, is_pure=True, pack=1)


@triton.jit
def report(failed, err, claim, code):
    """If ``failed`` (non-zero) and no timeout was recorded yet, store ``code`` into the error word ``err``.

    ``claim``: a device-memory int32 word, 0 until the first report (see the module docstring); ``err``: the
    host-mapped error word (generic address).  Returns the claim's old value (0: this thread recorded).
    """
    return tl.inline_asm_elementwise(
        """{
        .reg .u32 %won;
        .reg .pred %first;
        setp.ne.u32 %first, $1, 0;
        mov.u32 %won, 1;
        @%first atom.relaxed.gpu.global.cas.b32 %won, [$3], 0, 1;
        setp.eq.u32 %first, %won, 0;
        @%first st.relaxed.sys.u32 [$2], $4;
        mov.u32 $0, %won;
        }""",
        "=r,r,l,l,r", [failed, err, claim, code], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def _send(addr, limit):
    """CAS 0→1 (release, system scope) until it succeeds or ``limit`` tries ran out; the last old value
    (non-zero: timed out, the peer never took the previous signal)."""
    return tl.inline_asm_elementwise(
        """{
        .reg .u32 %old;
        .reg .u32 %tries;
        .reg .pred %again;
        mov.u32 %tries, 0;
        SEND_AGAIN:
        atom.release.sys.global.cas.b32 %old, [$1], 0, 1;
        add.u32 %tries, %tries, 1;
        setp.ne.u32 %again, %old, 0;
        @%again setp.lt.u32 %again, %tries, $2;
        @%again bra SEND_AGAIN;
        mov.u32 $0, %old;
        }""",
        "=r,l,r", [addr, limit], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def _wait(addr, limit):
    """CAS 1→0 (acquire, system scope) until it succeeds or ``limit`` tries ran out; the last old value
    (not 1: timed out, the peer never signalled)."""
    return tl.inline_asm_elementwise(
        """{
        .reg .u32 %old;
        .reg .u32 %tries;
        .reg .pred %again;
        mov.u32 %tries, 0;
        WAIT_AGAIN:
        atom.acquire.sys.global.cas.b32 %old, [$1], 1, 0;
        add.u32 %tries, %tries, 1;
        setp.ne.u32 %again, %old, 1;
        @%again setp.lt.u32 %again, %tries, $2;
        @%again bra WAIT_AGAIN;
        mov.u32 $0, %old;
        }""",
        "=r,l,r", [addr, limit], dtype=tl.int32, is_pure=False, pack=1)


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
def block_sync(sp0, sp1, sp2, sp3, sp4, sp5, sp6, sp7, sp_self, bid, rank, err, claim, code_base, limit,
               WS: tl.constexpr):
    """Barrier between block ``bid`` of every rank; ``sp*`` are the ranks' signal-pad addresses (uint32).

    A signal or wait that runs out of ``limit`` tries reports ``code_base + kind << 8 + peer`` (kind 2: the
    peer never took this rank's previous signal, 3: the peer never signalled; ``backends.error_flag``),
    where ``peer`` is never ``rank`` itself.
    """
    tl.debug_barrier()
    tid = _thread_id()
    for p in tl.static_range(WS):
        if (tid == p) & (rank != p):
            peer_pad = select8(p, sp0, sp1, sp2, sp3, sp4, sp5, sp6, sp7)
            old = _send(peer_pad + (bid * WS + rank) * 4, limit)
            report((old != 0).to(tl.int32), err, claim, code_base + (2 * 256 + p))
            old = _wait(sp_self + (bid * WS + p) * 4, limit)
            report((old != 1).to(tl.int32), err, claim, code_base + (3 * 256 + p))
    tl.debug_barrier()
