"""SGLang's default ``mem_fraction_static`` and capacity defaults, per release era (sglang 0.5.20–0.5.23
``python/sglang/srt/arg_groups/memory_hook.py`` ``handle_gpu_memory_settings``; earlier releases
``python/sglang/srt/server_args.py`` ``ServerArgs.__post_init__``, 0.5.x ``_handle_gpu_memory_settings``).

Units: ``gpu_mem_mib`` is what SGLang's ``get_device_memory_capacity`` returns — the nvidia-smi total
in MiB (fallback: the CUDA total in MiB).  Every reserve here is in MiB, as in SGLang.

    era        rule
    0.2.15     by tp: ≥16 0.79, ≥8 0.83, ≥4 0.85, ≥2 0.87, else 0.88
    0.3.6      … ≥8 0.82 … (0.3.6 only);   from 0.4.0 … ≥8 0.81 … (0.4.0–0.4.5 ``server_args.py``)
    0.4.6      ≤ 81920 MiB: the 0.4.0 table; else (gpu − 13 GiB) / gpu
               0.4.7 only: the 0.4.0 table by tp×pp ≤ 81920 MiB, else 0.88; then > 180,000 MiB (CUDA): 0.79;
               > 96 GiB: min(f + 48 GiB × (1 − f) / gpu, (gpu − 18 GiB, 20 with a draft) / gpu); otherwise a
               draft × 0.95 (0.4.7 ``server_args.py __post_init__``)
    0.4.10     reserved GiB by capacity (2.8 + p/10, 9.5 + p/2, 12 + p/2, 32); already in 0.4.7.post1–0.4.9
               (0.4.7.post1/0.4.8/0.4.9 ``server_args.py __post_init__``: the same capacity classes, + 2 GiB with a
               draft, + 4 GiB with DP attention, rounded to 3 digits)
    0.5.3      512 + 1.5·max(cpp, 2048) + 2·max_bs + p/8·1024; 10 GiB floor above 60 GiB
    0.5.10     + piecewise-graph term (8 MiB × #buckets, MLA 1536) before the floor
    0.5.15+    + prefill-graph term (8 MiB × #prefill sizes, MLA 1536); 10 GiB floor

Terms that depend on the launch (``ReserveExtras``; issue 11, every wheel 0.5.10 … 0.5.23 read):
    prefill-graph term   only when the prefill graphs are on (``graphs.prefill_graphs``)
    DP attention         0.5.3+: + 3 × max_bs × dp, + 1.5 × max_bs × dp when max_bs > 300 (before the floor);
                         0.4.10: + 4 GiB (``reserve_for_graph_mb``; 0.4.10/0.5.3/0.5.10 ``server_args.py``)
    DeepEP a2a           0.5.15+: + 2048 after the floor (``reserve_for_deepep_a2a_mb``); 0.5.17+: + 1024 in the
                         graph term when the prefill graphs are breakable (``reserve_for_graph_mb``)
    speculative decoding 0.4.8–0.5.1: + 2 GiB; 0.5.2: + 2 GiB (STANDALONE 6 GiB); 0.5.3–0.5.9: + 2048
                         (STANDALONE 6144) after the floor; 0.5.10–0.5.13:
                         + 4096 (STANDALONE 6144) after the floor; 0.5.14+: none (the draft weights are measured)
    --disable-cuda-graph 0.4.x–0.5.13: no change (the decode term ``2 × max_bs`` is unconditional, and 0.5.10–0.5.13's
                         piecewise term reads ``disable_piecewise_cuda_graph``, which --disable-cuda-graph does not
                         set: ``server_args.py _handle_gpu_memory_settings`` / ``_handle_piecewise_cuda_graph``);
                         0.5.14: the prefill-graph term goes (``_handle_cuda_graph_config`` sets both phases'
                         backend DISABLED; the decode term is still unconditional); 0.5.15+: the decode term
                         ``2 × max_bs``, the prefill-graph term (with its DeepEP delta) and the DeepEP a2a 2048 go,
                         all gated on a backend that is not DISABLED; the DP-attention padding stays (0.5.15
                         ``server_args.py``, 0.5.19–0.5.23 ``arg_groups/memory_hook.py reserve_for_graph_mb`` /
                         ``reserve_for_deepep_a2a_mb``, ``arg_groups/cuda_graph_hook.py``)
    small GPUs (20–35 GiB) chunked prefill 2048 and max bs 24/80 up to 0.5.19 (16/80 before 0.5.5); 4096 and
                         48/160 from 0.5.20 (0.5.19/0.5.20 ``arg_groups/memory_hook.py``)

The capacity SGLang reads is the HOST's smallest card, not the serving one (helper cap27, session 27; 82 wheels
0.2.15 … 0.5.23 read, all 66 of 0.4.5 … 0.5.23: ``utils.py`` (0.5.3+: ``utils/common.py``)
``get_nvgpu_memory_capacity`` / ``get_amdgpu_memory_capacity`` / ``get_device_memory_capacity``, and their caller,
``server_args.py ServerArgs.__post_init__`` (0.5.x ``_handle_gpu_memory_settings``; 0.5.19
``arg_groups/pipeline.py``; 0.5.20–0.5.23 ``arg_groups/memory_hook.py``)):

    0.2.15–0.3.5   no capacity is read (the defaults are by tp alone)
    0.3.6–0.5.23   CUDA: ``nvidia-smi --query-gpu=memory.total`` and the MIN over every line.  nvidia-smi lists
                   every NVIDIA card of the host: CUDA_VISIBLE_DEVICES does not filter it, so on a mixed box the
                   smallest card sets every capacity default (the fraction, chunked prefill, graph max bs).
                   HIP: the MIN over every card too (``get_amdgpu_memory_capacity``: 0.3.6.x ``rocm-smi
                   --showmeminfo vram``, 0.4.0–0.5.23 rocminfo's pool sizes of every GPU agent; HIP_VISIBLE_DEVICES
                   filters neither).
    fallbacks      only when nvidia-smi prints no number (MIG mode): 0.4.9.post3–0.5.9 ``torch.cuda.
                   mem_get_info()`` of the current (visible) device; 0.5.10–0.5.23 ``_cuda_mem_fallback``: the MIN
                   over the visible devices; nvidia-smi missing: an error before 0.5.10, the same fallback after.
                   There the host's other cards do not matter.  0.5.11–0.5.23: an out-of-tree platform's own query.
    capacity-class default fraction (``_reserved_0410_gib``): 0.4.7.post1–0.5.2 (0.4.7 still has the tp table;
                   0.5.3 moves to the reserve formula, which reads the same capacity for its 10 GiB floor and the
                   capacity defaults)

``host_capacity_mib`` applies it: the serving card's MiB and the host's other cards' (``--host-gpus``).
"""

