"""jax.numpy elementwise functions and operators against NumPy: values and result dtypes.

The oracle converts the inputs to the dtype the JAX rules say the computation happens in, widens them
(int64, float64, complex128) and applies the NumPy function; the expected dtype comes from
dtype_rules (the promotion table plus JAX's per-function rules), never from NumPy. The operands of
binary functions and operators are NumPy arrays, now and then a weakly typed one instead (a Python
scalar, or the implementation's array of one: strategies.maybe_weak), whose weak code the table
joins like any other.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from conformance import dtype_rules as dr
from conformance import strategies as S
from conformance.checks import RTOL, as_operand, assert_dtype, assert_values, draw_x64, show_call
from conformance.impl import Impl
from conformance.strategies import Domain

pytestmark = [pytest.mark.area("numpy"), pytest.mark.requires("eval")]

DtypeRule = Callable[[np.dtype, bool], np.dtype]


def same(dt: np.dtype, x64: bool) -> np.dtype:
    return dt


def boolean(dt: np.dtype, x64: bool) -> np.dtype:
    return np.dtype(bool)


def numeric(dt: np.dtype, x64: bool) -> np.dtype:
    return dr.numeric(dt)


def real(dt: np.dtype, x64: bool) -> np.dtype:
    return dr.real_dtype(dt)


@dataclass(frozen=True, repr=False)
class Op:
    """One jnp function: its NumPy oracle, the dtypes JAX accepts, and its dtype rules.

    `compute` maps the promoted input dtype to the dtype the operation computes in, `result` maps
    the compute dtype to the result dtype. `domains` holds one Domain per operand; `int_domains`
    replaces them when the computation is on integers (e.g. no negative integer exponents).
    """

    name: str
    oracle: Callable[..., np.ndarray]
    dtypes: tuple[np.dtype, ...]
    compute: DtypeRule = same
    result: DtypeRule = same
    domains: tuple[Domain, ...] = (S.DEFAULT, S.DEFAULT)
    int_domains: tuple[Domain, ...] | None = None
    atol: float = 1.0  # absolute tolerance, in units of the dtype's rtol
    weak_family: str = "elementwise"  # dtype_rules.weak_result's family for the result's weak type
    # The operands take their joined dtype before the compute dtype (JAX's jnp.atan2 is arctan2 of
    # promote_args: a Python int wraps into an integer array's dtype first); else they are
    # converted to the compute dtype directly, as JAX's promote_args_inexact does.
    promotes_first: bool = False

    def __repr__(self) -> str:
        return f"Op({self.name!r})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # hypothesis prints this
        printer.text(repr(self))

    def domains_for(self, compute_dtype: np.dtype) -> tuple[Domain, ...]:
        if self.int_domains is not None and compute_dtype.kind in "biu":
            return self.int_domains
        return self.domains


NO_BOOL = S.NUMBER
NO_COMPLEX = S.REAL


def unary(name: str, oracle: Callable, dtypes: tuple, compute: DtypeRule = same, result: DtypeRule = same,
          domain: Domain = S.DEFAULT, int_domain: Domain | None = None) -> Op:  # fmt: skip
    return Op(name, oracle, dtypes, compute, result, (domain,), None if int_domain is None else (int_domain,))


UNARY = [
    unary("negative", np.negative, NO_BOOL),
    unary("abs", np.abs, S.ALL, result=real),
    unary("absolute", np.absolute, S.ALL, result=real),
    unary("sign", np.sign, NO_BOOL),
    unary("exp", np.exp, S.ALL, compute=dr.inexact, domain=Domain(-5, 5)),
    unary("log", np.log, S.ALL, compute=dr.inexact, domain=Domain(0.1, 10)),
    unary("log1p", np.log1p, S.ALL, compute=dr.inexact, domain=Domain(-0.9, 10)),
    unary("expm1", np.expm1, S.ALL, compute=dr.inexact, domain=Domain(-5, 5)),
    unary("sin", np.sin, S.ALL, compute=dr.inexact, domain=Domain(-3, 3)),
    unary("cos", np.cos, S.ALL, compute=dr.inexact, domain=Domain(-3, 3)),
    unary("tan", np.tan, S.ALL, compute=dr.inexact, domain=Domain(-1.4, 1.4)),
    unary("tanh", np.tanh, S.ALL, compute=dr.inexact, domain=Domain(-5, 5)),
    unary("sqrt", np.sqrt, S.ALL, compute=dr.inexact, domain=Domain(0, 10)),
    unary("square", np.square, S.ALL, compute=numeric),
    unary("reciprocal", np.reciprocal, S.ALL, compute=dr.inexact, domain=S.NONZERO),
    unary("logical_not", np.logical_not, S.ALL, result=boolean),
]

BINARY = [
    Op("add", np.add, S.ALL, domains=(S.WIDE, S.WIDE)),
    Op("subtract", np.subtract, NO_BOOL, domains=(S.WIDE, S.WIDE)),
    Op("multiply", np.multiply, S.ALL, domains=(S.WIDE, S.WIDE)),
    Op("divide", np.true_divide, S.ALL, compute=dr.inexact, domains=(S.DEFAULT, S.NONZERO)),
    Op("true_divide", np.true_divide, S.ALL, compute=dr.inexact, domains=(S.DEFAULT, S.NONZERO)),
    Op("floor_divide", np.floor_divide, NO_COMPLEX, compute=numeric, domains=(S.GRID, S.GRID_NONZERO)),
    Op("remainder", np.remainder, NO_COMPLEX, compute=numeric, domains=(S.GRID, S.GRID_NONZERO)),
    Op(
        "power",
        np.power,
        S.ALL,
        compute=numeric,
        domains=(Domain(0.5, 4), Domain(-3, 3)),
        int_domains=(Domain(-4, 4), Domain(0, 4)),
    ),  # fmt: skip
    Op("maximum", np.maximum, S.ALL, domains=(S.TIES, S.TIES)),
    Op("minimum", np.minimum, S.ALL, domains=(S.TIES, S.TIES)),
    Op("equal", np.equal, S.ALL, result=boolean, domains=(S.TIES, S.TIES)),
    Op("not_equal", np.not_equal, S.ALL, result=boolean, domains=(S.TIES, S.TIES)),
    Op("less", np.less, S.ALL, result=boolean, domains=(S.TIES, S.TIES)),
    Op("less_equal", np.less_equal, S.ALL, result=boolean, domains=(S.TIES, S.TIES)),
    Op("greater", np.greater, S.ALL, result=boolean, domains=(S.TIES, S.TIES)),
    Op("greater_equal", np.greater_equal, S.ALL, result=boolean, domains=(S.TIES, S.TIES)),
    Op("logical_and", np.logical_and, S.ALL, result=boolean, domains=(S.TIES, S.TIES), weak_family="constant"),
    Op("logical_or", np.logical_or, S.ALL, result=boolean, domains=(S.TIES, S.TIES), weak_family="constant"),
]
BY_NAME = {op.name: op for op in UNARY + BINARY}


def oracle(op: Op, compute: np.dtype, *inputs: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return op.oracle(*(as_operand(x, compute) for x in inputs))


def codes_of(operands: Sequence[Any], x64: bool) -> tuple[str, ...]:
    """The table codes of operands (arrays, dtypes, Python scalars, WeakArrays), canonicalized."""
    return tuple(dr.operand_code(S.rules_operand(x), x64) for x in operands)


def compute_dtype(op: Op, codes: tuple[str, ...], shapes: tuple, x64: bool) -> np.dtype:
    """The dtype `op` computes in, from the join of the operands' codes, with one documented
    exception: jnp.power with a concrete integer scalar exponent (a 0-d integer array or a Python
    int) is lax.integer_pow on the (numeric) base."""
    if _is_integer_pow(op, codes, shapes):
        return dr.numeric(dr.dtype_of(codes[0], x64))
    return op.compute(dr.dtype_of(dr.join(*codes), x64), x64)


def _is_integer_pow(op: Op, codes: tuple[str, ...], shapes: tuple) -> bool:
    return op.name == "power" and shapes[1] == () and codes[1][0] in "iu"


def check(impl: Impl, op: Op, x64: bool, inputs: Sequence[S.Operand], got=None) -> None:
    """Call jnp.<op>(*inputs) (unless `got` is given) and compare with the oracle."""
    codes, arrays = codes_of(inputs, x64), [S.numpy_operand(x) for x in inputs]
    shapes = tuple(x.shape for x in arrays)
    compute = compute_dtype(op, codes, shapes, x64)
    want_dtype = op.result(compute, x64)
    if got is None:
        got = getattr(impl.numpy, op.name)(*(S.implementation_operand(impl.numpy, x) for x in inputs))
    operands = [S.rules_operand(x) for x in inputs]
    if op.name == "power":
        weak = dr.power_weak_result(*operands, x64=x64, integer_pow=_is_integer_pow(op, codes, shapes))
    else:
        weak = dr.weak_result(op.weak_family, *operands, x64=x64, shapes=list(shapes))
    assert_dtype(got, want_dtype, weak=weak)
    if op.promotes_first:
        joined = dr.dtype_of(dr.join(*codes), x64)
        with np.errstate(all="ignore"):
            arrays = [x.astype(joined) for x in arrays]
    want = oracle(op, compute, *arrays)
    assert_values(got, want, want_dtype, atol=op.atol * _rtol(want_dtype))


def _rtol(dt: np.dtype) -> float:
    return RTOL.get(dt.name, 0.0)


def draw_inputs(data: st.DataObject, op: Op, shapes: tuple, x64: bool, dtypes: tuple) -> list[np.ndarray]:
    """Draw one array per shape; the domains depend on the dtype the op will compute in."""
    domains = op.domains_for(compute_dtype(op, codes_of(dtypes, x64), shapes, x64))
    return [
        data.draw(S.arrays(d, s, domains[i]), label=f"x{i}") for i, (d, s) in enumerate(zip(dtypes, shapes))
    ]


@pytest.mark.parametrize("op", UNARY, ids=lambda op: op.name)
@given(data=st.data())
def test_unary_function_matches_numpy(impl: Impl, flags, op: Op, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    dt = data.draw(S.dtypes(op.dtypes), label="dtype")
    shape = data.draw(S.shapes(min_side=0), label="shape")
    (x,) = draw_inputs(data, op, (shape,), x64, (dt,))
    show_call(f"jnp.{op.name}(x)", x=x)
    check(impl, op, x64, [x])


def _draw_binary_inputs(data: st.DataObject, flags, op: Op, both_python: bool = True) -> tuple[bool, Any, Any]:
    """x64 on or off, then two broadcastable operands of dtypes ``op`` accepts (and can join), now and
    then weakly typed ones (strategies.maybe_weak); `both_python=False`: not two Python scalars."""
    x64 = draw_x64(data, flags)
    dtypes = (
        data.draw(S.dtypes(op.dtypes), label="dtype x"),
        data.draw(S.dtypes(op.dtypes), label="dtype y"),
    )
    assume(_promoted_ok(op, dtypes, x64))
    shapes = data.draw(S.broadcastable_shapes(), label="shapes")
    x, y = draw_inputs(data, op, shapes, x64, dtypes)
    x = data.draw(S.maybe_weak(x, x64), label="x")
    y = data.draw(S.maybe_weak(y, x64, python_scalar=both_python or not S.is_python_scalar(x)), label="y")
    return x64, x, y


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.name)
@given(data=st.data())
def test_binary_function_matches_numpy(impl: Impl, flags, op: Op, data: st.DataObject) -> None:
    x64, x, y = _draw_binary_inputs(data, flags, op)
    show_call(f"jnp.{op.name}(x, y)", x=x, y=y)
    check(impl, op, x64, [x, y])


def _promoted_ok(op: Op, dtypes: tuple, x64: bool) -> bool:
    """Is the promoted dtype one the op accepts? (dtype sets hold non-canonical dtypes too)."""
    promoted = dr.promote(*dtypes, x64=x64)
    return any(dr.canonicalize(d, x64) == promoted for d in op.dtypes)


@given(data=st.data())
def test_where_selects_and_promotes(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    shapes = data.draw(S.broadcastable_shapes(num_shapes=3), label="shapes")
    cond = data.draw(S.arrays(np.dtype(bool), shapes[0]), label="cond")
    x = data.draw(S.dtype_and_array([S.ALL], shapes[1]), label="x")
    y = data.draw(S.dtype_and_array([S.ALL], shapes[2]), label="y")
    x = data.draw(S.maybe_weak(x, x64), label="x or weak")
    y = data.draw(S.maybe_weak(y, x64), label="y or weak")
    show_call("jnp.where(cond, x, y)", cond=cond, x=x, y=y)
    got = impl.numpy.where(cond, *(S.implementation_operand(impl.numpy, v) for v in (x, y)))
    want_dtype = dr.dtype_of(dr.join(*codes_of((x, y), x64)), x64)
    weak = dr.weak_result("elementwise", S.rules_operand(x), S.rules_operand(y), x64=x64)
    assert_dtype(got, want_dtype, weak=weak)
    x, y = S.numpy_operand(x), S.numpy_operand(y)
    assert_values(got, np.where(cond, as_operand(x, want_dtype), as_operand(y, want_dtype)), want_dtype)


# --- operators on arrays -------------------------------------------------------------------------

# symbol -> (the Python operator, the jnp function it must agree with)
OPERATORS = {
    "+": (operator.add, "add"), "-": (operator.sub, "subtract"), "*": (operator.mul, "multiply"),
    "/": (operator.truediv, "true_divide"), "//": (operator.floordiv, "floor_divide"),
    "%": (operator.mod, "remainder"), "**": (operator.pow, "power"), "<": (operator.lt, "less"),
    "<=": (operator.le, "less_equal"), ">": (operator.gt, "greater"), ">=": (operator.ge, "greater_equal"),
    "==": (operator.eq, "equal"), "!=": (operator.ne, "not_equal"),
}  # fmt: skip


@pytest.mark.parametrize("symbol", list(OPERATORS))
@given(data=st.data())
def test_binary_operator_on_arrays(impl: Impl, flags, symbol: str, data: st.DataObject) -> None:
    python_op, name = OPERATORS[symbol]
    op = BY_NAME[name]
    x64, x, y = _draw_binary_inputs(data, flags, op, both_python=False)
    show_call(f"{as_array('x', x)} {symbol} {as_array('y', y)}", x=x, y=y)
    got = python_op(operator_operand(impl, x), operator_operand(impl, y))
    check(impl, op, x64, [x, y], got=got)


def operator_operand(impl: Impl, x: S.Operand) -> Any:
    """An operator's operand: a NumPy array becomes the implementation's; weak ones stay weak."""
    return impl.numpy.asarray(x) if isinstance(x, np.ndarray) else S.implementation_operand(impl.numpy, x)


def as_array(name: str, x: S.Operand) -> str:
    return f"jnp.asarray({name})" if isinstance(x, np.ndarray) else name


SCALARS = {"i*": 3, "f*": 0.5, "c*": 1.5j}


@pytest.mark.parametrize("symbol", ["+", "-", "*"])
@pytest.mark.parametrize("weak", list(SCALARS))
@given(data=st.data())
def test_operator_with_a_python_scalar_is_weakly_typed(
    impl: Impl, flags, symbol: str, weak: str, data: st.DataObject
) -> None:
    """x * 2 keeps x's dtype when the scalar's kind allows; otherwise the table decides."""
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([S.NUMBER], S.shapes(min_side=0)), label="x")
    scalar = SCALARS[weak]
    show_call(f"jnp.asarray(x) {symbol} {scalar!r}", x=x)
    code = dr.join(dr.code_of(dr.canonicalize(x.dtype, x64)), weak)
    want_dtype = dr.dtype_of(code, x64)
    python_op, name = OPERATORS[symbol]
    got = python_op(impl.numpy.asarray(x), scalar)
    assert_dtype(got, want_dtype, weak=dr.is_weak_code(code))
    with np.errstate(all="ignore"):
        want = BY_NAME[name].oracle(as_operand(x, want_dtype), as_operand(np.asarray(scalar), want_dtype))
    assert_values(got, want, want_dtype, atol=_rtol(want_dtype))


@given(data=st.data())
def test_negation_operator(impl: Impl, flags, data: st.DataObject) -> None:
    x64 = draw_x64(data, flags)
    x = data.draw(S.dtype_and_array([NO_BOOL], S.shapes(min_side=0)), label="x")
    show_call("-jnp.asarray(x)", x=x)
    check(impl, BY_NAME["negative"], x64, [x], got=-impl.numpy.asarray(x))


# --- division by zero, infinities, integer powers: JAX's values ---------------------------------

SPECIAL_FLOATS = np.array([-3.0, -0.0, 0.0, 3.0, 2.5, np.inf, -np.inf, np.nan])


@pytest.mark.parametrize("name", ["floor_divide", "remainder"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_float_floor_divide_and_remainder_at_zero_infinity_and_nan(impl: Impl, name: str, dtype: str) -> None:
    """Every pair of special values, NumPy as the oracle: x // 0 is +-inf (nan for 0 // 0), x % 0
    is nan, -3 // inf is -1 and -3 % inf is inf (signs of zero are not compared)."""
    x, y = (a.astype(dr.dtype(dtype)) for a in np.meshgrid(SPECIAL_FLOATS, SPECIAL_FLOATS))
    check(impl, BY_NAME[name], False, [x, y])


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint8", "uint32"])
def test_integer_division_by_zero_gives_jaxs_values(impl: Impl, dtype: str) -> None:
    """XLA's integer x / 0 is -1 (all bits set: the largest value of an unsigned type). floor_divide
    steps that down once more for a nonzero signed x (its sign differs from 0's); x % 0 is 0."""
    x = np.array([-7, -1, 0, 1, 7] if dtype[0] == "i" else [0, 1, 7, 200], dtype)
    zero = np.zeros_like(x)
    if dtype[0] == "i":
        want_quotient = np.where(x == 0, -1, -2)
    else:
        want_quotient = np.full(x.shape, np.iinfo(dtype).max)
    quotient, rest = impl.numpy.floor_divide(x, zero), impl.numpy.remainder(x, zero)
    assert_dtype(quotient, np.dtype(dtype), weak=dr.weak_result("elementwise", x, zero))
    assert_values(quotient, want_quotient, np.dtype(dtype))
    assert_dtype(rest, np.dtype(dtype), weak=dr.weak_result("elementwise", x, zero))
    assert_values(rest, np.zeros(x.shape), np.dtype(dtype))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32"])
