"""The run an explanation works on: the log's settings, filled in (never overridden) by command-line flags.

A flag that fills a gap is used; a flag that contradicts the log is reported and the log's value is kept
(the log is what ran).  The model and the GPU are resolved to tpkit's specs when they can be: the log's
model path through ``tpkit.models.load_model`` (path, HF cache, catalog) or ``--model``; the GPU by its
printed name, ``--gpu``/``--gpu-memory``, or the catalog GPUs whose total prints as the log's total.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tpkit.errors import TpkitError
from tpkit.explain.contradiction import Contradiction
from tpkit.logs import ParsedLog
from tpkit.logs.engine import releases_in
from tpkit.logs.settings import flag_settings, same_quantization
from tpkit.explain.refusals import READ_FAILED, REFUSED

__all__ = ["Context", "Contradiction", "build_context", "FLAG_SETTINGS", "TP_CANDIDATES", "tp_default_evidence"]

FLAG_SETTINGS = flag_settings((
    "tp", "pp", "dp", "ep", "mem_fraction_static", "gpu_memory_utilization", "context_length", "max_model_len",
    "kv_cache_dtype", "page_size", "block_size", "quantization", "cuda_graph_max_bs", "max_total_tokens",
    "max_running_requests", "max_num_seqs", "chunked_prefill_size", "max_num_batched_tokens", "enable_dp_attention",
    "data_parallel_size", "disable_radix_cache", "disable_overlap_schedule", "swa_full_tokens_ratio",
    "topk_topp_sampler", "skip_mm_profiling", "compile_cache", "cpu_offload_gb", "vllm_use_v2_model_runner",
    "language_model_only"))
"""flag dest → Run setting name: the plan flags an explanation takes (``logs.settings.flag_settings``)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Context:
    """Everything known about the run, each value with where it came from."""

    engine: str | None
    version: str | None
    values: dict
    """setting name -> value (log first, then flags)"""
    sources: dict
    """setting name -> "log line N (source)" or "flag --x" """
    model: object | None
    """``ModelSpec`` or None"""
    model_source: str
    gpu: object | None
    """``GpuSpec`` or None"""
    gpu_source: str
    contradictions: tuple[Contradiction, ...]
    notes: tuple[str, ...]

    forced_custom_allreduce: bool = False
    """the command line forces the custom all-reduce on where the engine would turn it off (a fork's env switch)"""
    gpu_inferred: object | None = None
    """``explain.gpuinfer.InferredTotal`` when no GPU is named: the device total the memory arithmetic bounds"""
    tp_inferred: object | None = None
    """``explain.tpinfer.TpInference`` when no tp is printed (vLLM): the tp sizes the log's numbers leave"""
    spec: object | None = None
    """vLLM: ``engines.vllm.speculative.SpecConfig`` of the run (the log's speculative config, else
    ``--speculative-config``), read by the plan's own parser; None without speculative decoding"""
    spec_source: str = ""
    """where ``spec`` comes from (log line and record, or the flag)"""
    spec_missing: str | None = None
    """vLLM: the log shows speculative decoding ran but prints no speculative config (what is missing, in words)"""
    links: object | None = None
    """``tpkit.startup.links.LinkChoice`` of what the log prints about the TP group's links (no GPU P2P, no NVLink
    mesh, hosts spanned: ``tpkit.logs.links``), for a re-plan; None when it prints nothing about them"""

    @property
    def rules_version(self) -> str | None:
        """The release whose rules apply: the newest end of ``version`` (a range such as "0.4.6–0.5.3" gives
        0.5.3, the newest release consistent with the log's line formats; a bare release gives itself).  Text in
        parentheses (releases ruled out) and a PEP 440 local label ("+…") are ignored (``logs.engine.releases_in``,
        the one reader of a version text)."""
        found = releases_in(self.version)
        return found[-1] if found else None

    def get(self, name: str, default=None):
        value = self.values.get(name)
        return default if value is None else value


def _same(a, b) -> bool:
    try:
        return abs(float(a) - float(b)) < 1e-9
    except (TypeError, ValueError):
        return str(a).strip().lower() == str(b).strip().lower()