from __future__ import annotations

from functools import lru_cache

from tpkit.engines.sglang.versions import LATEST, at_least, at_least_post, era_at_least, rule_era
from tpkit.records import dataclass

__all__ = ["CapacityDefaults", "FractionChoice", "ReserveExtras", "capacity_defaults", "prefill_capture_sizes",
           "host_capacity_mib", "HOST_MINIMUM_FROM", "CAPACITY_CLASSES_FROM",
           "prefill_capture_count",
           "default_mem_fraction", "slack_estimate_mib", "graph_reserve_mib", "vlm_fraction_factor",
           "GPU_MEMORY_BOUNDARIES_MIB"]

GPU_MEMORY_BOUNDARIES_MIB = (20 * 1024, 35 * 1024, 60 * 1024, 81920, 90 * 1024, 96 * 1024, 160 * 1024, 180_000)
"""every GPU-memory value (MiB, as SGLang reads it) where a rule below changes class: the capacity classes
(20/35/60/160 GiB), the 10 GiB floor (60 GiB), 0.4.6's table (≤ 81920), 0.4.7's 96 GiB and 180,000 MiB branches,
0.4.10's reserve classes (35/90/160 GiB); between two of them a default is constant or (gpu − reserve) / gpu"""

HOST_MINIMUM_FROM = "0.3.6"
"""the first release that reads the GPU capacity, as the MIN over every card nvidia-smi (rocminfo) lists (module
docstring); 0.2.15–0.3.5 read none"""
CAPACITY_CLASSES_FROM = "0.4.7.post1"
"""the first release whose default fraction is the capacity-class reserve (0.4.7.post1 ``server_args.py
__post_init__``: 2.8 + tp×pp/10 GiB below 35 GiB …; 0.4.7 has the tp table; the last is 0.5.2)"""


