"""Hypothesis strategies for the whole suite: dtypes, shapes, arrays and pytrees. Defined once, here."""

from __future__ import annotations

import math
import string
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import ml_dtypes
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
NUMBER = INTEGER + INEXACT  # everything but bool
REAL = BOOL + INTEGER + FLOATING  # everything but complex
ALL = BOOL + NUMBER


def dtypes(*groups: Sequence[np.dtype]) -> st.SearchStrategy[np.dtype]:
    """One dtype out of the given groups (all 15 dtypes when none are given)."""
    chosen = [d for group in (groups or (ALL,)) for d in group]
    return st.sampled_from(chosen)


def maybe_dtypes(*groups: Sequence[np.dtype]) -> st.SearchStrategy[np.dtype | None]:
    """A `dtype=` argument: None or one of the groups' dtypes."""
    return st.one_of(st.none(), dtypes(*groups))


Shape = tuple[int, ...]

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
    """An `axis=` argument: None, an int in [-ndim, ndim), or a tuple of ints there naming distinct
    axes (each maybe negative)."""
    options: list[st.SearchStrategy] = []
    if allow_none:
        options.append(st.none())
    if ndim:
        options.append(st.integers(-ndim, ndim - 1))
        if allow_tuple:
            options.append(
                st.lists(st.integers(-ndim, ndim - 1), unique_by=lambda a: a % ndim, max_size=ndim).map(tuple)
            )
    return st.one_of(options) if options else st.none()


def out_of_range_axes(ndim: int) -> st.SearchStrategy[int]:
    """An axis that names no axis of an `ndim`-dimensional array: below -ndim or at least ndim."""
    return st.one_of(st.integers(-ndim - 3, -ndim - 1), st.integers(ndim, ndim + 2))


def maybe_negative(data: st.DataObject, axis: int, ndim: int, label: str = "negative") -> int:
    """`axis` (in [0, ndim)) or the same axis counted from the end."""
    return axis - ndim if data.draw(st.booleans(), label=label) else axis


def sorted_axes(ndim: int) -> st.SearchStrategy[tuple[int, ...]]:
    """A lax `axes=` argument: distinct non-negative axes in increasing order."""
    if ndim == 0:
        return st.just(())
    return st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(lambda a: tuple(sorted(a)))


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


@st.composite
def reshapes(draw: st.DrawFn, minus_one: bool = True) -> tuple[Shape, Shape]:
    """(shape, new shape) of the same size; with `minus_one`, the new shape may hold one -1 and 1s."""
    shape = draw(shapes(min_side=1), label="shape")
    rest, new = math.prod(shape), []
    while rest > 1 and len(new) < 3:
        new.append(draw(st.sampled_from(_divisors(rest)[1:]), label="new size"))
        rest //= new[-1]
    new += [rest] if rest > 1 else []
    if minus_one:
        new += [1] * draw(st.integers(0, 1), label="extra 1s")
        new = list(draw(st.permutations(new)))
        if new and draw(st.booleans(), label="use -1"):
            new[draw(st.integers(0, len(new) - 1))] = -1
    return shape, tuple(new)


@st.composite
def dot_shapes(draw: st.DrawFn) -> tuple[Shape, Shape]:
    """Shapes np.dot accepts: a scalar with anything, or a's last axis against b's second-to-last
    (its only axis when b is 1-D)."""
    ra, rb = draw(st.integers(0, 3), label="ndim a"), draw(st.integers(0, 3), label="ndim b")
    side = st.integers(1, 3)
    if ra == 0 or rb == 0:
        return draw(shapes(ra, ra, max_side=3)), draw(shapes(rb, rb, max_side=3))
    k = draw(side, label="contracted size")
    a = tuple(draw(side) for _ in range(ra - 1)) + (k,)
    b = (k,) if rb == 1 else tuple(draw(side) for _ in range(rb - 2)) + (k, draw(side))
    return a, b


def matmul_shapes() -> st.SearchStrategy[tuple[Shape, Shape]]:
    """Shapes np.matmul accepts: 1-D or matrices, with broadcast batch dimensions."""
    signature = np.matmul.signature
    return hnp.mutually_broadcastable_shapes(signature=signature, max_dims=4, max_side=3).map(
        lambda b: b.input_shapes
    )


@st.composite
def broadcast_in_dim_cases(draw: st.DrawFn) -> tuple[Shape, Shape, tuple[int, ...]]:
    """(operand shape, target shape, broadcast_dimensions): operand dims land, in order, on target
    dims of the same size, or of any size where the operand's is 1."""
    operand = draw(shapes(max_dims=2, max_side=3), label="operand shape")
    out_ndim = len(operand) + draw(st.integers(0, 2), label="new dims")
    dims = tuple(sorted(draw(st.permutations(range(out_ndim)))[: len(operand)]))
    target = [draw(st.integers(0, 3)) for _ in range(out_ndim)]
    for size, d in zip(operand, dims):
        target[d] = size if size != 1 else draw(st.integers(1, 3))
    return operand, tuple(target), dims


