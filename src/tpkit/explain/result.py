"""``explain_log``: a log in, the anchored ledger, the rebuilt capacity and the diagnosis out (pure, no torch)."""

from __future__ import annotations

import re

from tpkit.explain.context import Context, build_context
from tpkit.explain.diagnose import Diagnosis, release_fixes
from tpkit.explain.rows import Row
from tpkit.logs import ParsedLog, parse_log
from tpkit.records import dataclass

__all__ = ["Explanation", "explain_log", "explain_parsed", "SCHEMA"]

SCHEMA = "tpkit.explain/1"


@dataclass(frozen=True, kw_only=True, slots=True)
class Explanation:
    """One log explained: the parsed log, the run's context, the chosen rank, the anchored ledger rows, the KV tokens
    printed and rebuilt, and the diagnosis (``to_dict``: schema ``tpkit.explain/1``)."""
    parsed: ParsedLog
    context: Context
    rank: str
    rank_reason: str
    rows: tuple[Row, ...]
    kv_printed: int | None
    kv_predicted: int | None
    kv_predicted_range: tuple[int, int] | None
    kv_source: str
    """what the predicted token count rests on (the cell's source)"""
    anchored: object | None
    """SglangAnchored / VllmAnchored"""
    diagnosis: Diagnosis
    missing: tuple[str, ...]
    kv_predicted_alternatives: tuple[tuple[int, int], ...] = ()
    """where the log leaves the release open and its ends count the tokens by different rules: the range under each
    (``kv_predicted_range`` is their hull, no count between them is predicted); empty otherwise"""

    def to_dict(self) -> dict:
        ctx = self.context
        run = {k: v for k, v in ctx.values.items() if k != "speculative"}
        run["speculative"] = ctx.values.get("speculative")
        return {
            "schema": SCHEMA,
            "engine": ctx.engine, "engine_version": ctx.version,
            "engine_evidence": [{"claim": e.claim, "line_no": e.line_no} for e in self.parsed.engine.evidence][:6],
            "model": {"name": getattr(ctx.model, "name", None) or self.parsed.run.value("model"),
                      "source": ctx.model_source},
            "gpu": {"name": getattr(ctx.gpu, "name", None), "source": ctx.gpu_source,
                    "total_bytes": ctx.gpu.total_bytes.bytes if ctx.gpu is not None else None,
                    "inferred": None if ctx.gpu_inferred is None else ctx.gpu_inferred.to_dict()},
            "run": {"values": _jsonable(run), "sources": dict(ctx.sources),
                    "tp_inferred": None if ctx.tp_inferred is None else ctx.tp_inferred.to_dict(),
                    "speculative_config": None if ctx.spec is None else {
                        "method": ctx.spec.method, "model": ctx.spec.model,
                        "num_speculative_tokens": ctx.spec.num_speculative_tokens,
                        "draft_tensor_parallel_size": ctx.spec.draft_tensor_parallel_size,
                        "source": ctx.spec_source},
                    "speculative_missing": ctx.spec_missing},
            "rank": {"label": self.rank, "reason": self.rank_reason},
            "kv_tokens": {"printed": self.kv_printed, "predicted": self.kv_predicted,
                          "predicted_range": list(self.kv_predicted_range) if self.kv_predicted_range else None,
                          "predicted_alternatives": [list(r) for r in self.kv_predicted_alternatives] or None,
                          "source": self.kv_source},
            "ledger": [r.to_dict() for r in self.rows],
            "diagnosis": self.diagnosis.to_dict(),
            "contradictions": [c.to_dict() for c in ctx.contradictions],
            "notes": list(ctx.notes) + list(self.parsed.notes),
            "missing": list(self.missing),
        }


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def explain_log(data: bytes | str, *, rank: int | str | None = None, flags: dict | None = None) -> Explanation:
    """Read ``data`` (a log) and explain it; ``flags`` are ``tpkit plan`` flag dests that fill the log's gaps."""
    from tpkit.logs.text import strip_wrappers

    raw = data if isinstance(data, bytes) else str(data).encode("utf-8", "replace")
    given = raw[:1 << 20]
    raw = strip_wrappers(given)[0]  # a collector's line prefix, as the reader drops it (logs.text)
    settings = free_form_settings(raw)
    if raw is not given and "log_date" not in settings:  # `docker logs -t`: the collector's time stamps date it
        settings.update({k: v for k, v in free_form_settings(given).items() if k.startswith("log_date")})
    forced = _FORCED_CAR.search(raw) is not None
    return explain_parsed(parse_log(data), rank=rank, flags=flags, forced_custom_allreduce=forced,
                          text_settings=settings, raw=raw)


