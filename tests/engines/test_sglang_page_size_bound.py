"""Lead, session 18: fuzz plan seed 16 (case 1437) planned `--page-size 1000000000` and broke the plan invariant: SGLang
allocates one padding page beside the pool, so a huge page alone exceeds the GPU. A page size above 65,536 is now a
user error, and a pool of no tokens allocates no buffer (the engine raises 'Not enough memory' on
max_total_num_tokens <= 0 before it allocates)."""

from tpkit.cli import main


def test_a_huge_page_size_is_a_clear_user_error(capsys):
    code = main(["plan", "SpecForge/gpt-oss-20B-eagle3", "--engine", "sglang", "--gpu", "h100-sxm",
                 "--page-size", "1000000000", "--gpu-memory", "1TiB"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--page-size 1,000,000,000 tokens is larger than tpkit plans (65,536)" in err and "Traceback" not in err


def test_the_largest_page_size_plans_without_breaking_the_invariant(capsys):
    code = main(["plan", "SpecForge/gpt-oss-20B-eagle3", "--engine", "sglang", "--gpu", "h100-sxm",
                 "--page-size", "65536", "--gpu-memory", "100MiB"])
    assert code in (0, 3), capsys.readouterr().err


def test_a_pool_of_no_tokens_allocates_no_padding_page(capsys):
    """SGLang raises before it allocates when max_total_num_tokens <= 0, so the ledger's KV pool is 0 B, not a
    padding page of 65,536 rows."""
    import json

    code = main(["plan", "SpecForge/gpt-oss-20B-eagle3", "--engine", "sglang", "--gpu", "h100-sxm",
                 "--page-size", "65536", "--gpu-memory", "100MiB", "--json"])
    plan = json.loads(capsys.readouterr().out)
    assert code == 3 and plan["kv_tokens"] == 0
    assert [line["bytes"] for line in plan["ledger"] if line["item"] == "KV pool"] == [0]
