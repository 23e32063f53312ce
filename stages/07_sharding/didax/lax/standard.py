"""How a lax primitive is declared: a shape rule and a dtype rule make its abstract evaluation,
and a NumPy function makes its evaluation rule. Stage 01 introduced it.

Abstract evaluation is also the type checker: evaluation runs it first, so a misuse of lax
raises the same error in every interpreter.

Key arrays (dtype ``key<fry>``) are evaluated apart: a structural primitive applied to keys is the
same primitive applied to their uint32 words, its parameters grown by the words' trailing axis.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from .. import dtypes
from ..array import Array, PRNGKeyArray, to_array
from ..config import config
from ..core import Primitive, ShapedArray, get_aval
from ..dtypes import KeyTy

Rule = Callable[..., Any]


def standard_primitive(
    name: str,
    numpy_fn: Rule,
    shape_rule: Rule,
    dtype_rule: Rule,
    weak_type_rule: Rule | None = None,
) -> Primitive:
    """A primitive whose abstract evaluation combines the three rules, evaluated by NumPy."""
    prim = Primitive(name)
    weak_type_rule = weak_type_rule or all_weak

    def abstract_eval(*avals: ShapedArray, **params: Any) -> ShapedArray:
        return ShapedArray(
            shape_rule(*avals, **params),
            dtype_rule(*avals, **params),
            weak_type_rule(*avals, **params),
        )

    prim.def_abstract_eval(abstract_eval)
    prim.def_impl(numpy_impl(prim, numpy_fn))
    return prim


def numpy_impl(prim: Primitive, numpy_fn: Rule) -> Rule:
    """The evaluation rule: type-check with abstract evaluation, then compute with NumPy.

    This is every eager operation's path, so it does as little as it can: abstract evaluation
    runs once per kind of input (shapes, dtypes, weak types, parameters) and is remembered.
    """
    known_types: dict[Hashable, ShapedArray] = {}

    def impl(*args: Any, **params: Any) -> Array:
        if PRNGKeyArray in map(type, args):
            return key_impl(prim, args, params)
        arrays = [x if type(x) is Array else to_array(x) for x in args]
        out_aval = output_type(prim, arrays, params, known_types)
        out = np.asarray(quietly(numpy_fn, [a._value for a in arrays], params), out_aval.dtype)
        if out.shape != out_aval.shape:
            raise AssertionError(f"{prim.name}: NumPy gave shape {out.shape}, not {out_aval.shape}")
        if config.jax_debug_nans:  # one attribute read when the flag is off
            check_nans(prim.name, out)
        return Array(out, out_aval.weak_type)

    return impl


# ----------------------------------------------------------------------------------------------
# Key arrays. The words of keys of shape S have shape (*S, *key_shape): reshaping keys to (3, 2)
# reshapes their words to (3, 2, 2), slicing keys slices their words with the trailing axis taken
# whole, and so on. Each structural primitive says how its parameters grow in
# ``physical_rules[p](key_shape, *operands, **params)``, which applies the primitive to the words
# (key operands given as their words) and returns the result's words. A primitive without a rule
# refuses keys: its dtype rule (check_dtype) already did, with JAX's message.

PhysicalRule = Callable[..., Any]
physical_rules: dict[Primitive, PhysicalRule] = {}


def key_impl(prim: Primitive, args: Sequence[Any], params: dict) -> Any:
    """Evaluate ``prim`` on operands among which are key arrays, through its physical rule."""
    out_aval = prim.abstract_eval(*[get_aval(x) for x in args], **params)  # JAX's errors, as everywhere
    rule = physical_rules.get(prim)
    if rule is None:
        raise TypeError(f"{prim.name} does not accept key arrays; it got {[get_aval(x).str_short() for x in args]}.")
    impl = next(x._impl for x in args if type(x) is PRNGKeyArray)
    words = rule(impl.key_shape, *[Array(x._value) if type(x) is PRNGKeyArray else x for x in args], **params)
    return PRNGKeyArray(impl, words._value) if isinstance(out_aval.dtype, KeyTy) else words


def trailing_axes(ndim: int, key_shape: tuple[int, ...]) -> tuple[int, ...]:
    """The positions of the words' axes after ``ndim`` axes of keys."""
    return tuple(range(ndim, ndim + len(key_shape)))


