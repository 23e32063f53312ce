"""Devices, meshes, partition specs, shardings and Arrays spread over devices, side by side with
JAX on 8 CPU devices (conftest.py sets XLA_FLAGS before either is imported)."""

import os
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jjnp
import ml_dtypes
import numpy as np
import pytest
from jax import sharding as js

import didax
from didax import sharding as ds
from didax import xla

DEVICES = didax.devices()
JAX_DEVICES = jax.devices()


def ids(devices):
    return sorted(d.id for d in devices)


def error_of(f):
    """(type name, message) of what ``f()`` raises."""
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    raise AssertionError("no error")


def meshes(shape=(2, 4), names=("a", "b"), order=slice(None), axis_type=None):
    """The same mesh in didax and in JAX: the devices in ``order``, reshaped; axes of type
    ``axis_type`` ('Explicit', say) if given."""
    d = np.array(DEVICES, dtype=object)[order].reshape(shape)
    j = np.array(JAX_DEVICES, dtype=object)[order].reshape(shape)
    types = [None, None] if axis_type is None else [(getattr(m.AxisType, axis_type),) * len(names) for m in (ds, js)]
    return ds.Mesh(d, names, types[0]), js.Mesh(j, names, types[1])


def indices_by_id(sharding, shape):
    return {d.id: index for d, index in sharding.devices_indices_map(shape).items()}


# ----------------------------------------------------------------------------------------------
# G1: devices and the jax_num_cpu_devices flag.


def test_both_see_the_eight_devices_xla_flags_asks_for():
    assert [d.id for d in DEVICES] == [d.id for d in JAX_DEVICES] == list(range(8))
    for name in ("device_count", "local_device_count", "process_index", "process_count"):
        assert getattr(didax, name)() == getattr(jax, name)(), name
    assert [d.id for d in didax.local_devices()] == [d.id for d in jax.local_devices()]
    assert error_of(lambda: didax.local_devices(process_index=1)) == error_of(lambda: jax.local_devices(process_index=1))
    with pytest.warns(UserWarning, match="renamed from `host_id`"):
        assert didax.local_devices(host_id=0) == didax.local_devices()
    assert didax.config.jax_num_cpu_devices == jax.config.jax_num_cpu_devices == -1  # XLA_FLAGS alone


@pytest.mark.parametrize("value", ["a", 2.5])
def test_num_cpu_devices_takes_only_ints(value):
    assert error_of(lambda: didax.config.update("jax_num_cpu_devices", value)) == error_of(
        lambda: jax.config.update("jax_num_cpu_devices", value))  # fmt: skip


def test_num_cpu_devices_is_fixed_once_the_backend_has_started():
    expected = error_of(lambda: jax.config.update("jax_num_cpu_devices", 4))
    assert expected[0] == "RuntimeError"
    assert error_of(lambda: didax.config.update("jax_num_cpu_devices", 4)) == expected
    didax.config.update("jax_num_cpu_devices", -1)  # the value it has: no error, as in JAX
    jax.config.update("jax_num_cpu_devices", -1)
    assert didax.config.jax_num_cpu_devices == -1 and len(didax.devices()) == 8


def test_num_cpu_devices_set_first_wins_over_xla_flags():
    """In a fresh process with XLA_FLAGS asking for 8 devices and JAX_NUM_CPU_DEVICES=5 (the
    flag's first value), the flag set to 3 right after import gives 3 devices, in both."""
    source = (
        "import jax, didax\nfor m in (jax, didax):\n print(m.config.jax_num_cpu_devices)\n"
        " m.config.update('jax_num_cpu_devices', 3)\n print(len(m.devices()), m.device_count(), m.local_device_count())"
    )
    stage = Path(__file__).resolve().parents[1]
    assert "device_count=8" in os.environ["XLA_FLAGS"]
    env = os.environ | {"JAX_NUM_CPU_DEVICES": "5"}
    result = subprocess.run([sys.executable, "-c", source], cwd=stage, env=env, capture_output=True, text=True,
                            timeout=120)  # fmt: skip
    assert result.stdout.split() == ["5", "3", "3", "3"] * 2, result.stderr


