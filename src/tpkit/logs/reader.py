"""``parse_log``: from raw text or bytes to a :class:`~tpkit.logs.parsed.ParsedLog`."""

from __future__ import annotations

import dataclasses
import re

from tpkit.logs.anchors import Anchor
from tpkit.logs.engine import Evidence, decide_engine
from tpkit.logs.failures import ROOT_KINDS, Failure
from tpkit.logs.gpu_names import gpus_with_total
from tpkit.logs.missing import with_missing
from tpkit.logs.parsed import ParsedLog
from tpkit.logs.prefix import MAIN
from tpkit.logs.printed import PrintedSize
from tpkit.logs.run import build_run
from tpkit.logs.scan import Scan, scan_text
from tpkit.logs.settings import Setting
from tpkit.logs.text import last_start, prepare

__all__ = ["parse_log"]

_STARTS = {"sglang": ("load_begin_avail",), "vllm": ("weights",)}


def _merge_failures(failures: list[Failure]) -> tuple[Failure, ...]:
    """One entry per distinct failure (ranks and engines re-print the same message)."""
    merged: dict[tuple, Failure] = {}
    for f in failures:
        key = (f.kind, f.detail, tuple((n, s.value.bytes) for n, s in f.sizes),
               tuple((n, c.value) for n, c in f.counts))
        first = merged.get(key)
        if first is None:
            merged[key] = f
        else:
            merged[key] = Failure(kind=first.kind, severity=first.severity, phase=first.phase,
                                  phase_evidence=first.phase_evidence, rank=first.rank, line_no=first.line_no,
                                  evidence=first.evidence, sizes=first.sizes, counts=first.counts,
                                  detail=first.detail, occurrences=first.occurrences + 1)
    return tuple(sorted(merged.values(), key=lambda f: f.line_no))


_POOL_NAMES = ("kv_tokens", "kv_k_size", "kv_v_size", "kv_size", "pool_end_avail")
_LOAD_NAMES = ("load_begin_avail", "load_end_avail", "weights_mem_usage")
_DRAFT_CLASS = re.compile(r"type=\w*(?:Eagle|NextN|MTP|Draft|Medusa)\w*")


def _draft_loads(anchors: list[Anchor], speculative: bool) -> set[int]:
    """Line numbers of SGLang 'Load weight begin/end' anchors that load a draft model: the model class says so
    (…Eagle, …NextN, …MTP), or it is a rank's second load while speculative decoding is on."""
    draft: set[int] = set()
    ends: dict[str, list[Anchor]] = {}
    for a in anchors:
        if a.name == "load_end_avail":
            ends.setdefault(a.rank.label, []).append(a)
    for label, rank_ends in ends.items():
        for i, end in enumerate(rank_ends):
            if _DRAFT_CLASS.search(end.line) or (i >= 1 and speculative):
                draft.add(end.line_no)
                before = [a.line_no for a in anchors if a.rank.label == label and a.name == "load_begin_avail"
                          and a.line_no <= end.line_no and (i == 0 or a.line_no > rank_ends[i - 1].line_no)]
                draft.update(before[-1:])
    return draft


def _sglang_groups(anchors: list[Anchor], *, speculative: bool) -> list[Anchor]:
    """Name SGLang's pools and loads: ``swa``/``full`` (hybrid sliding window) and ``draft`` (the draft model's
    weights, and with speculative decoding a second pool after the target's 'Memory pool end')."""
    draft_loads = _draft_loads(anchors, speculative)
    out, pool_ends, swa, last_kv_group = [], {}, {}, {}
    for a in anchors:
        label, group = a.rank.label, a.group
        if a.name in ("swa_full_tokens", "swa_swa_tokens") and a.count is not None:
            swa.setdefault(label, {})[a.count.value] = "full" if a.name == "swa_full_tokens" else "swa"
        if a.name in _LOAD_NAMES and a.line_no in draft_loads:
            group = "draft"
        if a.name in _POOL_NAMES and group is None:
            if pool_ends.get(label, 0) >= 1 and speculative:
                group = "draft"
            elif a.name == "kv_tokens" and a.count is not None:
                group = swa.get(label, {}).get(a.count.value)
            elif a.name != "pool_end_avail":
                group = last_kv_group.get(label)
            if a.name == "kv_tokens":
                last_kv_group[label] = group
        if a.name == "pool_end_avail":
            pool_ends[label] = pool_ends.get(label, 0) + 1
        out.append(a if group == a.group else dataclasses.replace(a, group=group))
    return out


