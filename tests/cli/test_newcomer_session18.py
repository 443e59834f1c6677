"""What the session-18 newcomer sweep met (helper nc18, 2026-12-05): tpkit installed from its wheel (not editable)
and run from outside the repository, in unusual environments: HOME empty, HF_HOME missing, TMPDIR read-only or
missing, an ASCII locale (``LC_ALL=C`` with UTF-8 mode off, ``PYTHONIOENCODING=ascii``), ``COLUMNS`` of 20 or of
twenty digits, standard output read by ``head -1`` or closed, standard input closed, NO_COLOR and a pipe.  Each
command is run in a child process (``python -m tpkit``, cwd a temporary folder), as a user runs it.  The wheel's
contents are checked in tests/packaging/test_wheel_data.py.

Failed before their fix (each test says "Before:"):

- An ASCII locale (``LC_ALL=C PYTHONUTF8=0``, a minimal container without C.UTF-8): every plan crashed with a
  UnicodeDecodeError traceback (the start-up table was read in the locale's encoding), and ``plan`` / ``explain`` /
  ``perf`` / ``--help`` then with a UnicodeEncodeError on the first "±", "→", "×" or "·".  Data files are now read
  as UTF-8, and a standard stream that cannot encode them spells them in ASCII ("+/-", "->", "x"); ``--json`` then
  escapes (``\\u00b1``), so the JSON still holds the exact text.
- ``tpkit plan … >&-`` (stdout closed) ended in an AttributeError traceback (``sys.stdout`` is None): it now runs
  with its output discarded and keeps its exit status (0, 3 or 2).
- ``tpkit explain - <&-`` (stdin closed) ended in an AttributeError traceback: now exit 2 with a message.
- ``COLUMNS=99999999999999999999 tpkit plan …``: a ValueError traceback ("Too many decimal digits"), and
  ``COLUMNS=1000000`` wrote 19 MB of padding: the table's width is now capped at 500 columns.
- ``tpkit plan … > /dev/full`` (stdout on a full disk): an OSError traceback (exit 1), or "Exception ignored" at the
  exit's flush: now one line, "cannot write the output: No space left on device", exit 2.
- MODEL ``/dev/null`` (a device): "path /dev/null: does not exist"; it now says the path is a device or a pipe.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clirun import SYNTHETIC_KIMI, cli, refused

SRC = Path(__file__).resolve().parents[2] / "src"
KIMI_PLAN = ("plan", "moonshotai/Kimi-K2.5", "--engine", "sglang", "--gpu", "RTX-PRO-6000", "--tp", "8",
             "--mem-fraction-static", "0.85")
"""the README's first command"""
KIMI_PERF = ("perf", "moonshotai/Kimi-K2.5", "--tp", "8", "--speculative-algorithm", "EAGLE3", "--engine-version",
             "0.5.10", "--context", "16384", "--accept-length", "2.04", "--gpu", "RTX-PRO-6000")
"""the README's `tpkit perf` example"""
EXPLAIN = ("explain", str(SYNTHETIC_KIMI))
FROM_LOG = ("plan", "--from-log", str(SYNTHETIC_KIMI), "--gpu", "RTX-PRO-6000", "--mem-fraction-static", "0.9")
COMMANDS = {"plan": KIMI_PLAN, "explain": EXPLAIN, "perf": KIMI_PERF, "from-log": FROM_LOG}
ASCII = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": ""}
"""a C locale with Python's UTF-8 mode and locale coercion off: the streams' encoding is ASCII"""


def tpkit(*argv, tmp_path, env=None, close=(), stdin=subprocess.DEVNULL, timeout=120):
    """(exit code, stdout bytes, stderr text) of ``python -m tpkit ARGV`` run from ``tmp_path``; ``close``: file
    descriptors (0, 1) closed in the child before it starts."""
    full = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "PYTHONIOENCODING", "PYTHONUTF8")}
    full.update({"PYTHONPATH": str(SRC)}, **(env or {}))
    full = {k: v for k, v in full.items() if v is not None}

    def _close():
        for fd in close:
            os.close(fd)

    out = subprocess.run([sys.executable, "-m", "tpkit", *argv], cwd=tmp_path, env=full, stdin=stdin,
                         stdout=subprocess.DEVNULL if 1 in close else subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=_close if close else None, timeout=timeout)
    return out.returncode, out.stdout or b"", out.stderr.decode("utf-8", "replace")


