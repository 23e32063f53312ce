"""The first lowering rules, compiled by XLA and compared with eager evaluation (NumPy)."""

import numpy as np
import pytest
from lowering_harness import check_compiled, run_compiled

import didax
import didax.numpy as jnp
from didax import lax, xla
from didax.lowering import lower_module

rng = np.random.default_rng(0)
X = jnp.asarray(rng.normal(size=(2, 3)).astype(np.float32))
W = jnp.asarray(rng.normal(size=(3, 4)).astype(np.float32))


@pytest.mark.parametrize("fn", [jnp.sin, jnp.cos, jnp.tanh, jnp.exp, jnp.log1p, jnp.expm1, jnp.abs, jnp.floor,
                                jnp.negative, jnp.sign, jnp.arctan, jnp.sinh, jnp.cbrt])  # fmt: skip
def test_unary_float(fn):
    check_compiled(fn, X, rtol=2e-6)


@pytest.mark.parametrize("fn", [jnp.add, jnp.subtract, jnp.multiply, jnp.maximum, jnp.minimum, jnp.arctan2,
                                jnp.greater, jnp.less_equal, jnp.equal, jnp.not_equal])  # fmt: skip
def test_binary_broadcasting(fn):
    check_compiled(fn, X, jnp.mean(X, 0))


def test_integers_and_bits():
    a = jnp.asarray(rng.integers(-50, 50, size=(4, 5)).astype(np.int32))
    b = jnp.asarray(rng.integers(1, 7, size=(4, 5)).astype(np.int32))
    check_compiled(lambda a, b: (a + b, a * b, a // b, a % b, a << 2, a >> 1, a & b, a | b, a ^ b, ~a, a**3), a, b)
    u = jnp.asarray(rng.integers(0, 255, size=(6,)).astype(np.uint8))
    check_compiled(lambda u: (u >> 3, didax.lax.population_count(u), didax.lax.clz(u), u > 100), u)


def test_select_clamp_convert():
    check_compiled(lambda x: (jnp.where(x > 0, x, 0.5 * x), jnp.clip(x, -0.5, 0.5), x.astype(jnp.int8),
                              x.astype(bool), x.astype(jnp.float16)), X)  # fmt: skip
    idx = jnp.asarray(np.array([[0, 1, 2], [2, 1, 0]], np.int32))
    check_compiled(lambda i, x: didax.lax.select_n(i, x, x + 1, x + 2), idx, X)
    check_compiled(lambda x: jnp.asarray(x, jnp.complex64) * 1j, X)
    check_compiled(lambda x: (jnp.round(x * 4), didax.lax.round(x * 4, 0), x**-2, x**0), X)


def test_structural_reductions_dot():
    check_compiled(lambda x, w: (x.T, x.reshape(6), jnp.sum(x, 0), jnp.max(x), jnp.min(x, 1), jnp.prod(x), x @ w,
                                 jnp.arange(3.0) + jnp.zeros((2, 3)), jnp.all(x > -1), jnp.any(x > 1)),
                   X, W, rtol=2e-6)  # fmt: skip


def test_module_text_is_stablehlo():
    closed = didax.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(X)
    text = xla.pretty(lower_module("f", closed))
    assert text.startswith("module @jit_f")
    assert "stablehlo.sine %arg0 : tensor<2x3xf32>" in text
    assert "func.func public @main(%arg0: tensor<2x3xf32>)" in text


def test_missing_rule_is_named():
    """A primitive with no lowering rule: the error names it and the kind of rule missing."""
    from didax.core import Primitive

    mystery_p = Primitive("mystery")
    mystery_p.def_impl(lambda x: x)
    mystery_p.def_abstract_eval(lambda x: x)
    with pytest.raises(NotImplementedError, match="Lowering rule for 'mystery' not implemented"):
        run_compiled(lambda x: mystery_p.bind(x), X)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.uint32])
def test_integer_division_by_zero_and_overflow(dtype):
    """XLA's defined results (x / 0 = -1, x % 0 = x, MIN / -1 = MIN, MIN % -1 = 0), on arguments
    and on constants that XLA folds while compiling (which crashed the process before)."""
    info = np.iinfo(dtype)
    x = jnp.asarray(np.array([7, 9, info.min, info.max, 0, 5], dtype))
    y = jnp.asarray(np.array([2, 0, -1 if info.min < 0 else 3, 0, 0, 3]).astype(dtype))
    check_compiled(lambda x, y: (didax.lax.div(x, y), didax.lax.rem(x, y)), x, y)
    check_compiled(lambda x: didax.lax.rem(jnp.full((2,), 16, dtype), jnp.zeros(2, dtype)) + x[:2], x)


def test_randint_with_a_span_that_wraps_compiles():
    """randint(int8, -200, 300): its span, 256, wraps to 0 in uint8, a constant remainder by 0."""
    key = didax.random.key(0)
    f = lambda k: didax.random.randint(k, (4,), -200, 300, jnp.int8)  # noqa: E731
    np.testing.assert_array_equal(run_compiled(f, key)[0], np.asarray(f(key)))


def test_reduce_precision_is_stablehlos_and_keeps_every_bit():
    """XLA's operation against eager evaluation, bit for bit, NaNs and both overflows included."""
    bits = np.random.default_rng(1).integers(0, 2**32, size=4096, dtype=np.uint64).astype(np.uint32)
    x = jnp.asarray(bits.view(np.float32))
    for e, m in [(5, 10), (8, 7), (4, 3), (2, 0)]:
        compiled = didax.jit(lambda a: lax.reduce_precision(a, e, m))(x)
        np.testing.assert_array_equal(np.asarray(compiled).view(np.uint32),
                                      np.asarray(lax.reduce_precision(x, e, m)).view(np.uint32))
    text = didax.jit(lambda a: lax.reduce_precision(a, 5, 10)).lower(x).as_text()
    assert "stablehlo.reduce_precision %arg0, format = e5m10" in text