def test_integer_power_with_negative_integer_array_exponents(impl: Impl, dtype: str) -> None:
    """As in JAX, only the low 6 bits of an exponent array count (larger powers overflow anyway),
    so -n acts as 64 - n: +-1 keep their sign by parity, 0 gives 0, and an even base gives 0 (its
    power has at least 32 factors of 2). A known scalar exponent must not be negative (TypeError)."""
    base = np.array([-1, -1, 0, 1, 2, -2, 4], dtype)
    exponent = np.array([-1, -2, -3, -4, -1, -5, -32], dtype)
    want = np.where(np.abs(base) == 1, base.astype(np.int64) ** (64 + exponent.astype(np.int64)), 0)
    got = impl.numpy.power(base, exponent)
    assert_dtype(got, np.dtype(dtype), weak=dr.weak_result("elementwise", base, exponent))
    assert_values(got, want, np.dtype(dtype))
    with pytest.raises(TypeError):
        impl.numpy.power(base, -1)


# --- Python complex scalars, complex to bool, signs and magnitudes at the edges -------------------

COMPLEX_UNARY = ["exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh", "sqrt", "reciprocal", "negative", "sign", "square"]  # fmt: skip


@pytest.mark.parametrize("name", COMPLEX_UNARY)
def test_python_complex_scalar_in_a_unary_function(impl: Impl, x64: bool, name: str) -> None:
    """jnp.exp(1j): a Python complex is a weak complex (complex64 while x64 is off), never a float."""
    z = 0.5 + 0.25j
    got = getattr(impl.numpy, name)(z)
    want_dtype = dr.dtype_of("c*", x64)
    assert_dtype(got, want_dtype, weak=dr.weak_result("elementwise", z))
    assert_values(got, BY_NAME[name].oracle(np.complex128(z)), want_dtype, atol=_rtol(want_dtype))


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "true_divide", "divide", "power", "equal"])
@pytest.mark.parametrize("scalar_first", [False, True])
def test_python_complex_scalar_with_an_integer_array(impl: Impl, x64: bool, name: str, scalar_first: bool) -> None:
    """int32 array with 1.5j: the table joins i4 and c* to a weak complex; the op computes in it.
    Except 1.5j ** int32_array: an inexact base takes integer exponents unpromoted, and the result
    is weak only if both were (the exponents are not)."""
    x, z = np.array([1, -2, 3], np.int32), 1.5j
    args = (z, x) if scalar_first else (x, z)
    got = getattr(impl.numpy, name)(*args)
    compute = dr.dtype_of(dr.join("i4", "c*"), x64)
    want_dtype = BY_NAME[name].result(compute, x64)
    # weak iff the promoted code is (c*), but an inexact base keeps its own (strong) typing in power
    weak = dr.is_weak_code(dr.join("i4", "c*")) and not (name == "power" and scalar_first)
    assert_dtype(got, want_dtype, weak=weak)
    with np.errstate(all="ignore"):
        want = BY_NAME[name].oracle(*(np.asarray(a, np.complex128) for a in args))
    assert_values(got, want, want_dtype, atol=_rtol(want_dtype))


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")  # JAX warns: the imaginary part is dropped
def test_complex_to_bool(impl: Impl) -> None:
    """astype(bool) asks whether the number is nonzero (NumPy); lax.convert_element_type of an array,
    like XLA, looks at the real part only; of a Python complex constant it converts as NumPy does."""
    z = np.array([0j, 1j, 1 + 0j, 0.5j, 2 - 3j], np.complex64)
    assert_values(impl.numpy.asarray(z).astype(bool), z.astype(bool), np.dtype(bool))
    assert_values(impl.lax.convert_element_type(impl.numpy.asarray(z), bool), z.real != 0, np.dtype(bool))
    assert_values(impl.lax.convert_element_type(1j, bool), np.array(True), np.dtype(bool))