# --- an ASCII locale ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", COMMANDS)
@pytest.mark.parametrize("locale", ["LC_ALL=C", "PYTHONIOENCODING=ascii"])
def test_an_ascii_locale_prints_every_command(name, locale, tmp_path):
    """Before: LC_ALL=C PYTHONUTF8=0 — UnicodeDecodeError reading startup/data/table.json (plan, from-log), then
    UnicodeEncodeError on "±" / "—" (explain, perf); PYTHONIOENCODING=ascii — UnicodeEncodeError on "·"."""
    env = ASCII if locale == "LC_ALL=C" else {"PYTHONIOENCODING": "ascii"}
    code, out, err = tpkit(*COMMANDS[name], tmp_path=tmp_path, env=env)
    assert code == 0 and "Traceback" not in err, err[-2000:]
    text = out.decode("ascii")  # nothing but ASCII reached the stream
    utf8 = tpkit(*COMMANDS[name], tmp_path=tmp_path, env={"PYTHONUTF8": "1"})[1].decode("utf-8")
    assert text.count("?") == utf8.count("?")  # every symbol spelled in ASCII, none replaced by "?"
    if name in ("plan", "from-log"):
        assert "+/-" in text and "-> " in text and " x 8" in text  # "± 0.05", "↳ source", "× 8"


@pytest.mark.parametrize("name", ["plan", "explain", "perf"])
def test_an_ascii_locale_keeps_the_json_exact(name, tmp_path):
    """Before: a traceback (plan: the start-up table; explain, perf: "ensure_ascii=False" on an ASCII stream).
    Now the JSON is ASCII with \\u escapes, and decodes to what a UTF-8 locale prints."""
    argv = (*COMMANDS[name], "--json")
    code, out, err = tpkit(*argv, tmp_path=tmp_path, env=ASCII)
    assert code == 0 and "Traceback" not in err, err[-2000:]
    plain = json.loads(out.decode("ascii"))
    code, utf8, _ = tpkit(*argv, tmp_path=tmp_path, env={"PYTHONUTF8": "1"})
    assert plain == json.loads(utf8.decode("utf-8"))


def test_an_ascii_locale_refuses_bad_input_with_its_message(tmp_path):
    code, out, err = tpkit("plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "0", "--json",
                           tmp_path=tmp_path, env=ASCII)
    assert code == 2 and "Traceback" not in err and "error:" in err
    assert json.loads(out.decode("ascii"))["schema"] == "tpkit.error/1"


@pytest.mark.parametrize("argv", [("--help",), ("plan", "--help"), ("explain", "--help"), ("perf", "--help"),
                                  ("plan", "--list-gpus"), ("plan", "--list-models")])
def test_an_ascii_locale_prints_the_help_pages(argv, tmp_path):
    """Before: ``tpkit plan --help`` died on the "≥" of a flag's help line (UnicodeEncodeError, exit 1)."""
    code, out, err = tpkit(*argv, tmp_path=tmp_path, env=ASCII)
    assert code == 0 and "Traceback" not in err, err[-2000:]
    assert out.decode("ascii")


def test_a_latin1_stream_keeps_its_own_symbols(tmp_path):
    """A Latin-1 terminal prints "±" and "×" itself; only what it lacks ("↳", "—") is spelled in ASCII."""
    code, out, err = tpkit(*KIMI_PLAN, tmp_path=tmp_path, env={"PYTHONIOENCODING": "latin-1"})
    assert code == 0 and "Traceback" not in err
    text = out.decode("latin-1")
    assert "± 0.05" in text and "× 8" in text and "↳" not in text and "-> " in text


