"""Golden values for jax.numpy functions where stage 01 once differed from JAX; the expected values
were read from JAX 0.10.2."""

import numpy as np
import pytest

import didax
import didax.numpy as jnp


def values(x) -> list:
    return np.asarray(x).tolist()


def test_linspace_takes_array_bounds_and_an_axis():
    """One range per element of the broadcast bounds, laid along the new axis (here the last)."""
    got = jnp.linspace(np.array([0.0, 1.0]), np.array([[1.0], [3.0]]), 3, axis=-1)
    assert got.shape == (2, 2, 3)
    assert values(got) == [[[0.0, 0.5, 1.0], [1.0, 1.0, 1.0]], [[0.0, 1.5, 3.0], [1.0, 2.0, 3.0]]]
    assert jnp.linspace(np.zeros(2), 1.0, 0, axis=1).shape == (2, 0)
    out, step = jnp.linspace(np.zeros(2), np.array([1.0, 2.0]), 3, retstep=True, axis=1)
    assert values(out) == [[0.0, 0.5, 1.0], [0.0, 1.0, 2.0]] and values(step) == [0.5, 1.0]


def test_geomspace_and_logspace_take_array_bounds_and_an_axis():
    got = jnp.geomspace(np.array([1.0, -2.0]), np.array([8.0, -16.0]), 4, axis=-1)
    np.testing.assert_allclose(np.asarray(got), [[1, 2, 4, 8], [-2, -4, -8, -16]], rtol=1e-6)
    got = jnp.logspace(np.array([0.0, 1.0]), 3.0, 3, base=2.0, axis=1)
    np.testing.assert_allclose(np.asarray(got), [[1, 2.828427, 8], [2, 4, 8]], rtol=1e-6)


def test_geomspace_follows_the_complex_logarithm_and_gives_nan_for_zero():
    """JAX's formula: start's sign times a logspace of log10(bound / sign), so complex bounds rotate,
    and a zero bound is nan (NumPy raises a ValueError there)."""
    got = np.asarray(jnp.geomspace(-1, 1j, 3))
    np.testing.assert_allclose(got, [-1, -np.sqrt(0.5) + np.sqrt(0.5) * 1j, 1j], atol=1e-6)
    assert np.isnan(np.asarray(jnp.geomspace(0.0, 1.0, 3))).all()


def test_geomspace_computes_in_the_inexact_type_of_its_dtype():
    """float16 in float16; an integer dtype in float32, then truncated (JAX gives [2, 4, 8, 15, 31]
    for this one: XLA's pow rounds 10 ** log10(2) up to 2, NumPy's down to 1.9999999)."""
    assert jnp.geomspace(1, 1000, 4, dtype=jnp.float16).dtype == np.float16
    assert values(jnp.geomspace(2, 32, 5, dtype=jnp.int32))[3:] == [15, 31]  # 16 and 32 come out as 15.99..


X = np.array([[0, 0, 0], [0, 1, 0], [0, 0, 2], [0, 0, 0]], np.int8)


@pytest.mark.parametrize(
    ("trim", "axis", "want"),
    [
        ("fb", None, [[1, 0], [0, 2]]),
        ("f", None, [[1, 0], [0, 2], [0, 0]]),
        ("b", 0, [[0, 0, 0], [0, 1, 0], [0, 0, 2]]),
        ("fb", -1, [[0, 0], [1, 0], [0, 2], [0, 0]]),
    ],
)
def test_trim_zeros_trims_every_axis_it_is_given(trim, axis, want):
    assert values(jnp.trim_zeros(X, trim, axis=axis)) == want


def test_trim_zeros_of_only_zeros_is_empty_along_the_trimmed_axes():
    assert jnp.trim_zeros(np.zeros((2, 3)), "f").shape == (0, 0)
    assert jnp.trim_zeros(np.zeros((2, 3)), axis=1).shape == (2, 0)


def test_ix_gives_empty_indices_the_default_int_and_refuses_masks():
    with didax.enable_x64():
        assert [a.dtype for a in jnp.ix_(np.array([1], np.uint8), np.array([], np.int32))] == [np.uint8, np.int64]
    assert jnp.ix_(np.array([], np.float32))[0].dtype == np.int32
    with pytest.raises(NotImplementedError, match="nonzero"):
        jnp.ix_(np.array([True, False]))


def test_the_array_api_unique_functions_keep_every_nan_apart():
    """unique_values & co. use equal_nan=False (jnp.unique itself puts the NaNs together)."""
    x = np.array([np.nan, 1.0, np.nan], np.float32)
    result = jnp.unique_all(x)
    assert str(values(result.values)) == "[1.0, nan, nan]"
    assert values(result.indices) == [1, 0, 2] and values(result.counts) == [1, 1, 1]
    assert values(jnp.unique_inverse(x).inverse_indices) == [1, 0, 2]
    assert values(jnp.unique_counts(x).counts) == [1, 1, 1]
    assert jnp.unique_values(x).shape == (3,) and jnp.unique(x).shape == (2,)