def _derived_failures(anchors: list[Anchor], failures: list[Failure]) -> list[Failure]:
    """A KV budget printed as ≤ 0 (vLLM 'Available KV cache memory: -2.14 GiB', '# GPU blocks: 0')."""
    if any(f.phase == "kv_pool" and f.kind in ROOT_KINDS for f in failures):
        return []
    for a in anchors:
        bad = (a.name == "available_kv" and a.size is not None and a.size.value.bytes <= 0) or (
            a.name == "gpu_blocks" and a.count is not None and a.count.value == 0)
        if bad:
            return [Failure(kind="kv_budget_non_positive", severity="error", phase="kv_pool",
                            phase_evidence=f"the printed KV budget ({a.line}) leaves no KV cache",
                            rank=a.rank, line_no=a.line_no, evidence=a.line)]
    return []


def _printed_settings(anchors: list[Anchor]) -> list[Setting]:
    """Settings an engine prints in its memory lines (vLLM's applied gpu_memory_utilization)."""
    return [Setting(name="mem_fraction", value=a.count.value, key="gpu_memory_utilization (printed)",
                    source="log_line", line_no=a.line_no, text=a.line[:300])
            for a in anchors if a.name == "gpu_memory_utilization" and a.count is not None]


def _gpu(scan: Scan) -> tuple[Setting | None, PrintedSize | None, tuple[str, ...]]:
    """The GPU by name when printed; the device total when printed, and the catalog GPUs it fits."""
    gpu = None
    if scan.gpu_names:
        known = [g for g in scan.gpu_names if g[1]] or scan.gpu_names
        text, name, line_no, evidence = known[0]
        gpu = Setting(name="gpu", value=name or text, key=text, source="log_line", line_no=line_no, text=evidence)
    totals = [a.size for _, a in scan.anchors if a.name in ("total_gpu_memory", "startup_total") and a.size]
    totals += [f.size("total") for f in scan.failures if f.kind == "cuda_oom" and f.size("total")]
    total = totals[0] if totals else None
    return gpu, total, gpus_with_total(total) if total is not None else ()


def _notes(scan: Scan, engine: str | None, anchors: list[Anchor]) -> list[str]:
    notes = list(scan.notes)
    if scan.colour_codes:
        notes.append(f"{scan.colour_codes} colour code(s) removed from the lines read")
    if scan.clipped_lines:
        notes.append(f"{scan.clipped_lines} line(s) longer than 1 MiB clipped")
    for name in _STARTS.get(engine or "", ()):
        per_rank: dict[tuple[str, tuple[str, ...]], int] = {}
        for a in anchors:
            if a.name == name and a.group != "draft":  # counted per line format: vLLM 0.19 prints the weights in
                key = (a.rank.label, _line_format(a))   # three lines of one start (helper ux25)
                per_rank[key] = per_rank.get(key, 0) + 1
        if per_rank and max(per_rank.values()) > 1:
            notes.append(f"several start-ups in one log ({max(per_rank.values())} '{name}' lines on one rank); "
                         "per-rank views use the last")
    if not scan.anchors and not scan.failures and not scan.settings:
        notes.append("no engine memory line, setting or failure recognised")
    return notes


def _line_format(a: Anchor) -> tuple[str, ...]:
    """The needles of the rule that read ``a`` off its line: one start prints a quantity once per line format (vLLM
    0.19's weights: 'Model loading took', the DEBUG 'weights memory:' and the 'Free memory on device … for weight'
    lines), so only the same format seen twice on one rank is a second start."""
    from tpkit.logs.rules import RULES

    return next((r.needles for r in RULES if any(n in a.line for n in r.needles)
                 and any(f.name == a.name for f in r.fields)), ())


def _by_index(gpu_names) -> tuple[tuple[str, int], ...]:
    """(GPU, line) of the lines that number the devices "0: NAME", "1: NAME", … in order (``Run.gpus_by_index``)."""
    import re

    out = []
    for text, name, line_no, message in gpu_names:
        m = re.match(r"\s*(?:GPU\s*)?(\d+)\s*:", message)
        if m is None:
            continue
        if int(m.group(1)) != len(out):
            return ()
        out.append((name or text, line_no))
    return tuple(out[:16])


CONCURRENCY_RULE_FIRST = "0.20.1"
"""the first release whose 'GPU KV cache size' prints int(max_concurrency × max_model_len)
(``engines.vllm.versions``: v1/core/kv_cache_utils.py ``_report_kv_cache_config``, 0.20.1 on; 0.8.0–0.20.0 print
num_blocks // groups × block)"""


