"""Speculative-decoding draft models: where the draft comes from, its layers and its weight tensors (pure).

    in:  a draft method (``mtp``, ``eagle``, ``eagle3``, ``standalone``), an optional draft path / HF id /
         catalog name, and the target's ``ModelSpec``
    out: ``DraftModel`` (the draft's ``ModelSpec``, how many KV layers it adds, where it was read from);
         ``draft_parts`` (its weight tensors, embedding and lm_head included so that an engine can drop
         the ones it shares with the target); ``plan_draft_weights`` (bytes per rank)

    method       draft config                          KV layers                 weights
    mtp          the target's own nextn/MTP layers     ``num_nextn_layers``      ``mtp_parts.mtp_parts`` (embed/head are
                                                   (``config.mtp_layer_count``:  the target's)
                                                   num_nextn_predict_layers or
                                                   mtp_num_hidden_layers)
    eagle        a draft path (LlamaForCausalLMEagle)  draft num_hidden_layers   fc 2h→h (+bias), decoder layers
                                                                                 (layer 0 without input norm), embed,
                                                                                 lm_head
    eagle3       a draft path (LlamaForCausalLMEagle3) draft num_hidden_layers   fc (n_aux·h_target)→h, layer 0 reads
                                                                                 2h, hidden_norm, embed, lm_head (draft
                                                                                 vocab)
    standalone   a draft path (any causal LM)          draft num_hidden_layers   the whole draft model

Which of these tensors an engine shares with the target (and so does not load twice) is the engine's rule
(``tpkit.engines.<engine>``), not a fact of the draft.  Layouts checked against sglang 0.5.23
``models/llama_eagle3.py``, ``models/llama_eagle.py`` and ``models/deepseek_nextn.py``.
"""

from __future__ import annotations

from tpkit.errors import PlanInputError, UnknownModelError
from tpkit.models.load import load_model
from tpkit.models.params import Part, global_parts, layer_parts
from tpkit.models.spec import ModelSpec
from tpkit.models.weights import plan_parts
from tpkit.models.weights_plan import WeightsPlan
from tpkit.parallel import ParallelSpec
from tpkit.records import dataclass

__all__ = ["DRAFT_METHODS", "DraftModel", "load_draft", "draft_parts", "plan_draft_weights", "catalog_drafts",
           "whole_model_draft_note"]

DRAFT_METHODS = ("mtp", "eagle", "eagle3", "standalone", "dflash")
"""draft kinds: the target's MTP layers, an EAGLE(-2) head, an EAGLE-3 head, a separate small model"""


@dataclass(frozen=True, kw_only=True, slots=True)
class DraftModel:
    """The draft of a speculative-decoding deployment."""

    method: str
    """one of ``DRAFT_METHODS``"""
    spec: ModelSpec
    """the draft's architecture (``mtp``: the target's, whose nextn layers are the draft)"""
    num_layers: int
    """decoder layers of the draft that keep a KV cache (count)"""
    source: str
    """where the draft config came from"""

    @property
    def kv_like_target(self) -> bool:
        """The draft's layers are the target's layer type (MTP), so they hold the target's KV per layer."""
        return self.method == "mtp"


def load_draft(method: str, path: str | None, *, target: ModelSpec, hf_cache_dir: str | None = None) -> DraftModel:
    """The draft for ``method``: the target's MTP layers, or the config at ``path`` (file, checkpoint dir,
    HF cache, embedded catalog — as ``load_model``)."""
    if method not in DRAFT_METHODS:
        raise PlanInputError(f"draft method {method!r} is not one of {', '.join(DRAFT_METHODS)}")
    if method == "mtp":
        if target.num_nextn_layers < 1:
            raise PlanInputError(
                f"{target.name} has no MTP/nextn layers in its config (num_nextn_predict_layers / "
                "mtp_num_hidden_layers are 0 or absent), so "
                "it cannot draft for itself; pass a draft model path (e.g. an EAGLE-3 head) instead")
        return DraftModel(method="mtp", spec=target, num_layers=target.num_nextn_layers,
                          source=f"{target.num_nextn_layers} MTP/nextn layer(s) of {target.name} ({target.source})")
    if not path:
        raise PlanInputError(f"a {method} draft needs a draft model: pass its config.json, checkpoint directory, "
                             "HF id or catalog name")
    try:
        spec = load_model(path, hf_cache_dir=hf_cache_dir)
    except UnknownModelError as exc:  # say which model was not found: the draft, not the MODEL argument
        raise UnknownModelError(f"the draft model (--speculative-draft-model-path / the speculative config's "
                                f"\"model\"): {exc}") from None
    layers = max(spec.num_layers, int(spec.extra.get("num_attention_layers") or 0))
    return DraftModel(method=method, spec=spec, num_layers=layers, source=spec.source)