def _load_model(name: str):
    from tpkit.models import load_model

    return load_model(name)


def _resolve_model(parsed: ParsedLog, flags: dict, notes: list) -> tuple[object | None, str]:
    given = flags.get("model")
    if given:
        return _load_model(given), f"--model {given}"  # a bad --model is the user's error (exit 2)
    logged = parsed.run.value("model")
    if logged:
        try:
            return _load_model(str(logged)), f"the log's model path {logged!r}"
        except TpkitError:
            found = _by_path_tail(str(logged), notes)
            if found is not None:
                return found
            notes.append(f"the log's model {logged!r} is not on this machine nor in the catalog: pass --model "
                         "(an HF id, a model dir or a config.json) to get the KV cell size")
        except READ_FAILED as exc:  # a log path must never crash the explanation
            notes.append(f"the log's model {logged!r} could not be read ({type(exc).__name__})")
    return None, "unknown"


def _by_path_tail(logged: str, notes: list) -> tuple[object, str] | None:
    """The model a path from another machine names by its last components: ``/data/models/Qwen/Qwen3-8B`` →
    ``Qwen/Qwen3-8B`` (then ``Qwen3-8B``), looked up in this machine's HF cache and the embedded catalog.  Used only
    when the whole path is not here; a note says the match is by name (a fine-tune saved under its base model's
    name would be read as the base model), and ``--model`` overrides it."""
    from tpkit.models.catalog import find_entry

    parts = [p for p in logged.replace("\\", "/").rstrip("/").split("/") if p]
    if len(parts) < 2 and not logged.startswith(("/", "~", ".")):
        return None  # an HF id or a bare name: load_model has already looked it up as such
    for tail in _path_tails(parts):
        try:
            model = _load_model(tail)
        except READ_FAILED:  # TpkitError included: the name is neither cached nor in the catalog
            continue
        entry = find_entry(tail)
        where = f"the catalog's {entry.id}" if entry is not None else f"{tail!r} in this machine's HF cache"
        notes.append(f"the log's model path {logged!r} is not on this machine; its name {tail!r} is {where}: "
                     "used, by name (pass --model if the run served a fine-tune or another build)")
        return model, f"the log's model path {logged!r}, by its name {tail!r}"
    return None


def _path_tails(parts: list[str]) -> list[str]:
    """The names a path's last components may be, in the order tried: the last two, then the last.

    Two download layouts are read back to the repo id they were written from:
    - the HF hub cache ``…/models--{org}--{name}/snapshots/{revision}``: the repo folder is
      ``huggingface_hub.file_download.repo_folder_name`` ("models" + "--".join of the id; read in
      huggingface_hub 2.4.0), so a path ending in a snapshot reads as that folder, and ``models--org--name`` as
      ``org/name``;
    - ModelScope's masked directory: ``modelscope.hub.utils.utils.get_model_masked_directory`` (read in
      modelscope 1.40.2) stores ``Qwen/Qwen3-0.6B`` as ``Qwen/Qwen3-0___6B``, so a name with ``___`` is also tried
      with ``.`` (after the name as written)."""
    folders = [i for i, p in enumerate(parts) if p.startswith("models--")]
    if folders and parts[folders[-1] + 1:folders[-1] + 2] == ["snapshots"]:
        parts = parts[:folders[-1] + 1]  # a snapshot of an HF-cache repo folder: the folder names the repo
    tails = ["/".join(parts[-2:]), parts[-1]] if len(parts) >= 2 else [parts[-1]]
    out = []
    for tail in tails:
        if tail.startswith("models--"):  # an HF-cache folder name: models--org--name
            tail = tail[len("models--"):].replace("--", "/", 1)
        out.append(tail)
        if "___" in tail:
            out.append(tail.replace("___", "."))
    return list(dict.fromkeys(out))


