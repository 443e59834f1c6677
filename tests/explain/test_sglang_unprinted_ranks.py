"""SGLang's MIN over ranks when a log prints only some ranks (``startup.rankspread.sglang_rank_spread``).

``init_torch_distributed`` and ``profile_max_num_token`` take the free memory with
``get_available_gpu_memory(distributed=True)``, a MIN all-reduce over the ranks (sglang 0.3–0.5): a log that prints
the lines of fewer ranks than the group bounds that MIN only from above.
"""

from tpkit.explain import explain_log
from tpkit.startup.rankspread import sglang_rank_spread

_HEAD = ("[2025-09-11 10:24:10] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2, "
         "mem_fraction_static=0.85, page_size=1)\n")


def _rank(r: int) -> str:
    return (f"[2025-09-11 10:24:24 TP{r}] Load weight begin. avail mem=78.48 GB\n"
            f"[2025-09-11 10:25:33 TP{r}] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, "
            "avail mem=70.80 GB, mem usage=7.68 GB.\n")


def _explain(text: str):
    return explain_log(text, flags={"model": "Qwen/Qwen3-8B", "gpu": "H100-SXM-80GB", "engine_version": "0.5.2"})


def test_one_of_two_ranks_printed_widens_the_budget_down_by_f_times_the_spread():
    one, both = _explain(_HEAD + _rank(0)), _explain(_HEAD + _rank(0) + _rank(1))
    assert not any("ranks not printed" in r.item for r in both.anchored.rows)
    assert any("ranks not printed" in r.item for r in one.anchored.rows)
    assert one.anchored.rest.high == both.anchored.rest.high
    cuda = sglang_rank_spread(True, "cuda")[0]  # an H100: the CUDA deployments' figure (helper cap32)
    assert both.anchored.rest.low.bytes - one.anchored.rest.low.bytes == round(cuda.bytes * 0.85)


def test_tp_1_is_never_widened():
    text = _HEAD.replace("tp_size=2", "tp_size=1") + _rank(0).replace(" TP0]", "]")
    assert not any("ranks not printed" in r.item for r in _explain(text).anchored.rows)


def _pool(r: int, tokens: int) -> str:
    return f"[2025-09-11 10:25:35 TP{r}] KV Cache is allocated. #tokens: {tokens}, K size: 1.00 GB, V size: 1.00 GB\n"


def test_a_pool_below_the_range_names_the_unprinted_ranks_shortfall():
    """A pool below the budget rebuilt from the printed ranks, with ranks unprinted: explain says how much less
    free memory the smallest unprinted rank had (Δ … Δ / f), instead of a bare miss."""
    base = _explain(_HEAD + _rank(0))
    lo = base.anchored.tokens_predicted[0]
    cell = base.anchored.cell_bytes
    tokens = lo - int(0.1 * 2**30 // cell)  # about 0.1 GiB below the range
    e = _explain(_HEAD + _rank(0) + _pool(0, tokens))
    text = e.anchored.unprinted_ranks
    assert text is not None and "1 printed rank(s) of 2" in text and "MIN over all ranks" in text
    assert "0.10–0.12 GiB" in text  # Δ ≈ 0.10 GiB; Δ / 0.85 ≈ 0.12 GiB
    # inside the range, or every rank printed: nothing to say
    assert _explain(_HEAD + _rank(0) + _pool(0, lo)).anchored.unprinted_ranks is None
    assert _explain(_HEAD + _rank(0) + _rank(1) + _pool(0, tokens)).anchored.unprinted_ranks is None


def test_the_profiled_value_pins_the_budget_too():
    """No pool printed, only the max_total_tokens warning's 'profiled value' (SGLang's raw floor(budget / cell),
    step 1, printed as a failure when negative): a value below the range rebuilt from the one printed rank of two
    names the shortfall as well."""
    head = _HEAD.replace("mem_fraction_static=0.85", "mem_fraction_static=0.05")
    base = _explain(head + _rank(0))
    cell = base.anchored.cell_bytes
    low = int(base.anchored.rest.low.bytes // cell)
    p = low - int(0.2 * 2**30 // cell)
    warn = (f"[2025-09-11 10:25:35 TP0] max_total_tokens=131072 is larger than the profiled value {p}. "
            "Use the profiled value instead.\n")
    assert p < 0
    e = _explain(head + _rank(0) + warn)
    assert e.anchored.unprinted_ranks is not None and "the printed profiled value" in e.anchored.unprinted_ranks
    assert "0.20–4.00 GiB" in e.anchored.unprinted_ranks  # Δ / f with f = 0.05
