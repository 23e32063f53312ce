"""Type promotion: JAX's 18x18 table (data/promotion_table.txt), weak types, the x64 switch, strict mode."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import assert_weak, show_call
from conformance.impl import Impl
from conformance.reproduce import Source, lambda_body

pytestmark = [pytest.mark.area("promotion"), pytest.mark.requires("eval")]

STRONG_CODES = tuple(dr.CODE_TO_NAME)
ALL_PAIRS = [(a, b) for a in dr.ALL_CODES for b in dr.ALL_CODES]
STRONG_PAIRS = [(a, b) for a in STRONG_CODES for b in STRONG_CODES]

# Python scalars are the weak values; typed values are 0-d arrays made by the implementation.
WEAK_SCALARS = {"i*": 3, "f*": 1.5, "c*": 2j}


def value(impl: Impl, code: str, x64: bool) -> Any:
    """A value of type `code`, already in the form the implementation would store it."""
    if code in WEAK_SCALARS:
        return WEAK_SCALARS[code]
    return impl.numpy.ones((), dr.dtype_of(code, x64))


def add(impl: Impl, a: Any, b: Any) -> Any:
    """a + b through the operator when an array is involved (so __add__/__radd__ are exercised)."""
    if isinstance(a, (int, float, complex)) and isinstance(b, (int, float, complex)):
        return impl.numpy.add(a, b)
    return a + b


def stored_code(code: str, x64: bool) -> str:
    """The code of the value the implementation holds: 64-bit inputs become 32-bit while x64 is off."""
    return code if dr.is_weak_code(code) else dr.code_of(dr.dtype_of(code, x64))


def expected(code: str, x64: bool) -> str:
    """The result a code stands for, as a program's comment says it: "float32, weakly typed"."""
    return f"{dr.dtype_of(code, x64)}{', weakly typed' if dr.is_weak_code(code) else ''}"


def assert_promotes(result: Any, code: str, x64: bool) -> None:
    want = dr.dtype_of(code, x64)
    assert np.dtype(result.dtype) == want, f"dtype {result.dtype}, expected {want} (table code {code})"
    assert_weak(result, dr.is_weak_code(code), f"result (code {code})")


# --- the table -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("a", "b"), STRONG_PAIRS, ids=[f"{a}-{b}" for a, b in STRONG_PAIRS])
def test_promote_types_matches_the_table_with_x64(impl: Impl, flags, a: str, b: str) -> None:
    flags("jax_enable_x64", True)
    x, y, want = dr.dtype(dr.CODE_TO_NAME[a]), dr.dtype(dr.CODE_TO_NAME[b]), dr.dtype_of(dr.join(a, b), x64=True)
    show_call(f"jnp.promote_types(x, y)  # the table: {want}", x=x, y=y)
    assert np.dtype(impl.numpy.promote_types(x, y)) == want


SIXTY_FOUR_BIT_CODES = {"i8", "u8", "f8", "c16"}


@pytest.mark.parametrize(("a", "b"), STRONG_PAIRS, ids=[f"{a}-{b}" for a, b in STRONG_PAIRS])
def test_promote_types_without_x64_forms_no_new_64_bit_type(impl: Impl, flags, a: str, b: str) -> None:
    """promote_types does not canonicalize (float64 with float32 is float64 even with x64 off), but
    while x64 is off it never forms a 64-bit type from narrower inputs: the table's one such entry,
    uint32 with a signed int (-> int64), gives int32 instead."""
    flags("jax_enable_x64", False)
    want = dr.WEAK_DEFAULT.get(dr.join(a, b)) or dr.CODE_TO_NAME[dr.join(a, b)]  # u8 x i1 -> f* -> float64
    if want == "int64" and not {a, b} & SIXTY_FOUR_BIT_CODES:
        want = "int32"
    x, y = dr.dtype(dr.CODE_TO_NAME[a]), dr.dtype(dr.CODE_TO_NAME[b])
    show_call(f"jnp.promote_types(x, y)  # expected {want}", x=x, y=y)
    assert np.dtype(impl.numpy.promote_types(x, y)) == dr.dtype(want)


X64_OFF_PROMOTE_TYPES = [  # (a, b, promote_types(a, b)) while x64 is off: 64-bit types stay 64-bit
    ("uint64", "int8", "float64"),
    ("int64", "int32", "int64"),
    ("float64", "bfloat16", "float64"),
    ("complex128", "float32", "complex128"),
    ("uint64", "uint8", "uint64"),
]