def test_mlir_context_knows_shardy():
    text = 'module {\n  sdy.mesh @mesh = <["i"=4, "j"=2]>\n  func.func public @main() {\n    return\n  }\n}'
    assert 'sdy.mesh @mesh = <["i"=4, "j"=2]>' in xla.pretty(text)


# ----------------------------------------------------------------------------------------------
# G2: Mesh, PartitionSpec, the shardings.


@pytest.mark.parametrize("kw", [{}, {"order": slice(None, None, -1)}, {"axis_type": "Explicit"}])
def test_mesh_reads_and_prints_as_in_jax(kw):
    dm, jm = meshes(**kw)
    assert (repr(dm), str(dm)) == (repr(jm), str(jm))
    assert dm.shape == jm.shape and type(dm.shape) is type(jm.shape)
    assert (dm.size, dm.axis_sizes, dm.axis_names) == (jm.size, jm.axis_sizes, jm.axis_names)
    assert np.array_equal(dm.device_ids, jm.device_ids) and dm.devices.shape == jm.devices.shape
    assert repr(dm.axis_types) == repr(jm.axis_types)


def test_mesh_equality_and_hash():
    a, b, c = meshes()[0], meshes()[0], meshes(order=slice(None, None, -1))[0]
    assert a == b and hash(a) == hash(b) and a != c
    assert a != meshes(axis_type="Explicit")[0]
    ja, jc = meshes()[1], meshes(order=slice(None, None, -1))[1]
    assert (ja == meshes()[1], ja == jc) == (True, False)


def test_mesh_errors_and_make_mesh_as_in_jax():
    names = ("i", "j")
    assert error_of(lambda: ds.Mesh(np.array(DEVICES).reshape(2, 4), ("a",))) == error_of(
        lambda: js.Mesh(np.array(JAX_DEVICES).reshape(2, 4), ("a",)))  # fmt: skip
    assert error_of(lambda: didax.make_mesh((3, 4), names)) == error_of(lambda: jax.make_mesh((3, 4), names))
    for shape in [(2, 4), (2, 2), (8,)]:
        dm, jm = didax.make_mesh(shape, names[: len(shape)]), jax.make_mesh(shape, names[: len(shape)])
        assert str(dm) == str(jm) and np.array_equal(dm.device_ids, jm.device_ids)  # Explicit, devices in order
    one = ds.Mesh(DEVICES, "x")
    assert repr(one) == repr(js.Mesh(JAX_DEVICES, "x"))


SPECS = [(), (None,), ("a",), ("a", None), (("a", "b"), None), (None, ("b", "a")), ("b", "a"), (["a", "b"],)]


def test_partition_specs_print_compare_and_hash_as_in_jax():
    dps = [ds.P(*s) for s in SPECS]
    jps = [js.PartitionSpec(*s) for s in SPECS]
    assert [(repr(p), str(p), len(p), tuple(p)) for p in dps] == [(repr(p), str(p), len(p), tuple(p)) for p in jps]
    dps.append(ds.P("a", unreduced={"b"}))
    jps.append(js.PartitionSpec("a", unreduced={"b"}))
    assert repr(dps[-1]) == repr(jps[-1])
    assert [[p == q for q in dps] for p in dps] == [[p == q for q in jps] for p in jps]  # P('a', None) != P('a')
    assert [[hash(p) == hash(q) for q in dps] for p in dps] == [[hash(p) == hash(q) for q in jps] for p in jps]
    assert (ds.P("a") == ("a",), ds.P("a", None)[1:], ds.P is didax.P) == (False, (None,), True)


