"""The prefilter reads a bare '(… pid=N)' line whatever its place (helper tidy31, 2026-12-07, session 31).

``logs.prefilter.KEYWORDS_BYTES``' second pattern required a newline after ')'.  The templates are joined by newlines,
so the last one has none; in ``candidates``' distinct-template branch the templates come from a set, whose order
follows PYTHONHASHSEED.  fuzz_explain seed 32 found case 4748 (tests/explain/data/fuzz_seed32_case4748.log): after
its last start only bare '(Worker_PP0 pid=442)' lines follow, and ``tpkit explain`` read it as a vLLM log (exit 0)
or refused it (exit 2) from one run to the next.  Both tests below fail before the fix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tpkit.logs.prefilter import _hits, candidates

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "tests" / "explain" / "data" / "fuzz_seed32_case4748.log"
BARE = b"(Worker_PP0 pid=000)"


def test_a_bare_prefix_is_a_hit_as_the_last_template_too():
    assert _hits(b"\n".join([b"x", BARE]), [1, len(BARE)]) == {1}
    assert _hits(b"\n".join([BARE, b"x"]), [len(BARE), 1]) == {0}
    # the distinct-template branch (many repeats): every copy of the bare line is read, as reading every line does
    templates = [b""] * 30 + [b"x"] * 4 + [BARE] * 3
    assert candidates(templates) == [34, 35, 36]


def _explain(seed: int) -> tuple[int, str]:
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-m", "tpkit", "explain", str(CASE)], capture_output=True, text=True,
                         env=env, cwd=ROOT)
    return out.returncode, out.stdout


def test_the_fuzz_case_reads_the_same_under_every_hash_seed():
    # hash seeds 0 and 7 gave exit 2 ('not an SGLang or vLLM log') before the fix, 2 and 4 gave exit 0
    runs = {seed: _explain(seed) for seed in (0, 2, 4, 7)}
    assert {code for code, _ in runs.values()} == {0}
    assert len({out for _, out in runs.values()}) == 1
    assert "engine      vllm" in runs[0][1]
