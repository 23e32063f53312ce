"""Transformations of shard_map and pmap (JVP, vmap, reverse mode) on the 8 CPU devices, side by
side with JAX (conftest.py gives both 8 devices) and against finite differences: the design
note's table of gradients with psum, grad through every linear collective, residuals of every
rank, replicated inputs and outputs, 1-D and 2-D meshes."""

import jax
import numpy as np
import pytest
from jax import lax as jlax
from jax import sharding as js

import didax
from didax import lax as dlax
from didax import sharding as ds

DEVICES, JAX_DEVICES = didax.devices(), jax.devices()
X = np.array([1, 2, 3, 4], np.float32)  # the note's x: one value per device of a line of 4


def libs(shape=(4,), names=("i",)):
    """(library, its lax, a mesh of the first devices, its P) for didax, then for JAX."""
    n = int(np.prod(shape))
    return [(didax, dlax, ds.Mesh(np.array(DEVICES[:n]).reshape(shape), names), ds.P),
            (jax, jlax, js.Mesh(np.array(JAX_DEVICES[:n]).reshape(shape), names), js.PartitionSpec)]  # fmt: skip


def same(make, shape=(4,), names=("i",), rtol=1e-6):
    """``make(lib, lax, mesh, P)`` in didax and in JAX: equal leaves. Returns didax's."""
    ours, theirs = [jax.tree_util.tree_leaves(make(*args)) for args in libs(shape, names)]
    for d, j in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(np.asarray(d), np.asarray(j), rtol=rtol, atol=1e-6)
    return ours


def finite_differences(f, x, eps=1e-2):
    """The gradient of the scalar function ``f`` at ``x``, by central differences in float64."""
    x = np.asarray(x, np.float64)
    grad = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[k] = eps
        grad[k] = (float(f((x + step).astype(np.float32))) - float(f((x - step).astype(np.float32)))) / (2 * eps)
    return grad


def squares_summed(lib, lax, mesh, P, check_vma, out):
    return lib.shard_map(lambda v: lax.psum(v**2, "i"), mesh=mesh, in_specs=P("i"), out_specs=out(P),
                         check_vma=check_vma)  # fmt: skip


# The design note's table (§4): grad with psum, x = [1, 2, 3, 4] on 4 devices.
NOTE = [
    ("pmap_of_grad", [8, 16, 24, 32],
     lambda lib, lax, m, P: lib.pmap(lib.grad(lambda v: lax.psum(v**2, "i")), "i")(X)),
    ("vmap_of_grad", [8, 16, 24, 32],
     lambda lib, lax, m, P: lib.vmap(lib.grad(lambda v: lax.psum(v**2, "i")), axis_name="i")(X)),
    ("grad_of_pmap", [8, 16, 24, 32],
     lambda lib, lax, m, P: lib.grad(lambda v: lib.pmap(lambda u: lax.psum(u**2, "i"), "i")(v).sum())(X)),
    ("shard_map_of_grad_unchecked", [8, 16, 24, 32],
     lambda lib, lax, m, P: lib.shard_map(lib.grad(lambda v: lax.psum(v**2, "i").sum()), mesh=m, in_specs=P("i"),
                                          out_specs=P("i"), check_vma=False)(X)),
    ("grad_of_shard_map_replicated_checked", [2, 4, 6, 8],
     lambda lib, lax, m, P: lib.grad(lambda v: squares_summed(lib, lax, m, P, True, lambda P: P())(v).sum())(X)),
    ("grad_of_shard_map_replicated_unchecked", [2, 4, 6, 8],
     lambda lib, lax, m, P: lib.grad(lambda v: squares_summed(lib, lax, m, P, False, lambda P: P())(v).sum())(X)),
    ("grad_of_shard_map_tiled_checked", [8, 16, 24, 32],
     lambda lib, lax, m, P: lib.grad(lambda v: squares_summed(lib, lax, m, P, True, lambda P: P("i"))(v).sum())(X)),
    ("jvp_of_pmap", [[30] * 4, [20] * 4],
     lambda lib, lax, m, P: lib.jvp(lib.pmap(lambda u: lax.psum(u**2, "i"), "i"), (X,), (np.ones(4, np.float32),))),
    ("gather_and_ring_transposed", [9, 17, 25, 33],
     lambda lib, lax, m, P: lib.shard_map(
         lib.grad(lambda v: (lax.all_gather(v, "i", tiled=True) ** 2).sum()
                  + lax.ppermute(v, "i", [(k, (k + 1) % 4) for k in range(4)]).sum()),
         mesh=m, in_specs=P("i"), out_specs=P("i"), check_vma=False)(X)),
]  # fmt: skip


