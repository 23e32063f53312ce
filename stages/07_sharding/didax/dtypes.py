"""dtypes: which types didax supports, JAX's type promotion lattice, and weak types.

Stage 01 introduced it. Promotion is the join (least upper bound) of two types on a small lattice;
the lattice below reproduces JAX's 18 x 18 promotion table exactly (with x64 off, one edge moves so
that no 64-bit type is formed from narrower ones). At the end: extended dtypes, element types NumPy
does not have, of which didax has one, the PRNG key (``key<fry>``).
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Hashable
from typing import Any, NamedTuple

import ml_dtypes
import numpy as np

from .config import config

bfloat16 = np.dtype(ml_dtypes.bfloat16)

_BOOL = [np.dtype(np.bool_)]
_UNSIGNED = [np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)]
_SIGNED = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)]
_FLOATS = [bfloat16] + [np.dtype(t) for t in (np.float16, np.float32, np.float64)]
_COMPLEX = [np.dtype(t) for t in (np.complex64, np.complex128)]
SUPPORTED_DTYPES: tuple[np.dtype, ...] = tuple(_BOOL + _UNSIGNED + _SIGNED + _FLOATS + _COMPLEX)
# The same as a set: membership is one hash lookup, not a comparison with each dtype in turn.
_SUPPORTED = frozenset(SUPPORTED_DTYPES)
_INEXACT = frozenset(_FLOATS + _COMPLEX)

# The narrow types of ml_dtypes that JAX names (jnp.float8_e4m3fn, jnp.int4, ...): didax knows
# where they sit among the dtype classes, but computes only with the types above.
NARROW_FLOATS = frozenset(np.dtype(getattr(ml_dtypes, name)) for name in (
    "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
    "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn",
))  # fmt: skip
NARROW_SIGNED = frozenset(np.dtype(t) for t in (ml_dtypes.int1, ml_dtypes.int2, ml_dtypes.int4))
NARROW_UNSIGNED = frozenset(np.dtype(t) for t in (ml_dtypes.uint1, ml_dtypes.uint2, ml_dtypes.uint4))

# The dtype of the tangents of integer and boolean values (stage 02): zero-sized, as they are
# always zero. It is not an array dtype: float0 values are NumPy arrays.
float0 = np.dtype([("float0", np.void, 0)])

# While x64 is off, every 64-bit type is stored as its 32-bit sibling, as in JAX.
_TO_32_BITS = {
    np.dtype(np.int64): np.dtype(np.int32),
    np.dtype(np.uint64): np.dtype(np.uint32),
    np.dtype(np.float64): np.dtype(np.float32),
    np.dtype(np.complex128): np.dtype(np.complex64),
}
# The dtypes didax stores as they are, with x64 off (False) and on (True).
_CANONICAL = {False: _SUPPORTED - _TO_32_BITS.keys(), True: _SUPPORTED}

# The dtype a Python scalar gets before canonicalization (bool is never weak).
PYTHON_SCALAR_DTYPES: dict[type, np.dtype] = {
    bool: np.dtype(np.bool_),
    int: np.dtype(np.int64),
    float: np.dtype(np.float64),
    complex: np.dtype(np.complex128),
}


class TypePromotionError(ValueError):
    """Two dtypes have no implicit promotion path (raised in strict mode)."""


def canonicalize_dtype(dtype: Any) -> np.dtype:
    """The dtype didax stores for ``dtype``: checked, and 32-bit while x64 is off."""
    try:
        return _canonicalize(dtype, config.jax_enable_x64)
    except TypeError:
        if isinstance(dtype, Hashable):
            raise  # a hashable dtype-like that is not a dtype: check_dtype's own message
        # e.g. a structured-dtype list: not a didax dtype (and not hashable, so not cacheable)
        raise TypeError(f"didax does not support dtype {dtype!r}: give a dtype name, type or np.dtype.") from None


@functools.cache  # called for every operand of every operation, with few distinct arguments
def _canonicalize(dtype: Any, x64: bool) -> np.dtype:
    dt = check_dtype(dtype)
    return dt if x64 else _TO_32_BITS.get(dt, dt)


def check_user_dtype(dtype: Any, fun_name: str) -> np.dtype:
    """A ``dtype=`` argument, canonicalized; asking for a 64-bit type while x64 is off warns, as in
    JAX, because the result will quietly be 32-bit."""
    if isinstance(dtype, np.dtype) and is_canonical(dtype):  # the common case: nothing to check
        return dtype
    canonical = canonicalize_dtype(dtype)
    if isinstance(dtype, type) and dtype in PYTHON_SCALAR_DTYPES:
        return canonical  # dtype=int means "the default integer type": nothing is truncated
    requested = check_dtype(dtype)
    if requested != canonical:
        warnings.warn(
            f"Explicitly requested dtype {requested.name} requested in {fun_name} is not available, and "
            f"will be truncated to dtype {canonical.name}. To enable more dtypes, set the "
            "jax_enable_x64 configuration option: didax.config.update('jax_enable_x64', True).",
            UserWarning,
            stacklevel=3,
        )
    return canonical


def check_dtype(dtype: Any) -> np.dtype:
    """``np.dtype(dtype)``, refusing what didax cannot compute with (strings, objects, ...)."""
    if isinstance(dtype, type) and dtype in PYTHON_SCALAR_DTYPES:  # dtype=int, dtype=float, ...
        return PYTHON_SCALAR_DTYPES[dtype]
    dt = np.dtype(dtype)  # raises TypeError: data type 'foo' not understood
    if dt in NARROW_FLOATS or dt in NARROW_SIGNED or dt in NARROW_UNSIGNED:
        raise TypeError(
            f"didax does not compute with the narrow type {dt.name}: it names the dtype, but arrays are "
            "of the fifteen types of the promotion lattice. Convert to float32 or int8 on the host."
        )
    if dt not in _SUPPORTED:
        names = ", ".join(d.name for d in SUPPORTED_DTYPES)
        raise TypeError(f"didax does not support dtype {dt.name}. Supported dtypes: {names}.")
    return dt


def is_canonical(dtype: np.dtype) -> bool:
    """Whether ``dtype`` is one didax stores as it is: supported, and not 64-bit while x64 is off."""
    return dtype in _CANONICAL[config.jax_enable_x64]


def default_dtype(kind: str) -> np.dtype:
    """The canonical dtype for a kind of Python scalar: 'b', 'i', 'f' or 'c'."""
    return canonicalize_dtype({"b": bool, "i": int, "f": float, "c": complex}[kind])


@functools.cache
def to_inexact_dtype(dtype: np.dtype) -> np.dtype:
    """The float an integer or bool becomes in sin, mean, true division...: 32 bits can hold
    every value of the types up to 32 bits well enough; only 64-bit integers need float64."""
    dtype = np.dtype(dtype)  # a key has no float to become: "Cannot interpret 'key<fry>' as a data type"
    if is_inexact(dtype):
        return dtype
    return np.dtype(np.float64) if dtype.itemsize == 8 else np.dtype(np.float32)


@functools.cache  # np.issubdtype takes a microsecond, and front ends ask it on every operation
def issubdtype(dtype: Any, category: Any) -> bool:
    """np.issubdtype that also knows bfloat16 and the narrow types of ml_dtypes (NumPy sees
    them as opaque 'V' types): floats, signed or unsigned integers; and the extended dtypes: a key
    dtype is a subdtype of ``prng_key`` and ``extended`` (and of no NumPy category)."""
    if isinstance(category, ExtendedDType):
        return dtype == category
    if isinstance(dtype, ExtendedDType):
        return isinstance(category, type) and issubclass(dtype.type, category)
    dt = np.dtype(dtype)
    if dt == bfloat16 or dt in NARROW_FLOATS:
        return category in (np.floating, np.inexact, np.number, np.generic)
    if dt in NARROW_SIGNED:
        return category in (np.signedinteger, np.integer, np.number, np.generic)
    if dt in NARROW_UNSIGNED:
        return category in (np.unsignedinteger, np.integer, np.number, np.generic)
    return np.issubdtype(dt, category)


def is_float(dtype: Any) -> bool:
    """Whether ``dtype`` is a real floating type (bfloat16 included)."""
    return issubdtype(dtype, np.floating)


def is_inexact(dtype: Any) -> bool:
    """Whether ``dtype`` is a floating or complex type."""
    return dtype in _INEXACT or issubdtype(dtype, np.inexact)  # first a set lookup, for dtypes


def finfo(dtype: Any) -> Any:
    """Machine limits of a floating type (eps, max, tiny, ...), bfloat16 included."""
    return ml_dtypes.finfo(dtype)


def iinfo(dtype: Any) -> Any:
    """Machine limits of an integer type (min, max, bits)."""
    return ml_dtypes.iinfo(dtype)


# ----------------------------------------------------------------------------------------------
# The promotion lattice. Nodes are the concrete dtypes plus three weak nodes, written "i*", "f*"
# and "c*" as in JAX's documentation: the type of a Python scalar, or of an array made from one.

Node = Any  # an np.dtype, or one of the strings in WEAK_NODES

WEAK_NODES = {"i*": int, "f*": float, "c*": complex}  # node -> the Python type it stands for


def _standard_lattice(x64: bool) -> dict[Node, list[Node]]:
    """Each node's direct successors: promoting to a successor never loses information.

    While x64 is off no promotion may form a 64-bit type from narrower ones: the one place the
    lattice would (uint32 with a signed int gives int64) leads to int32 instead, as in JAX.
    """
    b, (u8, u16, u32, u64), (i8, i16, i32, i64) = _BOOL[0], _UNSIGNED, _SIGNED
    bf16, f16, f32, f64 = _FLOATS
    c64, c128 = _COMPLEX
    return {
        b: ["i*"],
        "i*": [u8, i8],
        u8: [u16, i16], u16: [u32, i32], u32: [u64, i64 if x64 else i32], u64: ["f*"],
        i8: [i16], i16: [i32], i32: [i64], i64: ["f*"],
        "f*": ["c*", bf16, f16],
        bf16: [f32], f16: [f32], f32: [f64, c64], f64: [c128],
        "c*": [c64], c64: [c128], c128: [],
    }  # fmt: skip


def _strict_lattice() -> dict[Node, list[Node]]:
    """In strict mode only weak scalars promote, and only within their own kind."""
    lattice: dict[Node, list[Node]] = {t: [] for t in SUPPORTED_DTYPES}
    lattice["i*"] = ["f*", *_UNSIGNED, *_SIGNED]
    lattice["f*"] = ["c*", *_FLOATS]
    lattice["c*"] = list(_COMPLEX)
    return lattice


@functools.cache
def _upper_bounds(mode: str, x64: bool) -> dict[Node, frozenset[Node]]:
    """For each node, every node reachable from it (itself included): its upper bounds."""
    lattice = _standard_lattice(x64) if mode == "standard" else _strict_lattice()
    bounds: dict[Node, frozenset[Node]] = {}

    def visit(node: Node) -> frozenset[Node]:
        if node not in bounds:
            above = {node}
            for successor in lattice[node]:
                above |= visit(successor)
            bounds[node] = frozenset(above)
        return bounds[node]

    for node in lattice:
        visit(node)
    return bounds


@functools.cache
def _join(nodes: frozenset[Node], mode: str, x64: bool) -> Node:
    """The least upper bound of ``nodes``: the common upper bound below all the others.

    When the nodes have no least upper bound (strict mode), raise ``TypePromotionError`` with
    JAX's message, the nodes' names (``_node_name``) sorted, for ``mode="strict"`` and the
    nodes float32 and int32::

        Input dtypes ('float32', 'int32') have no available implicit dtype promotion path when
        jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired output
        type, or set jax_numpy_dtype_promotion=standard.

    (one line; the message is checked word for word). Cached: every didax.numpy operation joins
    its operands' types, and there are few pairs.
    """
    bounds = _upper_bounds(mode, x64)
    common = frozenset.intersection(*(bounds[n] for n in nodes))
    for candidate in common:
        if bounds[candidate] == common:
            return candidate
    # Sorted, so the message is the same on every run (JAX lists them in set order).
    dtype_names = tuple(_node_name(n) for n in sorted(nodes, key=_node_name))
    raise TypePromotionError(
        f"Input dtypes {dtype_names} have no available implicit dtype promotion path when "
        f"jax_numpy_dtype_promotion={mode}. Try explicitly casting inputs to the desired output "
        "type, or set jax_numpy_dtype_promotion=standard."
    )


def _node_name(node: Node) -> str:
    return node if isinstance(node, str) else node.name


def _kind(dtype: np.dtype) -> str:
    """'b', 'i' (signed or unsigned), 'f' or 'c'; bfloat16 reports itself as 'V' to NumPy."""
    if dtype == bfloat16:
        return "f"
    return "i" if dtype.kind == "u" else dtype.kind


def _weak_node(dtype: np.dtype) -> Node:
    """The weak node for a weakly typed value of ``dtype`` (bool is never weak)."""
    return {"i": "i*", "f": "f*", "c": "c*"}.get(_kind(dtype), dtype)


def _as_dtype(node: Node) -> np.dtype:
    """A node's dtype: a weak node stands for its Python type's dtype (f* -> float64)."""
    return PYTHON_SCALAR_DTYPES[WEAK_NODES[node]] if isinstance(node, str) else node


def promote_types(a: Any, b: Any) -> np.dtype:
    """The dtype both ``a`` and ``b`` promote to (strong types; not canonicalized, as in JAX:
    float64 with x64 off stays float64, but uint32 with int8 gives int32, see the lattice)."""
    # Two strong types can meet at a weak node (uint64 and int8 meet at f*): take its dtype.
    joined = _join(frozenset({check_dtype(a), check_dtype(b)}), "standard", config.jax_enable_x64)
    return _as_dtype(joined)


def type_key(x: Any) -> tuple[Any, bool]:
    """What promotion needs to know of ``x``: its dtype (not yet canonical) and whether it is weak.

    ``x`` is a value (an Array, a tracer, a NumPy value, a Python scalar) or a dtype-like (a
    dtype, a name, a scalar type such as ``int``).
    """
    if type(x) in PYTHON_SCALAR_DTYPES:
        return type(x), type(x) is not bool
    aval = getattr(x, "aval", None)  # an Array or a tracer: the common case, checked early
    if aval is not None:
        return aval.dtype, aval.weak_type
    if any(x is t for t in (int, float, complex)):  # the Python types, used as dtype-likes
        return x, True
    if hasattr(x, "dtype") and not isinstance(x, (type, np.dtype)):
        return x.dtype, bool(getattr(x, "weak_type", False))
    if isinstance(x, ExtendedDType):
        return x, False
    return canonicalize_dtype(x), False  # checks a dtype-like now, with a clear message


@functools.cache  # every didax.numpy operation promotes its operands, and there are few kinds
def lattice_result_type(types: tuple[tuple[Any, bool], ...], mode: str, x64: bool) -> tuple[np.dtype, bool]:
    """Join ``types`` (``type_key`` pairs) on the lattice: (canonical dtype, weak_type).

    Canonical first, as JAX does: with x64 off, uint64 joins as uint32, so uint64 and int8 give
    an int32, not a float. A weak result gets its kind's default dtype, as a Python scalar would.
    """
    if any(isinstance(dtype, ExtendedDType) for dtype, _ in types):
        return _extended_result_type({dtype for dtype, _ in types})
    dtypes = [_canonicalize(dtype, x64) for dtype, _ in types]
    weak = [w for _, w in types]
    if len(set(dtypes)) == 1 and not all(weak):
        return dtypes[0], False
    if all(weak) and mode == "standard":
        # Join the strong counterparts, then make the result weak: a weak int + a weak float
        # is a weak float.
        joined = _weak_node(_join(frozenset(dtypes), mode, x64))
    else:
        joined = _join(frozenset(_weak_node(d) if w else d for d, w in zip(dtypes, weak)), mode, x64)
    return _canonicalize(_as_dtype(joined), x64), isinstance(joined, str)


def _extended_result_type(kinds: set[Any]) -> tuple[Any, bool]:
    """Keys promote with nothing: arrays of one key dtype join to it, anything else is an error."""
    if len(kinds) == 1:
        return kinds.pop(), False
    extended_dtype = next(k for k in kinds if isinstance(k, ExtendedDType))
    raise ValueError(f"dtype={extended_dtype} is not a valid dtype for JAX type promotion.")


def result_type(*args: Any, return_weak_type_flag: bool = False) -> Any:
    """The canonical dtype that ``args`` (values, dtypes, Python scalars) promote to."""
    if not args:
        raise ValueError("at least one array or dtype is required")
    types = tuple([type_key(x) for x in args])
    dtype, weak = lattice_result_type(types, config.jax_numpy_dtype_promotion, config.jax_enable_x64)
    return (dtype, weak) if return_weak_type_flag else dtype


def python_scalar_to_numpy(x: bool | int | float | complex, dtype: np.dtype) -> np.ndarray:
    """A 0-d NumPy array holding Python scalar ``x`` as ``dtype``, the way JAX gets it there.

    The scalar first becomes the default type of its kind, where an int that does not fit raises
    OverflowError (``asarray(2**40)`` with x64 off). Then it is converted like any int32 would be:
    it wraps, so ``uint8_array + 300`` adds 44, as in JAX.
    """
    default = canonicalize_dtype(type(x))
    if type(x) is int:
        low, high = _int_range(default)
        if not low <= x <= high:
            raise OverflowError(f"Python int {x} too large to convert to {default.name}")
    value = np.asarray(x, dtype=default)
    if dtype == default:
        return value
    if dtype.kind not in "fc" or dtype.itemsize >= default.itemsize:  # nothing can overflow to inf
        return value.astype(dtype)
    with np.errstate(over="ignore"):  # a float too large for float16 becomes inf, as in XLA
        return value.astype(dtype)


@functools.cache  # np.iinfo builds a new object on every call, and every Python int asks it
def _int_range(dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


# ----------------------------------------------------------------------------------------------
# Extended dtypes: element types NumPy does not have. A key array (``didax.random.key(0)``) has
# dtype ``key<fry>``: each element is one key, stored as two uint32 words in a trailing axis that
# the array does not show (its "physical" axis). As in JAX, an extended dtype is not an np.dtype;
# its scalar class sits under ``extended`` so that ``issubdtype(x.dtype, prng_key)`` works.


class extended(np.generic):  # noqa: N801 - JAX's name
    """The scalar class of extended dtypes: ``issubdtype(key.dtype, extended)``. Never instantiated."""


class prng_key(extended):  # noqa: N801 - JAX's name
    """The scalar class of PRNG key dtypes: ``issubdtype(key.dtype, prng_key)``. Never instantiated."""


class ExtendedDType:
    """A dtype NumPy does not know; ``type`` is its scalar class (under ``extended``)."""

    type: type
    name: str


class PRNGImpl(NamedTuple):
    """A PRNG implementation as a key dtype names it: its name, the short tag printed in the dtype
    (``key<fry>``) and the shape of one key's uint32 words. The hash itself is in didax.random."""

    name: str
    tag: str
    key_shape: tuple[int, ...]

    def __str__(self) -> str:
        return self.tag  # how a jaxpr prints it: random_seed[impl=fry]


threefry2x32 = PRNGImpl("threefry2x32", "fry", (2,))
PRNG_IMPLS = {threefry2x32.name: threefry2x32}


class KeyTy(ExtendedDType):
    """The dtype of an array of PRNG keys of one implementation: ``key<fry>`` for Threefry."""

    type = prng_key
    kind = "V"  # NumPy's code for "other": checks such as ``dtype.kind in "iu"`` see no number

    def __init__(self, impl: PRNGImpl) -> None:
        self._impl = impl

    @property
    def name(self) -> str:
        return f"key<{self._impl.tag}>"

    @property
    def itemsize(self) -> int:
        """The bytes of one key: its uint32 words."""
        return 4 * math.prod(self._impl.key_shape)

    def __repr__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        return type(other) is KeyTy and self._impl == other._impl

    def __hash__(self) -> int:
        return hash((KeyTy, self._impl))


def is_key_dtype(dtype: Any) -> bool:
    """Whether ``dtype`` is a PRNG key dtype."""
    return isinstance(dtype, KeyTy)
