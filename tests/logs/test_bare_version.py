"""An environment check's bare release print: the reader takes the engine's release from 'vllm 0.20.0' (pip list,
notes that list the packages), ``pip show vllm`` ('Name: vllm' then 'Version: 0.20.0'), ``vllm --version`` and
``print(vllm.__version__)`` (the release alone on the next line), and the same forms for SGLang.  Before helper rd12
(2026-12-05, issue 12) only 'vLLM API server version', 'LLM engine (vX)', 'vllm==X' / 'vllm: X' and image tags were
read, so vl_874 / vl_875 (notes opening with 'vllm 0.20.0') and vl_082 ('$ vllm --version' then '0.10.2') fell back
to a line-format range and their release came from a models.json flag.  Prose, other packages and a version query
answered by something else are not read."""

from pathlib import Path

import pytest

from tpkit.logs.engine import version_after, version_in
from tpkit.logs.reader import parse_log

DATA = Path(__file__).parent / "data"
AVAIL = "INFO 03-09 12:56:44 [gpu_worker.py:424] Available KV cache memory: 5.38 GiB\n"
SG_POOL = "[2026-01-05 10:00:00 TP0] Load weight end. elapsed=10.2 s, type=X, avail mem=60.00 GB, mem usage=14.0 GB.\n"


# --- the real excerpts --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, version, line_no, text", [
    ("vl_874", "0.20.0", 1, "vllm 0.20.0"),  # Chinese notes' environment check (search-index file 55002292133)
    ("vl_875", "0.20.0", 1, "vllm 0.20.0"),
    ("vl_876", "0.20.0", 1, "vllm 0.20.0"),
    ("vl_788", "0.27.1", 1, "vllm 0.27.1"),  # a post's pinned-software block
    ("vl_082", "0.10.2", 1, "(workspace) (main) root@C.26183956:/workspace$ vllm --version ⏎ 0.10.2"),
])
def test_corpus_logs_read_their_release_with_the_line_as_evidence(name, version, line_no, text):
    guess = parse_log((DATA / "vllm" / f"{name}.log").read_bytes()).engine
    assert (guess.engine, guess.version, guess.version_printed) == ("vllm", version, True)
    printed = [e for e in guess.evidence if e.claim == f"version {version} printed"]
    assert printed and (printed[0].line_no, printed[0].text) == (line_no, text)


# --- the forms, one line --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("line, expected", [
    ("vllm 0.20.0", ("vllm", "0.20.0")),
    ("vllm                              0.20.0", ("vllm", "0.20.0")),  # pip list columns
    ("vllm                      0.20.0                   pypi_0    pypi", ("vllm", "0.20.0")),  # conda list
    ("vllm 0.20.0, torch 2.11.0+cu130", ("vllm", "0.20.0")),
    ("vllm  0.20.1rc1.dev23+gde3da0b97  /workspace/vllm", ("vllm", "0.20.1rc1.dev23+gde3da0b97")),  # editable
    ("- vllm 0.10.1.1", ("vllm", "0.10.1.1")),
    ("sglang 0.5.6.post2", ("sglang", "0.5.6.post2")),
    ("sglang                   0.5.10", ("sglang", "0.5.10")),
])
def test_bare_package_line_is_read(line, expected):
    assert version_in(line) == expected


@pytest.mark.parametrize("line", [
    "I ran vllm 2 times on the box",           # prose: a count
    "vllm 0.9 GiB left after the load",         # prose: a two-part number with a unit
    "with vllm 0.20.0 the server was slower",   # the name does not open the line
    "vllm 0.20.0 tokens per second",            # a number and more prose
    "transformers 4.57.1",                       # another package
    "vllm-flash-attn 2.6.2",                     # a package whose name starts with the engine's
    "vllm_flash_attn 2.5.9",
    "sglang-router 0.2.1",
    "sgl-kernel 0.3.9.post2",
    "vllm-ascend 0.9.1",
])
def test_prose_and_other_packages_are_not_read(line):
    assert version_in(line) is None


