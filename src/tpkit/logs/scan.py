"""One linear pass over a log.

Speed comes from never reading most lines: ``tpkit.logs.prefilter`` picks the lines whose template holds a
trigger, and only those are split into records and read here.
"""

from __future__ import annotations

from dataclasses import field, replace
from itertools import accumulate

from tpkit.logs import engine as eng, failures as fl, prefilter as pf
from tpkit.logs.anchors import Anchor
from tpkit.logs.command import command_settings, is_command
from tpkit.logs.gpu_names import GPU_NEEDLES, gpu_in
from tpkit.logs.lazyre import lazy
from tpkit.logs.phases import constructor_label, encoder_phase, serving_loop_phase
from tpkit.logs.prefix import MAIN, RankKey, has_header, split_records
from tpkit.logs.recovered import relogged_exception
from tpkit.logs.rules import NEEDLES, apply_rules_wrapped, next_line
from tpkit.logs.run import raw_line_settings
from tpkit.logs.settings import Setting, settings_from_record
from tpkit.logs.text import MAX_LINE_CHARS, clean_line
from tpkit.records import dataclass

__all__ = ["Scan", "scan_text"]

_TB_START = "Traceback (most recent call last)"
_FRAME = lazy(r'File "([^"\n]{1,500})", line (\d{1,7}), in ([\w<>.]{1,200})')
_CALL_TREE = lazy(r"^\s*(?:[└├│|`+\-]+\s*)?([A-Za-z_]\w{2,120})\(\)\s*(?:(?:←|<-|#|at)\s*[\w./-]{0,200}:?\d{0,7}\s*)?$")
"""one line of a summarised call tree, as pasted in an issue or a post: ``name()``, optionally behind tree
glyphs and followed by ``← file.py:line``"""
_PY_WARNING = lazy(r"\.py:\d{1,7}: (?:[\w.]{1,200}\.)?[A-Z]\w{0,80}Warning: ")
"""the header of a Python warning as ``warnings.formatwarning`` prints it: ``file.py:LINE: Category: message``,
then the message's further lines and the warned line of source, indented (``  queued_call()``)"""
_WARNING_REACH = 10
"""lines after a warning header in which a bare ``name()`` line is the warning's source line, not a call tree"""
_NO_STEP = "last start-up step logged before it: none"
_EXCEPTION = lazy(r"^\s*(?:[\w.]{1,200}\.)?([A-Z]\w{0,80}(?:Error|Exception|Exit))\b(?:\([\w.]{0,80}\))?:? ?"
                        r"(.{0,300})")
_WORKER_METHOD = lazy(r"Exception in worker \S{1,80}(?: \S{1,80})? while processing method (\w{1,80})")
"""V0's multiprocessing worker logs the method it ran, then the traceback (``logger.exception("Exception in worker %s
while processing method %s.", ...)``, executor/multiproc_worker_utils.py ``_run_worker_process``, 0.6.3.post1, 0.10.1;
0.5.5: ``"…method %s: %s, %s"``, e, tb, on the header's line, ex34's axolotl#1971): the method (``load_model``,
``determine_num_available_blocks``, ``initialize_cache``, ``start_worker_execution_loop``) is that traceback's outermost
call; V0's driver runs one method on every worker at a time (``_run_workers``): a sibling's header places an error"""
_SOURCE_CALL = lazy(r"^\s{1,40}(?:[\w.]{1,80}(?:\s*,\s*[\w.]{1,80}){0,6}\s*=\s*)?(?:await\s+|return\s+)?"
                   r"(?:[A-Za-z_]\w{0,80}\.){0,6}([A-Za-z_]\w{0,80})\(")
