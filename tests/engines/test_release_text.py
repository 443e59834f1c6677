"""One reader of an engine's version text (``tpkit.engines.release_tuple``, helper rev20, 2026-12-06): both
engines' ``parse_version`` read through it and refuse an unreadable text in their own words."""

from __future__ import annotations

import pytest

from tpkit.engines import release_tuple
from tpkit.engines.sglang.versions import parse_version as sglang_version
from tpkit.engines.vllm.versions import parse_version as vllm_version
from tpkit.errors import PlanInputError

READ = [("0.5.23", (0, 5, 23)), ("0.11", (0, 11, 0)), ("v0.21.0", (0, 21, 0)), (" 0.6.3", (0, 6, 3)),
        ("0.5.0rc0", (0, 5, 0)), ("0.4.9.post2", (0, 4, 9)), ("0.10.1.dev101+gbda9d0535", (0, 10, 1)),
        ("0.23.1rc1.dev5+g1234", (0, 23, 1)), ("0.24.0+rhaiv.9", (0, 24, 0))]


@pytest.mark.parametrize("text, release", READ)
def test_both_engines_read_a_version_text_alike(text, release):
    assert release_tuple(text) == sglang_version(text) == vllm_version(text) == release


@pytest.mark.parametrize("text", ["", "x", "0", "0.", "V0.5.1", "1e5", "latest"])
def test_an_unreadable_text_is_none_and_each_engine_refuses_it_in_its_words(text):
    assert release_tuple(text) is None
    with pytest.raises(PlanInputError, match="as an SGLang version"):
        sglang_version(text)
    with pytest.raises(PlanInputError, match="as a vLLM version"):
        vllm_version(text)


@pytest.mark.parametrize("text", ["0.8.2:v0", "0.5.23:v1", "0.5.6 : V0"])
def test_sglang_refuses_vllms_engine_suffix(text):
    """vLLM's ':v0' / ':v1' picks its engine; SGLang has one, so the suffix is a mistake, not dropped (tidy32's lead:
    ``--engine sglang --engine-version 0.8.2:v0`` was planned as SGLang 0.8.2)."""
    from tpkit.engines.sglang.versions import parse_version
    from tpkit.errors import PlanInputError
    with pytest.raises(PlanInputError, match="vLLM's engine suffix"):
        parse_version(text)
    assert parse_version(text.split(":")[0].strip()) >= (0, 5, 6)


@pytest.mark.parametrize("version, first, expected", [
    ("0.4.6.post2", "0.4.6.post3", False), ("0.4.6.post3", "0.4.6.post3", True), ("0.4.6", "0.4.6.post3", False),
    ("0.4.7", "0.4.6.post3", True), ("0.4.0", "0.4.1", False), ("0.4.1", "0.4.1", True)])
def test_at_least_post_orders_post_releases_where_at_least_folds_them(version, first, expected):
    """``at_least_post`` (helper rev32: the one home of the post-aware comparison mla_copies and defaults made
    inline) on both sides of a post-release boundary; ``at_least`` reads 0.4.6.post2 as 0.4.6.post3's 0.4.6."""
    from tpkit.engines.sglang.versions import at_least, at_least_post

    assert at_least_post(version, first) is expected
    if first.endswith("post3") and version.startswith("0.4.6"):
        assert at_least(version, first)  # the fold at_least_post exists for
