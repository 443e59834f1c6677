"""GB300's nvidia-smi memory.total (helper pl38, 2026-12-08, session 38): 284,208 MiB in two public nvidia-smi tables
of four 'NVIDIA GB300' (OCI BM.GPU.GB300.4 guide, driver 580.105.08; a SGLang-on-GB300 debug note, driver 580.82.07),
which SGLang's default fraction reads (``engines.sglang.choices.capacity_read_mib``) instead of the CUDA total."""

from __future__ import annotations

from tpkit.engines.registry import get_engine
from tpkit.engines.sglang.choices import capacity_read_mib
from tpkit.hardware.catalog import lookup_gpu


def test_catalog_gb300_carries_the_printed_nvidia_smi_total():
    gpu = lookup_gpu("NVIDIA GB300")
    assert gpu.nvidia_smi_total_mib == 284208
    assert "284,208 MiB" in gpu.total_source and "51884305790" in gpu.total_source
    # 1,072 MiB above the CUDA total (276.50 GiB), as B300's nvidia-smi total sits 926 MiB above its own
    assert 900 < gpu.nvidia_smi_total_mib - gpu.total_bytes.bytes / 2**20 < 1200
    b300 = lookup_gpu("B300")
    assert 900 < b300.nvidia_smi_total_mib - b300.total_bytes.bytes / 2**20 < 1000


def test_sglang_sizes_its_defaults_by_the_nvidia_smi_total():
    gpu = lookup_gpu("GB300")
    options = get_engine("sglang").options(engine_version="0.5.9")
    mib, why = capacity_read_mib(gpu, options)
    assert mib == 284208 and why is None
    assert mib != gpu.total_bytes.bytes / 2**20  # the CUDA total it read before
