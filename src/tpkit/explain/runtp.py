"""The tensor-parallel size of an explained run when no dump or flag prints it (``explain.context``).

In the order ``build_context`` tries them: the rank prefixes of the log's lines (``tp_from_ranks``, with SGLang's
tagging era ``sglang_tag_era``), the engines' default of 1 where a launch record shows it
(``tp_default_evidence``), a rank-prefix bound raised to divide the attention heads (``tp_divides_heads``), and
for vLLM the log's numbers (``tp_from_numbers``: ``explain.tpinfer``).
"""

from __future__ import annotations

import re

from tpkit.explain.refusals import REFUSED
from tpkit.logs import ParsedLog
from tpkit.logs.engine import releases_in

__all__ = ["TP_CANDIDATES", "SGLANG_TP_TAG_ONLY_ABOVE_1", "tp_default_evidence",
           "sglang_tag_era", "tag_era_basis", "tp_divides_heads", "tp_from_numbers", "tp_from_process_names",
           "tp_from_ranks"]

TP_CANDIDATES = (1, 2, 4, 8)
"""tensor-parallel sizes tried when a log does not say which one ran"""


SGLANG_TP_TAG_ONLY_ABOVE_1 = (0, 4, 6, 2)
"""(major, minor, patch, post): from SGLang 0.4.6.post2 the scheduler's log prefix carries " TP{rank}" only when
tp_size > 1 (and " DP{rank}" only with a DP rank, " PP{rank}" / " EP{rank}" only when pp / ep > 1); before it,
every run tags its lines " TP{rank}" (managers/scheduler.py ``run_scheduler_process``: 0.4.6 and 0.4.6.post1
``prefix = f" TP{tp_rank}"`` unconditionally; ``if server_args.tp_size > 1: prefix += f" TP{tp_rank}"`` in
0.4.6.post2–post5, 0.4.7, 0.4.7.post1, 0.4.8, 0.4.8.post1, 0.4.9, 0.4.10, 0.5.4–0.5.12, 0.5.16–0.5.23 (0.5.18 and
0.5.23 in ``configure_scheduler_process``, with ``configured_tp_size()`` / ``get_parallel().tp_size``), read in
those wheels).  The same prefix goes to ``setproctitle`` (``sglang::scheduler`` alone for a tp-1 run)."""

_RELEASE = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?(?:\.?post(\d+))?")
_OPEN_POST = 10**6
"""a release named without a post number at the newest end of a range stands for all its post releases"""


def _release_keys(version: str | None) -> list[tuple[int, int, int, int]]:
    """(major, minor, patch, post) of each release ``logs.engine.releases_in`` reads from a version text, with the
    post number it carries ("0.4.6.post3" → (0, 4, 6, 3); "0.4.6" → (0, 4, 6, 0))."""
    from tpkit.engines.sglang.versions import release_key

    text = re.sub(r"\(.*?\)", "", version or "")
    text = re.sub(r"\+[\w.]+", "", text)
    found = releases_in(version)
    keys = [release_key(m.group(0)) for m in _RELEASE.finditer(text)]
    return keys if len(keys) == len(found) else [release_key(v) for v in found]


def sglang_tag_era(version: str | None, date: str | None, format_ranges: tuple[str, ...] = ()) -> str | None:
    """"tags_every_run" (SGLang before 0.4.6.post2), "tags_above_1" (0.4.6.post2 and later) or None (the log's
    releases, capped by its date (``versions.newest_by_date``), straddle 0.4.6.post2 or are unknown).

    ``version``: the explanation's version text (printed, or the first line format's range).  ``format_ranges``:
    the claims ('format of …: range') of every line format the log prints (``logs.engine.FORMAT_MARKERS``), used when the version
    was not printed: the oldest release is the highest first release among them.  A format's first release can
    be trusted for this boundary: each SGLang format starting after 0.4.6.post2 was read absent from a release
    at or after it (0.4.8 for 'Capturing batches (bs=', 0.5.8 for the 0.5.9 formats, 0.5.12 for 'KV Cache is
    allocated. dtype:', 0.5.13 for 'CUDA graph end. elapsed=', 0.5.20 for 'Memory baseline taken')."""
    from tpkit.engines.sglang.versions import newest_by_date

    keys = _release_keys(version)
    if not keys:
        return None
    oldest = keys[0]
    newest = keys[-1] if len(keys) == 1 else keys[-1][:3] + (keys[-1][3] or _OPEN_POST,)
    for text in format_ranges:
        first = _release_keys(text.split(": ", 1)[-1])[:1]
        oldest = max([oldest] + first)
    capped, _ = newest_by_date(".".join(map(str, newest[:3])), date)
    cap = _release_keys(capped)
    if cap and cap[0][:3] < newest[:3]:
        newest = cap[0][:3] + (_OPEN_POST,)
    if oldest >= SGLANG_TP_TAG_ONLY_ABOVE_1:
        return "tags_above_1"
    if newest < SGLANG_TP_TAG_ONLY_ABOVE_1:
        return "tags_every_run"
    return None


