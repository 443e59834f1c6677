"""The run an explanation works on: the log's settings, filled in (never overridden) by command-line flags.

A flag that fills a gap is used; a flag that contradicts the log is reported and the log's value is kept
(the log is what ran).  The model and the GPU are resolved to tpkit's specs when they can be: the log's
model path through ``tpkit.models.load_model`` (path, HF cache, catalog) or ``--model``; the GPU by its
printed name, ``--gpu``/``--gpu-memory``, or the catalog GPUs whose total prints as the log's total.

``build_context`` assembles the ``Context`` from its helpers: ``flagmerge`` (the log's values, flags merged in,
contradictions, engine and release), ``modelpath`` (the model, by path or by the path's name), ``runtp`` (the tp
when nothing prints it), ``runfacts`` (the GPU; links, compile-cache and model-runner notes) and ``vspec`` (vLLM's
speculative config).  The names other modules and tests import from here are re-exported.
"""

from __future__ import annotations

from tpkit.explain.contradiction import Contradiction
from tpkit.explain.flagmerge import (FLAG_SETTINGS, apply_flags, engine_and_version, logged_values,
                                     prefix_caching_flag)
from tpkit.explain.modelpath import resolve_model
from tpkit.explain.runfacts import compile_cache_note, links_from_log, resolve_gpu, runner_note, sglang_gpu
from tpkit.explain.runtp import (TP_CANDIDATES, sglang_tag_era, tag_era_basis, tp_divides_heads,
                                 tp_from_numbers, tp_from_process_names, tp_from_ranks,
                                 tp_default_evidence)
from tpkit.hardware.gpu import is_amd
from tpkit.logs import ParsedLog
from tpkit.logs.gpu_names import mig_slice_named
from tpkit.logs.engine import releases_in
from tpkit.records import dataclass
from tpkit.units import gib_text

__all__ = ["Context", "Contradiction", "build_context", "engine_release", "FLAG_SETTINGS", "TP_CANDIDATES",
           "tp_default_evidence"]


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
    printed_mig: str | None = None
    """the printed GPU name when it names a MIG slice (``logs.gpu_names.mig_slice_named``), else None"""
    host_shown: object | None = None
    """``explain.hostgpus.HostGpus``, what the log shows of its host's GPU count (None: nothing beyond one in use);
    not ``values["host_gpus"]``, the card models an nvidia-smi table or ``--host-gpus`` names"""
    links: object | None = None
    """``tpkit.startup.links.LinkChoice`` of what the log prints about the TP group's links (no GPU P2P, no NVLink
    mesh, hosts spanned: ``tpkit.logs.links``), for a re-plan; None when it prints nothing about them"""

    @property
    def rules_version(self) -> str | None:
        """The release whose rules apply: the newest end of ``version`` (a range such as "0.4.6–0.5.3" gives
        0.5.3, the newest release consistent with the log's line formats; a bare release gives itself).  Text in
        parentheses (releases ruled out) and a PEP 440 local label ("+…") are ignored (``logs.engine.releases_in``,
        the one reader of a version text).  A vLLM log whose line formats say V1 where that release's default engine
        is V0 (0.7.x, where V1 was opt-in and 'Initializing a V1 LLM engine' is printed from 0.7.1) gets ``:v1``, the
        planner's spelling of those rules (lead, session 38)."""
        found = releases_in(self.version)
        if not found:
            return None
        if "V1 engine" not in (self.version or ""):
            return found[-1]
        return engine_release(found[-1], self.engine, self.version, bool(self.get("vllm_v0_engine")))

    def get(self, name: str, default=None):
        value = self.values.get(name)
        return default if value is None else value


def engine_release(release: str, engine: str | None, version: str | None, v0_run: bool = False) -> str:
    """``release``, or ``release:v1`` for a vLLM log whose version text says V1 while the release's default engine
    is V0 (``engines.vllm.versions.resolve_rules``); never for a run read as V0 (``vllm_v0_engine``)."""
    if engine != "vllm" or v0_run or "V1 engine" not in (version or "") or ":" in release:
        return release
    from tpkit.engines.vllm.versions import resolve_rules
    from tpkit.errors import PlanInputError

    try:
        default_v0 = resolve_rules(release).engine == "V0"
    except PlanInputError:  # a release tpkit has no rules for: left as printed
        return release
    return f"{release}:v1" if default_v0 else release


def image_sampler_reading(raw: bytes | str, version: str | None, gpu, values: dict, sources: dict) -> None:
    """A vLLM log with no topk_topp_sampler line that shows the official image (``engines.vllm.versions.
    official_image_marker``: /vllm-workspace, vllm/vllm-openai) on a release that leaves the sampler to the install
    (0.8.0–0.11.0 V1): the sampler that image runs, FlashInfer (``engines.vllm.versions.image_sampler``; helper img16).
    Nothing without such a marker, outside that window, or where the release is unknown."""
    from tpkit.engines.vllm.versions import image_sampler, official_image_marker
    from tpkit.errors import PlanInputError

    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    marker = official_image_marker(text)
    found = releases_in(version) if marker else []
    if not found:
        return
    try:
        sampler = image_sampler(found[-1], getattr(gpu, "name", None))
    except PlanInputError:  # a release tpkit has no rules for
        return
    if sampler:
        values["topk_topp_sampler"] = sampler
        sources["topk_topp_sampler"] = (f"the official vLLM image ('{marker}' in the log): its docker/Dockerfile "
                                        f"installs FlashInfer for {found[-1]}, and no topk_topp_sampler line says "
                                        "otherwise")