def tokens_rule_evidence(tokens: tuple[int, int] | None, concurrency: tuple[float, float, int] | None) \
        -> Evidence | None:
    """What vLLM's printed pair 'GPU KV cache size: T tokens' / 'Maximum concurrency for L tokens per request: Cx'
    says of the release (helper v920, 2026-12-05).  From 0.20.1 on T = int(concurrency × L) with the concurrency
    vLLM prints to two decimals (``_report_kv_cache_config``), so T lies in [int((C − 0.005) × L), int((C + 0.005) × L)];
    a pair outside that span was printed by the older rule (T = num_blocks // groups × block, the concurrency from the
    blocks per request: a hybrid's groups make them disagree) and the release is 0.8–0.20.0.  A pair inside it
    allows both rules (one KV group: num_blocks × block ≈ concurrency × L), so it says nothing here; ``tpkit
    explain`` tells the rules apart with the layout (``explain.vtokens``).  ``tokens`` is (value, line), ``concurrency``
    (value, rounding, L, line) as printed; None where either is missing."""
    if tokens is None or concurrency is None:
        return None
    (value, line_no), (conc, rounding, length) = tokens, concurrency
    if length <= 0 or value <= 0:
        return None
    rounding = max(float(rounding), 0.005)
    low, high = int((conc - rounding) * length), int((conc + rounding) * length) + 1
    if low <= value <= high:
        return None
    claim = (f"format of the printed pair of 'GPU KV cache size' ({value:,} tokens) and 'Maximum concurrency' "
             f"({conc:g}x for {length:,} tokens per request): 0.8–0.20.0 ({value:,} lies outside int(({conc:g} ± "
             f"{rounding:g}) × {length:,}) = {low:,}–{high:,}, which {CONCURRENCY_RULE_FIRST} and later print; "
             "0.20.0 and older print num_blocks // groups × block) [V1]")
    return Evidence(engine="vllm", claim=claim, line_no=line_no,
                    text=f"GPU KV cache size: {value:,} tokens; Maximum concurrency for {length:,} tokens: {conc:g}x")


def _tokens_rule_evidence(anchors):
    """``tokens_rule_evidence`` (above) for the first vLLM 'GPU KV cache size' and 'Maximum concurrency for L
    tokens' the log prints (on one rank: the main one where the log names none)."""
    first: dict = {}
    for engine, a in anchors:
        if engine == "vllm" and a.count is not None and a.name in ("kv_tokens", "max_concurrency", "concurrency_len"):
            first.setdefault(a.name, a)
    tokens, conc, length = first.get("kv_tokens"), first.get("max_concurrency"), first.get("concurrency_len")
    if tokens is None or conc is None or length is None:
        return None
    return tokens_rule_evidence((int(tokens.count.value), tokens.line_no),
                                (float(conc.count.value), float(conc.count.rounding or 0.0),
                                 int(length.count.value)))


def parse_log(data: str | bytes | bytearray, *, read_every_line: bool = False) -> ParsedLog:
    """Read an SGLang or vLLM start-up or crash log.  Never raises on content.

    ``read_every_line`` skips the keyword prefilter (slow; the reference the prefilter is tested against).
    """
    text, raw, prepare_notes = prepare(data)
    text, start_notes = last_start(text)
    if start_notes and raw is not None:
        raw = text.encode("utf-8")
    scan = scan_text(text, raw=raw, every_line=read_every_line)
    scan.notes[:0] = list(start_notes) + list(prepare_notes)
    formats = [scan.formats[i] for i in sorted(scan.formats)]
    pair = _tokens_rule_evidence(scan.anchors)
    if pair is not None:
        formats.append(pair)
    engine = decide_engine(dict(scan.votes), scan.evidence + formats + list(scan.sources.values()))
    anchors = [a for e, a in scan.anchors if engine.engine is None or e == engine.engine]
    gpu, total, candidates = _gpu(scan)
    named = tuple(dict.fromkeys(name or text for text, name, _, _ in scan.gpu_names))
    settings = scan.settings
    if "entrypoints" in text and scan.failures:  # an offline run's traceback, then a server command (helper fx38)
        from tpkit.logs.offlinerun import drop_later_server_commands

        settings = drop_later_server_commands(settings, text, [f.line_no for f in scan.failures
                                                               if f.severity == "error"])
    run = build_run(settings + _printed_settings(anchors), engine=engine, gpu=gpu, gpu_total=total,
                    gpu_candidates=candidates, gpus_named=named[:16], gpus_by_index=_by_index(scan.gpu_names))
    if engine.engine == "sglang":
        anchors = _sglang_groups(anchors, speculative=bool(run.value("speculative")))
    failures = list(scan.failures)
    failures += _derived_failures(anchors, failures)
    ranks = tuple(scan.ranks.values()) or (MAIN,)
    parsed = ParsedLog(engine=engine, run=run, anchors=tuple(anchors), failures=_merge_failures(failures),
                       ranks=ranks, settings=tuple(settings), missing=(),
                       notes=tuple(_notes(scan, engine.engine, anchors)),
                       line_count=scan.line_count)
    return with_missing(parsed)
