"""The key primitives compiled by XLA: Threefry written with lax and lowered in place, so the
compiled bits must be the eager bits exactly, for every distribution built on them."""

import numpy as np
import pytest
from lowering_harness import run_compiled, to_host

import didax
import didax.numpy as jnp
from didax import lax, random, xla
from didax.lowering import lower_module

KEY = random.key(42)
RAW = random.PRNGKey(7)


def check_exact(f, *args, ulps=0, scale=0.0):
    """Compiled and eager outputs (a flat tuple, or one array) equal bit for bit (floats: within
    ``ulps`` units in the last place: XLA fuses a multiply and an add into one rounding, and
    computes erf_inv by its own polynomial). ``scale``: the size of the terms before a sum, whose
    units in the last place also bound the error of a result that cancels to less."""
    eager = f(*args)
    eager = list(eager) if isinstance(eager, tuple) else [eager]
    compiled = run_compiled(f, *args)
    assert len(compiled) == len(eager)
    for got, want in zip(compiled, eager):
        want = to_host(want)
        assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
        if ulps and want.dtype.kind == "f":
            eps = float(didax.numpy.finfo(want.dtype).eps)
            np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=ulps * eps,
                                       atol=ulps * eps * scale)  # fmt: skip
        else:
            np.testing.assert_array_equal(got, want)


@pytest.fixture
def x64():
    didax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        didax.config.update("jax_enable_x64", False)


@pytest.mark.parametrize("shape", [(), (3,), (2, 5), (4, 1, 3)])
def test_bits_split_fold_in(shape):
    check_exact(lambda k: (random.bits(k, shape), random.bits(k, shape, jnp.uint8), random.bits(k, shape, jnp.uint16)),
                KEY)  # fmt: skip
    check_exact(lambda k: (random.split(k), random.split(k, 5), random.fold_in(k, 3), random.fold_in(k, 2**32 - 1)),
                KEY)  # fmt: skip
    check_exact(lambda k: (random.split(k, 3), random.fold_in(k, 11), random.bits(k, shape)), RAW)


def test_seed_wrap_unwrap_and_traced_fold_in_data():
    check_exact(lambda s: (random.key(s), random.PRNGKey(s), random.key_data(random.key(s))), jnp.int32(-5))
    check_exact(lambda w: random.bits(random.wrap_key_data(w), (4,)), random.key_data(KEY))
    check_exact(lambda k, d: random.fold_in(k, d), KEY, jnp.uint32(123456))


def test_keys_in_arrays_and_loops():
    keys = random.split(KEY, 4)
    check_exact(lambda ks: didax.vmap(lambda k: random.uniform(k, (3,)))(ks), keys)
    check_exact(lambda ks: didax.vmap(random.bits)(ks[1:3][::-1]), keys)
    # keys as a scan's xs and carry
    check_exact(lambda ks: lax.scan(lambda c, k: (random.fold_in(c, 1), random.bits(k, (2,))), KEY, ks), keys)
    # keys as a scan's ys, a while loop's carry and a cond's result
    check_exact(lambda k: lax.scan(lambda c, _: (random.split(c)[0], random.split(c)[1]), k, None, length=3), KEY)
    check_exact(lambda k: lax.fori_loop(0, jnp.int32(3), lambda i, c: random.fold_in(c, i), k), KEY)
    check_exact(lambda i, k: lax.switch(i, [lambda k: k, lambda k: random.split(k)[1]], k), jnp.int32(1), KEY)


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float16, jnp.bfloat16])
def test_float_distributions(dtype):
    check_exact(lambda k: (random.uniform(k, (7,), dtype), random.exponential(k, (4,), dtype)), KEY)
    # u * (max - min) + min: XLA's CPU compiler fuses it into one rounding (JAX's jit differs
    # from its eager result the same way), on some CPUs and not others; a result near 0 cancels,
    # so its error is an ulp of u * 7, up to 7 (in float16 on an Intel Xeon: 0.1533 against 0.1523)
    check_exact(lambda k: random.uniform(k, (2, 3), dtype, -2.0, 5.0), KEY, ulps=1, scale=7.0)
    # normal's bits and uniforms are exact; its erf_inv is XLA's polynomial, which eager follows
    # to within 2 ulp (lax/xla_float32.py), of the terms' size 1 where a sample cancels near 0
    check_exact(lambda k: (random.normal(k, (50,), dtype), random.truncated_normal(k, -1.0, 2.0, (9,), dtype)), KEY,
                ulps=2, scale=1.0)  # fmt: skip


