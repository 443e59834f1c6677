"""Helper tidy28 (session 28): scripts/cli_inproc.py is the one home of "run tpkit in this interpreter, output
captured"; seven scripts each carried a copy (plan_sweep, cli_output_compare, explain_golden, emitted_flags_check,
model_by_name_check, from_log_capacity_check, explain_roundtrip_check)."""

from __future__ import annotations

import re
import sys

import pytest

from tests.scripts_testlib import ROOT, load_script

USERS = ("plan_sweep", "cli_output_compare", "explain_golden", "emitted_flags_check", "model_by_name_check",
         "from_log_capacity_check", "explain_roundtrip_check")


@pytest.fixture(scope="module")
def inproc():
    return load_script("cli_inproc")


def test_status_and_output_of_a_run(inproc):
    code, out, err = inproc.run_tpkit(["plan", "--help"])
    assert code == 0 and out.startswith("usage: tpkit plan") and err == ""
    code, out, err = inproc.run_tpkit(["plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "x"])
    assert code == 2 and out == "" and "--tp" in err


def test_standard_input_is_given_and_restored(inproc):
    saved = sys.stdin
    code, out, err = inproc.run_tpkit(["explain", "-"], stdin=b"")
    assert code == 2 and "standard input is empty" in err
    assert sys.stdin is saved


def test_an_internal_error_is_raised_or_recorded(inproc, monkeypatch):
    import tpkit.cli

    def boom(argv):
        raise RuntimeError("boom")

    monkeypatch.setattr(tpkit.cli, "main", boom)
    with pytest.raises(RuntimeError):
        inproc.run_tpkit(["plan"])
    assert inproc.run_tpkit(["plan"], internal_errors=True) == (1, "", "INTERNAL RuntimeError: boom\n")


@pytest.mark.parametrize("name", USERS)
def test_the_scripts_use_it_and_keep_no_copy(name):
    text = (ROOT / "scripts" / f"{name}.py").read_text(encoding="utf-8")
    assert "from cli_inproc import" in text
    assert not re.search(r"redirect_stdout\(", text), name
