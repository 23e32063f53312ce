"""pmap on the 8 CPU devices (conftest.py gives didax and JAX 8 each), side by side with JAX's
pmap, and with didax's own vmap under the same axis name (pmap is vmap's contract on devices):
every collective, in_axes and out_axes, static arguments, devices=, the errors, and the output's
sharding and shards."""

import jax
import numpy as np
import pytest
from jax import lax as jlax

import didax
from didax import lax as dlax

DEVICES, JAX_DEVICES = didax.devices(), jax.devices()
X = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 1, 2] * 2, np.float32).reshape(8, 4)  # one row per device
RING = [(k, (k + 1) % 8) for k in range(8)]


def error_of(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    raise AssertionError("no error")


def shards(x):
    return sorted((s.device.id, s.index, s.replica_id, np.asarray(s.data).tolist()) for s in x.addressable_shards)


def assert_same(ours, theirs):
    """Equal values, types, output shardings (mesh, axis name, spec) and every device's shard."""
    for d, j in zip(didax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs), strict=True):
        np.testing.assert_array_equal(np.asarray(d), np.asarray(j))
        assert (d.shape, d.dtype) == (j.shape, j.dtype)
        assert tuple(d.sharding.spec) == tuple(j.sharding.spec)
        assert d.sharding.mesh.axis_names == j.sharding.mesh.axis_names
        assert [x.id for x in d.sharding.mesh.devices.flat] == [x.id for x in j.sharding.mesh.devices.flat]
        assert shards(d) == shards(j)


# name, body(lax, v) on one device's row v of X (shape (4,))
COLLECTIVES = [
    ("psum", lambda lax, v: lax.psum(v, "i")),
    ("pmean", lambda lax, v: lax.pmean(v, "i")),
    ("pmax", lambda lax, v: lax.pmax(v, "i")),
    ("pmin", lambda lax, v: lax.pmin(v, "i")),
    ("psum_of_constant", lambda lax, v: v + lax.psum(2.5, "i")),
    ("psum_pytree", lambda lax, v: lax.psum([v, (v * 2, 1)], "i")),
    ("all_gather", lambda lax, v: lax.all_gather(v, "i")),
    ("all_gather_axis1", lambda lax, v: lax.all_gather(v.reshape(2, 2), "i", axis=1)),
    ("all_gather_tiled", lambda lax, v: lax.all_gather(v, "i", tiled=True)),
    ("psum_scatter", lambda lax, v: lax.psum_scatter(lax.concatenate([v, v], 0), "i")),
    ("psum_scatter_tiled", lambda lax, v: lax.psum_scatter(lax.concatenate([v] * 4, 0), "i", tiled=True)),
    ("all_to_all", lambda lax, v: lax.all_to_all(lax.concatenate([v, v], 0), "i", 0, 0)),
    ("all_to_all_tiled", lambda lax, v: lax.all_to_all(lax.concatenate([v] * 4, 0).reshape(8, 2), "i", 0, 1,
                                                       tiled=True)),  # fmt: skip
    ("ppermute_ring", lambda lax, v: lax.ppermute(v, "i", RING)),
    ("pshuffle", lambda lax, v: lax.pshuffle(v, "i", [3, 2, 1, 0, 7, 6, 5, 4])),
    ("axis_index", lambda lax, v: v + lax.axis_index("i")),
    ("axis_size", lambda lax, v: v * lax.axis_size("i")),
]


@pytest.mark.parametrize("name, body", COLLECTIVES, ids=[c[0] for c in COLLECTIVES])
def test_each_collective_equals_jax_pmap_and_didax_vmap(name, body):
    ours = didax.pmap(lambda v: body(dlax, v), "i")(X)
    theirs = jax.pmap(lambda v: body(jlax, v), "i")(X)
    assert_same(ours, theirs)
    by_vmap = didax.vmap(lambda v: body(dlax, v), axis_name="i")(X)
    for d, v in zip(didax.tree_util.tree_leaves(ours), didax.tree_util.tree_leaves(by_vmap), strict=True):
        np.testing.assert_array_equal(np.asarray(d), np.asarray(v))


def test_a_partial_permutation_which_jax_vmap_refuses():
    """Devices that receive nothing get zeros; JAX's vmap asserts a full permutation, didax's
    vmap gives pmap's answer."""
    perm = [(0, 1), (1, 2), (5, 3)]
    ours = didax.pmap(lambda v: dlax.ppermute(v, "i", perm), "i")(X)
    assert_same(ours, jax.pmap(lambda v: jlax.ppermute(v, "i", perm), "i")(X))
    np.testing.assert_array_equal(np.asarray(ours), didax.vmap(lambda v: dlax.ppermute(v, "i", perm), axis_name="i")(X))


def test_fewer_rows_than_devices_run_on_the_first_devices():
    x = X[:4]
    ours, theirs = didax.pmap(lambda v: dlax.psum(v, "i"), "i")(x), jax.pmap(lambda v: jlax.psum(v, "i"), "i")(x)
    assert_same(ours, theirs)
    assert {s.device.id for s in ours.addressable_shards} == {0, 1, 2, 3}


