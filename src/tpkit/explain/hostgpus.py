"""How many GPUs the log shows its host has, and the layout fixes that need more — both engines (issue 12; helper
cr35b for vLLM, helper fx35b for SGLang and the free-text count, 2026-12-07, docs/accuracy.md §7.3 rounds cr35b and
fx35b).  The one home of this rule: ``explain.vdiagnose`` (through ``explain.vhostgpus``) and ``explain.sgdiagnose``
both call it.

A tensor / pipeline-parallel fix re-planned per GPU (vLLM's ``--tensor-parallel-size`` / ``--pipeline-parallel-size``
through ``explain.vreplan`` and ``explain.vgpus``; SGLang's ``--tp`` / ``--tp-size`` / ``--pp-size`` through
``explain.sgreplan``) says nothing about whether the host has the GPUs: a single DGX Spark cannot run tp 2.  One rule:

- **The host's count, shown** (``HostGpus.exact``): the log prints what the host has, not what the run used —
  * an nvidia-smi table: one row per GPU the driver exposes (nvidia-smi ignores ``CUDA_VISIBLE_DEVICES``), the
    distinct indices counted;
  * the environment report vLLM's and SGLang's issue templates ask for (``collect_env.py``, torch's and vLLM's
    copy): 'GPU models and configuration:' is ``nvidia-smi -L`` with the UUIDs cut (``get_gpu_info``), one 'GPU i:
    NAME' line per GPU, on the same line when there is one and on the lines below when there are several
    (``maybe_start_on_next_line``; torch 2.13 ``torch/utils/collect_env.py``, read here); a bare name (ROCm, macOS:
    ``torch.cuda.get_device_name``) is no count;
  * a print of ``torch.cuda.device_count()`` with its value;
  * a labelled environment field written by hand ('GPU:  8 * A800', '- devices: 8×H800 80G':
    ``logs.hostcount``, round fx35b); a count in prose or a model name ('Mixtral-8x22B') is not one;
  * a unified-memory GPU (the catalog's ``unified_memory``: GB10, Jetson AGX Thor) on a log that ran one GPU: the
    chip is the board's only GPU (one per DGX Spark / Jetson module).
  A fix needing N > M GPUs is then not a fit on that host: offered as a suggestion (``diagnose.unshown``, fits false,
  the re-planned tokens kept) whose note starts "needs N GPUs; this host shows M (…)".
- **Only what the run used** (a lower bound on the host: the run's own tp × pp, ``CUDA_VISIBLE_DEVICES``, vLLM's
  world size, NCCL's nranks): the host may have more, so a fix keeps its verdict and its note says "needs N GPUs;
  the log shows M in use (…), not how many the host has".  Where the log shows nothing, "the log does not show how
  many GPUs the host has".  Only fixes needing more GPUs than the run used are touched.

The data-parallel size counts where the run's is known (helper fx36, round fx36): each data-parallel rank owns its
own tp × pp GPUs, so the run used, and a fix that keeps the dp needs, tp × pp × dp (``run_gpus``) —
  * vLLM's ``--data-parallel-size`` (each DP engine core holds a tp × pp world; on a host of a multi-node run, the
    ``--data-parallel-size-local`` the log shows instead);
  * SGLang's ``--dp-size`` without DP attention (``DataParallelController.launch_dp_schedulers`` starts each DP rank
    at GPU ``tp_size × pp_size × gpu_id_step`` past the previous one, sglang 0.5.13.post1
    ``srt/managers/data_parallel_controller.py``); with ``--enable-dp-attention`` the DP ranks live inside the tp
    group (``launch_dp_attention_schedulers``), so dp adds none.
Where the log shows no dp, it counts as 1 (the count needed is then a lower bound, as before).

A multi-node run (``--nnodes N``, round fx37) splits its tp × pp group over its nodes: the host holds tp × pp / N
of it (SGLang's rank split; vLLM's ``local_world_size``), and a fix that keeps the nodes needs its own tp × pp × dp
divided the same way (``explain.hostnodes``).
"""

from __future__ import annotations

import re

from tpkit.records import dataclass