@pytest.mark.parametrize("name, expected, make", NOTE, ids=[c[0] for c in NOTE])
def test_the_design_note_s_gradients(name, expected, make):
    ours = same(make)
    np.testing.assert_array_equal(np.asarray(ours).reshape(np.shape(expected)), expected)


def test_reverse_mode_inside_a_checked_body_says_it_needs_replication_types():
    """JAX gives [2, 4, 6, 8] here: with check_vma its psum of a varying value transposes to a
    no-op, and an invariant value used with varying ones has its cotangent summed; both need
    the replication types didax does not have yet, so it refuses rather than give [8, 16, ...]."""
    (_, _, mesh, P), (_, _, jmesh, JP) = libs()
    body = lambda lib, lax: lib.grad(lambda v: lax.psum(v**2, "i").sum())  # noqa: E731
    theirs = jax.shard_map(body(jax, jlax), mesh=jmesh, in_specs=JP("i"), out_specs=JP("i"))(X)
    np.testing.assert_array_equal(np.asarray(theirs), [2, 4, 6, 8])
    with pytest.raises(NotImplementedError, match="check_vma=True"):
        didax.shard_map(body(didax, dlax), mesh=mesh, in_specs=P("i"), out_specs=P("i"))(X)
    # Forward mode inside it needs no types: its values are the same either way.
    jvp_body = lambda lib, lax: lambda v: lib.jvp(lambda u: lax.psum(u**2, "i"), (v,), (v,))[1]  # noqa: E731
    same(lambda lib, lax, m, P: lib.shard_map(jvp_body(lib, lax), mesh=m, in_specs=P("i"), out_specs=P())(X))


# A function of every linear collective on the 2x4 mesh ('i', 'j'): x in P('i', 'j') (blocks of
# (2, 1)), w replicated; outputs along 'i' and replicated. Its scalar loss is differentiated.
A = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)
W = np.float32(0.7)


def mixed(lib, lax, mesh, P, check_vma=True):
    def body(v, w):
        s = lib.numpy.sin(v * w)  # residuals of v's rank
        t = v.sum() * w  # a scalar residual
        gathered = lax.all_gather(s, "j", axis=1, tiled=True)  # (2, 4): varies over i only
        moved = lax.ppermute(gathered, "i", [(0, 1), (1, 0)]) * lib.numpy.cos(t)
        rows = lax.psum_scatter(moved, "i", scatter_dimension=0, tiled=True)  # (1, 4)
        spread = lax.all_to_all(moved, "i", 0, 0, tiled=True)
        return lax.psum(rows * rows, ("i", "j")), lax.pmean(spread.sum() * t, ("i", "j"))

    f = lib.shard_map(body, mesh=mesh, in_specs=(P("i", "j"), P()), out_specs=(P(), P()), check_vma=check_vma)
    return lambda x, w: (lambda r, c: (r**2).sum() + c)(*f(x, w))


