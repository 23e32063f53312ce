"""shard_map and the collectives inside it, on 1-D and 2-D meshes of the 8 CPU devices, side by
side with JAX (conftest.py gives both 8 devices): values, the output's sharding and every
device's shard; the errors of a misused shard_map; jit on arrays spread over devices."""


import re

import jax
import numpy as np
import pytest
from jax import lax as jlax
from jax import sharding as js

import didax
from didax import lax as dlax
from didax import sharding as ds

DEVICES, JAX_DEVICES = didax.devices(), jax.devices()


def meshes(shape, names, order=slice(None)):
    """The same mesh in didax and in JAX."""
    d = np.array(DEVICES, dtype=object)[order].reshape(shape)
    j = np.array(JAX_DEVICES, dtype=object)[order].reshape(shape)
    return ds.Mesh(d, names), js.Mesh(j, names)


LINE, GRID = meshes((8,), ("i",)), meshes((2, 4), ("i", "j"))


def error_of(f):
    """The error's class and message, with each printed set's items sorted: a set prints its items
    in the order of its hash table, which varies with PYTHONHASHSEED and with how it was built."""
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, re.sub(r"\{('[^{}]*')\}", lambda m: "{" + ", ".join(sorted(m[1].split(", "))) + "}", str(e))
    raise AssertionError("no error")


def shards(x):
    return sorted((s.device.id, s.index, s.replica_id, np.asarray(s.data).tolist()) for s in x.addressable_shards)


def both(body, in_specs, out_specs, args, mesh_pair=LINE, check_vma=True, jit=False):
    """Run ``body(lax, *args)`` under shard_map in didax and in JAX; both results, as lists.
    The specs are functions of the library's P."""
    results = []
    for lib, lax, mesh, P in [(didax, dlax, mesh_pair[0], ds.P), (jax, jlax, mesh_pair[1], js.PartitionSpec)]:
        f = lib.shard_map(lambda *a: body(lax, *a), mesh=mesh, in_specs=in_specs(P), out_specs=out_specs(P),
                          check_vma=check_vma)  # fmt: skip
        out = (lib.jit(f) if jit else f)(*args)
        results.append(lib.tree_util.tree_leaves(out))
    return results


def assert_same(ours, theirs):
    """Equal values, output shardings (mesh axes per array axis) and per-device shards."""
    for d, j in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(np.asarray(d), np.asarray(j))
        assert (d.shape, d.dtype) == (j.shape, j.dtype)
        assert d.sharding.spec._axes(d.ndim) == [tuple(a) if isinstance(a, tuple) else (() if a is None else (a,))
                                                for a in (*j.sharding.spec, *[None] * (j.ndim - len(j.sharding.spec)))]
        assert [d.id for d in d.sharding.mesh.devices.flat] == [d.id for d in j.sharding.mesh.devices.flat]
        assert shards(d) == shards(j)


X = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 1, 2] * 4, np.float32).reshape(16, 4)  # the note's data
ALONG_I = lambda P: P("i")  # noqa: E731
REPLICATED = lambda P: P()  # noqa: E731
RING = [(k, (k + 1) % 8) for k in range(8)]