def test_sign_keeps_the_sign_of_zero(impl: Impl) -> None:
    """sign(-0.0) is -0.0 (NumPy says 0.0), and sign(nan) is nan."""
    got = impl.numpy.sign(-0.0)
    assert float(np.asarray(got)) == 0.0 and np.signbit(np.asarray(got)), f"sign(-0.0) is {got}"
    x = np.array([-0.0, 0.0, np.nan, -np.inf, 2.5, -3.0], np.float32)
    got = np.asarray(impl.numpy.sign(x))
    np.testing.assert_array_equal(got, [-0.0, 0.0, np.nan, -1.0, 1.0, -1.0])
    np.testing.assert_array_equal(np.signbit(got[:2]), [True, False])


def test_complex_sign_and_abs_at_infinity_and_nan(impl: Impl) -> None:
    """|z| is nan when a part is nan (even with an infinite other part), else inf when a part is
    infinite; sign(z) is z / |z| taken part by part (0 stays 0): sign(inf + 1j) = inf/inf + 1/inf j."""
    inf, nan = np.inf, np.nan
    z = np.array([complex(inf, nan), complex(nan, inf), complex(nan, 1), complex(-inf, 0), complex(inf, inf),
                  complex(3, 4), complex(-0.0, -0.0), complex(inf, 1), complex(1, -inf)], np.complex64)  # fmt: skip
    want_abs = [nan, nan, nan, inf, inf, 5, 0, inf, inf]
    want_sign = [complex(nan, nan), complex(nan, nan), complex(nan, nan), complex(nan, 0), complex(nan, nan),
                 complex(0.6, 0.8), 0j, complex(nan, 0), complex(0, nan)]  # fmt: skip
    assert_values(impl.numpy.abs(z), np.array(want_abs), np.dtype("float32"))
    assert_values(impl.numpy.sign(z), np.array(want_sign), np.dtype("complex64"), atol=1e-6)


