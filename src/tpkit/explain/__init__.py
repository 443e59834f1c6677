"""``tpkit explain``: a real SGLang or vLLM log → the run, the ledger anchored on the printed numbers, the
capacity rebuilt from them, a diagnosis and fixes re-planned from the same measurements (pure; no torch).

    explain_log(text_or_bytes, rank=None, flags=None) -> Explanation   (.to_dict(): schema "tpkit.explain/1")
    measured_startup(explanation) -> {term: Bytes}                     (``tpkit plan --from-log``)

Module map: context (run + flags; its helpers flagmerge, modelpath, runtp, runfacts) → sglang / vllm (anchored
ledger rows, capacity; SGLang's helpers in sganchors, sgrelease, sgpool, sgstate, vLLM's in vlayout, vtokens,
vworkers, vpeak) → sgdiagnose / vdiagnose (phase, cause, fixes; shared types in diagnose) → result (Explanation) →
render (text); fromlog (measured start-up terms for the planner; with vllm, vpeak's CUDA-graph estimate in the
printed activation peak).
"""

from tpkit.explain.diagnose import Diagnosis, Fix
from tpkit.explain.result import SCHEMA, Explanation, explain_log, explain_parsed

__all__ = ["explain_log", "explain_parsed", "Explanation", "Diagnosis", "Fix", "SCHEMA"]
