"""Device-side timeouts, host side (CPU): the error word a kernel writes becomes ``AllReduceTimeout`` naming the
backend and the peer rank, eager calls refuse to run after it, and ``AllReduce.check_errors`` raises it.

The kernels write the word themselves on a GPU (``scripts/gpu_timeout_check.py`` checks that on one GPU).
Before this, the push one-shot summed a late peer's sentinel as −0.0 and returned a wrong sum silently.
"""

from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from tpkit.comm.backends import error_flag as ef  # noqa: E402
from tpkit.errors import RuntimeSetupError  # noqa: E402


def _flag(code=0, rank=0):
    word = torch.tensor([code], dtype=torch.int32)  # a CPU tensor stands in for the pinned host word
    return ef.ErrorFlag(word, rank=rank, spin_limit=1 << 25), word


def test_codes_round_trip_and_name_backend_kind_and_peer():
    code = ef.encode("two_shot", ef.KIND_WAIT, 5)
    assert ef.decode(code) == ("two_shot", ef.KIND_WAIT, 5)
    assert ef.encode("one_shot", 0, 0) == 0  # registry index 0: its base code is 0, kinds make it non-zero


@pytest.mark.parametrize("backend, kind, needle", [
    ("one_shot", ef.KIND_DATA, "timed out waiting for the data of peer rank 3; the output is NaN"),
    ("one_shot_pull", ef.KIND_WAIT, "timed out waiting for peer rank 3 at the barrier"),
    ("two_shot", ef.KIND_SIGNAL, "timed out signalling peer rank 3"),
])
def test_a_set_word_raises_a_clear_error(backend, kind, needle):
    flag, word = _flag()
    flag.check()  # 0: nothing to report
    word[0] = ef.encode(backend, kind, 3)
    with pytest.raises(ef.AllReduceTimeout) as info:
        flag.check(synchronize=False)
    text = str(info.value)
    assert text.startswith(f"all-reduce backend {backend} on rank 0 ") and needle in text
    assert "33,554,432 polls" in text and "TPKIT_ALLREDUCE=nccl" in text
    assert isinstance(info.value, RuntimeSetupError)  # a user-facing error: the CLI prints it, exit 2


@pytest.mark.parametrize("code, why", [
    (ef.encode("one_shot_pull", ef.KIND_WAIT, 0), "peer 0"),    # the reporting rank itself
    (ef.encode("two_shot", ef.KIND_SIGNAL, 4), "peer 4"),       # no such rank in a 4-rank group
    (ef.encode("one_shot", 9, 1), "kind 9"),                    # no such kind
])
def test_a_code_naming_no_other_rank_is_reported_as_invalid_not_as_a_late_peer(code, why):
    """Before the fix, one_shot_pull on rank 0 said it "timed out waiting for peer rank 0" (itself)."""
    word = torch.tensor([code], dtype=torch.int32)
    flag = ef.ErrorFlag(word, rank=0, spin_limit=100, world_size=4)
    with pytest.raises(ef.AllReduceTimeout) as info:
        flag.check()
    text = str(info.value)
    assert "invalid code" in text and why in text and "this 4-rank group" in text
    assert "waiting for" not in text and "signalling" not in text and "did not return a sum" in text


def test_every_real_peer_is_named():
    for peer in (1, 2, 3):
        text = ef.timeout_message(ef.encode("two_shot", ef.KIND_WAIT, peer), rank=0, spin_limit=7, world_size=4)
        assert f"timed out waiting for peer rank {peer} at the barrier" in text and "invalid" not in text


def test_backends_pass_the_error_word_the_claim_word_and_the_group_size():
    """``_error_args`` is the kernels' tail: error word, device claim word (first timeout wins), code base,
    spin limit; the flag knows the world size so it can refuse a code that names no other rank."""
    from tpkit.comm.backends.triton_base import TritonLaunch

    class Fake(TritonLaunch):
        name = "two_shot"

    backend = Fake()
    buf = SimpleNamespace(raw=torch.zeros(4), rank=2, world_size=4)
    backend._init_errors(buf, 1000)
    err, claim, base, limit = backend._error_args()
    assert err == backend.errors.tensor.data_ptr() and claim == backend.errors.claim.data_ptr() != err
    assert (base, limit) == (ef.encode("two_shot", 0, 0), 1000)
    assert backend.errors.code() == 0 and int(backend.errors.claim[0]) == 0
    assert (backend.errors.rank, backend.errors.world_size) == (2, 4)


def test_a_device_memory_word_is_read_only_at_synchronise_points():
    """Where pinned memory cannot be mapped the word lives on the GPU; reading it needs a sync, so the
    per-call check skips it and ``check_errors`` (after a sync) reads it."""
    code = ef.encode("one_shot", ef.KIND_DATA, 1)
    word = SimpleNamespace(device=torch.device("meta"), item=lambda: code, data_ptr=lambda: 0)
    flag = ef.ErrorFlag(word, rank=2, spin_limit=100)
    assert not flag.mapped and flag.code(synchronize=False) == 0
    with pytest.raises(ef.AllReduceTimeout, match="on rank 2 timed out waiting for the data of peer rank 1"):
        flag.check()


def test_a_backend_refuses_to_run_after_a_timeout():
    from tpkit.comm.backends.triton_base import TritonLaunch

    launched = []

    class Fake(TritonLaunch):
        name = "one_shot_pull"

        def _launch(self, x, out, *, warmup=False):
            launched.append(x.numel())

    backend = Fake()
    backend.errors, word = _flag()
    x = torch.ones(8)
    backend.run(x, x)
    word[0] = ef.encode("one_shot_pull", ef.KIND_WAIT, 1)
    with pytest.raises(ef.AllReduceTimeout, match="one_shot_pull"):
        backend.run(x, x)
    with pytest.raises(ef.AllReduceTimeout):
        backend.check_errors()
    assert launched == [8]  # the second call never reached the GPU


def test_allreduce_check_errors_reads_every_backend():
    import torch.distributed as dist

    from tpkit.comm.allreduce import AllReduce
    from tpkit.hardware.topology import Topology

    flag, word = _flag()
    ok = SimpleNamespace(capacity=None, ledger_lines=lambda: ())
    failing = SimpleNamespace(capacity=None, ledger_lines=lambda: (), check_errors=flag.check)
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        ar = AllReduce(group=dist.group.WORLD, device=torch.device("cpu"), backends={"gloo": ok, "two_shot": failing},
                       skipped={}, topology=Topology.cpu(1).group(), profile=None, env={})
        ar.check_errors()
        word[0] = ef.encode("two_shot", ef.KIND_SIGNAL, 1)
        with pytest.raises(ef.AllReduceTimeout, match="two_shot on rank 0 timed out signalling peer rank 1"):
            ar.check_errors()
    finally:
        dist.destroy_process_group()


def test_spin_limit_must_fit_the_kernels_32_bit_counter():
    from tpkit.comm.backends import BackendUnavailable
    from tpkit.comm.backends.triton_base import check_spin_limit

    assert check_spin_limit(1000) == 1000
    for bad in (0, 2**31, 1.5, True):
        with pytest.raises(BackendUnavailable, match="spin_limit"):
            check_spin_limit(bad)
