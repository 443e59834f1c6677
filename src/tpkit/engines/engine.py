"""What an engine is to tpkit: its options, its planner, and how its flags appear on ``tpkit plan``.

An engine is one folder ``engines/<name>/`` with an ``engine.py`` that defines ``ENGINE = Engine(...)``:

    options   a frozen dataclass of the engine's launch flags that size memory; a field with ``Flag``
              metadata (``flag(...)``) is a ``tpkit plan`` flag named after the field (``--mem-fraction-static``)
    plan      plan(model, gpu, parallel, options, *, machine, extra_uses) -> PlanResult, whose ``engine_log``
              holds the lines the engine itself would print and whose verdict speaks the engine's words

``tpkit.engines.registry`` finds every such folder; the CLI builds its flags from the options and refuses a
flag the chosen engine does not have, with no list of engines of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field

from tpkit.errors import PlanInputError
from tpkit.records import dataclass

__all__ = ["Engine", "Flag", "flag", "shared_flag", "FLAG_KINDS", "percent_hint", "check_fraction",
           "check_whole_numbers", "check_switches", "check_plan_arguments"]

FLAG_KINDS = ("str", "int", "fraction", "size", "bool", "gib", "int_list", "number")
"""how a flag's text becomes the field's value: as is, a whole number, a number in (0, 1], a size with a
unit (``40GiB`` → ``Bytes``), a switch, or a plain number of GiB as the engine reads it (``--cpu-offload-gb 8``;
a unit is refused, the engines take none), one or more whole numbers (``--cudagraph-capture-sizes 1 2 4``: the
texts as given, read by the options), or a plain number (a ratio that may exceed 1, checked by the options)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Flag:
    """How one options field appears on the command line."""

    help: str
    """one line for ``--help``"""
    kind: str = "str"
    """one of ``FLAG_KINDS``"""
    unit: str | None = None
    """unit of the value (``tokens``, ``requests`` …); its first word names the value in ``--help``"""
    choices: tuple[str, ...] | None = None
    """the accepted values, when they are a closed list"""
    concept: str | None = None
    """what the flag controls, shared by the flags of other engines that control the same (``"context length"``):
    a flag given to the wrong engine is answered with that engine's flag for the same concept"""
    group: str | None = None
    """help section; None: the engine's own section (or the main one for a flag every engine has)"""
    metavar: str | None = None
    """placeholder in ``--help`` (default: the field name in capitals)"""
    tpkit: bool = False
    """a tpkit option that says what the engine cannot be told (an assumption about the run), not an engine flag:
    its help says so, and given with another ``--engine`` it is refused as such"""
    any_case: bool = False
    """the engine reads the value in any case (vLLM upper-cases ``--attention-backend``): the command line takes any
    case and passes on the listed spelling"""
    suffixes: str | None = None
    """``int`` flags the engine reads with vLLM's ``human_readable_int``: ``"k"`` accepts ``128k`` (= 128,000, the
    lowercase decimal suffix every release reads alike), ``"k_or_auto"`` also names ``auto`` / ``-1`` (vLLM's
    ``human_readable_int_or_auto`` for ``--max-model-len``; both in vllm/engine/arg_utils.py ``get_kwargs``); None: a
    plain whole number, as the engine reads it"""
    elsewhere: str = ""
    """what the other engine's flag of the same name does, said when the flag is given with that engine (SGLang has
    an ``--attention-backend`` of its own): "" when the other engine has no such flag"""
    aliases: tuple[str, ...] = ()
    """the engine's short spellings of the flag, taken too (vLLM's ``-dcp``, ``-dp``, ``-ep``, ``-sc``: 0.29.0
    engine/arg_utils.py ``add_cli_args``), so a pasted ``vllm serve`` command line reads as written"""
    refused: tuple[tuple[str, str], ...] = ()
    """values of ``choices`` that the options take (the Python API reads them) but the engine's own command line
    refuses, each with what to write instead: ``tpkit plan`` refuses them too, so a plan's flags launch as given"""

    def __post_init__(self) -> None:
        if self.kind not in FLAG_KINDS:
            raise ValueError(f"Flag kind must be one of {FLAG_KINDS}, got {self.kind!r}")