@pytest.mark.parametrize(("a", "b", "want"), X64_OFF_PROMOTE_TYPES, ids=lambda v: str(v))
def test_promote_types_does_not_truncate_with_x64_off(impl: Impl, flags, a: str, b: str, want: str) -> None:
    """promote_types answers in 64-bit types even while x64 is off (result_type is what canonicalizes)."""
    flags("jax_enable_x64", False)
    assert np.dtype(impl.numpy.promote_types(np.dtype(a), np.dtype(b))) == np.dtype(want)
    assert np.dtype(impl.numpy.promote_types(np.dtype(b), np.dtype(a))) == np.dtype(want)


@pytest.mark.parametrize(("a", "b"), ALL_PAIRS, ids=[f"{a}-{b}" for a, b in ALL_PAIRS])
def test_result_type_is_the_canonical_table_entry(impl: Impl, x64: bool, a: str, b: str) -> None:
    """result_type of dtypes and Python scalars canonicalizes its inputs and its answer: while x64 is
    off, uint64 counts as uint32 and float64 as float32, so uint64 with int8 gives int32 (u4 x i1 ->
    i8 -> int32); a weak result is the default type of its kind."""
    x, y = [WEAK_SCALARS.get(code) or dr.dtype(dr.CODE_TO_NAME[code]) for code in (a, b)]
    want = dr.dtype_of(dr.join(stored_code(a, x64), stored_code(b, x64)), x64)
    show_call(f"jnp.result_type(x, y)  # expected {want}", x=x, y=y)
    assert np.dtype(impl.numpy.result_type(x, y)) == want


@pytest.mark.parametrize(("a", "b"), ALL_PAIRS, ids=[f"{a}-{b}" for a, b in ALL_PAIRS])
def test_binary_op_promotes_by_the_table(impl: Impl, x64: bool, a: str, b: str) -> None:
    """Dtype and weak type of a + b for every pair of the table, weak Python scalars included."""
    ca, cb = stored_code(a, x64), stored_code(b, x64)
    x, y, want = value(impl, ca, x64), value(impl, cb, x64), dr.join(ca, cb)
    call = "jnp.add(x, y)" if dr.is_weak_code(ca) and dr.is_weak_code(cb) else "x + y"
    show_call(f"{call}  # expected {expected(want, x64)}", x=x, y=y)
    assert_promotes(add(impl, x, y), want, x64)


@given(triple=st.tuples(*[st.sampled_from(dr.ALL_CODES)] * 3), arrays=st.tuples(*[st.booleans()] * 3))
def test_promotion_is_associative(impl: Impl, flags, triple: tuple[str, ...], arrays: tuple[bool, ...]) -> None:
    """Weak values are Python scalars or (`arrays`) the implementation's weak 0-d arrays of them."""
    flags("jax_enable_x64", True)
    shown = [S.WeakArray(WEAK_SCALARS[code], ()) if array and code in WEAK_SCALARS else value(impl, code, True)
             for code, array in zip(triple, arrays)]  # fmt: skip
    a, b, c = (S.implementation_operand(impl.numpy, v) for v in shown)
    show_call("jnp.add(jnp.add(a, b), c), jnp.add(a, jnp.add(b, c))", a=shown[0], b=shown[1], c=shown[2])
    want = dr.join(*triple)
    assert_promotes(impl.numpy.add(impl.numpy.add(a, b), c), want, True)
    assert_promotes(impl.numpy.add(a, impl.numpy.add(b, c)), want, True)


# --- weak types ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("scalar", "code"), [(2, "i*"), (2.0, "f*"), (2j, "c*")])
def test_asarray_of_a_python_scalar_is_weak(impl: Impl, x64: bool, scalar: Any, code: str) -> None:
    x = impl.numpy.asarray(scalar)
    assert_promotes(x, code, x64)
    # and it promotes like the scalar: it does not widen a narrower typed array
    y = impl.numpy.ones(3, "int8") * x
    assert_promotes(y, dr.join("i1", code), x64)


def test_asarray_of_a_python_bool_is_not_weak(impl: Impl) -> None:
    assert_promotes(impl.numpy.asarray(True), "b1", False)


def test_asarray_with_a_dtype_is_strongly_typed(impl: Impl) -> None:
    assert_promotes(impl.numpy.asarray(2, dtype="int32"), "i4", False)