def test_the_ascii_spelling_of_each_symbol():
    import codecs
    import io

    import tpkit.cli.streams as cli_module

    codecs.register_error("tpkit-ascii", cli_module._ascii_spelling)  # what usable_streams registers
    spell = lambda text: text.encode("ascii", "tpkit-ascii").decode()  # noqa: E731
    assert spell("tpkit plan · sglang") == "tpkit plan - sglang"  # a separator
    assert spell("(n-1)·S, 24·1024²") == "(n-1)*S, 24*1024^2"  # a product
    assert spell("-0.52 ± 0.05 ↳ 8× H200 ≥ 1 … café 中") == "-0.52 +/- 0.05 -> 8x H200 >= 1 ... cafe ?"
    assert not cli_module.unicode_stream(io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    assert not cli_module.unicode_stream(io.TextIOWrapper(io.BytesIO(), encoding="latin-1"))  # lacks "→"
    assert cli_module.unicode_stream(io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))


def test_the_ascii_spelling_is_only_for_streams_that_need_it(capsys):
    """A UTF-8 stdout (here pytest's capture) is left alone: the symbols are printed as they are."""
    code, out, _ = cli(capsys, *KIMI_PLAN)
    assert code == 0 and "± 0.05" in out and "↳ " in out


# --- standard streams closed, or read in part ----------------------------------------------------------------------

@pytest.mark.parametrize("argv, status", [(KIMI_PLAN, 0), (("plan", "meta-llama/Llama-3.1-70B-Instruct", "--gpu",
                                                           "H100"), 3), (EXPLAIN, 0), (KIMI_PERF, 0),
                                          (("plan", "no-such/model", "--gpu", "H100", "--json"), 2)])
def test_a_closed_stdout_keeps_the_exit_status(argv, status, tmp_path):
    """Before: ``tpkit plan … >&-`` — AttributeError: 'NoneType' object has no attribute 'write' (exit 1)."""
    code, _, err = tpkit(*argv, tmp_path=tmp_path, close=(1,))
    assert code == status and "Traceback" not in err, err[-2000:]
    assert ("error:" in err) == (status == 2)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("argv", [KIMI_PLAN, (*KIMI_PLAN, "--json"), EXPLAIN, (*KIMI_PERF, "--json")])
