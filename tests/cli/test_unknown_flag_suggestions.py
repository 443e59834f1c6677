"""An unknown flag's suggestion is close in its name, not in its dashes (helper rev11, 2026-12-05).

A user pasting a server command got "tpkit plan has no flag --port (did you mean --tp or --pp?)" and "--host (did
you mean --tp?)": difflib compared "--port" with "--tp" and found them 0.6 alike, mostly the two dashes.
"""

import pytest
from clirun import refused


@pytest.mark.parametrize("flag, says", [
    (["--port", "30000"], "has no flag --port;"),
    (["--host", "0.0.0.0"], "has no flag --host;"),
    (["--tpp", "2"], "--tpp (did you mean --tp or --pp?)"),
    (["--contxt-length", "5"], "--contxt-length (did you mean --context-length?)"),
    (["--kv-cache-dype", "fp8"], "--kv-cache-dype (did you mean --kv-cache-dtype?)"),
])
def test_suggestions_compare_names_without_dashes(capsys, flag, says):
    refused(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "H100", *flag, says=(says,))


def test_perf_gpu_memory_still_points_at_gpu(capsys):
    refused(capsys, "perf", "Qwen/Qwen3-8B", "--gpu", "H100", "--gpu-memory", "80GiB",
            says=("--gpu-memory (did you mean --gpu?)",))
