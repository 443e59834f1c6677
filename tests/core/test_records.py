"""``tpkit.records.dataclass``: the standard dataclass, its generated methods compiled on first use.

Two checks: every tpkit dataclass, built in one interpreter with the methods deferred and in another with the
standard decorator, has the same fields, parameters, doc, slots and — once each method is looked up — the same
generated code; and a few classes written here behave alike both ways (init, repr, eq, hash, frozen assignment,
replace, pickling, signature, inheritance, the definition-time error).
"""

import dataclasses
import inspect
import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from tpkit import records

SRC = Path(__file__).resolve().parents[2] / "src"
METHODS = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")

_DUMP = r"""
import dataclasses, importlib, json, pkgutil, sys
import tpkit, tpkit.records
tpkit.records.DEFERRED = sys.argv[1] == "deferred"
skip = ("tpkit.__main__", "tpkit.runtime", "tpkit.comm.backends", "tpkit.comm.allreduce", "tpkit.cli.bench",
        "tpkit.cli.probe")
names = sorted(m.name for m in pkgutil.walk_packages(tpkit.__path__, "tpkit.") if not m.name.startswith(skip))
for name in names:
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:  # a machine without the GPU extras: those modules are left out alike
        if (exc.name or "").split(".")[0] not in ("torch", "triton", "pynvml"):
            raise

def code(outer):
    fn = getattr(outer, "__wrapped__", outer)  # __repr__: dataclasses' recursion guard around the generated one
    if not hasattr(fn, "__code__"):
        return repr(fn)
    c = fn.__code__
    cells = [repr(x.cell_contents) for x in (fn.__closure__ or ())]
    return [c.co_code.hex(), repr(c.co_consts), c.co_names, c.co_varnames, c.co_freevars, fn.__qualname__,
            repr(fn.__defaults__), repr(fn.__kwdefaults__), cells, fn.__module__, outer.__qualname__]

def field(f):
    factory = f.default_factory
    return [f.name, repr(f.type), repr(f.default) if f.default is not dataclasses.MISSING else None,
            getattr(factory, "__qualname__", None) if factory is not dataclasses.MISSING else None,
            f.init, f.repr, f.hash, f.compare, f.kw_only, repr(dict(f.metadata))]

out = {}
for name in names:
    mod = sys.modules.get(name)
    if mod is None:
        continue
    for cls in vars(mod).values():
        if not (isinstance(cls, type) and cls.__module__ == name and "__dataclass_fields__" in vars(cls)):
            continue
        row = {"params": repr(cls.__dataclass_params__), "doc": cls.__doc__, "slots": repr(vars(cls).get("__slots__")),
               "match": repr(getattr(cls, "__match_args__", None)), "keys": sorted(vars(cls)),
               "fields": [field(f) for f in dataclasses.fields(cls)]}
        for m in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
            row[m] = code(getattr(cls, m))
        row["keys_after"] = sorted(vars(cls))
        out[f"{name}.{cls.__qualname__}"] = row
print(json.dumps(out))
"""


def _dump(mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _DUMP, mode], capture_output=True, text=True,
                          env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin",
                               "PYTHONHASHSEED": "0"})  # 3.12 writes frozensets in the generated code
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.mark.skipif(not records.DEFERRED, reason="methods are deferred on CPython 3.11 and 3.12 only")
def test_every_tpkit_dataclass_is_what_the_standard_decorator_makes():
    deferred, standard = _dump("deferred"), _dump("standard")
    assert len(standard) > 140  # every module was imported (149 classes on 2026-12-04)
    assert deferred.keys() == standard.keys()
    differ = {name: [k for k in standard[name] if standard[name][k] != deferred[name][k]] for name in standard}
    assert {n: d for n, d in differ.items() if d} == {}


def _classes(decorator):
    @decorator(frozen=True, kw_only=True, slots=True)
    class Point:
        """a point"""

        x: int
        y: int = 2
        tags: list = dataclasses.field(default_factory=list, compare=False)

    @decorator(frozen=True, kw_only=True, slots=True)
    class Point3(Point):
        """a point in space"""

        z: int = 0

    @decorator
    class Plain:
        a: int
        b: str = "b"

    return Point, Point3, Plain


@records.dataclass(frozen=True, kw_only=True, slots=True)
class SavedDeferred:
    v: list


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class SavedStandard:
    v: list


_SAVED = {records.dataclass: SavedDeferred, dataclasses.dataclass: SavedStandard}
"""module-level classes (pickle finds a class by its module and name)"""


@pytest.mark.parametrize("decorator", [records.dataclass, dataclasses.dataclass], ids=["deferred", "standard"])
def test_behaviour_matches_the_standard_dataclass(decorator):
    Point, Point3, Plain = _classes(decorator)
    p = Point(x=1)
    assert repr(p) == "_classes.<locals>.Point(x=1, y=2, tags=[])"
    assert p == Point(x=1, tags=[3]) and p != Point(x=2) and hash(p) == hash(Point(x=1))
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'x'"):
        p.x = 3
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'y'"):
        del p.y
    with pytest.raises(TypeError, match="unexpected keyword argument 'w'"):
        Point(x=1, w=2)
    with pytest.raises(TypeError, match="takes 1 positional argument"):
        Point(1)
    assert dataclasses.replace(p, y=5) == Point(x=1, y=5)
    saved = _SAVED[decorator]
    assert pickle.loads(pickle.dumps(saved(v=[1]))) == saved(v=[1])
    assert str(inspect.signature(Point3)) == "(*, x: int, y: int = 2, tags: list = <factory>, z: int = 0) -> None"
    assert Point3(x=1) != Point(x=1) and repr(Point3(x=1)).endswith("Point3(x=1, y=2, tags=[], z=0)")
    assert dataclasses.asdict(Point3(x=1)) == {"x": 1, "y": 2, "tags": [], "z": 0}
    assert Plain(1).b == "b" and Plain(1) == Plain(1, "b") and Plain.__doc__ == "Plain(a: int, b: str = 'b')"
    q = Plain(1)
    q.a = 5
    assert repr(q) == "_classes.<locals>.Plain(a=5, b='b')"
    assert Plain.__hash__ is None
    with pytest.raises(TypeError, match="non-default argument 'c' follows default argument"):
        @decorator
        class Bad:
            b: int = 1
            c: int


@pytest.mark.skipif(not records.DEFERRED, reason="methods are deferred on CPython 3.11 and 3.12 only")
def test_a_method_is_made_on_first_use_then_is_the_standard_function():
    Point, Point3, _ = _classes(records.dataclass)
    assert type(vars(Point)["__repr__"]).__name__ == "_Deferred"
    Point3(x=1)  # the subclass's own __init__ is made; the base's is not needed
    assert type(vars(Point3)["__init__"]).__name__ == "function"
    assert type(vars(Point)["__init__"]).__name__ == "_Deferred"
    assert Point.__init__.__qualname__ == "_classes.<locals>.Point.__init__"
    assert type(vars(Point)["__init__"]).__name__ == "function"
    assert dataclasses.dataclass is records._STANDARD  # the decorator leaves dataclasses as it found it
