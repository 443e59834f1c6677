"""A toy CPU all-reduce backend: the one file a new backend needs (its registry row is in test_backend_registry.py)."""

import torch.distributed as dist


class ToyBackend:
    """Sums with ``dist.all_reduce`` on the group and counts its calls."""

    capacity = None

    def __init__(self, name: str, group) -> None:
        self.name, self.group, self.calls = name, group, 0

    def run(self, x, out) -> None:
        if out.data_ptr() != x.data_ptr():
            out.copy_(x)
        dist.all_reduce(out, group=self.group)
        self.calls += 1

    def ledger_lines(self) -> tuple:
        return ()


def start(name, group, *, max_bytes, device, **_options) -> ToyBackend:
    return ToyBackend(name, group)