def _flag_gpu_below_the_log(parsed: ParsedLog, values: dict, flags: dict, gpu, contradictions: list,
                            notes: list):
    """The GPU of ``--gpu``/``--gpu-memory``, or None when its total is below what the SGLang log shows was free
    (``explain.gpuinfer``: free memory plus what the process held is a firm lower bound on the device total, print
    rounding included): such a flag contradicts the log, is reported, and the log's arithmetic picks the GPU."""
    from tpkit.explain.gpuinfer import infer_sglang_total

    bound = infer_sglang_total(parsed, int(values.get("tp") or 1))
    if bound is None or gpu.total_bytes >= bound.low:
        return gpu
    flag = "gpu_memory" if flags.get("gpu_memory") else "gpu"
    contradictions.append(Contradiction(
        flag=flag, given=flags[flag],
        logged=f"device total ≥ {bound.low.gib:.2f} GiB, more than "
               + (f"{gpu.name}'s {gpu.total_bytes.gib:.2f} GiB" if flag == "gpu" else
                  f"the {gpu.total_bytes.gib:.2f} GiB given"),
        source=bound.evidence[0].partition(" from ")[2]))
    return None


def _resolve_gpu(parsed: ParsedLog, flags: dict, notes: list) -> tuple[object | None, str]:
    from tpkit.hardware.catalog import custom_gpu, lookup_gpu
    from tpkit.units import parse_bytes

    if flags.get("gpu_memory"):
        total = parse_bytes(flags["gpu_memory"], what="--gpu-memory")
        return custom_gpu(total, name=flags.get("gpu") or "custom"), f"--gpu-memory {flags['gpu_memory']}"
    if flags.get("gpu"):
        return lookup_gpu(flags["gpu"]), f"--gpu {flags['gpu']}"
    run = parsed.run
    if run.gpu is not None:
        try:
            return lookup_gpu(str(run.gpu.value)), f"printed GPU name (line {run.gpu.line_no})"
        except TpkitError:
            notes.append(f"the printed GPU {run.gpu.value!r} is not in the catalog")
    if run.gpu_total is not None:
        if len(run.gpu_candidates) == 1:
            return lookup_gpu(run.gpu_candidates[0]), f"the only catalog GPU whose total prints as {run.gpu_total.text}"
        return (custom_gpu(run.gpu_total.value, name="GPU of the log", source=f"printed total {run.gpu_total.text}"),
                f"printed device total {run.gpu_total.text}")
    return None, "unknown"


def _engine_from_failures(parsed: ParsedLog) -> str | None:
    """An error message that names one engine's flag (SGLang's --mem-fraction-static, vLLM's gpu_memory_utilization)."""
    from tpkit.logs.failures import KIND_ENGINE

    for f in parsed.failures:
        if f.kind in KIND_ENGINE:
            return KIND_ENGINE[f.kind]
        text = f.evidence
        if "mem-fraction-static" in text or "mem_fraction_static" in text:
            return "sglang"
        if "gpu_memory_utilization" in text or "gpu-memory-utilization" in text:
            return "vllm"
    return None


TP_CANDIDATES = (1, 2, 4, 8)
"""tensor-parallel sizes tried when a log does not say which one ran"""


def tp_default_evidence(parsed: ParsedLog) -> str | None:
    """Why a log that prints no TP size ran at the engines' default of 1, or None when it cannot tell.

    - a launch record that lists the settings and names no TP size: vLLM's ``non-default args`` dict
      (``vllm/entrypoints/utils.py log_non_default_args``, every argument that differs from its default) or a
      printed ``vllm serve`` / ``sglang.launch_server`` command line (``--tensor-parallel-size`` /
      ``--tp-size`` default 1 in both engines);
    - vLLM V1's "Available KV cache memory" printed by the engine-core process itself: the worker ran inside it,
      which is the uni-process executor, and vLLM picks that only for a world size (tp × pp) of 1
      (``vllm/config/parallel.py ParallelConfig.__post_init__``: world_size > 1 defaults to "mp" or "ray",
      whose workers print as ``Worker_TP…`` / ``VllmWorker rank=…``; ≥ 0.10 prefixes, read in 0.11.0).

    Not when a process names a TP rank above 0, or is a vLLM ``Worker_TP…`` (that suffix is added only when
    tp > 1, ``v1/executor/multiproc_executor.py setup_proc_title_and_log_prefix``): the command shown is then not
    the one that ran."""
    if any((r.tp or 0) > 0 or (r.worker_rank or 0) > 0 or "_TP" in r.label for r in parsed.ranks):
        return None
    sources = {s.source for s in parsed.settings}
    if "non_default_args" in sources:
        return "not in vLLM's non-default args: the default tp 1"
    if "command_line" in sources:
        return "the printed launch command sets no TP size: the default tp 1"
    if any(a.name == "available_kv" and a.rank.role == "engine" for a in parsed.anchors):
        return "the worker printed from the engine-core process (vLLM's uni-process executor: tp × pp = 1)"
    return None