from tpkit.explain.diagnose import SUGGESTION, Fix, unshown
from tpkit.logs.hostcount import host_count_written, nvidia_smi_rows

__all__ = ["HostGpus", "host_gpus_shown", "gpus_needed", "checked_fixes", "dp_factor", "run_gpus", "run_layout"]


@dataclass(frozen=True, kw_only=True, slots=True)
class HostGpus:
    """The GPUs the log shows: ``exact`` when it shows the host's count, else the fewest the run used."""
    count: int
    exact: bool
    evidence: str
    dp: int = 1
    """how many tp × pp groups the run's data parallelism put on the host (``dp_factor``)"""
    nodes: int = 1
    """how many hosts the run's tp × pp group spans (``explain.hostnodes``): a fix's GPUs are divided by it"""


_COLLECT_ENV = re.compile(rb"GPU models and configuration:[ \t]*([^\r\n]*)((?:\r?\n[ \t]*GPU \d{1,2}: [^\r\n]+)*)")
_ENV_GPU = re.compile(rb"GPU (\d{1,2}): ")
_DEVICE_COUNT = re.compile(rb"torch\.cuda\.device_count\(\)\s*(?:=|==|:|->|returns?|is)?\s*(\d{1,2})\b")
_VISIBLE = re.compile(rb"\bCUDA_VISIBLE_DEVICES=['\"]?([0-9]{1,2}(?:,[0-9]{1,2})*)['\"]?")
_WORLD = re.compile(rb"in world size (\d{1,3}) is assigned")
_NRANKS = re.compile(rb"\bcomm 0x[0-9a-fA-F]+ rank \d+ nranks (\d{1,3})\b")
_DP_LOCAL = re.compile(rb"(?:--data-parallel-size-local[ =]|'?data_parallel_size_local'?\s*[:=]\s*)(\d{1,3})\b")
"""vLLM's data-parallel ranks on this host of a multi-node run (the flag, or the non-default args' key)"""


def dp_factor(values, engine: str | None, raw: bytes | None = None) -> tuple[int, str]:
    """(how many tp × pp groups the run's data parallelism puts on the host, the words for it) (module doc); ``values``
    anything with ``get`` (a ``Context`` or its values).  (1, "") where the log shows no dp above 1."""
    dp = int(values.get("dp") or 1)
    if dp <= 1:
        return 1, ""
    if engine == "sglang":
        if values.get("enable_dp_attention"):
            return 1, ""
        return dp, f"dp {dp} (SGLang's --dp-size without DP attention: one tp × pp group per DP rank)"
    if engine == "vllm":
        m = _DP_LOCAL.search((raw or b"")[:4 << 20])
        if m is not None and 0 < int(m.group(1)) < dp:
            local = int(m.group(1))
            return local, f"dp {local} on this host (vLLM's --data-parallel-size-local of dp {dp})"
        return dp, f"dp {dp} (vLLM's --data-parallel-size: one tp × pp group per DP rank)"
    return 1, ""


def run_gpus(values, engine: str | None, raw: bytes | None = None) -> tuple[int, str, int]:
    """(the GPUs the run used on the host, the words, the dp factor): ``run_layout`` without the nodes."""
    return run_layout(values, engine, raw)[:3]


def run_layout(values, engine: str | None, raw: bytes | None = None) -> tuple[int, str, int, int]:
    """(the GPUs the run used on the host, the words, the dp factor, the nodes its tp × pp spans): tp × pp × the
    data-parallel factor (``dp_factor``) over the nodes (``explain.hostnodes``)."""
    tp, pp = int(values.get("tp") or 1), int(values.get("pp") or 1)
    dp, how = dp_factor(values, engine, raw)
    nodes, spans = 1, ""
    if b"nnodes" in (raw or b"")[:4 << 20]:  # a multi-node run only (explain.hostnodes; cold start)
        from tpkit.explain.hostnodes import nodes_spanned

        nodes, spans = nodes_spanned(engine, tp, pp, int(values.get("dp") or 1), dp, raw)
    words = f"tp × pp × dp = {tp} × {pp} × {dp}, {how}" if dp > 1 else f"tp × pp = {tp * pp}"
    if nodes > 1:
        words = f"{words}, over {nodes} nodes: {tp * pp * dp // nodes} on this host ({spans})"
    return tp * pp * dp // nodes, words, dp, nodes