# (mesh shape, spec, array shape): split, split twice, replicated, split by two mesh axes (minor
# first), partly replicated, on a 1-d mesh, rank 3.
CASES = [
    ((2, 4), ("a",), (4, 8)),
    ((2, 4), ("a", "b"), (4, 8)),
    ((2, 4), (), (4, 8)),
    ((2, 4), (None, ("b", "a")), (4, 8)),
    ((2, 4), ("b",), (8,)),
    ((8,), ("a",), (16, 3)),
    ((4, 2), (("b", "a"),), (8, 2)),
    ((2, 4), ("b", None), (4, 6, 2)),
]


@pytest.mark.parametrize("order", [slice(None), slice(None, None, -1)])
@pytest.mark.parametrize("mesh_shape, spec, shape", CASES)
def test_named_sharding_places_blocks_as_in_jax(mesh_shape, spec, shape, order):
    names = ("a", "b")[: len(mesh_shape)]
    dm, jm = meshes(mesh_shape, names, order)
    d, j = ds.NamedSharding(dm, ds.P(*spec)), js.NamedSharding(jm, js.PartitionSpec(*spec))
    assert repr(d) == repr(j) and str(d) == str(j)
    assert d.shard_shape(shape) == j.shard_shape(shape)
    assert indices_by_id(d, shape) == indices_by_id(j, shape)
    assert (d.is_fully_replicated, d.num_devices, d.memory_kind) == (j.is_fully_replicated, j.num_devices, j.memory_kind)
    assert ids(d.device_set) == ids(j.device_set) and ids(d.addressable_devices) == ids(j.addressable_devices)
    assert d == ds.NamedSharding(dm, ds.P(*spec)) and hash(d) == hash(ds.NamedSharding(dm, ds.P(*spec)))


def test_equivalent_shardings_that_are_not_equal():
    (dm, jm), (d1, j1) = meshes(), meshes((1, 8), ("a", "b"))
    dp, jp = ds.P, js.PartitionSpec
    pairs = [((dm, dp("a", None)), (dm, dp("a"))), ((dm, dp("a")), (dm, dp("b"))), ((d1, dp("a", "b")), (d1, dp(None, "b"))),
             ((dm, dp(("a", "b"))), (dm, dp(("b", "a"))))]  # fmt: skip
    for (m1, s1), (m2, s2) in pairs:
        left, right = ds.NamedSharding(m1, s1), ds.NamedSharding(m2, s2)
        jm1, jm2 = (jm if m1 is dm else j1), (jm if m2 is dm else j1)
        jleft, jright = js.NamedSharding(jm1, jp(*s1)), js.NamedSharding(jm2, jp(*s2))
        assert (left == right, left.is_equivalent_to(right, 2)) == (jleft == jright, jleft.is_equivalent_to(jright, 2))
    alone, jalone = meshes((1,), ("a",), slice(0, 1))
    assert ds.NamedSharding(alone, ds.P()).is_equivalent_to(ds.SingleDeviceSharding(DEVICES[0]), 2)
    assert js.NamedSharding(jalone, jp()).is_equivalent_to(js.SingleDeviceSharding(JAX_DEVICES[0]), 2)
    assert not ds.NamedSharding(dm, ds.P("a")).is_equivalent_to(ds.SingleDeviceSharding(DEVICES[0]), 2)


def test_single_device_sharding_as_in_jax():
    d, j = ds.SingleDeviceSharding(DEVICES[3]), js.SingleDeviceSharding(JAX_DEVICES[3])
    assert repr(d) == repr(j)
    assert indices_by_id(d, (2, 3)) == indices_by_id(j, (2, 3)) and d.shard_shape((2, 3)) == (2, 3)
    assert (d.num_devices, d.is_fully_replicated, ids(d.device_set)) == (1, True, [3])
    assert d == ds.SingleDeviceSharding(DEVICES[3]) != ds.SingleDeviceSharding(DEVICES[2])


