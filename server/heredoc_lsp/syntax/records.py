"""Frozen slots record classes without the ``dataclasses`` module: the start-up path of ``heredoc-lsp check``.

``import dataclasses`` pulls in ``inspect`` (``ast``, ``dis``, ``tokenize``...), and every ``@dataclass`` compiles
six or more generated methods; together that was about a fifth of a ``check`` run. :func:`record` builds the same
class a ``@dataclass(frozen=True, slots=True)`` would (same ``__init__`` signature, ``__eq__``, ``__hash__``,
``__repr__``, ``__match_args__``, optional ordering, frozen assignment), compiling only ``__init__``; the other
methods are shared and compare tuples of the fields. Type checkers see it as a dataclass transform.

What it does not do: inheritance between records, ``dataclasses.fields``/``replace`` (use :func:`record_fields`
and :func:`replace_fields`).
"""

from __future__ import annotations

from operator import attrgetter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from dataclasses import field
    from typing import Any, TypeVar

    from typing_extensions import dataclass_transform

    _T = TypeVar("_T")
else:

    def dataclass_transform(**_: object) -> object:
        return lambda f: f


__all__ = ["FrozenInstanceError", "field", "record", "record_fields", "replace_fields"]

_MISSING = object()


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a record (like ``dataclasses.FrozenInstanceError``)."""


class _Field:
    __slots__ = ("compare", "default", "default_factory", "hash", "repr")

    def __init__(self, default: Any, default_factory: Any, repr: bool, compare: bool, hash: bool | None) -> None:
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare
        self.hash = compare if hash is None else hash


if not TYPE_CHECKING:

    def field(
        *,
        default: Any = _MISSING,
        default_factory: Any = _MISSING,
        repr: bool = True,
        compare: bool = True,
        hash: bool | None = None,
    ) -> Any:
        """A field's options, as ``dataclasses.field`` (the subset used here)."""
        return _Field(default, default_factory, repr, compare, hash)


def record_fields(cls: type) -> tuple[str, ...]:
    """The field names of a record class, in order."""
    names: tuple[str, ...] = cls.__match_args__  # type: ignore[attr-defined]
    return names


def replace_fields(obj: _T, **changes: Any) -> _T:
    """A copy of ``obj`` with some fields changed (``dataclasses.replace``)."""
    values = {name: getattr(obj, name) for name in record_fields(type(obj))}
    unknown = changes.keys() - values.keys()
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field {sorted(unknown)[0]!r}")
    values.update(changes)
    return type(obj)(**values)


def _frozen_setattr(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _key_getter(names: tuple[str, ...]) -> Callable[[object], tuple[Any, ...]]:
    if len(names) == 1:
        name = names[0]
        return lambda obj: (getattr(obj, name),)
    if not names:
        return lambda obj: ()
    getter: Callable[[object], tuple[Any, ...]] = attrgetter(*names)
    return getter


def _methods(names: tuple[str, ...], specs: dict[str, _Field], eq: bool, order: bool) -> dict[str, Any]:
    compared = _key_getter(tuple(n for n in names if specs[n].compare))
    hashed = _key_getter(tuple(n for n in names if specs[n].hash))
    shown = tuple(n for n in names if specs[n].repr)

    def __repr__(self: object) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in shown)
        return f"{type(self).__qualname__}({inner})"

    def __getstate__(self: object) -> list[Any]:
        return [getattr(self, n) for n in names]

    def __setstate__(self: object, state: list[Any]) -> None:
        for n, v in zip(names, state, strict=True):
            object.__setattr__(self, n, v)

    out: dict[str, Any] = {
        "__repr__": __repr__,
        "__getstate__": __getstate__,
        "__setstate__": __setstate__,
        "__setattr__": _frozen_setattr,
        "__delattr__": _frozen_delattr,
    }
    if eq:

        def __eq__(self: object, other: object) -> bool:
            if other.__class__ is self.__class__:
                return compared(self) == compared(other)
            return NotImplemented

        def __hash__(self: object) -> int:
            return hash(hashed(self))

        out["__eq__"] = __eq__
        out["__hash__"] = __hash__
    if order:

        def __lt__(self: object, other: object) -> bool:
            if other.__class__ is self.__class__:
                return compared(self) < compared(other)
            return NotImplemented

        def __le__(self: object, other: object) -> bool:
            if other.__class__ is self.__class__:
                return compared(self) <= compared(other)
            return NotImplemented

        def __gt__(self: object, other: object) -> bool:
            if other.__class__ is self.__class__:
                return compared(self) > compared(other)
            return NotImplemented

        def __ge__(self: object, other: object) -> bool:
            if other.__class__ is self.__class__:
                return compared(self) >= compared(other)
            return NotImplemented

        out.update(__lt__=__lt__, __le__=__le__, __gt__=__gt__, __ge__=__ge__)
    return out