# --- the forms over two lines ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("Name: vllm\nVersion: 0.20.0\nSummary: A high-throughput and memory-efficient inference engine\n", "0.20.0"),
    ("$ vllm --version\n0.20.0\n", "0.20.0"),
    ("root@host:~# vllm -v\n0.11.0\n", "0.11.0"),
    ('python -c "import vllm; print(vllm.__version__)"\n'
     "INFO 05-12 10:00:00 [__init__.py:239] Automatically detected platform cuda.\n0.20.0\n", "0.20.0"),
    (">>> vllm.__version__\n'0.9.2'\n", "0.9.2"),
    ("python -c \"import importlib; print(importlib.metadata.version('vllm'))\"\n0.29.0\n", "0.29.0"),
])
def test_vllm_multi_line_prints(text, expected):
    guess = parse_log(text + AVAIL).engine
    assert (guess.engine, guess.version, guess.version_printed) == ("vllm", expected, True)
    assert any("⏎" in e.text and expected in e.text for e in guess.evidence)


def test_sglang_multi_line_prints():
    for text in ("Name: sglang\nVersion: 0.5.6.post2\n", "python3 -c 'import sglang; print(sglang.__version__)'\n"
                 "0.5.6.post2\n"):
        guess = parse_log(text + SG_POOL).engine
        assert (guess.engine, guess.version, guess.version_printed) == ("sglang", "0.5.6.post2", True)


@pytest.mark.parametrize("message, following", [
    ("Name: vllm", ["Version 0.20.0"]),                           # not pip show's field
    ("Name: vllm-flash-attn", ["Version: 2.6.2"]),               # another package
    ("Name: transformers", ["Version: 4.57.1"]),
    ("vllm --version", ["torch 2.11.0", "nothing"]),              # no bare release follows
    ("vllm --version", ["Traceback (most recent call last):"]),
    ("python -c 'import vllm; print(vllm.__version__)'", ["python -c 'import torch; print(torch.__version__)'",
                                                           "2.11.0"]),  # the next query's answer is its own
    ("vllm serve m --max-model-len 4096", ["0.20.0"]),            # not a version query
    ("print(vllm.__version__, torch.__version__)", ["0.20.0 2.11.0"]),  # two numbers on the answer line
])
def test_multi_line_false_hits(message, following):
    assert version_after(message, following) is None


def test_printed_version_of_the_engine_outranks_the_environment_check():
    """'vLLM API server version' (the server's own print) wins over an earlier environment check."""
    text = "vllm 0.19.0\nINFO 01-01 00:00:00 [api_server.py:1] vLLM API server version 0.19.1\n" + AVAIL
    assert parse_log(text).engine.version == "0.19.1"


@pytest.mark.parametrize("data", [b"vllm 0.20.0", b"Name: vllm", b"Name: vllm\n", b"vllm --version\n",
                                  b"vllm --version", b"Name: vllm\nVersion: \xff\xfe", b"vllm " + b"0." * 5000,
                                  b"$ vllm --version\n" + b"\n" * 10, b"print(vllm.__version__)\n'0.2"])
def test_never_crashes_on_cut_input(data):
    guess = parse_log(data).engine
    assert guess.version in (None, "0.20.0") or not guess.version_printed


def test_a_long_line_after_a_bare_release_is_read_in_linear_time():
    """The bare forms must reach the end of the line after the release; labels of letters and digits (``\\w*``, as the
    other version patterns take them) made that backtrack: 'vllm 0.1.2' + 'rc' x 200 took 0.6 s, x 2000 minutes."""
    import time

    lines = ["vllm 0.1.2" + "rc" * 2000 + "!", "vllm 0.1.2" + " " * 4000 + "x", "- " * 2000 + "vllm 0.1.2x"]
    start = time.perf_counter()
    assert all(version_in(line) is None for line in lines)
    assert parse_log(("$ vllm --version\n0.1.2" + "rc" * 1900 + "!\n") * 100).engine.version_printed is False
    assert time.perf_counter() - start < 2.0


def test_an_ngc_container_tag_is_not_a_vllm_release():
    """NVIDIA's NGC container tag is its own year.month ('nvcr.io/nvidia/vllm:26.01-py3' runs vLLM 0.13.0); before,
    vl_885 reported vLLM 26.01 from it.  Docker Hub's vllm/vllm-openai tag and 'vllm:' before a release still read."""
    from tpkit.logs.engine import VERSION_PATTERNS
    vllm_patterns = [p for engine, p in VERSION_PATTERNS if engine == "vllm"]
    assert not any(p.search("| image | `nvcr.io/nvidia/vllm:26.01-py3` |") for p in vllm_patterns)
    assert any(p.search("image: vllm/vllm-openai:v0.13.0") for p in vllm_patterns)
    assert any(p.search("vllm==0.13.0") for p in vllm_patterns)
