"""All-reduce: pure dispatch (``comm.dispatch``) over backends (``comm.backends``).

``tpkit.comm.AllReduce`` is imported lazily (it needs torch); the pure modules (dispatch, env,
profile, ledger, topology, explain, plan) never import torch.
"""

__all__ = ["AllReduce"]


def __getattr__(name: str):
    if name == "AllReduce":
        from tpkit.comm.allreduce import AllReduce

        return AllReduce
    raise AttributeError(f"module 'tpkit.comm' has no attribute {name!r}")