def host_capacity_mib(own_mib: float, host_mibs: tuple[float, ...], version: str) -> tuple[float, str | None]:
    """(the GPU memory in MiB SGLang ``version`` sizes its defaults by, why; None when it is the serving card's):
    the MIN of the serving card and the host's other cards (``host_mibs``, each as the same query reports it) from
    ``HOST_MINIMUM_FROM``; before it no capacity is read and the serving card's value is returned unused."""
    smallest = min((own_mib, *host_mibs))
    if smallest >= own_mib or not at_least(version, HOST_MINIMUM_FROM):
        return own_mib, None
    return smallest, (f"SGLang {version} sizes its defaults by the smallest card nvidia-smi lists "
                      f"(get_nvgpu_memory_capacity: MIN over every card of the host, CUDA_VISIBLE_DEVICES does not "
                      f"filter it): {smallest:,.0f} MiB, not the serving card's {own_mib:,.0f} MiB")


_TP_TABLES = (  # (first release, table): 0.3.5 ≥8 0.83; 0.3.6 0.82; 0.4.0 … 0.4.7 0.81 (``server_args.py``)
    ("0.2.15", ((16, 0.79), (8, 0.83), (4, 0.85), (2, 0.87), (1, 0.88))),
    ("0.3.6", ((16, 0.79), (8, 0.82), (4, 0.85), (2, 0.87), (1, 0.88))),
    ("0.4.0", ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87), (1, 0.88))),
)
_TABLE_ERAS = frozenset({"0.2.15", "0.3.6", "0.4.3"})
"""rule eras whose default is the by-tp table alone"""


def _tp_table(version: str) -> tuple[tuple[int, float], ...]:
    """The by-tp default table of the newest release at or before ``version``."""
    return next(t for first, t in reversed(_TP_TABLES) if at_least(version, first))


@dataclass(frozen=True, kw_only=True, slots=True)
class ReserveExtras:
    """Launch facts that add to (or leave out of) SGLang's default reserve."""

    version: str = LATEST
    """SGLang release (terms that change inside a rule era)"""
    prefill_graphs: bool = True
    """the prefill CUDA graphs are on (``graphs.prefill_graphs``)"""
    attn_dp: int = 1
    """attention-DP size with --enable-dp-attention (1: off)"""
    deepep: bool = False
    """--moe-a2a-backend deepep"""
    speculative: str | None = None
    """--speculative-algorithm as the user wrote it (None: off)"""
    cuda_graphs: bool = True
    """the decode CUDA graphs are on (False: --disable-cuda-graph); the prefill graphs are ``prefill_graphs``"""


NO_EXTRAS = ReserveExtras()


@dataclass(frozen=True, kw_only=True, slots=True)
class CapacityDefaults:
    """Server defaults SGLang derives from GPU capacity when the user leaves them unset."""

    chunked_prefill_size: int
    """tokens per prefill chunk (≤ 0: chunking disabled)"""
    cuda_graph_max_bs: int
    """largest decode batch captured in a CUDA graph (requests)"""
    source: str
    """the rule, in words"""


@dataclass(frozen=True, kw_only=True, slots=True)
class FractionChoice:
    """The ``mem_fraction_static`` in effect and why."""

    value: float
    """fraction of pre-load free memory kept for weights + KV"""
    reserved_mib: float | None
    """the engine's reserve behind a default (MiB); None for table rules or a user value"""
    source: str
    """the rule and its numbers, in words"""


def capacity_defaults(gpu_mem_mib: float, tp: int, era: str, *, chunked_prefill_size: int | None,
                      cuda_graph_max_bs: int | None, max_running_requests: int | None) -> CapacityDefaults:
    """Fill unset chunked-prefill size and decode CUDA-graph max batch (``memory_hook.py``
    ``handle_gpu_memory_settings``, capacity step).  ``era``: the rule era or the release itself (a release also
    selects the changes inside an era, e.g. 0.5.5's small-GPU batch)."""
    gib = gpu_mem_mib / 1024
    if gib < 20:
        cpp, bs = 2048, 8
    elif gib < 35:
        cpp, bs = 4096 if era_at_least(era, "0.5.20") else 2048, _small_gpu_bs(era, tp)
    elif gib < 60:
        cpp, bs = 4096, 32 if tp < 4 else 160
    elif gib < 160:
        cpp, bs = 8192, 256 if tp < 4 else 512
    else:
        cpp, bs = 16384, 512
    if not era_at_least(era, "0.5.3"):  # 0.4.10 table: cpp 2048 below 35 GiB, 8192 below 160 GiB
        cpp = 2048 if gib < 35 else (8192 if gib < 160 else 16384)
        bs = (8 if tp < 4 else 80) if gib < 35 else 160
    source = f"SGLang {era} capacity defaults for {gpu_mem_mib:.0f} MiB, tp {tp}"
    if cuda_graph_max_bs is None and max_running_requests is not None and max_running_requests < bs:
        bs, source = max_running_requests, source + "; graph max bs lowered to --max-running-requests"
    return CapacityDefaults(
        chunked_prefill_size=chunked_prefill_size if chunked_prefill_size is not None else cpp,
        cuda_graph_max_bs=cuda_graph_max_bs if cuda_graph_max_bs is not None else bs, source=source)


