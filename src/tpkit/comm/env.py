"""Environment overrides of the all-reduce dispatcher, parsed once into a frozen value.

    variable                    values                                    effect
    TPKIT_ALLREDUCE             ``auto`` (default) or a backend family:   force that family
                                each registry row's ``env_name``
                                (``one_shot``, ``two_shot``,
                                ``symm_mem``, ``nccl``)
    TPKIT_ALLREDUCE_FORCE_PCIE  ``1`` / ``0`` (default)                   allow custom kernels on > 2 GPUs without a
                                                                          full NVLink mesh
    TPKIT_ALLREDUCE_MAX_BYTES   a size with a unit, e.g. ``8MiB``         custom kernels only up to this many bytes
"""

from __future__ import annotations

from collections.abc import Mapping

from tpkit.records import dataclass
import tpkit.comm.registry as registry
from tpkit.errors import ConfigError
from tpkit.units import Bytes, parse_bytes

__all__ = ["CommEnv", "parse_env"]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


@dataclass(frozen=True, kw_only=True, slots=True)
class CommEnv:
    """The dispatcher's environment overrides."""

    force: str = "auto"
    """``auto`` or a ``TPKIT_ALLREDUCE`` family (``registry.env_choices()``)"""
    force_pcie: bool = False
    """custom kernels allowed on > 2 GPUs without a full NVLink mesh"""
    max_bytes: Bytes | None = None
    """cap (bytes) on messages sent through custom kernels; None = buffer size only"""

    def allowed(self) -> tuple[str, ...] | None:
        """Backend names the force override allows (None = all)."""
        return None if self.force == "auto" else registry.env_family(self.force)


def parse_env(env: Mapping[str, str]) -> CommEnv:
    """Read the ``TPKIT_ALLREDUCE*`` variables from ``env``; raise ConfigError on a bad value."""
    force = env.get("TPKIT_ALLREDUCE", "auto").strip().lower() or "auto"
    choices = registry.env_choices()
    if force not in choices:
        raise ConfigError(
            f"TPKIT_ALLREDUCE={env['TPKIT_ALLREDUCE']!r} is not a valid choice; "
            f"use one of {', '.join(choices)} (or unset it for auto)"
        )
    pcie_text = env.get("TPKIT_ALLREDUCE_FORCE_PCIE", "0").strip().lower()
    if pcie_text not in _TRUE | _FALSE:
        raise ConfigError(
            f"TPKIT_ALLREDUCE_FORCE_PCIE={env['TPKIT_ALLREDUCE_FORCE_PCIE']!r} is not a boolean; use 1 or 0"
        )
    max_text = env.get("TPKIT_ALLREDUCE_MAX_BYTES")
    max_bytes = None
    if max_text is not None and max_text.strip():
        max_bytes = parse_bytes(max_text, what="TPKIT_ALLREDUCE_MAX_BYTES")
    return CommEnv(force=force, force_pcie=pcie_text in _TRUE, max_bytes=max_bytes)
