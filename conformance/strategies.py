"""Hypothesis strategies for the whole suite: dtypes, shapes, arrays and pytrees. Defined once, here."""

from __future__ import annotations

import math
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from conformance.dtype_rules import dtype

# --- dtypes --------------------------------------------------------------------------------------

BOOL = (dtype("bool"),)
UNSIGNED = tuple(dtype(n) for n in ("uint8", "uint16", "uint32", "uint64"))
SIGNED = tuple(dtype(n) for n in ("int8", "int16", "int32", "int64"))
INTEGER = UNSIGNED + SIGNED
FLOATING = tuple(dtype(n) for n in ("bfloat16", "float16", "float32", "float64"))
COMPLEX = tuple(dtype(n) for n in ("complex64", "complex128"))
INEXACT = FLOATING + COMPLEX
NUMBER = INTEGER + INEXACT
ALL = BOOL + NUMBER


def dtypes(*groups: Sequence[np.dtype]) -> st.SearchStrategy[np.dtype]:
    """One dtype out of the given groups (all 15 dtypes when none are given)."""
    chosen = [d for group in (groups or (ALL,)) for d in group]
    return st.sampled_from(chosen)


# --- shapes --------------------------------------------------------------------------------------


def shapes(
    min_dims: int = 0, max_dims: int = 3, min_side: int = 1, max_side: int = 4
) -> st.SearchStrategy[tuple[int, ...]]:
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def broadcastable_shapes(
    num_shapes: int = 2, max_dims: int = 3, min_side: int = 0, max_side: int = 4
) -> st.SearchStrategy[tuple[tuple[int, ...], ...]]:
    """Shapes that broadcast together (NumPy rules), e.g. ((3, 1), (4,))."""
    return hnp.mutually_broadcastable_shapes(
        num_shapes=num_shapes, min_dims=0, max_dims=max_dims, min_side=min_side, max_side=max_side
    ).map(lambda b: b.input_shapes)


def axes(ndim: int, *, allow_none: bool = True, allow_tuple: bool = True) -> st.SearchStrategy:
    """An `axis=` argument: None, an int (maybe negative), or a tuple of distinct ints."""
    options: list[st.SearchStrategy] = []
    if allow_none:
        options.append(st.none())
    if ndim:
        options.append(st.integers(-ndim, ndim - 1))
        if allow_tuple:
            options.append(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple))
    return st.one_of(options) if options else st.none()


# --- values --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Domain:
    """Where an operation's inputs are drawn: [low, high], maybe avoiding zero (|x| >= min_abs), maybe
    on a grid of multiples of `grid` (exact in every float type, for discontinuous functions)."""

    low: float = -10.0
    high: float = 10.0
    min_abs: float = 0.0
    grid: float | None = None


DEFAULT = Domain()


def elements(dt: np.dtype, domain: Domain = DEFAULT) -> st.SearchStrategy:
    """Python numbers of `dt`'s kind inside `domain` (clipped to the range of an integer dtype)."""
    if dt.kind == "b":
        return st.just(True) if domain.min_abs > 0 else st.booleans()
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(math.ceil(domain.low), int(info.min)), min(math.floor(domain.high), int(info.max))
        ints = st.integers(lo, hi)
        return ints.filter(lambda v: abs(v) >= domain.min_abs) if domain.min_abs else ints
    reals = _reals(domain)
    if dt.kind == "c":
        parts = _reals(Domain(domain.low, domain.high, grid=domain.grid))
        values = st.builds(complex, parts, parts)
        return values.filter(lambda v: abs(v) >= domain.min_abs) if domain.min_abs else values
    return reals


def _reals(domain: Domain) -> st.SearchStrategy[float]:
    if domain.grid:
        lo, hi = math.ceil(domain.low / domain.grid), math.floor(domain.high / domain.grid)
        values = st.integers(lo, hi).map(lambda k: k * domain.grid)
    else:
        values = st.floats(domain.low, domain.high, allow_nan=False, allow_subnormal=False)
    return values.filter(lambda v: abs(v) >= domain.min_abs) if domain.min_abs else values


def arrays(
    dt: np.dtype, shape: tuple[int, ...] | st.SearchStrategy, domain: Domain = DEFAULT
) -> st.SearchStrategy[np.ndarray]:
    """NumPy arrays of dtype `dt` (bfloat16 included) with values in `domain`.

    Values are drawn in a wide carrier type and converted, so every input is exactly representable
    and the oracle sees the same numbers as the implementation.
    """
    carrier = {"b": np.bool_, "i": np.int64, "u": np.uint64, "c": np.complex128}.get(dt.kind, np.float64)
    return hnp.arrays(carrier, shape, elements=elements(dt, domain)).map(lambda a: a.astype(dt))


def dtype_and_array(
    groups: Sequence[Sequence[np.dtype]],
    shape: st.SearchStrategy | tuple[int, ...] | None = None,
    domain: Domain = DEFAULT,
) -> st.SearchStrategy[np.ndarray]:
    """An array whose dtype is drawn from `groups` and whose shape from `shape` (default: shapes())."""
    shape = shapes() if shape is None else shape
    return dtypes(*groups).flatmap(lambda d: arrays(d, shape, domain))


# --- pytrees -------------------------------------------------------------------------------------

Point = namedtuple("Point", ["x", "y"])


class Opaque:
    """An instance of an unregistered class: a leaf."""

    def __init__(self, tag: int) -> None:
        self.tag = tag

    def __repr__(self) -> str:
        return f"Opaque({self.tag})"


def leaves() -> st.SearchStrategy:
    """Leaf values of several types; none is None (None is an empty node)."""
    return st.one_of(
        st.integers(-5, 5),
        st.floats(-5, 5, allow_nan=False),
        st.text("xyz", max_size=2),
        st.builds(Opaque, st.integers(0, 9)),
        arrays(dtype("float32"), shapes(max_dims=1, max_side=2)),
    )


NodeBuilder = Callable[[st.SearchStrategy], st.SearchStrategy]


def pytrees(
    leaf: st.SearchStrategy | None = None, extra_nodes: Sequence[NodeBuilder] = (), max_leaves: int = 10
) -> st.SearchStrategy:
    """Nested lists, tuples, dicts (str keys), OrderedDicts, namedtuples, None and any `extra_nodes`
    (functions from a child strategy to a node strategy, for custom registered classes)."""
    keys = st.text("abcde", min_size=1, max_size=2)

    def nodes(children: st.SearchStrategy) -> st.SearchStrategy:
        options = [
            st.lists(children, max_size=3),
            st.lists(children, max_size=3).map(tuple),
            st.dictionaries(keys, children, max_size=3),
            # hypothesis inserts keys in no particular order, which is what OrderedDict tests need
            st.dictionaries(keys, children, max_size=3).map(lambda d: OrderedDict(d.items())),
            st.builds(Point, children, children),
        ]
        options += [build(children) for build in extra_nodes]
        return st.one_of(options)

    base = st.one_of(st.none(), leaf if leaf is not None else leaves())
    return st.recursive(base, nodes, max_leaves=max_leaves)
