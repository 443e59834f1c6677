"""An unknown flag's suggestion is close in its name, not in its dashes (helper rev11, 2026-12-05).

A user pasting a server command got "tpkit plan has no flag --port (did you mean --tp or --pp?)" and "--host (did
you mean --tp?)": difflib compared "--port" with "--tp" and found them 0.6 alike, mostly the two dashes.
Helper rev12 (2026-12-05): --port and --host are now taken and ignored with a note (serving flags,
``cli.argtypes.SERVING_FLAGS``); two other server flags tpkit lacks stand in for them, and the hidden serving flags
are never suggested (``--pt`` was "did you mean --port?").
"""

import pytest
from clirun import refused


@pytest.mark.parametrize("flag, says", [
    (["--node-rank", "0"], "has no flag --node-rank;"),
    (["--dist-init-addr", "10.0.0.1:5000"], "has no flag --dist-init-addr;"),
    (["--pt", "2"], "has no flag --pt;"),
    (["--tpp", "2"], "--tpp (did you mean --tp or --pp?)"),
    (["--contxt-length", "5"], "--contxt-length (did you mean --context-length?)"),
    (["--kv-cache-dype", "fp8"], "--kv-cache-dype (did you mean --kv-cache-dtype?)"),
])
def test_suggestions_compare_names_without_dashes(capsys, flag, says):
    refused(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "H100", *flag, says=(says,))


def test_perf_gpu_memory_still_points_at_gpu(capsys):
    refused(capsys, "perf", "Qwen/Qwen3-8B", "--gpu", "H100", "--gpu-memory", "80GiB",
            says=("--gpu-memory (did you mean --gpu?)",))