def percent_hint(value) -> str:
    """The end of a refusal for a memory fraction given as a percentage (``85`` for 0.85, from 5 up: 1.2 is a
    fraction too large, not 1.2 %): what to write instead."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 5 <= value <= 100
    return f"; {value:g} looks like a percentage: write {value / 100:g}" if ok else ""


def check_fraction(name: str, value, meaning: str) -> None:
    """Refuse a memory fraction outside (0, 1] (None = the engine's default): ``name`` is the flag, ``meaning`` what
    the engine does with it, with an example value."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1):
        raise PlanInputError(f"--{name} must be in the range (0, 1], got {value!r}; {meaning}" + percent_hint(value))


def check_whole_numbers(options, names: tuple[str, ...], why: dict[str, str] | None = None) -> None:
    """Refuse a field of ``options`` among ``names`` that is set but is not a whole number ≥ 1 (``why``: the
    engine's own reason for a field, added in brackets)."""
    for name in names:
        value = getattr(options, name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            reason = (why or {}).get(name)
            raise PlanInputError(f"--{name.replace('_', '-')} must be a whole number ≥ 1, got {value!r}"
                                 + (f" ({reason})" if reason else ""))


def check_switches(options, names: tuple[str, ...]) -> None:
    """Refuse a field of ``options`` among ``names`` that is not True or False."""
    for name in names:
        if not isinstance(getattr(options, name), bool):
            raise PlanInputError(f"{name} must be True or False, got {getattr(options, name)!r}")


def flag(default=None, **kw):
    """A dataclass field that is a ``tpkit plan`` flag (``kw``: the ``Flag`` fields)."""
    return field(default=default, metadata={"flag": Flag(**kw)})


_SHARED_FLAGS: dict[str, tuple[object, dict]] = {
    "disable_custom_all_reduce": (False, dict(
        kind="bool", group="all-reduce",
        help="as in SGLang and vLLM: the engine allocates no custom all-reduce buffers (NCCL only)")),
    "enable_lora": (False, dict(
        kind="bool", group="LoRA",
        help="serve LoRA adapters: plan the engine's LoRA A/B buffers (vLLM: --max-loras × rank per wrapped layer; "
             "SGLang: --max-loras-per-batch × rank per target module)")),
    "max_lora_rank": (None, dict(
        kind="int", unit="rank", group="LoRA",
        help="largest adapter rank (vLLM: default 16, one of the release's allowed ranks; SGLang: required, it "
             "infers it from the adapters)")),
    "language_model_only": (False, dict(
        kind="bool",
        help="text only (vLLM ≥ 0.17.0, SGLang ≥ 0.5.18): the vision tower the release does not build leaves the "
             "weights (vLLM: the families engines/vllm/towers.py lists, no encoder profile; SGLang: Qwen3-VL / "
             "Qwen3.5, no multimodal factor or caches, engines/sglang/towers.py)")),
}
"""flags every engine declares with the same words on ``--help``: field name → (default, ``Flag`` fields)"""


def shared_flag(name: str):
    """The field of a flag every engine declares alike (one of ``_SHARED_FLAGS``); each engine documents the field
    in its own words."""
    default, kw = _SHARED_FLAGS[name]
    return flag(default, **kw)


@dataclass(frozen=True, kw_only=True, slots=True)
class Engine:
    """One serving engine tpkit plans for."""

    name: str
    """``--engine`` value and the plan's ``engine`` key (``"sglang"``)"""
    label: str
    """the engine's own name in messages (``"SGLang"``)"""
    options: type
    """its options dataclass (flags from the fields' ``Flag`` metadata)"""
    plan: Callable
    """``plan(model, gpu, parallel, options, *, machine=None, extra_uses=()) -> PlanResult``"""
    summary: str = ""
    """one line for ``--help``"""


def check_plan_arguments(entry: str, model, gpu, parallel, options, options_type: type) -> None:
    """Refuse, with ``TypeError``, a positional argument of ``plan_sglang`` / ``plan_vllm`` of the wrong type (a GPU
    name where a ``GpuSpec`` goes, ``2`` for ``ParallelSpec(tp=2)``, a model id for a ``ModelSpec``): said with what
    was passed and the call that makes the right value, instead of an ``AttributeError`` deep in the planner."""
    from tpkit.hardware.gpu import GpuSpec
    from tpkit.models.spec import ModelSpec
    from tpkit.parallel import ParallelSpec

    wanted = (("model", model, ModelSpec, "tpkit.load_model('Qwen/Qwen3-32B') (an HF id, checkpoint directory or "
               "config.json path)"),
              ("gpu", gpu, GpuSpec, "tpkit.lookup_gpu('H200')"),
              ("parallel", parallel, ParallelSpec, "tpkit.ParallelSpec(tp=2)"),
              ("options", options, options_type, f"tpkit.{options_type.__name__}() (the engine's defaults)"))
    for name, value, kind, make in wanted:
        if not isinstance(value, kind):
            raise TypeError(f"{entry}: {name} must be a {kind.__name__}, got {type(value).__name__} {value!r:.60}; "
                            f"make one with {make}")
