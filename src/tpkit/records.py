"""``dataclass`` whose generated methods are compiled on first use: the same classes, a cheaper import.

``dataclasses.dataclass`` writes the text of ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``
and ``__delattr__`` for each class and compiles it with ``exec`` when the class is created: about 0.5–0.8 ms a
frozen class on the 2-core helper machine; ``tpkit perf`` creates 46 classes, 36 ms of the 85 ms of CPU its run took
in-process with bytecode (``docs/benchmarks.md`` §1.1, "Deferred dataclass methods"). A command uses few of them:
most classes are never compared, printed or assigned to, and many are never built. ``dataclass`` below runs the
standard decorator unchanged except that each of those methods is first a stand-in (``_Deferred``) holding the call
that makes it; the first time the method is looked up — on an instance or on the class — the standard function is
made by that same call and put in place of the stand-in, so from then on the class is what ``dataclasses`` would
have made (same code, same ``__qualname__``, same ``__dataclass_fields__`` / ``__dataclass_params__``, ``fields``,
``replace``, ``asdict``, ``inspect.signature``, pickling).

It relies on the module-level helpers that CPython 3.11 and 3.12 ``dataclasses._process_class`` calls by name
(``_init_fn``, ``_repr_fn``, ``_cmp_fn``, ``_hash_fn``, ``_frozen_get_del_attr``); on any other version, or if one
is missing, it is the standard decorator. ``tests/core/test_records.py`` builds every tpkit dataclass both ways and
compares the generated code. Imports nothing from tpkit (layer 0, beside ``lazy``).
"""

from __future__ import annotations

import _thread
import dataclasses
import sys
from types import FunctionType, MethodType

__all__ = ["dataclass", "DEFERRED"]

_MAKERS = ("_init_fn", "_repr_fn", "_cmp_fn", "_hash_fn", "_frozen_get_del_attr")
DEFERRED = sys.version_info[:2] in ((3, 11), (3, 12)) and all(hasattr(dataclasses, n) for n in _MAKERS)
"""whether methods are deferred on this Python (else ``dataclass`` is ``dataclasses.dataclass``)"""

_LOCK = _thread.RLock()  # _thread: the lock without importing threading
_STANDARD = dataclasses.dataclass


class _Deferred:
    """A generated method not made yet: ``make()`` returns it (the standard function)."""

    __slots__ = ("__name__", "_make", "_fn")

    def __init__(self, name: str, make) -> None:
        self.__name__ = name
        self._make = make
        self._fn = None

    def _real(self, owner: type | None):
        """The standard function, made once; put in place of this stand-in on ``owner`` (the class whose
        ``__dict__`` holds it) with the ``__qualname__`` ``dataclasses._set_qualname`` gives."""
        fn = self._fn
        if fn is None:  # two threads at once may both make it: the same function twice, either one kept
            fn = self._fn = self._make()
        if owner is not None and owner.__dict__.get(self.__name__) is self:
            if isinstance(fn, FunctionType):
                fn.__qualname__ = f"{owner.__qualname__}.{fn.__name__}"
            setattr(owner, self.__name__, fn)
        return fn

    def __get__(self, obj, objtype=None):
        cls = type(obj) if obj is not None else objtype
        owner = next((c for c in (cls.__mro__ if cls is not None else ()) if c.__dict__.get(self.__name__) is self),
                     None)
        fn = self._real(owner)
        return fn if obj is None else MethodType(fn, obj)

    def __call__(self, *args, **kwargs):
        return self._real(None)(*args, **kwargs)


def _deferring(name_of, original):
    """``original`` (one of ``dataclasses``' method makers) with its result deferred."""

    def maker(*args, **kwargs):
        return _Deferred(name_of(args), lambda: original(*args, **kwargs))

    return maker


def _init_fn(original):
    def maker(fields, std_fields, *args, **kwargs):
        # the check ``_init_fn`` makes before writing the text, kept at class creation as there
        seen_default = False
        for f in std_fields:
            if f.init:
                if not (f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING):
                    seen_default = True
                elif seen_default:
                    raise TypeError(f"non-default argument {f.name!r} follows default argument")
        return _Deferred("__init__", lambda: original(fields, std_fields, *args, **kwargs))

    return maker


def _frozen_pair(original):
    def maker(*args, **kwargs):
        pair: list = []

        def made(i: int):
            if not pair:
                pair.extend(original(*args, **kwargs))
            return pair[i]

        return (_Deferred("__setattr__", lambda: made(0)), _Deferred("__delattr__", lambda: made(1)))

    return maker


_PATCH = {
    "_init_fn": _init_fn,
    "_repr_fn": lambda original: _deferring(lambda a: "__repr__", original),
    "_cmp_fn": lambda original: _deferring(lambda a: a[0], original),
    "_hash_fn": lambda original: _deferring(lambda a: "__hash__", original),
    "_frozen_get_del_attr": _frozen_pair,
}


def dataclass(cls=None, /, **kwargs):
    """``dataclasses.dataclass(cls, **kwargs)`` with the generated methods compiled on first use."""
    if not DEFERRED:
        return _STANDARD(cls, **kwargs)

    def wrap(c):
        with _LOCK:
            saved = {n: getattr(dataclasses, n) for n in _PATCH}
            try:
                for n, patch in _PATCH.items():
                    setattr(dataclasses, n, patch(saved[n]))
                return _STANDARD(**kwargs)(c)
            finally:
                for n, fn in saved.items():
                    setattr(dataclasses, n, fn)

    return wrap if cls is None else wrap(cls)