@pytest.mark.parametrize("check_vma", [True, False])
def test_grad_through_every_collective_matches_jax_and_finite_differences(check_vma):
    grads = same(lambda lib, lax, m, P: lib.grad(mixed(lib, lax, m, P, check_vma), argnums=(0, 1))(A, W),
                 (2, 4), ("i", "j"), rtol=1e-5)  # fmt: skip
    loss = mixed(didax, dlax, libs((2, 4), ("i", "j"))[0][2], ds.P, check_vma)
    np.testing.assert_allclose(grads[0], finite_differences(lambda a: loss(a, W), A), rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(grads[1], finite_differences(lambda w: loss(A, w), W), rtol=2e-2, atol=2e-2)


def test_jit_of_grad_jvp_and_linearize_of_a_shard_map():
    make = lambda lib, lax, m, P: mixed(lib, lax, m, P)  # noqa: E731
    mesh = ((2, 4), ("i", "j"))
    same(lambda lib, lax, m, P: lib.jit(lib.value_and_grad(make(lib, lax, m, P)))(A, W), *mesh, rtol=1e-5)
    tangents = (np.ones_like(A), np.float32(0.5))
    same(lambda lib, lax, m, P: lib.jvp(make(lib, lax, m, P), (A, W), tangents), *mesh, rtol=1e-5)
    same(lambda lib, lax, m, P: lib.linearize(make(lib, lax, m, P), *map(lib.numpy.asarray, (A, W)))[1](*tangents),
         *mesh, rtol=1e-5)  # (JAX's linearize takes no NumPy constant: asarray)


def test_data_parallel_gradients_with_pmap_and_shard_map():
    """The gradient of a mean loss over a batch split across 8 devices, parameters replicated:
    pmap (grad outside it), and shard_map with pmean inside an unchecked body (grad inside)."""
    rng = np.random.default_rng(1)
    batch, w = rng.standard_normal((8, 4, 3)).astype(np.float32), rng.standard_normal(3).astype(np.float32)

    def loss(lib, w, xs):
        return (lib.numpy.tanh(xs @ w) ** 2).mean()

    whole = lambda w: loss(didax, w, batch.reshape(32, 3))  # noqa: E731
    by_pmap = same(lambda lib, lax, m, P: lib.grad(lambda w: lib.pmap(lambda w, xs: loss(lib, w, xs),
                                                                     in_axes=(None, 0))(w, batch).mean())(w),
                   (8,), ("i",), rtol=1e-5)  # fmt: skip
    np.testing.assert_allclose(by_pmap[0], finite_differences(whole, w), rtol=2e-2, atol=1e-3)

    def step(lib, lax, m, P):
        g = lambda w, xs: lax.pmean(lib.grad(loss, argnums=1)(lib, w, xs[0]), "i")  # noqa: E731
        return lib.shard_map(g, mesh=m, in_specs=(P(), P("i")), out_specs=P(), check_vma=False)(w, batch)

    by_shard_map = same(step, (8,), ("i",), rtol=1e-5)
    np.testing.assert_allclose(by_shard_map[0], by_pmap[0], rtol=1e-5)


def test_vmap_of_shard_map_and_of_pmap():
    rows = np.arange(16, dtype=np.float32).reshape(2, 8)
    ours = same(lambda lib, lax, m, P: lib.vmap(lib.shard_map(lambda v: lax.psum(v, "i"), mesh=m, in_specs=P("i"),
                                                              out_specs=P()))(rows))  # fmt: skip
    np.testing.assert_array_equal(ours[0], [[12, 16], [44, 48]])  # the note's
    jaxpr = str(didax.make_jaxpr(didax.vmap(didax.shard_map(lambda v: dlax.psum(v, "i"), mesh=libs()[0][2],
                                                             in_specs=ds.P("i"), out_specs=ds.P())))(rows))  # fmt: skip
    assert "in_specs=(P(None, 'i'),)" in jaxpr and "out_specs=(P(None,),)" in jaxpr
    stack = np.stack([X, 2 * X, 3 * X])
    same(lambda lib, lax, m, P: lib.vmap(lib.pmap(lambda u: lax.psum(u, "i") * u, "i"))(stack))
    same(lambda lib, lax, m, P: lib.vmap(lib.pmap(lambda u, c: lax.all_gather(u * c, "i"), "i", in_axes=(0, None)),
                                         in_axes=(1, 0))(stack.T, np.float32([1, 2, 3])))  # fmt: skip
    # vmap over an axis the body's collectives name too: JAX's check_vma refuses it (a bare
    # AssertionError), so it is compared unchecked: psum over the devices (10) and over the batch (6).
    ours = same(lambda lib, lax, m, P: lib.vmap(lambda r: lib.shard_map(lambda v: lax.psum(v, "i") + lax.psum(r, "b"),
                                                                 mesh=m, in_specs=P("i"), out_specs=P(),
                                                                 check_vma=False)(X),
                                         axis_name="b")(np.float32([1, 2, 3])))  # fmt: skip
    np.testing.assert_array_equal(ours[0], np.full((3, 1), 16))