def build_context(parsed: ParsedLog, flags: dict | None = None, *, forced_custom_allreduce: bool = False,
                  text_settings: dict | None = None, raw: bytes | None = None) -> Context:
    """The run from the log, gaps filled by ``flags`` (argparse dests → values; None = not given).
    ``text_settings`` (``result.free_form_settings``): settings the log states outside a recognised dump; they
    count as the log's own values where the reader found none.  ``raw``: the log's text, for the tp bounds of
    ``explain.tpinfer.tp_hints`` (world size, NCCL nranks, CUDA_VISIBLE_DEVICES)."""
    flags = {k: v for k, v in (flags or {}).items() if v is not None}
    run = parsed.run
    contradictions, notes = [], []
    values, sources = _logged_values(run, text_settings)
    _apply_flags(flags, values, sources, contradictions)
    _prefix_caching_flag(flags, values, sources, contradictions)
    if "tp" not in values:
        _tp_from_ranks(parsed, values, sources, notes, _sglang_tag_era(parsed.engine.version, values.get("log_date")))
    if "tp" not in values:
        why = tp_default_evidence(parsed)
        if why:
            values["tp"], sources["tp"] = 1, why
    engine, version = _engine_and_version(parsed, flags, contradictions, notes)
    model, model_source = _resolve_model(parsed, flags, notes)
    _tp_divides_heads(model, values, sources)
    spec = spec_source = spec_missing = None
    if engine == "vllm" or (engine is None and flags.get("speculative_config") is not None):
        from tpkit.explain.vspec import vllm_speculative

        spec, spec_source, spec_missing = vllm_speculative(parsed, flags, values, sources, contradictions, notes, raw)
    elif flags.get("speculative_config") is not None:
        notes.append(f"--speculative-config is vLLM's flag and this is a {engine} log: it is not used (SGLang's "
                     "drafter comes from --speculative-algorithm / --speculative-draft-model-path)")
    tp_inferred = None
    if "tp" not in values and engine == "vllm":
        tp_inferred = _tp_from_numbers(parsed, model, values, sources, raw, spec)
    gpu, gpu_source = _resolve_gpu(parsed, flags, notes)
    inferred = None
    if engine == "sglang":
        gpu, gpu_source, inferred = _sglang_gpu(parsed, values, flags, gpu, gpu_source, contradictions, notes)
    links = _links_from_log(raw, values, notes)
    if engine == "vllm":
        notes += _compile_cache_note(values, sources, version)
        notes += _runner_note(values, sources)
    if run.gpu_total is not None and gpu is not None and not run.gpu_total.contains(gpu.total_bytes,
                                                                                   slack=gpu.total_bytes * 0.002):
        notes.append(f"the log prints a device total of {run.gpu_total.text}, {gpu.name} has "
                     f"{gpu.total_bytes.gib:.2f} GiB: the printed total is used where the engine reads it")
    return Context(engine=engine, version=version, values=values, sources=sources, model=model,
                   model_source=model_source, gpu=gpu, gpu_source=gpu_source, contradictions=tuple(contradictions),
                   notes=tuple(notes), forced_custom_allreduce=forced_custom_allreduce, gpu_inferred=inferred,
                   tp_inferred=tp_inferred, spec=spec, spec_source=spec_source or "", spec_missing=spec_missing,
                   links=links)



