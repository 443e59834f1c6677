"""SGLang's decode CUDA-graph batch sizes: the batch a pass really runs at (pure engine facts).

    in:  a ``PerfRequest`` (engine version, GPU memory, TP, speculative settings, --max-running-requests), the
         running batch, plain decoding or speculation, the pass's graph mode
    out: ``(padded rows, graph mode)``: SGLang replays the graph of the next captured batch size (the extra rows
         run the GEMMs and collectives, not the attention), and runs a batch above the largest captured size
         without a graph

Read in the released wheels (2026-12-04, helper sgn2): ``model_executor/cuda_graph_runner.py``
``get_batch_sizes_to_capture`` (0.3.6–0.5.2) and ``server_args.py`` ``_generate_cuda_graph_batch_sizes`` (0.5.3–0.5.9;
0.5.15 ``_generate_decode_cuda_graph_batch_sizes``; 0.5.23 ``arg_groups/cuda_graph_hook.py``
``generate_decode_cuda_graph_batch_sizes``, padded by ``bisect_left`` in ``runner/base_cuda_graph_runner.py``); wheels
read: 0.3.6, 0.4.1, 0.4.3–0.4.8, 0.4.10, 0.5.0rc0, 0.5.2–0.5.6, 0.5.9, 0.5.15, 0.5.23.  ``replay`` pads with
``bisect_left(capture_bs, raw_bs)``;
``can_run`` is ``batch_size <= max_bs``, else the forward runs eagerly.  The draft and draft-extend graph runners
of EAGLE take the same list (0.4.7 and 0.5.6 ``eagle_draft_cuda_graph_runner.py``,
``eagle_draft_extend_cuda_graph_runner.py``).  Default lists (``--disable-cuda-graph-padding`` off):

    0.3.6–0.4.3    plain and speculation: 1, 2, 4, 8–160 step 8 (read 0.3.6, 0.4.1, 0.4.3; no list of its own for
                   speculation)
    0.4.4–post1    plain as above; speculation 1–32
    0.4.4.post2–3  plain as above; speculation 1–8, 9–31 odd, 64, 96, 128, 160 (read in the post2 and post3 wheels,
                   helper sp14: "speculative decoding requires more cuda graph memory, we capture less")
    0.4.4.post4–0.4.6  plain 1, 2, 4, 8, 16–160 step 8; speculation 1–8, 10–32 step 2, 40–152 step 16
    0.4.7–0.5.2    plain as 0.4.5; speculation 1–8, 10–32 step 2, 40, 48, 56, 80–160 step 16
    0.5.3–0.5.4    plain 1, 2, 4, 8, 12, 16–256 step 8, 272–496 step 16, 512 up step 32; speculation 1–8, 10–32
                   step 2, 40–60 step 4, 72–256 step 8, 272 up step 16 (both up to cuda_graph_max_bs)
    ≥ 0.5.5        speculation 40–64 step 4 (else as 0.5.3; unchanged in 0.5.23)

Then every release keeps the sizes ≤ ``cuda_graph_max_bs`` (``engines.sglang.defaults.capacity_defaults``) and ≤ the
request pool (``max_running_requests``: the user's, or the speculative cap), adding the pool's size when the list
goes above it (from 0.4.1; with the size below it up to 0.4.6; 0.3.6 adds none).  Releases before 0.3.6 (not read)
take 0.3.6's rules.  Not modelled: the GPU-memory and HIP additions of 0.4.4–0.5.2
(sizes above 160, which the default ``cuda_graph_max_bs`` of 160 of those releases removes again), 0.4.7–0.5.2's
extension to a larger user ``--cuda-graph-max-bs``, 0.5.15's appended ``max_bs``, speculative passes above the
largest size from 0.5.10 (``PREFILL_GRAPHS``: left at their graph mode) (``tpkit perf`` takes no
``--cuda-graph-max-bs``; the defaults are in every list), DP attention (padded by tokens over the DP ranks).
"""

from __future__ import annotations

import re
from bisect import bisect_left

__all__ = ["sglang_capture_sizes", "sglang_graph_batch", "graph_padding", "graph_notes", "PREFILL_GRAPHS"]

PREFILL_GRAPHS = (0, 5, 10)
"""first release with prefill CUDA graphs (``engines.sglang.graphs.prefill_graphs``): from it a target-verify batch
above the decode graphs' largest size may run under the prefill graph backend (0.5.23 ``model_runner.py``
``forward``: an extend-mode batch, target verify included, tries ``prefill_cuda_graph_runner`` before the eager
runner), so tpkit does not charge such speculative passes as eager; a plain decode batch there runs eagerly in
every release read"""

_S = range


def _plain_sizes(ver: tuple[int, int, int], max_bs: int, post: int = 0) -> list[int]:
    if ver >= (0, 5, 3):
        return [1, 2, 4, 8, 12, *_S(16, 257, 8), *_S(272, 512, 16), *_S(512, max_bs + 1, 32)]
    if ver >= (0, 4, 5) or (ver == (0, 4, 4) and post >= 4):
        return [1, 2, 4, 8, *_S(16, 161, 8)]
    return [1, 2, 4, *_S(8, 161, 8)]