def _build(cls: type, eq: bool, order: bool) -> type:
    if any(hasattr(base, "__record_fields__") for base in cls.__mro__[1:]):
        raise TypeError(f"{cls.__name__}: records cannot inherit from records")
    namespace = dict(cls.__dict__)
    annotations: dict[str, Any] = namespace.get("__annotations__", {})
    names = tuple(n for n, a in annotations.items() if not str(a).startswith(("ClassVar", "typing.ClassVar")))
    specs: dict[str, _Field] = {}
    seen_default = False
    for name in names:
        value = namespace.pop(name, _MISSING)
        spec = specs[name] = value if isinstance(value, _Field) else _Field(value, _MISSING, True, True, None)
        has_default = spec.default is not _MISSING or spec.default_factory is not _MISSING
        if seen_default and not has_default:
            raise TypeError(f"{cls.__name__}: non-default field {name!r} follows a default one")
        seen_default = seen_default or has_default
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    namespace["__slots__"] = names
    namespace["__match_args__"] = names
    namespace["__record_fields__"] = names
    namespace.update(_methods(names, specs, eq, order))
    new_cls = type(cls)(cls.__name__, cls.__bases__, namespace)
    new_cls.__qualname__ = cls.__qualname__

    new_cls.__init__ = _first_init(new_cls, names, specs)  # type: ignore[misc]
    return new_cls


# Calls of the plain __init__ before the class gets its compiled one. Compiling costs about 0.1 ms per class (the
# first compile of a process over 1 ms): most records are never built by a ``check`` run, or only once or twice.
_COMPILE_AFTER = 8


def _first_init(cls: type, names: tuple[str, ...], specs: dict[str, _Field]) -> Callable[..., None]:
    """An ``__init__`` that binds arguments itself (no compiling) and, once the class is used more, replaces
    itself with a compiled one."""
    setters = tuple(getattr(cls, name).__set__ for name in names)
    index = {name: k for k, name in enumerate(names)}
    calls = 0

    def __init__(self: object, *args: Any, **kwargs: Any) -> None:
        nonlocal calls
        calls += 1
        if calls >= _COMPILE_AFTER and cls.__dict__.get("__init__") is __init__:
            cls.__init__ = _compiled_init(cls, names, specs)  # type: ignore[misc]
        if len(args) > len(names):
            raise TypeError(f"{cls.__name__}() takes {len(names)} positional arguments but {len(args)} were given")
        values = list(args) + [_MISSING] * (len(names) - len(args))
        for key, value in kwargs.items():
            k = index.get(key)
            if k is None:
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {key!r}")
            if k < len(args):
                raise TypeError(f"{cls.__name__}() got multiple values for argument {key!r}")
            values[k] = value
        for k, value in enumerate(values):
            if value is _MISSING:
                spec = specs[names[k]]
                if spec.default_factory is not _MISSING:
                    value = spec.default_factory()
                elif spec.default is not _MISSING:
                    value = spec.default
                else:
                    raise TypeError(f"{cls.__name__}() missing required argument: {names[k]!r}")
            setters[k](self, value)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__module__ = cls.__module__
    return __init__


def _compiled_init(cls: type, names: tuple[str, ...], specs: dict[str, _Field]) -> Callable[..., None]:
    """The ``__init__`` a dataclass would have, compiled; it fills the slot descriptors directly (the frozen
    ``__setattr__`` is bypassed the way dataclasses bypass it, only cheaper than ``object.__setattr__`` by name)."""
    scope: dict[str, Any] = {"_MISSING": _MISSING}
    params: list[str] = []
    body: list[str] = []
    for name in names:
        spec = specs[name]
        scope[f"_set_{name}"] = getattr(cls, name).__set__
        if spec.default_factory is not _MISSING:
            scope[f"_factory_{name}"] = spec.default_factory
            params.append(f"{name}=_MISSING")
            body.append(f" _set_{name}(self, _factory_{name}() if {name} is _MISSING else {name})")
            continue
        if spec.default is not _MISSING:
            scope[f"_default_{name}"] = spec.default
            params.append(f"{name}=_default_{name}")
        else:
            params.append(name)
        body.append(f" _set_{name}(self, {name})")
    source = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or " pass") + "\n"
    exec(source, scope)
    init: Callable[..., None] = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: type[_T] | None = None, /, *, eq: bool = True, order: bool = False) -> Any:
    """``@record`` / ``@record(eq=False)`` / ``@record(order=True)``: a frozen slots record class."""

    def wrap(c: type[_T]) -> type[_T]:
        built: type[_T] = _build(c, eq, order)
        return built

    return wrap if cls is None else wrap(cls)
