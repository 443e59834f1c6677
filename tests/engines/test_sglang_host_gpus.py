"""SGLang sizes its capacity defaults by the HOST's smallest card (helper cap27, session 27).

Every wheel 0.3.0 … 0.5.23 read: from 0.3.6 ``get_nvgpu_memory_capacity`` takes the MIN over every line of
``nvidia-smi --query-gpu=memory.total`` (CUDA_VISIBLE_DEVICES does not filter it); 0.3.5 and before read no capacity.
0.4.7.post1 is the first release with the capacity-class default fraction (0.4.7: the tp table), 0.5.2 the last
(0.5.3: the reserve formula, which reads the same capacity).  ``--host-gpus`` names the host's cards
(``engines.sglang.defaults.host_capacity_mib``, ``choices.capacity_read_mib``); sg_563 (sgl-project/sglang#7227, a
3090 / 5090 box) is rebuilt with it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tpkit.engines.sglang.defaults import (CAPACITY_CLASSES_FROM, HOST_MINIMUM_FROM, default_mem_fraction,
                                           host_capacity_mib)
from tpkit.engines.sglang.options import SglangOptions
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "logs" / "data"
CONFIG = str(ROOT / "tests" / "validation" / "configs" / "Qwen--Qwen3-8B-FP8.json")
RTX3090, RTX5090 = 24576, 32607  # nvidia-smi MiB (catalog)


def _fraction(version: str, mib: float, tp: int = 1) -> float:
    from tpkit.engines.sglang.defaults import ReserveExtras
    from tpkit.engines.sglang.versions import rule_era

    return default_mem_fraction(rule_era(version), gpu_mem_mib=mib, tp=tp, pp=1, cpp=2048, max_bs=8, is_mla=False,
                                extras=ReserveExtras(version=version)).value


def test_host_minimum_starts_at_0_3_6():
    """0.3.5 reads no capacity (the host's cards cannot matter); 0.3.6 … 0.5.23 take the MIN over nvidia-smi."""
    assert HOST_MINIMUM_FROM == "0.3.6"
    assert host_capacity_mib(RTX5090, (RTX3090,), "0.3.5") == (RTX5090, None)
    for version in ("0.3.6", "0.4.7.post1", "0.5.2", "0.5.3", "0.5.23"):
        mib, why = host_capacity_mib(RTX5090, (RTX3090, RTX5090), version)
        assert mib == RTX3090 and "smallest card nvidia-smi lists" in why and "32,607" in why
    # a larger card beside the serving one changes nothing
    assert host_capacity_mib(RTX3090, (RTX5090,), "0.5.23") == (RTX3090, None)


def test_capacity_classes_start_at_0_4_7_post1_and_end_at_0_5_2():
    """0.4.7: the tp table (0.88 at tp 1 on either card); 0.4.7.post1 … 0.5.2: round((gpu − 2.8 − p/10 GiB) / gpu,
    3): 0.879 on the 3090's 24,576 MiB, 0.909 on the 5090's 32,607; 0.5.3: the reserve formula."""
    assert CAPACITY_CLASSES_FROM == "0.4.7.post1"
    assert _fraction("0.4.7", RTX3090) == _fraction("0.4.7", RTX5090) == 0.88
    for version in ("0.4.7.post1", "0.4.8", "0.4.9.post6", "0.4.10.post2", "0.5.2"):
        assert (_fraction(version, RTX3090), _fraction(version, RTX5090)) == (0.879, 0.909), version
    assert _fraction("0.5.3", RTX3090) != 0.879  # the reserve formula, no longer the classes
    assert _fraction("0.5.3", RTX3090) < _fraction("0.5.3", RTX5090)


def _budget(version: str, host: str | None, gpu: str = "RTX-5090"):
    from tpkit.engines.sglang.budget import kv_budget
    from tpkit.models.load import load_model

    opts = SglangOptions(engine_version=version, context_length=8000, host_gpus=host)
    return kv_budget(load_model(CONFIG), lookup_gpu(gpu), ParallelSpec(tp=1), opts, machine=None,
                     weights_bytes=Bytes(int(8.81 * 2**30)))


@pytest.mark.parametrize("version", ["0.4.7.post1", "0.5.23"])
def test_plan_on_a_mixed_box_takes_the_smallest_card(version):
    """A 5090 served on a box that also holds a 3090: the default fraction is the 3090's class, and the ledger
    says which card set it and why; a user's --mem-fraction-static is untouched."""
    alone, mixed = _budget(version, None), _budget(version, "RTX-3090,RTX-5090")
    assert alone.gpu_mem_mib == RTX5090 and mixed.gpu_mem_mib == RTX3090
    assert mixed.fraction.value < alone.fraction.value and mixed.tokens < alone.tokens
    assert "smallest card nvidia-smi lists" in mixed.fraction.source and "smallest" not in alone.fraction.source
    if version == "0.4.7.post1":
        assert (alone.fraction.value, mixed.fraction.value) == (0.909, 0.879)
    assert _budget(version, "RTX-5090").fraction == alone.fraction  # only the serving card's model: no change


def test_host_gpus_bad_values_are_user_errors():
    with pytest.raises(PlanInputError, match="unknown GPU 'RTX-9999'"):
        SglangOptions(host_gpus="RTX-3090,RTX-9999")
    with pytest.raises(PlanInputError, match="name the host's GPU models"):
        SglangOptions(host_gpus=" , ")
    with pytest.raises(PlanInputError, match="lists its own vendor's cards"):
        _budget("0.5.23", "MI300X")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tpkit", *args], capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}, timeout=300)


def test_plan_cli_host_gpus_flag():
    base = ("plan", CONFIG, "--engine", "sglang", "--gpu", "RTX-5090", "--context-length", "8000",
            "--engine-version", "0.4.7.post1")
    good = _cli(*base, "--host-gpus", "RTX-3090,RTX-5090")
    assert good.returncode == 0, good.stderr
    assert "mem_fraction_static 0.879" in good.stdout and "smallest card nvidia-smi" in " ".join(good.stdout.split())
    bad = _cli(*base, "--host-gpus", "RTX-3099")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "--host-gpus" in bad.stderr
    assert "did you mean" in bad.stderr
    vllm = _cli("plan", CONFIG, "--engine", "vllm", "--gpu", "RTX-5090", "--host-gpus", "RTX-3090")
    assert vllm.returncode == 2 and "SGLang flag" in vllm.stderr


def _sg_563(host: str | None):
    sys.path.insert(0, str(ROOT / "scripts"))
    from explain_capacity_check import check, model_map

    case = next(c for c in json.loads((DATA / "cases.json").read_text()) if c["id"] == "sg_563")
    entry = json.loads(json.dumps(model_map()["sg_563"]))
    if host is None:
        entry["flags"].pop("host_gpus")
    return check(case, {"sg_563": entry})


def test_sg_563_hits_with_the_host_gpus_its_source_states():
    """sgl-project/sglang#7227: 1x3090 / 2x3090 / 1x5090 / 2x5090 speeds and 'Error with a 3090' on one box;
    0.4.7.post1 at 0.879 rebuilds 132,672–132,762 around the printed 132,681; without the host's cards the 5090's
    0.909 misses by ~5 %."""
    case = next(c for c in json.loads((DATA / "cases.json").read_text()) if c["id"] == "sg_563")
    assert case["host_gpus"] == "RTX-3090,RTX-5090" and "2x3090" in case["host_gpus_note"]
    with_host = _sg_563("RTX-3090,RTX-5090")
    assert with_host["outcome"] == "hit", with_host
    without = _sg_563(None)
    assert without["outcome"] == "miss" and without["range"][0] > 139_000


def test_explain_cli_host_gpus_flag_and_the_post_release():
    log = str(DATA / "sglang" / "sg_563.log")
    args = ("explain", log, "--gpu", "RTX-5090", "--engine-version", "0.4.7.post1", "--tp", "1", "--context-length",
            "8000", "--model", CONFIG)
    good = _cli(*args, "--host-gpus", "RTX-3090,RTX-5090")
    assert good.returncode == 0, good.stderr
    text = " ".join(good.stdout.split())
    assert "SGLang 0.4.7.post1 default (the 0.4.10 rule)" in text and "24,576 MiB" in text
    assert "rebuilt from the anchors 132,672–132,762" in text
    bad = _cli(*args, "--host-gpus", "")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "--host-gpus" in bad.stderr


def test_log_release_keeps_a_named_post_release():
    """explain and plan --from-log read a log by ``sgrelease.log_release``: a post release the version names is kept
    (0.4.7.post1's capacity classes), a date cap still wins, a bare release stays bare."""
    from types import SimpleNamespace

    from tpkit.explain.sgrelease import log_release

    def ctx(version, date=None):
        return SimpleNamespace(version=version, rules_version=version.split(".post")[0] if version else None,
                               get=lambda name, default=None: date if name == "log_date" else default)

    assert log_release(ctx("0.4.7.post1"))[0] == "0.4.7.post1"
    assert log_release(ctx("0.4.7"))[0] == "0.4.7"
    assert log_release(ctx("0.4.7.post1", "2025-04-01"))[0] == "0.4.4"  # dated before 0.4.5: capped


_TABLE = """\
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 3090        Off |   00000000:05:00.0 Off |                  N/A |
| 50%   43C    P8             35W /  350W |       0MiB /  24576MiB |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA GeForce RTX {second}        Off |   00000000:0A:00.0 Off |                  N/A |
|  0%   43C    P8             15W /  575W |       0MiB /  32607MiB |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
"""
"""an nvidia-smi table (the layout of noonghunna/club-3090#845's, models changed): synthetic, not a corpus log"""


def _mixed_log(second: str = "5090") -> bytes:
    return _TABLE.format(second=second).encode() + (DATA / "sglang" / "sg_563.log").read_bytes()


def test_an_nvidia_smi_table_of_several_models_states_the_host_cards():
    """A log that prints an nvidia-smi table naming several models supplies --host-gpus itself; one model (sg_527's
    eight H200s) or a model outside the catalog supplies nothing; a flag naming other models is a contradiction."""
    from tpkit.explain import explain_log
    from tpkit.explain.result import host_cards

    (value, why), line = host_cards(_mixed_log())
    assert value == "RTX-3090,RTX-5090" and "nvidia-smi table, 2 cards" in why and line == 3
    assert host_cards(_TABLE.format(second="3090").encode()) is None
    assert host_cards((DATA / "sglang" / "sg_527.log").read_bytes()) is None
    flags = {"gpu": "RTX-5090", "engine_version": "0.4.7.post1", "model": CONFIG}
    e = explain_log(_mixed_log(), flags=flags)
    assert e.context.get("host_gpus") == "RTX-3090,RTX-5090"
    assert e.kv_predicted_range[0] <= 132_681 <= e.kv_predicted_range[1]
    e2 = explain_log(_mixed_log(), flags={**flags, "host_gpus": "RTX-5090"})
    assert [c.flag for c in e2.context.contradictions] == ["host_gpus"]
    assert e2.kv_predicted_range == e.kv_predicted_range  # the log's table is kept


def test_plan_from_log_takes_the_table_unless_the_flag_is_given(tmp_path):
    log = tmp_path / "mixed.log"
    log.write_bytes(_mixed_log())
    base = ("plan", "--from-log", str(log), "--gpu", "RTX-5090", "--engine-version", "0.4.7.post1", "--model", CONFIG)
    from_table = _cli(*base)
    assert from_table.returncode == 0, from_table.stderr
    assert "mem_fraction_static 0.879" in from_table.stdout
    flagged = _cli(*base, "--host-gpus", "RTX-5090")
    assert flagged.returncode == 0 and "mem_fraction_static 0.909" in flagged.stdout