def _spec_sizes(ver: tuple[int, int, int], max_bs: int, post: int = 0) -> list[int]:
    if ver >= (0, 5, 3):
        mid = _S(40, 65, 4) if ver >= (0, 5, 5) else _S(40, 64, 4)
        return [*_S(1, 9), *_S(10, 33, 2), *mid, *_S(72, 257, 8), *_S(272, max_bs + 1, 16)]
    if ver >= (0, 4, 7):
        return [*_S(1, 9), *_S(10, 33, 2), 40, 48, 56, *_S(80, 161, 16)]
    if ver >= (0, 4, 5) or (ver == (0, 4, 4) and post >= 4):
        return [*_S(1, 9), *_S(10, 33, 2), *_S(40, 161, 16)]
    if ver == (0, 4, 4) and post >= 2:
        return [*_S(1, 9), *_S(9, 33, 2), 64, 96, 128, 160]
    if ver >= (0, 4, 4):
        return list(_S(1, 33))
    return _plain_sizes(ver, max_bs)


def sglang_capture_sizes(ver: tuple[int, int, int], *, speculative: bool, max_bs: int,
                         pool: int | None, post: int = 0) -> tuple[int, ...]:
    """The decode batch sizes SGLang ``ver`` (post release ``post``: only 0.4.4's posts change the lists)
    captures (module docstring); ``pool``: max running requests (None: the pool is larger than every size)."""
    sizes = (_spec_sizes if speculative else _plain_sizes)(ver, max_bs, post)
    if pool is not None and max(sizes) > pool and ver >= (0, 4, 1):
        sizes += [pool - 1, pool] if ver < (0, 4, 7) else [pool]
    return tuple(sorted({s for s in sizes if 0 < s <= max_bs and (pool is None or s <= pool)}))


def sglang_graph_batch(ver: tuple[int, int, int], batch: int, *, speculative: bool, max_bs: int,
                       pool: int | None, post: int = 0) -> int | None:
    """The captured batch size ``batch`` requests replay (≥ batch), or None when it is above every captured size
    (the pass runs without a graph)."""
    sizes = sglang_capture_sizes(ver, speculative=speculative, max_bs=max_bs, pool=pool, post=post)
    i = bisect_left(sizes, batch)
    return sizes[i] if i < len(sizes) else None


def graph_padding(req, rt, running: int, speculative: bool, graph: str) -> tuple[int, str]:
    """(padded rows, graph mode) for one SGLang pass of ``running`` requests under ``graph`` (``Runtime``'s mode
    for that pass); vLLM, eager passes and DP attention are returned unchanged."""
    if req.engine != "sglang" or graph != "full" or req.dp_attention > 1:
        return 0, graph
    from tpkit.engines.sglang.defaults import capacity_defaults
    from tpkit.engines.sglang.spec import spec_running_requests

    version = ".".join(map(str, rt.version))
    mem_mib = req.gpu.nvidia_smi_total_mib or req.gpu.total_bytes.bytes / 2**20
    max_bs = capacity_defaults(mem_mib, req.tp, version, chunked_prefill_size=None, cuda_graph_max_bs=None,
                               max_running_requests=req.max_running_requests).cuda_graph_max_bs
    algo = req.spec.algorithm if speculative and req.spec is not None else None
    pool = spec_running_requests(version, algo, req.max_running_requests, architecture=req.model.architecture)
    post = re.search(r"post(\d+)", str(req.engine_version or ""))    # 0.4.4's posts change the lists
    padded = sglang_graph_batch(rt.version, running, speculative=speculative, max_bs=max_bs, pool=pool,
                                post=int(post.group(1)) if post else 0)
    if padded is not None:
        return padded - running, graph
    if speculative and rt.version >= PREFILL_GRAPHS:
        return 0, graph      # the verify may take the prefill graph backend instead: not modelled, left as it was
    return 0, "eager"


def graph_notes(req, plain_rt, spec_rt, plain_running: int, spec_running: int) -> tuple[str, ...]:
    """One line per side whose SGLang pass at the requested batch is padded or runs without a graph."""
    out = []
    for what, rt, running, spec in (("plain step", plain_rt, plain_running, False),
                                    ("verify and draft passes", spec_rt, spec_running, True)):
        if rt is None:
            continue
        asked = rt.verify_graph if spec else rt.target_graph
        if asked == "eager":
            continue                                     # --disable-cuda-graph: no graph to pad
        pad, graph = graph_padding(req, rt, running, spec, asked)
        if graph == "eager":
            out.append(f"SGLang CUDA graphs: {what} of {running} requests: above the largest captured batch size, "
                       "run without a graph (cuda_graph_runner can_run)")
        elif pad:
            out.append(f"SGLang CUDA graphs: {what} of {running} requests: the graph of {running + pad} is replayed "
                       f"(the next captured batch size; the {pad} padded rows run the GEMMs, not the attention)")
    return tuple(out)
