"""vLLM's speculative decoding in an explanation: the run's drafter config (the log's, else
``--speculative-config``), what is missing when the log shows a drafter but prints no config, and the drafter's
weights in the tp inference (``explain.context`` calls these)."""

from __future__ import annotations

import re

from tpkit.errors import TpkitError
from tpkit.explain.contradiction import Contradiction
from tpkit.explain.refusals import REFUSED
from tpkit.logs import ParsedLog
from tpkit.logs.lazyre import lazy

__all__ = ["DRAFTER_LINES", "vllm_speculative", "with_drafter"]


DRAFTER_LINES = lazy(
    r"Loading drafter model|EAGLE head|Detected (?:EAGLE|MTP) model|with the draft model|SpecDecoding metrics|"
    r"Configuring SpecDecodeWorker")
"""vLLM lines that show a speculative drafter ran although no speculative config is printed:
``v1/worker/gpu_model_runner.py load_model`` "Loading drafter model..." (0.9.1, 0.11.0, 0.33; ``info_once`` in
0.33); ``v1/spec_decode/eagle.py load_model`` "Assuming the EAGLE head shares …", "The EAGLE head's vocab
embedding …", "Loading EAGLE LM head weights …" (0.9.1, 0.11.0); ``v1/spec_decode/llm_base_proposer.py``
"Detected EAGLE model …" / "Detected MTP model. Sharing target model … with the draft model." (0.33);
``v1/spec_decode/metrics.py`` "SpecDecoding metrics: …" (0.9.1, 0.33); V0's ``spec_decode/spec_decode_worker.py``
"Configuring SpecDecodeWorker with proposer=…" (0.8.5).  Case-sensitive: vLLM's own spellings."""

_SPEC_EXAMPLE = {"mtp": '\'{"method": "mtp", "num_speculative_tokens": 1}\'',
                 "eagle": '\'{"method": "eagle", "model": "<draft HF id or config path>", '
                          '"num_speculative_tokens": 3}\''}


def _spec_from_log(value: dict) -> dict:
    """The log's speculative setting (``logs.run``: algorithm / draft_model / num_steps) in vLLM's keys."""
    data = {"method": value.get("algorithm"), "model": value.get("draft_model"),
            "num_speculative_tokens": value.get("num_steps")}
    return {k: v for k, v in data.items() if v not in (None, "", "None")}


def vllm_speculative(parsed: ParsedLog, flags: dict, values: dict, sources: dict, contradictions: list,
                      notes: list, raw: bytes | None) -> tuple[object | None, str | None, str | None]:
    """vLLM's speculative decoding for the KV rebuild: (SpecConfig, where from, what is missing).

    The log's speculative config (the engine-config dump's ``speculative_config=SpeculativeConfig(method=…,
    model=…, num_spec_tokens=…)``, ``config/speculative.py __repr__`` 0.9.1–0.33, or the non-default args'
    ``speculative_config`` dict) is read by the plan's parser (``engines.vllm.speculative
    .parse_speculative_config``); ``--speculative-config`` (the plan's flag) fills it in where the log prints
    none, and where both name the same method and token count but another draft ``model`` the flag's model is
    where the drafter's config is read (the log's is usually a path of the serving machine).  Other
    disagreements are contradictions; the log's value is kept.  A log with drafter lines (``DRAFTER_LINES``) and no
    config gets a ``spec_missing`` text."""
    from tpkit.engines.vllm.speculative import parse_speculative_config

    given = flags.get("speculative_config")
    flag_spec = parse_speculative_config(given) if given is not None else None  # bad JSON: exit 2
    logged = values.get("speculative")
    if isinstance(logged, dict) and _spec_from_log(logged):
        data = _spec_from_log(logged)
        where = sources.get("speculative", "the log")
        try:
            spec = parse_speculative_config(data)
        except TpkitError as exc:
            notes.append(f"the log's speculative config {data} ({where}) is not one tpkit rebuilds ({exc}): the "
                         "drafter's KV layers are left out of the KV rebuild")
            return None, None, None
        if flag_spec is None:
            return spec, where, None
        same = (flag_spec.method, flag_spec.num_speculative_tokens) == (spec.method, spec.num_speculative_tokens)
        if same and flag_spec.model != spec.model and flag_spec.model is not None:
            notes.append(f"the drafter's config is read from --speculative-config's model {flag_spec.model!r}; the "
                         f"log names {spec.model!r} ({where})")
            return flag_spec, f"{where}; draft config from flag --speculative-config", None
        if not same:
            contradictions.append(Contradiction(flag="speculative_config", given=given, logged=data, source=where))
        return spec, where, None
    if flag_spec is not None:
        return flag_spec, "flag --speculative-config", None
    text = (raw or b"").decode("utf-8", "replace")
    hit = DRAFTER_LINES.search(text)
    if hit is None:
        return None, None, None
    line_no = text.count("\n", 0, hit.start()) + 1
    example = _SPEC_EXAMPLE["mtp" if re.search("mtp", text, re.IGNORECASE) else "eagle"]
    missing = (f"the log shows speculative decoding (line {line_no}: '{hit.group(0)}') but prints no speculative "
               "config (method, draft model, num_speculative_tokens): the drafter's KV layers, which vLLM puts in "
               f"the same KV pages as the target's, are not in this rebuild; pass --speculative-config {example}")
    return None, None, missing


def with_drafter(spec, kernel: str | None = None):
    """``explain.tpinfer.predicted_weights`` plus the speculative drafter's weights at that tp: vLLM loads the
    drafter inside the same ``DeviceMemoryProfiler`` block as the target, so 'Model loading took' holds both
    (``v1/worker/gpu_model_runner.py load_model``, 0.9.1–0.33; ``engines.vllm.drafter.plan_drafter`` sizes them
    as tpkit plan does).  A drafter tpkit cannot size adds nothing (the band then says so by not fitting)."""
    from tpkit.engines.vllm.drafter import plan_drafter
    from tpkit.explain.tpinfer import predicted_weights
    from tpkit.parallel import ParallelSpec

    def predict(model, tp: int, *, pp: int = 1, dtype: str | None = None, quantization: str | None = None):
        nominal, low, high = predicted_weights(model, tp, pp=pp, dtype=dtype, quantization=quantization, kernel=kernel)
        name = str(dtype or "auto").removeprefix("torch.")
        act = model.torch_dtype if name == "auto" else name
        try:
            extra = plan_drafter(model, spec, ParallelSpec(tp=tp, pp=pp), kv_bytes=2,
                                 act_dtype="bfloat16" if act == "float32" else act,
                                 target_quantization=quantization).weights
        except REFUSED:
            return nominal, low, high
        return nominal + extra, low + extra, high + extra

    return predict