@st.composite
def pad_configs(draw: st.DrawFn, shape: Shape) -> list[tuple[int, int, int]]:
    """lax.pad's (low, high, interior) per axis; low and high may be negative, but never cut more
    elements than the (interior-spread) axis has."""
    config = []
    for n in shape:
        interior = draw(st.integers(0, 2))
        spread = n + max(n - 1, 0) * interior
        low = draw(st.integers(-spread, 2))
        high = draw(st.integers(-(spread + min(low, 0)), 2))
        config.append((low, high, interior))
    return config


@st.composite
def dot_general_cases(draw: st.DrawFn) -> tuple[Shape, Shape, tuple, str]:
    """(lhs shape, rhs shape, dimension numbers, the equivalent einsum formula), with batch,
    contracting and free dimensions in shuffled places."""
    letters = iter(string.ascii_lowercase)

    def dims(count: int, low: int) -> list[tuple[str, int]]:
        return [(next(letters), draw(st.integers(low, 3))) for _ in range(count)]

    batch, contract = dims(draw(st.integers(0, 1)), 1), dims(draw(st.integers(0, 2)), 0)
    free_l, free_r = dims(draw(st.integers(0, 1)), 1), dims(draw(st.integers(0, 1)), 1)
    lhs, rhs = (
        draw(st.permutations(batch + contract + free_l)),
        draw(st.permutations(batch + contract + free_r)),
    )
    where_l = {name: i for i, (name, _) in enumerate(lhs)}
    where_r = {name: i for i, (name, _) in enumerate(rhs)}
    numbers = (
        (tuple(where_l[c] for c, _ in contract), tuple(where_r[c] for c, _ in contract)),
        (tuple(where_l[b] for b, _ in batch), tuple(where_r[b] for b, _ in batch)),
    )
    out = "".join(n for n, _ in batch + free_l + free_r)  # lax's output order
    formula = f"{''.join(n for n, _ in lhs)},{''.join(n for n, _ in rhs)}->{out}"
    return tuple(s for _, s in lhs), tuple(s for _, s in rhs), numbers, formula


# --- values --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Domain:
    """Where an operation's inputs are drawn: [low, high], maybe avoiding zero (|x| >= min_abs), maybe
    on a grid of multiples of `grid` (exact in every float type, for discontinuous functions)."""

    low: float = -10.0
    high: float = 10.0
    min_abs: float = 0.0
    grid: float | None = None
    signed_zeros: bool = False  # real floats: -0.0 as well as 0.0 (where JAX defines which one wins)


DEFAULT = Domain()
SMALL = Domain(-5, 5)  # products and sums of a few of these stay small
WIDE = Domain(-100, 100)  # integers overflow (and wrap) in int8 sums and products
NONZERO = Domain(-10, 10, min_abs=0.1)  # divisors
TIES = Domain(-4, 4, grid=0.5)  # equal values are likely: comparisons, max, min
SIGNED_TIES = Domain(-4, 4, grid=0.5, signed_zeros=True)  # max and min: -0.0 < 0.0 in XLA
GRID = Domain(-8, 8, grid=0.25)  # exact in every float type: floor division, remainder, arange
GRID_NONZERO = Domain(-8, 8, min_abs=0.25, grid=0.25)


def elements(dt: np.dtype, domain: Domain = DEFAULT) -> st.SearchStrategy:
    """Python numbers of `dt`'s kind inside `domain` (clipped to the range of an integer dtype)."""
    if dt.kind == "b":
        return st.sampled_from(
            [v for v in (False, True) if domain.low <= v <= domain.high and v >= domain.min_abs]
        )
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(math.ceil(domain.low), int(info.min)), min(math.floor(domain.high), int(info.max))
        ints = st.integers(lo, hi)
        return ints.filter(lambda v: abs(v) >= domain.min_abs) if domain.min_abs else ints
    # Values that would be subnormal in `dt` become 0: XLA may flush subnormals to zero, and
    # what a function does with them is not what this suite is about.
    tiny = _smallest_normal(dt)
    if dt.kind == "c":
        parts = _reals(Domain(domain.low, domain.high, grid=domain.grid), tiny)
        values = st.builds(complex, parts, parts)
        return values.filter(lambda v: abs(v) >= domain.min_abs) if domain.min_abs else values
    return _reals(domain, tiny)


def _smallest_normal(dt: np.dtype) -> float:
    """float32's for 64-bit types too: while x64 is off they are stored as 32-bit ones."""
    real = {"complex64": np.float32, "complex128": np.float32, "float64": np.float32}.get(dt.name, dt)
    return float(ml_dtypes.finfo(real).tiny)