_FORCED_CAR = __import__("re").compile(rb"CUSTOM_A(?:LL)?_?R(?:EDUCE)?_ALLOW_PCIE=1|custom all-reduce forced on")
"""a command line that forces the custom all-reduce on over PCIe (a fork's switch; upstream has none)"""

_FREE_SETTINGS = (
    ("mem_fraction", float, __import__("re").compile(
        rb"(?<![\w-])(?:--)?(?:mem[_-]fraction[_-]static|gpu[_-]memory[_-]utilization)['\"]?\s*(?:=|:|\s)\s*"
        rb"([01](?:\.[0-9]+)?)(?![0-9]|\.[0-9])")),  # a sentence's full stop may follow
    ("tp", int, __import__("re").compile(
        rb"(?<![\w-])(?:tp_size|tensor_parallel_size|--tensor-parallel-size|--tp-size|--tp|-tp)['\"]?"
        rb"\s*(?:=|:|\s)\s*([0-9]{1,3})(?![0-9.])")),
)
"""settings written outside a recognised dump: 'server_args ... tp_size=4 ... mem_fraction_static=0.8 ...'
(a summary), a quoted launch command the reader did not take whole ('vllm serve M \\' continued over lines with
'--tensor-parallel-size 4 \\'; also --tp-size / --tp / -tp), 'self.server_args.mem_fraction_static 0.911' (a debug print), or the flag spelled in an engine
message: SGLang 0.5.23's 'Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.88'
(``mem_cache/kv_cache_configurator.py`` prints the value it ran with)"""


_DEEP_GEMM_HINT = b"compile_deep_gemm"
"""SGLang's DeepGEMM warning ends with a fixed example, `python3 -m sglang.compile_deep_gemm --model
deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code` (0.5.8.post1 ``layers/deep_gemm_wrapper/compile_utils.py``
``_maybe_compile_deep_gemm_one_type_all``): its flags are not the run's (helper gs26)"""


def _line_at(raw: bytes, pos: int) -> bytes:
    """The line of ``raw`` that holds byte ``pos``."""
    end = raw.find(b"\n", pos)
    return raw[raw.rfind(b"\n", 0, pos) + 1:len(raw) if end < 0 else end]


def free_form_settings(raw: bytes) -> dict:
    """Settings the log states in free-form text (setting name -> (value, source), and name + '_line'); used only
    where the reader found no value. The first statement counts."""
    out = {}
    for name, kind, pattern in _FREE_SETTINGS:
        m = next((m for m in pattern.finditer(raw) if _DEEP_GEMM_HINT not in _line_at(raw, m.start())), None)
        if m is None:
            continue
        value = kind(m.group(1))
        if (kind is float and 0.0 < value <= 1.0) or (kind is int and value >= 1):
            out[name] = (value, f"free-form text {m.group(0).decode('ascii', 'replace')!r}")
            out[name + "_line"] = raw.count(b"\n", 0, m.start()) + 1
    m = _KV_DTYPE_USED.search(raw) or _KV_DTYPE_DSA.search(raw)
    if m is not None:
        from tpkit.dtypes import lookup_dtype  # torch's name → the canonical --kv-cache-dtype spelling

        said = m.group(0).decode("ascii", "replace")
        out["kv_cache_dtype"] = (lookup_dtype(m.group(1).decode("ascii")).name, f"free-form text {said!r}")
        out["kv_cache_dtype_line"] = raw.count(b"\n", 0, m.start()) + 1
    m = _PREFIX_CACHING.search(raw)
    if m is not None:
        on = m.group(1) != b"no-" and m.group(2) != b"False"
        out["enable_prefix_caching"] = (on, f"free-form text {m.group(0).decode('ascii', 'replace')!r}")
        out["enable_prefix_caching_line"] = raw.count(b"\n", 0, m.start()) + 1
    m = _HAMI.search(raw)
    if m is not None:
        out["memory_virtualiser"] = ("HAMi", f"free-form text {m.group(0).decode('ascii', 'replace')!r}")
        out["memory_virtualiser_line"] = raw.count(b"\n", 0, m.start()) + 1
    cards = host_cards(raw)
    if cards is not None:
        out["host_gpus"], out["host_gpus_line"] = cards
    m = _TIMESTAMP.search(raw)
    if m is not None:
        out["log_date"] = (m.group(1).decode("ascii"), f"the first timestamp {m.group(0).decode('ascii')!r}")
        out["log_date_line"] = raw.count(b"\n", 0, m.start()) + 1
    return out