def test_sharding_errors_as_in_jax():
    (dm, jm), dp, jp = meshes(), ds.P, js.PartitionSpec
    for spec in [("zz",), (("a", "zz"),)]:
        assert error_of(lambda: ds.NamedSharding(dm, dp(*spec))) == error_of(lambda: js.NamedSharding(jm, jp(*spec)))
    assert error_of(lambda: ds.NamedSharding(dm, dp("a", "a"))) == error_of(lambda: js.NamedSharding(jm, jp("a", "a")))
    d, j = ds.NamedSharding(dm, dp("a")), js.NamedSharding(jm, jp("a"))
    assert error_of(lambda: d.shard_shape((3, 8))) == error_of(lambda: j.shard_shape((3, 8)))
    with pytest.raises(ds.IndivisibleError) as caught:
        didax.device_put(np.zeros((3, 10)), d)
    assert isinstance(caught.value, ValueError)
    assert error_of(lambda: didax.device_put(np.zeros((3, 10)), d)) == error_of(lambda: jax.device_put(np.zeros((3, 10)), j))
    rank = [ds.NamedSharding(dm, dp("a", "b")), js.NamedSharding(jm, jp("a", "b"))]
    assert error_of(lambda: didax.device_put(np.zeros(4), rank[0])) == error_of(lambda: jax.device_put(np.zeros(4), rank[1]))


# ----------------------------------------------------------------------------------------------
# G3: Arrays made of shards.


def shards_of(x):
    return [(s.device.id, s.index, s.replica_id, np.asarray(s.data).tolist()) for s in x.addressable_shards]


@pytest.mark.parametrize("order", [slice(None), slice(None, None, -1)])
@pytest.mark.parametrize("mesh_shape, spec, shape", CASES)
def test_device_put_spreads_an_array_as_jax_does(mesh_shape, spec, shape, order):
    names = ("a", "b")[: len(mesh_shape)]
    dm, jm = meshes(mesh_shape, names, order)
    value = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    x = didax.device_put(value, ds.NamedSharding(dm, ds.P(*spec)))
    y = jax.device_put(value, js.NamedSharding(jm, js.PartitionSpec(*spec)))
    assert shards_of(x) == shards_of(y)
    assert np.array_equal(np.asarray(x), value)  # assembled from every block, not the first only
    assert repr(x.sharding) == repr(y.sharding) and repr(x.device) == repr(y.device)  # .device: the sharding
    assert ids(x.devices()) == ids(y.devices()) and x.is_fully_replicated == y.is_fully_replicated
    assert np.array_equal(x.addressable_data(5), y.addressable_data(5))
    assert x.addressable_shards[0].data.sharding == ds.SingleDeviceSharding(x.addressable_shards[0].device)


@pytest.mark.parametrize("dtype", [np.int32, np.bool_, ml_dtypes.bfloat16, np.complex64])
def test_sharded_values_of_every_dtype_read_back(dtype):
    value = (np.arange(32).reshape(4, 8) % 3).astype(dtype)
    x = didax.device_put(value, ds.NamedSharding(meshes()[0], ds.P("b", "a")))
    assert x.dtype == value.dtype and np.array_equal(np.asarray(x), value)
    assert np.array_equal(np.asarray(x + x), np.asarray(jjnp.asarray(value) + jjnp.asarray(value)))


def test_scalars_and_python_values_put_on_a_mesh():
    dm, jm = meshes()
    x, y = didax.device_put(2.5, ds.NamedSharding(dm, ds.P())), jax.device_put(2.5, js.NamedSharding(jm, js.PartitionSpec()))
    assert (x.shape, x.dtype, x.weak_type, x.is_fully_replicated) == (y.shape, y.dtype, y.weak_type, True)
    assert shards_of(x) == shards_of(y) and float(x) == 2.5


