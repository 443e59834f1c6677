"""Who printed a line: the header of a log record and the rank it names.

Headers seen in real logs (each alternative below is one of them)::

    [2025-07-22 10:11:12 DP0 TP3] …                      SGLang (0.2 → 0.5.x), ranks in the brackets
    [2025-07-22 10:11:12.345 PP1 TP0 EP0] …              SGLang with SGLANG_LOG_MS, PP/EP
    INFO 07-22 10:11:12 [gpu_worker.py:349] …           vLLM ≥ 0.8
    INFO 12-20 20:25:46 worker.py:241] …                vLLM ≤ 0.7
    (VllmWorker rank=1 pid=123) INFO …                   vLLM V1 multiprocessing worker
    (VllmWorkerProcess pid=90) INFO …                    vLLM V0 worker (no rank number, only a pid)
    (RayWorkerWrapper pid=1463574, ip=10.0.0.6) INFO …   vLLM on Ray
    (Worker_TP3_EP3 pid=2081) / (EngineCore_DP0 pid=1944) / (APIServer pid=1)   vLLM ≥ 0.10
    2026-08-20 17:22:38,159 - INFO - …                   Python logging default
    2026-02-24T20:21:58Z / [2026-02-24T20:21:58Z]        container and CI time stamps
    level=INFO name=vllm.v1.worker.gpu_worker msg="…"    structured logging

Several records glued on one line (a paste that lost its newlines) are split at each header.
"""

from __future__ import annotations

import re

from tpkit.records import dataclass

__all__ = ["RankKey", "MAIN", "Record", "split_records", "has_header"]

_TOKEN = re.compile(
    r"(?P<sgl>\[(?:\d{4}-\d\d-\d\d[ T])?\d\d:\d\d:\d\d(?:[.,]\d{1,9})?"
    r"(?P<sglranks>(?: (?:DP|TP|PP|EP|CP|ATTN_CP|ATTN_DP|MOE_DP)\d{1,5}){0,6})\])"
    r"|(?P<proc>[(\[]?\b(?P<name>[A-Za-z][A-Za-z0-9_]{0,60})(?: rank=(?P<rank>\d{1,6}))? pid=(?P<pid>\d{1,9})"
    r"(?:, ip=(?P<ip>[^,)\]\s]{1,64}))?[^)\]\n]{0,120}[)\]])"
    r"|(?P<lvl>\b(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)(?: +\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,9})?)?"
    r"(?: *\[[\w.-]{1,80}(?::\d{1,6})?\]| +[\w.-]{1,80}\.py:\d{1,6}\])"
    r"|\b(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) +\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,9})?)"
    r"|(?P<pylog>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) - )"
    r"|(?P<iso>\[?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z?\]?)"
    r"|(?P<kv>level=(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) (?:name=\S{1,120} )?msg=\"?)"
)
_RANK_WORD = re.compile(r"(DP|TP|PP|EP|CP|ATTN_CP|ATTN_DP|MOE_DP)(\d{1,5})")
_GAP = re.compile(r"[\s|>`*:-]*")
"""what may sit between two header tokens of one record, or before the first"""


@dataclass(frozen=True, kw_only=True, slots=True)
class RankKey:
    """The process a record came from."""

    label: str
    """as the log names it: ``"TP3"``, ``"DP0 TP3"``, ``"VllmWorker rank=1"``, ``"Worker_TP1_EP1"``, ``"main"``"""
    role: str = "main"
    """``"worker"`` (one GPU rank), ``"engine"`` (a vLLM engine core) or ``"main"`` (no rank named)"""
    tp: int | None = None
    pp: int | None = None
    dp: int | None = None
    ep: int | None = None
    worker_rank: int | None = None
    """vLLM's ``rank=`` (global worker rank)"""
    pid: int | None = None
    host: str | None = None
    """Ray's ``ip=``"""

    def index(self, *, tp_size: int | None = None) -> int | None:
        """The rank number ``--rank N`` selects: vLLM's rank=, else the (global) TP rank."""
        if self.worker_rank is not None:
            return self.worker_rank
        if self.tp is None:
            return None
        if self.pp and tp_size:
            return self.pp * tp_size + self.tp
        return self.tp

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("label", "role", "tp", "pp", "dp", "ep", "worker_rank", "pid", "host")}