_PREFIX_CACHING = __import__("re").compile(
    rb"--(no-)?enable-prefix-caching\b|enable_prefix_caching['\"]?\s*[:=]\s*(True|False)\b")
_KV_DTYPE_USED = __import__("re").compile(rb"Using KV cache dtype: torch\.(float8_e4m3fn|float8_e5m2|bfloat16)\b")
"""the KV dtype SGLang resolved (``model_runner.py`` ``configure_kv_cache_dtype`` logs 'Using KV cache dtype:
torch.…' on rank 0, 0.5.x): the value the pool ran with, for logs whose ServerArgs dump is elided"""
_KV_DTYPE_DSA = __import__("re").compile(
    rb"Setting KV cache dtype to (fp8_e4m3|bfloat16) for DeepSeek (?:DSA on SM\d+ device|NSA)\.")
"""the KV dtype SGLang chose for a DeepSeek DSA (V3.2) model left at ``--kv-cache-dtype auto`` (the wheels: fp8_e4m3
on compute capability 10+, bfloat16 below; the line says which): ``server_args.py`` '… for DeepSeek NSA.' in
0.5.6–0.5.7, '… for DeepSeek DSA on SM{major} device.' in 0.5.8–0.5.13, the same text from
``arg_groups/overrides.py`` in 0.5.15–0.5.23 (its value returned as the run's kv_cache_dtype); none before 0.5.6.
Only the DSA line: V4's '… for DeepseekV4ForCausalLM.' is printed before the NPU override."""
_HAMI = re.compile(rb"\[HAMI-core\b|nvidia\.com/gpumem\b|\bHAMi\b")
"""the run sits in a HAMi slice: HAMi-core's own messages ('[HAMI-core Msg'), HAMi's memory resource
(nvidia.com/gpumem) or the project's name; its free memory leaves the stream pool out (``engines.sglang.streams``)"""
_TIMESTAMP = __import__("re").compile(rb"(20[0-9]{2}-[01][0-9]-[0-3][0-9])[ T][0-2][0-9]:[0-5][0-9]")
def host_cards(raw: bytes) -> tuple[tuple[str, str], int] | None:
    """(("A,B", why), line) when the log prints an nvidia-smi table naming several GPU models, all in the catalog:
    the cards SGLang's capacity query lists (``engines.sglang.defaults.host_capacity_mib``); None otherwise (no
    table, one model — the serving card's —, or a model tpkit does not know)."""
    from tpkit.logs.hostcount import nvidia_smi_rows

    rows = nvidia_smi_rows(raw)
    if len(rows) < 2:
        return None
    from tpkit.logs.gpu_names import gpu_in

    names = [gpu_in(m.group(2).decode("utf-8", "replace")) for m in rows]
    known = [n[1] for n in names if n is not None and n[1] is not None]
    if len(known) < 2 or len(known) != len(rows) or len(set(known)) < 2:
        return None
    printed = ", ".join(dict.fromkeys(repr(m.group(2).decode("utf-8", "replace").strip()) for m in rows))
    return ((",".join(dict.fromkeys(known)), f"nvidia-smi table, {len(rows)} cards: {printed}"),
            raw.count(b"\n", 0, rows[0].start()) + 1)


def _in_use(what: str, ctx: Context) -> str:
    """What the explanation uses in place of a setting the log does not print (a flag, an inference, an assumption),
    as a suffix to its 'missing' line; "" when it uses nothing.  The reader's 'missing' list is about the log; without
    this, ``--tp 2`` or an inferred tp would still read as missing."""
    if what == "model" and ctx.model is not None:
        return f"; in use: {getattr(ctx.model, 'name', None) or 'the model'} [{ctx.model_source}]"
    if what == "gpu" and ctx.gpu is not None:
        return f"; in use: {ctx.gpu.name} [{ctx.gpu_source}]"
    value = ctx.values.get(what)
    if value is None or what not in ("tp", "context_length"):
        return ""
    source = str(ctx.sources.get(what, ""))
    how = f"from the {source}" if source.startswith("flag") else f"{source.split(':', 1)[0]}, see 'run' above"
    return f"; in use: {what}={value} ({how})"