_LOGGED = ("tp", "pp", "dp", "ep", "mem_fraction", "context_length", "kv_cache_dtype", "page_size",
           "quantization", "cuda_graph_max_bs", "max_total_tokens", "max_running_requests",
           "chunked_prefill_size", "max_num_batched_tokens", "cuda_graph_disabled",
           "disable_custom_all_reduce", "speculative", "dtype", "enable_dp_attention", "disable_radix_cache",
           "disable_overlap_schedule", "swa_full_tokens_ratio", "topk_topp_sampler", "skip_mm_profiling",
           "compile_cache", "cpu_offload_gb", "limit_mm_per_prompt", "async_scheduling", "vllm_use_v2_model_runner",
           "language_model_only")
"""the run settings ``build_context`` takes from the reader's ``RunSettings`` (in this order)"""


def _logged_values(run, text_settings: dict | None) -> tuple[dict, dict]:
    """(values, sources) the log states: the reader's run settings, then the free-form ``text_settings`` where the
    reader found none."""
    values, sources = {}, {}
    for name in _LOGGED:
        setting = getattr(run, name, None)
        if setting is not None and setting.value is not None:
            values[name] = setting.value
            sources[name] = f"log line {setting.line_no} ({setting.source})"
    for name, found in (text_settings or {}).items():
        if isinstance(found, tuple) and name not in values:
            values[name] = found[0]
            sources[name] = f"log line {(text_settings or {}).get(name + '_line', '?')} ({found[1]})"
    return values, sources


def _apply_flags(flags: dict, values: dict, sources: dict, contradictions: list) -> None:
    """The flags of ``FLAG_SETTINGS`` fill what the log leaves open; one that differs from the log's value is a
    contradiction (the log's value stays)."""
    for flag, name in FLAG_SETTINGS.items():
        if flag not in flags:
            continue
        given = flags[flag]
        if name in values:
            if not (same_quantization(values[name], given) if name == "quantization" else _same(values[name], given)):
                contradictions.append(Contradiction(flag=flag, given=given, logged=values[name], source=sources[name]))
        else:
            values[name], sources[name] = given, f"flag --{flag.replace('_', '-')}"


def _engine_and_version(parsed: ParsedLog, flags: dict, contradictions: list, notes: list):
    """(engine, release) of the run: the reader's, else the engine an error message's wording names; --engine
    fills a gap (a different one is a contradiction); --engine-version replaces a release range inferred from the
    line formats or fills a missing one."""
    engine, version = parsed.engine.engine, parsed.engine.version
    if engine is None:
        engine = _engine_from_failures(parsed)
        if engine:
            notes.append(f"engine {engine}: inferred from the wording of its error message")
    if flags.get("engine"):
        if engine and flags["engine"] != engine:
            contradictions.append(Contradiction(flag="engine", given=flags["engine"], logged=engine,
                                                source="; ".join(e.text for e in parsed.engine.evidence[:1])
                                                if getattr(parsed.engine, "evidence", None) else "the log"))
        engine = engine or flags["engine"]
    if flags.get("engine_version") and flags["engine_version"] != "current" and (
            not version or not parsed.engine.version_printed):
        if version:
            notes.append(f"--engine-version {flags['engine_version']} replaces the release range {version} inferred "
                         "from the line formats")
        version = flags["engine_version"]
    return engine, version


def _sglang_gpu(parsed: ParsedLog, values: dict, flags: dict, gpu, gpu_source: str, contradictions: list,
                notes: list):
    """(GPU, source, inference) of an SGLang run: a --gpu / --gpu-memory below what the log shows is dropped
    (``_flag_gpu_below_the_log``); without a GPU, the only catalog GPU whose total fits the memory arithmetic
    (``explain.gpuinfer.infer_sglang_total``; the inference is returned either way, None when not tried)."""
    inferred = None
    if gpu is not None and gpu_source.startswith(("--gpu ", "--gpu-memory ")):
        gpu = _flag_gpu_below_the_log(parsed, values, flags, gpu, contradictions, notes)
        if gpu is None:
            gpu_source = ""
    if gpu is None:
        from tpkit.explain.gpuinfer import infer_sglang_total
        from tpkit.hardware.catalog import lookup_gpu

        inferred = infer_sglang_total(parsed, int(values.get("tp") or 1))
        if inferred is not None and len(inferred.candidates) == 1:
            gpu = lookup_gpu(inferred.candidates[0])
            gpu_source = (f"inferred: the only catalog GPU whose total lies in {inferred.low.gib:.2f}–"
                          f"{inferred.high.gib:.2f} GiB, the memory arithmetic's bounds (no GPU name printed)")
    return gpu, gpu_source, inferred

