"""``--disable-cuda-graph`` on SGLang plans: what it changes in the default reserve, per release (hand-computed).

Read in the wheels: up to 0.5.13 the reserve is unchanged (decode term ``2 × max_bs`` unconditional; 0.5.10–0.5.13's
piecewise term reads ``disable_piecewise_cuda_graph`` only); 0.5.14 drops the prefill-graph term (both phases
DISABLED, decode term still unconditional); 0.5.15+ also drops the decode term and the DeepEP a2a 2048; the
DP-attention padding stays (``engines.sglang.defaults``).
"""

from pathlib import Path

import pytest

from tests.cli.clirun import cli, refused
from tests.engines.sglang_fixtures import llama3_8b, plan
from tpkit.engines.sglang.defaults import ReserveExtras, graph_reserve_mib, slack_estimate_mib
from tpkit.engines.sglang.graphs import GraphContext, prefill_graphs
from tpkit.engines.sglang.options import SglangOptions
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu

ROOT = Path(__file__).resolve().parents[2]

# H100 SXM: 81559 MiB; Llama-3.1-8B, tp 1: cpp 8192, max bs 256, 58 prefill sizes (464 MiB)
# reserve = 512 + 1.5 × 8192 + 1/8 × 1024 + [decode 2 × 256] + [prefill 8 × 58]
_ON = 512 + 12288 + 128 + 512 + 464  # 13904 → (81559 − 13904) / 81559 = 0.8295 → 0.830
_NO_PREFILL = 512 + 12288 + 128 + 512  # 13440 → 0.8352 → 0.835
_NO_GRAPHS = 512 + 12288 + 128  # 12928 → 0.8415 → 0.841


@pytest.mark.parametrize("version, on, off", [
    ("0.5.13", 0.830, 0.830),  # no change: piecewise graphs independent of --disable-cuda-graph
    ("0.5.14", 0.830, 0.835),  # prefill term goes, decode term stays
    ("0.5.15", 0.830, 0.841),  # decode term goes too
    ("0.5.23", 0.830, 0.841),
])
def test_default_fraction_per_release(version, on, off):
    assert round((81559 - _ON) / 81559, 3) == 0.830 and round((81559 - _NO_PREFILL) / 81559, 3) == 0.835
    assert round((81559 - _NO_GRAPHS) / 81559, 3) == 0.841
    with_graphs = plan(engine_version=version).extra["sglang"]["mem_fraction_static"]
    without = plan(engine_version=version, disable_cuda_graph=True).extra["sglang"]
    assert with_graphs == on and without["mem_fraction_static"] == off
    if on != off:
        assert "--disable-cuda-graph" in without["mem_fraction_source"]


@pytest.mark.parametrize("version", ["0.4.10", "0.5.3", "0.5.9"])
def test_older_releases_unchanged(version):
    a = plan(engine_version=version).extra["sglang"]["mem_fraction_static"]
    assert plan(engine_version=version, disable_cuda_graph=True).extra["sglang"]["mem_fraction_static"] == a


def test_prefill_graphs_off_from_0_5_14_only():
    model, gpu = llama3_8b(), lookup_gpu("H100")
    assert prefill_graphs(model, gpu, GraphContext(version="0.5.13", cuda_graph_disabled=True))[0]
    on, why = prefill_graphs(model, gpu, GraphContext(version="0.5.14", cuda_graph_disabled=True))
    assert not on and "--disable-cuda-graph" in why
    assert prefill_graphs(model, gpu, GraphContext(version="0.5.14"))[0]


