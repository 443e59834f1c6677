"""On a machine with ≥ 2 CUDA GPUs: the randomized correctness script, a few hundred cases (skipped on CPU)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.device_count() < 2, reason="needs 2 CUDA GPUs")
def test_randomized_correctness_on_two_gpus():
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NCCL_NVLS_ENABLE": "0",
           "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1"}
    r = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2",
                        str(ROOT / "bench" / "allreduce_correctness.py"), "--cases", "300"],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "failed=0" in r.stdout
