"""SGLang's release text is the range every one of its line formats allows (review qual9, 2026-12-05), as vLLM's
is: before, the first format's range stood alone and could contradict the log's own evidence (sg_001 read
"0.4.6–0.5.10" while its 'Load weight end. type=' ends at 0.5.8).  The marker ends are the releases that change
them (every SGLang wheel 0.5.10–0.5.23 read; helpers capx and qual9), so the intersection holds a log's release."""

import json
from pathlib import Path

import pytest

from tpkit.logs.engine import release_range
from tpkit.logs.reader import parse_log

DATA = Path(__file__).resolve().parent / "data"
SG = "[2026-02-01 00:05:01 TP0] "


def _version(text: str) -> str | None:
    return parse_log(text).engine.version


def test_a_range_the_evidence_contradicts_is_narrowed_to_what_every_format_allows():
    capture = SG + "Capture cuda graph end. Time elapsed: 6.57 s\n"
    load_old = SG + "Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.72 GB\n"
    assert _version(capture).startswith("0.4.0–0.5.13 ")  # one format: its own text
    assert _version(capture + load_old) == "0.4–0.5.8"  # was "0.4.0–0.5.13 (…)" (sg_001's formats)


def test_the_formats_own_text_is_kept_when_its_range_is_the_intersection():
    init_old = SG + "Init torch distributed ends. mem usage=0.00 GB\n"
    capture = SG + "Capture cuda graph end. Time elapsed: 1.01 s. mem usage=0.03 GB. avail mem=2.39 GB.\n"
    assert _version(init_old + capture) == "0.4.3.post3–0.5.8 (not in 0.4.3.post2 or 0.5.9)"
    assert _version(capture + init_old) == "0.4.3.post3–0.5.8 (not in 0.4.3.post2 or 0.5.9)"  # whichever comes first


def test_formats_that_never_meet_keep_the_first_formats_text():
    """The first in ``FORMAT_MARKERS`` order, as before (a pasted mix of two releases' lines)."""
    init_new = SG + "Init torch distributed ends. elapsed=0.12 s, mem usage=0.02 GB\n"
    baseline = SG + "Memory baseline taken. mem usage=0.03 GB\n"  # 0.5.21+; the init line stops at 0.5.20
    assert _version(init_new + baseline) == "0.5.21–0.5.23 (not in 0.5.20)"


@pytest.mark.parametrize("case, text, release", [("sg_001", "0.4–0.5.8", None),
                                                 ("sg_222", "0.5.13–0.5.20", "0.5.17"),
                                                 ("sg_082", "0.5.14–0.5.20", None)])
def test_corpus_logs(case, text, release):
    version = parse_log((DATA / "sglang" / f"{case}.log").read_bytes()).engine.version
    assert version == text
    if release:
        lo, hi = release_range(version)
        assert lo <= tuple(int(x) for x in release.split(".")) <= hi


def test_every_format_dated_corpus_log_with_a_known_release_holds_it_but_two_single_format_ones():
    """sg_020 (a ROCm dev image, 0.5.8.post1, printing 0.5.9's 'Load weight end. elapsed=') and sg_054 (an abridged
    PR excerpt of 0.5.19 with the old 'type=' wording) carry one format each and read as before."""
    cases = {c["id"]: c for c in json.loads((DATA / "cases.json").read_text())}
    outside = []
    for path in sorted((DATA / "sglang").glob("*.log")):
        guess = parse_log(path.read_bytes()).engine
        known = cases.get(path.stem, {}).get("engine_version") or ""
        parts = known.split(" ")[0].split(".")[:3]
        if guess.version_printed or not guess.version or len(parts) < 3 or not all(p.isdigit() for p in parts):
            continue
        lo, hi = release_range(guess.version)
        if not lo <= tuple(int(p) for p in parts) <= hi:
            outside.append(path.stem)
    assert outside == ["sg_020", "sg_054"]  # sg_631 (0.4.3.post2, an executed Colab notebook) holds its release
    # since the lead read every 0.4.x wheel up to 0.4.6 (session 28): 'Capture cuda graph end. Time elapsed' is printed
    # from 0.4.0 (not by 0.3.6.post3), 'Init torch distributed ends. mem usage=' from 0.4.3.post3 (not by 0.4.3.post2)
