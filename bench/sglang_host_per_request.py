"""Per-request host time of an SGLang 0.4.4.post2 speculative (spec v1) cycle, timed on this CPU with the
release's own Python (read from an unpacked wheel at run time; nothing of it is stored in this repository).

Why (docs/accuracy.md §4.3, helper sp19b): spec v1 runs without the overlap scheduler, so the host work of a cycle
is exposed; part of it is a loop per running request.  Earlier helpers needed h ≈ 100–140 µs per running request
to flip eagle3_t3 rows 135–139 and found no independent size (§4.3, sp13).  This script sizes the per-request
part that 0.4.4.post2 runs in Python on every cycle for a streamed request (``bench_serving`` streams, ignore_eos):

- ``EagleVerifyInput.verify`` (speculative/eagle_utils.py): per accepted token ``req.output_ids.append`` and
  ``req.check_finished()``;
- ``process_batch_result_decode`` (managers/scheduler_output_processor_mixin.py): per request
  ``req.check_finished()`` and ``req.finished()``;
- ``stream_output_generation`` (same file): per request ``init_incremental_detokenize`` (schedule_batch.py: the
  prompt + output list concatenated, then sliced from 5 tokens before the prompt's end: in 0.4.4.post2 the whole
  output so far is sent every cycle; 0.4.9 sends only the new ids, ``send_decode_id_offset``) and the lists of the
  ``BatchTokenIDOut`` (io_struct.py), which ``send_pyobj`` pickles.

The release's ``Req.finished / check_finished / init_incremental_detokenize``, the finish-reason classes,
``BatchTokenIDOut`` and ``stream_output_generation`` are compiled from the wheel's source (``ast``) and run on
stand-in requests and scheduler (plain attributes only).  ``send_pyobj`` is ``pickle.dumps`` (what pyzmq does
before the send).  Not timed: the GPU→CPU copies (``tolist``), the per-request loop of ``verify`` beyond these calls,
the tensor iteration of ``process_batch_result_decode``, ZMQ's send.  So the figure is a lower bound of the Python
per-request work on this CPU.

Usage::

    pip download --no-deps sglang==0.4.4.post2 -d /tmp/w && unzip -q /tmp/w/sglang-0.4.4.post2-*.whl -d /tmp/w/s
    python bench/sglang_host_per_request.py --wheel-dir /tmp/w/s [--prompt 100] [--output 512] [--accept 2.18]
"""

from __future__ import annotations

import argparse
import ast
import json
import pickle
import statistics
import sys
import time
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, List, Optional


def _extract(path: Path, names: set[str], methods: dict[str, set[str]]) -> str:
    """Source of the top-level ``names`` (classes, functions, assignments) and of ``methods[class]`` of ``path``."""
    src = path.read_text()
    tree = ast.parse(src)
    out = []
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name in names:
            decorators = "".join(f"@{ast.get_source_segment(src, d)}\n" for d in node.decorator_list)
            out.append(decorators + ast.get_source_segment(src, node, padded=False))
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in names for t in node.targets):
            out.append(ast.get_source_segment(src, node))
        elif isinstance(node, ast.ClassDef) and node.name in methods:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name in methods[node.name]:
                    seg = ast.get_source_segment(src, item)
                    out.append(f"def {item.name}" + seg.split(f"def {item.name}", 1)[1])
    return "\n\n".join(out)


def load(wheel_dir: Path) -> dict[str, Any]:
    mgr = wheel_dir / "sglang" / "srt" / "managers"
    for f in ("schedule_batch.py", "io_struct.py", "scheduler_output_processor_mixin.py"):
        if not (mgr / f).is_file():
            sys.exit(f"error: {mgr / f} not found; --wheel-dir must be an unpacked sglang 0.4.4.post2 wheel "
                     f"(pip download --no-deps sglang==0.4.4.post2; unzip the .whl)")
    module = types.ModuleType("sglang_0_4_4_post2_extract")   # pickle finds the classes through sys.modules
    sys.modules[module.__name__] = module
    ns: dict[str, Any] = module.__dict__
    ns.update({"dataclass": dataclass, "field": field, "List": List, "Optional": Optional, "Any": Any,
                          "Union": Any, "Dict": dict, "Tuple": tuple, "BaseFinishReason": None})
    exec(_extract(mgr / "schedule_batch.py",
                  {"INIT_INCREMENTAL_DETOKENIZATION_OFFSET", "BaseFinishReason", "FINISH_MATCHED_TOKEN",
                   "FINISH_MATCHED_STR", "FINISH_LENGTH", "FINISH_ABORT"},
                  {"Req": {"finished", "check_finished", "init_incremental_detokenize"}}), ns)
    exec(_extract(mgr / "io_struct.py", {"BatchTokenIDOut"}, {}), ns)
    exec(_extract(mgr / "scheduler_output_processor_mixin.py", set(),
                  {"SchedulerOutputProcessorMixin": {"stream_output_generation"}}), ns)
    return ns


class _Sampling:
    def __init__(self, max_new_tokens: int):
        self.max_new_tokens, self.ignore_eos, self.stop_token_ids, self.stop_strs = max_new_tokens, True, None, []
        self.skip_special_tokens, self.spaces_between_special_tokens, self.no_stop_trim = True, True, False
        self.stream_interval = None   # later releases: the server's interval applies