# name, body(lax, v), out_spec; on the 1-D mesh of 8 devices, X in P('i'): (2, 4) blocks.
ONE_D = [
    ("psum", lambda lax, v: lax.psum(v, "i"), REPLICATED),
    ("psum_tuple_name", lambda lax, v: lax.psum(v, ("i",)), REPLICATED),
    ("pmax", lambda lax, v: lax.pmax(v, "i"), REPLICATED),
    ("pmin", lambda lax, v: lax.pmin(v, "i"), REPLICATED),
    ("pmean", lambda lax, v: lax.pmean(v, "i"), ALONG_I),
    ("psum_of_int", lambda lax, v: lax.psum(v.astype(np.int32), "i"), REPLICATED),
    ("all_gather", lambda lax, v: lax.all_gather(v, "i"), ALONG_I),
    ("all_gather_axis1", lambda lax, v: lax.all_gather(v, "i", axis=1), ALONG_I),
    ("all_gather_tiled", lambda lax, v: lax.all_gather(v, "i", tiled=True), ALONG_I),
    ("all_gather_tiled_axis1", lambda lax, v: lax.all_gather(v, "i", axis=1, tiled=True), ALONG_I),
    ("psum_scatter_tiled", lambda lax, v: lax.psum_scatter(v.reshape(8, 1), "i", tiled=True), ALONG_I),
    ("psum_scatter", lambda lax, v: lax.psum_scatter(v.reshape(8), "i"), lambda P: P()),
    ("ppermute_ring", lambda lax, v: lax.ppermute(v, "i", RING), ALONG_I),
    ("ppermute_partial", lambda lax, v: lax.ppermute(v, "i", [(0, 1), (1, 2), (5, 3)]), ALONG_I),
    ("pshuffle", lambda lax, v: lax.pshuffle(v, "i", [3, 2, 1, 0, 7, 6, 5, 4]), ALONG_I),
    ("all_to_all", lambda lax, v: lax.all_to_all(v.reshape(8, 1), "i", 0, 0), ALONG_I),
    ("all_to_all_tiled", lambda lax, v: lax.all_to_all(v.reshape(8, 1), "i", 0, 1, tiled=True), ALONG_I),
    ("all_to_all_untiled_0_1", lambda lax, v: lax.all_to_all(v.reshape(8, 1), "i", 0, 1), ALONG_I),
    ("axis_index", lambda lax, v: v + lax.axis_index("i"), ALONG_I),
    ("axis_size", lambda lax, v: v * lax.axis_size("i") + lax.psum(1, "i"), ALONG_I),
]


@pytest.mark.parametrize("name, body, out_spec", ONE_D, ids=[c[0] for c in ONE_D])
def test_collectives_on_a_line_of_eight_devices(name, body, out_spec):
    x = X.reshape(64, 1) if name.startswith(("psum_scatter", "all_to_all")) else X
    ours, theirs = both(body, ALONG_I, out_spec, (x,), check_vma=out_spec is REPLICATED)
    assert_same(ours, theirs)


# On the 2x4 mesh ('i', 'j'), X in P('i', 'j'): (8, 1) blocks.
IJ = lambda P: P("i", "j")  # noqa: E731
TWO_D = [
    ("psum_j", lambda lax, v: lax.psum(v, "j"), lambda P: P("i")),
    ("psum_i", lambda lax, v: lax.psum(v, "i"), lambda P: P(None, "j")),
    ("psum_both", lambda lax, v: lax.psum(v, ("i", "j")), REPLICATED),
    ("psum_both_reversed", lambda lax, v: lax.psum(v, ("j", "i")), REPLICATED),
    ("pmax_j", lambda lax, v: lax.pmax(v, "j"), lambda P: P("i")),
    ("all_gather_j_tiled", lambda lax, v: lax.all_gather(v, "j", axis=1, tiled=True), IJ),
    ("all_gather_both", lambda lax, v: lax.all_gather(v, ("i", "j"), tiled=True), IJ),
    ("all_gather_both_reversed", lambda lax, v: lax.all_gather(v, ("j", "i"), tiled=True), IJ),
    ("psum_scatter_i", lambda lax, v: lax.psum_scatter(v, "i", tiled=True), IJ),
    ("ppermute_j", lambda lax, v: lax.ppermute(v, "j", [(0, 1), (1, 2), (2, 3), (3, 0)]), IJ),
    ("ppermute_i", lambda lax, v: lax.ppermute(v, "i", [(0, 1), (1, 0)]), IJ),
    ("all_to_all_j", lambda lax, v: lax.all_to_all(v, "j", 0, 1, tiled=True), IJ),
    ("axis_index", lambda lax, v: (v + 10 * lax.axis_index("i") + lax.axis_index("j"),
                                   v * 0 + lax.axis_index(("i", "j"))), lambda P: (P("i", "j"), P("i", "j"))),
]  # fmt: skip


@pytest.mark.parametrize("name, body, out_spec", TWO_D, ids=[c[0] for c in TWO_D])
def test_collectives_on_a_two_by_four_mesh(name, body, out_spec):
    ours, theirs = both(body, IJ, out_spec, (X,), mesh_pair=GRID)
    assert_same(ours, theirs)


