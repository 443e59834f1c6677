"""vLLM and SGLang release ranges intersected from the line formats (logs/engine.py, helper kvd): each marker pinned
on both sides of its boundary (vLLM: read in the 0.17.0, 0.18.0, 0.25.0 and 0.28.0 wheels; SGLang: below)."""

from tpkit.logs.engine import FORMAT_MARKERS, intersect_ranges, release_range
from tpkit.logs.reader import parse_log

AVAIL = 'msg="Available KV cache memory: 5.38 GiB"\n'


def _version(text: str) -> str | None:
    return parse_log(text).engine.version


def test_ranges_are_read_and_intersected():
    assert release_range("≥ 0.18 (x)") == ((0, 18, 0), (999, 999, 999))
    assert release_range("0.8–0.27 (y)") == ((0, 8, 0), (0, 27, 999))
    assert intersect_ranges(["≥ 0.8 (V1)", "≥ 0.18 (a)", "0.8–0.27 (b)"]) == "0.18–0.27"
    assert intersect_ranges(["≥ 0.8 (V1)", "≥ 0.28 (a)"]) == "≥ 0.28"
    assert intersect_ranges(["≤ 0.10", "≥ 0.11"]) is None  # formats that disagree: no range


def test_engine_core_prefix_without_dp_means_0_18_or_later():
    """v1/engine/utils.py names the process 'EngineCore' without DP from 0.18.0 (0.17.0: always EngineCore_DP0)."""
    two_lines = "(EngineCore pid=86) INFO GPU KV cache size: 78,384 tokens\n"
    assert _version(two_lines) == "0.18–0.27"
    assert _version("(EngineCore_DP0 pid=86) INFO GPU KV cache size: 78,384 tokens\n") == "0.10–0.27"


def test_the_capacity_line_alone_is_0_27_or_older_and_with_the_concurrency_0_28_or_later():
    """v1/core/kv_cache_utils.py: two records up to 0.27 (0.25.0 read), one record from 0.28.0."""
    one = "INFO GPU KV cache size: 150,745 tokens, Maximum concurrency for 124,000 tokens per request: 1.22x\n"
    assert _version(one) == "≥ 0.28"
    assert _version("INFO GPU KV cache size: 78,384 tokens\n") == "0.8–0.27"


SG_PREFIX = "[2026-02-01 00:05:01 TP0] "


def test_sglang_init_and_load_formats_change_at_0_5_9():
    """sglang model_runner.py: 'Init torch distributed ends. mem usage=' and 'Load weight end. type=' up to 0.5.8,
    'Init torch distributed ends. elapsed=' and 'Load weight end. elapsed=' from 0.5.9 (read in the 0.5.3 – 0.5.10,
    0.5.15, 0.5.20 and 0.5.23 wheels; helper lfm).  The 'elapsed=' init line runs to 0.5.20: from 0.5.16 it is
    printed by ``distributed/bootstrap.py init_torch_distributed`` (read in 0.5.16–0.5.20); 0.5.21–0.5.23 print
    'Init parallel ends' there instead (helper capx)."""
    old = SG_PREFIX + "Init torch distributed ends. mem usage=0.00 GB\n"
    new = SG_PREFIX + "Init torch distributed ends. elapsed=0.12 s, mem usage=0.02 GB\n"
    assert _version(old).startswith("0.4.3.post3–0.5.8 ")
    assert _version(new).startswith("0.5.9–0.5.20 ")
    load_old = SG_PREFIX + "Load weight end. type=Lfm2ForCausalLM, dtype=torch.bfloat16, avail mem=13.81 GB\n"
    load_new = SG_PREFIX + "Load weight end. elapsed=1.25 s, type=X, dtype=torch.bfloat16, avail mem=9.26 GB\n"
    assert _version(load_old).startswith("0.2.15–0.5.8 ")
    assert _version(load_new).startswith("0.5.9–0.5.23 ")
    assert _version(new + load_new).startswith("0.5.9–0.5.20 ")  # sg_014's formats


def test_sglang_capture_time_elapsed_runs_to_0_5_13():
    """'Capture cuda graph end. Time elapsed' is printed by model_runner.py (``graph_backend`` 'cuda graph') through
    0.5.13.post1 (read in 0.5.10, 0.5.10rc0, 0.5.11, 0.5.12, 0.5.13, 0.5.13.post1); 0.5.14 maps cuda to 'CUDA graph'
    and prints 'Capture … CUDA graph end. elapsed=' (read in 0.5.14, 0.5.15); it starts at 0.4.0 (read in 0.3.6.post3,
    which lacks it, and every release 0.4.0–0.4.6: the lead, session 28).  With the 0.5.8-or-older init line (from
    0.4.3.post3, not in 0.4.3.post2): 0.4.3.post3 – 0.5.8."""
    capture = SG_PREFIX + "Capture cuda graph end. Time elapsed: 1.01 s. mem usage=0.03 GB. avail mem=2.39 GB.\n"
    assert _version(capture).startswith("0.4.0–0.5.13 ")
    both = SG_PREFIX + "Init torch distributed ends. mem usage=0.00 GB\n" + capture
    assert _version(both).startswith("0.4.3.post3–0.5.8 ")  # sg_015's formats


