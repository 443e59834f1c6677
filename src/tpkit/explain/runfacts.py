"""The GPU of an explained run and the notes on what its log shows of the links, the torch.compile cache and the
model runner (``explain.context``).

The GPU: ``--gpu-memory`` / ``--gpu``, else the printed GPU name, else the catalog GPUs whose total prints as the
log's total; for SGLang a flag GPU below what the log shows was free is a contradiction, and without a GPU the
memory arithmetic may leave one catalog GPU (``explain.gpuinfer``).  The links (``tpkit.logs.links``) become a
``LinkChoice`` for a re-plan; the compile-cache and runner notes say what ``tpkit plan --from-log`` takes from them.
"""

from __future__ import annotations

from tpkit.errors import TpkitError
from tpkit.explain.contradiction import Contradiction
from tpkit.logs import ParsedLog
from tpkit.logs.engine import releases_in
from tpkit.units import gib_text


def as_slice(gpu, printed: str | None):
    """``gpu`` (a GPU known by its total: ``--gpu-memory`` or the log's printed total) marked as the MIG slice the
    log names, so that no re-plan offers tp / pp / dp > 1 on it (``hardware.catalog.refuse_mig_layout``; helper nc19:
    a log of an RTX PRO 4500 Blackwell 1g.16gb slice, not in ``hardware/data/mig.json``, was offered
    --tensor-parallel-size 2).  The card it is cut from stays unknown (``mig_parent`` None): no larger slice is
    offered."""
    from tpkit.logs.gpu_names import mig_profile_of

    if printed is None or gpu is None or gpu.mig_profile is not None:
        return gpu
    from dataclasses import replace

    return replace(gpu, mig_profile=mig_profile_of(printed))


def unknown_slice_hint(printed: str, line_no: int | None = None) -> str:
    """What to pass for a MIG slice tpkit's MIG table does not hold."""
    where = f" (line {line_no})" if line_no else ""
    return (f"the printed GPU {printed!r}{where} is a MIG slice tpkit's MIG table does not hold "
            "(`tpkit plan --list-gpus` lists the slices it knows): pass the slice's CUDA total with --gpu-memory, the "
            "'Memory GiB' column of `nvidia-smi mig -lgip` for that profile (or torch's 'total capacity' of the "
            "slice), written with its unit (--gpu-memory 15.66GiB); tensor / pipeline parallelism across MIG instances "
            "is not supported, so no fix with more GPUs is offered")


def resolve_gpu(parsed: ParsedLog, flags: dict, notes: list) -> tuple[object | None, str]:
    """(the run's GPU, where it came from): ``--gpu-memory`` / ``--gpu``, else the printed name or device total."""
    from tpkit.hardware.catalog import custom_gpu, lookup_gpu
    from tpkit.units import parse_bytes

    from tpkit.logs.gpu_names import mig_slice_named

    run = parsed.run
    mig = mig_slice_named(parsed) if not flags.get("gpu") else None
    if flags.get("gpu_memory"):
        total = parse_bytes(flags["gpu_memory"], what="--gpu-memory")
        gpu = custom_gpu(total, name=flags.get("gpu") or mig or "custom")
        return as_slice(gpu, mig), f"--gpu-memory {flags['gpu_memory']}"
    if flags.get("gpu"):
        return lookup_gpu(flags["gpu"]), f"--gpu {flags['gpu']}"
    if run.gpu is not None:
        try:
            return lookup_gpu(str(run.gpu.value)), f"printed GPU name (line {run.gpu.line_no})"
        except TpkitError:
            if mig is None:
                notes.append(f"the printed GPU {run.gpu.value!r} is not in the catalog")
            else:
                notes.append(unknown_slice_hint(mig, run.gpu.line_no))
    if run.gpu_total is not None:
        if len(run.gpu_candidates) == 1 and mig is None:
            return lookup_gpu(run.gpu_candidates[0]), f"the only catalog GPU whose total prints as {run.gpu_total.text}"
        gpu = custom_gpu(run.gpu_total.value, name=mig or "GPU of the log", source=f"printed total {run.gpu_total.text}")
        return as_slice(gpu, mig), f"printed device total {run.gpu_total.text}"
    return None, "unknown"


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
        logged=f"device total ≥ {gib_text(bound.low)}, more than "
               + (f"{gpu.name}'s {gib_text(gpu.total_bytes)}" if flag == "gpu" else
                  f"the {gib_text(gpu.total_bytes)} given"),
        source=bound.evidence[0].partition(" from ")[2]))
    return None