def _line(raw: bytes, pos: int) -> int:
    return raw.count(b"\n", 0, pos) + 1


def _shown_by_text(raw: bytes) -> HostGpus | None:
    """The host's count from an nvidia-smi table, the environment report or a device-count print (module doc)."""
    rows = nvidia_smi_rows(raw)
    if rows:
        n = len({int(m.group(1)) for m in rows})
        return HostGpus(count=n, exact=True, evidence=f"nvidia-smi lists {n} GPU{'s' if n > 1 else ''}, line "
                                                      f"{_line(raw, rows[0].start())}")
    m = _COLLECT_ENV.search(raw)
    if m is not None:
        same, below = m.group(1).strip(), m.group(2)
        # only nvidia-smi -L's 'GPU i: NAME' lines count: on ROCm (and macOS) the report prints device 0's name alone
        # (``get_gpu_info`` returns ``torch.cuda.get_device_name(None)``), whatever the count
        ids = {int(g.group(1)) for g in _ENV_GPU.finditer(below if not same else same)}
        n = len(ids) if same.startswith(b"GPU ") or not same else 0
        if n:
            return HostGpus(count=n, exact=True, evidence=f"the environment report's 'GPU models and configuration' "
                                                          f"(nvidia-smi -L) lists {n}, line {_line(raw, m.start())}")
    m = _DEVICE_COUNT.search(raw)
    if m is not None and int(m.group(1)) > 0:
        n = int(m.group(1))
        return HostGpus(count=n, exact=True, evidence=f"torch.cuda.device_count() prints {n}, line "
                                                      f"{_line(raw, m.start())}")
    written = host_count_written(raw)
    if written is not None:
        return HostGpus(count=written.count, exact=True, evidence=f"the environment written in the log: "
                                                                  f"'{written.text}', line {written.line_no}")
    return None


