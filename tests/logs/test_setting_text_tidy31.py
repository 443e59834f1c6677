"""One home per concept in ``tpkit.logs`` (helper tidy31, 2026-12-07, session 31).

* The evidence a ``Setting`` quotes (the line stripped, clipped to 300 characters) was ``logs.settings._clip``,
  imported privately by ``logs.command`` and ``logs.run``; it is now the public ``logs.settings.setting_text`` with
  its limit ``SETTING_TEXT_CHARS``.
* The launch-flag spellings (``--tp`` → ``tp_size`` …) were ``logs.settings._FLAG_ALIASES``, read only by
  ``logs.command``: they now live there.
* No module of ``src/tpkit/logs`` imports another module's private name, but for the one listed in
  ``PRIVATE_IMPORTS_LEFT`` of tests/core/test_no_private_imports.py (the list only shrinks).
"""

from __future__ import annotations

from tpkit.logs.command import command_settings
from tpkit.logs.run import entrypoint_settings
from tpkit.logs.settings import SETTING_TEXT_CHARS, setting_text


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
