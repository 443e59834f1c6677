"""Read SGLang and vLLM start-up and crash logs into typed anchors (pure; never imports torch or engines).

    parse_log(text_or_bytes) -> ParsedLog
        .engine        EngineGuess: engine, version (printed, or inferred with evidence)
        .run           Run: model, GPU, tp/pp/dp/ep, fraction, context, kv dtype, speculative … (each a Setting)
        .anchors       every memory number as an Anchor (PrintedSize / PrintedCount with meaning and rounding)
        .failures      OOMs, not-enough-KV, imbalance, NCCL, custom all-reduce warnings … with their phase
        .missing       what was looked for and not found
        .select_rank(N | label | None) -> RankView   (None: the tightest rank)
        .to_dict()     JSON-able, schema "tpkit.logs/1"

Module map (call order): text (decode, normalise) → scan (keyword prefilter, one pass) → prefix (record
headers, ranks) → rules (memory lines) / settings + dumps (run settings) / failures (errors, phases) /
engine (engine, version) / gpu_names → reader (assembles) → run, parsed, missing; recovered: what a paste, a wrapper
or a child process hides (wrapped frame lines, a re-logged exception, a linker's error), for text, scan and failures.
"""

from tpkit.logs.anchors import MEANINGS, Anchor
from tpkit.logs.engine import EngineGuess, Evidence
from tpkit.logs.failures import KINDS, PHASES, Failure
from tpkit.logs.parsed import SCHEMA, Missing, ParsedLog, RankNotFoundError, RankView
from tpkit.logs.prefix import RankKey
from tpkit.logs.printed import PrintedCount, PrintedSize
from tpkit.logs.reader import parse_log
from tpkit.logs.run import Conflict, Run
from tpkit.logs.settings import Setting

__all__ = [
    "parse_log", "ParsedLog", "RankView", "Run", "Setting", "Conflict", "Anchor", "MEANINGS", "PrintedSize",
    "PrintedCount", "Failure", "KINDS", "PHASES", "EngineGuess", "Evidence", "RankKey", "Missing",
    "RankNotFoundError", "SCHEMA",
]