def test_the_note_s_2d_psum_and_a_reversed_device_order():
    """psum over both axes of arange(32) on the 2x4 mesh, in P('i', 'j') and out P(): the design
    note's [[88, 96], [152, 160]]; then on a mesh whose devices run backwards."""
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    ours, theirs = both(lambda lax, v: lax.psum(v, ("i", "j")), IJ, REPLICATED, (x,), mesh_pair=GRID)
    assert np.asarray(ours[0]).tolist() == [[88, 96], [152, 160]]
    assert_same(ours, theirs)
    backwards = meshes((2, 4), ("i", "j"), slice(None, None, -1))
    body = lambda lax, v: (lax.psum(v, "j"), v + lax.axis_index("j"))  # noqa: E731
    assert_same(*both(body, IJ, lambda P: (P("i"), P("i", "j")), (x,), mesh_pair=backwards))


def test_several_arguments_pytrees_constants_and_replicated_inputs():
    w = np.arange(4, dtype=np.float32)

    def body(lax, tree, b):
        return {"sum": lax.psum(tree["x"] * w + b, "i"), "local": tree["y"] * 2 + b}

    args = ({"x": X, "y": np.arange(16, dtype=np.int32)}, np.float32(0.5))
    ours, theirs = both(body, lambda P: ({"x": P("i"), "y": P("i")}, P()),
                        lambda P: {"sum": P(), "local": P("i")}, args)  # fmt: skip
    assert_same(ours, theirs)
    # An argument of in_spec None is passed as it is; an invariant value goes out tiled.
    body = lambda lax, v, s: (v * s, v.sum() * s)  # noqa: E731
    assert_same(*both(body, lambda P: (P(), None), lambda P: (P("i"), P()), (X[:2], 3.0)))
    assert_same(*both(lambda lax, v: v * 2, lambda P: None, ALONG_I, (X[:2],)))


def test_under_jit_with_inputs_already_spread_and_the_fast_path():
    dm, jm = LINE
    x = didax.device_put(X, ds.NamedSharding(dm, ds.P("i")))
    f = didax.jit(didax.shard_map(lambda v: dlax.psum(v, "i") * v, mesh=dm, in_specs=ds.P("i"), out_specs=ds.P("i")))
    g = jax.jit(jax.shard_map(lambda v: jlax.psum(v, "i") * v, mesh=jm, in_specs=js.PartitionSpec("i"),
                              out_specs=js.PartitionSpec("i")))  # fmt: skip
    expected = g(X)
    for _ in range(3):  # the first call compiles, the next ones take the fast path with x's buffer as it is
        assert_same([f(x)], [expected])
    assert_same([f(X)], [expected])  # a NumPy argument is copied to every device
    assert_same([f(f(x))], [g(expected)])  # an output goes back in as it is


def test_a_shard_map_inside_a_larger_jitted_function():
    def make(lib, lax, mesh, P):
        inner = lib.shard_map(lambda v, s: lax.pmax(v, "i") * s, mesh=mesh, in_specs=(P("i"), P()),
                              out_specs=P())  # fmt: skip
        return lib.jit(lambda v: (inner(jnp_exp(lib, v), v.sum()) + 1.0, v.mean()))

    def jnp_exp(lib, v):
        return lib.numpy.exp(v / 10)

    ours = make(didax, dlax, LINE[0], ds.P)(X)
    theirs = make(jax, jlax, LINE[1], js.PartitionSpec)(X)
    for d, j in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(d), np.asarray(j), rtol=1e-6)


