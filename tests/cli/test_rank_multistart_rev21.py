"""``explain --rank N`` on a log that holds several engine starts (helper rev21, session 21)."""
from __future__ import annotations

from pathlib import Path

from clirun import cli


def test_a_rank_only_in_an_earlier_start_says_only_the_last_is_read(capsys, tmp_path):
    """Before: '--rank 1: the log shows no such rank' for a rank the file does show (its first start's TP worker)."""
    logs = Path(__file__).resolve().parents[1] / "logs" / "data" / "vllm"
    log = tmp_path / "tp2_then_tp1.log"
    log.write_bytes((logs / "vl_101.log").read_bytes() + (logs / "vl_128.log").read_bytes())
    code, _, err = cli(capsys, "explain", str(log), "--rank", "1")
    assert code == 2 and "Traceback" not in err
    assert "--rank 1: the log holds 2 engine starts (lines 1, 56) and only the last is read" in err
    assert "pass that start's lines alone" in err
    assert cli(capsys, "explain", str(logs / "vl_101.log"), "--rank", "1")[0] == 0
    code, _, err = cli(capsys, "explain", str(logs / "vl_128.log"), "--rank", "3")
    assert code == 2 and "--rank 3: the log shows no such rank; ranks in the log: main, EngineCore." in err
