"""ModelSpec values for the SGLang policy tests (built from published config facts)."""

from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.spec import MlaSpec, ModelSpec, MoeSpec, QuantSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB


def llama3_8b(**changes) -> ModelSpec:
    """Llama-3.1-8B: 32 layers, 8 KV heads, head_dim 128, bf16."""
    fields = dict(name="llama-3.1-8b", source="test", architecture="LlamaForCausalLM", model_type="llama",
                  hidden_size=4096, intermediate_size=14336, num_layers=32, num_attention_heads=32, num_kv_heads=8,
                  head_dim=128, v_head_dim=128, vocab_size=128256, max_position_embeddings=131072)
    fields.update(changes)
    return ModelSpec(**fields)


def deepseek_v3(**changes) -> ModelSpec:
    """DeepSeek-V3: 61 layers, MLA 512 + 64, 128 heads."""
    fields = dict(name="deepseek-v3", source="test", architecture="DeepseekV3ForCausalLM", model_type="deepseek_v3",
                  hidden_size=7168, intermediate_size=18432, num_layers=61, num_attention_heads=128,
                  num_kv_heads=128, head_dim=192, v_head_dim=128, vocab_size=129280, max_position_embeddings=163840,
                  mla=MlaSpec(kv_lora_rank=512, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128,
                              q_lora_rank=1536),
                  moe=MoeSpec(num_experts=256, experts_per_token=8, moe_intermediate_size=2048,
                              num_shared_experts=1, num_dense_layers=3),
                  quant=QuantSpec(method="fp8", weight_bits=8, block_size=(128, 128), scale_bytes=4))
    fields.update(changes)
    return ModelSpec(**fields)


def gpt_oss_120b(**changes) -> ModelSpec:
    """gpt-oss-120b: 36 layers alternating sliding (window 128) and full, 8 KV heads × 64."""
    fields = dict(name="gpt-oss-120b", source="test", architecture="GptOssForCausalLM", model_type="gpt_oss",
                  hidden_size=2880, intermediate_size=2880, num_layers=36, num_attention_heads=64, num_kv_heads=8,
                  head_dim=64, v_head_dim=64, vocab_size=201088, max_position_embeddings=131072,
                  layer_kinds=("sliding", "full") * 18, sliding_window=128)
    fields.update(changes)
    return ModelSpec(**fields)


def ledger_problems(result) -> list[str]:
    """What is wrong with an SGLang ledger, judged from its own explanation lines (not from ``remaining``):
    capacity − uses − reserves must equal the KV budget (rest) less the KV pool and the linear-attention
    state pool (hybrid models list the KV pool per layer kind), and a plan that fits leaves less than one page of that budget unused (a negative rest is the
    padding page, taken out of the slack)."""
    lines = {line.item: line.bytes for line in result.ledger.items}
    pools = [b for item, b in lines.items() if item == "KV pool" or item.startswith("KV pool, ")]
    expected = lines["KV budget (rest)"] - sum(pools, Bytes(0)) - lines.get("linear-attention state pool", Bytes(0))
    problems = result.ledger.check(expected)
    if result.verdict.fits:  # each pool (full, sliding-window) may round down by a page and add a padding page
        page = result.kv_pool.cell_bytes * result.kv_pool.page_size * len(pools)
        # DSA's indexer buffer holds (tokens + page + 1) // page pages, one page more than the latent at page 1
        page = page + sum((Bytes(b.total_bytes.bytes // b.shape[0]) for b in result.kv_pool.buffers
                           if b.name == "index_k_with_scale"),
                          Bytes(0))
        if not -page.bytes <= result.ledger.remaining.bytes < page.bytes:
            problems.append(f"fits but {result.ledger.remaining} of the KV budget unused (a page is {page})")
    return problems


def plan(model=None, gpu="H100", tp=1, weights=GiB(16), machine=None, **options):
    """plan_sglang with test defaults (weights given in bytes per rank)."""
    return plan_sglang(model or llama3_8b(), lookup_gpu(gpu), ParallelSpec(tp=tp), SglangOptions(**options),
                       machine=machine, weights=weights)