def _used(raw: bytes, run_gpus: int, words: str = "", dp: int = 1, nodes: int = 1) -> HostGpus | None:
    """The most GPUs the log shows in use (a lower bound on the host), or None where it shows only one.  vLLM's world
    size and NCCL's nranks count every node's ranks: on a run over ``nodes`` hosts they are divided by it."""
    seen: list[tuple[int, str]] = [(run_gpus, f"the run's {words or f'tp × pp = {run_gpus}'}")]
    m = _VISIBLE.search(raw)
    if m is not None:
        ids = [int(x) for x in m.group(1).split(b",")]
        n = max(len(ids), max(ids) + 1)
        seen.append((n, f"CUDA_VISIBLE_DEVICES={m.group(1).decode()} (line {_line(raw, m.start())})"))
    for pattern, what in ((_WORLD, "vLLM's world size"), (_NRANKS, "NCCL's nranks")):
        sizes = [int(x.group(1)) for x in pattern.finditer(raw)]
        if sizes:
            seen.append((-(-max(sizes) // nodes), f"{what} {max(sizes)}" + (f" over {nodes} nodes" if nodes > 1 else "")))
    n, why = max(seen, key=lambda s: s[0])
    return HostGpus(count=n, exact=False, evidence=why, dp=dp) if n > 1 else None


def host_gpus_shown(raw: bytes | None, gpu, run_gpus: int, words: str = "", dp: int = 1,
                    nodes: int = 1) -> HostGpus | None:
    """What the log shows of the host's GPUs (module doc); ``gpu`` the log's ``GpuSpec`` or None, ``run_gpus`` the
    GPUs it used on the host (``run_gpus``: tp × pp × its dp factor ``dp`` over its ``nodes``), ``words`` how they
    were counted.  None: nothing shown beyond one GPU in use."""
    head = (raw or b"")[:4 << 20]
    shown = _shown_by_text(head)
    if shown is not None and shown.count >= run_gpus:
        return HostGpus(count=shown.count, exact=True, evidence=shown.evidence, dp=dp, nodes=nodes)
    if gpu is not None and getattr(gpu, "unified_memory", False) and run_gpus == 1:
        return HostGpus(count=1, exact=True, evidence=f"a {gpu.name}: a unified-memory GPU, the only one on its board",
                        nodes=nodes)
    used = _used(head, run_gpus, words, dp, nodes)
    return HostGpus(count=used.count, exact=False, evidence=used.evidence, dp=dp, nodes=nodes) \
        if used is not None and nodes > 1 else used


_TP_FLAG = re.compile(r"(?:--tensor-parallel-size|--tp-size|-tp)[ =](\d{1,3})\b")
"""vLLM's --tensor-parallel-size / -tp; SGLang's ``--tensor-parallel-size`` / ``--tp-size`` (one option in SGLang
0.5.9 ``sglang/srt/server_args.py`` ``ServerArgs.add_cli_args``) and the ``--tp N`` explain's SGLang fixes write
(argparse's default ``allow_abbrev``: the only option starting '--tp' is ``--tp-size``)"""
_PP_FLAG = re.compile(r"(?:--pipeline-parallel-size|--pp-size|-pp)[ =](\d{1,3})\b")
"""vLLM's --pipeline-parallel-size / -pp; SGLang's ``--pipeline-parallel-size`` / ``--pp-size`` (0.5.9, as above)"""
_DP_FLAG = re.compile(r"(?:--data-parallel-size|--dp-size|--dp|-dp)[ =](\d{1,3})\b")
"""a fix's own data-parallel size (vLLM's --data-parallel-size / -dp, SGLang's --dp-size / --dp)"""


def gpus_needed(flags: str, tp: int, pp: int, dp: int = 1, nodes: int = 1) -> int | None:
    """tp × pp × dp of a fix's flags on one host (the run's own value where the fix leaves one out; ``dp`` the run's
    dp factor, ``dp_factor``; ``nodes`` the hosts the run's tp × pp spans, kept by the fix: the product divided by
    it, rounded up); None for a fix that sets neither tp nor pp."""
    t, p = _TP_FLAG.search(flags), _PP_FLAG.search(flags)
    if t is None and p is None:
        return None
    d = _DP_FLAG.search(flags)
    total = (int(t.group(1)) if t else tp) * (int(p.group(1)) if p else pp) * (int(d.group(1)) if d else dp)
    return -(-total // max(nodes, 1))


def checked_fixes(fixes, ctx, shown: HostGpus | None) -> list[Fix]:
    """``fixes`` with each layout fix that needs more GPUs than the run used held against ``shown`` (module doc)."""
    tp, pp = int(ctx.get("tp", 1) or 1), int(ctx.get("pp", 1) or 1)
    dp = shown.dp if shown is not None else 1  # None: the run used one GPU, so its dp factor is 1
    nodes = shown.nodes if shown is not None else 1
    out = []
    for fix in fixes:
        need = gpus_needed(fix.flags, tp, pp, dp, nodes)
        if need is None or need <= -(-tp * pp * dp // nodes):
            out.append(fix)
        elif shown is not None and shown.exact and need > shown.count:
            out.append(_beyond(fix, f"needs {need} GPUs; this host shows {shown.count} ({shown.evidence})"))
        elif shown is not None and shown.exact:
            out.append(fix)
        else:
            words = (f"the log shows {shown.count} in use ({shown.evidence}), not how many the host has"
                     if shown is not None else "the log does not show how many GPUs the host has")
            note = f"needs {need} GPUs; {words}"
            out.append(Fix(flags=fix.flags, kv_tokens=fix.kv_tokens, fits=fix.fits, why=fix.why,
                           note=f"{fix.note}; {note}" if fix.note else note))
    return out


def _beyond(fix: Fix, words: str) -> Fix:
    """``fix`` as a suggestion whose note starts with ``words`` (once, after the suggestion's words where it was one
    already)."""
    head = f"{SUGGESTION}: "
    if not fix.note.startswith(head):
        return unshown(fix, words)
    return Fix(flags=fix.flags, kv_tokens=fix.kv_tokens, fits=False, why=fix.why,
               note=f"{head}{words}; {fix.note[len(head):]}")
