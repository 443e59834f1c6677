"""What a planner rule may raise when explain asks it about a run it cannot size.

Explain asks the planner's rules about runs read from messy logs: a release the rules do not read, a tp the model's
heads do not divide, a dtype spelling the options refuse. Those are refusals, and explain reports them as "not
computable" and keeps going. Anything else (a ``TypeError``, an ``AttributeError``, a ``KeyError``) is a bug in
tpkit and must surface in the tests, so explain catches only these:

- ``TpkitError``: the planner's own user-facing refusals (``PlanInputError``, ``ConfigError``, ``UnknownGpuError`` …);
- ``ValueError``: a number or spelling the rules reject (``int('x')``, a version string they cannot parse);
- ``ArithmeticError``: a division by a zero read from a truncated log, an overflow.
"""

from __future__ import annotations

from tpkit.errors import TpkitError

__all__ = ["REFUSED", "READ_FAILED"]

REFUSED: tuple[type[BaseException], ...] = (TpkitError, ValueError, ArithmeticError)

# reading a model path printed in the log: also a file system refusal (a directory, no permission, a dangling link)
READ_FAILED: tuple[type[BaseException], ...] = REFUSED + (OSError,)


PROFILE_UNPLANNED = ("the model or the GPU is not known, so the profile run at the smaller batch is not re-planned: "
                     "its activation peak is not printed (before round cr33c a fit wherever the shortfall was under "
                     "1 GiB, a rule of thumb)")
"""the no-blocks / profile-run fallback's missing input (V1's 'No available memory for the cache blocks' prints no
budget at all)"""