def test_a_partition_spec_needs_set_mesh():
    dm, jm = meshes()
    assert error_of(lambda: didax.device_put(np.zeros(8), ds.P("b"))) == error_of(
        lambda: jax.device_put(np.zeros(8), js.PartitionSpec("b")))  # fmt: skip
    with didax.set_mesh(dm) as entered, jax.set_mesh(jm):
        assert entered is None
        x, y = didax.device_put(np.arange(8.0), ds.P("b")), jax.device_put(np.arange(8.0), js.PartitionSpec("b"))
        assert repr(x.sharding) == repr(y.sharding) and shards_of(x) == shards_of(y)
        assert ds.get_mesh() is dm
    assert repr(ds.get_mesh()) == repr(js.get_mesh())  # empty again after the block
    didax.set_mesh(dm)  # as a plain call: from now on
    try:
        assert repr(didax.device_put(np.arange(8.0), ds.P("a")).sharding) == repr(ds.NamedSharding(dm, ds.P("a")))
    finally:
        ds._mesh = None
    assert error_of(lambda: didax.set_mesh(3)) == error_of(lambda: jax.set_mesh(3))
    in_jit = [error_of(lambda: jit(lambda v: (set_mesh(m), v)[1])(1.0))
              for jit, set_mesh, m in [(didax.jit, didax.set_mesh, dm), (jax.jit, jax.set_mesh, jm)]]  # fmt: skip
    assert in_jit[0] == in_jit[1]


def test_single_device_arrays_keep_their_ways():
    x, y = didax.device_put(np.ones(3), DEVICES[3]), jax.device_put(np.ones(3), JAX_DEVICES[3])
    assert repr(x.sharding) == repr(y.sharding) and repr(x.addressable_shards) == repr(y.addressable_shards)
    assert x.device == DEVICES[3] and x.is_fully_replicated and ids(x.devices()) == [3]
    z = didax.device_put(x, ds.SingleDeviceSharding(DEVICES[5]))
    assert z.device == DEVICES[5] and np.array_equal(z, np.ones(3))
    host = didax.numpy.arange(3.0)  # in NumPy only: the default device's
    assert host.sharding == ds.SingleDeviceSharding(DEVICES[0]) and host.addressable_data(0) is host


def test_jit_takes_a_sharded_array_and_a_single_device_one_alike():
    """A sharded argument makes jit compile for its mesh (test_shard_map.py has more); the same
    function on one device's array still compiles for that device."""
    value = np.arange(8.0, dtype=np.float32)
    x = didax.device_put(value, ds.NamedSharding(meshes()[0], ds.P("b")))
    f = didax.jit(lambda v: v * 2)
    for arg in (x, didax.device_put(x, DEVICES[0]), value, x):  # the last through the fast path
        assert np.array_equal(f(arg), value * 2)
    assert len(f(value).devices()) == 1 and len(f(x).devices()) == 8


@pytest.mark.parametrize("name", ["mul", "sin", "sum", "add", "reshape", "matmul"])
def test_eager_operations_on_a_sharded_array_keep_it_where_jax_does(name):
    """Outside jit, an operation on a sharded Array runs compiled for its mesh, as JAX's do: the
    same values, and the result spread where XLA put JAX's (x * 2 stays split, a sum is whole).
    (Not a slice along a split axis: JAX's x[1:3] there is whole, didax's as XLA leaves it.)"""
    value = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    ops = {"mul": lambda np_, x: x * 2, "sin": lambda np_, x: np_.sin(x), "sum": lambda np_, x: x.sum(),
           "add": lambda np_, x: x + x, "reshape": lambda np_, x: x.reshape(4, 8),
           "matmul": lambda np_, x: x @ x.T}  # fmt: skip
    results = []
    for lib, numpy, sharding, mesh in [(didax, didax.numpy, ds, meshes()[0]), (jax, jjnp, js, meshes()[1])]:
        x = lib.device_put(value, sharding.NamedSharding(mesh, sharding.PartitionSpec("a", "b")))
        out = ops[name](numpy, x)
        results.append((np.asarray(out).tolist(), tuple(out.sharding.spec), ids(out.sharding.device_set)))
    assert results[0] == results[1]


