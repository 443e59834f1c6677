"""vLLM's engine generation from a log's line formats: the V0 engine of a 0.8–0.10 release (VLLM_USE_V1=0) is read
and planned by the V0 rules (``engines.vllm.versions``: ``"<release>:v0"``); split from ``explain.vtokens`` so that
``explain.context`` can ask without an import cycle (helper rt15, 2026-12-05)."""

from __future__ import annotations

from tpkit.explain.refusals import REFUSED
from tpkit.logs.settings import _RUNNER_FILE, _V0_LOAD

__all__ = ["v0_formats", "v0_or_v1_load_line"]


def v0_or_v1_load_line(line: str) -> bool:
    """Whether a 'Model loading took' line may be V0's model runner's: four decimals and 'and'
    (``logs.settings._V0_LOAD``), as V0's ``worker/model_runner.py`` and the V1 runner print it in 0.8–0.10, without
    a ``[gpu_model_runner.py]`` tag that would name the V1 runner (a line whose tag the record splitter dropped tells
    neither)."""
    m = _RUNNER_FILE.search(line)
    return bool(_V0_LOAD.search(line)) and not (m and m.group(1) == "gpu_model_runner")


def v0_formats(parsed, release: str | None) -> bool:
    """Whether a vLLM log's line formats show the V0 engine and none of V1's (``logs.engine``'s V0 formats: the V0
    worker's 'the current vLLM instance can use', V0's model runner, 'Initializing a V0 LLM engine'; V0's
    four-decimal 'Model loading took' tells neither engine: ``v0_or_v1_load_line``), in a release 0.8–0.10, where
    both engines ship and VLLM_USE_V1=0 runs V0: the log is read (``explain.vtokens.log_rules``) and planned
    (``cli.fromlog.v0_engine_release``) by the V0 rules, ``"<release>:v0"`` (``engines.vllm.versions``)."""
    from tpkit.logs.engine import releases_in

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
    except REFUSED:  # a release the rules cannot read
        return False
