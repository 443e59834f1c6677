"""The reader never crashes, and messy copies of a log read the same as the clean one."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from logs_testlib import log_bytes
from tests.scripts_testlib import load_script

from tpkit.logs import parse_log


def _fuzz_module():
    return load_script("fuzz_logs")


def _numbers(data) -> list[tuple]:
    parsed = parse_log(data)
    return sorted((a.rank.label, a.name, a.group, a.size.text if a.size else a.count.text) for a in parsed.anchors)


def _fully_read(data) -> None:
    parsed = parse_log(data)
    json.dumps(parsed.to_dict())
    parsed.select_rank()
    _ = parsed.status, parsed.primary_failure, parsed.missing


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=4000))
def test_any_bytes(data):
    _fully_read(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("[]()=:,.-_ \n\r\t0123456789#'\"\\")) | st.characters(),
               max_size=3000))
def test_any_text(text):
    _fully_read(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([
    "[2025-03-08 12:29:21 TP1] Load weight end. type=X, avail mem=", "KV Cache is allocated. #tokens: ",
    "Available KV cache memory: ", "GPU KV cache size: ", " GiB", " GB", "Traceback (most recent call last):",
    '  File "/x/model_runner.py", line 1, in capture', "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ",
    "server_args=ServerArgs(", "tp_size=", "non-default args: {", "'tensor_parallel_size': ", "(VllmWorker rank=",
    " pid=1) ", "-1", "1e999", "nan", "12,34", "\n", "\\\n", "vllm serve m --tp", "[0;36m", "\x1b[", "\ufffd",
    "(", ")", "{", "}", "'", "=", "9" * 30]), max_size=60))
def test_fragments_of_real_lines(parts):
    _fully_read("".join(parts))


def test_messy_copies_read_like_the_clean_log():
    clean = log_bytes("sg_009")
    text = clean.decode()
    want = _numbers(clean)
    assert len(want) > 20
    variants = {
        "crlf": text.replace("\n", "\r\n"),
        "ansi": text.replace("[2025", "\x1b[32m[2025").replace("] ", "]\x1b[0m "),
        "bare colour codes": text.replace("[2025", "[0;36m[2025"),
        "utf-16": ("\ufeff" + text).encode("utf-16-le"),
        "bad byte": clean.replace(b"Loading safetensors", b"Loading \xff\xfe safetensors"),
        "nul": text.replace("\n", "\x00\n"),
        "huge line": text + "\n" + "x" * (3 << 20) + "\n",
    }
    for name, data in variants.items():
        got = _numbers(data)
        assert got == want, name


def test_interleaved_ranks_keep_their_numbers():
    lines = log_bytes("sg_009").decode().splitlines()
    rank_lines = [l for l in lines if l.startswith("[") and " TP" in l[:30]]
    shuffled = rank_lines[1::2] + rank_lines[0::2]
    assert _numbers("\n".join(shuffled)) == _numbers("\n".join(rank_lines))


def test_truncated_log_reports_what_is_missing():
    text = log_bytes("sg_009").decode()
    cut = text[: text.index("KV Cache is allocated")]
    parsed = parse_log(cut[:-7])
    missing = {m.what for m in parsed.missing}
    assert {"kv_capacity", "free_after_pool"} <= missing and "weights" not in missing


def test_seeded_fuzz_sample_has_no_traceback():
    fuzz = _fuzz_module()
    report = fuzz.run(count=400, seed=20261201, huge_line=1 << 18)
    assert report["errors"] == [] and report["count"] == 400