def test_python_scalars_alone_give_a_weak_result(impl: Impl) -> None:
    assert_promotes(impl.numpy.add(1, 2), "i*", False)
    assert_promotes(impl.numpy.multiply(2, 1.5), "f*", False)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "uint32"])
@pytest.mark.parametrize("scalar", [300, -1, 1000, -129, 2**31 - 1])
@pytest.mark.parametrize("symbol", ["+", "*", "==", "<"])
def test_python_int_wraps_into_a_narrower_integer_array(
    impl: Impl, x64: bool, dtype: str, scalar: int, symbol: str
) -> None:
    """A weak Python int takes the array's dtype even when it does not fit: it first becomes the
    default int, then wraps like any conversion (uint8 + 300 adds 44, and uint8 == 300 is False)."""
    x = np.array([0, 1, 44, 100, 127], dtype)
    python_op = {"+": operator.add, "*": operator.mul, "==": operator.eq, "<": operator.lt}[symbol]
    got = python_op(impl.numpy.asarray(x), scalar)
    want_dtype = np.dtype(bool) if symbol in ("==", "<") else np.dtype(dtype)
    assert np.dtype(got.dtype) == want_dtype
    assert_weak(got, False)
    wrapped = np.array(scalar).astype(dtype)  # NumPy's int64 -> narrower cast keeps the low bits
    with np.errstate(over="ignore"):
        want = python_op(x, wrapped)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_python_int_beyond_the_default_int_overflows(impl: Impl, x64: bool) -> None:
    """Before wrapping, the int must fit the default int (int32 while x64 is off, else int64)."""
    too_big = 2**63 if x64 else 2**31
    x = impl.numpy.asarray(np.array([1, 2], np.uint8))
    with pytest.raises(OverflowError):
        x + too_big
    with pytest.raises(OverflowError):
        impl.numpy.asarray(too_big)
    assert np.asarray(x + (too_big - 1)).dtype == np.uint8  # fits the default int: it wraps


# --- golden cases from the JAX documentation (seeds/000, "Type promotion semantics") -------------


def test_int16_scalar_plus_python_int_stays_int16(impl: Impl) -> None:
    assert_promotes(impl.numpy.int16(1) + 1, "i2", False)


def test_int16_scalar_plus_numpy_array_uses_the_lattice(impl: Impl, x64: bool) -> None:
    """np.array(1) is a typed int64 array, not a weak scalar: int64 with x64, int32 without."""
    result = impl.numpy.int16(1) + np.array(1)
    assert np.dtype(result.dtype) == np.dtype("int64" if x64 else "int32")


def test_numpy_operands_are_canonicalized_before_they_are_joined(impl: Impl) -> None:
    """While x64 is off a uint64 NumPy array counts as uint32, so with int8 it gives int32 (joined
    as uint64 first, the two would meet at a float)."""
    assert_promotes(impl.numpy.add(np.ones(2, np.uint64), impl.numpy.ones(2, "int8")), "i4", False)


def test_bfloat16_and_float16_promote_to_float32(impl: Impl) -> None:
    a, b = impl.numpy.ones(2, impl.numpy.bfloat16), impl.numpy.ones(2, impl.numpy.float16)
    assert np.dtype((a + b).dtype) == np.dtype("float32")


@pytest.mark.parametrize("signed", ["int8", "int16", "int32", "int64"])
def test_uint64_and_a_signed_int_promote_to_a_float(impl: Impl, flags, signed: str) -> None:
    flags("jax_enable_x64", True)
    result = impl.numpy.ones(2, "uint64") + impl.numpy.ones(2, signed)
    assert np.dtype(result.dtype) == np.dtype("float64")


def test_python_int_times_int8_array_stays_int8(impl: Impl) -> None:
    x = impl.numpy.arange(5, dtype="int8")
    result = 2 * x
    assert np.dtype(result.dtype) == np.dtype("int8")
    np.testing.assert_array_equal(np.asarray(result), [0, 2, 4, 6, 8])


@pytest.mark.parametrize("signed", ["int8", "int16", "int32"])
def test_uint32_and_a_signed_int_give_int32_without_x64(impl: Impl, signed: str) -> None:
    """With x64 off no 64-bit type is formed, so the table's int64 becomes int32 (not canonicalized
    afterwards: int32 is the join itself), for promote_types, result_type and arithmetic alike."""
    u32, s = np.dtype("uint32"), np.dtype(signed)
    assert np.dtype(impl.numpy.promote_types(u32, s)) == np.dtype("int32")
    assert np.dtype(impl.numpy.result_type(u32, s)) == np.dtype("int32")
    result = impl.numpy.asarray(np.array([4_000_000_000], u32)) + impl.numpy.ones(1, s)
    assert np.dtype(result.dtype) == np.dtype("int32")
    # 4e9 does not fit in int32: the conversion wraps (4_000_000_001 - 2**32).
    np.testing.assert_array_equal(np.asarray(result), [4_000_000_001 - 2**32])


