"""Lowering of sort, top_k, argmax/argmin and the cumulative reductions, compiled by XLA and
compared with eager evaluation: NaNs, signed zeros, ties, several operands and keys; and fft."""

import numpy as np
import pytest
from lowering_harness import check_compiled

import didax
import didax.numpy as jnp
from didax import lax

rng = np.random.default_rng(3)
NAN, INF = np.nan, np.inf
SPECIAL = np.array([[3.0, NAN, -0.0, 0.0, -INF, 1.0, -NAN, INF], [0.0, -0.0, 2.0, 2.0, NAN, -1.0, 0.0, -0.0]])
FLOATS = [jnp.asarray(SPECIAL.astype(d)) for d in (np.float32, np.float64, jnp.bfloat16, np.float16)]
INTS = [jnp.asarray(rng.integers(-3, 3, size=(3, 7)).astype(np.int8)),
        jnp.asarray(rng.integers(0, 4, size=(3, 7)).astype(np.uint32)),
        jnp.asarray(rng.integers(0, 2, size=(3, 7)).astype(np.bool_))]  # fmt: skip
ALL = FLOATS + INTS
IDS = ["f32", "f64", "bf16", "f16", "i8", "u32", "bool"]


@pytest.mark.parametrize("x", ALL, ids=IDS)
def test_sort_puts_nans_last(x):
    check_compiled(lambda x: (jnp.sort(x), jnp.sort(x, axis=0), lax.sort(x, 0, is_stable=False)), x)


@pytest.mark.parametrize("x", ALL, ids=IDS)
def test_sort_several_operands_and_keys(x):
    """Later operands follow the keys; with num_keys=2 the second key breaks ties of the first."""
    n = x.shape[-1]
    perm = jnp.asarray(rng.permutation(n * x.shape[0]).reshape(x.shape).astype(np.int32))
    ties = jnp.asarray((np.arange(n * x.shape[0]) % 3).reshape(x.shape).astype(np.float32))
    check_compiled(lambda x, p, t: (*lax.sort((x, p), num_keys=1), *lax.sort((t, x, p), num_keys=2),
                                    *lax.sort((x, t, p), dimension=0, num_keys=2), jnp.argsort(x)),
                   x, perm, ties)  # fmt: skip


def test_sort_complex_lexicographic():
    z = jnp.asarray(np.array([1 + 2j, 1 - 1j, NAN + 0j, -0.0 + 1j, 0.0 + 1j, 1j * NAN, -1 + 5j], np.complex64))
    check_compiled(lambda z: (jnp.sort(z), *lax.sort((z, jnp.arange(7)), num_keys=1)), z)


@pytest.mark.parametrize("x", ALL, ids=IDS)
def test_top_k(x):
    """Largest first, ties to the lower index; NaN above inf, -NaN below -inf, as eager orders them."""
    check_compiled(lambda x: (*lax.top_k(x, 3), *lax.top_k(x, x.shape[-1]), *lax.top_k(x, 1, axis=0)), x)


@pytest.mark.parametrize("x", ALL, ids=IDS)
def test_argmax_argmin_first_nan_and_first_tie(x):
    check_compiled(lambda x: (jnp.argmax(x, 1), jnp.argmin(x, 1), jnp.argmax(x, 0), jnp.argmin(x, 0),
                              lax.argmax(x, 1, np.uint8), lax.argmin(x, 0, np.int64)), x)  # fmt: skip


def test_argmax_of_all_infinities_and_lowest_integers():
    check_compiled(lambda x: (jnp.argmax(x, 1), jnp.argmin(-x, 1)), jnp.full((2, 3), -np.inf, jnp.float32))
    check_compiled(lambda x: (jnp.argmax(x), jnp.argmin(x)), jnp.asarray([-128, -128, 127, 127], jnp.int8))


def _combiner(module_text: str) -> str:
    """The reduce region of a lowered argmax, made the body of a function of its four operands."""
    lines = module_text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("^bb0("))
    end = next(i for i, line in enumerate(lines) if '"stablehlo.return"' in line)
    params = lines[start].strip()[len("^bb0("):-len("):")]
    results = lines[end].split(" : ")[-1].split(" -> ")[0]  # (tensor<f32>, tensor<i32>)
    returned = lines[end].replace('"stablehlo.return"', '"func.return"')
    body = "\n".join([*lines[start + 1:end], returned])
    return f"module @combiner {{\n  func.func public @main({params}) -> {results} {{\n{body}\n  }}\n}}"


