"""Capacity rebuilt from a log's own anchors, with the capacity lines removed (docs/accuracy.md §7.2).

For every log of tests/logs/data that prints "Load weight end" (SGLang) or "Available KV cache memory" (vLLM):
remove the lines that print the capacity (SGLang 'KV Cache is allocated', 'max_total_num_tokens=', the
'profiled value' warning, the DeepSeek-V4 'DSV4 memory calculation … full_token=', the hybrid-SWA
'SWAKVPool mem usage … full size:'; vLLM 'GPU KV cache size', 'Maximum concurrency', '# GPU blocks' /
'# cuda blocks' / '# rocm blocks'), run ``tpkit explain`` on the rest, and check that the printed capacity of the full log lies in
the token range rebuilt from the anchors (the print-rounding interval of the anchors carried through the engine's
arithmetic).

A log whose full text prints no capacity line is scored against another printed number that pins the pool
where one is printed (``PINS``, one rule per line type; the row's "why" names the quantity and its rounding):
SGLang's 'KV Cache allocated. #tokens' written without 'is', the 'profiled value' of the max_total_tokens
warning, the 'Loaded weights leave no GPU memory for the KV cache' / 'Not enough memory' errors, and 'Memory pool
end' against 'Load weight end' on one rank; vLLM's 'estimated maximum model length' and 'No available memory for
the cache blocks' errors (the crash pins: ``capacity_crash_pins``).  A log with none of them stays n/a, with what
it lacks in words.  The summary counts apart the vLLM no-blocks pins, whose budget is the anchor itself.  A row on a
unified-memory GPU whose printed count lies below the rebuilt range while the sample the pool is sized from (SGLang)
or the smallest worker's (vLLM) is not printed is scored "bound", not hit or miss: the log pins only the range's top
(``UNIFIED_BOUND``, ``UNIFIED_WORKER_BOUND``).

The model is passed as a user would pass ``--model``: the config that tests/logs/data/models.json names for the
log (a catalog id or a config path).  The plan flags a user of that run would pass from their own launch command
(``tp``, ``dp``, ``enable_dp_attention``, ``mem_fraction_static``, ``gpu``, …) come from the entry's ``flags``:
each one quoted from the log's source thread (``flags_evidence``, ``flags_from``), never read off the removed
capacity lines.  They reach ``explain_log`` as the CLI's flags do (``explain.context.build_context``: a flag fills
what the log lacks; one that contradicts the log is reported, the log's value kept, and the row says so).  Every
other setting comes from the log.  A log without a config there is a miss with that reason.

    PYTHONPATH=src python scripts/explain_capacity_check.py [--json] [--why]

``--why`` first prints what each hit rests on (``capacity_why.audit``: the range's width, the terms no line prints
that the hit needs, the ROCm bounds compared), then the usual output.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capacity_crash_pins import (Pin, _line_no, _unclamped, pin_no_budget, pin_not_enough_memory,  # noqa: E402
                                 pin_vllm_no_blocks)
from capacity_why import audit, terms  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "logs" / "data"
CAPACITY = re.compile(r"KV Cache is allocated|KV Cache allocated\. #tokens|max_total_num_tokens=|"
                      r"is larger than the profiled value|GPU KV cache size|Maximum concurrency for|"
                      r"# GPU blocks|# cuda blocks|# CUDA blocks|# rocm blocks|num_gpu_blocks|"
                      r"[Dd][Ss][Vv]4 memory calculation|SWAKVPool mem usage: .*full size: \d")


def model_map() -> dict[str, dict]:
    """tests/logs/data/models.json by case id: the model each log served and a config tpkit loads (or null)."""
    return {e["id"]: e for e in json.loads((DATA / "models.json").read_text(encoding="utf-8"))["cases"]}


def source_flags(entry: dict | None) -> dict:
    """The plan flags the entry quotes from the log's source thread (argparse dests of ``tpkit explain``).  A
    drafter config the map holds (``--speculative-config``'s ``model``, a path under tests/logs/data/configs/ as
    the entries' ``config`` is) is given by its absolute path, so the check runs from any directory."""
    flags = dict((entry or {}).get("flags") or {})
    spec = flags.get("speculative_config")
    if isinstance(spec, str):
        data = json.loads(spec)
        draft = data.get("model")
        if isinstance(draft, str) and draft.startswith("tests/") and (ROOT / draft).exists():
            flags["speculative_config"] = json.dumps({**data, "model": str(ROOT / draft)})
    return flags


def flag_argv(flags: dict) -> list[str]:
    """``flags`` (argparse dest → value) as the command-line words a user types: ``--tp 4``, a bare
    ``--enable-dp-attention`` for True."""
    argv = []
    for dest, value in flags.items():
        option = "--" + dest.replace("_", "-")
        if value is True:
            argv.append(option)
        elif value is not False and value is not None:
            argv += [option, str(value)]
    return argv


def cli_flags(flags: dict) -> dict:
    """``flags`` parsed by ``tpkit explain``'s own argument parser and read back as ``cli.explain.flag_values``
    does for the CLI (the parser's types and choices apply; an unknown flag is argparse's exit 2)."""
    import argparse

    from tpkit.cli.explain import flag_values, register

    parser = argparse.ArgumentParser(prog="tpkit")
    register(parser.add_subparsers(dest="command"))
    return flag_values(parser.parse_args(["explain", "LOG", *flag_argv(flags)]))


def model_flag(entry: dict | None) -> str | None:
    """The ``--model`` a user would pass for this log: a catalog id, or the path of the config file."""
    ref = (entry or {}).get("config")
    if not ref:
        return None
    return ref[len("catalog:"):] if ref.startswith("catalog:") else str(ROOT / ref)


ANCHOR = re.compile(r"Load weight end|Available KV cache memory")
NEXT_RECORD = r"(?=\s(?:INFO|WARNING|DEBUG|ERROR)\s|\s\(\w+ pid=|\s\[20\d\d-|$)"


def strip_capacity(data: bytes) -> bytes:
    """The log without its capacity records: a line that prints the capacity is dropped; where one physical line
    holds several records (a pasted one-liner), only the capacity records are cut out of it, up to the next
    record's prefix."""
    out = []
    for raw in data.split(b"\n"):
        line = raw.decode("utf-8", "replace")
        if not CAPACITY.search(line):
            out.append(raw)
        elif ANCHOR.search(line):
            out.append(re.sub(f"(?:{CAPACITY.pattern}).*?{NEXT_RECORD}", "", line).encode("utf-8"))
    return b"\n".join(out)


def check(case: dict, models: dict[str, dict]) -> dict:
    from tpkit.explain import explain_log
    from tpkit.explain.context import is_rocm

    data = (DATA / case["file"]).read_bytes()
    full = explain_log(data)
    printed = full.kv_printed
    entry = models.get(case["id"]) or {}
    row = {"id": case["id"], "engine": case["engine"], "printed": printed, "range": None, "outcome": "", "why": "",
           "model": entry.get("model"), "config": entry.get("config"),
           "fidelity": entry.get("config_fidelity")}
    model = model_flag(entry)
    flags = cli_flags(source_flags(entry))
    if model:
        flags["model"] = model
    stripped = explain_log(strip_capacity(data), flags=flags)
    row["flags"] = dict((entry or {}).get("flags") or {})  # as the map writes them (repository paths)
    row["contradictions"] = [c.text() for c in stripped.context.contradictions]
    rng = stripped.kv_predicted_range
    row["range"] = list(rng) if rng else None
    row["cell_source"] = stripped.kv_source
    row["terms"], row["rocm"] = terms(stripped), is_rocm(stripped.context)  # what the range rests on (--why)
    pin = find_pin(data, full, stripped) if printed is None else None
    if pin is not None:
        row.update(printed=pin.printed, pin=pin.kind)
        if pin.compare == "tokens" and rng is not None:
            pin = replace(pin, rebuilt=rng)
        if pin.rebuilt is None:
            row.update(outcome="miss", why=f"{pin.why}; rebuilt: "
                       + ("no config" if stripped.context.model is None else f"anchors incomplete: {_incomplete(stripped)}"))
        else:
            row["range"] = list(pin.rebuilt)
            if pin.shown:
                row["range_text"] = pin.shown
            hit = pin.low <= pin.rebuilt[1] and pin.rebuilt[0] <= pin.high
            off = "" if hit else f" (pinned {pin.low:,}–{pin.high:,}, rebuilt {pin.rebuilt[0]:,}–{pin.rebuilt[1]:,})"
            row.update(outcome="hit" if hit else "miss", why=f"{pin.why}{off}")
            if not hit:  # the MIN over ranks the log does not print, with the source's flags (the config's cell)
                shortfall = getattr(explain_log(data, flags=flags).anchored, "unprinted_ranks", None)
                if shortfall:
                    row["why"] += f"; {shortfall}"
    elif printed is None:
        row.update(outcome="n/a", why=f"no number pins the pool: {no_pin_reason(data, full)}")
    elif rng is None:
        if stripped.context.model is None:
            row.update(outcome="miss", why=f"no config (models.json: {(entry.get('note') or 'not found')[:90]}…)"
                       if entry.get("model") else "model not known (not printed, not named by the source)")
        else:
            row.update(outcome="miss", why=f"anchors incomplete: {_incomplete(stripped)}")
    elif rng[0] <= printed <= rng[1] and _in_alternatives(printed, stripped):
        row.update(outcome="hit", why="printed capacity within the rebuilt range" + _alternatives_note(stripped))
    else:
        off = printed - (rng[0] + rng[1]) // 2
        row.update(outcome="miss", why=f"outside the rebuilt range by {off:+,} tokens ({off / max(printed, 1):+.2%})")
        unseen = [m for m in stripped.missing if m.startswith("KV budget sample:")]
        if unseen:  # a unified-memory GPU: the pool's own free-memory sample is not printed (engines.unified)
            row["why"] += f"; {unseen[0]}"
        pairing = getattr(full.anchored, "per_worker", None)
        if not pairing:  # with the source's flags (the TP size, the config's cell) the full log may say more
            flagged = explain_log(data, flags=flags).anchored
            pairing = getattr(flagged, "per_worker", None) or getattr(flagged, "unprinted_ranks", None)
        if pairing:
            row["why"] += f"; {pairing}"
        unified = getattr(stripped.context.gpu, "unified_memory", False)
        if printed < rng[0] and (unseen or (unified and pairing)):  # only the top is pinned: ``UNIFIED_BOUND``
            reason = UNIFIED_BOUND if unseen else UNIFIED_WORKER_BOUND
            row.update(outcome="bound", why=f"below the rebuilt range by {printed - rng[0]:+,} tokens from its low "
                       f"end ({off:+,} from its middle, {off / max(printed, 1):+.2%}): {reason}; "
                       + row["why"].split("; ", 1)[1])
    if row["flags"]:
        shown = ", ".join(f"--{k.replace('_', '-')}" + ("" if v is True else f" {v}") for k, v in row["flags"].items())
        row["why"] += f" [source flags: {shown}" + (f"; {'; '.join(row['contradictions'])}" if row["contradictions"]
                                                     else "") + "]"
    return row


UNIFIED_BOUND = ("the log pins only the rebuilt range's top here: the pool is sized from a MemAvailable sample no "
                 "line prints, taken after 'Load weight end' (whose avail mem the rebuild uses), so host memory taken "
                 "in between lowers the pool below the range and no printed number says by how much; the printed "
                 "count respects the top (a count above it would be a miss)")
UNIFIED_WORKER_BOUND = ("the log pins only the rebuilt range's top here: the engine gives every worker the smallest "
                        "worker's capacity and the log prints the available memory of fewer workers than run, each on "
                        "its own unified-memory host whose MemAvailable moves with that host's other use; the spread "
                        "allowance below the printed worker was measured on discrete GPUs of one host and does not "
                        "bound another host's sample, so no printed number says how far below the smallest lies; the "
                        "printed count respects the top (a count above it would be a miss)")
"""The same for vLLM (``explain.vworkers.min_over_workers``, 0.12+: ``v1/core/kv_cache_utils.py
get_kv_cache_configs`` takes the smallest worker's block count) on a unified-memory GPU (``engines.unified``: 0.11.1+
samples MemAvailable, host memory taken between the snapshots comes off the KV cache): one GB10 per host, so more
than one worker means more than one host, and ``startup.rankspread``'s allowance (logs of discrete GPUs) does not
cover it."""

"""Why a unified-memory SGLang row whose printed count lies below the rebuilt range is scored "bound", not hit or
miss.  Source (sglang 0.5.9, 0.5.14 and 0.5.23 read: ``utils/common.py get_available_gpu_memory``, ``props.is_integrated`` branch):
on an integrated GPU every free-memory sample is ``psutil.virtual_memory().available``, the host's MemAvailable,
and ``ModelRunner.profile_max_num_token`` takes its own sample when the pool is sized, after 'Load weight end'
(0.5.14+: ``Scheduler.init_memory_pools``, after ``TpModelWorker.__init__`` loaded the processor).  'Memory pool
end' does not pin that sample: the pool comes out of the same MemAvailable, so that line checks the slack only.
With the capacity lines removed, no printed number pins the pool's sample; 'Load weight end' bounds it from above
as long as nothing frees host memory between the two samples.  The row counts apart (neither a hit nor a miss)."""


def _in_alternatives(printed: int, stripped) -> bool:
    """Where the release is open and its ends count the tokens by different rules, the rebuilt range is the hull
    of one range per rule and the engine printed one of them: the printed count must lie in one, not between."""
    alternatives = stripped.kv_predicted_alternatives
    return not alternatives or any(lo <= printed <= hi for lo, hi in alternatives)


def _alternatives_note(stripped) -> str:
    alternatives = stripped.kv_predicted_alternatives
    if not alternatives:
        return ""
    shown = " or ".join(f"{lo:,}–{hi:,}" for lo, hi in alternatives)
    return f" (the release is open: the range is {shown} by the rule sets its range spans, and the printed count is in one)"


_TRANSCRIBED = re.compile(r"KV Cache allocated\. #tokens: ?(\d+)")
_PROFILED = re.compile(r"max_total_tokens=(\d+) is larger than the profiled value (-?\d+)")


def pin_transcribed(text: str, full, stripped) -> Pin | None:
    """SGLang's 'KV Cache is allocated. #tokens: N' written down without 'is' (a hand transcription of the record;
    no release prints that spelling: sglang 0.3.0–0.5.23 read): N is max_total_num_tokens, exact."""
    m = _TRANSCRIBED.search(text)
    if m is None or full.context.engine != "sglang":
        return None
    n = int(m.group(1))
    return Pin(kind="sglang_transcribed_tokens", printed=n, low=n, high=n, compare="tokens", rebuilt=None,
               why=f"line {_line_no(text, m.start())}: 'KV Cache allocated. #tokens: {n:,}' (the SGLang record "
                   "transcribed without 'is'; the line removed): tokens, exact")


def pin_profiled(text: str, full, stripped) -> Pin | None:
    """SGLang's 'max_total_tokens=A is larger than the profiled value P': P is ``profile_max_num_token``'s
    ``int(rest_memory × 2^30 // cell_size)``, printed before the page rounding and before the cap, negative when
    the budget is (sglang 0.3.0 / 0.4.3 / 0.4.8 ``ModelRunner.init_memory_pool``; 0.5.23
    ``KVCacheConfigurator._apply_token_constraints`` prints the configurator's value, already page-aligned): compared
    with floor(rebuilt budget / cell) without the clamp at 0, its low end rounded down to the page."""
    m = _PROFILED.search(text)
    if m is None or full.context.engine != "sglang":
        return None
    p = int(m.group(2))
    rng = _unclamped(stripped)
    page = max(1, int(getattr(stripped.anchored, "page", 1) or 1))
    if rng is not None:
        rng = (rng[0] // page * page, rng[1])
    return Pin(kind="sglang_profiled_value", printed=p, low=p, high=p, compare="own", rebuilt=rng,
               why=f"line {_line_no(text, m.start())}: 'profiled value {p:,}' (the warning removed): SGLang's raw "
                   "floor(KV budget / cell) in tokens, exact, against floor(rebuilt budget / cell) unclamped")


def pin_pool_end(text: str, full, stripped) -> Pin | None:
    """SGLang 'Memory pool end. avail mem=X' after 'Load weight end. avail mem=Y' on one rank: between the two
    prints ``init_memory_pool`` allocates the req_to_token table (int32 rows × (context_len + 4)) and the KV
    buffers ((tokens + page) × cell over the layers), nothing else on the device of size (sglang 0.3.0 / 0.4.3 /
    0.4.8 / 0.5.2 ``model_runner.py``; free lists: CPU lists, a bool or int64 per token).  So
    tokens = (Y − X − req_to_token) / cell − page, with Y and X ±0.005 GiB, req_to_token one row either way
    (0.4.3 allocates max_num_reqs + 1 rows) and the caching allocator's rounding of each buffer up to 2 MiB plus
    one 20 MiB segment for the small tensors.  Only for one pool of full-attention or MLA layers with no draft
    (sliding, hybrid and speculative pools add their own buffers)."""
    a, ctx = stripped.anchored, stripped.context
    model = ctx.model
    if full.context.engine != "sglang" or a is None or model is None or not a.cell_bytes:
        return None
    if a.cell_source.startswith("measured") or ctx.get("speculative"):
        return None
    kinds = {str(k).lower() for k in (model.layer_kinds or ())}
    if model.linear_attn is not None or model.sliding_window or any("linear" in k or "mamba" in k or "slid" in k
                                                                      for k in kinds):
        return None
    by: dict[str, dict] = {}
    for x in full.parsed.anchors:
        if x.name == "pool_end_avail" or x.name == "load_end_avail":
            if x.group == "draft":
                return None
            if x.group is None and x.size is not None:
                by.setdefault(x.rank.label, {})[x.name] = x
    ranks = [r for r, d in by.items() if len(d) == 2 and d["load_end_avail"].line_no < d["pool_end_avail"].line_no]
    if not ranks:
        return None
    from tpkit.engines.sglang.pool import max_running_requests, req_to_token_bytes
    from tpkit.engines.sglang.versions import LATEST, newest_by_date, rule_era
    from tpkit.explain.interval import iv_of

    rank = full.rank if full.rank in ranks else ranks[0]
    y, x = by[rank]["load_end_avail"], by[rank]["pool_end_avail"]
    d = iv_of(y.size) - iv_of(x.size)
    version, _ = newest_by_date(ctx.rules_version or LATEST, ctx.get("log_date"))
    context_len = int(ctx.get("context_length") or model.max_position_embeddings)
    cell, page = float(a.cell_bytes), int(a.page or 1)
    buffers = model.num_layers * (1 if model.mla is not None else 2)
    dp = int(ctx.get("dp", 1) or 1) if ctx.get("enable_dp_attention") else 1
    tokens = int(d.mid.bytes // cell)
    for _ in range(2):  # the request rows depend on the tokens (clamped to 2048–4096 rows): settle them
        _, rows, _ = max_running_requests(rule_era(version), tokens=max(tokens, 1), context_len=context_len,
                                          user=ctx.get("max_running_requests"), dp=dp, version=version)
        r2t = req_to_token_bytes(rows, context_len).bytes
        tokens = int((d.mid.bytes - r2t) // cell)
    r2t_high = req_to_token_bytes(rows + 1, context_len).bytes
    rounding = buffers * 2 * 2**20 + 20 * 2**20
    low = int((d.low.bytes - r2t_high - rounding) // cell) - page
    high = int((d.high.bytes - r2t) // cell) - page
    return Pin(kind="sglang_pool_end", printed=(low + high) // 2, low=low, high=high, compare="tokens", rebuilt=None,
               why=f"{rank}: 'Load weight end' {y.size.text} − 'Memory pool end' {x.size.text} (line {x.line_no}) − "
                   f"req_to_token {rows:,}(+1) × ({context_len:,} + 4) × 4 B, over cell {cell:,.0f} B − page "
                   f"{page}: tokens {low:,}–{high:,} (±0.005 GiB per print, ≤ 2 MiB allocator rounding per buffer "
                   f"× {buffers} + 20 MiB)")


_ESTIMATED = re.compile(r"estimated maximum model length is (\d+)")


def pin_vllm_estimate(text: str, full, stripped) -> Pin | None:
    """vLLM's 'estimated maximum model length is L' (the ValueError of the KV fit check, V1 0.6–0.33
    ``v1/core/kv_cache_utils.py check_enough_kv_cache_memory`` / ``estimate_max_model_len``): the largest length
    whose KV need (Σ over the groups of the blocks one request holds × the block bytes; sliding groups the window
    plus the tokens in flight; mamba groups one state) fits the available KV memory, by binary search.  Compared
    with tpkit's same search (``engines.vllm.capacity.estimate_max_model_len``) on the rebuilt layout over the
    ends of the 'Available KV cache memory' interval (±0.005 GiB); the crash line stays in the input."""
    m = _ESTIMATED.search(text)
    if m is None or full.context.engine != "vllm":
        return None
    est = int(m.group(1))
    a, ctx = stripped.anchored, stripped.context
    rng = None
    if a is not None and a.available is not None and ctx.model is not None:
        from tpkit.engines.vllm.capacity import estimate_max_model_len, max_concurrent_batches
        from tpkit.explain.vlayout import token_layout
        from tpkit.explain.vtokens import log_rules
        from tpkit.units import Bytes

        tp, pp = int(ctx.get("tp", 1) or 1), int(ctx.get("pp", 1) or 1)
        rules = log_rules(ctx)
        layout, _ = token_layout(ctx, tp, pp, int(ctx.get("page_size", 16) or 16), rules)
        if layout is not None:
            in_flight = int(ctx.get("max_num_batched_tokens") or 2048) * max_concurrent_batches(rules, pp)
            ends = [estimate_max_model_len(layout, Bytes(max(end.bytes, 0)), 1 << 26, in_flight, rules)
                    for end in (a.available.low, a.available.high)]
            rng = (min(ends), max(ends))
    return Pin(kind="vllm_estimated_max_model_len", printed=est, low=est, high=est, compare="own", rebuilt=rng,
               why=f"line {_line_no(text, m.start())}: 'estimated maximum model length is {est:,}' (the crash, "
                   "kept): the longest request whose KV need fits the available memory, exact, against tpkit's "
                   "binary search on the rebuilt layout over 'Available KV cache memory' ±0.005 GiB")


PINS = (pin_transcribed, pin_profiled, pin_no_budget, pin_not_enough_memory, pin_pool_end,
        pin_vllm_estimate, pin_vllm_no_blocks)
"""the line types tried in order, for a log whose full text prints no capacity line"""


def find_pin(data: bytes, full, stripped) -> Pin | None:
    """The first printed number of ``PINS`` that pins the pool of this log, None when none does."""
    text = data.decode("utf-8", "replace")
    for rule in PINS:
        pin = rule(text, full, stripped)
        if pin is not None:
            return pin
    return None


def no_pin_reason(data: bytes, full) -> str:
    """Why nothing pins the pool, in words (the log has no capacity line and no ``PINS`` line)."""
    text = data.decode("utf-8", "replace")
    failure = full.parsed.primary_failure
    engine = full.context.engine
    anchor = anchor_line(engine)
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", "```"))]
    last = max((i for i, ln in enumerate(lines) if anchor in ln), default=-1)
    why = []
    if engine == "sglang":
        cut = [ln for ln in lines if re.search(r"Cache is allocated\.\s*\w*\s*$", ln)]
        if cut:
            why.append(f"the pool line is cut before its number ({cut[0].strip()[-60:]!r})")
        if not full.parsed.anchors or all(x.name not in ("pool_end_avail", "kv_tokens", "kv_size", "kv_k_size")
                                          for x in full.parsed.anchors):
            why.append("no 'KV Cache is allocated', 'max_total_num_tokens', 'Memory pool end', profiled value, "
                       "KV-budget or 'Not enough memory' error is printed")
        elif any(x.name == "pool_end_avail" for x in full.parsed.anchors):
            why.append("'Memory pool end' is printed but the pool has other buffers (sliding, hybrid, draft) or no "
                       "cell is known")
    else:
        why.append("the only KV number is the anchor itself ('Available KV cache memory'); no capacity line, no "
                   "'estimated maximum model length' and no 'No available memory for the cache blocks'")
    if last == len(lines) - 1:
        why.append(f"the excerpt ends at '{anchor}'")
    if sum(ln.lstrip().startswith("|") for ln in lines) * 2 > len(lines):
        why.append("the file is a markdown table of runs that quotes the engine's messages, not the engine's "
                   "records (the quoted failure is one run's)")
    if failure is not None:
        why.append(f"it fails in phase {failure.phase} ({failure.kind.replace('_', ' ')})"
                   + (", the error text cut" if "Traceback" in text.splitlines()[-1] or text.rstrip().endswith(
                       ("Traceback (most recent call last):", "^^^^")) else ""))
    return "; ".join(why)


def _incomplete(e) -> str:
    """What the rebuild lacked, in words."""
    a = e.anchored
    if e.context.engine == "sglang" and a is not None:
        why = []
        if a.pre is None:
            why.append("no pre-load free memory ('Load weight begin', or 'Load weight end' avail + mem usage)")
        if a.fraction is None:
            why.append(f"mem_fraction_static {a.fraction_source or 'not printed'}")
        if a.cell_bytes is None:
            why.append(a.cell_source)
        return "; ".join(why) or e.kv_source
    return "; ".join(m for m in e.missing if "KV" in m) or e.kv_source or "engine not recognised"


def anchor_line(engine: str | None) -> str:
    """The line a log of ``engine`` must print for the check to score it: SGLang's 'Load weight end', vLLM's
    'Available KV cache memory'."""
    return "Load weight end" if engine == "sglang" else "Available KV cache memory"


def capacity_rows() -> list[dict]:
    """``check``'s row of every corpus log (tests/logs/data/cases.json, in its order) that prints its engine's
    ``anchor_line``: the rows this script prints, and those scripts/explain_golden.py and the corpus tests read."""
    sys.path.insert(0, str(ROOT / "src"))
    cases = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))
    models = model_map()
    return [check(case, models) for case in cases
            if anchor_line(case["engine"]) in (DATA / case["file"]).read_bytes().decode("utf-8", "replace")]


def main(argv: list[str]) -> int:
    rows = capacity_rows()
    if "--why" in argv:  # what each hit rests on (scripts/capacity_why.py)
        cases = {c["id"]: c for c in json.loads((DATA / "cases.json").read_text(encoding="utf-8"))}
        models = model_map()
        print("\n".join(audit(rows, cases, lambda case: check(case, models))))
    if "--json" in argv:
        json.dump(rows, sys.stdout, indent=1)
        return 0
    scored = [r for r in rows if r["outcome"] in ("hit", "miss", "bound")]
    hits = sum(r["outcome"] == "hit" for r in scored)
    print("| case | engine | printed | rebuilt range | outcome | why |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        rng = r.get("range_text") or (f"{r['range'][0]:,}–{r['range'][1]:,}" if r["range"] else "—")
        printed = f"{r['printed']:,}" if r["printed"] is not None else "—"
        if r.get("pin"):
            printed += f" ({r['pin']})"
        print(f"| {r['id']} | {r['engine']} | {printed} | {rng} | {r['outcome']} | {r['why']} |")
    withcfg = [r for r in rows if r["config"]]
    hits_all = sum(r["outcome"] == "hit" for r in rows)
    hits_cfg = sum(r["outcome"] == "hit" for r in withcfg)
    print(f"\n{len(rows)} logs print the anchor; {hits_all}/{len(rows)} rebuilt within the print rounding "
          f"({hits_all / max(len(rows), 1):.1%}); with a config in models.json: {hits_cfg}/{len(withcfg)}; "
          f"{len(scored)} print a capacity or a number that pins it ({sum(bool(r.get('pin')) for r in rows)} "
          f"pinned): {hits}/{len(scored)}; of those with a config: "
          f"{sum(r['outcome'] == 'hit' for r in withcfg if r['outcome'] != 'n/a')}/"
          f"{sum(r['outcome'] != 'n/a' for r in withcfg)}; hits on vLLM's no-blocks error (the anchor is the budget, "
          f"its sign checked): {sum(r['outcome'] == 'hit' and r.get('pin') == 'vllm_no_cache_blocks' for r in rows)}; "
          f"bound (unified memory, the pool's sample not printed: the printed count below the rebuilt range, only its "
          f"top pinned; not counted as hits): {sum(r['outcome'] == 'bound' for r in rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