def test_set_mesh_gives_the_mesh_and_make_jaxpr_shows_the_equation():
    dm, jm = LINE
    with didax.set_mesh(dm):
        f = didax.shard_map(lambda v: dlax.psum(v, "i"), in_specs=ds.P("i"), out_specs=ds.P())
        jaxpr = didax.make_jaxpr(f)(X)
        ours = f(X)
    with jax.set_mesh(jm):
        theirs = jax.shard_map(lambda v: jlax.psum(v, "i"), in_specs=js.PartitionSpec("i"),
                               out_specs=js.PartitionSpec())(X)  # fmt: skip
    assert_same([ours], [theirs])
    with didax.set_mesh(ds.Mesh(np.array(DEVICES[:2]), ("i",))):  # another mesh, another program
        np.testing.assert_array_equal(f(X), X.reshape(2, 8, 4).sum(0))
    text = str(jaxpr)
    assert "shard_map[" in text and "psum[axes=('i',)" in text and "f32[2,4]" in text and "f32[16,4]" in text


def test_eager_evaluation_of_a_staged_shard_map():
    """A jaxpr holding a shard_map, evaluated (with jit disabled too): the equation compiles alone."""
    dm = LINE[0]
    f = didax.shard_map(lambda v: dlax.ppermute(v, "i", RING), mesh=dm, in_specs=ds.P("i"), out_specs=ds.P("i"))
    closed = didax.make_jaxpr(f)(X)
    expected = np.roll(X.reshape(8, 2, 4), 1, axis=0).reshape(16, 4)
    out = didax.jaxpr.eval_jaxpr(closed.jaxpr, closed.consts, X)[0]
    np.testing.assert_array_equal(np.asarray(out), expected)
    with didax.disable_jit():
        np.testing.assert_array_equal(np.asarray(f(X)), expected)


# ----------------------------------------------------------------------------------------------
# Errors, as JAX raises them.


def test_errors_of_the_api_as_in_jax():
    def errors(lib, lax, mesh, P):
        sm = lib.shard_map
        ten, four = np.zeros(10, np.float32), np.zeros((4, 4), np.float32)

        def body(v):
            return v * 2

        def two(v, w):
            return v

        return [
            error_of(lambda: sm(lambda v: v, mesh=mesh, in_specs=P("i"), out_specs=P("i"))(ten)),  # not divisible
            error_of(lambda: sm(two, mesh=mesh, in_specs=(P(), P("i")), out_specs=P("i"))(four, ten)),
            error_of(lambda: sm(body, mesh=mesh, in_specs=P("i", None, None), out_specs=P("i"))(four)),  # too long
            error_of(lambda: sm(lambda v: v.sum(), mesh=mesh, in_specs=P("i"), out_specs=P("i"))(four)),  # rank 0 out
            error_of(lambda: sm(body, mesh=mesh, in_specs=P("z"), out_specs=P("i"))(four)),  # unknown axis
            error_of(lambda: sm(body, mesh=mesh, in_specs=P("i"), out_specs=P("i", "k"))(four)),
            error_of(lambda: sm(3, mesh=mesh, in_specs=P("i"), out_specs=P("i"))),  # not callable
            error_of(lambda: sm(body, in_specs=P("i"), out_specs=P("i"))(four)),  # no mesh
            error_of(lambda: sm(body, mesh=mesh, out_specs=P("i"))(four)),  # in_specs omitted, Auto axes
            error_of(lambda: sm(body, mesh=mesh, in_specs=(P("i"),), out_specs=P("i"))(four, four)),
            error_of(lambda: sm(body, mesh=mesh, in_specs=(3,), out_specs=P("i"))(four)),
            error_of(lambda: sm(body, mesh=mesh, in_specs=P("i"), out_specs=P("i"), axis_names=["i"])(four)),
            error_of(lambda: sm(body, mesh=mesh, in_specs=P("i"), out_specs=P("i"), axis_names={"q"})(four)),
        ]

    mesh4 = meshes((4, 2), ("i", "j"))
    assert errors(didax, dlax, mesh4[0], ds.P) == errors(jax, jlax, mesh4[1], js.PartitionSpec)