def test_integer_distributions_and_permutation():
    check_exact(lambda k: (random.randint(k, (10,), 0, 10), random.randint(k, (3, 4), -100, 7, jnp.int8),
                           random.bernoulli(k, 0.3, (8,))), KEY)  # fmt: skip
    check_exact(lambda k: (random.permutation(k, 10), random.permutation(k, jnp.arange(12.0).reshape(3, 4), 1),
                           random.choice(k, 5, (3,), replace=False)), KEY)  # fmt: skip


def test_64_bit(x64):
    check_exact(lambda k: (random.bits(k, (5,)), random.uniform(k, (5,)), random.exponential(k, (3,)),
                           random.randint(k, (6,), -(2**40), 2**40, jnp.int64)), KEY)  # fmt: skip
    check_exact(lambda k: random.normal(k, (30,)), KEY, ulps=32)  # float64 erf_inv: Halley's method vs XLA's
    check_exact(lambda s: random.key(s), jnp.int64(2**40 + 3))


def test_gamma_follows_the_eager_sampler():
    a = jnp.asarray(np.array([0.3, 1.0, 2.5, 10.0], np.float32))
    compiled = run_compiled(lambda k, a: (random.gamma(k, a), random.loggamma(k, a)), KEY, a)
    eager = [random.gamma(KEY, a), random.loggamma(KEY, a)]
    for got, want in zip(compiled, eager):
        np.testing.assert_allclose(got, np.asarray(want), rtol=2e-6)
    (beta,) = run_compiled(lambda k: random.beta(k, 2.0, 3.0, (5,)), KEY)
    np.testing.assert_allclose(beta, np.asarray(random.beta(KEY, 2.0, 3.0, (5,))), rtol=1e-5)


def test_threefry_is_plain_integer_arithmetic_in_the_text():
    text = xla.pretty(lower_module("f", didax.make_jaxpr(lambda k: random.bits(k, (2,)))(KEY)))
    assert "func.func public @main(%arg0: tensor<2xui32>)" in text
    assert "stablehlo.xor" in text and "stablehlo.shift_left" in text and "rng" not in text


def test_gamma_under_jit_gives_jaxs_bits_with_its_parameters_constant():
    """The sampler is a private function of the module, as JAX's jitted gamma is: with ``a`` a
    constant of the program, MLIR could otherwise fold it into the sampler's arithmetic before XLA
    sees it, and about 6 % of samples came out a few ulp from JAX's. Oracle: real JAX's jit."""
    jax = pytest.importorskip("jax")
    programs = [
        lambda r, k: r.gamma(k, 2.5, (2000,)),
        lambda r, k: r.beta(k, 2.5, 2.0, (500,)),  # two samplers in one program (t and ball too, measured)
    ]
    for program in programs:
        got = didax.jit(lambda k: program(random, k))(random.key(1))
        want = jax.jit(lambda k: program(jax.random, k))(jax.random.key(1))
        np.testing.assert_array_equal(np.asarray(got).view(np.uint32), np.asarray(want).view(np.uint32))
    text = didax.jit(lambda k: random.gamma(k, 2.5, (3,))).lower(random.key(1)).as_text()
    assert "func.func private @gamma" in text and "call @gamma" in text