def _small_gpu_bs(era: str, tp: int) -> int:
    """Decode graph max bs for 20–35 GiB GPUs: 16/80 (0.5.3–0.5.4), 24/80 (0.5.5–0.5.19), 48/160 (0.5.20+)
    (``server_args.py _handle_gpu_memory_settings`` of 0.5.4 and 0.5.5).  ``era`` may be the release itself."""
    if era_at_least(era, "0.5.20"):
        return 48 if tp < 4 else 160
    if era_at_least(era, "0.5.5"):
        return 24 if tp < 4 else 80
    return 16 if tp < 4 else 80


_PREFILL_STEPS = ((4, 32, 4), (48, 256, 16), (288, 512, 32), (576, 1024, 64), (1280, 4096, 256), (4608, None, 512))
"""(first, last or None: no end, step) of the prefill CUDA-graph token sizes (spec §4.1)"""


def prefill_capture_count(max_bs: int) -> int:
    """``len(prefill_capture_sizes(max_bs))`` in O(1): a huge ``--chunked-prefill-size`` must not build the list."""
    count, member = 0, False
    for lo, hi, step in _PREFILL_STEPS:
        top = max_bs if hi is None else min(hi, max_bs)
        if top >= lo:
            count += (top - lo) // step + 1
            member = member or (max_bs <= top and (max_bs - lo) % step == 0)
    return count + (1 if max_bs > 0 and not member else 0)


@lru_cache(maxsize=64)
def prefill_capture_sizes(max_bs: int) -> tuple[int, ...]:
    """Prefill CUDA-graph token sizes up to ``max_bs`` (sglang 0.5.23 ``arg_groups/cuda_graph_hook.py``;
    always includes ``max_bs``)."""
    sizes = [s for lo, hi, step in _PREFILL_STEPS for s in range(lo, (max_bs if hi is None else hi) + 1, step)
             if s <= max_bs]
    if max_bs > 0 and max_bs not in sizes:
        sizes.append(max_bs)
    return tuple(sizes)


def graph_reserve_mib(era: str, *, max_bs: int, cpp: int, is_mla: bool, extras: ReserveExtras = NO_EXTRAS) -> float:
    """CUDA-graph term of the reserve (``reserve_for_graph_mb``), MiB: decode graphs, DP-attention padding,
    prefill graphs when they are on (+ the DeepEP delta with breakable prefill graphs, 0.5.17+)."""
    decode = 2 * max_bs if _decode_graph_term(extras) else 0
    if extras.attn_dp > 1 and era_at_least(era, "0.5.3"):
        decode += 3 * max_bs * extras.attn_dp + (1.5 * max_bs * extras.attn_dp if max_bs > 300 else 0)
    if not era_at_least(era, "0.5.10") or not extras.prefill_graphs:
        return decode
    deepep = 1024 if extras.deepep and at_least(extras.version, "0.5.17") else 0
    if is_mla:
        return decode + 1536 + deepep
    prefill_max_bs = cpp if cpp > 0 else 16384  # prefill graphs go up to the chunk size
    return decode + 8 * prefill_capture_count(prefill_max_bs) + deepep


def _decode_graph_term(extras: ReserveExtras) -> bool:
    """Does the reserve count the decode graphs (``2 × max_bs``; the DeepEP a2a 2048 from 0.5.15)?  Always before
    0.5.15 (unconditional in ``_handle_gpu_memory_settings`` up to 0.5.14); from 0.5.15 only when the decode graph
    backend is not DISABLED, which --disable-cuda-graph makes it (0.5.15 ``server_args.py``, 0.5.23
    ``arg_groups/memory_hook.py reserve_for_graph_mb`` / ``reserve_for_deepep_a2a_mb``)."""
    return extras.cuda_graphs or not at_least(extras.version, "0.5.15")


