"""NCCL NVLink SHARP buffers of vLLM's tp communicators (tpkit.startup.nvls): NCCL line by vLLM release, size by NCCL
line / ranks / compute capability, and where the vLLM plan charges them."""

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.hardware.catalog import lookup_gpu
from tpkit.parallel import ParallelSpec
from tpkit.startup.nvls import COMMUNICATORS, nccl_for_vllm, nvls_bytes_per_communicator, vllm_nvls_cost
from tpkit.units import Bytes

from vllm_fixtures import GivenWeights, llama3_8b

MIB = 1 << 20
H200, H100, A100, B200 = (lookup_gpu(n) for n in ("H200-SXM-141GB", "H100-SXM-80GB", "A100-SXM-80GB", "B200"))
ITEM = "NCCL NVLink SHARP buffers"


@pytest.mark.parametrize("release, line", [
    ((0, 4, 2), None), ((0, 4, 3), "2.20"), ((0, 6, 3), "2.20"), ((0, 6, 4), "2.21"), ((0, 8, 5), "2.21"),
    ((0, 9, 0), "2.22+"), ((0, 10, 2), "2.22+"), ((0, 11, 0), None), ((0, 20, 0), None)])
def test_nccl_line_follows_the_torch_each_release_pins(release, line):
    assert nccl_for_vllm(release) == line


def test_nccl_2_20_matches_the_printed_nvls_total_of_vllm_9699():
    # "nHeads 8 buffSize 4194304 memSize 2097152 nvlsPerRankSize 301989888 nvlsTotalSize 2415919104" (8 x H200)
    assert nvls_bytes_per_communicator("2.20", 8, (9, 0)) == Bytes(2_415_919_104)


@pytest.mark.parametrize("line, ranks, cc, mib", [
    ("2.21", 8, (9, 0), 24 * 2 * 3 * 8), ("2.21", 4, (9, 0), 24 * 2 * 3 * 4),
    ("2.22+", 8, (9, 0), 16 * 2 * 8), ("2.22+", 8, (10, 0), 24 * 2 * 8), ("2.22+", 3, (9, 0), 16 * 2 * 3),
    ("2.22+", 2, (9, 0), 0), ("2.21", 2, (9, 0), 0), ("2.21", 8, (8, 0), 0), ("2.22+", 8, (8, 9), 0)])
def test_size_per_communicator(line, ranks, cc, mib):
    assert nvls_bytes_per_communicator(line, ranks, cc) == Bytes(mib * MIB)


def test_unknown_nccl_line_is_refused():
    with pytest.raises(ValueError, match="2.21"):
        nvls_bytes_per_communicator("2.19", 8, (9, 0))


@pytest.mark.parametrize("gpu, tp, release, nvlink, nodes, expected_mib", [
    (H200, 8, (0, 7, 3), True, 1, COMMUNICATORS * 24 * 2 * 3 * 8),
    (H200, 8, (0, 10, 0), True, 1, COMMUNICATORS * 16 * 2 * 8),
    (H200, 8, (0, 11, 0), True, 1, None),  # from 0.11: inside the vllm_nontorch_growth[tp>2] row
    (A100, 8, (0, 7, 3), True, 1, None),  # no multicast (sm80)
    (H200, 2, (0, 7, 3), True, 1, None), (H200, 3, (0, 7, 3), True, 1, COMMUNICATORS * 24 * 2 * 3 * 3),
    (H200, 9, (0, 7, 3), True, 1, None),  # larger than one NVSwitch board: not modelled
    (H200, 8, (0, 7, 3), False, 1, None), (H200, 8, (0, 7, 3), True, 2, None),
    (B200, 8, (0, 10, 1), True, 1, COMMUNICATORS * 24 * 2 * 8)])
def test_vllm_cost_scope(gpu, tp, release, nvlink, nodes, expected_mib):
    c = vllm_nvls_cost(gpu, tp, release, full_nvlink=nvlink, nodes=nodes)
    if expected_mib is None:
        assert c is None
    else:
        assert c.key == "nccl_nvls" and c.bytes == Bytes(expected_mib * MIB)
        assert c.uncertainty == Bytes(expected_mib * MIB // COMMUNICATORS)


def _plan(gpu, version, tp):
    return plan_vllm(llama3_8b(), gpu, ParallelSpec(tp=tp), VllmOptions(engine_version=version),
                     weights=GivenWeights(Bytes(8_030_261_248 * 2)))


def _items(result):
    return {line.item for line in result.ledger.items}


@pytest.mark.parametrize("version", ["0.7.3", "0.10.0"])
def test_the_plan_charges_nvls_on_hopper_boards_before_0_11(version):
    with_, a100 = _plan(H100, version, 8), _plan(A100, version, 8)
    assert ITEM in _items(with_) and ITEM not in _items(a100)
    share = with_.ledger.get(ITEM).bytes
    tp2 = _plan(H100, version, 2)
    assert ITEM not in _items(tp2)
    assert with_.ledger.check(Bytes(0)) == [] and share > Bytes(0)


def test_no_separate_nvls_line_from_0_11():
    assert ITEM not in _items(_plan(H100, "0.11.0", 8))
