"""The engine registry and the flags built from options dataclasses, with a third (made-up) engine."""

import argparse
from dataclasses import dataclass

import pytest

from tpkit.cli.engine_flags import add_engine_flags, check_engine_flags, engine_fields, options_from_args
from tpkit.dtypes import lookup_dtype
from tpkit.engines.engine import Engine, Flag, flag
from tpkit.engines.registry import DEFAULT_ENGINE, all_engines, engine_names, get_engine
from tpkit.errors import PlanInputError
from tpkit.units import GiB


def test_every_engine_folder_is_found_default_first():
    assert engine_names() == ("sglang", "vllm") and engine_names()[0] == DEFAULT_ENGINE
    assert [e.name for e in all_engines()] == list(engine_names())
    with pytest.raises(PlanInputError, match="sglang, vllm"):
        get_engine("trtllm")


def test_kv_cache_dtype_choices_are_the_union_of_what_the_options_accept_and_all_are_dtypes():
    kv = next(f for f in engine_fields() if f.name == "kv_cache_dtype")
    accepted = {s for e in all_engines()
                for s in e.options.__dataclass_fields__["kv_cache_dtype"].metadata["flag"].choices}
    assert set(kv.choices) == accepted and {"half", "fp8_inc", "bf16"} <= accepted
    from tpkit.engines.vllm.kvdtype import KV_DTYPES

    packed = {n for n, d in KV_DTYPES.items() if d.layout != "dense"}
    assert {"nvfp4", "fp8_ds_mla"} <= packed <= accepted
    from tpkit.engines.sglang.options import UNMODELLED_KV_DTYPES, SglangOptions

    refused = set(UNMODELLED_KV_DTYPES)  # SGLang fp4/mx: accepted by the flag so the options can refuse them clearly
    assert refused <= accepted
    for s in refused:
        with pytest.raises(PlanInputError, match="does not model"):
            SglangOptions(kv_cache_dtype=s)
    assert all(lookup_dtype(s) is not None for s in accepted - {"auto"} - packed - refused)


@dataclass(frozen=True, kw_only=True, slots=True)
class _TrtOptions:
    engine_version: str = flag("1.0", help="release")
    max_seq_len: int | None = flag(kind="int", unit="tokens", concept="context length", help="tokens per request")
    free_gpu_memory_fraction: float | None = flag(kind="fraction", concept="memory fraction", help="fraction")
    kv_cache_dtype: str = flag("auto", choices=("auto", "fp8"), help="KV dtype")
    dtype: str | None = flag(help="dtype")
    quantization: str | None = flag(help="quantisation")
    disable_custom_all_reduce: bool = flag(False, kind="bool", group="all-reduce", help="no custom AR")


TRT = Engine(name="trtllm", label="TensorRT-LLM", options=_TrtOptions, plan=lambda *a, **k: None)


def _parser(engines):
    p = argparse.ArgumentParser()
    add_engine_flags(p, {}, engines)
    return p


def test_a_third_engine_gets_its_flags_and_the_wrong_engine_check_with_no_code_change():
    engines = (*all_engines(), TRT)
    p = _parser(engines)
    args = p.parse_args(["--max-seq-len", "4096", "--kv-cache-dtype", "fp8"])
    with pytest.raises(PlanInputError, match="--max-seq-len is a TensorRT-LLM flag, but --engine is vllm; "
                                             "for --engine vllm use --max-model-len"):
        check_engine_flags(args, get_engine("vllm"), engines)
    check_engine_flags(args, TRT, engines)
    assert options_from_args(TRT, args) == _TrtOptions(max_seq_len=4096, kv_cache_dtype="fp8")
    args = p.parse_args(["--context-length", "100"])
    with pytest.raises(PlanInputError, match="--context-length is an SGLang flag, but --engine is trtllm; "
                                             "for --engine trtllm use --max-seq-len"):
        check_engine_flags(args, TRT, engines)


def test_flags_every_engine_has_are_shared_and_sizes_are_read_with_their_unit():
    fields = {f.name: f for f in engine_fields()}
    assert {e.name for e in fields["engine_version"].owners} == set(engine_names())
    assert [e.name for e in fields["page_size"].owners] == ["sglang"]
    args = _parser(all_engines()).parse_args(["--kv-cache-memory-bytes", "40GiB", "--enforce-eager"])
    opts = options_from_args(get_engine("vllm"), args)
    assert opts.kv_cache_memory_bytes == GiB(40) and opts.enforce_eager is True
    with pytest.raises(ValueError, match="kind"):
        Flag(help="x", kind="float")