def test_sglang_time_only_rank_prefix_means_0_3_3_or_older():
    """sglang/srt/utils.py configure_logger: datefmt '%H:%M:%S' in 0.2.15–0.3.3, '%Y-%m-%d %H:%M:%S' from 0.3.4
    (read in the 0.2.15, 0.3.2, 0.3.3, 0.3.4, 0.4.2, 0.4.10 and 0.5.23 wheels)."""
    line = "Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=176.33 GB\n"
    old = _version("[22:30:52 TP0] " + line)
    assert old is not None and old.startswith("0.2.15–0.3.3")
    assert _version("[2024-10-20 22:30:52 TP0] " + line).startswith("0.2.15–0.5.8 ")  # 'type=' form ends at 0.5.8
    assert _version("[HH:MM:SS] " + line).startswith("0.2.15–0.5.8 ")  # a template, no rank: nothing read off it


def test_releases_in_reads_the_ends_of_a_version_text():
    # logs.engine.releases_in: the one reader of the releases an explanation's version text names (explain.context,
    # explain.sgrelease); parentheses (releases ruled out) are skipped
    from tpkit.logs.engine import releases_in

    assert releases_in("0.4.6–0.5.3") == ["0.4.6", "0.5.3"]
    assert releases_in("0.10.2") == ["0.10.2"]
    assert releases_in("≥ 0.18 (0.17 ruled out)") == ["0.18"]
    assert releases_in(None) == [] and releases_in("") == []


def test_releases_in_drops_a_local_label():
    """A PEP 440 local label ("+…") names no release: NVIDIA's container build prints
    'vLLM API server version 0.13.0+faa43dbf.nv26.01' ('26.01' is the container's YY.MM)."""
    from tpkit.explain.vdiagnose import _release
    from tpkit.logs.engine import releases_in

    assert releases_in("0.13.0+faa43dbf.nv26.01") == ["0.13.0"]
    assert releases_in("0.10.1.dev101+gbda9d0535") == ["0.10.1"]
    assert releases_in("0.11.0+582e4e37.nv25.11") == ["0.11.0"]
    assert _release("0.13.0+faa43dbf.nv26.01") == (0, 13) and _release("0.4.6–0.5.3") == (0, 4)
    assert _release(None) is None


def test_sglang_format_boundaries_read_in_the_0_5_12_to_0_5_21_wheels():
    """Each SGLang marker whose end was read only at 0.5.10 / 0.5.15 / 0.5.23, pinned on both sides of the release
    that changes it (helper capx; ``pip download --no-deps sglang==X``, the f-strings joined):
    'KV Cache is allocated. dtype:' from 0.5.13 (``mem_cache/memory_pool.py``; 0.5.12 prints '#tokens' first);
    'CUDA graph end. elapsed=' from 0.5.14 (0.5.13.post1 prints 'Capture cuda graph end. Time elapsed');
    'Memory baseline taken' from 0.5.21 (``distributed/bootstrap.py``; not in 0.5.20), whose init line
    'Init torch distributed ends. elapsed=' stops at 0.5.20."""
    kv = SG_PREFIX + "KV Cache is allocated. dtype: torch.bfloat16, #tokens: 251788, K size: 2.88 GB, V size: 2.88 GB\n"
    assert _version(kv).startswith("0.5.13–0.5.23 ")
    kv_old = SG_PREFIX + "KV Cache is allocated. #tokens: 733731, K size: 2.88 GB, V size: 2.88 GB\n"
    assert _version(kv_old) is None  # the older record is no format marker
    graph = SG_PREFIX + "Capture cuda graph CUDA graph end. elapsed=3.10 s, mem usage=0.40 GB, avail mem=20.10 GB.\n"
    assert _version(graph).startswith("0.5.14–0.5.23 ")
    baseline = SG_PREFIX + "Memory baseline taken. avail mem=130.51 GB\n"
    assert _version(baseline).startswith("0.5.21–0.5.23 ")
    ranges = {literal: text for engine, literal, text, _ in FORMAT_MARKERS if engine == "sglang"}
    init = ranges["Init torch distributed ends. elapsed="]
    assert intersect_ranges([init, ranges["KV Cache is allocated. dtype:"]]) == "0.5.13–0.5.20"  # sg_333's formats
    assert intersect_ranges([init, ranges["Capture cuda graph end. Time elapsed"]]) == "0.5.9–0.5.13"
    assert intersect_ranges([ranges["KV Cache is allocated. dtype:"],
                             ranges["Capture cuda graph end. Time elapsed"]]) == "0.5.13–0.5.13"  # 0.5.13(.postN)
    capture_old, capture_new = ranges["Capture cuda graph end. Time elapsed"], ranges["CUDA graph end. elapsed="]
    assert intersect_ranges([capture_new, capture_old]) is None
    assert intersect_ranges([init, ranges["Memory baseline taken"]]) is None  # 0.5.20 | 0.5.21: never both