def test_typed_int32_scalar_times_int8_array_gives_int32(impl: Impl) -> None:
    x = impl.numpy.arange(5, dtype="int8")
    result = impl.numpy.int32(2) * x
    assert np.dtype(result.dtype) == np.dtype("int32")
    np.testing.assert_array_equal(np.asarray(result), [0, 2, 4, 6, 8])


# --- strict mode -----------------------------------------------------------------------------------

STRICT_MESSAGE = (
    "Input dtypes {} have no available implicit dtype promotion path when "
    "jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired output type, "
    "or set jax_numpy_dtype_promotion=standard."
)


def strict_messages(*names: str) -> set[str]:
    """JAX's message names the dtypes in set-iteration order (jax 0.10.2 prints ('int32', 'float32')
    for float32 + int32; its documentation shows the other order), so either order is accepted."""
    return {STRICT_MESSAGE.format(order) for order in (names, names[::-1])}


def test_strict_mode_rejects_float32_plus_int32(impl: Impl) -> None:
    x, y = impl.numpy.float32(1), impl.numpy.int32(1)
    with impl.numpy_dtype_promotion("strict"), pytest.raises(impl.TypePromotionError) as info:
        x + y
    assert str(info.value) in strict_messages("float32", "int32")


def test_strict_mode_still_allows_weak_scalars(impl: Impl) -> None:
    x = impl.numpy.float32(1)
    with impl.numpy_dtype_promotion("strict"):
        z = x + 1
    assert np.dtype(z.dtype) == np.dtype("float32")
    assert float(np.asarray(z)) == 2.0


def test_strict_mode_joins_python_scalars_as_weak_types(impl: Impl) -> None:
    """Weakly typed values alone promote in strict mode too: 1 + 1.0 is a weak float."""
    with impl.numpy_dtype_promotion("strict"):
        results = [impl.numpy.add(1, 1.0), impl.numpy.asarray(1) + impl.numpy.asarray(1.0)]
    for result in results:
        assert_promotes(result, "f*", x64=False)


def test_strict_mode_ends_with_its_context(impl: Impl) -> None:
    x, y = impl.numpy.float32(1), impl.numpy.int32(1)
    with impl.numpy_dtype_promotion("strict"):
        pass
    assert np.dtype((x + y).dtype) == np.dtype("float32")


def test_strict_mode_through_the_config_flag(impl: Impl, flags) -> None:
    x, y = impl.numpy.float32(1), impl.numpy.int32(1)
    flags("jax_numpy_dtype_promotion", "strict")
    with pytest.raises(impl.TypePromotionError):
        x + y
    flags("jax_numpy_dtype_promotion", "standard")
    assert np.dtype((x + y).dtype) == np.dtype("float32")


def test_type_promotion_error_is_a_value_error(impl: Impl) -> None:
    assert issubclass(impl.TypePromotionError, ValueError)


# --- weak types per family of functions (dtype_rules.weak_result) ---------------------------------

