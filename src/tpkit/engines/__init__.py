"""Engine memory policies, one folder each (pure): ``sglang/``, ``vllm/``.

Each folder's ``engine.py`` defines ``ENGINE`` (``tpkit.engines.engine.Engine``: options + plan);
``tpkit.engines.registry`` finds them.  Start-up costs come from ``tpkit.startup``.

``release_tuple`` is the one reader of an engine's version text, which both folders' ``versions.parse_version`` use
(here, in the package both import anyway, so that no command imports one module more: tests/cli/test_cold_imports.py).
``MIN_COMPUTE_CAPABILITY`` / ``refuse_unsupported_gpu``: the oldest NVIDIA GPU each engine runs on (here for the same
reason: `tpkit plan` and `tpkit perf` of either engine check it; helper cc21).
"""

from __future__ import annotations

import json
import re

__all__ = ["MIN_COMPUTE_CAPABILITY", "flag_json", "refuse_unsupported_gpu", "release_tuple", "unread_release_tail"]

_VERSION_RE = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?(?:[.\-+]?(?:rc|post|dev|a|b)?\d*.*)?$")


def release_tuple(text: str) -> tuple[int, int, int] | None:
    """``"0.5.23"`` → ``(0, 5, 23)``; ``"0.11"`` → ``(0, 11, 0)``; pre-, post- and development releases and a local
    label fold into their base release (``"0.5.0rc0"`` → ``(0, 5, 0)``, ``"0.4.9.post2"`` → ``(0, 4, 9)``,
    ``"0.10.1.dev101+gbda9d0535"`` → ``(0, 10, 1)``); None when ``text`` does not start with MAJOR.MINOR.  Each engine
    refuses an unreadable text in its own words."""
    m = _VERSION_RE.match(str(text))
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else None


_RELEASE_TAIL = re.compile(r"(?:\.\d+)?(?:[.\-_]?(?:rc|post|dev|alpha|beta|a|b)\d*)*"
                           r"(?:[+\-][A-Za-z0-9][\w.+\-]*)?(?::\s*[vV][01])?\s*")
"""what may follow MAJOR.MINOR[.PATCH] in a release a user types: a fourth number (vLLM 0.10.1.1), pre / post /
development parts (``rc1``, ``.post2``, ``.dev101``), a local or build label (``+gbda9d0535``, ``+cu126``, an image
tag's ``-cu129``) and vLLM's engine suffix (``:v0``)"""


def unread_release_tail(text: str) -> str:
    """The part of a typed release that ``release_tuple`` would drop unread (``"0.5.x"`` → ``".x"``,
    ``"0.5.23garbage"`` → ``"garbage"``), "" when there is none or ``text`` is no release at all (an alias such as
    ``current``, which each engine reads or refuses itself).  ``release_tuple`` keeps its tolerance for what logs
    print; ``tpkit``'s ``--engine-version`` refuses such a tail (helper tidy32: ``--engine-version 0.5.x`` was
    planned as 0.5.0 with no word)."""
    m = re.match(r"\s*v?\d+\.\d+(?:\.\d+)?", str(text))
    if m is None or release_tuple(text) is None:
        return ""
    rest = str(text)[m.end():]
    return "" if _RELEASE_TAIL.fullmatch(rest) else rest


def flag_json(text: str):
    """``json.loads`` of a flag's JSON value (``--speculative-config``, ``--limit-mm-per-prompt``, ``--eplb-config``)
    where every way the text fails to decode raises ``json.JSONDecodeError``, which the callers turn into their
    refusal: a number of more than 4,300 digits (Python's int-conversion limit raises a bare ``ValueError``) and
    nesting deeper than the interpreter's recursion limit (``RecursionError``) were tracebacks (helper tidy32)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # "Exceeds the limit (4300 digits) for integer string conversion"
        raise json.JSONDecodeError(f"a number too long to read ({str(exc).split(';')[0]})", text, 0) from None
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply to read", text, 0) from None


MIN_COMPUTE_CAPABILITY = {"sglang": (7, 5), "vllm": (7, 0)}
"""The oldest NVIDIA compute capability each engine runs on (read in the releases, helper cc21):

- SGLang (7, 5): ``ModelRunner.load_model`` raises ``RuntimeError`` "SGLang only supports sm75 and above." (sglang
  0.4.2–0.5.20 ``model_executor/model_runner.py``; 0.5.23 ``model_executor/model_runner_components/
  load_model_utils.py``); ``engines.sglang.support`` reads it from here.
- vLLM (7, 0): the installation docs' requirement "GPU: compute capability 7.0 or higher" (docs/getting_started/
  installation/gpu, v0.7.2 through v0.14.0 and the v0.26.0 source).  vLLM has no start-up check of its own
  (``platforms/cuda.py`` ``supported_dtypes``, 0.25.0–0.34.0, says only that it does not support GPUs below SM60); its
  wheels carry no kernel below the floor (the fatbins of ``_C_stable_libtorch.abi3.so`` in the PyPI wheels 0.25.0 and
  0.34.0 hold SASS for SM75, 80, 86, 89, 90, 100, 120 and PTX for 80, 89, 90 only), so the first custom kernel fails
  with CUDA's "no kernel image is available for execution on the device": the engine stops, tpkit refuses."""


def refuse_unsupported_gpu(engine: str, gpu, machine=None, *, verb: str = "plan") -> None:
    """Raise ``PlanInputError`` when ``engine`` does not run on ``gpu`` (a ``GpuSpec``) or on a GPU of ``machine`` (a
    ``MachineProfile``: a probed GPU the catalog does not name still carries its compute capability): an NVIDIA GPU
    below ``MIN_COMPUTE_CAPABILITY[engine]``.  A GPU of unknown compute capability (``--gpu-memory``) passes.  ``verb``:
    what the hint to try the other engine says (``plan`` it, ``model`` it)."""
    from tpkit.hardware.gpu import NVIDIA, is_nvidia  # the package root imports nothing at load (module docstring)

    low = MIN_COMPUTE_CAPABILITY.get(engine)
    if low is None or not is_nvidia(getattr(gpu, "vendor", NVIDIA)):
        return
    seen = [(gpu.name, gpu.compute_capability)]
    seen += [(g.name, g.compute_capability) for g in (machine.gpus if machine is not None else ())]
    below = [(name, tuple(cc)) for name, cc in seen if cc is not None and tuple(cc) < low]
    if not below:
        return
    from tpkit.errors import PlanInputError

    name, cc = below[0]
    if engine == "sglang":
        stops = f"it stops at the weight load with 'SGLang only supports sm{low[0]}{low[1]} and above.'"
        other = f"{verb} it with --engine vllm, or pick"
        if cc < MIN_COMPUTE_CAPABILITY["vllm"]:
            other = "pick"
    else:
        stops = (f"vLLM requires compute capability {low[0]}.{low[1]} or higher (its installation docs), and its "
                 "wheels hold no kernel for this GPU: the first kernel fails with 'no kernel image is available for "
                 "execution on the device'")
        other = "pick"
    raise PlanInputError(f"{'SGLang' if engine == 'sglang' else 'vLLM'} does not run on {name} (compute capability "
                         f"{cc[0]}.{cc[1]}): {stops}; {other} a GPU of SM{low[0]}{low[1]} or newer")