def check_nans(name: str, out: np.ndarray) -> None:
    """With ``jax_debug_nans`` on, a floating result holding a NaN is an error, as in JAX."""
    if out.dtype.kind in "fc" and np.isnan(out).any():
        raise FloatingPointError(f"invalid value (nan) encountered in {name}")


def quietly(numpy_fn: Rule, values: list[np.ndarray], params: dict) -> Any:
    """Run ``numpy_fn`` with NumPy's floating-point warnings off: overflow to inf, or an invalid
    operation giving nan, is a result in XLA, not an event.

    ``with np.errstate(all="ignore")`` says the same, but builds its settings anew each time, which
    costs more than ``np.sin`` itself; setting NumPy's error-state variable to settings built once
    is what errstate does inside, for a third of the time.
    """
    token = _numpy_errstate.set(_IGNORE_ALL)
    try:
        return numpy_fn(*values, **params)
    finally:
        _numpy_errstate.reset(token)


try:  # NumPy 2's error state is a context variable (numpy/_core/_ufunc_config.py)
    from numpy._core._ufunc_config import _extobj_contextvar as _numpy_errstate
    from numpy._core.umath import _make_extobj

    _IGNORE_ALL = _make_extobj(all="ignore")
except ImportError:  # another NumPy: the public, slower way

    def quietly(numpy_fn: Rule, values: list[np.ndarray], params: dict) -> Any:
        with np.errstate(all="ignore"):
            return numpy_fn(*values, **params)