"""the source line Python prints under a traceback frame, when it is a call: ``    self.load_model()``,
``    self.tp_worker = TpModelWorker(``"""
_STARTUP_FAILED = lazy(r"Engine core initialization failed|EngineCore failed to start")
"""vLLM V1's start-up failure headers: the API server's RuntimeError (v1/engine/utils.py wait_for_engine_startup)
and the engine core's log line (v1/engine/core.py run_engine_core), 0.17.0 and 0.20.0 wheels"""
_NEWLINE = lazy(r"\n")
_MID_PREFIX = lazy(r"\((?:VllmWorker|EngineCore|Worker_TP)")
"""a vLLM process header inside a line (``logs.engine.FORMAT_MARKERS``' '(…' literals), read for its format"""
_IGNORED, _IGNORED_REACH = "Exception ignored in", 6
"""CPython's default ``sys.unraisablehook`` writes "Exception ignored in: {obj!r}", a traceback and its exception
line for an error it cannot raise (a ``__del__``'s) and the program goes on (Python docs): not the run's failure
(round ex32: flashinfer#2546); the exception line comes within ``_IGNORED_REACH`` lines of the last frame"""
_WINDOW_LINES, _LOOKBACK_LINES = 10, 200
_TB_REACH = 120
"""a failure is explained by a traceback whose last frame is at most this many lines earlier"""


@dataclass(kw_only=True, slots=True)
class _Traceback:
    start: int
    last: int
    frames: list[str] = field(default_factory=list)
    closed: bool = False
    ignored: int = 0  # 1: Python's "Exception ignored in: …" report (``_IGNORED``), 2: its exception line read