def draft_parts(draft: DraftModel, *, fc_split: bool = False, fc_quantised: bool = False) -> list[Part]:
    """Every weight tensor of the draft, embedding and lm_head included (names as in the draft checkpoint);
    ``fc_split`` / ``fc_quantised``: a Qwen-style MTP ``fc`` is TP-split / quantised like the model (vLLM; see
    ``mtp_parts.mtp_parts``), else replicated and unquantised (SGLang)."""
    if draft.method == "mtp":  # the MTP modules build their own embedding and lm_head (the engines then share)
        from tpkit.models.mtp_parts import mtp_parts  # an MTP draft only (cold start)

        return _embed_and_head(draft.spec, vocab=draft.spec.vocab_size) + mtp_parts(draft.spec, fc_split=fc_split,
                                                                                    fc_quantised=fc_quantised)
    spec = draft.spec
    if draft.method == "standalone":
        return global_parts(spec) + [p for i in range(spec.num_layers) for p in layer_parts(spec, i)]
    h = spec.hidden_size
    if draft.method == "eagle":
        fc = [Part(name="model.fc", category="attention", out=h, inp=2 * h, linear=True),
              Part(name="model.fc.bias", category="attention", out=h)]
        layers = [p for i in range(spec.num_layers) for p in layer_parts(spec, i)
                  if not (i == 0 and p.name.endswith(".norm0"))]  # layer 0 has no input_layernorm
        return _embed_and_head(spec, vocab=spec.vocab_size) + fc + layers
    if draft.method == "dflash":
        return _dflash_parts(spec)
    return _eagle3_parts(spec)


def _dflash_parts(spec: ModelSpec) -> list[Part]:
    """vLLM's DFlash draft (``model_executor/models/qwen3_dflash.py DFlashQwen3Model``, 0.20.0–0.33.0): ``fc`` maps
    the concatenated target hidden states (``target_hidden_size`` × the ``dflash_config.target_layer_ids`` count,
    else × the draft's layer count: ``_get_dflash_fc_input_size``) to ``hidden_size``; ``hidden_norm``; plain Qwen3
    decoder layers; ``norm``; the embedding and lm_head (shared with the target when the checkpoint has none).
    DFlash2's extra modules (``qwen3_dflash2.py``: grouped conv, candidate selector) are not counted."""
    h, x = spec.hidden_size, spec.extra
    h_in = int(x.get("target_hidden_size") or h)
    ids = (x.get("dflash_config") or {}).get("target_layer_ids") or x.get("target_layer_ids")
    features = len(ids) if isinstance(ids, (list, tuple)) and ids else spec.num_layers
    fc = [Part(name="model.fc", category="attention", out=h, inp=h_in * features, linear=True)]
    layers = [p for i in range(spec.num_layers) for p in layer_parts(spec, i)]
    return (_embed_and_head(spec, vocab=int(x.get("draft_vocab_size") or spec.vocab_size)) + fc
            + [Part(name="model.hidden_norm", category="norms", out=h)] + layers
            + [Part(name="model.norm", category="norms", out=h)])