# --- weak types of logic and powers ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args", "weak"),
    [
        ("logical_and", (True, 3), True),  # promoted first: two weak ints compared with a weak 0
        ("logical_or", (1, 0), True),
        ("logical_and", (True, 3.0), True),
        ("logical_and", (True, True), False),  # bools are never weak
        ("logical_not", (3,), True),
        ("logical_not", (2.0,), True),
    ],
)
def test_logical_functions_of_python_scalars_are_weak(impl: Impl, name: str, args: tuple, weak: bool) -> None:
    got = getattr(impl.numpy, name)(*args)
    assert_dtype(got, np.dtype(bool), weak=weak)
    np.testing.assert_array_equal(np.asarray(got), getattr(np, name)(*args))


def test_logical_functions_of_arrays_are_strong(impl: Impl) -> None:
    """Only a weak *scalar* compares with a weak 0: a weak array gives a strong bool."""
    weak_array = impl.numpy.full((2,), 2)
    for got in (impl.numpy.logical_and(weak_array, 3), impl.numpy.logical_not(weak_array)):
        assert_dtype(got, np.dtype(bool), weak=False)


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16"])
def test_python_float_to_integer_array_powers_is_strong(impl: Impl, x64: bool, dtype: str) -> None:
    """2.0 ** int_array: an inexact base takes integer exponents without promotion, so the result
    is the base's dtype (the default float), weak only if both are (they are not)."""
    exponent = np.array([0, 1, 2, 5], dtype)
    for got in (2.0 ** impl.numpy.asarray(exponent), impl.numpy.power(2.0, exponent)):
        assert_dtype(got, dr.dtype_of("f*", x64), weak=False)
        assert_values(got, 2.0 ** exponent.astype(np.float64), dr.dtype_of("f*", x64))