def test_sort_complex_gives_the_complex_type_of_the_inexact_one():
    """int32 is computed as float32 (as in jnp.sin), so it sorts to complex64 even with x64 on."""
    with didax.enable_x64():
        assert jnp.sort_complex(np.array([2, 1], np.int32)).dtype == np.complex64
        assert jnp.sort_complex(np.array([2, 1], np.int64)).dtype == np.complex128
        assert values(jnp.sort_complex(np.array([2.0, 1.0]))) == [1, 2]


def test_permute_dims_takes_only_a_permutation_of_the_axes():
    """It is lax.transpose in JAX: negative axes are a TypeError there (jnp.transpose takes them)."""
    assert jnp.permute_dims(np.zeros((1, 2, 3)), (2, 0, 1)).shape == (3, 1, 2)
    with pytest.raises(TypeError, match="permutation"):
        jnp.permute_dims(np.zeros((1, 2, 3)), (-1, 0, 1))


def test_histogram_counts_the_largest_value_in_the_last_bin():
    """The last edge is the maximum itself (a linspace endpoint), not a rounding away from it."""
    x = np.random.default_rng(0).normal(size=20).astype(np.float32)
    counts, edges = jnp.histogram(x, bins=3)
    assert values(counts) == [3.0, 9.0, 8.0]
    assert float(edges[-1]) == float(x.max())


def test_running_reductions_of_a_scalar_run_over_one_element():
    assert values(jnp.cumsum(2.0, axis=0)) == [2.0]
    assert values(jnp.cumprod(3, axis=0)) == [3]


def test_logical_ufunc_reductions_read_a_complex_number_by_its_real_part():
    """As JAX does (NumPy asks whether the whole number is nonzero)."""
    assert values(jnp.logical_and.reduce(np.array([1j, 1], np.complex64))) is False
    assert values(jnp.logical_or.reduce(np.array([1j, 0j], np.complex64))) is False


def test_ufunc_methods_jax_derives_from_the_function():
    """subtract has no reduction of its own: a fold, left to right."""
    x = np.arange(1.0, 5.0, dtype=np.float32)
    assert values(jnp.subtract.reduce(x)) == -8.0
    assert values(jnp.subtract.accumulate(x)) == [1.0, -1.0, -4.0, -8.0]
    assert values(jnp.add.at(np.array([True, False, False]), np.array([1, 1]), True, inplace=False)) == [
        True, True, False]  # fmt: skip
    twice_minus = jnp.frompyfunc(lambda a, b: a * 2 - b, nin=2, nout=1)
    assert values(twice_minus.reduce(x)) == ((1 * 2 - 2) * 2 - 3) * 2 - 4
    assert repr(jnp.add) == "<jnp.ufunc 'add'>" and jnp.add == jnp.add and hash(jnp.add) == hash(jnp.add)


def test_put_clips_an_index_out_of_range_by_default():
    got = jnp.put(jnp.zeros(5), np.array([7, -1, -7, 2]), np.array([1.0, 2.0, 3.0, 4.0]), inplace=False)
    assert values(got) == [3.0, 0.0, 4.0, 0.0, 2.0]


def test_narrow_types_name_dtypes_but_make_no_arrays():
    """didax computes with the fifteen types of the promotion lattice only (JAX computes with
    float8 and int4 too): the narrow types are names, and asking for an array of one says so."""
    assert jnp.dtype(jnp.float8_e4m3fn).name == "float8_e4m3fn"
    assert jnp.issubdtype(jnp.int4, jnp.signedinteger) and jnp.isdtype(jnp.uint2, "unsigned integer")
    for make in (lambda: jnp.float8_e4m3fn(1.0), lambda: jnp.zeros(2, jnp.int4), lambda: jnp.ones(2).astype("float4_e2m1fn")):
        with pytest.raises(TypeError, match="narrow type"):
            make()


def test_what_needs_a_decomposition_or_shared_memory_is_refused():
    with pytest.raises(NotImplementedError, match="eigenvalue"):
        jnp.poly(np.eye(2, dtype=np.float32))
    with pytest.raises(BufferError):
        jnp.from_dlpack(np.arange(3), copy=False)


def test_from_dlpack_copies_the_buffer():
    """didax arrays never change, so a later write to the source is not seen (JAX, on CPU, may
    share an aligned buffer, and then the write shows)."""
    source = np.arange(64, dtype=np.int16)
    got = jnp.from_dlpack(source)
    source[0] = 9
    assert values(got)[0] == 0
