"""bench/draft_breakdown.py (helper draft13, issue 13): the EAGLE-3 draft step and its parts.  On the CPU it runs
tiny, times nothing and checks its logic: every part is built and runs, the engine variant's logits equal the
reference step's, and the decode attention equals the masked one at topk 1."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))


def test_tiny_cpu_run_builds_every_part_and_passes_its_checks(tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "t.json"
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "draft_breakdown.py"), "--device", "cpu", "--tiny",
                           "--batches", "1,4", "--topks", "1,4", "--out", str(out)], capture_output=True, text=True,
                          timeout=600, env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    run = json.loads(out.read_text())
    assert not run["errors"] and run["checks"]["failures"] == 0
    assert len(run["rows"]) == 8                                  # 2 heads × B {1, 4} × topk {1, 4}
    for row in run["rows"]:
        parts = set(row["parts_us"])
        assert {"embed", "fc", "norms_cat", "qkv", "rope_kv", "attn_mask", "o_res", "mlp", "final", "lm_head",
                "softmax", "topk", "hot"} <= parts
        assert ("max" in parts and "attn_decode" in parts) if row["topk"] == 1 else "glue" in parts
        assert row["check_engine_vs_ref_logits"] < 1e-2


def test_glue_step_picks_the_best_children_of_the_kept_branches():
    torch = pytest.importorskip("torch")
    import draft_breakdown as db

    b, k, h = 1, 2, 3
    topk_p = torch.tensor([[0.6, 0.4], [0.9, 0.1]])           # children of branch 0, branch 1
    topk_index = torch.tensor([[10, 11], [20, 21]])
    hidden = torch.tensor([[0.0] * h, [1.0] * h])
    scores = torch.tensor([[0.5, 0.5]])
    pos = torch.zeros(b * k, dtype=torch.int64)
    ids, hid, cs = db.glue_step(topk_p, topk_index, hidden, scores, k, pos)
    assert ids.tolist() == [20, 10] and hid[:, 0].tolist() == [1.0, 0.0]
    assert cs[0].tolist() == pytest.approx([0.45, 0.3]) and pos.tolist() == [1, 1]


def test_the_shared_kernel_profile_groups_cuts_and_ranks_names(monkeypatch):
    """decode_reference.kernel_times, shared by spec_reference (top 12, 80-character names, key 'top') and
    draft_breakdown (every name, 90 characters, key 'by_name'), on a fake profiler: the GPU branch runs on a CPU."""
    torch = pytest.importorskip("torch")
    import types

    import decode_reference as dr

    class Ev:
        def __init__(self, name, us):
            self.name, self.device_time_total = name, us
            self.device_type = types.SimpleNamespace(name="CUDA")

    class Prof:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def events(self):
            return [Ev("a" * 100, 5.0), Ev("b", 2.0), Ev("a" * 100, 1.0), Ev("c", 0.5)]

    fake = types.ModuleType("torch.profiler")
    fake.ProfilerActivity = types.SimpleNamespace(CUDA=1)
    fake.profile = lambda activities: Prof()
    monkeypatch.setitem(sys.modules, "torch.profiler", fake)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    assert dr.kernel_times(lambda: None, "cpu") is None
    spec = dr.kernel_times(lambda: None, "cuda", top=2)
    assert spec == {"kernels": 4, "gpu_us": 8.5, "top": {"a" * 80: [2, 6.0], "b": [1, 2.0]}}
    every = dr.kernel_times(lambda: None, "cuda", top=None, name_chars=90, key="by_name")
    assert list(every["by_name"]) == ["a" * 90, "b", "c"]


def test_the_shared_capture_warms_on_a_side_stream_then_captures_once(monkeypatch):
    """decode_reference.capture, shared by spec_reference (``warm=2``) and draft_breakdown (one warm-up call), on a
    fake torch.cuda (helper q14: one home for the idiom the three scripts each wrote out): the warm-up calls run on the
    side stream, which the current stream then waits for, and the graph holds one more call whose outputs return."""
    torch = pytest.importorskip("torch")
    import contextlib

    import decode_reference as dr

    log = []

    class Stream:
        def __init__(self, name="side"):
            self.name = name

        def wait_stream(self, other):
            log.append(f"{self.name} waits {other.name}")

    class Graph:
        pass

    current = Stream("current")
    on = {"stream": "current"}

    @contextlib.contextmanager
    def stream(s):
        on["stream"] = s.name
        yield
        on["stream"] = "current"

    @contextlib.contextmanager
    def graph(g):
        on["stream"] = "graph"
        yield
        on["stream"] = "current"

    monkeypatch.setattr(torch.cuda, "synchronize", lambda: log.append("sync"))
    monkeypatch.setattr(torch.cuda, "Stream", Stream)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda: current)
    monkeypatch.setattr(torch.cuda, "stream", stream)
    monkeypatch.setattr(torch.cuda, "graph", graph)
    monkeypatch.setattr(torch.cuda, "CUDAGraph", Graph)

    def fn():
        log.append(f"fn on {on['stream']}")
        return ("out",)

    g, out = dr.capture(fn, warm=2)
    assert isinstance(g, Graph) and out == ("out",)
    assert log == ["sync", "side waits current", "fn on side", "fn on side", "current waits side", "fn on graph"]
    log.clear()
    dr.capture(fn)
    assert log.count("fn on side") == 1 and log[-1] == "fn on graph"


@pytest.mark.parametrize("script, own", [("decode_reference", "--contexts"), ("spec_reference", "--draft-tokens"),
                                         ("draft_breakdown", "--topks")])
def test_the_reference_scripts_share_their_run_arguments(script, own):
    """decode_reference.run_args: the arguments all three take, each script's own on top (helper q14)."""
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / f"{script}.py"), "--help"], capture_output=True,
                          text=True, timeout=300, env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    for flag in ("--out", "--device", "--models", "--batches", "--warmup", "--iters", "--repeats", "--tiny", own):
        assert flag in proc.stdout, (script, flag)