def test_a_full_disk_under_stdout_is_a_message(argv, tmp_path):
    """Before: ``tpkit plan … > /dev/full`` (stdout redirected onto a full disk) — OSError: [Errno 28] No space left
    on device, a traceback and exit 1."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    with open("/dev/full", "w") as full:
        got = subprocess.run([sys.executable, "-m", "tpkit", *argv], cwd=tmp_path, stdout=full, stderr=subprocess.PIPE,
                             env={**env, "PYTHONPATH": str(SRC)}, stdin=subprocess.DEVNULL, timeout=120)
    err = got.stderr.decode()
    assert got.returncode == 2 and "Traceback" not in err and "Exception ignored" not in err, err[-2000:]
    assert err.count("\n") == 1 and "error: cannot write the output: No space left on device" in err


def test_explain_from_a_closed_stdin_says_so(tmp_path):
    """Before: ``tpkit explain - <&-`` — AttributeError: 'NoneType' object has no attribute 'isatty' (exit 1)."""
    code, out, err = tpkit("explain", "-", tmp_path=tmp_path, close=(0,), stdin=None)
    assert code == 2 and "Traceback" not in err and not out, err[-2000:]
    assert "standard input is closed" in err and "cat server.log | tpkit explain -" in err


@pytest.mark.parametrize("argv", [KIMI_PLAN, (*KIMI_PLAN, "--json"), EXPLAIN, (*EXPLAIN, "--json"), KIMI_PERF,
                                  (*KIMI_PERF, "--json"), ("plan", "--list-models"), ("plan", "--help")])
def test_head_1_reads_one_line_and_no_traceback(argv, tmp_path):
    """``tpkit plan … | head -1``: the reader leaves after one line; tpkit stops without a BrokenPipeError
    traceback (exit 0 when all was written before the reader left, else 141 as a shell reports SIGPIPE).
    Held before this session (cli.main's BrokenPipeError branch); pinned here for each command."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["PYTHONPATH"] = str(SRC)
    proc = subprocess.Popen([sys.executable, "-m", "tpkit", *argv], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, bufsize=0)
    first = proc.stdout.readline()
    proc.stdout.close()  # `head -1` exits
    err = proc.stderr.read().decode("utf-8", "replace")
    code = proc.wait(timeout=120)
    assert first and code in (0, 141) and "Traceback" not in err and "Error" not in err, (code, err[-2000:])


def test_a_model_path_that_is_a_device_is_not_called_missing(capsys):
    """Before: ``tpkit plan /dev/null --gpu H100`` said "path /dev/null: does not exist"."""
    refused(capsys, "plan", "/dev/null", "--gpu", "H100", says=("not found",))
    err = cli(capsys, "plan", "/dev/null", "--gpu", "H100")[2]
    assert "path /dev/null: is not a regular file or folder (a device or a pipe)" in err and "does not exist" not in err


# --- the environment: HOME, HF_HOME, TMPDIR, COLUMNS, NO_COLOR --------------------------------------------------

def test_an_empty_home_and_a_missing_hf_home(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "HF_HOME": str(tmp_path / "no" / "hf"), "XDG_CACHE_HOME": None,
           "HF_HUB_CACHE": None, "HUGGINGFACE_HUB_CACHE": None}
    code, out, err = tpkit(*KIMI_PLAN, tmp_path=tmp_path, env=env)
    assert code == 0 and b"catalog:moonshotai/Kimi-K2.5" in out and "Traceback" not in err
    code, out, err = tpkit("plan", "org/not-in-the-catalog", "--gpu", "H100", tmp_path=tmp_path, env=env)
    assert code == 2 and "Traceback" not in err and not out
    assert f"HF cache {tmp_path / 'no' / 'hf' / 'hub'}: no cached config.json" in err
    assert list(home.iterdir()) == []  # nothing written into HOME


@pytest.mark.parametrize("tmpdir", ["read-only", "missing"])
def test_a_read_only_or_missing_tmpdir(tmpdir, tmp_path):
    where = tmp_path / "t"
    if tmpdir == "read-only":
        where.mkdir()
        where.chmod(0o555)
    code, out, err = tpkit(*KIMI_PLAN, tmp_path=tmp_path, env={"TMPDIR": str(where)})
    assert code == 0 and out and "Traceback" not in err
    code, out, err = tpkit(*EXPLAIN, tmp_path=tmp_path, env={"TMPDIR": str(where)})
    assert code == 0 and out and "Traceback" not in err


@pytest.mark.parametrize("columns", ["20", "0", "-3", "abc", "99999999999999999999", "1000000"])
def test_any_columns_value_renders_the_plan(columns, tmp_path):
    """Before: COLUMNS=99999999999999999999 — ValueError "Too many decimal digits in format string" (exit 1);
    COLUMNS=1000000 — every ledger row padded to a million columns (19 MB).  Widths below 60 give 60 (as before),
    above 500 give 500."""
    code, out, err = tpkit(*KIMI_PLAN, tmp_path=tmp_path, env={"COLUMNS": columns})
    assert code == 0 and "Traceback" not in err, err[-2000:]
    lines = out.decode("utf-8").split(" would log (")[0].splitlines()  # the engine's own lines are quoted whole
    assert max(map(len, lines)) <= 500 and len(out) < 100_000
    if columns == "20":
        assert max(map(len, lines)) == 60


def test_no_colour_codes_in_a_pipe_or_with_no_color(tmp_path):
    """tpkit prints no ANSI escapes at all (no colour to turn off): NO_COLOR and a pipe change nothing."""
    for argv in (KIMI_PLAN, EXPLAIN, KIMI_PERF, ("plan", "--help")):
        plain = tpkit(*argv, tmp_path=tmp_path)[1]
        assert b"\x1b" not in plain
        assert tpkit(*argv, tmp_path=tmp_path, env={"NO_COLOR": "1", "TERM": "xterm-256color"})[1] == plain


# --- the --json keys of issues 12 and 13, with their types, on success and on a user error ---------------------

def _types(obj, spec, where=""):
    """Every key of ``spec`` in ``obj`` with a value of its type(s); a dict spec is checked one level down."""
    for key, want in spec.items():
        assert key in obj, f"{where}{key} missing"
        if isinstance(want, dict):
            assert isinstance(obj[key], dict), f"{where}{key}: {type(obj[key]).__name__}"
            _types(obj[key], want, f"{where}{key}.")
        else:
            assert isinstance(obj[key], want), f"{where}{key}: {type(obj[key]).__name__} not {want}"


NUM = (int, float)
EXPLAIN_KEYS = {"engine": str, "engine_version": (str, type(None)),
                "kv_tokens": {"printed": (int, type(None)), "predicted": (int, type(None))}, "ledger": list,
                "diagnosis": {"status": str, "phase": (str, type(None)), "cause": str, "fixes": list},
                "missing": list}
"""issue 12's explain --json keys (README "Reading a log")"""
PERF_KEYS = {"baseline": {"step_s": NUM, "tok_s": NUM},
             "speculative": {"cycle_s": NUM, "tok_s": NUM, "accept_length": NUM, "speedup": NUM},
             "allreduce": {"calls_per_forward": int, "us_per_call": NUM, "backend": str, "source": str},
             "crossover_batch": (int, type(None)), "best_settings": (dict, type(None)),
             "verdict": {"message": str, "flags": list}}
"""issue 13's perf --json keys (README "Speed: tpkit perf")"""
ERROR_KEYS = {"schema": str, "command": str, "exit_code": int, "error": {"type": str, "message": str}}


def test_the_issue_json_keys_and_types(capsys, tmp_path):
    """Issues 12 and 13 name these keys: pinned with their types on the CLI's own ``--json`` (explain of a crash
    log, so the fixes carry flags / kv_tokens / fits; perf with speculation) and, for a user error, the error
    object every ``--json`` command prints (README: exit 2, ``tpkit.error/1``)."""
    crash = SYNTHETIC_KIMI.parents[1] / "sglang" / "sg_028.log"
    for log, status in ((SYNTHETIC_KIMI, "ok"), (crash, "failed")):
        code, out, _ = cli(capsys, "explain", str(log), "--json")
        body = json.loads(out)
        assert code == 0 and body["diagnosis"]["status"] == status
        _types(body, EXPLAIN_KEYS)
        for item in body["ledger"]:
            _types(item, {"item": str, "bytes": (int, type(None))})
        for fix in body["diagnosis"]["fixes"]:
            _types(fix, {"flags": str, "kv_tokens": (int, type(None)), "fits": bool})
        assert all(isinstance(m, str) for m in body["missing"])
    assert body["diagnosis"]["fixes"]  # the crash log has fixes
    code, out, _ = cli(capsys, *KIMI_PERF[:-2], "--gpu", "RTX-PRO-6000", "--json")
    body = json.loads(out)
    assert code == 0
    _types(body, PERF_KEYS)
    assert isinstance(body["crossover_batch"], int) and isinstance(body["best_settings"], dict)
    assert all(isinstance(f, str) for f in body["verdict"]["flags"])
    for argv in (("explain", str(tmp_path / "none.log")), ("perf", "moonshotai/Kimi-K2.5", "--gpu", "H300"),
                 ("plan", "moonshotai/Kimi-K2.5", "--gpu", "H100", "--tp", "0")):
        code, out, err = cli(capsys, *argv, "--json")
        body = json.loads(out)
        assert code == 2 and body["exit_code"] == 2 and body["command"] == f"tpkit {argv[0]}"
        _types(body, ERROR_KEYS)
        assert body["error"]["message"] in err
