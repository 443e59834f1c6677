"""The corpus logs are self-contained test data: none names a path under this workspace's root (``/work/``).

A pasted traceback carries its poster's absolute paths; one that happens to start with ``/work/`` reads as a file of
the machine the tests run on, so a clone could not tell it from a test reaching outside the repository.  Such a prefix
is written as ``<checkout>`` (tests/logs/data/README.md says so per log; tpkit reads a frame's file and function
names, not its directory).  Lead, session 34 (sg_1011)."""

from __future__ import annotations

import re
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
WORKSPACE_PATH = re.compile(r"(?<![\w/.~-])/work/")
"""an absolute path starting at ``/work/`` (``/scratch/work/…`` and ``~/work/…`` are other machines' paths, not it)"""


def test_no_corpus_log_names_a_workspace_path():
    hits = [f"{p.relative_to(DATA)}:{n}" for p in sorted(DATA.rglob("*.log"))
            for n, line in enumerate(p.read_text(errors="replace").splitlines(), 1) if WORKSPACE_PATH.search(line)]
    assert not hits, f"corpus logs naming a /work/ path (write the prefix as <checkout>): {hits[:10]}"


def test_the_pattern_tells_the_workspace_from_other_machines():
    root = "/" + "work"  # the workspace root, spelt so that this file names no path under it
    assert WORKSPACE_PATH.search(f'  File "{root}/code/x.py", line 1, in f')
    assert not WORKSPACE_PATH.search("download_dir='/scratch/work/yuc10/hf_cache'")
    assert not WORKSPACE_PATH.search("source: /home/t-jialianggu/work/sglang")
    assert not WORKSPACE_PATH.search('  File "<checkout>/sglang/python/x.py", line 1, in f')
