"""The memory lines of SGLang and vLLM, as a table: a needle (a literal the line must contain) and the
fields to read from it.

Each field is read independently (a line wrapped in the middle, or printed by another release with a
field more or less, still yields what it has).  Sources, read in the released wheels:

- SGLang 0.2.15 → 0.5.23 ``srt/model_executor/model_runner.py`` (``Load weight begin/end``, ``Memory pool
  end``, ``Capture cuda graph begin/end``, ``Init torch distributed ends``), ``srt/distributed/bootstrap.py``
  (``Memory baseline taken``, 0.5.2x), ``srt/mem_cache/memory_pool.py`` (``KV Cache is allocated``,
  ``Mamba Cache is allocated`` 0.5.3+, with ``max_mamba_cache_size`` from 0.5.4),
  ``srt/mem_cache/swa_memory_pool.py`` (``SWAKVPool mem usage``), ``srt/managers/scheduler.py``
  (``max_total_num_tokens=…``), ``srt/model_executor/pool_configurator.py`` (``DSV4 memory calculation: …
  full_token=N``, 0.5.12; a 0.5.11 dev build writes ``DSv4``: N is the DeepSeek-V4 pool's token count).
- vLLM 0.6.3 → 0.33.0 ``worker/model_runner.py`` (``Loading model weights took``), ``worker/worker.py``
  (``Memory profiling takes`` …, 0.7–0.10), ``v1/worker/gpu_model_runner.py`` (``Model loading took``,
  ``Graph capturing finished``), ``v1/worker/gpu_worker.py`` (``Available KV cache memory``, ``Free memory on
  device``), ``v1/core/kv_cache_utils.py`` (``GPU KV cache size``, ``Maximum concurrency``),
  ``executor/*_executor.py`` (``# GPU blocks``; 0.7.3 ``executor/executor_base.py`` prints ``# %s blocks`` with
  the platform's ``device_name``: ``cuda``, ``rocm`` on AMD, ``platforms/rocm.py``), ``utils/mem_utils.py``
  (``Memory profiling takes`` debug repr).
"""

from __future__ import annotations

import re

from tpkit.logs import ascendmem
from tpkit.logs.anchors import COUNT, MEANINGS, Anchor
from tpkit.logs.lazyre import lazy
from tpkit.logs.prefix import RankKey, has_header
from tpkit.logs.printed import count_from_text, size_from_text
from tpkit.logs.text import clean_line
from tpkit.records import dataclass
from tpkit.units import UNITS

__all__ = ["Rule", "RULES", "NEEDLES", "apply_rules", "apply_rules_wrapped", "next_line", "GIB"]

GIB = UNITS["GiB"]
"""the divisor of a size the engine printed in GiB, whatever its unit word (``tpkit.units``)"""
_N = r"([+-]?(?:\d{1,3}(?:,\d{3}){1,6}(?!\d)|\d{1,24})(?:\.\d{1,12})?)"
_U = r" ?(GB|GiB|G|MB|MiB|KiB|bytes|B)?\b"