def _mig(diagnosis, ctx, anchored):
    """On a MIG slice, no fix with more GPUs (``explain.migfix``, imported only there): a slice the GPU is known as
    (the catalog's, or one ``--gpu-memory`` sized: ``explain.runfacts.as_slice``) gets ``mig_fixes``; a slice the log
    names whose GPU is unknown gets its wide fixes dropped (``drop_wide_fixes``)."""
    gpu = getattr(ctx, "gpu", None)
    if getattr(gpu, "mig_profile", None) is not None:
        from tpkit.explain.migfix import mig_fixes

        return mig_fixes(diagnosis, ctx, anchored)
    if gpu is None and getattr(ctx, "printed_mig", None):
        from tpkit.explain.migfix import drop_wide_fixes

        return drop_wide_fixes(diagnosis, ctx.printed_mig)
    return diagnosis


def _anchor(anchor, diagnose, parsed, view, ctx):
    """One engine's anchoring and diagnosis (``anchor_sglang`` / ``diagnose_sglang`` or the vLLM pair), with the MIG
    fixes: (anchored, diagnosis, rows, printed tokens, predicted token range)."""
    anchored = anchor(parsed, view, ctx)
    diagnosis = None
    if parsed.primary_failure is not None:  # a failure whose error the log never prints (imported only then)
        from tpkit.explain.unnamed import unnamed_diagnosis

        diagnosis = unnamed_diagnosis(parsed, ctx.engine)
    diagnosis = diagnosis or release_fixes(_mig(diagnose(parsed, anchored, ctx), ctx, anchored), ctx.engine,
                                           ctx.version)
    return anchored, diagnosis, anchored.rows, anchored.tokens_printed, anchored.tokens_predicted


def explain_parsed(parsed: ParsedLog, *, rank: int | str | None = None, flags: dict | None = None,
                   forced_custom_allreduce: bool = False, text_settings: dict | None = None,
                   raw: bytes | None = None) -> Explanation:
    """Explain an already parsed log at ``rank`` (None: the tightest one), with plan ``flags`` filling what it does
    not print (``explain_log`` parses first)."""
    view = parsed.select_rank(rank)  # an unknown rank is the user's error (RankNotFoundError, exit 2)
    ctx = build_context(parsed, flags, forced_custom_allreduce=forced_custom_allreduce, text_settings=text_settings,
                        raw=raw)
    missing = [f"{m.what} (looked for {m.looked_for}){_in_use(m.what, ctx)}" for m in parsed.missing]
    anchored = None
    rows: tuple[Row, ...] = ()
    printed = None
    rng = None
    kv_source = ""
    if ctx.engine == "sglang":
        from tpkit.explain.sgdiagnose import diagnose_sglang
        from tpkit.explain.sglang import anchor_sglang

        anchored, diagnosis, rows, printed, rng = _anchor(anchor_sglang, diagnose_sglang, parsed, view, ctx)
        kv_source = anchored.cell_source
        missing += _sglang_missing(anchored, ctx)
    elif ctx.engine == "vllm":
        from tpkit.explain.vdiagnose import diagnose_vllm
        from tpkit.explain.vllm import anchor_vllm

        anchored, diagnosis, rows, printed, rng = _anchor(anchor_vllm, diagnose_vllm, parsed, view, ctx)
        if raw is not None and b"Initializing a V1 LLM engine (v0.7" in raw:  # helper cr37: V1 0.7.x's offload
            from tpkit.explain.voffv1 import with_v0_offload

            diagnosis = with_v0_offload(diagnosis, raw, anchored, ctx)
        kv_source = anchored.token_bytes_source
        missing += _vllm_missing(anchored, ctx)
    else:
        diagnosis = _unknown_engine(parsed)
        missing.append("engine: neither SGLang nor vLLM recognised (pass --engine)")
    alternatives = getattr(anchored, "tokens_alternatives", ()) if anchored is not None else ()
    return Explanation(parsed=parsed, context=ctx, rank=view.rank.label, rank_reason=_rank_reason(view, anchored),
                       rows=rows,
                       kv_printed=printed, kv_predicted=_predicted(printed, rng, alternatives), kv_predicted_range=rng,
                       kv_source=kv_source, anchored=anchored, diagnosis=diagnosis, missing=tuple(missing),
                       kv_predicted_alternatives=alternatives)