def test_moving_between_shardings_and_deleting():
    dm = meshes()[0]
    value = np.arange(32.0).reshape(4, 8)
    x = didax.device_put(value, ds.NamedSharding(dm, ds.P("a", "b")))
    assert didax.device_put(x, ds.NamedSharding(dm, ds.P("a", "b"))) is x
    y = didax.device_put(x, ds.NamedSharding(dm, ds.P(None, "a")))
    assert shards_of(y)[1] == (1, (slice(None), slice(0, 4)), 1, value[:, :4].tolist())
    assert didax.block_until_ready(y) is y and not y.is_deleted()
    y.delete()
    assert y.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(y)


@pytest.mark.parametrize("spec", [("a",), ("a", "b"), (), (None, ("b", "a")), ("b",)])
def test_xla_is_told_the_placement_jax_tells_it(spec):
    """jaxlib's global array carries XLA's form of the sharding (its HloSharding and device order),
    which compiled programs will read: the same as JAX's for the same NamedSharding."""
    dm, jm = meshes(order=slice(None, None, -1))
    x = didax.device_put(np.zeros((4, 8)), ds.NamedSharding(dm, ds.P(*spec)))
    theirs = js.NamedSharding(jm, js.PartitionSpec(*spec))
    assert x._buffer._sharding._hlo_sharding == theirs._to_xla_hlo_sharding(2)
    assert [d.id for d in x._buffer._sharding._device_assignment] == [d.id for d in theirs._device_assignment]


# ----------------------------------------------------------------------------------------------
# jit's in_shardings and out_shardings, and where XLA puts the outputs nobody placed.


def both_jit(fun, **shardings):
    """``jit(fun, **shardings)`` in didax and in JAX, each sharding made in each one's classes
    from (mesh_shape, spec) pairs, nested as given."""
    dm, jm = meshes()

    def make(tree, mesh, module):
        if isinstance(tree, tuple) and tree and isinstance(tree[0], tuple):
            return tuple(make(t, mesh, module) for t in tree)
        return module.NamedSharding(mesh, module.PartitionSpec(*tree))

    return (didax.jit(fun, **{k: make(v, dm, ds) for k, v in shardings.items()}),
            jax.jit(fun, **{k: make(v, jm, js) for k, v in shardings.items()}))  # fmt: skip


def same_placement(x, y):
    """Equal values, each device's block the same, and equivalent shardings."""
    np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-6)
    assert indices_by_id(x.sharding, x.shape) == indices_by_id(y.sharding, y.shape)
    assert x.sharding.spec == y.sharding.spec or x.sharding.is_equivalent_to(
        ds.NamedSharding(x.sharding.mesh, ds.P(*y.sharding.spec)), x.ndim)


@pytest.mark.parametrize("fun", [lambda x: x * 2 + 1, lambda x: x.T, lambda x: x.sum(0), lambda x: x @ x.T,
                                 lambda x: (x, jjnp.sin(x) if isinstance(x, jax.Array) else didax.numpy.sin(x))],
                         ids=["elementwise", "transpose", "sum", "matmul", "pair"])  # fmt: skip
@pytest.mark.parametrize("spec", [("a",), ("a", "b"), (None, "b"), ()])
def test_jit_in_shardings_place_inputs_and_xla_places_outputs_as_in_jax(fun, spec):
    value = np.arange(32.0, dtype=np.float32).reshape(4, 8)
    mine, theirs = both_jit(fun, in_shardings=spec)
    for x, y in zip(didax.tree_util.tree_leaves(mine(value)), jax.tree_util.tree_leaves(theirs(value))):
        same_placement(x, y)