_SCHEDULER_RECORD = re.compile(
    rb"^[^\S\n]*(?:[^\[\n\d]{1,40})?\[(?:\d{4}-\d\d-\d\d[ T])?\d\d:\d\d:\d\d(?:[.,]\d{1,9})?"
    rb"(?: (?:DP|PP|EP|ATTN_CP|MOE_DP)\d{1,5}){0,5}\] "
    rb"(Load weight begin|Load weight end|KV Cache is allocated|Memory pool end|max_total_num_tokens=)", re.M)
"""an SGLang scheduler record (ModelRunner and the scheduler log them from the scheduler process, whose logger
carries the rank prefix: managers/scheduler.py ``run_scheduler_process`` → ``configure_logger(server_args,
prefix=prefix)``, utils ``configure_logger`` format ``[%(asctime)s{prefix}]``) printed with SGLang's header and no
TP word in it (a DP, PP, EP, ATTN_CP or MOE_DP word may be there: each is added on its own condition)"""


def _untagged_scheduler_record(raw: bytes | None) -> str | None:
    """'line N: [header] Load weight end…' for the first scheduler record the log prints with SGLang's header and
    no TP word, or None (no such record: a log that lost its headers cannot show a missing tag)."""
    m = _SCHEDULER_RECORD.search(raw or b"")
    if m is None:
        return None
    line_no = raw.count(b"\n", 0, m.start()) + 1
    text = raw[m.start():m.end()].decode("utf-8", "replace").strip()
    return f"line {line_no}: '{text}'"


def tag_era_basis(version: str | None, format_ranges: tuple[str, ...] = ()) -> str:
    """In words, what sets the oldest release ``sglang_tag_era`` reads: the version text, or the line format
    (its claim, 'format of …: range') whose range starts latest when that is later than the version's first
    release."""
    def first(claim: str) -> tuple[int, int, int, int]:
        return (_release_keys(claim.split(": ", 1)[-1])[:1] or [(0, 0, 0, 0)])[0]

    keys = _release_keys(version)
    best = max(format_ranges, key=first, default=None)
    if best is not None and keys and first(best) > keys[0]:
        return re.sub(r" [(][^()]*[)]$", "", best.removeprefix("format of "))
    return str(version)


def tp_from_ranks(parsed: ParsedLog, values: dict, sources: dict, notes: list, era: str | None = None,
                   raw: bytes | None = None, era_basis: str | None = None) -> None:
    """tp from the rank prefixes when no dump or flag prints it: the highest TP index + 1 ('TP0' … 'TP7' → 8).
    A rank the excerpt leaves out would make it larger.  Rank 0 alone pins tp only where the engine tags every
    run: SGLang before 0.4.6.post2 (tp 1, stated as assumed: an excerpt of rank 0 looks the same).  SGLang from
    0.4.6.post2 tags lines only when tp > 1 (``SGLANG_TP_TAG_ONLY_ABOVE_1``), so there a log whose scheduler
    records carry SGLang's header without a TP tag ran tp 1 (inferred, with the record as evidence: a log without
    headers shows no tag either way, so it is not read as tp 1), and a 'TP0' tag means tp ≥ 2; vLLM names a
    'Worker_TP0' process only when tp > 1 (multiproc_executor.py setup_proc_title_and_log_prefix)."""
    seen = sorted({r.tp for r in parsed.ranks if r.role == "worker" and r.tp is not None})
    sglang = parsed.engine.engine == "sglang"
    tags_only_above_1 = sglang and era == "tags_above_1"
    if not seen:
        record = _untagged_scheduler_record(raw) if tags_only_above_1 else None
        if record is not None:
            values["tp"] = 1
            sources["tp"] = (f"inferred: {record} is a scheduler record with no TP tag, and from 0.4.6.post2 "
                             f"(the log's release: {era_basis or parsed.engine.version}) SGLang tags the scheduler's lines ' TPn' "
                             "only when tp > 1 (managers/scheduler.py run_scheduler_process)")
        elif tags_only_above_1:
            notes.append("tp: not printed; no scheduler record with SGLang's header to show whether it is "
                         "tagged ' TPn': 1 assumed (pass --tp)")
        elif sglang:
            notes.append("tp: not printed and no TP rank prefix in the log: 1 assumed")
        return
    if seen[-1] == 0:
        if sglang and era == "tags_every_run":
            values["tp"] = 1
            sources["tp"] = ("assumed from the rank prefix TP0 alone: SGLang before 0.4.6.post2 tags every run ' TP0', "
                             "so a tp-1 log shows only TP0 (an excerpt of rank 0 of a larger tp would look the same)")
        else:
            notes.append("tp: not printed; the log shows rank TP0 only, which a tp > 1 run prints too "
                         "(pass --tp)")
        return
    values["tp"] = seen[-1] + 1
    shown = f"TP{seen[0]}" if len(seen) == 1 else f"TP{seen[0]}…TP{seen[-1]} ({len(seen)} ranks)"
    sources["tp"] = (f"inferred from the rank prefixes {shown}: not printed; a rank missing from the log would make "
                     "it larger")


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