@pytest.mark.parametrize("arg", [jnp.argmax, jnp.argmin])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_argmax_combiner_does_not_care_which_operand_comes_first(arg, dtype):
    """XLA may combine a reduction's elements in any order (the CPU goes in order, a GPU reduces
    in a tree), so argmax's combiner must give the same index with its operands swapped: for two
    NaNs the smaller index, as for two equal numbers."""
    from didax import make_jaxpr, xla
    from didax.lowering import lower_module

    values = [NAN, -INF, -0.0, 0.0, 1.0, INF] if dtype == np.float32 else [-(2**31), -1, 0, 7]
    text = lower_module("f", make_jaxpr(lambda x: arg(x, 0))(np.zeros(4, dtype)))
    device = xla.default_device()
    scalar, index = np.dtype(dtype), np.dtype(np.int32)
    exe = xla.compile(_combiner(text), device, [didax.core.ShapedArray((), scalar), didax.core.ShapedArray((), index)])

    def combine(v1, i1, v2, i2):
        args = [xla.put(np.asarray(v, t), device) for v, t in ((v1, scalar), (i1, index), (v2, scalar), (i2, index))]
        return int(xla.fetch(exe.run(args)[1], index))

    for v1 in values:
        for v2 in values:
            assert combine(v1, 0, v2, 1) == combine(v2, 1, v1, 0), (v1, v2)
            if v1 == v2 or (np.isnan(v1) and np.isnan(v2)):
                assert combine(v1, 0, v2, 1) == 0, (v1, v2)  # a tie: the first


CUMULATIVE = [lax.cumsum, lax.cumprod, lax.cummax, lax.cummin]


@pytest.mark.parametrize("x", ALL[:-1], ids=IDS[:-1])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative(x, reverse):
    """NaN propagates; signed zeros as XLA orders them; 16-bit floats summed in float32."""
    check_compiled(lambda x: [f(x, axis, reverse) for f in CUMULATIVE for axis in (0, 1)], x, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, jnp.bfloat16, np.complex64])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumlogsumexp(dtype, reverse):
    x = rng.normal(size=(3, 6)) * 30
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=(3, 6))
    else:
        x[0, 2], x[1, :3], x[2, 4] = np.inf, -np.inf, np.nan
    x = jnp.asarray(x.astype(dtype))
    check_compiled(lambda x: (lax.cumlogsumexp(x, 1, reverse), lax.cumlogsumexp(x, 0, reverse)), x, rtol=1e-5)


def test_jnp_cumulative_functions():
    x = jnp.asarray(rng.normal(size=(3, 5)).astype(np.float32))
    i = jnp.asarray(rng.integers(-3, 4, size=(3, 5)).astype(np.int32))
    check_compiled(lambda x, i: (jnp.cumsum(x, 1), jnp.cumprod(i, 0), jnp.cumsum(i), jnp.cumsum(x > 0, 1)), x, i,
                   rtol=1e-6)  # fmt: skip


def test_empty_operands():
    """Nothing to sort, accumulate or take: XLA's windows must not be empty, so an empty axis is
    returned as it is."""
    e = jnp.zeros((3, 0), jnp.float32)
    check_compiled(lambda e: (lax.cumsum(e, 1), lax.cummax(e, 1, True), lax.cumlogsumexp(e, 1), lax.cumsum(e, 0),
                              jnp.sort(e, 1)), e)  # fmt: skip
    x = jnp.arange(6.0).reshape(2, 3)
    check_compiled(lambda x: (*lax.top_k(x, 0), lax.cumsum(x[:, :1], 1, True)), x)


def test_fft_is_stablehlos_fft_of_each_kind():
    """All four kinds, over one to three axes, in both precisions: XLA's transform against eager
    (NumPy's), which differ by rounding only."""
    x = rng.normal(size=(3, 4, 6)).astype(np.float32)
    z = (x + 1j * rng.normal(size=x.shape)).astype(np.complex64)
    check_compiled(lambda x, z: (jnp.fft.fft(z), jnp.fft.ifft2(z), jnp.fft.rfftn(x), jnp.fft.irfft(z, n=9),
                                 jnp.fft.irfftn(z, s=(2, 4, 5))), x, z, rtol=0, atol=2e-5)
    with didax.enable_x64():
        check_compiled(lambda x: (jnp.fft.rfft2(x), jnp.fft.ifftn(x)), x.astype(np.float64), rtol=0, atol=1e-12)
    assert "stablehlo.fft %arg0, type = RFFT, length = [4, 6]" in didax.jit(jnp.fft.rfft2).lower(x).as_text()