# --- regressions -----------------------------------------------------------------------------------
# Cases the full profile found (running against stage 01), replayed on every run. Hypothesis cannot
# replay st.data() draws from an @example, so they are listed here and go through the same check.
BOOLS = (np.array(False), np.array(True))
REGRESSIONS = [
    ("abs", False, (np.array(0, np.uint64),)),  # a 64-bit input is canonicalized: uint32
    ("square", True, BOOLS[:1]),  # bools compute in int32, even with x64
    ("floor_divide", True, BOOLS),
    ("remainder", True, BOOLS),
    ("power", True, BOOLS),
    ("//", True, BOOLS),
    ("%", True, BOOLS),
    ("**", True, BOOLS),
    # A known integer scalar exponent means integer_pow: a bool base becomes int32 (not uint8).
    ("power", False, (np.array(False), np.array(0, np.uint8))),
    # Found by mutation testing (meta/mutate.py): bool + bool is a logical or, and so is bool * bool an and.
    ("add", False, (np.array([False, True, True]), np.array([True, False, True]))),
    ("multiply", False, (np.array([False, True, True]), np.array([True, False, True]))),
    # Found by mutation testing: integer floor_divide rounds toward -inf, not toward zero as C does.
    ("floor_divide", False, (np.array([-7, 7, -7, 7, -6, 0], np.int32), np.array([2, -2, -2, 2, 3, -5], np.int32))),
]


@pytest.mark.parametrize(
    ("name", "x64", "inputs"), REGRESSIONS, ids=[f"{n}-x64_{'on' if x else 'off'}" for n, x, _ in REGRESSIONS]
)
def test_regressions(impl: Impl, flags, name: str, x64: bool, inputs: tuple[np.ndarray, ...]) -> None:
    flags("jax_enable_x64", x64)
    if name in OPERATORS:
        python_op, function = OPERATORS[name]
        got = python_op(*(impl.numpy.asarray(x) for x in inputs))
        check(impl, BY_NAME[function], x64, list(inputs), got=got)
    else:
        check(impl, BY_NAME[name], x64, list(inputs))