def _prefix_caching_flag(flags: dict, values: dict, sources: dict, contradictions: list) -> None:
    """``--enable-prefix-caching`` / ``--no-enable-prefix-caching`` (the vLLM option, ``engines.vllm.options``):
    the log's own statement (``result.free_form_settings``: the flag in a printed command, or
    ``enable_prefix_caching`` in the non-default args) wins and a different flag is a contradiction; otherwise the
    flag sets it.  It decides how many state pages a hybrid's mamba groups hold per request ('none' / 'align',
    ``engines.vllm.mamba``; ``explain.vtokens`` reads it)."""
    if flags.get("enable_prefix_caching") is None:
        return
    given = bool(flags["enable_prefix_caching"])
    if "enable_prefix_caching" in values:
        if bool(values["enable_prefix_caching"]) != given:
            contradictions.append(Contradiction(flag="enable_prefix_caching", given=given,
                                                logged=values["enable_prefix_caching"],
                                                source=sources["enable_prefix_caching"]))
        return
    values["enable_prefix_caching"] = given
    sources["enable_prefix_caching"] = "flag --" + ("" if given else "no-") + "enable-prefix-caching"


def _runner_note(values: dict, sources: dict) -> list[str]:
    """The model runner the log shows (``logs.settings.runner_settings``): Model Runner V2 or the V1 runner, which
    a plan of the run takes (``tpkit plan --from-log`` fills ``--vllm-use-v2-model-runner``)."""
    runner = values.get("vllm_use_v2_model_runner")
    if runner is None:
        return []
    where = sources.get("vllm_use_v2_model_runner", "").replace(" (log_line)", "")
    name = "Model Runner V2 (v1/worker/gpu/)" if str(runner) == "1" else "the V1 runner (gpu_model_runner.py)"
    return [f"model runner: {name} ({where}); a plan of this run takes --vllm-use-v2-model-runner {runner} "
            "(tpkit plan --from-log reads it)"]


def _compile_cache_note(values: dict, sources: dict, version: str | None) -> list[str]:
    """What the log shows of vLLM's torch.compile cache (``logs.settings._COMPILE_CACHE_LINES``), and what a plan of
    the run does with it: runs of 0.26-0.32 with torch.compile on (either model runner) charge a cold compile's scratch
    (``engines.vllm.profile``, "cold compile scratch"; ``tpkit plan --compile-cache``).  Unknown is said only for a
    release with that phase (or an unknown release)."""
    state = values.get("compile_cache")
    where = sources.get("compile_cache", "").replace(" (log_line)", "")
    if state == "warm":
        return [f"torch.compile cache: warm, the compiled graphs were loaded from vLLM's cache ({where}); on a vLLM "
                "0.26-0.32 run with torch.compile a plan then drops the cold-compile scratch phase (--compile-cache "
                "warm; tpkit plan --from-log takes the log's state)"]
    if state == "cold":
        return [f"torch.compile cache: cold, this run compiled its graphs ({where}); on a vLLM 0.26-0.32 Model "
                "Runner V2 run or a 0.17-0.32 V1-runner run a plan charges the cold-compile scratch phase for it (--compile-cache cold, the "
                "default)"]
    if values.get("cuda_graph_disabled") is True:
        return []  # --enforce-eager: no torch.compile
    from tpkit.engines.vllm.versions import resolve_rules

    found = releases_in(version)
    try:
        rules = resolve_rules(found[-1]) if found else None
        applies = rules is None or rules.v2_vocab_hidden_peak or rules.v1_vocab_hidden_peak
    except TpkitError:
        applies = False
    if not applies:
        return []
    return ["torch.compile cache: unknown, the log shows no 'Compiling a graph' / 'Cache the graph' (cold) or "
            "'Directly load the compiled graph(s)' (warm) line; a plan assumes a first start (--compile-cache cold) "
            "unless told --compile-cache warm"]