def test_jit_out_shardings_and_a_tree_of_in_shardings_as_in_jax():
    value = np.arange(32.0, dtype=np.float32).reshape(4, 8)
    fun = lambda x, y: (x + y, (x * y).sum())  # noqa: E731
    mine, theirs = both_jit(fun, in_shardings=(("a",), ("b",)), out_shardings=((None, "a"), ()))
    for x, y in zip(mine(value, value), theirs(value, value)):
        same_placement(x, y)
    dm = meshes()[0]
    arg = didax.device_put(value, ds.NamedSharding(dm, ds.P("a")))
    f = didax.jit(lambda x: x + 1, in_shardings=ds.NamedSharding(dm, ds.P("a")))
    for _ in range(2):  # a sharded Array as jit asks for it: the fast path takes it as it is
        assert np.array_equal(f(arg), value + 1)
    with didax.set_mesh(dm):  # a PartitionSpec is of the mesh set_mesh set
        out = didax.jit(lambda x: x, in_shardings=ds.P("b"), out_shardings=ds.P(None, "a"))(value)
    assert out.sharding == ds.NamedSharding(dm, ds.P(None, "a")) and np.array_equal(out, value)


def test_jit_sharding_errors_as_in_jax():
    value = np.ones((4, 8), np.float32)
    cases = [
        lambda lib, s: lib.jit(lambda x, y: x, in_shardings=(s("a"),))(value, value),  # wrong length
        lambda lib, s: lib.jit(lambda x: x, in_shardings=s("a"))(lib.device_put(value, s("a", "b"))),
        lambda lib, s: lib.jit(lambda x: x, in_shardings=s("b"))(np.ones(7)),  # indivisible
        lambda lib, s: lib.jit(lambda x: x, in_shardings=lib.sharding.PartitionSpec("a"))(value),  # no mesh set
        lambda lib, s: lib.jit(lambda x, y: x, in_shardings=s("a"))(value, y=value),  # keyword arguments
        lambda lib, s: lib.jit(lambda x: x, out_shardings=(s(),) * 2)(value),  # not a prefix of the outputs
    ]
    for case in cases:
        (dm, jm) = meshes()
        mine = error_of(lambda: case(didax, lambda *spec: ds.NamedSharding(dm, ds.P(*spec))))
        theirs = error_of(lambda: case(jax, lambda *spec: js.NamedSharding(jm, js.PartitionSpec(*spec))))
        assert mine[0] == theirs[0], (mine, theirs)
        if "pytree structure" not in theirs[1]:  # (JAX prints the pytrees in detail there; and says pjit)
            assert mine[1] == theirs[1].replace("pjit", "jit"), (mine, theirs)


@pytest.mark.parametrize("spec, shape", [(("a", "b"), (8, 8)), (("a",), (8, 8)), ((None, "b"), (8, 4)), ((), (4, 4)),
                                         (("a",), (8,)), ((("b", "a"),), (16,)), (("b", "a"), (8, 8))])  # fmt: skip
def test_visualize_array_sharding_draws_where_jax_puts_each_block(spec, shape, capsys):
    """Each box names the devices that hold its block in JAX, rows along axis 0, columns along
    axis 1. (JAX draws with the rich library, in colour and to scale; the boxes' contents agree.)"""
    dm, jm = meshes()
    didax.debug.visualize_array_sharding(didax.device_put(np.zeros(shape), ds.NamedSharding(dm, ds.P(*spec))))
    drawn = [[cell.strip() for cell in line.strip("│").split("│")] for line in capsys.readouterr().out.splitlines()
             if line.startswith("│")]  # fmt: skip
    blocks: dict = {}
    for device, index in js.NamedSharding(jm, js.PartitionSpec(*spec)).devices_indices_map(shape).items():
        starts = tuple(s.start or 0 for s in index)
        blocks.setdefault(starts if len(shape) == 2 else (0, *starts), []).append(device.id)
    rows, cols = sorted({r for r, _ in blocks}), sorted({c for _, c in blocks})
    assert drawn == [[f"CPU {','.join(map(str, sorted(blocks[r, c])))}" for c in cols] for r in rows]
    with pytest.raises(ValueError, match="1 and 2 dimensions"):
        didax.debug.visualize_array_sharding(didax.numpy.ones((2, 2, 2)))
