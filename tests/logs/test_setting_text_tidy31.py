"""One home per concept in ``tpkit.logs`` (helper tidy31, 2026-12-07, session 31).

* The evidence a ``Setting`` quotes (the line stripped, clipped to 300 characters) was ``logs.settings._clip``,
  imported privately by ``logs.command`` and ``logs.run``; it is now the public ``logs.settings.setting_text`` with
  its limit ``SETTING_TEXT_CHARS``.
* The launch-flag spellings (``--tp`` → ``tp_size`` …) were ``logs.settings._FLAG_ALIASES``, read only by
  ``logs.command``: they now live there.
* No module of ``src/tpkit/logs`` imports another module's private name, but for the one listed in
  ``PRIVATE_IMPORTS_LEFT`` (the list only shrinks).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tpkit.logs.command import command_settings
from tpkit.logs.run import entrypoint_settings
from tpkit.logs.settings import SETTING_TEXT_CHARS, setting_text

SRC = Path(__file__).resolve().parents[2] / "src" / "tpkit"

PRIVATE_IMPORTS_LEFT = {("logs/failures.py", "tpkit.logs.phases", "_LOAD_OOM")}
"""private imports still to go: ``logs.failures`` reads ``phases._LOAD_OOM`` (logs/failures.py was helper cr31's
in session 31, so it was left)"""


def _private_imports(path: Path) -> list[tuple[str, str, str]]:
    rel = path.relative_to(SRC).as_posix()
    own = "tpkit." + rel.removesuffix(".py").replace("/", ".")
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module != own:
            out += [(rel, node.module, a.name) for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")]
    return out


def test_no_logs_module_imports_another_modules_private_name():
    found = {i for path in sorted((SRC / "logs").rglob("*.py")) for i in _private_imports(path)}
    assert found - PRIVATE_IMPORTS_LEFT == set(), "import the owner's public name (or move the concept)"
    assert PRIVATE_IMPORTS_LEFT <= found, "a listed private import is gone: drop it from PRIVATE_IMPORTS_LEFT"


def test_setting_text_strips_and_clips():
    assert setting_text("  --tp 8 \n") == "--tp 8"
    exact = "x" * SETTING_TEXT_CHARS
    assert setting_text(exact) == exact
    long = setting_text("y" * (SETTING_TEXT_CHARS + 1))
    assert len(long) == SETTING_TEXT_CHARS - 2 and long.endswith("…")


def test_every_reader_quotes_the_same_clipped_text():
    command = "python -m sglang.launch_server --model-path m --tp 2 " + "--foo bar " * 60
    _, settings = command_settings(command, line_no=3)
    assert settings and {s.text for s in settings} == {setting_text(command)}
    tp = next(s for s in settings if s.name == "tp")
    assert tp.value == 2 and tp.key == "--tp"
    line = "WARNING Setting max_num_batched_tokens to 8192 for OPENAI_API_SERVER usage context. " + "z" * 400
    quoted = entrypoint_settings(line, line_no=1)
    assert [(s.value, s.text) for s in quoted] == [("serve", setting_text(line))]