def test_replication_errors_as_in_jax():
    """out_specs that leave out a mesh axis the output varies over (check_vma=True); JAX's
    message names the function when jitted (its eager call names an internal wrapper)."""
    libs = {}  # the library's lax, for the bodies below

    def body(v):
        return v * 2

    def gathered(v):
        return libs["lax"].all_gather(v, "j", tiled=True)

    cases = [
        (body, lambda P: P()),  # varies over both axes
        (body, lambda P: P("i")),  # over j, left out
        (lambda v: libs["lax"].psum(v, "i"), lambda P: P()),  # still over j
        (lambda v: libs["lax"].psum(v, "i") + libs["lax"].axis_index("i"), lambda P: P("j")),
        (gathered, lambda P: P(None, "i")),
        (lambda v: (libs["lax"].psum(v, ("i", "j")), v), lambda P: (P(), P())),  # the second fails
    ]
    results = []
    for lib, lax, mesh, P in [(didax, dlax, GRID[0], ds.P), (jax, jlax, GRID[1], js.PartitionSpec)]:
        libs["lax"] = lax
        results.append([error_of(lambda: lib.jit(lib.shard_map(f, mesh=mesh, in_specs=P("i", "j"),
                                                               out_specs=out(P)))(X)) for f, out in cases])  # fmt: skip
    assert results[0] == results[1]
    assert all(kind == "ValueError" for kind, _ in results[0])


def test_a_replicated_result_that_is_checked_passes_and_check_vma_false_trusts_the_spec():
    body = lambda lax, v: lax.pmax(v, "i") * 2 + lax.psum(1.0, "j")  # noqa: E731
    assert_same(*both(body, IJ, lambda P: P(None, "j"), (X,), mesh_pair=GRID))
    with pytest.raises(ValueError, match="replicated across mesh axis 'i'"):
        both(lambda lax, v: lax.psum(v, "j"), IJ, lambda P: P(None, "j"), (X,), mesh_pair=GRID)
    # Told not to check, both take the first block along the axes left out (device 0's).
    assert_same(*both(lambda lax, v: v * 2, IJ, REPLICATED, (X,), mesh_pair=GRID, check_vma=False))


def test_psum_over_axes_some_varying_some_not_is_refused_as_in_jax():
    """Checked, psum sums over axes its operand varies along, or over axes it is the same along
    (counting the copies), not over both kinds at once: JAX's ValueError, with the way out."""
    ours, theirs = [error_of(lambda: sm(lambda v: lax.psum(v, ("i", "j")), mesh=m, in_specs=P("i"),
                                        out_specs=P())(X))  # fmt: skip
                    for lax, P, sm, m in [(dlax, ds.P, didax.shard_map, GRID[0]),
                                          (jlax, js.PartitionSpec, jax.shard_map, GRID[1])]]  # fmt: skip
    assert ours[0] == theirs[0] == "ValueError"
    assert ours[1].split(". Sum over")[0] == theirs[1].split("\n")[0]
    assert "Sum over the axes the value varies along (i), or pass check_vma=False" in ours[1]
    assert_same(*both(lambda lax, v: lax.psum(v, ("i", "j")), ALONG_I, REPLICATED, (X,), mesh_pair=GRID,
                      check_vma=False))  # fmt: skip


def test_collective_errors_inside_shard_map():
    dm, jm = LINE
    for lax, P, sm, mesh in [(dlax, ds.P, didax.shard_map, dm)]:
        with pytest.raises(NameError, match="unbound axis name: k"):
            sm(lambda v: lax.psum(v, "k"), mesh=mesh, in_specs=P("i"), out_specs=P("i"))(X)
    bad_scatter = [error_of(lambda: sm(lambda v: lax.psum_scatter(v, "i"), mesh=m, in_specs=P("i"),
                                       out_specs=P("i"))(X))  # fmt: skip
                   for lax, P, sm, m in [(dlax, ds.P, didax.shard_map, dm),
                                         (jlax, js.PartitionSpec, jax.shard_map, jm)]]  # fmt: skip
    assert bad_scatter[0] == bad_scatter[1]