def tp_divides_heads(model, values: dict, sources: dict) -> None:
    """A tp read off the rank prefixes is a lower bound (a rank the excerpt leaves out makes it larger); both
    engines require tp to divide the attention heads (SGLang and vLLM assert it when they build the model), so the
    bound is raised to the smallest tp that does ('TP0…TP5' of a 128-head model → 8)."""
    tp, heads = values.get("tp"), getattr(model, "num_attention_heads", None)
    if not tp or not heads or not sources.get("tp", "").startswith("inferred from the rank prefixes") or heads % tp == 0:
        return
    raised = next((t for t in range(tp, heads + 1) if heads % t == 0), None)
    if raised is None:  # more ranks than heads: no tp ≥ the bound can run this model (a fuzzed or mismatched log)
        sources["tp"] += (f"; {tp} ranks exceed the model's {heads} attention heads, so no tp ≥ {tp} divides them "
                          "(the engines require it): the model given may not be the one that ran (pass --model)")
        return
    sources["tp"] += (f"; raised from {tp} to {raised}, the smallest tp ≥ {tp} that divides the model's {heads} "
                      "attention heads (the engines require it)")
    values["tp"] = raised


def tp_from_numbers(parsed: ParsedLog, model, values: dict, sources: dict, raw: bytes | None, spec=None):
    """vLLM: the tp from the log's text bounds and its 'Model loading took' (``explain.tpinfer``; with a
    speculative drafter, its weights too: ``explain.vspec.with_drafter``); set when exactly one of ``TP_CANDIDATES`` survives.
    Returns the ``TpInference`` (None when nothing bears on it)."""
    from functools import partial

    from tpkit.explain.tpinfer import infer_tp, predicted_weights, tp_hints
    from tpkit.explain.vspec import with_drafter
    from tpkit.logs.settings import kernel_line

    hints = tp_hints(raw or b"", pp=values.get("pp"), dp=values.get("dp"))
    found_kernel = kernel_line((raw or b"")[:4_000_000].decode("utf-8", "replace")) if raw and b"Kernel for " in raw \
        else None
    kernel = found_kernel[0] if found_kernel else None
    w = [a for a in parsed.anchors if a.name == "weights" and a.size is not None and a.group is None]
    weights = None
    if w:
        top = max(w, key=lambda a: a.size.value.bytes)  # the limiting rank's load (ranks of one tp print alike)
        weights = (top.size, top.line_no)
    try:
        found = infer_tp(model=model, weights=weights, hints=hints, candidates=TP_CANDIDATES,
                         pp=int(values.get("pp") or 1), dtype=values.get("dtype"),
                         quantization=values.get("quantization"),
                         predict=with_drafter(spec, kernel=kernel) if spec is not None and spec.has_drafter
                         else partial(predicted_weights, kernel=kernel))
    except REFUSED:  # a config the planner cannot size leaves the tp unknown
        return None
    if found is not None and found.tp is not None:
        values["tp"], sources["tp"] = found.tp, found.text()
    return found


def tp_from_process_names(raw: bytes | None, values: dict, sources: dict, notes: list) -> None:
    """vLLM, when neither the log's settings nor its numbers gave the tp: the lower bound its worker process names
    give (``explain.tpinfer.process_tp_hint``: '_TP<rank>' is added only when tp > 1): the highest rank + 1, as the
    rank-prefix rule takes it, also from a header cut before its pid ('(Worker_TP1 pid=' at the end of an excerpt,
    which the record splitter does not take for a header); a 'Worker_TP0' alone bounds it (tp ≥ 2) without giving
    a size, which is said and left to --tp (or to the log's numbers, ``tp_from_numbers``, which use the bound)."""
    from tpkit.explain.tpinfer import process_tp_hint

    hint = process_tp_hint(raw or b"")
    if hint is None:
        return
    if hint.rank == 0:
        notes[:] = [n for n in notes if not n.startswith("tp: not printed; the log shows rank TP0 only")]
        notes.append(f"tp: not printed; {hint.text}; the size itself is not shown (pass --tp)")
        return
    values["tp"] = hint.low
    sources["tp"] = (f"inferred from the rank prefixes (line {hint.line_no}: {hint.text}); not printed; a rank missing "
                     "from the log would make it larger")
    notes[:] = [n for n in notes if not n.startswith("tp: not printed; the log shows rank TP0 only")]
