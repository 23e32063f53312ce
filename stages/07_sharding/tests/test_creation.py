"""Array creation is made of primitives (iota, broadcast_in_dim), as in JAX, so that a later
stage's jaxpr holds a few small equations instead of a large constant."""

import numpy as np
import pytest

import didax.numpy as jnp
from didax import core


@pytest.fixture
def primitives_run(monkeypatch):
    """The (name, input sizes) of every primitive evaluated while the test runs."""
    seen = []
    evaluate = core.EvalTrace.process_primitive

    def recording(self, primitive, tracers, params):
        seen.append((primitive.name, [int(np.size(t)) for t in tracers]))
        return evaluate(self, primitive, tracers, params)

    monkeypatch.setattr(core.EvalTrace, "process_primitive", recording)
    return seen


@pytest.mark.parametrize(
    "make",
    [
        lambda: jnp.zeros((300, 400)),
        lambda: jnp.ones((300, 400), np.int8),
        lambda: jnp.full((300, 400), 7.5),
        lambda: jnp.full((300, 400), 300, np.uint8),
    ],
)
def test_filled_arrays_broadcast_one_scalar(primitives_run, make):
    out = make()
    assert out.shape == (300, 400)
    assert primitives_run == [("broadcast_in_dim", [1])]


@pytest.mark.parametrize("name", ["zeros_like", "ones_like"])
def test_like_functions_broadcast_one_scalar(primitives_run, name):
    x = jnp.asarray(np.ones((30, 40), np.float32))
    primitives_run.clear()
    getattr(jnp, name)(x)
    assert primitives_run == [("broadcast_in_dim", [1])]


def test_arange_and_eye_are_iotas(primitives_run):
    assert jnp.arange(1000).tolist() == list(range(1000))
    assert primitives_run == [("iota", [])]
    primitives_run.clear()
    jnp.arange(3, 1000, 2)
    assert primitives_run[0] == ("iota", []) and all(max(sizes, default=0) <= 499 for _, sizes in primitives_run)
    primitives_run.clear()
    np.testing.assert_array_equal(jnp.eye(50), np.eye(50))
    assert [name for name, _ in primitives_run][:2] == ["iota", "iota"]


def test_makers_put_their_result_on_the_device_asked_for():
    import didax
    import didax.numpy as jnp

    device = didax.devices()[0]
    for made in [jnp.zeros(2, device=device), jnp.arange(3, device=device), jnp.asarray([1.0], device=device)]:
        assert made.devices() == {device}
    assert jnp.ones(1).__array_namespace__() is jnp
    assert jnp.__array_namespace_info__().devices() == [None, *didax.devices()]


def test_scalar_types_equal_their_numpy_types_and_dtypes_not_their_names():
    import didax.numpy as jnp

    assert jnp.float32 == np.float32 and jnp.float32 == np.dtype("float32") and np.dtype("int8") == jnp.int8
    assert jnp.float32 != "float32" and jnp.float32 != "not a dtype" and jnp.float32 != jnp.int32
    assert {np.float32: "found"}.get(jnp.float32) == "found"
