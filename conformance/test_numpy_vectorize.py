"""jax.numpy's function-mapping helpers, ``vectorize``, ``apply_along_axis`` and ``apply_over_axes``,
against NumPy's. They need vmap in an implementation built like JAX, so they require it.

Only what JAX and NumPy agree on is checked: keyword arguments that are not excluded are left out
(JAX 0.10.2 drops them; NumPy vectorizes them).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import strategies as S
from conformance.checks import assert_dtype, assert_values, show_call
from conformance.impl import Impl

pytestmark = [pytest.mark.area("numpy"), pytest.mark.requires("vmap")]

F32 = np.dtype("float32")


def arrays(data: st.DataObject, shape: tuple[int, ...], label: str) -> np.ndarray:
    return data.draw(S.arrays(F32, shape, S.SMALL), label=label)


# Loop shapes that broadcast against each other (size-1 axes and missing axes included).
BROADCASTING = [((3,), (3,)), ((2, 1), (3,)), ((1, 1), (2, 3)), ((), (2, 2)), ((4, 1, 2), (1, 3, 1))]


@pytest.mark.parametrize("shapes", BROADCASTING, ids=str)
@given(data=st.data())
def test_vectorize_elementwise_broadcasts(impl: Impl, shapes, data: st.DataObject) -> None:
    x, y = arrays(data, shapes[0], "x"), arrays(data, shapes[1], "y")
    show_call("jnp.vectorize(lambda a, b: a * 2.0 - b)(x, y)", x=x, y=y)
    got = impl.numpy.vectorize(lambda a, b: a * 2.0 - b)(x, y)
    want = x * np.float32(2.0) - y
    assert_dtype(got, F32, weak=False)
    assert_values(got, want, F32)


@pytest.mark.parametrize(
    ("signature", "shapes", "function", "oracle"),
    [
        ("(n),(n)->()", ((4, 3), (3,)), "lambda a, b: jnp.sum(a * b)", lambda a, b: np.sum(a * b, -1)),
        ("(m,n),(n,p)->(m,p)", ((2, 1, 2, 3), (4, 3, 2)), "jnp.matmul", np.matmul),
        ("(n)->(n)", ((2, 5),), "lambda a: a - jnp.mean(a)", lambda a: a - a.mean(-1, keepdims=True)),
        ("(n)->(),()", ((3, 4),), "lambda a: (jnp.max(a), jnp.min(a))", lambda a: (a.max(-1), a.min(-1))),
    ],
    ids=["dot", "matmul", "center", "two_outputs"],
)
@given(data=st.data())
def test_vectorize_with_a_signature(impl: Impl, signature, shapes, function, oracle, data: st.DataObject) -> None:
    xs = [arrays(data, s, f"x{i}") for i, s in enumerate(shapes)]
    names = ", ".join(f"x{i}" for i in range(len(xs)))
    show_call(f"jnp.vectorize({function}, signature={signature!r})({names})", **{f"x{i}": x for i, x in enumerate(xs)})
    fn = eval(function, {"jnp": impl.numpy})  # noqa: S307 - the table's own source text
    got = impl.numpy.vectorize(fn, signature=signature)(*xs)
    want = oracle(*xs)
    for g, w in zip(got if isinstance(want, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert_dtype(g, F32, weak=False)
        assert_values(g, w, F32, atol=1e-5)


def test_vectorize_excluded_arguments_pass_through(impl: Impl) -> None:
    scale = impl.numpy.vectorize(lambda x, table: x * len(table), excluded={1})
    got = scale(np.arange(3, dtype=np.float32), [1, 2, 3, 4])
    assert_values(got, np.arange(3, dtype=np.float32) * 4, F32)


def test_vectorize_inconsistent_core_dimension_is_a_value_error(impl: Impl) -> None:
    f = impl.numpy.vectorize(lambda a, b: a @ b, signature="(n),(n)->()")
    with pytest.raises(ValueError, match="inconsistent size for core dimension"):
        f(np.ones(3, np.float32), np.ones(4, np.float32))
    with pytest.raises(ValueError):
        impl.numpy.vectorize(lambda a: a, signature="(n)->m")  # not a signature: fails when called
        impl.numpy.vectorize(lambda a: a, signature="(n)->m")(np.ones(2, np.float32))


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@given(data=st.data())
def test_apply_along_axis(impl: Impl, axis: int, data: st.DataObject) -> None:
    a = arrays(data, (2, 3, 4), "a")
    show_call(f"jnp.apply_along_axis(lambda v: v[:2] + v[-1], {axis}, a)", a=a)
    got = impl.numpy.apply_along_axis(lambda v: v[:2] + v[-1], axis, a)
    want = np.apply_along_axis(lambda v: v[:2] + v[-1], axis, a)
    assert_dtype(got, F32, weak=False)
    assert_values(got, want, F32)
    reduced = impl.numpy.apply_along_axis(impl.numpy.sum, axis, a)
    assert_values(reduced, a.sum(axis), F32, atol=1e-5)


@pytest.mark.parametrize("axes", [[0], [0, 2], [1, -1]], ids=str)
@given(data=st.data())
def test_apply_over_axes(impl: Impl, axes: list[int], data: st.DataObject) -> None:
    a = arrays(data, (2, 3, 4), "a")
    show_call(f"jnp.apply_over_axes(jnp.sum, a, {axes})", a=a)
    got = impl.numpy.apply_over_axes(impl.numpy.sum, a, axes)
    want = np.apply_over_axes(np.sum, a, axes)
    assert_dtype(got, F32, weak=False)
    assert_values(got, want, F32, atol=1e-5)