@dataclass(kw_only=True, slots=True)
class Scan:
    """Everything the pass collected; :mod:`tpkit.logs.parsed` turns it into a ``ParsedLog``."""

    text: str
    anchors: list[tuple[str, Anchor]] = field(default_factory=list)
    settings: list[Setting] = field(default_factory=list)
    failures: list[fl.Failure] = field(default_factory=list)
    ranks: dict[str, RankKey] = field(default_factory=dict)
    votes: dict[str, int] = field(default_factory=dict)
    evidence: list[eng.Evidence] = field(default_factory=list)
    formats: dict[int, eng.Evidence] = field(default_factory=dict)
    sources: dict[str, eng.Evidence] = field(default_factory=dict)
    """the first record naming each engine-specific source file, function or module path"""
    gpu_names: list[tuple[str, str | None, int, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    line_count: int = 0
    clipped_lines: int = 0
    colour_codes: int = 0
    _state: dict[str, str] = field(default_factory=dict)
    _tracebacks: dict[str, _Traceback] = field(default_factory=dict)
    _warnings: dict[str, int] = field(default_factory=dict)  # per rank: the last Python warning header's line
    _past: list[_Traceback] = field(default_factory=list)  # every traceback with frames, in order (``finish``)
    _methods: dict[str, tuple[int, str]] = field(default_factory=dict)  # per rank: V0's worker method header
    _orphans: list[tuple[int, RankKey, str]] = field(default_factory=list)  # exception lines with no traceback
    _starts: list[int] | None = None  # line start offsets (``_line_start``), counted on first use
    _last_rank: RankKey = MAIN
    _last_end: int = 0
    _consumed: set = field(default_factory=set)

    # -- ownership of header-less lines -----------------------------------------------------------
    def _owner(self, start: int) -> RankKey:
        """Rank of the nearest earlier line with a header (a continuation belongs to its record)."""
        pos, steps = start, 0
        while pos > self._last_end and steps < _LOOKBACK_LINES:
            prev_start = self.text.rfind("\n", 0, pos - 1) + 1
            if prev_start < self._last_end:
                break
            line = clean_line(self.text[prev_start:pos - 1][:4000])[0]
            if has_header(line):
                records = split_records(line[:4000])
                ranked = [r.rank for r in records if r.rank is not None]
                return ranked[-1] if ranked else self._last_rank
            pos, steps = prev_start, steps + 1
        return self._last_rank

    def _window(self, end: int) -> str:
        stop = end
        for _ in range(_WINDOW_LINES):
            nxt = self.text.find("\n", stop + 1)
            stop = len(self.text) if nxt < 0 else nxt
        return self.text[end:min(stop, end + 4000)]

    # -- per record --------------------------------------------------------------------------------
    def line(self, line_no: int, start: int, line: str) -> None:
        end = start + len(line)
        if len(line) > MAX_LINE_CHARS:
            self.clipped_lines += 1
            line = line[:MAX_LINE_CHARS]
        line, codes = clean_line(line)
        self.colour_codes += codes
        if line.startswith(("(", "[")):
            self._prefix_formats(line_no, line)
            if line.startswith("[") and eng.SGLANG_HEADER.match(line):
                self.votes["sglang"] = self.votes.get("sglang", 0) + 1
        elif "(" in line and (mid := _MID_PREFIX.search(line, 0, 4000)):
            self._prefix_formats(line_no, line[mid.start():])  # a progress bar glued before the header (vl_1292)
        self._source_line_format(line_no, line)
        self.settings += raw_line_settings(line, line_no=line_no)
        owner = None
        records = split_records(line)
        for i, record in enumerate(records):
            rank = record.rank
            if rank is None:
                owner = owner or self._owner(start)
                rank = owner
            self.ranks.setdefault(rank.label, rank)
            if record.rank is not None and rank.label != "main":
                for engine, names in eng.PROCESS_NAMES:
                    if names.match(rank.label):
                        self.votes[engine] = self.votes.get(engine, 0) + 1
            last = i == len(records) - 1 and any(n in record.message for n in NEEDLES)
            following = next_line(self.text, end) if last else None
            self._record(line_no, start, end, rank, record.message, record.level, following)
            self._last_rank = rank
        self._last_end = end + 1

    def _record(self, line_no: int, start: int, end: int, rank: RankKey, message: str,
                level: str | None = None, following: str | None = None) -> None:
        self._engine_evidence(line_no, message, end)
        for engine, anchor in apply_rules_wrapped(message, following, rank=rank, line_no=line_no):
            self.anchors.append((engine, anchor))
            self.votes[engine] = self.votes.get(engine, 0) + 2
        self.settings += settings_from_record(message, line_no=line_no)
        if is_command(message):
            self._command(line_no, start, message)
        state = fl.marker(message)
        if state:
            self._advance(rank, state)
        self._frames(line_no, rank, message)
        self._failures(line_no, end, rank, message, level)
        if any(n in message for n in GPU_NEEDLES):
            found = gpu_in(message)
            if found:
                self.gpu_names.append((found[0], found[1], line_no, message.strip()[:300]))

    def _prefix_formats(self, line_no: int, line: str) -> None:
        """Format markers that are process prefixes ("(EngineCore pid=…)"): the record splitter strips them from
        the message, so they are read off the raw line."""
        head = line[:80]
        for i, (engine, pattern, shows, versions, generation) in enumerate(eng.PREFIX_PATTERNS):
            key = -1 - i  # before every marker: formats are read in key order and the first one names the range
            if key not in self.formats and pattern.match(head):
                suffix = f" [{generation}]" if generation else ""
                self.formats[key] = eng.Evidence(engine=engine, claim=f"format of {shows}: {versions}{suffix}",
                                                 line_no=line_no, text=line.strip()[:300])
        for i, (engine, literal, versions, generation) in enumerate(eng.FORMAT_MARKERS):
            if literal.startswith("(") and i not in self.formats and head.startswith(literal):
                suffix = f" [{generation}]" if generation else ""
                self.formats[i] = eng.Evidence(engine=engine, claim=f"format of {literal!r}: {versions}{suffix}",
                                               line_no=line_no, text=line.strip()[:300])

    def _source_line_format(self, line_no: int, line: str) -> None:
        """vLLM's ``[file.py:N]`` prefix: the logger call's line number ties some records to a release range
        (``engine.SOURCE_LINES``); the record splitter strips the prefix, so it is read off the raw line."""
        found = eng.source_line_format(line)
        if found is None:
            return
        key = len(eng.FORMAT_MARKERS) + len(eng.FORMAT_PATTERNS) + found[0]
        if key not in self.formats:
            self.formats[key] = replace(found[1], line_no=line_no)

    def _engine_evidence(self, line_no: int, message: str, end: int) -> None:
        for engine, words in eng.ENGINE_WORDS:
            if any(w in message for w in words):
                self.votes[engine] = self.votes.get(engine, 0) + 1
        version = eng.printed_version(message, self.text, end)  # this record, or a query and its answer below
        if version:
            self.evidence.append(eng.Evidence(engine=version[0], claim=f"version {version[1]} printed",
                                              line_no=line_no, text=version[2]))
            self.votes[version[0]] = self.votes.get(version[0], 0) + 5
        for i, (engine, literal, versions, generation) in enumerate(eng.FORMAT_MARKERS):
            if literal in message:
                self.votes[engine] = self.votes.get(engine, 0) + 1
            if i not in self.formats and literal in message:
                suffix = f" [{generation}]" if generation else ""
                self.formats[i] = eng.Evidence(engine=engine, claim=f"format of {literal!r}: {versions}{suffix}",
                                               line_no=line_no, text=message.strip()[:300])
        for i, (engine, pattern, shows, versions, generation) in enumerate(eng.FORMAT_PATTERNS):
            key = len(eng.FORMAT_MARKERS) + i
            if key not in self.formats and "GPU KV cache size" in message and pattern.search(message.rstrip()
                                                                                              .rstrip('"')):
                suffix = f" [{generation}]" if generation else ""
                self.formats[key] = eng.Evidence(engine=engine, claim=f"format of {shows}: {versions}{suffix}",
                                                 line_no=line_no, text=message.strip()[:300])
        if any(t in message for t in pf.SOURCE_TRIGGERS):
            for engine, name, where in eng.source_names_in(message):
                if "/" not in name:
                    self.votes[engine] = self.votes.get(engine, 0) + 1
                if name not in self.sources and len(self.sources) < 32:
                    self.sources[name] = eng.Evidence(engine=engine, claim=f"source name {name!r}: {where}",
                                                      line_no=line_no, text=message.strip()[:300])

    def _command(self, line_no: int, start: int, message: str) -> None:
        """A launch command, with the lines joined by trailing backslashes before and after it."""
        if line_no in self._consumed:
            return
        before, first = [], start
        while first > 0 and len(before) < 60:
            prev = self.text.rfind("\n", 0, first - 1) + 1
            line = clean_line(self.text[prev:first - 1])[0]
            if not line.rstrip().endswith("\\"):
                break
            before.insert(0, line)
            first = prev
        end = self.text.find("\n", start) % (len(self.text) + 1)  # the raw line's end (-1: the text's end)
        parts, number = [*before, message], line_no
        while parts[-1].rstrip().endswith("\\") and len(parts) < 120 and end < len(self.text):
            nxt = self.text.find("\n", end + 1)
            nxt = len(self.text) if nxt < 0 else nxt
            parts.append(clean_line(self.text[end + 1:nxt])[0])
            end, number = nxt, number + 1
            self._consumed.add(number)
        engine, found = command_settings("\n".join(parts), line_no=line_no - len(before))
        self.settings += found
        if engine:
            self.votes[engine] = self.votes.get(engine, 0) + 3

    def _advance(self, rank: RankKey, state: str) -> None:
        """Per-rank step, and the furthest step any rank reached (reset when a rank starts over)."""
        order = fl.STEP_ORDER
        before = self._state.get(rank.label)
        self._state[rank.label] = state
        furthest = self._state.get("*")
        restarted = before is not None and order.index(state) < order.index(before)
        if furthest is None or restarted or order.index(state) > order.index(furthest):
            self._state["*"] = state

    # -- tracebacks and failures ---------------------------------------------------------------------
    def _frames(self, line_no: int, rank: RankKey, message: str) -> None:
        if "while processing method" in message and (m := _WORKER_METHOD.search(message)):
            self._methods[rank.label] = (line_no, m.group(1))
        if _TB_START in message:
            tb = self._tracebacks[rank.label] = _Traceback(start=line_no, last=line_no)
            above = self._line_start(line_no - 1)
            tb.ignored = int(above is not None and self.text.startswith(_IGNORED, above))
            header = self._methods.pop(rank.label, None)
            if header is not None and 0 <= line_no - header[0] <= 2:
                tb.frames.append(f"{header[1]} (the worker method of V0's header, line {header[0]})")
        if "Warning: " in message and _PY_WARNING.search(message):
            self._warnings[rank.label] = line_no
        frames = _FRAME.findall(message)
        if not frames:
            m = _CALL_TREE.match(message) if "()" in message else None
            if m is None or self._warned_source_line(rank, line_no):
                return
            frames = [("call tree", "", m.group(1))]
        tb = self._tracebacks.get(rank.label)
        if tb is None or tb.closed:
            tb = self._tracebacks[rank.label] = _Traceback(start=line_no, last=line_no)
        if (not self._past or self._past[-1] is not tb) and not tb.ignored:
            self._past.append(tb)
        for path, _, func in frames[:200]:
            tb.frames.append(f"{func} ({path.rsplit('/', 1)[-1]}{constructor_label(path, func)})")
        tb.last = line_no
        del tb.frames[:-400]

    def _warned_source_line(self, rank: RankKey, line_no: int) -> bool:
        """A bare ``name()`` line just after a Python warning header is the line of source the warning quotes
        (``warnings.formatwarning``: the header, the message's lines, then the source line indented), not a frame:
        torch's 'Found GPU0 NVIDIA GB10 which is of cuda capability 12.1' UserWarning quotes ``queued_call()``
        (vl_345).  Without this, only the every-line read took it for a call tree cut before its exception (the
        prefilter skips the line), so the two reads disagreed on a healthy start-up."""
        warned = self._warnings.get(rank.label)
        if warned is None or line_no - warned > _WARNING_REACH:
            return False
        tb = self._tracebacks.get(rank.label)
        return tb is None or tb.start < warned or tb.closed

    def _traceback_for(self, rank: RankKey, line_no: int) -> _Traceback | None:
        own = self._tracebacks.get(rank.label)
        if own is not None and own.frames and not own.ignored and line_no - own.last <= _TB_REACH:
            return own
        recent = [tb for tb in self._tracebacks.values()
                  if tb.frames and not tb.ignored and line_no - tb.last <= _TB_REACH]
        return max(recent, key=lambda tb: tb.last) if recent else None

    def _phase(self, kind: str, rank: RankKey, line_no: int, message: str = "") -> tuple[str, str]:
        if kind in fl.KIND_PHASE:
            return fl.KIND_PHASE[kind], f"the failure itself ({kind})"
        loading = (fl.load_phase(message) or serving_loop_phase(message) or fl.npu_capture_phase(message)
                   or fl.memsaver_phase(message))
        if loading:
            return loading
        tb = self._traceback_for(rank, line_no)
        state = self._state.get(rank.label) or self._state.get("*")
        if tb is not None:
            found = fl.traceback_phase(tb.frames, state)
            if found:
                return found
        if _STARTUP_FAILED.search(message[:300]):
            found = self._root_cause_above(line_no, state)
            if found:
                return found
        return fl.warmup_phase(message, state) or (fl.marker_phase(state),
                                                   f"last start-up step logged before it: {state or 'none'}")

    def _failures(self, line_no: int, end: int, rank: RankKey, message: str, level: str | None = None) -> None:
        found = fl.detect(message, self._window(end)) if _may_fail(message) else []
        ignored = [tb for tb in self._tracebacks.values() if tb.ignored == 1 and 0 < line_no - tb.last <= _IGNORED_REACH]
        if ignored and not found and _EXCEPTION.match(message):  # the unraisable report's exception line
            ignored[0].ignored, ignored[0].closed = 2, True
            return
        if not found:
            tb = self._tracebacks.get(rank.label)
            m = _EXCEPTION.match(message) if tb is not None and not tb.closed and tb.frames else None
            if m is None and len(self._orphans) < 64 and level not in ("WARNING", "WARN", "INFO", "DEBUG") \
                    and (tb is None or tb.closed) and ("Error" in message or "Exception" in message) \
                    and (o := _EXCEPTION.match(message)):
                self._orphans.append((line_no, rank, f"{o.group(1)}: {o.group(2)}".strip()))
            if m:
                # a traceback the engine logged at WARNING/INFO level is a handled exception, not the failure
                # (vLLM's utils/import_utils.py _has_module logs a failed optional import, its traceback and the
                # exception line, with logger.warning on every line; 0.23.0 wheel)
                handled = level in ("WARNING", "WARN", "INFO", "DEBUG")
                found = [("exception", "warning" if handled else "error", (), (), f"{m.group(1)}: {m.group(2)}".strip())]
                if handled:
                    tb.closed = True
        fixed = next((k for k, *_ in found if k in fl.KIND_PHASE), None)
        for kind, severity, sizes, counts, detail in found:
            if kind in fl.KIND_ENGINE:
                self.votes[fl.KIND_ENGINE[kind]] = self.votes.get(fl.KIND_ENGINE[kind], 0) + 2
            phase, why = (self._phase(fixed or kind, rank, line_no, message + "\n" + self._window(end))
                          if severity == "error" else (None, "a warning"))
            if fixed and fixed != kind and severity == "error":
                why = f"printed together with {fixed}"
            self.failures.append(fl.Failure(kind=kind, severity=severity, phase=phase, phase_evidence=why,
                                            rank=rank, line_no=line_no, evidence=message.strip()[:400],
                                            sizes=sizes, counts=counts, detail=detail))
        if any(f[1] == "error" for f in found):
            tb = self._tracebacks.get(rank.label)
            if tb is not None:
                tb.closed = True

    def finish(self) -> None:
        """A traceback cut before its exception line still says the start-up failed, and where.  An error nothing
        before it places takes the phase of a traceback or call tree quoted right after it (message, then stack)."""
        for i, f in enumerate(self.failures):
            # vLLM "EngineCore failed to start." (v1/engine/core.py 0.10.0, 0.19.1), SGLang "Scheduler hit an exception:
            # {traceback}" (scheduler.py 0.4.3.post2, 0.5.23): the traceback below places it (mv4: vl_208; ex22: sg_525)
            after_header = f.evidence.startswith(("EngineCore failed to start", "Scheduler hit an exception")) and \
                f.phase_evidence.startswith("last start-up step logged before it")
            if f.severity != "error" or (f.phase_evidence != _NO_STEP and not after_header):
                continue
            first = min((tb for tb in self._past if tb.frames and 0 < tb.start - f.line_no <= _TB_REACH),
                        key=lambda tb: tb.start, default=None)
            if after_header and first is not None and not first.closed:  # its own traceback, cut (``cut_header``)
                f = self.failures[i] = fl.cut_header(f, [w for w in self.failures[:i] if w.severity == "warning"
                                                         and f.line_no - w.line_no <= _TB_REACH])
            frames = self._cut_frames(first) if first else []
            found = fl.traceback_phase(frames, f.phase_evidence.rpartition(": ")[2] if after_header else None) or \
                (encoder_phase(frames) if after_header and _STARTUP_FAILED.search(f.evidence[:300]) else None)
            if found:
                self.failures[i] = replace(f, phase=found[0], phase_evidence=f"{found[1]}, quoted after the error")
            elif f.phase_evidence == _NO_STEP and (load := fl.load_only_phase(f.kind, self._state.get("*"))):
                self.failures[i] = replace(f, phase=load[0], phase_evidence=load[1])
        self._orphan_errors()
        if any(f.severity == "error" for f in self.failures):
            return
        if quit_capture := fl.abandoned_capture(self.text):  # ``logs.capturequit`` (round ex37)
            self.failures.append(quit_capture)
            return
        cut = [(label, tb) for label, tb in self._tracebacks.items() if tb.frames and not tb.closed and not tb.ignored]
        if not cut:
            return
        label, tb = max(cut, key=lambda item: item[1].last)
        found = fl.frame_phase(self._cut_frames(tb)) or fl.served_phase(self.text, tb.start)
        phase, why = found if found else (fl.marker_phase(self._state.get("*")), "last start-up step logged")
        relog = relogged_exception(self._orphans, tb.start, self.text, self._line_start)  # ``logs.recovered``
        self.failures.append(fl.Failure(kind="exception", severity="error", phase=phase, phase_evidence=why,
            rank=self.ranks.get(label, MAIN), line_no=relog[0] if relog else tb.start, evidence=(relog[2] if relog else
            tb.frames[-1])[:400], detail=relog[2][:300] if relog else "traceback cut before its exception line"))

    def _root_cause_above(self, line_no: int, state: str | None) -> tuple[str, str] | None:
        """A failed start-up's header ('Engine core initialization failed. See root cause above.', 'EngineCore failed
        to start') is placed by the other processes' tracebacks just above it, newest first: the engine core's
        traceback is the root cause the API server's header points to; a multimodal encoder's frames there are
        ``profile_run``'s (``phases.encoder_phase``)."""
        for tb in reversed(self._past):
            if tb.frames and 0 <= line_no - tb.last <= _TB_REACH:
                found = fl.traceback_phase(tb.frames, state) or encoder_phase(tb.frames)
                if found:
                    return found[0], f"{found[1]}, the root cause above the start-up failure"
        return None

    def _orphan_errors(self) -> None:
        """An exception line with no traceback of its own, right before an engine's failure header whose traceback
        is cut before its exception line, names that failure's error: the engine logs the same record on every rank
        (SGLang's scheduler: "Scheduler hit an exception: {traceback}", the traceback ending in the exception line;
        managers/scheduler.py run_scheduler_process, 0.5.9 wheel), so the line is the tail of the previous rank's
        record, the header the start of the next (sglang#28702, Google Cloud Logging's one entry per line)."""
        for line_no, rank, text in self._orphans:
            f = next((f for f in self.failures if f.severity == "error" and 0 < f.line_no - line_no <= 2
                      and f.kind in ("engine_start_failed", "cuda_graph_capture_failed")), None)
            cut = f is not None and any(tb.frames and not tb.closed and f.line_no <= tb.start <= f.line_no + 1
                                        for tb in self._past)
            # SGLang's capture wrapper raises Exception(f"Capture cuda graph failed: {e}") from the capture's own
            # error, which Python prints first (model_executor/cuda_graph_runner.py, 0.5.10; runner/
            # decode_cuda_graph_runner.py, 0.5.15): a wrapper quoting nothing is explained by the exception line
            # just above it (round ex32: THUDM/slime#1998)
            wraps = f is not None and f.kind == "cuda_graph_capture_failed" and \
                not f.evidence.partition("Capture cuda graph failed")[2].strip(" :.")
            if cut or wraps:
                why = ("the error printed just before SGLang's capture wrapper, which quotes none" if wraps else
                       "the exception line printed just before the header, the end of the same record on another rank")
                self.failures.append(fl.Failure(
                    kind="exception", severity="error", phase=f.phase,
                    phase_evidence=f"{f.phase_evidence}; {why}", rank=rank, line_no=line_no,
                    evidence=text[:400], detail=text[:300]))

    def _line_start(self, number: int) -> int | None:
        """The offset of line ``number`` (from 1) in the text; the line starts are counted once, when first asked."""
        if self._starts is None:
            self._starts = [0, *(m.end() for m in _NEWLINE.finditer(self.text))]
        return self._starts[number - 1] if 0 < number <= len(self._starts) else None

    def _cut_frames(self, tb: _Traceback) -> list[str]:
        """The frames of a traceback, and for one cut before its exception line the call its innermost frame was
        making: Python prints each frame's line of source under it (``traceback.format_list``), and in a traceback
        cut right after that line (sglang-kt's scheduler traceback ending in ``initialize`` with
        ``    self.load_model()`` below it: ktransformers#1969) the call is where the run failed.  The source line
        holds no trigger, so it is read here from the text, the line after the last frame's."""
        if tb.closed or not tb.frames:
            return tb.frames
        start = self._line_start(tb.last + 1)
        if start is None:
            return tb.frames
        line = self.text[start:self.text.find("\n", start) % (len(self.text) + 1)][:400]
        records = split_records(clean_line(line)[0])  # a prefixed record ('(EngineCore pid=1)     self.x()')
        message = records[-1].message if records else ""
        m = _SOURCE_CALL.match(message)
        if m is None or message.lstrip().startswith(("File ", "Traceback")):
            return tb.frames
        return [*tb.frames, f"{m.group(1)} (the call on the source line under frame {tb.frames[-1]})"]


def _may_fail(message: str) -> bool:
    return any(n in message for n in fl.FAILURE_NEEDLES)


def scan_text(text: str, *, raw: bytes | None = None, every_line: bool = False) -> Scan:
    """The pass over normalised text (``raw``: its exact UTF-8 bytes, if at hand; ``every_line`` reads every
    line: the slow reference the prefilter is tested against)."""
    scan = Scan(text=text)
    templates = pf.templates(text, raw)
    lines = pf.candidates(templates, every_line)
    if lines:
        lengths = list(map(len, templates))
        ends = list(accumulate(lengths))
        for index in lines:
            start = ends[index] - lengths[index] + index
            scan.line(index + 1, start, text[start:start + lengths[index]])
    scan.finish()
    scan.line_count = len(templates) - (1 if text.endswith("\n") or not text else 0)
    return scan
