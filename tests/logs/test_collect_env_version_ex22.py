"""vLLM's collect_env line 'vLLM Version: X' names the release (helper ex22, held-back round, 2026-12-06).

``vllm/collect_env.py`` prints it as 'vLLM Version: 0.8.5' in the 0.5–0.8 bug-report template and padded to a column
('vLLM Version                 : 0.22.0', read in the 0.22.0 wheel, line 868).  The issues' environment blocks of
vl_986 (0.8.5), vl_993 (0.6.4.dev3) and vl_998 (0.5.4) were read without a release (or as '0.0–0.7'); vl_075, vl_582
and vl_916 now read the release their cases.json records."""

from pathlib import Path

from tpkit.logs.reader import parse_log

DATA = Path(__file__).resolve().parent / "data"


def _version(text: str) -> str | None:
    return parse_log(("INFO 04-30 10:44:38 [__init__.py:239] Automatically detected platform cuda.\n" + text).encode()
                     ).engine.version


def test_the_collect_env_line_names_the_release():
    assert _version("vLLM Version: 0.8.5\nvLLM Build Flags:\n") == "0.8.5"
    assert _version("vLLM Version                 : 0.11.1.dev12+g5ded9e9aa (git sha: 5ded9e9aa)\n") == \
        "0.11.1.dev12+g5ded9e9aa"
    assert _version("vLLM Version: N/A\n") is None


def test_the_held_back_logs_read_it():
    got = {name: parse_log((DATA / "vllm" / f"{name}.log").read_bytes()).engine.version
           for name in ("vl_986", "vl_993", "vl_998")}
    assert got == {"vl_986": "0.8.5", "vl_993": "0.6.4.dev3+gf0fe4fe8", "vl_998": "0.5.4"}
