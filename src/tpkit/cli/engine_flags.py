"""``tpkit plan`` flags built from the engines' options dataclasses; no engine is named here.

Every options field with ``Flag`` metadata (``tpkit.engines.engine``) becomes ``--field-name``.  A field that
every engine has is one flag in the main section (its accepted values: the union of the engines'); a field
some engines lack sits in their own section, and giving it with another ``--engine`` is a user error that
names that engine's flag for the same concept when it has one.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import fields

from tpkit.cli.argtypes import comma_hint, size_for_fraction_hint, whole_number, within_int64
from tpkit.engines.engine import Engine, Flag
from tpkit.engines.registry import all_engines
from tpkit.errors import PlanInputError
from tpkit.records import dataclass

__all__ = ["EngineField", "engine_fields", "add_engine_flags", "check_engine_flags", "options_from_args"]


@dataclass(frozen=True, kw_only=True, slots=True)
class EngineField:
    """One flag and the engines whose options have it."""

    name: str
    """field name (= argparse dest)"""
    flag: Flag
    """its metadata (from the first engine that has it)"""
    choices: tuple[str, ...] | None
    """accepted values over every engine that has it, None when open"""
    owners: tuple[Engine, ...]
    """engines that accept it"""

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")


def engine_fields(engines: tuple[Engine, ...] | None = None) -> tuple[EngineField, ...]:
    """Each flag field once, in the order the engines (default first) declare them."""
    engines = all_engines() if engines is None else engines
    found: dict[str, tuple[Flag, list, list]] = {}
    for engine in engines:
        for f in fields(engine.options):
            meta = f.metadata.get("flag")
            if meta is None:
                continue
            first, choices, owners = found.setdefault(f.name, (meta, [], []))
            assert meta.kind == first.kind, f"--{f.name}: {engine.name} reads it as {meta.kind}, not {first.kind}"
            choices += [c for c in meta.choices or () if c not in choices]
            owners.append(engine)
    return tuple(EngineField(name=n, flag=m, choices=tuple(c) or None, owners=tuple(o))
                 for n, (m, c, o) in found.items())


def _fraction(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        pass
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*%\s*", text)
    hint = f": {m.group(1)} % is {float(m.group(1)) / 100:g}, write {float(m.group(1)) / 100:g}" if m else \
        comma_hint(text, whole=False) or size_for_fraction_hint(text)
    raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}{hint}") from None


def _readable(auto: bool):
    """vLLM's ``human_readable_int`` for this flag: ``128k`` = 128,000 (lowercase k is 1000 in every vLLM release
    that reads suffixes; the other suffixes changed meaning between releases, so they are spelled out instead)."""

    def parse(text: str) -> int:
        t = text.strip()
        if auto and (t.lower() == "auto" or t == "-1"):
            raise argparse.ArgumentTypeError(
                f"{text!r} asks vLLM to pick the largest length that fits; tpkit plans a given length: leave "
                "--max-model-len out (the model's maximum) and, if that does not fit, the verdict names the "
                "largest --max-model-len that does")
        m = re.fullmatch(r"(\d+(?:\.\d+)?)k", t)
        if m is None:
            return whole_number(t)
        within_int64(int(m.group(1).split(".")[0]) * 1000, t)  # before float(): 400 digits + k is inf
        return int(float(m.group(1)) * 1000)

    return parse


def _gib(text: str) -> float:
    """A plain number of GiB, as SGLang and vLLM read ``--cpu-offload-gb`` (no unit: ``48GB`` is refused with both
    readings spelled out, GiB = 2^30 B, GB = 10^9 B)."""
    try:
        return float(text)
    except ValueError:
        pass
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*", text)
    if m:
        n, unit = float(m.group(1)), m.group(2)
        gib = n if unit.lower() in ("gib", "g") else n * 10**9 / 2**30 if unit.lower() == "gb" else None
        hint = f"; write {n:g}" if unit.lower() in ("gib", "g") else (
            f"; {n:g} GB = {gib:.2f} GiB: write {gib:.2f}" if gib is not None else "")
        raise argparse.ArgumentTypeError(
            f"expected a plain number of GiB per GPU (the engines' unit, 2^30 bytes; no unit written), got "
            f"{text!r}{hint}")
    raise argparse.ArgumentTypeError(f"expected a plain number of GiB per GPU, e.g. 8, got {text!r}")


def _number(text: str) -> float:
    """A plain number (a ratio that may exceed 1); the range is checked with the engine's options."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, e.g. 0.9, got {text!r}") from None