@pytest.mark.parametrize("in_axes, out_axes, args", [
    (1, 0, (X.T,)),
    (0, (1, 0), (X,)),
    (1, (1, None), (X.T,)),
    ((0, None), 0, (X, np.float32(3))),
    ((None, 0), (0, None), (np.arange(4, dtype=np.float32), X)),
    (({"a": 0, "b": 1}, 0), 0, ({"a": X, "b": X.T}, X)),
    ((0, 0), {"s": 0, "t": 1}, (X, X)),
])  # fmt: skip
def test_in_axes_and_out_axes(in_axes, out_axes, args):
    def body(lax):
        def f(a, b=None):
            a = a if not isinstance(a, dict) else a["a"] * a["b"]
            s = lax.psum(a, "i") + (0 if b is None else b)
            return {"s": s, "t": a * 2} if isinstance(out_axes, dict) else (s, lax.psum(1, "i") * 1.0)
        return f

    outs = [lib.pmap(body(lax), "i", in_axes=in_axes, out_axes=out_axes)(*args)
            for lib, lax in [(didax, dlax), (jax, jlax)]]  # fmt: skip
    assert_same(*outs)


def test_keyword_arguments_are_mapped_over_axis_0():
    f = lambda a, *, b: a * b  # noqa: E731
    assert_same(didax.pmap(f, in_axes=(None,))(np.float32(2), b=X), jax.pmap(f, in_axes=(None,))(np.float32(2), b=X))


def test_static_broadcasted_argnums_and_one_trace_per_signature():
    traced = []

    def f(scale, v, power):
        traced.append((scale, power))
        return dlax.psum(v**power, "i") * scale

    p = didax.pmap(f, "i", static_broadcasted_argnums=(0, 2))
    theirs = jax.pmap(lambda s, v, k: jlax.psum(v**k, "i") * s, "i", static_broadcasted_argnums=(0, 2))
    assert_same(p(2.0, X, 2), theirs(2.0, X, 2))
    assert_same(p(2.0, X + 1, 2), theirs(2.0, X + 1, 2))  # same signature: not traced again
    assert traced == [(2.0, 2)]
    assert_same(p(3.0, X, 2), theirs(3.0, X, 2))  # a new static value: a new trace
    assert_same(didax.pmap(f, "i", static_broadcasted_argnums=(0, 2))(2.0, X, 2), theirs(2.0, X, 2))
    assert traced == [(2.0, 2), (3.0, 2)]  # a new pmap of the same function finds the old trace
    p(2.0, X[:4], 2)  # another number of devices: another program
    assert len(traced) == 3
    assert error_of(lambda: p(2.0, X)) == error_of(lambda: theirs(2.0, X))


def test_devices_chooses_where_it_runs():
    ours = didax.pmap(lambda v: dlax.psum(v, "i"), "i", devices=DEVICES[4:][::-1])(X[:4])
    theirs = jax.pmap(lambda v: jlax.psum(v, "i"), "i", devices=JAX_DEVICES[4:][::-1])(X[:4])
    assert_same(ours, theirs)
    assert [d.id for d in ours.sharding.mesh.devices.flat] == [7, 6, 5, 4]
    assert shards(ours)[0][0] == 4 and shards(ours)[0][1] == (slice(3, 4, None), slice(None))


def test_pmap_under_jit_and_of_a_sharded_output():
    p = didax.pmap(lambda v: dlax.pmean(v, "i") - v, "i")
    once = p(X)
    assert_same(p(once), jax.pmap(lambda v: jlax.pmean(v, "i") - v, "i")(once._value))  # its output goes back in
    np.testing.assert_allclose(didax.jit(lambda v: p(v) * 2)(X), np.asarray(once) * 2)


def test_errors_as_in_jax():
    def errors(lib):
        pm = lib.pmap
        x = np.zeros((4, 2), np.float32)
        return [
            error_of(lambda: pm(lambda v: v)(np.zeros((9, 2), np.float32))),  # more rows than devices
            error_of(lambda: pm(lambda a, b: a)(x, np.zeros((3, 2), np.float32))),  # 4 and 3
            error_of(lambda: pm(lambda a, b: a, in_axes=(0,))(x, x)),  # in_axes not a prefix
            error_of(lambda: pm(lambda a: a, in_axes=None)(x)),  # nothing mapped
            error_of(lambda: pm(lambda a: a)(2.0)),  # a scalar has no axis
            error_of(lambda: pm(lambda a: a, axis_size=3)(x)),
            error_of(lambda: pm(lambda a: a, in_axes=2)(x)),  # JAX's IndexError, kept
            error_of(lambda: pm(lambda a: a, in_axes=0.5)(x)),
            error_of(lambda: pm(lambda a: a, devices=[])(x)),
        ]

    assert errors(didax) == errors(jax)


def test_a_donated_argument_is_deleted_as_in_jax():
    results = []
    for lib in (didax, jax):
        name = "_internal_pmap_axis_name"
        mesh = lib.sharding.Mesh(np.array(lib.devices()), (name,))
        a = lib.device_put(X, lib.sharding.NamedSharding(mesh, lib.P(name)))  # already where pmap puts it
        out = lib.pmap(lambda a, s, b: a * s + b, static_broadcasted_argnums=1, donate_argnums=(0,))(a, 2.0, X)
        results.append((out, error_of(lambda: np.asarray(a))))
    assert_same(results[0][0], results[1][0])
    assert results[0][1] == results[1][1] and results[0][1][0] == "RuntimeError"
