"""Machine profile JSON I/O lives in the pure ``tpkit.hardware.profile_io`` (the planner reads it
without torch); re-exported here for runtime callers."""

from tpkit.hardware.profile_io import (  # noqa: F401
    load_machine_profile,
    profile_from_dict,
    profile_to_dict,
    save_machine_profile,
    select_gpus,
)

__all__ = ["load_machine_profile", "profile_from_dict", "profile_to_dict", "save_machine_profile", "select_gpus"]