def slack_estimate_mib(era: str, *, tp: int, pp: int, cpp: int, max_bs: int, is_mla: bool,
                       gpu_mem_mib: float, extras: ReserveExtras = NO_EXTRAS) -> float:
    """SGLang's own estimate of activations + CUDA graphs + overhead (MiB), the formula-era reserve."""
    activation_tokens = max(cpp if cpp > 0 else 16384, 2048)
    reserved = 512 + 1.5 * activation_tokens + tp * pp / 8 * 1024
    reserved += graph_reserve_mib(era, max_bs=max_bs, cpp=cpp, is_mla=is_mla, extras=extras)
    if gpu_mem_mib > 60 * 1024:
        reserved = max(reserved, 10240)
    if extras.deepep and at_least(extras.version, "0.5.15") and extras.cuda_graphs:
        reserved += 2048
    return reserved + _speculative_mib(era, extras)


def _speculative_mib(era: str, extras: ReserveExtras) -> float:
    """The draft reserve added after the floor, before SGLang measured draft weights (0.5.14)."""
    if extras.speculative is None or at_least(extras.version, "0.5.14") or not era_at_least(era, "0.5.3"):
        return 0
    if extras.speculative == "STANDALONE":
        return 6144
    return 4096 if era_at_least(era, "0.5.10") else 2048


def vlm_fraction_factor(vision_config: dict | None) -> tuple[float, str]:
    """SGLang's multimodal factor on the default fraction: ``0.95 × clamp(1 − 0.1 × (L·H² / (24·1024²) − 1),
    0.8, 1.05)`` with L = ``vision_config.num_hidden_layers`` (default 24: Qwen-VL towers name it ``depth``)
    and H = ``hidden_size`` (default 1024); 1.0 without a vision config.  Not rounded afterwards.
    (0.4.10–0.5.15 ``server_args.py adjust_mem_fraction_for_vlm``; 0.5.23 ``arg_groups/memory_hook.py``.)"""
    if not isinstance(vision_config, dict):
        return 1.0, "no vision_config: no multimodal adjustment"
    layers = vision_config.get("num_hidden_layers", 24)
    hidden = vision_config.get("hidden_size", 1024)
    ratio = layers * hidden ** 2 / (24 * 1024 ** 2)
    dynamic = max(0.8, min(1.05, 1.0 - 0.1 * (ratio - 1.0)))
    factor = 0.95 * dynamic
    return factor, (f"multimodal × 0.95 × clamp(1 − 0.1 × ({layers}·{hidden}² / (24·1024²) − 1), 0.8, 1.05) "
                    f"= × {factor:.6f}")


def default_mem_fraction(era: str, *, gpu_mem_mib: float, tp: int, pp: int, cpp: int, max_bs: int,
                         is_mla: bool, extras: ReserveExtras = NO_EXTRAS) -> FractionChoice:
    """SGLang's default ``mem_fraction_static`` for this era and capacity (``memory_hook.py``
    ``handle_gpu_memory_settings`` in 0.5.20+, ``server_args.py`` before)."""
    version = extras.version if rule_era(extras.version) == era else era
    if era == "0.4.6" and at_least(version, "0.4.7"):
        if at_least_post(version, CAPACITY_CLASSES_FROM):  # 0.4.7.post1–0.4.9: the 0.4.10 classes
            return _reserve_0410(gpu_mem_mib, tp * pp, extras, f"SGLang {version} default (the 0.4.10 rule): "
                                                               "capacity-class reserve")
        return _default_047(gpu_mem_mib, tp * pp, extras)
    if era in _TABLE_ERAS or (era == "0.4.6" and gpu_mem_mib <= 81920):
        value = next(f for min_tp, f in _tp_table(version) if tp >= min_tp)
        return FractionChoice(value=value, reserved_mib=None, source=f"SGLang {version} default by tp={tp}")
    if era == "0.4.6":
        reserved = 13 * 1024
        return _formula(gpu_mem_mib, reserved, "SGLang 0.4.6 default: (gpu − 13 GiB) / gpu", ndigits=None)
    if era == "0.4.10":
        return _reserve_0410(gpu_mem_mib, tp * pp, extras, "SGLang 0.4.10 default: capacity-class reserve")
    reserved = slack_estimate_mib(era, tp=tp, pp=pp, cpp=cpp, max_bs=max_bs, is_mla=is_mla, gpu_mem_mib=gpu_mem_mib,
                                  extras=extras)
    return _formula(gpu_mem_mib, reserved,
                    f"SGLang {era}+ default: reserve {reserved:.0f} MiB = 512 + 1.5×max(cpp {cpp}, 2048) + "
                    f"tp×pp/8×1024 + graphs (max bs {max_bs}){_extras_text(extras)}"
                    f"{', 10 GiB floor' if reserved == 10240 else ''}")