def sglang_gpu(parsed: ParsedLog, values: dict, flags: dict, gpu, gpu_source: str, contradictions: list,
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
            gpu_source = (f"inferred: the only catalog GPU whose total lies in {gib_text(inferred.low, label='')}–"
                          f"{gib_text(inferred.high)}, the memory arithmetic's bounds (no GPU name printed)")
    return gpu, gpu_source, inferred


_LINK_NEEDLES = (b"is disabled because", b"Custom collectives are disabled")


def links_from_log(raw: bytes | None, values: dict, notes: list):
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


def runner_note(values: dict, sources: dict) -> list[str]:
    """The model runner the log shows (``logs.settings.runner_settings``): Model Runner V2 or the V1 runner, which
    a plan of the run takes (``tpkit plan --from-log`` fills ``--vllm-use-v2-model-runner``)."""
    runner = values.get("vllm_use_v2_model_runner")
    if runner is None:
        return []
    where = sources.get("vllm_use_v2_model_runner", "").replace(" (log_line)", "")
    name = "Model Runner V2 (v1/worker/gpu/)" if str(runner) == "1" else "the V1 runner (gpu_model_runner.py)"
    return [f"model runner: {name} ({where}); a plan of this run takes --vllm-use-v2-model-runner {runner} "
            "(tpkit plan --from-log reads it)"]


def compile_cache_note(values: dict, sources: dict, version: str | None) -> list[str]:
    """What the log shows of vLLM's torch.compile cache (``logs.settings._COMPILE_CACHE_LINES``), and what a plan of
    the run does with it: runs with torch.compile on of 0.22-0.32 (Model Runner V2) or 0.11.1-0.32 (the V1 runner,
    ``VllmRules.v1_vocab_hidden_peak``) charge a cold compile's scratch
    (``engines.vllm.profile``, "cold compile scratch"; ``tpkit plan --compile-cache``).  Unknown is said only for a
    release with that phase (or an unknown release)."""
    state = values.get("compile_cache")
    where = sources.get("compile_cache", "").replace(" (log_line)", "")
    if state == "warm":
        return [f"torch.compile cache: warm, the compiled graphs were loaded from vLLM's cache ({where}); on a vLLM "
                "0.22-0.32 Model Runner V2 or 0.11.1-0.32 V1-runner run with torch.compile a plan then drops the "
                "cold-compile scratch phase (--compile-cache warm; tpkit plan --from-log takes the log's state)"]
    if state == "cold":
        return [f"torch.compile cache: cold, this run compiled its graphs ({where}); on a vLLM 0.22-0.32 Model "
                "Runner V2 run or a 0.11.1-0.32 V1-runner run a plan charges the cold-compile scratch phase for it "
                "(--compile-cache cold, the default)"]
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


# vLLM's engine generation from the line formats (helper rt15, 2026-12-05): the V0 engine of a 0.8-0.10
# release (VLLM_USE_V1=0) is read and planned by the V0 rules (engines.vllm.versions: "<release>:v0")


def v0_or_v1_load_line(line: str) -> bool:
    """Whether a 'Model loading took' line may be V0's model runner's: four decimals and 'and'
    (``logs.settings.V0_LOAD``), as V0's ``worker/model_runner.py`` and the V1 runner print it in 0.8–0.10, without
    a ``[gpu_model_runner.py]`` tag that would name the V1 runner (a line whose tag the record splitter dropped tells
    neither)."""
    from tpkit.logs.settings import RUNNER_FILE, V0_LOAD

    m = RUNNER_FILE.search(line)
    return bool(V0_LOAD.search(line)) and not (m and m.group(1) == "gpu_model_runner")


def v0_formats(parsed, release: str | None) -> bool:
    """Whether a vLLM log's line formats show the V0 engine and none of V1's (``logs.engine``'s V0 formats: the V0
    worker's 'the current vLLM instance can use', V0's model runner, 'Initializing a V0 LLM engine'; V0's
    four-decimal 'Model loading took' tells neither engine: ``v0_or_v1_load_line``), in a release 0.8–0.10, where
    both engines ship and VLLM_USE_V1=0 runs V0: the log is read (``explain.vtokens.log_rules``) and planned
    (``cli.fromlog.v0_engine_release``) by the V0 rules, ``"<release>:v0"`` (``engines.vllm.versions``)."""
    if not parsed.engine or parsed.engine.engine_generation != "V0":
        return False
    if any(ev.claim.endswith("[V1]") and not v0_or_v1_load_line(ev.text) for ev in parsed.engine.evidence):
        return False
    found = releases_in(release)
    if not found:
        return False
    try:
        from tpkit.engines.vllm.versions import parse_version

        return (0, 8, 0) <= parse_version(found[-1]) < (0, 11, 0)
    except (TpkitError, ValueError):  # a release the rules cannot read
        return False
