"""bench/vllm_consumed_probe.py's CPU path (helper pl38b, 2026-12-08): the GPU probe that splits vLLM's
"consumed memory (weights + non-torch)" validates its inputs and describes its run without torch or vLLM."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "bench" / "vllm_consumed_probe.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PROBE), *args], capture_output=True, text=True, timeout=60)


def test_dry_run_names_the_engine_arguments_and_the_split():
    done = _run("--dry-run", "--gpu-memory-utilization", "0.85", "--max-model-len", "8192", "--max-num-seqs", "32")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["would_run"] == {"model": "Qwen/Qwen3.5-0.8B", "gpu_memory_utilization": 0.85,
                                "trust_remote_code": True, "max_model_len": 8192, "max_num_seqs": 32}
    assert any("non-torch" in m for m in out["measures"]) and any("segments" in m for m in out["measures"])


def test_dry_run_imports_neither_torch_nor_vllm():
    code = (f"import sys; sys.argv = ['p', '--dry-run']; sys.path.insert(0, {str(PROBE.parent)!r}); "
            "import vllm_consumed_probe as p; p.main(['--dry-run']); "
            "assert 'torch' not in sys.modules and 'vllm' not in sys.modules")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_bad_input_exits_2_without_a_traceback():
    for args in (("--gpu-memory-utilization", "1.5"), ("--max-num-seqs", "0"), ("--segments", "-1")):
        done = _run(*args)
        assert done.returncode == 2, (args, done.returncode)
        assert "Traceback" not in done.stderr and "error:" in done.stderr