def _eagle3_parts(spec: ModelSpec) -> list[Part]:
    h, x = spec.hidden_size, spec.extra
    h_in = int(x.get("target_hidden_size") or h)
    aux = x.get("num_aux_hidden_states")
    if aux is None:
        ids = (x.get("eagle_config") or {}).get("eagle_aux_hidden_state_layer_ids")
        aux = len(ids) if ids else 3
    fc = [Part(name="model.fc", category="attention", out=h, inp=h_in * int(aux), linear=True)]
    layers = []
    for i in range(spec.num_layers):
        for p in layer_parts(spec, i):
            if i == 0 and p.name.split(".")[-1] in ("q_proj", "k_proj", "v_proj"):
                p = Part(name=p.name, category=p.category, out=p.out, inp=2 * h, count=p.count, shard=p.shard,
                         linear=p.linear)  # the input layer reads [embeds, hidden] concatenated
            layers.append(p)
        layers.append(Part(name=f"model.layers.{i}.hidden_norm", category="norms", out=h))
    vocab = int(x.get("draft_vocab_size") or spec.vocab_size)
    return _embed_and_head(spec, vocab=vocab) + fc + layers + [Part(name="model.norm", category="norms", out=h)]


def _embed_and_head(spec: ModelSpec, *, vocab: int) -> list[Part]:
    parts = [Part(name="model.embed_tokens", category="embedding", out=spec.vocab_size, inp=spec.hidden_size,
                  shard="vocab")]
    if not spec.tie_word_embeddings:
        parts.append(Part(name="lm_head", category="lm_head", out=vocab, inp=spec.hidden_size, shard="vocab"))
    return parts


def plan_draft_weights(draft: DraftModel, parallel: ParallelSpec, *, shared: frozenset[str] = frozenset(),
                       dtype: str | None = None, quantization: str | None = None,
                       fc_split: bool = False, fc_quantised: bool = False) -> WeightsPlan:
    """Draft weight bytes per rank; ``shared`` names categories (``embedding``, ``lm_head``) the engine takes
    from the target instead of loading them.  An MTP draft is quantised like its target."""
    parts = [p for p in draft_parts(draft, fc_split=fc_split, fc_quantised=fc_quantised) if p.category not in shared]
    note = f"{draft.method} draft ({draft.source})" + (f"; {', '.join(sorted(shared))} shared with the target"
                                                       if shared else "")
    return plan_parts(draft.spec, parallel, parts, dtype=dtype, quantization=quantization, note=note)


def catalog_drafts(target_id: str) -> tuple[str, ...]:
    """Catalog ids of the public drafts recorded for the catalog model ``target_id`` (any case)."""
    from tpkit.models.catalog import catalog_entries

    key = target_id.strip().lower()
    return tuple(e.id for e in catalog_entries()
                 if key in (t.lower() for t in (e.facts.get("draft") or {}).get("targets", ())))


HEAD_LAYERS_MAX = 2
"""the most decoder layers an EAGLE / EAGLE-3 head config declares (the public heads have one: SpecForge's and
lmsys' ``LlamaForCausalLMEagle3`` configs, ``num_hidden_layers`` 1); a config with more, whose architecture does not
name EAGLE, is a whole model"""


def whole_model_draft_note(algorithm: str, spec: ModelSpec, where: str, *,
                           standalone: str = "--speculative-algorithm STANDALONE") -> str:
    """A note when the draft given to an EAGLE / EAGLE-3 algorithm is a whole model (the target's own path, a
    checkpoint of another size): its config declares more than ``HEAD_LAYERS_MAX`` decoder layers and an
    architecture without "Eagle".  Planned as given (its layers, its KV), which is seldom what was meant (helper
    ux23: ``--speculative-algorithm EAGLE3 --speculative-draft-model-path`` a 72B checkpoint gave a 34 GiB draft and
    a 0.09× speed-up without a word).  ``where``: how the user gave the draft; ``standalone``: the engine's way to
    draft with a whole model.  "" when the draft looks like a head, or for another algorithm."""
    family = algorithm.upper()
    if family not in ("EAGLE", "EAGLE3") or spec.num_layers <= HEAD_LAYERS_MAX or \
            "eagle" in (spec.architecture or "").lower():
        return ""
    return (f"{where} is a whole model ({spec.architecture}, {spec.num_layers} decoder layers), not an {family} head "
            f"(one decoder layer, e.g. LlamaForCausalLMEagle3): it is counted as given, every layer drafting; "
            f"give the {family} head instead, or, to draft with a whole small model, {standalone}")