def test_what_didax_does_not_do_yet_says_so():
    explicit = didax.make_mesh((8,), ("i",))  # Explicit axes: JAX would read in_specs off the types
    with pytest.raises(NotImplementedError, match="pass in_specs"):
        didax.shard_map(lambda v: v, mesh=explicit, out_specs=ds.P("i"))(X)
    with pytest.raises(NotImplementedError, match="every axis is manual"):
        didax.shard_map(lambda v: v, mesh=GRID[0], in_specs=ds.P("i"), out_specs=ds.P("i"), axis_names={"i"})(X)
    # A custom_vjp's bwd inside a checked body gets the cotangents JAX's types make (here JAX's
    # gradient is cos(x); unchecked, both give cos(x) / 8, pmap's share of the replicated output).
    g = didax.custom_vjp(lambda v: dlax.psum(didax.numpy.sin(v), "i"))
    g.defvjp(lambda v: (g(v), v), lambda v, c: (didax.numpy.cos(v) * c,))
    f = didax.shard_map(g, mesh=LINE[0], in_specs=ds.P("i"), out_specs=ds.P(), check_vma=True)
    np.testing.assert_allclose(f(X), np.sin(X).reshape(8, 2, 4).sum(0), rtol=1e-5)  # its values are not refused
    with pytest.raises(NotImplementedError, match="custom_vjp function inside a shard_map with check_vma=True"):
        didax.grad(lambda x: f(x).sum())(X)


# ----------------------------------------------------------------------------------------------
# jit on Arrays spread over a mesh, with no shard_map: XLA partitions the program itself.


def test_jit_takes_arrays_spread_over_a_mesh():
    dm = GRID[0]
    x = didax.device_put(X, ds.NamedSharding(dm, ds.P("i", "j")))
    f = didax.jit(lambda v, w: (v * 2 + w).sum(axis=0))
    for _ in range(2):  # the slow path, then the fast path
        out = f(x, x)
        np.testing.assert_array_equal(np.asarray(out), (X * 3).sum(axis=0))
    assert {s.device.id for s in out.addressable_shards} == set(range(8))
    np.testing.assert_array_equal(np.asarray(f(X, x)), (X * 3).sum(axis=0))  # one on one device, copied
    np.testing.assert_array_equal(np.asarray(f(X, X)), (X * 3).sum(axis=0))  # the single-device way still works


# ----------------------------------------------------------------------------------------------
# The collective matrix multiplies of JAX's shard_map tutorial, in our own words: lhs (rows in
# P('i')) times rhs split over the 8 devices, against NumPy's product.

LHS = np.random.default_rng(0).standard_normal((16, 32)).astype(np.float32)
RHS = np.random.default_rng(1).standard_normal((32, 8)).astype(np.float32)


def gather_then_multiply(lhs, rhs):
    """Each device gathers all of rhs, then multiplies its rows of lhs by it."""
    return lhs @ dlax.all_gather(rhs, "i", tiled=True)


def multiply_while_passing(lhs, rhs):
    """The same, overlapped: rhs blocks travel round the ring, and each device multiplies the
    columns of its lhs rows that match the block it holds, a step at a time."""
    n, me = dlax.axis_size("i"), dlax.axis_index("i")
    width = lhs.shape[1] // n
    columns = lambda k: dlax.dynamic_slice_in_dim(lhs, k * width, width, 1)  # noqa: E731
    out = columns(me) @ rhs
    for step in range(1, n):
        rhs = dlax.ppermute(rhs, "i", [(k, (k + 1) % n) for k in range(n)])
        out = out + columns((me - step) % n) @ rhs
    return out


def multiply_then_scatter(lhs, rhs):
    """Columns of lhs and rows of rhs split alike: each device's product is a summand of the
    whole; psum_scatter adds them and leaves each device its block of rows."""
    return dlax.psum_scatter(lhs @ rhs, "i", tiled=True)


def multiply_while_reducing(lhs, rhs):
    """The same, overlapped: partial sums of each block of rows travel round the ring, each
    device adding its own summand for the block as it passes."""
    n, me = dlax.axis_size("i"), dlax.axis_index("i")
    height = lhs.shape[0] // n
    rows = lambda k: dlax.dynamic_slice_in_dim(lhs, k * height, height, 0)  # noqa: E731
    total = rows((me + 1) % n) @ rhs
    for step in range(2, n + 1):
        total = dlax.ppermute(total, "i", [(k, (k - 1) % n) for k in range(n)])
        total = total + rows((me + step) % n) @ rhs
    return total