_LINK_NEEDLES = (b"is disabled because", b"Custom collectives are disabled")


def _links_from_log(raw: bytes | None, values: dict, notes: list):
    """The ``LinkChoice`` the log's own lines give (``tpkit.logs.links``): 'lacks GPU P2P' → ``--no-p2p``,
    'more than two PCIe-only GPUs' → ``--link pcie``, 'spans across nodes' → ``--nnodes N`` (the TP group spread
    over N hosts); None when the log says nothing about the links."""
    if not raw or not any(n in raw for n in _LINK_NEEDLES):
        return None
    from tpkit.logs.links import read_link_signs
    from tpkit.startup.links import LinkChoice

    tp = values.get("tp")
    tp = int(tp) if isinstance(tp, (int, float)) and not isinstance(tp, bool) and tp >= 1 else None
    signs = read_link_signs(raw.decode("utf-8", "replace"), tp=tp)
    if signs is None:
        return None
    said = [s for s in (signs.no_p2p, signs.pcie, signs.nodes) if s is not None]
    source = "; ".join(f"log line {line}: '{text}'" for line, text in said)
    nodes = signs.num_nodes if signs.nodes else 1
    per = max(1, -(-(tp or 1) // nodes)) if nodes > 1 else None
    if per is not None and tp and per >= tp:
        per = max(1, tp - 1)
    choice = LinkChoice(link="pcie" if signs.pcie and not signs.no_p2p else None,
                        p2p=False if signs.no_p2p else None, nnodes=nodes, gpus_per_node=per, source=source)
    notes.append(f"links from the log: {choice.flags()} ({source}"
                 + (f"; {signs.num_nodes} nodes: {signs.nodes_how}" if signs.nodes else "")
                 + "): a re-plan (tpkit plan --from-log) charges the NCCL row and the custom all-reduce for them")
    return choice


def _tp_from_numbers(parsed: ParsedLog, model, values: dict, sources: dict, raw: bytes | None, spec=None):
    """vLLM: the tp from the log's text bounds and its 'Model loading took' (``explain.tpinfer``; with a
    speculative drafter, its weights too: ``explain.vspec.with_drafter``); set when exactly one of ``TP_CANDIDATES`` survives.
    Returns the ``TpInference`` (None when nothing bears on it)."""
    from tpkit.explain.tpinfer import infer_tp, predicted_weights, tp_hints
    from tpkit.explain.vspec import with_drafter

    hints = tp_hints(raw or b"", pp=values.get("pp"), dp=values.get("dp"))
    w = [a for a in parsed.anchors if a.name == "weights" and a.size is not None and a.group is None]
    weights = None
    if w:
        top = max(w, key=lambda a: a.size.value.bytes)  # the limiting rank's load (ranks of one tp print alike)
        weights = (top.size, top.line_no)
    try:
        found = infer_tp(model=model, weights=weights, hints=hints, candidates=TP_CANDIDATES,
                         pp=int(values.get("pp") or 1), dtype=values.get("dtype"),
                         quantization=values.get("quantization"),
                         predict=with_drafter(spec) if spec is not None and spec.has_drafter else predicted_weights)
    except REFUSED:  # a config the planner cannot size leaves the tp unknown
        return None
    if found is not None and found.tp is not None:
        values["tp"], sources["tp"] = found.tp, found.text()
    return found


def _tp_divides_heads(model, values: dict, sources: dict) -> None:
    """A tp read off the rank prefixes is a lower bound (a rank the excerpt leaves out makes it larger); both
    engines require tp to divide the attention heads (SGLang and vLLM assert it when they build the model), so the
    bound is raised to the smallest tp that does ('TP0…TP5' of a 128-head model → 8)."""
    tp, heads = values.get("tp"), getattr(model, "num_attention_heads", None)
    if not tp or not heads or not sources.get("tp", "").startswith("inferred from the rank prefixes") or heads % tp == 0:
        return
    raised = next(t for t in range(tp, heads + 1) if heads % t == 0)
    sources["tp"] += (f"; raised from {tp} to {raised}, the smallest tp ≥ {tp} that divides the model's {heads} "
                      "attention heads (the engines require it)")
    values["tp"] = raised


SGLANG_TP_TAG_ONLY_ABOVE_1 = (0, 4, 7)
"""From this SGLang release the scheduler's log prefix carries " TP{rank}" only when tp_size > 1; before it,
every run tags its lines " TP{rank}" (managers/scheduler.py run_scheduler_process: 0.4.6 unconditional, 0.4.7
``if server_args.tp_size > 1``; read in the 0.3.6, 0.4.0, 0.4.3, 0.4.6, 0.4.7–0.4.10 and 0.5.2 wheels)."""


def _sglang_tag_era(version: str | None, date: str | None) -> str | None:
    """"tags_every_run" (SGLang before 0.4.7), "tags_above_1" (0.4.7 and later) or None (the log's releases,
    capped by its date (``versions.newest_by_date``), straddle 0.4.7 or are unknown)."""
    from tpkit.engines.sglang.versions import newest_by_date

    found = releases_in(version)
    if not found:
        return None
    releases = sorted(tuple(int(x) for x in v.split(".")) for v in found)
    oldest, newest = releases[0], releases[-1]
    capped, _ = newest_by_date(".".join(map(str, newest)), date)
    newest = min(newest, tuple(int(x) for x in re.findall(r"\d+", capped)))
    if oldest >= SGLANG_TP_TAG_ONLY_ABOVE_1:
        return "tags_above_1"
    if newest < SGLANG_TP_TAG_ONLY_ABOVE_1:
        return "tags_every_run"
    return None


def _tp_from_ranks(parsed: ParsedLog, values: dict, sources: dict, notes: list, era: str | None = None) -> None:
    """tp from the rank prefixes when no dump or flag prints it: the highest TP index + 1 ('TP0' … 'TP7' → 8).
    A rank the excerpt leaves out would make it larger.  Rank 0 alone pins tp only where the engine tags every
    run: SGLang before 0.4.7 (tp 1, stated as assumed: an excerpt of rank 0 looks the same).  SGLang from 0.4.7
    tags lines only when tp > 1 (``SGLANG_TP_TAG_ONLY_ABOVE_1``), so there a log without any TP tag ran tp 1 and
    a 'TP0' tag means tp ≥ 2; vLLM names a 'Worker_TP0' process only when tp > 1 (multiproc_executor.py
    setup_proc_title_and_log_prefix)."""
    seen = sorted({r.tp for r in parsed.ranks if r.role == "worker" and r.tp is not None})
    sglang = parsed.engine.engine == "sglang"
    tags_only_above_1 = sglang and era == "tags_above_1"
    if not seen:
        if tags_only_above_1:
            values["tp"] = 1
            sources["tp"] = ("no TP tag on any line: SGLang ≥ 0.4.7 tags its scheduler lines ' TPn' only when "
                             "tp > 1 (managers/scheduler.py)")
        elif sglang:
            notes.append("tp: not printed and no TP rank prefix in the log: 1 assumed")
        return
    if seen[-1] == 0:
        if sglang and era == "tags_every_run":
            values["tp"] = 1
            sources["tp"] = ("assumed from the rank prefix TP0 alone: SGLang before 0.4.7 tags every run ' TP0', "
                             "so a tp-1 log shows only TP0 (an excerpt of rank 0 of a larger tp would look the same)")
        else:
            notes.append("tp: not printed; the log shows rank TP0 only, which a tp > 1 run prints too "
                         "(pass --tp)")
        return
    values["tp"] = seen[-1] + 1
    shown = f"TP{seen[0]}" if len(seen) == 1 else f"TP{seen[0]}…TP{seen[-1]} ({len(seen)} ranks)"
    sources["tp"] = (f"inferred from the rank prefixes {shown}: not printed; a rank missing from the log would make "
                     "it larger")