MAIN = RankKey(label="main")


@dataclass(frozen=True, kw_only=True, slots=True)
class Record:
    """One log record: its header's rank and the message after the header."""

    rank: RankKey | None
    """None when the record has no header (a continuation line): the caller decides"""
    level: str | None
    message: str


def _words(text: str) -> dict[str, int]:
    return {k.lower(): int(v) for k, v in _RANK_WORD.findall(text)}


def _from_sglang(ranks: str) -> RankKey:
    words = _words(ranks)
    if not words:
        return MAIN
    return RankKey(label=ranks.strip(), role="worker", tp=words.get("tp"), pp=words.get("pp"),
                   dp=words.get("dp") if "dp" in words else words.get("attn_dp"), ep=words.get("ep"))


def _from_process(m: re.Match) -> RankKey:
    name, rank, pid, ip = m.group("name"), m.group("rank"), m.group("pid"), m.group("ip")
    words = _words(name)
    pid_i = int(pid) if pid else None
    if name.startswith(("APIServer", "api_server")):
        return MAIN
    if name.startswith("EngineCore"):
        return RankKey(label=name, role="engine", dp=words.get("dp", 0), pid=pid_i)
    label = f"{name} rank={rank}" if rank else (name if words else f"{name} pid={pid}")
    return RankKey(label=label, role="worker", tp=words.get("tp"), pp=words.get("pp"), dp=words.get("dp"),
                   ep=words.get("ep"), worker_rank=int(rank) if rank else None, pid=pid_i, host=ip)


def _group_rank(tokens: list[re.Match]) -> tuple[RankKey | None, str | None]:
    rank: RankKey | None = None
    level = None
    for m in tokens:
        if m.group("sgl"):
            found = _from_sglang(m.group("sglranks") or "")
            rank = found if (rank is None or found.role != "main") else rank
        elif m.group("proc"):
            found = _from_process(m)
            if rank is None or rank.role == "main" or found.role == "worker":
                rank = found
        else:
            text = m.group(0)
            for word in ("ERROR", "CRITICAL", "WARNING", "WARN", "INFO", "DEBUG"):
                if word in text:
                    level = word
                    break
            rank = rank if rank is not None else MAIN
    return rank, level


def _groups(line: str) -> list[tuple[int, int, list[re.Match]]]:
    """(start, end of header, tokens) for each header group in the line."""
    groups: list[tuple[int, int, list[re.Match]]] = []
    for m in _TOKEN.finditer(line):
        if groups and _GAP.fullmatch(line, groups[-1][1], m.start()):
            start, _, tokens = groups[-1]
            groups[-1] = (start, m.end(), tokens + [m])
        else:
            groups.append((m.start(), m.end(), [m]))
    return groups


def _is_wrapper(head: str) -> bool:
    """Text before the first header that only wraps it (``vLLM STDOUT:``, ``svc-1  |``, markdown)."""
    return len(head) <= 40 and not any(ch.isdigit() for ch in head) and "Error" not in head


def split_records(line: str) -> list[Record]:
    """The records of one line: normally one; several when records were glued together."""
    groups = _groups(line) if len(line) > 6 else []
    if not groups or not _is_wrapper(line[:groups[0][0]]):
        head_end = groups[0][0] if groups else len(line)
        records = [Record(rank=None, level=None, message=line[:head_end])]
    else:
        records = []
    for i, (start, end, tokens) in enumerate(groups):
        stop = groups[i + 1][0] if i + 1 < len(groups) else len(line)
        rank, level = _group_rank(tokens)
        message = line[end:stop]
        if message.endswith('"') and tokens[-1].group("kv"):
            message = message[:-1]
        records.append(Record(rank=rank, level=level, message=message))
    return [r for r in records if r.message.strip() or r.rank is not None]


def has_header(line: str) -> bool:
    """True when the line starts with a recognised header (used to find the owner of a continuation)."""
    m = _TOKEN.search(line, 0, 400)
    return bool(m) and _GAP.fullmatch(line, 0, m.start()) is not None