@pytest.mark.parametrize("body, in_specs", [
    (gather_then_multiply, (ds.P("i", None), ds.P("i", None))),
    (multiply_while_passing, (ds.P("i", None), ds.P("i", None))),
    (multiply_then_scatter, (ds.P(None, "i"), ds.P("i", None))),
    (multiply_while_reducing, (ds.P(None, "i"), ds.P("i", None))),
])  # fmt: skip
def test_the_tutorial_s_collective_matrix_multiplies(body, in_specs):
    f = didax.jit(didax.shard_map(body, mesh=LINE[0], in_specs=in_specs, out_specs=ds.P("i", None)))
    out = f(LHS, RHS)
    np.testing.assert_allclose(np.asarray(out), LHS @ RHS, rtol=1e-5, atol=1e-5)
    assert out.sharding.spec == ds.P("i", None) and out.addressable_shards[3].data.shape == (2, 8)


def test_a_mesh_of_one_device_runs_the_body_on_the_whole_array_as_jax_does():
    """JAX writes the body in place when the mesh has one device (no manual computation, which
    XLA's partitioner would not lower for a single partition); the collectives are identities."""
    dm, jm = (m.Mesh(np.array(devs[3:4], dtype=object), ("i",), axis_types=(m.AxisType.Auto,))
              for m, devs in ((ds, DEVICES), (js, JAX_DEVICES)))  # fmt: skip
    value = np.arange(6.0, dtype=np.float32).reshape(2, 3)

    def body(lax):
        return lambda x: (lax.psum(x * 2, "i"), lax.all_gather(x, "i", tiled=True), lax.axis_index("i"))

    P, JP = ds.PartitionSpec, js.PartitionSpec
    specs = dict(in_specs=P("i"), out_specs=(P(), P(), P()), check_vma=False)  # (an all_gather is not
    jspecs = dict(in_specs=JP("i"), out_specs=(JP(), JP(), JP()), check_vma=False)  # provably whole: JAX says so too)
    mine = didax.jit(didax.shard_map(body(dlax), mesh=dm, **specs))(value)
    theirs = jax.jit(jax.shard_map(body(jlax), mesh=jm, **jspecs))(value)
    for x, y in zip(mine, theirs):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    assert [d.id for d in mine[0].devices()] == [3]


# ----------------------------------------------------------------------------------------------
# pcast(to='varying'): a mark for the replication check, bound only in a checked body.


def test_pcast_is_pvary_in_a_checked_body_and_nothing_elsewhere():
    def body(lax, v):  # a running sum that starts the same everywhere and adds each device's block
        return lax.scan(lambda c, r: (c + r, None), lax.pcast(0.0, "i", to="varying"), v[0])[0][None]

    for check_vma in (True, False):
        assert_same(*both(body, lambda P: P("i"), lambda P: P("i"), (X,), check_vma=check_vma))
    jaxprs = []
    for lib, lax, mesh, P in [(didax, dlax, LINE[0], ds.P), (jax, jlax, LINE[1], js.PartitionSpec)]:
        f = lib.shard_map(lambda v: body(lax, v), mesh=mesh, in_specs=P("i"), out_specs=P("i"))
        jaxprs.append(str(lib.make_jaxpr(f)(X)))
        pmapped = lib.make_jaxpr(lib.pmap(lambda v: lax.pcast(v, "i", to="varying") * 2, axis_name="i"))(X[:8])
        assert "pvary" not in str(pmapped)  # pmap is unchecked: nothing to mark
    assert [line.strip() for line in jaxprs[0].splitlines() if "pvary" in line] == [
        line.strip().replace("{V:i}", "") for line in jaxprs[1].splitlines() if "pvary" in line
    ]
    with pytest.raises(NameError, match="unbound axis name: k"):
        didax.shard_map(lambda v: dlax.pcast(v, "k", to="varying"), mesh=LINE[0], in_specs=ds.P(),
                        out_specs=ds.P())(X)  # fmt: skip
    with pytest.raises(NotImplementedError, match="reduced"):
        didax.shard_map(lambda v: dlax.pcast(v, "i", to="reduced"), mesh=LINE[0], in_specs=ds.P(),
                        out_specs=ds.P())(X)  # fmt: skip