# W stands for a weak float array (jnp.full((2, 3), 2.0): weak like the Python 2.0 it holds), S for a
# strong float32 one. name -> (family, operands as the rule sees them, the call on (jnp, lax, W, S)).
F = np.dtype("float32")
FAMILY_CASES: dict[str, tuple[str, tuple, Any]] = {
    "jnp.sin(W)": ("elementwise", (2.0,), lambda jnp, lax, W, S: jnp.sin(W)),
    "jnp.add(W, W)": ("elementwise", (2.0, 2.0), lambda jnp, lax, W, S: jnp.add(W, W)),
    "jnp.add(W, S)": ("elementwise", (2.0, F), lambda jnp, lax, W, S: jnp.add(W, S)),
    "jnp.less(W, W)": ("elementwise", (2.0, 2.0), lambda jnp, lax, W, S: jnp.less(W, W)),
    "jnp.less(W, S)": ("elementwise", (2.0, F), lambda jnp, lax, W, S: jnp.less(W, S)),
    "jnp.logical_and(W, W)": ("constant", (2.0, 2.0), lambda jnp, lax, W, S: jnp.logical_and(W, W)),
    "jnp.logical_and(W[0, 0], 3.0)": ("constant", (2.0, 3.0), lambda jnp, lax, W, S: jnp.logical_and(W[0, 0], 3.0)),
    "jnp.logical_or(S[0, 0] > 0, 3.0)": ("constant", (np.bool_, 3.0),
                                         lambda jnp, lax, W, S: jnp.logical_or(S[0, 0] > 0, 3.0)),
    "jnp.hypot(W, 3.0)": ("constant", (2.0, 3.0), lambda jnp, lax, W, S: jnp.hypot(W, 3.0)),
    "jnp.reshape(W)": ("elementwise", (2.0,), lambda jnp, lax, W, S: jnp.reshape(W, (3, 2))),
    "jnp.transpose(W)": ("elementwise", (2.0,), lambda jnp, lax, W, S: jnp.transpose(W)),
    "jnp.concatenate([W, W])": ("elementwise", (2.0, 2.0), lambda jnp, lax, W, S: jnp.concatenate([W, W])),
    "jnp.concatenate([W, S])": ("elementwise", (2.0, F), lambda jnp, lax, W, S: jnp.concatenate([W, S])),
    "jnp.where(c, W, 3.0)": ("elementwise", (2.0, 3.0), lambda jnp, lax, W, S: jnp.where(S > 0, W, 3.0)),
    "W[0]": ("elementwise", (2.0,), lambda jnp, lax, W, S: W[0]),
    "jnp.sum(W)": ("reduction", (2.0,), lambda jnp, lax, W, S: jnp.sum(W)),
    "jnp.max(W, axis=0)": ("reduction", (2.0,), lambda jnp, lax, W, S: jnp.max(W, axis=0)),
    "jnp.argmax(W)": ("reduction", (2.0,), lambda jnp, lax, W, S: jnp.argmax(W)),
    "jnp.zeros(3)": ("creation", (), lambda jnp, lax, W, S: jnp.zeros(3)),
    "jnp.full(3, 2.0)": ("fill", (2.0,), lambda jnp, lax, W, S: jnp.full(3, 2.0)),
    "jnp.zeros_like(W)": ("fill", (2.0,), lambda jnp, lax, W, S: jnp.zeros_like(W)),
    "jnp.asarray(W, dtype)": ("convert", (2.0,), lambda jnp, lax, W, S: jnp.asarray(W, dtype=np.float32)),
    "lax.add(W, W)": ("elementwise", (2.0, 2.0), lambda jnp, lax, W, S: lax.add(W, W)),
    "lax.reduce_sum(W)": ("elementwise", (2.0,), lambda jnp, lax, W, S: lax.reduce_sum(W, (0,))),
    "lax.transpose(W)": ("elementwise", (2.0,), lambda jnp, lax, W, S: lax.transpose(W, (1, 0))),
    "lax.pad(W, 0.0)": ("elementwise", (2.0, 0.0), lambda jnp, lax, W, S: lax.pad(W, 0.0, [(1, 0, 0), (0, 0, 0)])),
    "lax.convert_element_type(W)": ("convert", (2.0,), lambda jnp, lax, W, S: lax.convert_element_type(W, F)),
    "lax.argmax(W)": ("index", (2.0,), lambda jnp, lax, W, S: lax.argmax(W, 0, np.int32)),
}


# The operands' shapes, for the families that depend on them (W and S are (2, 3); scalars ()).
FAMILY_SHAPES = {"jnp.logical_and(W, W)": [(2, 3), (2, 3)], "jnp.hypot(W, 3.0)": [(2, 3), ()]}


@pytest.mark.parametrize("case", list(FAMILY_CASES))
def test_weak_type_follows_the_family_rule(impl: Impl, case: str) -> None:
    family, operands, call = FAMILY_CASES[case]
    weak_array, strong_array = impl.numpy.full((2, 3), 2.0), np.ones((2, 3), np.float32)
    assert_weak(weak_array, True, "jnp.full((2, 3), 2.0)")
    want = dr.weak_result(family, *operands, shapes=FAMILY_SHAPES.get(case))
    show_call(f"{lambda_body(call)}  # {'weakly' if want else 'strongly'} typed",
              W=Source("jnp.full((2, 3), 2.0)"), S=strong_array)  # fmt: skip
    got = call(impl.numpy, impl.lax, weak_array, strong_array)
    assert_weak(got, want, f"{case} ({family})")
