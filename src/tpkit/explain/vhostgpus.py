"""The vLLM side's import path of the host's GPU count (round cr35b); the rule's one home is ``explain.hostgpus``
(moved there by helper fx35b, 2026-12-07, when SGLang's fixes came to need it too)."""

from __future__ import annotations

from tpkit.explain.hostgpus import HostGpus, checked_fixes, gpus_needed, host_gpus_shown

__all__ = ["HostGpus", "host_gpus_shown", "gpus_needed", "checked_fixes"]