_TYPES = {"str": str, "int": whole_number, "fraction": _fraction, "size": str, "gib": _gib, "int_list": str,
          "number": _number}


def _listed_spelling(choices: tuple[str, ...]):
    """argparse ``type`` for a flag the engine reads in any case: the listed spelling of the value, else the value
    as given (argparse then refuses it with the list)."""
    folded = {c.lower(): c for c in choices}
    return lambda text: text if text in choices else folded.get(text.lower(), text)  # SGLang's `flashinfer` stays


def _kwargs(field: EngineField) -> dict:
    meta = field.flag
    if meta.kind == "bool":
        return dict(action="store_true", default=None, help=meta.help)
    kind = _readable(meta.suffixes == "k_or_auto") if meta.suffixes else _TYPES[meta.kind]
    kw = dict(type=kind, default=None, help=meta.help)
    if meta.kind == "int_list":
        kw["nargs"] = "+"  # vLLM reads list[int] flags as nargs="+" (engine/arg_utils.py _compute_kwargs)
    if field.choices and meta.any_case:  # the engine's options refuse an unknown value, once the engine is known
        kw["type"] = _listed_spelling(field.choices)  # (argparse's refusal came first: SGLang's `fa3` got vLLM's list)
    elif field.choices:
        kw["choices"] = field.choices
        if meta.tpkit:  # tpkit's own word (`--compile-cache WARM`): no engine spells it, so any case (helper ux23)
            kw["type"] = _listed_spelling(field.choices)
    metavar = meta.metavar or (meta.unit.split()[0].upper() if meta.unit else None)
    if metavar and (not field.choices or meta.any_case):
        kw["metavar"] = metavar  # the unit names the value: --context-length TOKENS
    return kw


def add_engine_flags(parser: argparse.ArgumentParser, groups: dict[str, object],
                     engines: tuple[Engine, ...] | None = None) -> None:
    """Add every engine flag: to ``groups[flag.group]`` (created on first use), to the main section when every
    engine has it, else to a section titled by the engines that have it."""
    engines = all_engines() if engines is None else engines
    for field in engine_fields(engines):
        if field.flag.group is not None:
            title = field.flag.group
        elif len(field.owners) == len(engines):
            title = None
        else:
            title = ", ".join(e.label for e in field.owners)
        if title is not None and title not in groups:
            groups[title] = parser.add_argument_group(title)
        (groups[title] if title else parser).add_argument(field.option, *field.flag.aliases, **_kwargs(field))


def _article(label: str) -> str:
    """'an' before a name read with a vowel sound ('an SGLang flag'), else 'a' ('a vLLM flag')."""
    return "an" if label[:1].upper() in "AEFHILMNORSX" else "a"


def check_engine_flags(args: argparse.Namespace, engine: Engine, engines: tuple[Engine, ...] | None = None, *,
                       engine_from: str | None = None) -> None:
    """Refuse an engine flag the chosen engine does not have, naming its flag for the same concept, or, when it
    has none, the two ways out (leave the flag out, or plan the engine that has it).  ``engine_from`` says where
    the engine came from when the user did not give ``--engine`` ('the default', 'from the log'): a user who never
    typed ``--engine sglang`` is not told that '--engine is sglang'."""
    mine = engine_fields((engine,))
    chosen = f"the engine is {engine.name} ({engine_from})" if engine_from else f"--engine is {engine.name}"
    for field in engine_fields(engines):
        if engine in field.owners or getattr(args, field.name, None) is None:
            continue
        owners = " and ".join(e.label for e in field.owners)
        if field.flag.tpkit:
            raise PlanInputError(f"{field.option} is a tpkit option for {owners} plans only (not an engine flag: "
                                 f"{field.flag.help.split(';')[0]}), but {chosen}, whose plans have "
                                 f"no such term; leave {field.option} out")
        alt = next((m.option for m in mine if field.flag.concept and m.flag.concept == field.flag.concept), None)
        if field.flag.elsewhere:
            raise PlanInputError(f"{field.option} is read for {owners} plans only, but {chosen}: "
                                 f"{field.flag.elsewhere}; leave {field.option} out, or plan with --engine "
                                 + " or --engine ".join(e.name for e in field.owners))
        if alt:
            fix = f"; for --engine {engine.name} use {alt}"
            if engine_from == "the default":  # a pasted `vllm serve` line without --engine (helper ux23)
                fix += f", or, to plan {_article(owners)} {owners} server, add " + \
                    " or ".join(f"--engine {e.name}" for e in field.owners)
        else:
            other = " or ".join(f"--engine {e.name}" for e in field.owners)
            fix = f"; {engine.label} has no such flag: leave {field.option} out, or plan with {other}"
        raise PlanInputError(f"{field.option} is {_article(owners)} {owners} flag, but {chosen}{fix}")
    _check_values(args, engine, engines, engine_from)


