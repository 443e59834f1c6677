"""Per-rank views: the tightest rank by default, ``--rank N`` or a label, engine-wide lines shared."""

import pytest
from logs_testlib import log_bytes

from tpkit.errors import TpkitError
from tpkit.logs import RankNotFoundError, parse_log

SGLANG_TP4 = """\
[2025-03-06 06:14:53 TP1] Load weight begin. avail mem=21.63 GB
[2025-03-06 06:14:53 TP3] Load weight begin. avail mem=21.60 GB
[2025-03-06 06:14:53 TP0] Load weight begin. avail mem=21.63 GB
[2025-03-06 06:15:53 TP0] Load weight end. type=Qwen2ForCausalLM, avail mem=6.20 GB, mem usage=15.43 GB.
[2025-03-06 06:15:53 TP3] Load weight end. type=Qwen2ForCausalLM, avail mem=6.15 GB, mem usage=15.45 GB.
[2025-03-06 06:15:53 TP1] Load weight end. type=Qwen2ForCausalLM, avail mem=6.20 GB, mem usage=15.43 GB.
"""


def test_default_is_the_rank_with_least_free_memory():
    view = parse_log(SGLANG_TP4).select_rank()
    assert view.rank.label == "TP3" and "load_end_avail = 6.15 GB" in view.reason
    assert view.last("load_begin_avail").size.text == "21.60 GB"


def test_rank_by_number_and_by_label():
    parsed = parse_log(SGLANG_TP4)
    assert parsed.select_rank(1).rank.label == "TP1"
    assert parsed.select_rank("tp0").rank.label == "TP0"
    with pytest.raises(RankNotFoundError) as err:
        parsed.select_rank(7)
    assert isinstance(err.value, TpkitError) and "ranks in the log: TP1, TP3, TP0" in str(err.value)


def test_vllm_worker_view_shares_the_engine_capacity_lines():
    # vl_021: workers print 'Available KV cache memory', the engine core prints 'GPU KV cache size'
    parsed = parse_log(log_bytes("vl_021"))
    view = parsed.select_rank()
    assert view.rank.role == "worker" and view.last("available_kv") is not None
    assert view.last("kv_tokens").count.value == 238208 and view.last("kv_tokens").rank.role == "engine"


def test_single_process_log_is_its_own_rank():
    parsed = parse_log(log_bytes("vl_003"))
    view = parsed.select_rank(0)
    assert view.rank.label == "EngineCore_DP0" and view.last("available_kv").size.text == "6.51 GiB"


def test_v0_workers_without_rank_numbers():
    # vl_039: the driver (rank 0) prints unprefixed, the other workers only a pid
    parsed = parse_log(log_bytes("vl_039"))
    labels = {r.label for r in parsed.ranks}
    assert "main" in labels and any(label.startswith("VllmWorkerProcess pid=") for label in labels)
    assert parsed.select_rank(0).rank.label == "main"
