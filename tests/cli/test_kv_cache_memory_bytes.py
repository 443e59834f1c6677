"""``--kv-cache-memory-bytes`` takes a plain number as bytes, as vLLM does (helper rev11, 2026-12-05).

vLLM reads the flag with ``human_readable_int`` (0.29.0 engine/arg_utils.py ``human_readable_int_args``; utils/
argparse_utils.py: "Regular plain number" → int), so ``--kv-cache-memory-bytes 10737418240`` is 10 GiB there.
tpkit refused it: "'10737418240' has no unit; … e.g. '10737418240GiB'". vLLM's one-letter suffixes stay refused
with both readings (``10G``: 2^30 in vLLM 0.29, 10^9 as a decimal G).
"""

import json

from clirun import cli, refused

BASE = ["plan", "Qwen/Qwen3-8B", "--engine", "vllm", "--gpu", "H100", "--json"]


def test_a_plain_number_is_bytes(capsys):
    code, out, err = cli(capsys, *BASE, "--kv-cache-memory-bytes", "10737418240")
    assert code == 0, err
    by_bytes = json.loads(out)
    code, out, _ = cli(capsys, *BASE, "--kv-cache-memory-bytes", "10GiB")
    assert by_bytes["kv_tokens"] == json.loads(out)["kv_tokens"] > 0


def test_a_one_letter_suffix_is_refused_with_both_readings(capsys):
    refused(capsys, *BASE[:-1], "--kv-cache-memory-bytes", "10G", says=("10GiB", "10GB"))


def test_explain_takes_the_plain_number_too(capsys):
    code, out, err = cli(capsys, "explain", "tests/logs/data/vllm/vl_067.log", "--kv-cache-memory-bytes", "10737418240")
    assert code == 0, err