def _rank_reason(view, anchored) -> str:
    """Why this rank's lines are read, and, where a tighter worker's available memory is derived (vLLM: a worker
    that prints only the DEBUG non-KV line), that the pool is sized by that worker, not by the rank shown."""
    sized_by = getattr(anchored, "sized_by", None)
    if not sized_by or sized_by == view.rank.label:
        return view.reason
    return (f"{view.reason}; the pool is sized by {sized_by}, whose available memory is derived from its DEBUG "
            "non-KV line and lies below every printed worker's (see the ledger)")


def _sglang_missing(anchored, ctx: Context) -> list[str]:
    """What an SGLang log leaves out that the ledger needs (the GPU, the pre-load memory, mem_fraction_static, the
    KV budget's inputs, the cell size), each with how it was filled or what would fill it."""
    missing = []
    if ctx.gpu_inferred is not None:
        missing.append(f"gpu name: not printed; {ctx.gpu_inferred.text()}")
    elif ctx.gpu is None:
        missing.append("gpu total: not inferable: no free-memory figure ('Load weight begin/end', 'Memory pool "
                       "end', 'Capture cuda graph' avail mem) printed")
    if anchored.pre_estimated:
        missing.append("pre_model_load_memory: not printed; estimated as 'Load weight end' avail + the load usage "
                       "from the config")
    if anchored.fraction is None and ctx.get("mem_fraction") is None:
        missing.append(f"mem_fraction_static: {anchored.fraction_source or 'not printed'}")
    if anchored.rest is None:
        missing.append("KV budget: needs 'Load weight begin/end' avail mem and mem_fraction_static")
    else:
        from tpkit.engines.unified import sglang_budget_sample_note

        sample_note = sglang_budget_sample_note(ctx.rules_version, ctx.gpu,
                                                multimodal=bool(getattr(ctx.model, "is_multimodal", False)))
        if sample_note:
            missing.append(sample_note)
    if anchored.cell_bytes is None:
        missing.append("KV cell size: " + (anchored.cell_source if anchored.cell_source.startswith("tp not")
                                           else "needs the model config (--model) or the printed KV pool and "
                                                "tokens"))
    return missing


def _vllm_missing(anchored, ctx: Context) -> list[str]:
    """What a vLLM log leaves out that the ledger needs (the available KV memory, the bytes per block, the
    speculative config)."""
    missing = []
    if anchored.available is None:
        missing.append("available KV cache memory: not printed")
    if anchored.token_bytes is None:
        missing.append("KV bytes per block: " + (anchored.token_bytes_source
                                                 if anchored.token_bytes_source.startswith(
                                                     ("tp not", "block not computable: the"))
                                                 else "needs the model config (--model) or the printed capacity"))
    if ctx.spec_missing:
        missing.append(f"speculative config: {ctx.spec_missing}")
    return missing


def _unknown_engine(parsed: ParsedLog) -> Diagnosis:
    """The diagnosis of a log whose engine is not recognised: the primary failure's phase and kind, or, where nothing
    at all was read, why (the cause says so)."""
    failure = parsed.primary_failure
    diagnosis = Diagnosis(status=parsed.status, phase=failure.phase if failure else None,
                          cause="" if failure is None else f"{failure.kind.replace('_', ' ')} (engine unknown: "
                                                           "pass --engine sglang|vllm for the ledger)")
    if not (parsed.anchors or parsed.failures or parsed.settings):  # "ok", and the cause says nothing was read
        diagnosis = Diagnosis(status="ok", phase=None,
                              cause="nothing to diagnose: no SGLang or vLLM start-up, memory, setting or failure "
                                    "line was recognised; is this the server's own log (the file its "
                                    "stdout/stderr went to, from the launch command on)?")
    return diagnosis


def _predicted(printed, rng, alternatives) -> int | None:
    """The predicted KV tokens: the printed figure where it lies in the range (or one of the alternatives' ranges),
    else the midpoint of the range under the rules the log is read by (the first alternative), not of a hull; None
    without a range."""
    if rng is None:
        return None
    if printed is not None and any(lo <= printed <= hi for lo, hi in alternatives or (rng,)):
        return printed
    lo, hi = alternatives[0] if alternatives else rng
    return (lo + hi) // 2
