"""The ignore-list matcher (``models.quant.is_ignored``) compiled once per list: the same answers as the entry-by-entry
rules it replaces, on plain names, parents, trailing parts, globs and ``re:`` patterns."""

from tpkit.models.quant import is_ignored
from tpkit.models.spec import QuantSpec


def _spec(*ignored: str) -> QuantSpec:
    return QuantSpec(method="fp4", weight_bits=4, group_size=16, scale_bytes=1, ignored=tuple(ignored),
                     scope="all_linear")


def test_plain_names_match_themselves_their_children_and_as_a_trailing_part():
    q = _spec("lm_head", "model.layers.0.mlp", "self_attn.o_proj")
    assert is_ignored("lm_head", q)
    assert is_ignored("model.layers.0.mlp.gate_proj", q)          # a parent
    assert not is_ignored("model.layers.10.mlp.gate_proj", q)     # 'model.layers.0' is not a dot-prefix of layer 10
    assert is_ignored("model.layers.7.self_attn.o_proj", q)       # a trailing part
    assert not is_ignored("model.layers.7.self_attn.o_proj_b", q)
    assert not is_ignored("model.layers.7.self_attn.q_proj", q)


def test_globs_and_regexes():
    q = _spec("model.layers.*.mlp.gate", "re:.*kv_b_proj$")
    assert is_ignored("model.layers.3.mlp.gate", q)
    assert is_ignored("model.layers.3.mlp.gate.weight", q)        # the glob's children
    assert not is_ignored("model.layers.3.mlp.gate_up_proj", q)
    assert is_ignored("model.layers.5.self_attn.kv_b_proj", q)
    assert not is_ignored("model.layers.5.self_attn.kv_b_proj_x", q)


def test_a_long_list_is_compiled_once_and_still_exact():
    names = tuple(f"model.layers.{i}.self_attn.q_proj" for i in range(500))
    q = _spec(*names)
    assert all(is_ignored(n, q) for n in names[::37])
    assert not is_ignored("model.layers.500.self_attn.q_proj", q)


def test_the_answer_cache_is_keyed_by_the_list_as_well_as_the_name():
    """``is_ignored`` remembers (name, list) → answer; the same name under another list is asked afresh."""
    name = "model.layers.2.mlp.down_proj"
    assert is_ignored(name, _spec("model.layers.2.mlp"))
    assert not is_ignored(name, _spec("model.layers.3.mlp"))
    assert is_ignored(name, _spec("re:.*down_proj$"))
    assert not is_ignored(name, _spec())