@dataclass(frozen=True, kw_only=True, slots=True)
class Field:
    """One number a log rule reads: its anchor name, the pattern and the engine's rounding."""
    name: str
    """anchor name (a key of MEANINGS)"""
    pattern: re.Pattern
    """group 1 the number, group 2 (sizes) the unit word"""
    min_decimals: int = 0
    """the engine's rounding when it drops trailing zeros (vLLM format_gib: 2)"""
    word_units: bool = False
    """the unit word is meant literally (bytes/MiB/GiB); otherwise the engine divided by 2**30"""
    list_max: bool = False
    """group 1 is a printed list of integers; the anchor is its largest element"""
    after: str | None = None
    """for a number printed *before* its label ("27.72 GiB for weight"): the label, found first with ``find``
    so that the regex only runs just before it (a number-first regex over a long line is quadratic)"""
    divisor: int | None = None
    """the bytes the engine divided the number by when it prints no unit word (1: raw bytes, vLLM-Ascend's
    'Available memory: N, total memory: M', ``logs.ascendmem``); None: GiB (or the unit word)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Rule:
    """A log line tpkit reads: the engine, the words that mark it and the numbers it carries."""
    engine: str
    needles: tuple[str, ...]
    """the record must contain one of these"""
    fields: tuple[Field, ...]
    group: str | None = None
    """fixed group for every anchor of the rule"""
    group_from: re.Pattern | None = None
    """or a pattern whose group 1 names the group"""


def _f(name: str, pattern: str, *, decimals: int = 0, words: bool = False) -> Field:
    return Field(name=name, pattern=lazy(pattern), min_decimals=decimals, word_units=words)


def _before(name: str, label: str) -> Field:
    """A size printed before its label: ``27.72 GiB for weight``."""
    return Field(name=name, pattern=lazy(_N + _GI + re.escape(label)), after=label)


def _size(name: str, before: str, *, decimals: int = 0, words: bool = False) -> Field:
    return _f(name, before + _N + _U, decimals=decimals, words=words)


def _count(name: str, before: str, after: str = "") -> Field:
    return _f(name, before + _N + after)


_BS_LIST = Field(name="graph_max_bs", pattern=lazy(r"\bbs=? ?\[([\d, ]{1,4000})\]"), list_max=True)
_GRAPH_GROUP = lazy(r"Capture (?:the )?([\w -]{0,40}?)(?:cuda|CUDA|cpu|npu) graph", re.I)
_KV_GROUP = lazy(r"(\w{1,40}) KV Cache (?:is allocated|VA upper bound)")

SGLANG_RULES = (
    Rule(engine="sglang", needles=("Init torch distributed ends",),
         fields=(_size("init_dist_mem_usage", r"mem usage="),)),
    Rule(engine="sglang", needles=("Memory baseline taken",), fields=(_size("baseline_mem_usage", r"mem usage="),)),
    Rule(engine="sglang", needles=("Load weight begin",), fields=(_size("load_begin_avail", r"avail mem="),)),
    Rule(engine="sglang", needles=("Load weight end",),
         fields=(_size("load_end_avail", r"avail mem="), _size("weights_mem_usage", r"mem usage="))),
    Rule(engine="sglang", needles=("KV Cache is allocated", "KV Cache VA upper bound"), group_from=_KV_GROUP,
         fields=(_count("kv_tokens", r"#tokens: "), _size("kv_k_size", r"\bK size: "),
                 _size("kv_v_size", r"\bV size: "), _size("kv_size", r"\bKV size: "))),
    Rule(engine="sglang", needles=("memory calculation: bytes_per_full_token",),
         fields=(_count("kv_tokens", r"\bfull_token="),)),
    Rule(engine="sglang", needles=("sliding window memory pool",),
         fields=(_count("swa_full_tokens", r"full_layer_tokens="), _count("swa_swa_tokens", r"swa_layer_tokens="))),
    Rule(engine="sglang", needles=("SWAKVPool mem usage", "SWAKVPool VA upper bound"),
         fields=(_size("swa_pool_mem_usage", r"SWAKVPool (?:mem usage|VA upper bound): "),
                 _count("swa_pool_full_size", r"\bfull size: "), _count("swa_pool_swa_size", r"\bswa size: "))),
    Rule(engine="sglang", needles=("Mamba Cache is allocated",),
         fields=(_count("mamba_cache_size", r"max_mamba_cache_size: "), _size("mamba_conv_size", r"conv_state size: "),
                 _size("mamba_ssm_size", r"\bssm_state size: "),
                 _size("mamba_intermediate_size", r"intermediate_ssm_state_cache size: "),
                 _size("mamba_intermediate_conv_size", r"intermediate_conv_window_cache size: "))),
    Rule(engine="sglang", needles=("Memory pool end",), fields=(_size("pool_end_avail", r"avail mem="),)),
    Rule(engine="sglang", needles=("graph begin",), group_from=_GRAPH_GROUP,
         fields=(_size("graph_begin_avail", r"avail mem="), _BS_LIST)),
    Rule(engine="sglang", needles=("Capture cuda graph bs",), fields=(_BS_LIST,)),
    # the piecewise capture's bar, "Capturing num tokens ({num_tokens=} {avail_mem=:.2f} GB)" (PiecewiseCudaGraphRunner
    # .capture, 0.5.6 wheel; runner/prefill_cuda_graph_runner.py, 0.5.15): the shape being captured (round ex38)
    Rule(engine="sglang", needles=("Capturing num tokens (",), group="piecewise",
         fields=(_count("capture_num_tokens", r"\bnum_tokens="),)),
    Rule(engine="sglang", needles=("graph end", "graph end."), group_from=_GRAPH_GROUP,
         fields=(_size("graph_mem_usage", r"mem usage="), _size("graph_end_avail", r"avail mem="))),
    Rule(engine="sglang", needles=("max_total_num_tokens=", "max_running_requests="),
         fields=(_count("max_total_num_tokens", r"max_total_num_tokens="),
                 _count("chunked_prefill_size", r"chunked_prefill_size="),
                 _count("max_prefill_tokens", r"max_prefill_tokens="),
                 _count("max_running_requests", r"max_running_requests="),
                 _count("context_len", r"context_len="), _size("available_gpu_mem", r"available_gpu_mem="))),
)

_GI = r" ?(GiB|GB|G)?"
_PER = r"(?: \(per [A-Za-z][A-Za-z ,-]{0,38}\))?"
"""a writer's 'per GPU' / 'per GPU worker' / 'per rank' / 'per card, post-profiling' between vLLM's label and its
colon, as deployment notes summarise 'Available KV cache memory: X GiB' (public notes, search-index file ids
68378441594, 56391744290, 70161627715, 55512011005): it restates what the engine's figure is (one worker's,
``v1/worker/gpu_worker.py`` ``determine_available_memory``), so the number is the engine's; any other
parenthesis (no 'per', a digit) stays prose.  Helper cap14 (2026-12-05)"""
VLLM_RULES = (
    Rule(engine="vllm", needles=("Model loading took", "Loading model weights took"),
         fields=(_f("weights", r"took " + _N + _GI),)),
    Rule(engine="vllm", needles=("Available KV cache memory",),
         fields=(_f("available_kv", r"Available KV cache memory" + _PER + r": *" + _N + _GI, decimals=2),)),
    Rule(engine="vllm", needles=("KV cache size:",), fields=(_count("kv_tokens", r"KV cache size: *", r" tokens"),)),
    Rule(engine="vllm", needles=("Maximum concurrency for",),
         fields=(_count("concurrency_len", r"Maximum concurrency for "),
                 _count("max_concurrency", r"per request: *", r"x"))),
    Rule(engine="vllm", needles=(" blocks: ",),
         fields=(_count("gpu_blocks", r"(?:GPU|CUDA|cuda|gpu|rocm) blocks: "), _count("cpu_blocks", r"CPU blocks: "))),
    Rule(engine="vllm", needles=("Memory profiling results",),
         fields=tuple(_f(n, n + "=" + _N + _GI) for n in (
             "total_gpu_memory", "initial_memory_usage", "peak_torch_memory", "memory_usage_post_profile",
             "non_torch_memory")) + (_f("available_kv", r"kv_cache_size=" + _N + _GI),
                                     _count("gpu_memory_utilization", r"gpu_memory_utilization="))),
    Rule(engine="vllm", needles=("total_gpu_memory (",),
         fields=(_f("total_gpu_memory", r"total_gpu_memory \(" + _N + _GI),
                 _count("gpu_memory_utilization", r"x (?:gpu_memory_utilization \()?"),
                 _f("requested_memory", r"= " + _N + _GI))),
    Rule(engine="vllm", needles=("model weights take",), fields=(_f("weights", r"model weights take " + _N + _GI),)),
    Rule(engine="vllm", needles=("non_torch_memory ",),
         fields=(_f("non_torch_memory", r"non_torch_memory (?:takes )?" + _N + _GI),)),
    Rule(engine="vllm", needles=("activation peak memory",),
         fields=(_f("activation_peak", r"activation peak memory (?:takes )?" + _N + _GI),)),
    Rule(engine="vllm", needles=("for KV Cache is",), fields=(_f("available_kv", r"for KV Cache is " + _N + _GI),)),
    Rule(engine="vllm", needles=("Total non KV cache memory",),
         fields=(_f("non_kv_cache_memory", r"Total non KV cache memory: " + _N + _GI, decimals=2),
                 _f("torch_peak_increase", r"torch peak memory increase: " + _N + _GI, decimals=2),
                 _f("non_torch_increase", r"non-torch forward increase memory: " + _N + _GI, decimals=2),
                 _f("total_consumed", r"total consumed \(from mem_get_info\): " + _N + _GI, decimals=2),
                 _f("weights", r"weights memory: " + _N + _GI, decimals=2))),
    Rule(engine="vllm", needles=("Graph capturing finished",), fields=(_f("graph_memory", r"took " + _N + _GI),)),
    # vLLM ≥ 0.34 extensible KV cache (v1/worker/extensible_kv_cache.py extend_kv_cache / measure_kv_cache_blocks;
    # helper cur17): the final pool, and the measurement that sized it
    Rule(engine="vllm", needles=("Extended KV cache to",),
         fields=(_count("kv_extended_blocks", r"Extended KV cache to ", r" blocks"),
                 _f("kv_extended", r" blocks \(" + _N + _GI, decimals=2))),
    Rule(engine="vllm", needles=("Memory after warmup:",),
         fields=(_f("warmup_free", r"Memory after warmup: " + _N + _GI + r" free", decimals=2),
                 _f("warmup_kept", r"committed to the KV cache, " + _N + _GI + r" kept for transient",
                    decimals=2),
                 # helper cur17b: the rest of the line, the inputs of measure_kv_cache_bytes
                 _f("warmup_committed", r"GiB free, " + _N + _GI + r" committed to the KV cache", decimals=2),
                 _f("warmup_peak", r"\(" + _N + _GI + r" allocated at peak", decimals=2),
                 _f("warmup_growth", r"allocated at peak, " + _N + _GI + r" of torch reservation growth",
                    decimals=2),
                 _count("warmup_fit_blocks", r"; ", r" KV cache blocks \("),
                 _f("warmup_requested", r"fit within the requested " + _N + _GI, decimals=2))),
    Rule(engine="vllm", needles=("Estimated CUDA graph memory",),
         fields=(_f("graph_estimate", r"Estimated CUDA graph memory: " + _N + _GI),)),
    Rule(engine="vllm", needles=("CUDA graph pool memory",),
         fields=(_f("graph_actual", r"memory: " + _N + _GI + r" \(actual\)"),
                 _before("graph_estimate", " (estimated)"))),
    Rule(engine="vllm", needles=("is equivalent to --gpu-memory-utilization",),
         fields=(_count("gmu_equivalent", r"is equivalent to --gpu-memory-utilization="),)),
    Rule(engine="vllm", needles=("--gpu-memory-utilization from",),
         fields=(_count("gmu_estimate_off", r"--gpu-memory-utilization from "),)),
    Rule(engine="vllm", needles=("Free memory on device",),
         fields=(_f("startup_free", r"\(" + _N + r"/"), _f("startup_total", r"/" + _N + _GI + r"\)"),
                 _count("gpu_memory_utilization", r"utilization (?:is )?\("),
                 _f("requested_memory", r"utilization (?:is )?\([\d.]+, " + _N + _GI),
                 _before("weights", " for weight"), _before("activation_peak", " for peak activation"),
                 _before("non_torch_memory", " for non-torch"), _before("graph_memory", " for CUDAGraph"),
                 _before("consumed_memory", " for consumed memory"),
                 _size("kv_in_use", r"kv cache memory in use is ", words=True))),
    # vLLM-Ascend's NPU worker: KV budget and device total in raw bytes (logs.ascendmem; helper fx38)
    Rule(engine="vllm", needles=(ascendmem.NEEDLE,),
         fields=(Field(name="available_kv", pattern=ascendmem.AVAILABLE, divisor=ascendmem.DIVISOR_BYTES),
                 Field(name="total_gpu_memory", pattern=ascendmem.TOTAL, divisor=ascendmem.DIVISOR_BYTES))),
)

RULES = SGLANG_RULES + VLLM_RULES
NEEDLES: tuple[str, ...] = tuple(sorted({n for r in RULES for n in r.needles}, key=len, reverse=True))


def _search(fld: Field, message: str) -> re.Match | None:
    if fld.after is None:
        return fld.pattern.search(message)
    at = message.find(fld.after)
    return None if at < 0 else fld.pattern.search(message, max(0, at - 48), at + len(fld.after))


def _group(rule: Rule, message: str) -> str | None:
    if rule.group_from is None:
        return rule.group
    at = message.find(" KV Cache ") if rule.group_from is _KV_GROUP else 0
    m = rule.group_from.search(message, max(0, at - 48)) if at >= 0 else None
    if not m:
        return None
    word = m.group(1).strip().lower()
    return word or None


def _anchor(fld: Field, m: re.Match, *, rank: RankKey, group: str | None, line_no: int, line: str) -> Anchor | None:
    kind, meaning = MEANINGS[fld.name]
    if kind == COUNT:
        text = m.group(1)
        if fld.list_max:
            numbers = [int(x) for x in re.findall(r"\d{1,9}", text)]
            text = str(max(numbers)) if numbers else ""
        count = count_from_text(text, meaning=meaning)
        return None if count is None else Anchor(name=fld.name, rank=rank, count=count, group=group,
                                                 line_no=line_no, line=line)
    has_unit_group = fld.pattern.groups >= 2
    word = (m.group(2) if m.lastindex and m.lastindex >= 2 else None) or ""
    if has_unit_group and not word and m.end() >= len(m.string.rstrip().rstrip(".,")):
        return None                     # a number cut at the end of a truncated line ('63.' too): digits unknown
    divisor = fld.divisor or (None if (fld.word_units and word) else GIB)
    size = size_from_text(m.group(1), word, meaning=meaning, divisor_bytes=divisor, min_decimals=fld.min_decimals)
    return None if size is None else Anchor(name=fld.name, rank=rank, size=size, group=group,
                                            line_no=line_no, line=line)


def apply_rules(message: str, *, rank: RankKey, line_no: int) -> list[tuple[str, Anchor]]:
    """(engine, anchor) for every memory number in one record.

    Inline-code backticks are dropped first: a line quoted in markdown (a GitHub issue, a README) reads as the
    engine printed it, whether the whole line is quoted (`` `GPU KV cache size: 12,345 tokens` ``) or only its
    value (``GPU KV cache size: `418,304 tokens` ``, vl_862).  No number the rules read is printed with a backtick
    by either engine; a rule still needs its own words, in order, so prose that only mentions a number stays
    unread."""
    found: list[tuple[str, Anchor]] = []
    line = message.strip()[:400]
    if "`" in message:
        message = message.replace("`", "")
    for rule in RULES:
        if not any(n in message for n in rule.needles):
            continue
        group = _group(rule, message)
        for fld in rule.fields:
            m = _search(fld, message)
            if m is None:
                continue
            anchor = _anchor(fld, m, rank=rank, group=group, line_no=line_no, line=line)
            if anchor is not None:
                found.append((rule.engine, anchor))
    return found


def next_line(text: str, end: int) -> str | None:
    """The physical line after the one ending at ``end`` when it may continue a wrapped record: not blank and no
    header of its own (a new timestamp or process prefix starts a new record); colour codes removed."""
    if end >= len(text):
        return None
    stop = text.find("\n", end + 1)
    nxt = clean_line(text[end + 1:(len(text) if stop < 0 else stop)][:4000])[0]
    return None if not nxt.strip() or has_header(nxt) else nxt


def apply_rules_wrapped(message: str, following: str | None, *, rank: RankKey,
                        line_no: int) -> list[tuple[str, Anchor]]:
    """The anchors of one record (``apply_rules``), read together with the next physical line when a terminal or a
    copy wrapped the record onto it.

    ``message`` is the last record of a line and ``following`` the next line (:func:`next_line`: None when it
    carries a header of its own, a new record; always None for a record that is not a line's last).  It
    continues the record when the record holds a rule's needle, ``following`` holds none (it is not a memory line of its own), and the two read
    together yield every number the record alone yields, unchanged, and more of the same rule's fields: the
    wrapped ``Load weight end. elapsed=…, type=…,`` / ``avail mem=… GB, mem usage=… GB.`` of a pasted run
    journal (sg_402).  A terminal's wrap keeps every character (joined as is, which also rejoins a number or a
    word cut in two); a copy that re-flowed the text at a space drops the space (joined with one): the joining that reads
    more of the rule's fields is kept, the first on a tie."""
    alone = apply_rules(message, rank=rank, line_no=line_no)
    if following is None or not following.strip() or any(n in following for n in NEEDLES):
        return alone
    mine = {(r.engine, f.name) for r in RULES if any(n in message for n in r.needles) for f in r.fields}
    if not mine:
        return alone
    seen = {(e, a.name, a.group, a.size.value.bytes if a.size else None, a.count.value if a.count else None)
            for e, a in alone}
    best, most = alone, len({(e, a.name) for e, a in alone} & mine)
    for sep in ("", " "):
        joined = apply_rules(message.rstrip("\n") + sep + following.strip(), rank=rank, line_no=line_no)
        keys = {(e, a.name, a.group, a.size.value.bytes if a.size else None, a.count.value if a.count else None)
                for e, a in joined}
        read = len({(e, a.name) for e, a in joined} & mine)
        if seen <= keys and read > most:
            best, most = joined, read
    return best