def _takers(name: str, value: str, engine: Engine, engines: tuple[Engine, ...] | None) -> tuple[Engine, ...]:
    """The other engines whose own command line takes ``value`` for the options field ``name``."""
    out = []
    for other in all_engines() if engines is None else engines:
        meta = next((f.metadata.get("flag") for f in fields(other.options) if f.name == name), None)
        if other is not engine and meta is not None and value in (meta.choices or ()) \
                and value not in dict(meta.refused):
            out.append(other)
    return tuple(out)


def _check_values(args: argparse.Namespace, engine: Engine, engines: tuple[Engine, ...] | None,
                  engine_from: str | None) -> None:
    """Refuse a value of a flag the chosen engine has that its own command line refuses: one of its
    ``Flag.refused`` (said with what to write instead), or another engine's spelling (said with the engine whose it
    is and this engine's spellings).  ``engine_from``: where the engine came from, when the user did not name it."""
    for field in engine_fields((engine,)):
        value = getattr(args, field.name, None)
        if not isinstance(value, str):
            continue
        takers = _takers(field.name, value, engine, engines)
        other = " or ".join(f"--engine {e.name}" for e in takers)
        origin = f" (the engine is {engine.name}, {engine_from})" if engine_from else ""
        fix = dict(field.flag.refused).get(value)
        if fix:
            raise PlanInputError(f"{field.option} {value!r}: {engine.label}'s own {field.option} refuses it (invalid "
                                 f"choice), so the server would not start{origin}; {fix}"
                                 + (f"; to plan {' or '.join(e.label for e in takers)} instead, add {other}"
                                    if takers and engine_from == "the default" else ""))
        folded = {c.lower() for c in field.flag.choices or ()}  # a case slip is the engine's own check's to name
        if takers and folded and value.lower() not in folded:
            mine = ", ".join(c for c in field.flag.choices if c not in dict(field.flag.refused))
            switch = "" if engine_from and engine_from != "the default" else f", or plan with {other}"
            raise PlanInputError(f"{field.option} {value!r} is {' and '.join(e.label for e in takers)}'s spelling, "
                                 f"not {engine.label}'s{origin}; {engine.label}'s {field.option} must be one of "
                                 f"{mine}{switch}")


def options_from_args(engine: Engine, args: argparse.Namespace):
    """The engine's options from the flags given (sizes read with their unit); the rest keep their defaults."""

    values = {}
    for field in engine_fields((engine,)):
        value = getattr(args, field.name, None)
        if value is None:
            continue
        values[field.name] = size_flag(value, field.option) if field.flag.kind == "size" else value
    return engine.options(**values)


def size_flag(value: str, option: str):
    """The ``Bytes`` of a size flag.  The one size flag is vLLM's ``--kv-cache-memory-bytes``, which vLLM reads with
    ``human_readable_int`` (0.29.0 engine/arg_utils.py, ``human_readable_int_args``): a plain whole number is bytes,
    as the flag's name says, and is taken so (helper rev11, 2026-12-05: it was refused as "no unit", with the
    suggestion '10000000000GiB'); a written unit is read by ``parse_bytes``, which refuses vLLM's one-letter suffixes
    (``10G``: 2^30 or 10^9?) with both readings."""
    from tpkit.units import Bytes, parse_bytes

    text = value.strip() if isinstance(value, str) else value
    if isinstance(text, str) and text.isascii() and text.isdigit():
        if 0 < int(text) < 1 << 20:  # '40' meant 40 GiB: as bytes it holds no KV block (helper nc20, session 20)
            raise PlanInputError(f"{option} {text!r} is {int(text):,} bytes (a plain number is bytes, as vLLM reads "
                                 f"it): less than one KV block, so vLLM would stop with 'No available memory for the "
                                 f"cache blocks'; write the unit, e.g. {option} {int(text)}GiB (= {int(text)} × 2^30 "
                                 f"bytes) or {int(text)}GB (= {int(text)} × 10^9 bytes)")
        return Bytes(int(text))
    return parse_bytes(value, what=option)