def test_deepep_a2a_reserve_needs_decode_graphs_from_0_5_15():
    kw = dict(tp=8, pp=1, cpp=8192, max_bs=256, is_mla=False, gpu_mem_mib=143771)
    # 512 + 12288 + 8/8 × 1024 + 2 × 256 = 14336; + 2048 DeepEP a2a after the floor (0.5.15+)
    on = ReserveExtras(version="0.5.20", prefill_graphs=False, deepep=True)
    off = ReserveExtras(version="0.5.20", prefill_graphs=False, deepep=True, cuda_graphs=False)
    assert slack_estimate_mib("0.5.15", extras=on, **kw) == 14336 + 2048
    assert slack_estimate_mib("0.5.15", extras=off, **kw) == 14336 - 512
    old_on = ReserveExtras(version="0.5.14", prefill_graphs=False, deepep=True)
    old_off = ReserveExtras(version="0.5.14", prefill_graphs=False, deepep=True, cuda_graphs=False)
    assert slack_estimate_mib("0.5.10", extras=old_on, **kw) == slack_estimate_mib("0.5.10", extras=old_off, **kw) \
        == 14336


def test_dp_attention_padding_stays():
    # 0.5.20, attn dp 4, max bs 256: decode 2 × 256 = 512, DP padding 3 × 256 × 4 = 3072
    on = ReserveExtras(version="0.5.20", prefill_graphs=False, attn_dp=4)
    off = ReserveExtras(version="0.5.20", prefill_graphs=False, attn_dp=4, cuda_graphs=False)
    assert graph_reserve_mib("0.5.15", max_bs=256, cpp=8192, is_mla=False, extras=on) == 3584
    assert graph_reserve_mib("0.5.15", max_bs=256, cpp=8192, is_mla=False, extras=off) == 3072


def test_slack_check_leaves_out_the_decode_graphs():
    on = plan(engine_version="0.5.13", mem_fraction_static=0.99)
    off = plan(engine_version="0.5.13", mem_fraction_static=0.99, disable_cuda_graph=True)
    warn_on = [w for w in on.warnings if "slack left for activations" in w]
    warn_off = [w for w in off.warnings if "slack left for activations" in w]
    assert warn_on and "--cuda-graph-max-bs" in warn_on[0]
    # 0.5.13 still captures the piecewise prefill graphs: 512 + 464 MiB (no 2 × 256 decode term)
    assert "≈ 1.45 GiB" in warn_on[0] and "≈ 976.00 MiB" in warn_off[0] and "--cuda-graph-max-bs" not in warn_off[0]


def test_switch_must_be_a_bool():
    with pytest.raises(PlanInputError, match="disable_cuda_graph must be True or False"):
        SglangOptions(disable_cuda_graph="yes")


def test_cli_flag(capsys):
    argv = ("plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--engine", "sglang")
    code, out, _ = cli(capsys, *argv)
    assert code == 0 and "0.830" in out and "--disable-cuda-graph" not in out
    code, out, _ = cli(capsys, *argv, "--disable-cuda-graph")
    assert code == 0 and "0.841" in out and "--disable-cuda-graph" in out
    refused(capsys, *argv, "--enforce-eager", says=("--disable-cuda-graph",))
    refused(capsys, "plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--engine", "vllm",
            "--disable-cuda-graph", says=("--enforce-eager",))


def test_from_log_takes_the_logs_value(capsys):
    # sg_080 prints disable_cuda_graph=True in its server_args dump (line 5)
    code, out, _ = cli(capsys, "plan", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "L4", "--from-log",
                       str(ROOT / "tests/logs/data/sglang/sg_080.log"))
    assert code == 0 and "--disable-cuda-graph: no" in out


class _Ctx:
    """The two things ``sgrelease._fraction_on`` reads of an explain context."""

    def __init__(self, **values):
        self.model, self.values = llama3_8b(), values

    def get(self, name, default=None):
        return self.values.get(name, default)


def test_explain_default_fraction_takes_the_logs_value():
    from tpkit.explain.sgrelease import _fraction_on

    gpu = lookup_gpu("H100")
    assert _fraction_on(_Ctx(), gpu, 1, 1, "0.5.23")[0] == 0.830
    assert _fraction_on(_Ctx(cuda_graph_disabled=True), gpu, 1, 1, "0.5.23")[0] == 0.841
    assert _fraction_on(_Ctx(cuda_graph_disabled=True), gpu, 1, 1, "0.5.13")[0] == 0.830