def _reals(domain: Domain, tiny: float) -> st.SearchStrategy[float]:
    if domain.grid:
        lo, hi = math.ceil(domain.low / domain.grid), math.floor(domain.high / domain.grid)
        values = st.integers(lo, hi).map(lambda k: k * domain.grid)
    else:
        values = st.floats(domain.low, domain.high, allow_nan=False)
        values = values.map(lambda v: 0.0 if abs(v) < 2 * tiny else v)
    if domain.signed_zeros:  # half the draws a zero of either sign, so that zeros meet often
        values = st.one_of(st.sampled_from([0.0, -0.0]), values)
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


# --- weakly typed operands ------------------------------------------------------------------------


@dataclass(frozen=True)
class WeakArray:
    """The implementation's weakly typed array of one Python scalar: `jnp.asarray(value)` for shape
    (), else `jnp.full(shape, value)`; weak like the scalar it holds (JAX's rule for arrays made from
    Python scalars), so the promotion table treats it as the scalar's weak code."""

    value: int | float | complex
    shape: Shape

    def make(self, jnp: Any) -> Any:
        return jnp.asarray(self.value) if self.shape == () else jnp.full(self.shape, self.value)

    def program_source(self) -> str:
        """How a reproducing program makes it (reproduce.literal asks)."""
        value = repr(self.value)
        if isinstance(self.value, complex):
            value = f"complex({self.value.real!r}, {self.value.imag!r})"
        return f"jnp.asarray({value})" if self.shape == () else f"jnp.full({self.shape!r}, {value})"


# A binary operand: a NumPy array (strongly typed), a Python int, float or complex, or a WeakArray.
Operand = Any
# How an operand is drawn: mostly the array itself; one draw in five a weakly typed one.
OPERAND_FORMS = ("array",) * 8 + ("python scalar", "weak array")


@st.composite
def maybe_weak(draw: st.DrawFn, x: np.ndarray, x64: bool, python_scalar: bool = True) -> Operand:
    """`x`, or now and then (one draw in five) a weakly typed operand in its place: a Python scalar
    of x's kind (which broadcasts as shape ()) or the implementation's WeakArray of it in x's shape.
    Its value is one of x's, so it lies in the test's domain; a Python int is first wrapped into the
    default int (a larger one is JAX's OverflowError, not what these tests are about). Bool arrays
    stay as they are (a Python bool is not weak), and so do empty ones (they hold no value)."""
    form = draw(st.sampled_from(OPERAND_FORMS), label="operand form")
    if form == "array" or x.dtype.kind == "b" or x.size == 0:
        return x
    element = x.flat[draw(st.integers(0, x.size - 1), label="the weak value's index")]
    if x.dtype.kind in "iu":
        value: int | float | complex = int(np.asarray(element).astype(np.int64 if x64 else np.int32))
    else:
        value = complex(element) if x.dtype.kind == "c" else float(element)
    if form == "python scalar" and python_scalar:
        return value
    return WeakArray(value, x.shape)


def implementation_operand(jnp: Any, operand: Operand) -> Any:
    """What the implementation is given: a WeakArray made by it, anything else as it is."""
    return operand.make(jnp) if isinstance(operand, WeakArray) else operand


def numpy_operand(operand: Operand) -> np.ndarray:
    """The operand's values for the oracle (a Python scalar as a 0-d array, before the rules'
    conversion to the compute dtype)."""
    if isinstance(operand, WeakArray):
        return np.full(operand.shape, operand.value)
    return np.asarray(operand)


def rules_operand(operand: Operand) -> Any:
    """The operand as dtype_rules sees it: a WeakArray is its Python scalar (same weak code)."""
    return operand.value if isinstance(operand, WeakArray) else operand


def is_python_scalar(operand: Operand) -> bool:
    return isinstance(operand, int | float | complex) and not isinstance(operand, bool | np.generic)


@st.composite
def arange_args(draw: st.DrawFn) -> tuple:
    """(stop,), (start, stop) or (start, stop, step), all ints or all floats on the GRID (so that
    the length is computed exactly)."""
    number = st.integers(-6, 10) if draw(st.booleans(), label="ints") else _reals(GRID, 0.0)
    count = draw(st.integers(1, 3), label="number of arguments")
    args = [draw(number, label="start/stop") for _ in range(min(count, 2))]
    if count == 3:
        args.append(draw(number.filter(lambda v: v != 0), label="step"))
    return tuple(args)


# --- indices -------------------------------------------------------------------------------------

INDEX_DTYPES = tuple(dtype(n) for n in ("int8", "int32", "int64", "uint8"))


