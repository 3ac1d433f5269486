"""syntax.records (frozen slots classes without dataclasses) behaves like @dataclass(frozen=True, slots=True);
syntax.lazy_re patterns behave like compiled ones."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import re

import pytest

from heredoc_lsp.config.model import DEFAULT_CONFIG, Config, ExecutorSettings
from heredoc_lsp.syntax.diagnostics import Diagnostic, Severity, Span, error
from heredoc_lsp.syntax.lazy_re import lazy_compile
from heredoc_lsp.syntax.records import FrozenInstanceError, field, record, record_fields, replace_fields


@record(order=True)
class Point:
    x: int
    y: int = 0


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class DataPoint:
    x: int
    y: int = 0


@record
class Holder:
    name: str
    tags: list[str] = field(default_factory=list)
    note: str = field(default="", compare=False, repr=False)


def test_same_methods_as_a_frozen_slots_dataclass() -> None:
    p, d = Point(1, 2), DataPoint(1, 2)
    assert repr(p) == repr(d).replace("DataPoint", "Point")
    assert p == Point(1, 2) and p != Point(2, 1) and p != d
    assert hash(p) == hash(Point(1, 2))
    assert sorted([Point(2, 0), Point(1, 5), Point(1, 2)]) == [Point(1, 2), Point(1, 5), Point(2, 0)]
    assert Point.__match_args__ == DataPoint.__match_args__ == ("x", "y")
    assert Point.__slots__ == ("x", "y")
    assert not hasattr(p, "__dict__")
    assert Point(3) == Point(3, 0) == Point(x=3, y=0)


def test_frozen() -> None:
    p = Point(1, 2)
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'x'"):
        p.x = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del p.y  # type: ignore[misc]
    assert p == Point(1, 2)


def test_field_options() -> None:
    a, b = Holder("a"), Holder("a")
    assert a.tags == [] and a.tags is not b.tags
    assert Holder("a", [], "x") == Holder("a", [], "y")
    assert repr(Holder("a", ["t"], "secret")) == "Holder(name='a', tags=['t'])"
    with pytest.raises(TypeError):
        hash(a)  # a list field: unhashable, as with dataclasses


def test_copy_pickle_replace() -> None:
    d = error(Span(1, 2, 1, 5), "code", "message", data={"marker": "EOF"})
    assert copy.copy(d) == d and copy.deepcopy(d) == d
    back = pickle.loads(pickle.dumps(d))
    assert back == d and back.data == {"marker": "EOF"} and back.severity is Severity.ERROR
    assert record_fields(Diagnostic) == ("span", "severity", "code", "message", "related", "data")
    changed = replace_fields(DEFAULT_CONFIG, compat="arca-cli")
    assert changed == Config(compat="arca-cli") and DEFAULT_CONFIG.compat is None
    assert changed.executor == ExecutorSettings()
    with pytest.raises(TypeError, match="has no field 'nope'"):
        replace_fields(DEFAULT_CONFIG, nope=1)


def test_diagnostic_data_is_not_compared_or_hashed() -> None:
    a = error(Span(0, 0, 0, 1), "c", "m", data={"x": 1})
    b = error(Span(0, 0, 0, 1), "c", "m", data={"x": 2})
    assert a == b and hash(a) == hash(b)


def test_lazy_pattern_matches_like_a_compiled_one() -> None:
    lazy = lazy_compile(r"(a+)(b)?", re.IGNORECASE)
    real = re.compile(r"(a+)(b)?", re.IGNORECASE)
    for text in ("AAb", "xa", ""):
        m1, m2 = lazy.search(text), real.search(text)
        assert (m1 and m1.groups()) == (m2 and m2.groups())
    assert lazy.pattern == real.pattern and lazy.flags == real.flags
    assert lazy_compile(rb"\r\n|\n").split(b"a\r\nb\nc") == [b"a", b"b", b"c"]


@record
class Triple:
    a: int
    b: str = "b"
    c: list[int] = field(default_factory=list)


def test_plain_and_compiled_init_bind_alike() -> None:
    import heredoc_lsp.syntax.records as records

    first = Triple.__init__
    built = [Triple(1), Triple(1, "x"), Triple(1, c=[2]), Triple(a=1, b="y", c=[3])]
    for _ in range(records._COMPILE_AFTER):
        Triple(0)
    assert Triple.__init__ is not first  # now compiled
    again = [Triple(1), Triple(1, "x"), Triple(1, c=[2]), Triple(a=1, b="y", c=[3])]
    assert built == again
    assert [(t.a, t.b, t.c) for t in again] == [(1, "b", []), (1, "x", []), (1, "b", [2]), (1, "y", [3])]


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((), {}), ((1, "b", [], 4), {}), ((1,), {"a": 2}), ((1,), {"d": 2})],
)
def test_bad_arguments_raise_type_error_before_and_after_compiling(
    args: tuple[object, ...], kwargs: dict[str, object]
) -> None:
    @record
    class Fresh:
        a: int
        b: str = "b"
        c: list[int] = field(default_factory=list)

    with pytest.raises(TypeError):
        Fresh(*args, **kwargs)
    for _ in range(10):
        Fresh(0)
    with pytest.raises(TypeError):
        Fresh(*args, **kwargs)


def test_non_default_after_default_is_refused() -> None:
    with pytest.raises(TypeError, match="non-default field 'b' follows a default one"):

        @record
        class Bad:
            a: int = 0
            b: int