def _tp_from_ranks_or_default(parsed: ParsedLog, values: dict, sources: dict, notes: list, raw: bytes | None) -> None:
    """Where the log's settings name no tp: the ranks its lines tag (``runtp.tp_from_ranks``, read in the SGLang tag
    era of its release or date), else 1 where the log shows a single-GPU run (``tp_default_evidence``)."""
    if "tp" not in values:
        formats = () if parsed.engine.version_printed else tuple(
            e.claim for e in parsed.engine.evidence if e.claim.startswith("format "))
        era = sglang_tag_era(parsed.engine.version, values.get("log_date"), formats)
        tp_from_ranks(parsed, values, sources, notes, era, raw, tag_era_basis(parsed.engine.version, formats))
    if "tp" not in values:
        why = tp_default_evidence(parsed)
        if why:
            values["tp"], sources["tp"] = 1, why


def _vllm_run_facts(parsed: ParsedLog, raw: bytes | None, version, gpu, values: dict, sources: dict) -> list[str]:
    """A vLLM log's run facts beyond its settings, into ``values`` / ``sources``: the V0 engine of a 0.8–0.10 release
    (read by its rules, ``vtokens.log_rules``), the official image's sampler; → the notes on the compile cache and
    the model runner."""
    from tpkit.explain.runfacts import v0_formats

    if v0_formats(parsed, version):
        values["vllm_v0_engine"] = True
        sources["vllm_v0_engine"] = "the log's line formats: V0's and none of V1's (explain.runfacts.v0_formats)"
    if raw is not None and "topk_topp_sampler" not in values and not values.get("vllm_v0_engine"):
        image_sampler_reading(raw, version, gpu, values, sources)
    return compile_cache_note(values, sources, version) + runner_note(values, sources)


def build_context(parsed: ParsedLog, flags: dict | None = None, *, forced_custom_allreduce: bool = False,
                  text_settings: dict | None = None, raw: bytes | None = None) -> Context:
    """The run from the log, gaps filled by ``flags`` (argparse dests → values; None = not given).
    ``text_settings`` (``result.free_form_settings``): settings the log states outside a recognised dump; they
    count as the log's own values where the reader found none.  ``raw``: the log's text, for the tp bounds of
    ``explain.tpinfer.tp_hints`` (world size, NCCL nranks, CUDA_VISIBLE_DEVICES)."""
    flags = {k: v for k, v in (flags or {}).items() if v is not None}
    run = parsed.run
    contradictions, notes = [], []
    values, sources = logged_values(run, text_settings)
    apply_flags(flags, values, sources, contradictions)
    prefix_caching_flag(flags, values, sources, contradictions)
    _tp_from_ranks_or_default(parsed, values, sources, notes, raw)
    engine, version = engine_and_version(parsed, flags, contradictions, notes, values)
    model, model_source = resolve_model(parsed, flags, notes)
    tp_divides_heads(model, values, sources)
    spec = spec_source = spec_missing = None
    if engine == "vllm" or (engine is None and flags.get("speculative_config") is not None):
        from tpkit.explain.vspec import vllm_speculative

        spec, spec_source, spec_missing = vllm_speculative(parsed, flags, values, sources, contradictions, notes, raw)
    elif flags.get("speculative_config") is not None:
        notes.append(f"--speculative-config is vLLM's flag and this is a {engine} log: it is not used (SGLang's "
                     "drafter comes from --speculative-algorithm / --speculative-draft-model-path)")
    tp_inferred = None
    if "tp" not in values and engine == "vllm":
        tp_inferred = tp_from_numbers(parsed, model, values, sources, raw, spec)
    if "tp" not in values and engine == "vllm":
        tp_from_process_names(raw, values, sources, notes)
        tp_divides_heads(model, values, sources)
    gpu, gpu_source = resolve_gpu(parsed, flags, notes)
    inferred = None
    if engine == "sglang":
        gpu, gpu_source, inferred = sglang_gpu(parsed, values, flags, gpu, gpu_source, contradictions, notes)
    links = links_from_log(raw, values, notes)
    host = None
    if engine == "vllm":
        notes += _vllm_run_facts(parsed, raw, version, gpu, values, sources)
    if engine in ("vllm", "sglang"):
        from tpkit.explain.hostgpus import host_gpus_shown, run_layout  # cr35b / fx35b / fx36 / fx37: host GPUs
        host = host_gpus_shown(raw, gpu, *run_layout(values, engine, raw))
    if run.gpu_total is not None and gpu is not None and not run.gpu_total.contains(gpu.total_bytes,
                                                                                   slack=gpu.total_bytes * 0.002):
        notes.append(f"the log prints a device total of {run.gpu_total.text}, {gpu.name} has "
                     f"{gib_text(gpu.total_bytes)}: the printed total is used where the engine reads it")
    return Context(engine=engine, version=version, values=values, sources=sources, model=model,
                   model_source=model_source, gpu=gpu, gpu_source=gpu_source, contradictions=tuple(contradictions),
                   notes=tuple(notes), forced_custom_allreduce=forced_custom_allreduce, gpu_inferred=inferred,
                   tp_inferred=tp_inferred, spec=spec, spec_source=spec_source or "", spec_missing=spec_missing,
                   links=links, printed_mig=mig_slice_named(parsed), host_shown=host)


def is_rocm(ctx: Context) -> bool:
    """Whether the log's GPU (printed, or the --gpu flag) is an AMD one: the platform sign the rules read
    (``explain.sgrocm``; the rank spread of ``startup.rankspread.PLATFORM_STATS``)."""
    return ctx.gpu is not None and is_amd(getattr(ctx.gpu, "vendor", None))