@st.composite
def index_arrays(draw: st.DrawFn, size: int, shape: Shape | st.SearchStrategy, in_bounds: bool = True) -> np.ndarray:
    """Integer index arrays for an axis of `size`, negative ones counting from the end; with
    `in_bounds=False`, some lie out of range on either side (by up to twice the size)."""
    dt = draw(st.sampled_from(INDEX_DTYPES), label="index dtype")
    low, high = (-size, size - 1) if in_bounds else (-2 * size - 1, 2 * size)
    low = 0 if dt.kind == "u" else low
    return draw(hnp.arrays(np.int64, shape, elements=st.integers(low, max(low, high))), label="indices").astype(dt)


@st.composite
def mixed_indices(draw: st.DrawFn, shape: Shape, allow_none: bool = True) -> tuple:
    """An in-bounds index tuple for `shape` with at least one integer array, mixed with integers,
    slices (any step), maybe None and an Ellipsis; arrays broadcast together, some given as lists."""
    ndim = len(shape)
    kinds = draw(st.lists(st.sampled_from(["array", "int", "slice"]), min_size=ndim, max_size=ndim), label="kinds")
    kinds[draw(st.integers(0, ndim - 1), label="array axis")] = "array"
    count = kinds.count("array")
    array_shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=count, max_dims=2, min_side=1, max_side=3))
    shapes_left = list(array_shapes.input_shapes)
    entries: list = []
    for axis, kind in enumerate(kinds):
        if kind == "array":
            entry = draw(index_arrays(shape[axis], shapes_left.pop()))
            entries.append(entry.tolist() if entry.ndim and draw(st.booleans(), label="as list") else entry)
        elif kind == "int":
            entries.append(draw(st.integers(-shape[axis], shape[axis] - 1), label="int"))
        else:
            entries.append(draw(st.slices(shape[axis]), label="slice"))
    whole = [i for i, e in enumerate(entries) if isinstance(e, slice) and e == slice(None)]
    if whole and draw(st.booleans(), label="ellipsis"):
        entries[draw(st.sampled_from(whole), label="ellipsis at")] = Ellipsis
    for _ in range(draw(st.integers(0, 2 if allow_none else 0), label="newaxes")):
        entries.insert(draw(st.integers(0, len(entries)), label="newaxis at"), None)
    return tuple(entries)


@st.composite
def boolean_indices(draw: st.DrawFn, shape: Shape) -> tuple:
    """A boolean mask over some consecutive axes of `shape`, maybe after a slice and before an
    integer."""
    ndim = len(shape)
    start = draw(st.integers(0, ndim - 1), label="mask starts at axis")
    end = draw(st.integers(start + 1, ndim), label="mask ends before axis")
    mask = draw(hnp.arrays(np.bool_, shape[start:end]), label="mask")
    entries: list = [draw(st.slices(shape[a]), label="slice") for a in range(start)] + [mask]
    if end < ndim and draw(st.booleans(), label="int after"):
        entries.append(draw(st.integers(-shape[end], shape[end] - 1), label="int"))
    return tuple(entries)


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


# --- vmap: batch axes and their prefix trees ---------------------------------------------------------


def batch_axes(rank: int) -> st.SearchStrategy[int]:
    """Where a batch axis goes in (or comes out of) a value of ``rank`` unbatched dimensions: any of the
    ``rank + 1`` positions of the batched value, counted from either end."""
    return st.integers(-(rank + 1), rank)


def insert_axis(shape: Shape, axis: int, size: int) -> Shape:
    """``shape`` with an axis of ``size`` inserted at ``axis`` (of the result: -1 is last)."""
    axis = axis % (len(shape) + 1)
    return (*shape[:axis], size, *shape[axis:])


@st.composite
def prefixes(draw: st.DrawFn, axes: Any) -> Any:
    """A prefix tree of the full tree ``axes`` (tuples, lists, dicts of ints and Nones): where all the
    leaves below a node agree, the node may be that one axis instead (as in_axes and out_axes allow)."""
    flat = _uniform(axes)
    if flat is not _MIXED and draw(st.booleans(), label="one axis for the subtree"):
        return flat
    if isinstance(axes, (tuple, list)):
        return type(axes)(draw(prefixes(a)) for a in axes)
    if isinstance(axes, dict):
        return {k: draw(prefixes(axes[k])) for k in sorted(axes)}
    return axes


_MIXED = object()


def _uniform(axes: Any) -> Any:
    """The one axis (an int, or None: unmapped) of every leaf below ``axes``, else _MIXED; an empty
    container is _MIXED (it must stay what it is)."""
    if isinstance(axes, (tuple, list, dict)):
        children = {_uniform(a) for a in (axes.values() if isinstance(axes, dict) else axes)}
        return children.pop() if len(children) == 1 and _MIXED not in children else _MIXED
    return axes