def make_req_class(ns: dict[str, Any]) -> type:
    attrs = {k: ns[k] for k in ("finished", "check_finished", "init_incremental_detokenize")}

    def __init__(self, rid: str, prompt: list[int], max_new: int):
        self.rid, self.origin_input_ids, self.origin_input_ids_unpadded = rid, prompt, prompt
        self.output_ids: list[int] = []
        self.finished_reason, self.to_abort, self.stream, self.decoded_text = None, False, True, ""
        self.sampling_params, self.eos_token_ids, self.tokenizer = _Sampling(max_new), {128009}, None
        self.surr_offset = self.read_offset = None
        self.cached_tokens, self.spec_verify_ct, self.return_hidden_states = 0, 0, False
    attrs["__init__"] = __init__
    # attributes a later release reads that a streamed, greedy, grammar-free request leaves at their defaults
    # (set on first read, so that the timed loop reads plain attributes)
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = 0 if name.endswith(("_offset", "_ct", "_len")) else None
        setattr(self, name, value)
        return value
    attrs["__getattr__"] = __getattr__
    return type("Req", (), attrs)


class _Sched:
    """The attributes ``stream_output_generation`` reads (0.4.4.post2)."""

    def __init__(self, ns: dict[str, Any]):
        self.model_config = type("MC", (), {"is_multimodal_gen": False})()
        self.stream_interval, self.skip_tokenizer_init = 1, False
        self.tp_rank, self.disaggregation_mode = 0, None                      # read by 0.4.9's version
        self.server_args = type("SArgs", (), {"enable_request_time_stats_logging": False})()
        self.spec_algorithm = type("SA", (), {"is_none": lambda s: False})()
        self.sent_bytes = 0
        sched = self

        class _Send:
            def send_pyobj(self, obj):
                sched.sent_bytes += len(pickle.dumps(obj, pickle.DEFAULT_PROTOCOL))
        self.send_to_detokenizer = _Send()


def time_cycle(ns: dict[str, Any], batch: int, prompt: int, output: int, accept: float, repeats: int) -> dict:
    """Mean µs per cycle over a run of ``batch`` streamed requests from 0 to ``output`` tokens (each cycle the
    fastest of ``repeats`` runs); per cycle each request takes ``accept`` tokens (floor/ceil in turn)."""
    Req = make_req_class(ns)
    sched = _Sched(ns)
    stream = ns["stream_output_generation"]
    per_cycle: list[float] | None = None
    for _ in range(repeats):
        reqs = [Req(f"r{i}", list(range(1000 + i, 1000 + i + prompt)), output) for i in range(batch)]
        lo, frac, acc_err = int(accept), accept - int(accept), 0.0
        times = []
        while not reqs[0].finished():
            acc_err += frac
            k = lo + (1 if acc_err >= 1.0 else 0)
            acc_err -= 1.0 if acc_err >= 1.0 else 0.0
            t0 = time.perf_counter()
            for r in reqs:                       # EagleVerifyInput.verify: per accepted token
                for j in range(k):
                    r.output_ids.append(7 + j)
                    r.check_finished()
                    if r.finished():
                        break
            for r in reqs:                       # process_batch_result_decode
                r.check_finished()
                r.finished()
            stream(sched, reqs, False)           # stream_output_generation (+ pickle of BatchTokenIDOut)
            times.append(time.perf_counter() - t0)
        # the same cycle (same output length) of every repeat: keep the fastest, which a busy CPU delays least
        per_cycle = times if per_cycle is None else [min(x, y) for x, y in zip(per_cycle, times)]
    cycles = len(per_cycle)
    best = sum(per_cycle) / cycles * 1e6
    return {"batch": batch, "cycles": cycles, "us_per_cycle": best}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheel-dir", type=Path, required=True, help="unpacked sglang 0.4.4.post2 wheel")
    ap.add_argument("--prompt", type=int, default=100, help="prompt tokens per request (default 100)")
    ap.add_argument("--output", type=int, default=512, help="output tokens per request (bench_speculative.py: 512)")
    ap.add_argument("--accept", type=float, default=2.18, help="accepted tokens per cycle (default 2.18)")
    ap.add_argument("--batches", default="1,2,4,8,16,24,32,48,64")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    ns = load(a.wheel_dir)
    rows = [time_cycle(ns, int(b), a.prompt, a.output, a.accept, a.repeats) for b in a.batches.split(",")]
    xs, ys = [r["batch"] for r in rows], [r["us_per_cycle"] for r in rows]
    slope = statistics.linear_regression(xs, ys).slope
    for r in rows:
        print(f"batch {r['batch']:4d}: {r['us_per_cycle']:8.1f} µs per cycle ({r['us_per_cycle'] / r['batch']:.1f} per request)")
    print(f"slope {slope:.1f} µs per running request per cycle (prompt {a.prompt}, output {a.output}, accept {a.accept})")
    if a.out:
        a.out.write_text(json.dumps({"rows": rows, "slope_us": slope, "prompt": a.prompt, "output": a.output,
                                     "accept": a.accept, "python": sys.version.split()[0]}, indent=1) + "\n")


if __name__ == "__main__":
    main()