def _extras_text(extras: ReserveExtras) -> str:
    """The launch-dependent parts of the reserve, in words ('' for a plain launch)."""
    off = not extras.cuda_graphs and at_least(extras.version, "0.5.14")
    parts = [] if extras.prefill_graphs else ["no prefill graphs" + (" (--disable-cuda-graph)" if off else "")]
    if not _decode_graph_term(extras):
        parts.append("--disable-cuda-graph: no decode-graph term")
    if extras.attn_dp > 1:
        parts.append(f"DP attention ×{extras.attn_dp}")
    if extras.deepep:
        parts.append("DeepEP")
    if _speculative_mib(rule_era(extras.version), extras):
        parts.append(f"{extras.speculative} draft")
    return f" ({', '.join(parts)})" if parts else ""


def _reserve_0410(gpu_mem_mib: float, p: int, extras: ReserveExtras, source: str) -> FractionChoice:
    reserved = _reserved_0410_gib(gpu_mem_mib / 1024, p) * 1024
    draft = 2048 if extras.speculative else 0
    if extras.speculative == "STANDALONE" and at_least(extras.version, "0.5.2"):
        draft = 6144  # 0.5.2 server_args.py: "standalone draft model and cuda graphs"
    reserved += draft + (4096 if extras.attn_dp > 1 else 0)
    return _formula(gpu_mem_mib, reserved, source)


def _default_047(gpu_mem_mib: float, p: int, extras: ReserveExtras) -> FractionChoice:
    """SGLang 0.4.7's default (``server_args.py __post_init__``; the only release with this rule): the 0.4.0 table
    by tp×pp up to 81920 MiB, else 0.88; then above 180,000 MiB 0.79 (CUDA), above 96 GiB
    min(f + 48 GiB × (1 − f) / gpu, (gpu − 18 GiB) / gpu) (20 GiB with a draft), otherwise × 0.95 with a draft.
    Not rounded.  (The 0.79 branch is for CUDA only; a ROCm GPU above 180,000 MiB takes the 96 GiB branch in the
    engine, which tpkit does not tell apart here.)"""
    f = next(v for min_p, v in _tp_table("0.4.0") if p >= min_p) if gpu_mem_mib <= 81920 else 0.88
    if gpu_mem_mib > 180_000:
        return FractionChoice(value=0.79, reserved_mib=None, source="SGLang 0.4.7 default: 0.79 above 180,000 MiB")
    if gpu_mem_mib > 96 * 1024:
        reserve = (20 if extras.speculative else 18) * 1024
        value = min(f + 48 * 1024 * (1 - f) / gpu_mem_mib, (gpu_mem_mib - reserve) / gpu_mem_mib)
        return FractionChoice(value=value, reserved_mib=None, source=(
            f"SGLang 0.4.7 default: min({f} + 48 GiB × (1 − {f}) / gpu, (gpu − {reserve // 1024} GiB) / gpu) "
            f"= {value:.3f}"))
    if extras.speculative:
        return FractionChoice(value=f * 0.95, reserved_mib=None,
                              source=f"SGLang 0.4.7 default by tp×pp={p}: {f} × 0.95 with a draft model")
    return FractionChoice(value=f, reserved_mib=None, source=f"SGLang 0.4.7 default by tp×pp={p}")


def _reserved_0410_gib(gib: float, p: int) -> float:
    if gib < 35:
        return 2.8 + p / 10
    if gib < 90:
        return 9.5 + p / 2
    if gib < 160:
        return 12 + p / 2
    return 32


def _formula(gpu_mem_mib: float, reserved_mib: float, source: str, ndigits: int | None = 3) -> FractionChoice:
    value = (gpu_mem_mib - reserved_mib) / gpu_mem_mib
    value = round(value, ndigits) if ndigits is not None else value
    return FractionChoice(value=value, reserved_mib=reserved_mib,
                          source=f"{source} → f = (gpu {gpu_mem_mib:.0f} − {reserved_mib:.0f}) / gpu = {value:.3f}")

