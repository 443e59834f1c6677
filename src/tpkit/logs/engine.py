"""Which engine wrote the log, and which release: as printed, or inferred from the line formats.

Inference uses format changes read in the released wheels (SGLang 0.2.15, 0.3.6, 0.3.6.post3, 0.4.0–0.4.6 (every
release), 0.4.10, 0.5.3, 0.5.10, 0.5.15, 0.5.23; vLLM 0.6.3, 0.8.5, 0.10.2, 0.11.0, 0.16.0, 0.19.0, 0.21.0, 0.33.0).  A range says
which checked releases print the format; releases in between were not read.
"""

from __future__ import annotations

import re

from tpkit.logs.lazyre import lazy
from tpkit.logs.releases import intersect_ranges, pre_release_ends, release_range, releases_in
from tpkit.logs.text import clean_line
from tpkit.records import dataclass

__all__ = ["EngineGuess", "Evidence", "VERSION_PATTERNS", "FORMAT_MARKERS", "SHARED_FORMATS", "generation_of",
           "ENGINE_WORDS", "SOURCE_NAMES", "PROCESS_NAMES", "SGLANG_HEADER",
           "decide_engine", "version_in", "version_after", "printed_version", "source_names_in", "FORMAT_PATTERNS",
           "PREFIX_PATTERNS", "release_range", "intersect_ranges", "SOURCE_LINES", "source_line_format", "releases_in"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Evidence:
    """A line that says something about the engine or its version."""

    engine: str
    claim: str
    """what the line shows, e.g. ``"version 0.10.2 printed"`` or ``"format of vLLM V0 (≤ 0.10)"``"""
    line_no: int
    text: str


@dataclass(frozen=True, kw_only=True, slots=True)
class EngineGuess:
    """The engine and its version with the evidence for each."""

    engine: str | None
    """``"sglang"``, ``"vllm"`` or None when the log names neither"""
    version: str | None
    """as printed (``"0.10.2"``), or an inferred range (``"0.5.4–0.5.15"``)"""
    version_printed: bool
    """True when the version was printed; False when it was inferred from formats"""
    engine_generation: str | None
    """vLLM ``"V0"`` / ``"V1"`` when the formats tell; None otherwise"""
    evidence: tuple[Evidence, ...]

    def to_dict(self) -> dict:
        return {"engine": self.engine, "version": self.version, "version_printed": self.version_printed,
                "engine_generation": self.engine_generation,
                "evidence": [{"engine": e.engine, "claim": e.claim, "line_no": e.line_no, "text": e.text}
                             for e in self.evidence]}


_V = r"v?(\d{1,6}\.\d{1,6}(?:\.\d{1,6}){0,2}(?:[.+-]?(?:post|dev|rc)\w*){0,3}(?:\+[\w.]+)?)"
"""a printed version; up to four numbers, since vLLM published four-part patch releases (0.9.0.1, 0.10.1.1 on PyPI:
the API server prints 'vLLM API server version 0.9.0.1', ``vllm/version.py`` of the 0.9.0.1 wheel); read as three
parts, 0.9.0.1 was reported as 0.9.0 and the engine-config line '(v0.9.0.1)' did not match at all.  The planners'
``parse_version`` keep major.minor.patch of either form."""
_BARE = r"v?(\d{1,6}\.\d{1,6}\.\d{1,6}(?:\.\d{1,6})?(?:[.-]?(?:post|dev|rc)\d{0,9}){0,3}(?:\+[\w.]{1,80})?)"
"""a release as a package list prints it: three or four numbers (both engines publish X.Y.Z, vLLM also X.Y.Z.W),
with pre-release, post-release and local labels.  Each label is a literal and digits only (not _V's run of word
characters), so the patterns that must reach the end of the line after it do not backtrack over a long line."""
_BARE_END = r"(?:\s*$|\s*[,;|]|\s+(?:[\w.+-]+\s+)?pypi\b|\s+/|\s+[A-Za-z]:\\)"
"""what may follow a bare release: the end of the line, a separator, conda's build and channel columns, or pip
list's editable location column"""
LOGO_VERSION = "vLLM's start-up banner"
"""vLLM 0.16.0+ (``entrypoints/utils.py`` ``log_version_and_model``, read in the 0.16.0 and 0.29.0 wheels; not in
0.14.0) prints its version beside a block-letter logo ('█ … █  version 0.29.0'), or, with VLLM_DISABLE_LOG_LOGO or no
formatter, 'vLLM server version 0.29.0, serving model …': a log whose only version line is either was read as
"version not printed" (helper tidy31's find, session 31)."""
NGC_TAG = "nvcr.io/nvidia/vllm:YY.MM"
"""NVIDIA's NGC container's own year.month tag, not vLLM's release (26.01 runs 0.13.0: vl_341 prints
'0.13.0+faa43dbf.nv26.01'), so 'nvidia/vllm:' and a number is not read as one (vl_885 read 26.01)."""
VERSION_PATTERNS = (
    ("vllm", lazy(r"vLLM API server version " + _V)),
    ("vllm", lazy(r"\bvLLM server version " + _V)),  # LOGO_VERSION: the banner's plain form
    ("vllm", lazy(r"█ {1,4}version " + _V)),  # LOGO_VERSION: the banner
    ("vllm", lazy(r"Initializing an? (?:V\d )?LLM engine \(" + _V + r"\)")),
    ("vllm", lazy(r"(?<!nvidia/)\bvllm(?:==| ?: ?| version | version {0,40}: |-openai:)" + _V, re.I)),  # not NGC_TAG
    ("vllm", lazy(r"vllm/vllm-openai:" + _V)),
    ("vllm", lazy(r"\bvllm-" + _V + r"[\w.+]{0,80}-(?:cp\d|py3)")),
    ("sglang", lazy(r"\bsglang(?:==| ?: ?| version |\[all\]==)" + _V, re.I)),
    ("sglang", lazy(r"lmsysorg/sglang:" + _V)),
    ("sglang", lazy(r"\bsglang-" + _V + r"[\w.+]{0,80}-(?:cp\d|py3)")),
    ("sglang", lazy(r"\bSGLang v" + r"(\d{1,6}\.\d{1,6}\.\d{1,6}[\w.+-]{0,40})")),
    ("vllm", lazy(r"^\s*(?:[-*>]\s+)?vllm\s+" + _BARE + _BARE_END, re.I)),
    ("sglang", lazy(r"^\s*(?:[-*>]\s+)?sglang\s+" + _BARE + _BARE_END, re.I)),
)
"""(engine, pattern whose group 1 is the version).  The last two read an environment check's bare line: ``pip list``
('vllm    0.20.0', name and version in columns), a conda list row ('vllm  0.20.0  pypi_0  pypi'), or notes that
list the packages ('vllm 0.20.0, torch 2.11.0+cu130', vl_874 / vl_875).  The package name opens the line (after a
list bullet at most) and a release of three or four numbers follows it, then the end of the line, a separator or a
list's next column, so prose ('ran vllm 2 times', 'vllm 0.9 GiB'), another package ('transformers 4.57.1') and a
package whose name starts with the engine's ('vllm-flash-attn 2.6.2', 'sglang-router 0.2.1') are not read.
Multi-line prints (``pip show``, ``--version``, ``__version__``) are read by :func:`version_after`."""

V0_LOOP_FRAMES = ("_log_task_completion", "run_engine_loop")
"""vLLM V0's engine loop: ``AsyncLLMEngine``'s background loop and its done-callback (``engine/async_llm_engine.py``)
and ``MQLLMEngine.run_engine_loop`` (``engine/multiprocessing/engine.py``), in every wheel read from 0.5.5 to 0.10.2
(0.5.5, 0.6.3.post1, 0.8.0, 0.10.2); no module of the 0.11.0 or 0.30.0 wheel names either.  A format marker below, so
a log whose only sign of its release is such a frame is dated ≤ 0.10.2 (V0) once, where every release-dependent rule
reads it (``Context.rules_version``: the rules, the default utilization, the plan's release; helper fx36, round
fx36 — before, only ``explain.vllm.default_utilization`` read the frames and the rest took 0.33's rules)."""

FORMAT_MARKERS = (
    ("sglang", "Memory baseline taken", "0.5.21–0.5.23 (not in 0.5.20)", None),
    ("sglang", "KV Cache is allocated. dtype:", "0.5.13–0.5.23 (not in 0.5.12)", None),
    ("sglang", "Init torch distributed ends. elapsed=", "0.5.9–0.5.20 (not in 0.5.8 or 0.5.21)", None),
    ("sglang", "Init torch distributed ends. mem usage=", "0.4.3.post3–0.5.8 (not in 0.4.3.post2 or 0.5.9)", None),
    ("sglang", "Load weight end. elapsed=", "0.5.9–0.5.23 (not in 0.5.8)", None),
    ("sglang", "Capture cuda graph end. Time elapsed",
     "0.4.0–0.5.13 (not in 0.3.6.post3; 0.5.14 prints 'Capture … CUDA graph end.')", None),
    ("sglang", "CUDA graph end. elapsed=", "0.5.14–0.5.23 (not in 0.5.13)", None),
    ("sglang", "Load weight end. type=", "0.2.15–0.5.8 (0.5.9 prints 'Load weight end. elapsed=')", None),
    ("sglang", "Capturing batches (bs=", "0.4.8.post1–0.5.23 (not in 0.4.8)", None),
    ("vllm", "Memory profiling results:", "0.6.4–0.6.6 (V0; not in 0.6.3, not in 0.8.5)", "V0"),
    ("vllm", "the current vLLM instance can use", "0.7–0.10 (V0 worker)", "V0"),
    ("vllm", "Loading model weights took", "≤ 0.10 (V0 model runner; 0.7.x's opt-in V1 runner too)", "V0?"),
    ("vllm", "Initializing a V0 LLM engine", "0.7.1–0.10.x (V0 engine)", "V0"),
    ("vllm", "Initializing an LLM engine", "≤ 0.7.0 (V0 engine; 0.7.0's opt-in V1 engine too)", "V0?"),
    ("vllm", "Initializing a V1 LLM engine", "≥ 0.7.1 (V1 engine; opt-in in 0.7.x)", "V1"),
    ("vllm", "GPU KV cache size:", "≥ 0.8 (V1 engine)", "V1"),
    ("vllm", "Model loading took", "≥ 0.8 (V1 model runner)", "V1"),
    ("vllm", "GiB memory and", "≥ 0.16 ('Model loading took X GiB memory and …'; not in 0.11)", "V1"),
    ("vllm", "(VllmWorker rank=", "0.8–0.9 (V1 multiprocessing worker prefix)", "V1"),
    ("vllm", "(EngineCore_DP", "≥ 0.10 (engine core process name)", "V1"),
    ("vllm", "(Worker_TP", "≥ 0.11 (worker process name)", "V1"),
    ("vllm", "(VllmWorkerProcess pid=", "≤ 0.10 (V0 multiprocessing worker)", "V0"),
    *(("vllm", name, "≤ 0.10.2 (V0 engine loop)", "V0") for name in V0_LOOP_FRAMES),  # helper fx36
    ("vllm", "backend, despite its name)", "≥ 0.20.2 ('No available memory for the cache blocks' naming the CPU "
             "backend, v1/core/kv_cache_utils.py: not in 0.20.1, in 0.26.0 and 0.30.0)", "V1"),  # round ex37
    ("vllm", "(EngineCore pid=", "≥ 0.18 (engine core process named 'EngineCore' without DP, v1/engine/utils.py; "
             "0.17.0 and older name it EngineCore_DP0)", "V1"),
)
"""(engine, literal, version range it implies, vLLM generation).  A generation ending in '?' is the format's usual
engine, not its only one (:data:`SHARED_FORMATS`): it names the generation only where no format that only one
generation prints does (:func:`generation_of`).  SGLang's 'Capturing batches (bs=' (the CUDA-graph
capture bar, model_executor cuda_graph_runner.py ``f"Capturing batches ({bs=} {avail_mem=:.2f} GB)"``) was read in
0.4.8.post1, 0.4.9, 0.4.10, 0.5.4–0.5.12, 0.5.16–0.5.23; 0.4.6–0.4.8 print '(avail_mem=…)' without bs=.  Its
first release is exact (0.4.8 and 0.4.8.post1 are adjacent); ``explain.runtp.sglang_tag_era`` reads it."""

SHARED_FORMATS = (
    "Loading model weights took", "Initializing an LLM engine",
)
"""The vLLM formats both engines print in some release (helper fx38, 2026-12-08, round fx38; the 0.7.0, 0.7.2 and 0.7.3
wheels): 'Loading model weights took %.4f GB' is V0's ``worker/model_runner.py`` (≤ 0.7.3) and also the opt-in
V1's ``v1/worker/gpu_model_runner.py`` in 0.7.0, 0.7.2 and 0.7.3 (0.8.0's runners print 'Model loading took');
'Initializing an LLM engine (v%s)' is V0's ``engine/llm_engine.py`` and, in 0.7.0, V1's ``v1/engine/core.py`` too
(0.7.2 and 0.7.3 print 'Initializing a V0 LLM engine' / 'Initializing a V1 LLM engine', and so do the corpus's 0.7.1
logs).  Before round fx38 both named V0 outright and, listed first, outvoted V1's own 'Initializing a V1 LLM engine
(v0.7.3)' (a 0.7.3 V1 log read as V0)."""

FORMAT_PATTERNS = (
    ("vllm", lazy(r"GPU KV cache size: [\d,]+ tokens\W{0,3}$"), "the capacity line ending at 'N tokens'",
     "0.8–0.27 (v1/core/kv_cache_utils.py: the capacity and the concurrency on two lines up to 0.27.0, one line "
     "from 0.28.0)", "V1"),
    ("vllm", lazy(r"GPU KV cache size: [\d,]+ tokens, Maximum concurrency"),
     "the capacity line going on with ', Maximum concurrency'",
     "≥ 0.28 (v1/core/kv_cache_utils.py: one line from 0.28.0; two lines in 0.25.0)", "V1"),
)
"""(engine, pattern over one record, what it shows, version range it implies, vLLM generation): formats a
substring cannot tell (the end of a record)"""

PREFIX_PATTERNS = (
    ("sglang", lazy(r"^\[\d{2}:\d{2}:\d{2} TP\d+\] "), "the record prefix '[HH:MM:SS TPn]' (time without date)",
     "0.2.15–0.3.3 (sglang/srt/utils.py configure_logger: datefmt '%H:%M:%S' in 0.2.15, 0.3.2 and 0.3.3; "
     "'%Y-%m-%d %H:%M:%S' from 0.3.4 and in 0.4.2, 0.4.10, 0.5.23)", None),
)
"""(engine, pattern over the raw line, what it shows, version range it implies, vLLM generation): record prefixes
the record splitter strips from the message.  They are read before every other format (the narrowest range)."""

SOURCE_LINES = (
    ("vllm", "gpu_worker.py", "Available KV cache memory", {
        232: ("0.9.0–0.10.0", "0.9.2"),
        276: ("0.10.0–0.10.1", "0.10.1"),
        298: ("0.10.2–0.11.0", "0.10.2, 0.11.0"),
        358: ("0.14.0–0.18.1", "0.14.0, 0.14.1"),
        359: ("0.11.1–0.12.0", "0.11.1, 0.11.2, 0.12.0"),
        375: ("0.13.0", "0.13.0"),
        436: ("0.15.0–0.19.1", "0.19.0"),
        440: ("0.19.1–0.20.2", "0.20.0"),
        462: ("0.20.1–0.26.0", "0.21.0"),
        563: ("0.22.0–0.28.0", "0.27.0, 0.27.1"),
        625: ("0.28.0–0.32.0", "0.29.0"),
        772: ("0.30.0–0.33.0", "0.33.0"), 795: ("≥ 0.34.0", "0.34.0"),
    }),
    ("vllm", "kv_cache_utils.py", "padding layers, may waste", {
        830: ("0.9.1–0.9.2", "0.9.1"),
        955: ("0.9.2–0.10.1", "0.10.0"),
        979: ("0.11.1–0.11.2", "0.11.1, 0.11.2"),
        982: ("0.11.0", "0.11.0"),
        986: ("0.10.1–0.10.2", "0.10.2"),
        1028: ("0.12.0", "0.12.0"),
        1033: ("0.13.0–0.14.0", "0.13.0"),
        1047: ("0.14.0–0.16.0", "0.14.1, 0.15.0"),
        1054: ("0.15.1–0.18.1", "0.17.0"),
        1059: ("0.17.1–0.19.1", "0.19.0"),
        1140: ("0.19.1–0.20.2", "0.20.0"),
        1152: ("0.20.1–0.27.0", "0.21.0"),
        1261: ("0.22.0–0.28.0", "0.27.1"),
        1326: ("0.28.0–0.32.0", "0.29.0"),
    }),
    ("vllm", "kv_cache_utils.py", "GPU KV cache size:", {
        537: ("0.8.0–0.8.1", "0.8.0, 0.8.1"),
        566: ("0.8.2", "0.8.2"),
        578: ("0.8.3", "0.8.3"),
        634: ("0.8.4–0.8.5", "0.8.4, 0.8.5"),
        637: ("0.9.0", "0.9.0"),
        715: ("0.9.1–0.9.2", "0.9.1"),
        833: ("0.9.2–0.10.1", "0.10.0"),
        864: ("0.10.1–0.10.2", "0.10.2"),
        870: ("0.9.1–0.9.2", "0.9.1"),
        997: ("0.9.2–0.10.1", "0.10.0"),
        1028: ("0.10.1–0.10.2", "0.10.2"),
        1087: ("0.11.0", "0.11.0"),
        1229: ("0.11.1–0.11.2", "0.11.1, 0.11.2"),
        1286: ("0.12.0", "0.12.0"),
        1291: ("0.13.0–0.14.0", "0.13.0"),
        1305: ("0.14.0–0.14.1", "0.14.1"),
        1307: ("0.15.0–0.16.0", "0.15.0"),
        1314: ("0.15.1–0.18.1", "0.17.0"),
        1319: ("0.17.1–0.19.1", "0.19.0"),
        1710: ("0.20.1–0.27.0", "0.21.0"),
        1711: ("0.19.1–0.20.2", "0.20.0"),
        2032: ("0.28.0–0.32.0", "0.29.0"),
        2235: ("0.22.0–0.28.0", "0.27.1"),
    }),
    ("vllm", "kv_cache_utils.py", "Maximum concurrency for", {
        540: ("0.8.0–0.8.1", "0.8.0, 0.8.1"),
        569: ("0.8.2", "0.8.2"),
        581: ("0.8.3", "0.8.3"),
        637: ("0.8.4–0.8.5", "0.8.4, 0.8.5"),
        640: ("0.9.0", "0.9.0"),
        719: ("0.9.1–0.9.2", "0.9.1"),
        837: ("0.9.2–0.10.1", "0.10.0"),
        868: ("0.10.1–0.10.2", "0.10.2"),
        874: ("0.9.1–0.9.2", "0.9.1"),
        1001: ("0.9.2–0.10.1", "0.10.0"),
        1032: ("0.10.1–0.10.2", "0.10.2"),
        1091: ("0.11.0", "0.11.0"),
        1147: ("0.30.0–0.33.0", "0.33.0"), 1168: ("≥ 0.34.0", "0.34.0"),
        1234: ("0.11.1–0.11.2", "0.11.1, 0.11.2"),
        1291: ("0.12.0", "0.12.0"),
        1296: ("0.13.0–0.14.0", "0.13.0"),
        1310: ("0.14.0–0.14.1", "0.14.1"),
        1312: ("0.15.0–0.16.0", "0.15.0"),
        1319: ("0.15.1–0.18.1", "0.17.0"),
        1324: ("0.17.1–0.19.1", "0.19.0"),
        1711: ("0.20.1–0.27.0", "0.21.0"),
        1716: ("0.19.1–0.20.2", "0.20.0"),
        2032: ("0.28.0–0.32.0", "0.29.0"),
        2236: ("0.22.0–0.28.0", "0.27.1"),
    }),
)
"""(engine, source file, message literal, {logger-call line: (release range, wheels read with that line)}):
vLLM's default log prefix names the file and line of the logger call (``[kv_cache_utils.py:979]``), and those
line numbers move between releases.  Read in the vLLM wheels 0.8.0–0.8.5, 0.9.0–0.9.2, 0.10.0–0.10.2,
0.11.0–0.11.2, 0.12.0, 0.13.0, 0.14.0, 0.14.1, 0.15.0, 0.17.0, 0.19.0, 0.20.0, 0.21.0, 0.27.0, 0.27.1, 0.29.0,
0.33.0, 0.34.0 (``v1/worker/gpu_worker.py`` ``determine_available_memory``; ``v1/core/kv_cache_utils.py`` the
padding-layer warning of ``_get_kv_cache_groups_uniform_page_size`` and ``_report_kv_cache_config`` / the
capacity lines): a line's range runs from the first PyPI release after the last read wheel with another line
to the last PyPI release before the next such wheel, so unread releases in between stay inside it.  A line
number not in the table (a dev build, an unread release) says nothing; a dev build between two releases with
the same line as a release is taken as that release's range."""

ENGINE_WORDS = (
    ("sglang", ("sglang", "SGLang", "ServerArgs(", "Load weight begin", "KV Cache is allocated", "Memory pool end",
                "ready to roll", "max_total_num_tokens=", "mem_fraction_static",
                # raised only by SGLang's KV-cache configurator (sglang 0.5.16 mem_cache/kv_cache_configurator.py
                # _profile_available_bytes; no such message in vLLM 0.29.0 / 0.30.0): a pasted error often stands
                # alone, its flag wrapped onto the next line
                "Loaded weights leave no GPU memory for the KV cache",
                # the RL memory API (managers/scheduler_components/weight_updater.py, 0.5.13.post1) and the memory
                # saver behind it (logs.memsaver); vLLM names its own step sleep / wake_up and uses no
                # torch_memory_saver (0.11.0, 0.30.0 wheels: none of these names)
                "resume_memory_occupation", "release_memory_occupation", "[torch_memory_saver.cpp]",
                # the engine's child-process watchdog (srt/entrypoints/engine.py, 0.4.4.post2; not in vLLM 0.11.0 /
                # 0.30.0)
                "Child process unexpectedly failed with an exit code")),
    ("vllm", ("vllm", "vLLM", "VllmWorker", "EngineCore", "Model loading took", "Available KV cache memory",
              "GPU KV cache size", "# GPU blocks", "gpu_memory_utilization", "Loading model weights took",
              # GPUModelRunner.load_model's OOM message (v1/worker/gpu_model_runner.py, from 0.13.0; not in SGLang
              # 0.5.11 / 0.5.13.post1 / 0.5.23): failures.load_phase
              "Failed to load model - not enough GPU memory",
              # the capture's progress bars: V0 ModelRunner.capture_model (worker/model_runner.py, 0.10.1 wheel) and
              # V1 GPUModelRunner's "Capturing CUDA graphs ({mode}, {kind})" (v1/worker/gpu_model_runner.py, 0.10.1
              # and 0.20.0 wheels); SGLang 0.4.6, 0.5.9 and 0.5.23 print neither (their bar is 'Capturing batches')
              "Capturing CUDA graph shapes", "Capturing CUDA graphs (",
              # GPUModelRunner.profile_cudagraph_memory's log line (v1/worker/gpu_model_runner.py, 0.20.0, 0.22.0 and
              # 0.29.0 wheels; no such words in SGLang 0.5.10 or 0.5.15)
              "Profiling CUDA graph memory")),
)

PROCESS_NAMES = (
    # a Ray actor whose class names SGLang (verl's SGLangHttpServer runs SGLang's HTTP server in the actor;
    # sgl-project/sglang#14092); vLLM's actors are RayWorkerWrapper / EngineCore (below)
    ("sglang", lazy(r"^SGLang\w{0,40}(?: pid=\d{1,9})?$")),
    ("vllm", lazy(r"^(?:EngineCore(?:_DP\d{1,4})?|VllmWorker(?:Process)?(?: rank=\d{1,6})?|Worker(?:_[A-Z]{2,3}\d{1,4})+|"
                  r"RayWorkerWrapper)(?: pid=\d{1,9})?$")),
)
"""(engine, record-header names only that engine gives its processes): vLLM's engine core ``EngineCore`` /
``EngineCore_DP<n>`` (v1/engine/core.py / utils.py), its workers ``VllmWorkerProcess`` (V0
executor/multiproc_worker_utils.py), ``VllmWorker`` (0.8–0.10), ``Worker_TP<n>…`` (≥ 0.11
multiproc_executor.py setup_proc_title_and_log_prefix, 0.11.0 / 0.20.0 wheels) and Ray's actor class
``RayWorkerWrapper`` (executor/ray_utils.py, 0.10.1; v1/executor/ray_utils.py, 0.20.0): a record behind one is
vLLM's even where the header sits mid-line (a progress bar glued before it) and the message names nothing.  The
header's label as ``logs.prefix`` makes it (``"VllmWorkerProcess pid=90"``, ``"Worker_TP1"``)."""
SGLANG_HEADER = lazy(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?(?: (?:DP|TP|PP|EP|CP|ATTN_CP|ATTN_DP|MOE_DP)"
                     r"\d{1,5}){1,6}\] ")
"""SGLang's record header with a rank: ``configure_logger``'s ``"[%(asctime)s{maybe_ms}{prefix}] %(message)s"``
with ``datefmt="%Y-%m-%d %H:%M:%S"`` and the scheduler's prefix " DP0 TP1 …" (srt/utils/common.py and
managers/scheduler.py, 0.5.9 wheel); vLLM's records start with the level ('INFO 01-01 …') or a process name"""


SOURCE_NAMES = (
    ("vllm", "gpu_model_runner", "vllm/v1/worker/gpu_model_runner.py (read in vLLM 0.15.1, 0.29.0, 0.30.0; "
             "no such name in SGLang 0.5.10)"),
    ("vllm", "determine_available_memory", "Worker.determine_available_memory, vllm/v1/worker/gpu_worker.py (read in "
             "vLLM 0.15.1, 0.29.0, 0.30.0; no such name in SGLang 0.5.10)"),
    ("vllm", "profile_cudagraph_memory", "GPUModelRunner.profile_cudagraph_memory, vllm/v1/worker/gpu_model_runner.py "
             "(read in vLLM 0.29.0, 0.30.0; not in 0.15.1; no such name in SGLang 0.5.10)"),
    ("sglang", "tp_worker", "sglang/srt/managers/tp_worker.py (read in SGLang 0.5.10; no such name in vLLM 0.15.1, "
               "0.29.0, 0.30.0)"),
    ("sglang", "init_memory_pool", "ModelRunner.init_memory_pool, sglang/srt/model_executor (read in SGLang 0.5.10; no "
               "such name in vLLM 0.15.1, 0.29.0, 0.30.0)"),
    ("sglang", "profile_max_num_token", "ModelRunner.profile_max_num_token, sglang/srt/model_executor (read in SGLang "
               "0.5.10; no such name in vLLM 0.15.1, 0.29.0, 0.30.0)"),
    ("sglang", "cuda_graph_runner", "sglang/srt/model_executor/cuda_graph_runner.py (read in SGLang 0.5.10; no such "
               "name in vLLM 0.15.1, 0.29.0, 0.30.0)"),
)
"""(engine, source-code name, where the engine defines it): a file or function only one engine has, named in a
traceback, a log header or a summarised call tree.  Module paths (``…/vllm/…``, ``sglang/srt/…``) are read by
:data:`_MODULE_PATH`."""
_MODULE_PATH = lazy(r"(?:^|[\\/\s\"'(])(vllm|sglang)/[\w./-]{0,160}?\.py\b")


def source_names_in(message: str) -> list[tuple[str, str, str]]:
    """(engine, name, where) for every engine-specific source name or module path the record mentions."""
    out = [(e, n, where) for e, n, where in SOURCE_NAMES if n in message]
    m = _MODULE_PATH.search(message) if ("vllm/" in message or "sglang/" in message) else None
    if m:
        path = m.group(0).lstrip("\\/ \t\"'(")
        out.append((m.group(1), path, f"module path {path!r} (a file of the {m.group(1)} package)"))
    return out


def version_in(message: str) -> tuple[str, str] | None:
    """(engine, version) when the record prints a version."""
    for engine, pattern in VERSION_PATTERNS:
        m = pattern.search(message)
        if m:
            return engine, m.group(1)
    return None


_NAME_LINE = lazy(r"^\s*Name:\s*(vllm|sglang)\s*$", re.I)
_VERSION_FIELD = lazy(r"^\s*Version:\s*" + _BARE + r"\s*$", re.I)
_VERSION_QUERY = lazy(r"\b(vllm|sglang)\.__version__\b|\bimportlib\.metadata\.version\(\s*['\"](vllm|sglang)['\"]\s*\)"
                      r"|^(?:.{0,80}?[$#>]\s*)?(vllm)\s+(?:-v|--version)\s*$")
_BARE_LINE = lazy(r"^\s*['\"]?" + _BARE + r"['\"]?\s*$")
AFTER_LINES = 5
"""how many lines after a version query :func:`version_after` reads for its answer (importing vLLM may log a
line or two, 'Automatically detected platform cuda.', before the print)"""


def version_after(message: str, following: list[str]) -> tuple[str, str, str] | None:
    """(engine, version, the answering line) when the record asks for an engine's release and a following line
    answers it: ``pip show vllm`` ('Name: vllm' and on the next line 'Version: 0.20.0'), ``vllm --version`` /
    ``vllm -v`` (vLLM's CLI: an argparse ``action="version"`` with ``importlib.metadata.version("vllm")``,
    vllm/entrypoints/cli/main.py, read in the 0.11.0 and 0.29.0 wheels: the release alone on its line),
    ``print(vllm.__version__)`` / ``print(sglang.__version__)`` (vllm/version.py; sglang/version.py, read in
    SGLang 0.5.6) or ``importlib.metadata.version("vllm")``: the first of the next :data:`AFTER_LINES` lines
    that holds a release and nothing else ('0.20.0', or quoted as a REPL echoes it).  ``following`` are the raw
    lines after the record; a further version query among them ends the search (its answer is its own)."""
    if "vllm" not in message.lower() and "sglang" not in message.lower():
        return None
    m = _NAME_LINE.match(message)
    if m:
        v = _VERSION_FIELD.match(following[0]) if following else None
        return (m.group(1).lower(), v.group(1), following[0].strip()[:200]) if v else None
    m = _VERSION_QUERY.search(message[:2000])
    if not m:
        return None
    engine = next(g for g in m.groups() if g).lower()
    for line in following[:AFTER_LINES]:
        if "version" in line.lower():
            return None
        v = _BARE_LINE.match(line)
        if v:
            return engine, v.group(1), line.strip()[:200]
    return None


def _following(text: str, end: int, count: int) -> list[str]:
    """The raw lines of ``text`` after the one ending at ``end`` (at most ``count``), colour codes removed."""
    out, pos = [], end
    while len(out) < count and pos < len(text):
        stop = text.find("\n", pos + 1)
        stop = len(text) if stop < 0 else stop
        out.append(clean_line(text[pos + 1:stop][:4000])[0])
        pos = stop
    return out


def printed_version(message: str, text: str, end: int) -> tuple[str, str, str] | None:
    """(engine, version, evidence text) when the record prints a release (:func:`version_in`) or asks for one that the
    lines below answer (:func:`version_after`; the evidence joins the two lines with '⏎').  ``text`` is the log and
    ``end`` where the record's line ends; the lines below are read only for a record that may ask."""
    found = version_in(message)
    if found:
        return found[0], found[1], message.strip()[:300]
    if ("vllm" in message or "sglang" in message) and ("Name:" in message or "version" in message or "-v" in message):
        after = version_after(message, _following(text, end, AFTER_LINES))
        if after:
            return after[0], after[1], f"{message.strip()[:200]} ⏎ {after[2]}"
    return None


def _priority(evidence: Evidence) -> tuple[int, int]:
    """Versions the engine prints itself first (API server line, engine config), then pip / image tags, then an
    environment check's bare line ('vllm 0.20.0'), then the prints :func:`version_after` reads (no pattern matches
    their two-line text: they rank last)."""
    rank = next((i for i, (_, p) in enumerate(VERSION_PATTERNS) if p.search(evidence.text)), len(VERSION_PATTERNS))
    return rank, evidence.line_no


def decide_engine(votes: dict[str, int], evidence: list[Evidence]) -> EngineGuess:
    """The engine with more evidence; its printed version if any, else the narrowest format range."""
    engine = max(votes, key=votes.get) if votes and max(votes.values()) > 0 else None
    mine = [e for e in evidence if e.engine == engine]
    printed = sorted((e for e in mine if e.claim.startswith("version ")), key=_priority)
    generation = generation_of(mine)
    if printed:
        version = printed[0].claim.split(" ")[1]
        return EngineGuess(engine=engine, version=version, version_printed=True, engine_generation=generation,
                           evidence=tuple(mine[:12]))
    formats = [e for e in mine if e.claim.startswith("format ")]
    version = formats[0].claim.split(": ", 1)[1].rsplit(" [", 1)[0] if formats else None
    if engine == "vllm" and len(formats) > 1:
        version = intersect_ranges([f.claim.split(": ", 1)[1].rsplit(" [", 1)[0] for f in formats]) or version
    elif len(formats) > 1:
        version = _sglang_range([f.claim.split(": ", 1)[1].rsplit(" [", 1)[0] for f in formats]) or version
    return EngineGuess(engine=engine, version=version, version_printed=False, engine_generation=generation,
                       evidence=tuple(mine[:12]))


def generation_of(evidence) -> str | None:
    """The vLLM generation the formats show: the first format only one generation prints ('[V0]' / '[V1]'), else
    the first shared format's usual one ('[V0?]', :data:`SHARED_FORMATS`); None when no format names one."""
    claims = [e.claim for e in evidence]
    for ends in (("[V0]", "[V1]"), ("[V0?]", "[V1?]")):
        found = next((c.rsplit("[", 1)[1][:2] for c in claims if c.endswith(ends)), None)
        if found:
            return found
    return None


def _sglang_range(texts: list[str]) -> str | None:
    """SGLang's release text from its line formats (``texts``, in ``FORMAT_MARKERS`` order): the range every format
    allows, told by the first format whose own range it is (with that format's "(not in …)"), else as the bare
    range.  None when the ranges do not meet (a pasted mix: the first format's text stands).  Before (review qual9,
    2026-12-05) the first format's range stood alone, so sg_001 read "0.4.6–0.5.10" beside its own 'Load weight end.
    type=' ending at 0.5.8; cap8 dropped the intersection while the marker ranges ended at the last wheel read
    (sg_222, a 0.5.17 image, came out 0.5.15); their ends are now the releases that change them (capx)."""
    both = intersect_ranges(texts)
    if both is None:
        return None
    span = release_range(both)
    return next((t for t in texts if release_range(t) == span), both)


_SOURCE_LINE = lazy(r"\[(gpu_worker|kv_cache_utils)\.py:(\d{1,5})\]")


def source_line_format(line: str) -> tuple[int, Evidence] | None:
    """(table index, evidence) when a raw log line carries a ``[file.py:N]`` prefix whose line number
    :data:`SOURCE_LINES` ties to a release range for the message it prints; None otherwise."""
    if "[" not in line or ".py:" not in line:
        return None
    m = _SOURCE_LINE.search(line, 0, 400)
    if not m:
        return None
    name, number = f"{m.group(1)}.py", int(m.group(2))
    rest = line[m.end():]
    for i, (engine, file, literal, lines) in enumerate(SOURCE_LINES):
        if file == name and literal in rest and number in lines:
            versions, seen = lines[number]
            claim = (f"format of {file} line {number} ({literal!r}): {versions} (that line in the {seen} wheels) "
                     "[V1]")
            return i, Evidence(engine=engine, claim=claim, line_no=0, text=line.strip()[:300])
    return None