def output_type(prim: Primitive, arrays: list[Array], params: dict, known: dict) -> ShapedArray:
    """``prim``'s abstract evaluation on ``arrays``, looked up in ``known`` when it was seen before.

    The 64-bit flag is part of the key, because rules canonicalize dtypes with it.
    """
    key = (*[(a._value.shape, a._value.dtype, a.weak_type) for a in arrays], *params.items(),
           config.jax_enable_x64)
    try:
        return known[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable parameter (a list): evaluate without remembering
        key = None
    out_aval = prim.abstract_eval(*[ShapedArray(a.shape, a.dtype, a.weak_type) for a in arrays], **params)
    if key is not None:
        if len(known) > 4096:  # a program with ever-new shapes must not grow memory without end
            known.clear()
        known[key] = out_aval
    return out_aval


def all_weak(*avals: ShapedArray, **params: Any) -> bool:
    """The result is weakly typed only if every input was (Python scalars in, scalar out)."""
    return all(a.weak_type for a in avals)


def never_weak(*avals: ShapedArray, **params: Any) -> bool:
    """The result is never weakly typed (comparisons, conversions to a named dtype)."""
    return False


# ----------------------------------------------------------------------------------------------
# Signed zeros in max and min. XLA orders -0.0 below +0.0, so max(0.0, -0.0) is 0.0 and
# min(0.0, -0.0) is -0.0 in either order; NumPy's maximum and minimum return whichever zero
# came second. Every max/min primitive (elementwise, reduction, running, scatter) fixes its
# zeros with these two helpers.


def preferred_zeros(x: np.ndarray, negative: bool) -> np.ndarray:
    """Where ``x`` holds the zero a max prefers (+0.0), or a min (-0.0) when ``negative``."""
    return (x == 0) & (np.signbit(x) == negative)


def sign_zeros(out: np.ndarray, seen: np.ndarray, negative: bool) -> np.ndarray:
    """``out`` with each zero made the preferred one where ``seen`` (some operand held it), and
    the other zero elsewhere (every operand was the other zero)."""
    preferred = np.array(-0.0 if negative else 0.0, out.dtype)
    return np.where(out == 0, np.where(seen, preferred, -preferred), out)


# ----------------------------------------------------------------------------------------------
# dtype checks, with JAX's messages.

# Named categories of dtypes that an operation accepts.
BOOL, INTEGER, FLOATING, COMPLEX = "bool", "integer", "floating", "complexfloating"
_CATEGORY_TYPES = {
    BOOL: np.bool_,
    INTEGER: np.integer,
    FLOATING: np.floating,
    COMPLEX: np.complexfloating,
    "signedinteger": np.signedinteger,
    "number": np.number,
    "float32": np.float32,  # the parts of a complex number (XLA has no complex32)
    "float64": np.float64,
}
NUMBER = (INTEGER, FLOATING, COMPLEX)
INEXACT = (FLOATING, COMPLEX)
SIGNED_NUMBER = ("signedinteger", FLOATING, COMPLEX)
BOOL_OR_INT = (BOOL, INTEGER)
ORDERED = (BOOL, INTEGER, FLOATING)
ANY = (BOOL, INTEGER, FLOATING, COMPLEX)


@functools.cache  # checked for every operand of every operation
def accepts(dtype: np.dtype, categories: tuple[str, ...]) -> bool:
    """Whether ``dtype`` belongs to one of the named ``categories``."""
    return any(dtypes.issubdtype(dtype, _CATEGORY_TYPES[c]) for c in categories)


def check_dtype(name: str, aval: ShapedArray, categories: tuple[str, ...], position: int | None = None) -> None:
    """Raise JAX's TypeError unless ``aval``'s dtype is in one of ``categories``."""
    if accepts(aval.dtype, categories):
        return
    where = "" if position is None else f" at position {position}"
    raise TypeError(
        f"{name} does not accept dtype {aval.dtype.name}{where}. Accepted dtypes{where} are "
        f"subtypes of {', '.join(categories)}."
    )


def check_same_dtypes(name: str, avals: Sequence[ShapedArray], tip: str | None = None) -> np.dtype:
    """The one dtype shared by ``avals``; JAX's TypeError, with a tip, if they differ."""
    kinds = [a.dtype for a in avals]
    if len(set(kinds)) > 1:
        hint = tip or f"jnp.{name}"
        raise TypeError(
            f"lax.{name} requires arguments to have the same dtypes, got "
            f"{', '.join(d.name for d in kinds)}. (Tip: {hint} is a similar function that does "
            "automatic type promotion on inputs)."
        )
    return kinds[0]


# ----------------------------------------------------------------------------------------------
# Shape checks.


def broadcasting_shape(name: str, *avals: ShapedArray) -> tuple[int, ...]:
    """lax's elementwise broadcasting: equal ranks with sizes equal or 1; rank 0 goes anywhere."""
    shapes = [a.shape for a in avals if a.ndim]
    if not shapes:
        return ()
    ranks = sorted({len(s) for s in shapes})
    if len(ranks) > 1:
        raise TypeError(f"{name}: arrays must have the same number of dimensions, got {ranks}.")
    result = []
    for sizes in zip(*shapes):
        not_one = {d for d in sizes if d != 1}
        if len(not_one) > 1:
            shown = ", ".join(map(str, shapes))
            raise TypeError(f"{name} got incompatible shapes for broadcasting: {shown}.")
        result.append(not_one.pop() if not_one else 1)
    return tuple(result)


def check_axes(
    name: str, axes: Sequence[int], ndim: int, what: str = "axes", error: type[Exception] = ValueError
) -> tuple[int, ...]:
    """Axes must be distinct and in range; lax takes no negative axes (jax.numpy does).

    JAX raises ValueError for bad reduction axes but TypeError for some other primitives
    (rev, dot_general): ``error`` says which.
    """
    axes = tuple(int(a) for a in axes)
    if any(not 0 <= a < ndim for a in axes):
        raise error(
            f"{name}: {what} {axes} out of bounds for an array of rank {ndim}; each must be in "
            f"range({ndim}) (lax takes no negative axes)."
        )
    if len(set(axes)) != len(axes):
        raise error(f"{name}: duplicate value in {what} {axes}; name each axis once.")
    return axes


def as_dims(name: str, shape: Any) -> tuple[int, ...]:
    """A shape given by the user: a sequence of integers (Python ints, NumPy ints, integer scalar
    arrays). Signs are not checked here."""
    try:
        return tuple(map(operator.index, shape))
    except TypeError:
        raise TypeError(
            f"{name}: shapes must be 1D sequences of concrete values of integer type, got {shape!r}."
        ) from None


def as_shape(name: str, shape: Any) -> tuple[int, ...]:
    """A shape given by the user to lax: a sequence of non-negative integers."""
    dims = as_dims(name, shape)
    if dims and min(dims) < 0:
        raise TypeError(f"{name}: shape {dims} has a negative dimension; every size must be >= 0.")
    return dims
