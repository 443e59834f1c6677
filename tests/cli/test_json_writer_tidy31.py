"""One home for the ``--json`` writer of ``tpkit explain`` and ``tpkit perf`` (helper tidy31, 2026-12-07, session 31).

Both commands wrote ``json.dump(doc, sys.stdout, indent=2, ensure_ascii=not unicode_stream())`` and a newline (the
duplicates tool's pair ``cli/explain.py`` ~ ``cli/perf.py``); ``cli.streams.write_json`` is now the one writer.
``plan --json`` and the catalogs keep json's default (every non-ASCII character escaped): a change of their bytes is
the lead's to decide, so they are left as they were."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from tpkit.cli.streams import write_json

CLI = Path(__file__).resolve().parents[2] / "src" / "tpkit" / "cli"
DOC = {"band": "± 0.05 GiB", "n": 3}


@pytest.mark.parametrize("encoding, escaped", [("utf-8", False), ("ascii", True), ("latin-1", True)])
def test_write_json_escapes_only_where_the_stream_lacks_the_symbols(monkeypatch, encoding, escaped):
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding=encoding)
    monkeypatch.setattr(sys, "stdout", stream)
    write_json(DOC)
    stream.flush()
    text = raw.getvalue().decode(encoding)
    assert text.endswith("}\n") and json.loads(text) == DOC
    assert ("\\u00b1" in text) is escaped and ("±" in text) is not escaped
    assert text == json.dumps(DOC, indent=2, ensure_ascii=escaped) + "\n"


@pytest.mark.parametrize("module", ["explain.py", "perf.py"])
def test_explain_and_perf_write_their_json_through_the_one_writer(module):
    source = (CLI / module).read_text(encoding="utf-8")
    assert "write_json(" in source and "json.dump(" not in source
