"""``explain.sgrelease._release_ends`` / ``_ends_to_read``: the one home of "both ends of the releases the log
allows", which ``stream_pool_for`` and ``deepgemm_workspace_for`` read (round rev33, 2026-12-07, session 33)."""

from types import SimpleNamespace

import pytest

from tpkit.explain.refusals import REFUSED
from tpkit.explain.sgrelease import _ends_to_read, _release_ends


def _ctx(version, rules_version, date=None):
    return SimpleNamespace(version=version, rules_version=rules_version,
                           get=lambda key, default=None: date if key == "log_date" else default)


@pytest.mark.parametrize("oldest, newest, want", [
    ("0.5.14", "0.5.20", ["0.5.14", "0.5.20"]),  # a range: both ends
    ("0.5.15", "0.5.15", ["0.5.15", "0.5.15"]),  # one release: read twice, the same figure
    ("0.5.16", "0.5.15", ["0.5.15"]),            # the date cap below the oldest format: the newest alone
    (None, "0.5.15", ["0.5.15"]),                # no release named: the newest alone
])
def test_the_ends_read_either_side_of_the_cap(oldest, newest, want):
    assert _ends_to_read(oldest, newest) == want


def test_an_unreadable_version_is_refused():
    with pytest.raises(REFUSED):
        _ends_to_read("0.5.15", "not-a-version")


def test_the_ends_of_a_log_and_the_date_cap():
    oldest, newest, capped = _release_ends(_ctx("0.5.14–0.5.20", "0.5.20"))
    assert (oldest, newest, capped) == ("0.5.14", "0.5.20", "")
    oldest, newest, capped = _release_ends(_ctx("0.5.14–0.5.20", "0.5.20", date="2020-01-01"))
    assert oldest == "0.5.14" and capped and newest != "0.5.20"
