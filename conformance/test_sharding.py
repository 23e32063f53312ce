"""Parallelism over named axes: ``pmap``, ``shard_map`` and the collectives of ``jax.lax`` on 8 CPU
devices (the plugin asks for them; see impl.DEVICE_FLAGS). Every collective (psum, pmean, pmax,
pmin, all_gather, psum_scatter, ppermute, all_to_all, axis_index) under ``pmap``, ``vmap(...,
axis_name=)`` and their compositions, against its meaning computed with NumPy, one row per device;
``shard_map`` on 1-D and 2-D meshes against the same program run on the whole array; reverse mode of
``pmap`` and ``shard_map`` against ``jvp`` and central finite differences (derivatives.py); and the
errors JAX raises for shapes that do not divide, replication that cannot be proved and unknown axis
names, by exception class.

Values are multiples of 0.5, so that sums and means over up to 8 devices are exact in float32 in
any order: collectives are compared exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.checks import assert_dtype, assert_values, show_call
from conformance.derivatives import check_reverse
from conformance.impl import Impl
from conformance.missing import Namespace
from conformance.test_jit import namespace

pytestmark = [pytest.mark.area("sharding"), pytest.mark.requires("sharding")]

F32, I32, F64 = np.dtype("float32"), np.dtype("int32"), np.dtype("float64")
DEVICES = 8  # impl.DEVICE_FLAGS
Shape = tuple[int, ...]

# Each example compiles a program for several devices: a few examples per test (5 in the ci
# profile, 3 for the compositions and the derivatives, 2 in CI's run on JAX).
SETTINGS = settings(max_examples=max(2, settings().max_examples // 5))
FEW = settings(max_examples=max(2, settings().max_examples // 8))


def scope(impl: Impl) -> dict[str, Any]:
    """What the suite's program text sees: jax, jnp, lax, np, and P (``jax.sharding.PartitionSpec``)."""
    names = namespace(impl)
    sharding = Namespace(getattr(impl.module, "sharding", None), "jax.sharding")
    return {**names, "P": sharding.PartitionSpec, "Mesh": sharding.Mesh, "devices": devices(impl)}


def devices(impl: Impl) -> list[Any]:
    found = list(namespace(impl)["jax"].devices())
    assert len(found) >= DEVICES, (
        f"the sharding area needs {DEVICES} devices, found {len(found)}: the plugin sets jax_num_cpu_devices "
        "to 8 when it loads the implementation, which works only before its first operation"
    )
    return found


def run(impl: Impl, source: str, **values: Any) -> Any:
    """Execute ``source`` (the suite's own text; it assigns ``out``) with ``values`` bound; noted as
    the reproducing program."""
    show_call(source + "\nout", **values)
    env = {**scope(impl), **values}
    exec(compile(source, "<sharding case>", "exec"), env)
    return env["out"]


def grid(dt: np.dtype, shape: Shape) -> st.SearchStrategy[np.ndarray]:
    """Distinct multiples of 0.5 around 0 (integers for int32), in an order drawn: sums of 8 are exact,
    and no two elements are equal, so a collective that moves the wrong element cannot hide (hypothesis
    readily draws arrays of zeros, on which a permuted result equals the right one)."""
    size, scale = math.prod(shape), 0.5 if dt.kind == "f" else 1
    return st.permutations(range(size)).map(
        lambda v: ((np.array(v, np.float64) - size // 2) * scale).astype(dt).reshape(shape)
    )


# --- the collectives, with their meaning in NumPy ------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One collective call on one device's value ``v`` (``source``, over axis 'i'), and what it gives
    every device: ``reference(x)`` maps the stacked values ``x`` (device k's is ``x[k]``) to the
    stacked results."""

    source: str
    shape: Shape  # one device's value
    dtype: np.dtype
    reference: Callable[[np.ndarray], np.ndarray]


def _every(n: int, value: np.ndarray) -> np.ndarray:
    return np.stack([value] * n)


def _psum(draw: st.DrawFn, n: int, dt: np.dtype, full: bool) -> Call:
    shape = draw(st.sampled_from([(), (3,), (2, 3)]), label="shape")
    return Call("lax.psum(v, 'i')", shape, dt, lambda x: _every(n, x.sum(0).astype(dt)))


def _pmean(draw: st.DrawFn, n: int, dt: np.dtype, full: bool) -> Call:
    shape = draw(st.sampled_from([(), (3,), (2, 3)]), label="shape")
    return Call("lax.pmean(v, 'i')", shape, dt, lambda x: _every(n, x.astype(F64).mean(0).astype(F32)))


def _pmax(draw: st.DrawFn, n: int, dt: np.dtype, full: bool) -> Call:
    shape = draw(st.sampled_from([(), (3,), (2, 3)]), label="shape")
    return Call("lax.pmax(v, 'i')", shape, dt, lambda x: _every(n, x.max(0)))


def _pmin(draw: st.DrawFn, n: int, dt: np.dtype, full: bool) -> Call:
    shape = draw(st.sampled_from([(), (3,), (2, 3)]), label="shape")
    return Call("lax.pmin(v, 'i')", shape, dt, lambda x: _every(n, x.min(0)))


def _all_gather(draw: st.DrawFn, n: int, dt: np.dtype, full: bool) -> Call:
    shape = draw(st.sampled_from([(3,), (2, 3)]), label="shape")
    tiled = draw(st.booleans(), label="tiled")
    rank = len(shape) + (not tiled)  # where the gathered axis may go (counted from either end)
    axis = draw(st.integers(-rank, rank - 1), label="axis")

    def reference(x: np.ndarray) -> np.ndarray:
        rows = list(x)
        return _every(n, np.concatenate(rows, axis) if tiled else np.stack(rows, axis))

    return Call(f"lax.all_gather(v, 'i', axis={axis}, tiled={tiled})", shape, dt, reference)


def _psum_scatter(draw: st.DrawFn, n: int, dt: np.dtype, full: bool) -> Call:
    tiled = draw(st.booleans(), label="tiled")
    d = draw(st.integers(0, 1), label="scatter_dimension")
    other = draw(st.integers(1, 3), label="other size")
    size = n * draw(st.integers(1, 2), label="blocks") if tiled else n
    shape = (size, other) if d == 0 else (other, size)

    def reference(x: np.ndarray) -> np.ndarray:
        total = x.sum(0).astype(dt)
        parts = np.split(total, n, axis=d)
        return np.stack([p if tiled else np.squeeze(p, d) for p in parts])

    return Call(f"lax.psum_scatter(v, 'i', scatter_dimension={d}, tiled={tiled})", shape, dt, reference)


def _ppermute(draw: st.DrawFn, n: int, dt: np.dtype, full: bool) -> Call:
    """A permutation of the devices, or (not under vmap, which needs a full one) of some of them:
    those that receive nothing get zeros."""
    shape = draw(st.sampled_from([(), (3,)]), label="shape")
    targets = draw(st.permutations(range(n)), label="targets")
    count = n if full else draw(st.integers(1, n), label="pairs")
    perm = [(src, int(dst)) for src, dst in enumerate(targets)][:count]

    def reference(x: np.ndarray) -> np.ndarray:
        out = np.zeros_like(x)
        for src, dst in perm:
            out[dst] = x[src]
        return out

    return Call(f"lax.ppermute(v, 'i', {perm})", shape, dt, reference)


def _all_to_all(draw: st.DrawFn, n: int, dt: np.dtype, full: bool) -> Call:
    """Device k receives chunk k of every device's value along split_axis and joins them along
    concat_axis (untiled: the chunks are single elements, stacked at concat_axis)."""
    tiled = draw(st.booleans(), label="tiled")
    split, concat = draw(st.integers(0, 1), label="split_axis"), draw(st.integers(0, 1), label="concat_axis")
    other = draw(st.integers(1, 3), label="other size")
    size = n * draw(st.integers(1, 2), label="chunks") if tiled else n
    shape = (size, other) if split == 0 else (other, size)

    def reference(x: np.ndarray) -> np.ndarray:
        if tiled:
            return np.stack([np.concatenate([np.split(x[j], n, split)[k] for j in range(n)], concat)
                             for k in range(n)])  # fmt: skip
        return np.stack([np.stack([x[j].take(k, split) for j in range(n)], concat) for k in range(n)])

    return Call(f"lax.all_to_all(v, 'i', {split}, {concat}, tiled={tiled})", shape, dt, reference)


def _axis_index(draw: st.DrawFn, n: int, dt: np.dtype, full: bool) -> Call:
    """The device's index, used with its value so that a mapped input exists."""
    shape = draw(st.sampled_from([(), (3,)]), label="shape")
    return Call("v * lax.axis_index('i').astype(v.dtype)", shape, dt,
                lambda x: x * np.arange(n).reshape((n,) + (1,) * (x.ndim - 1)).astype(dt))  # fmt: skip


COLLECTIVES = {"psum": _psum, "pmean": _pmean, "pmax": _pmax, "pmin": _pmin, "all_gather": _all_gather,
               "psum_scatter": _psum_scatter, "ppermute": _ppermute, "all_to_all": _all_to_all,
               "axis_index": _axis_index}  # fmt: skip


@st.composite
def calls(draw: st.DrawFn, name: str, n: int, full: bool) -> Call:
    dt = F32 if name == "pmean" else draw(st.sampled_from([F32, I32]), label="dtype")
    return COLLECTIVES[name](draw, n, dt, full)


# How each mapper runs ``f`` (one device's computation) on ``x``, and what it gives by the reference.
# Under pmap and vmap the axis 'i' is x's axis 0. Composed, an unnamed vmap adds a batch axis of 2:
# inside pmap (axis 1 of x; the collectives' batching rules shift their axes past it) or outside it
# (axis 0 of x; shard_map's batching rule).
MAPPERS = {
    "pmap": "out = jax.pmap(f, axis_name='i')(x)",
    "vmap": "out = jax.vmap(f, axis_name='i')(x)",
    "pmap_of_vmap": "out = jax.pmap(jax.vmap(f), axis_name='i')(x)",
    "vmap_of_pmap": "out = jax.vmap(jax.pmap(f, axis_name='i'))(x)",
    # every example computes with the same value, x[0] (a traced one: jit's), which vmap leaves
    # unbatched: the collectives' rules for a value that does not vary along their axis
    "vmap_of_an_unmapped_value": "out = jax.jit(lambda x: jax.vmap(lambda k: f(x[0]), axis_name='i')"
                                 "(jnp.zeros(x.shape[0])))(x)",
}
BATCH = 2


def _mapped_input(mapper: str, n: int, shape: Shape) -> Shape:
    return {"pmap_of_vmap": (n, BATCH, *shape), "vmap_of_pmap": (BATCH, n, *shape)}.get(mapper, (n, *shape))


def _expected(mapper: str, call: Call, x: np.ndarray) -> np.ndarray:
    if mapper == "pmap_of_vmap":
        return np.stack([call.reference(x[:, b]) for b in range(BATCH)], 1)
    if mapper == "vmap_of_pmap":
        return np.stack([call.reference(x[b]) for b in range(BATCH)])
    if mapper == "vmap_of_an_unmapped_value":
        return call.reference(np.stack([x[0]] * len(x)))
    return call.reference(x)


def check_collective(impl: Impl, data: st.DataObject, name: str, mapper: str) -> None:
    n = data.draw(st.sampled_from([2, 4, 8]), label="devices")
    call = data.draw(calls(name, n, full=mapper != "pmap"), label="call")
    x = data.draw(grid(call.dtype, _mapped_input(mapper, n, call.shape)), label="x")
    got = run(impl, f"f = lambda v: {call.source}\n{MAPPERS[mapper]}", x=x)
    want = _expected(mapper, call, x)
    # JAX 0.10.2's vmap of ppermute and all_to_all on NumPy inputs returns a NumPy array, which has
    # no weak type to check.
    assert_dtype(got, want.dtype, weak=None if mapper == "vmap" else False)
    assert_values(got, want, want.dtype)


@pytest.mark.parametrize("name", COLLECTIVES)
@SETTINGS
@given(data=st.data())
def test_collective_under_pmap(impl: Impl, name: str, data: st.DataObject) -> None:
    """On 2, 4 or 8 devices, partial permutations for ppermute."""
    check_collective(impl, data, name, "pmap")


@pytest.mark.parametrize("name", COLLECTIVES)
@SETTINGS
@given(data=st.data())
def test_collective_under_vmap_with_an_axis_name(impl: Impl, name: str, data: st.DataObject) -> None:
    """vmap(f, axis_name='i') gives what pmap gives (both are checked against the same reference)."""
    check_collective(impl, data, name, "vmap")


# JAX 0.10.2's vmap of all_to_all over a value that does not vary along the axis gives a result of
# the wrong shape (an axis of the axis size too many): not asked of an implementation.
COMPOSED = [(n, m) for m in ("pmap_of_vmap", "vmap_of_pmap", "vmap_of_an_unmapped_value") for n in COLLECTIVES
            if (n, m) != ("all_to_all", "vmap_of_an_unmapped_value")]  # fmt: skip


@pytest.mark.parametrize(("name", "mapper"), COMPOSED, ids=[f"{n}-{m}" for n, m in COMPOSED])
@FEW
@given(data=st.data())
def test_collective_batched_by_an_unnamed_vmap(impl: Impl, name: str, mapper: str, data: st.DataObject) -> None:
    check_collective(impl, data, name, mapper)


@pytest.mark.parametrize("tiled", [False, True])
def test_all_gather_along_every_axis_counted_from_either_end(impl: Impl, tiled: bool) -> None:
    """Every axis of a 2x3 value, from -rank to rank - 1 (rank 3 untiled: the new axis may go
    last), against NumPy: a negative axis counts from the end of the result's rank."""
    x = np.arange(2 * 2 * 3, dtype=F32).reshape(2, 2, 3)
    rank = 2 + (not tiled)
    for axis in range(-rank, rank):
        got = run(impl, f"out = jax.pmap(lambda v: lax.all_gather(v, 'i', axis={axis}, tiled={tiled}), "
                        "axis_name='i')(x)", x=x)  # fmt: skip
        want = (np.concatenate(list(x), axis) if tiled else np.stack(list(x), axis))
        assert_values(got, np.stack([want, want]), F32)


@SETTINGS
@given(data=st.data())
def test_pmap_equals_vmap_with_the_same_axis_name(impl: Impl, data: st.DataObject) -> None:
    """A chain of two collectives and elementwise operations, pmap against vmap: one program."""
    n = data.draw(st.sampled_from([2, 4, 8]), label="devices")
    first = data.draw(calls(data.draw(st.sampled_from(["psum", "pmax", "ppermute", "axis_index"]), label="first"),
                            n, full=True))  # fmt: skip
    second = data.draw(st.sampled_from(["lax.pmean(w, 'i')", "lax.all_gather(w, 'i')",
                                        "lax.all_gather(w, 'i', tiled=True)", "lax.psum(w * w, 'i') - w"]))  # fmt: skip
    x = data.draw(grid(F32, (n, *first.shape)), label="x")
    source = (f"def f(v):\n    w = jnp.sin(v) + {first.source.replace('v.dtype', 'jnp.float32')}\n"
              f"    return {second}\n")  # fmt: skip
    by_pmap = run(impl, source + MAPPERS["pmap"], x=x.astype(F32))
    by_vmap = run(impl, source + MAPPERS["vmap"], x=x.astype(F32))
    assert_dtype(by_pmap, np.dtype(by_vmap.dtype), weak=False)
    assert_values(by_pmap, np.asarray(by_vmap), F32)


@pytest.mark.parametrize("out_axis", [0, 1])
@FEW
@given(data=st.data())
def test_pmap_in_axes_and_out_axes(impl: Impl, out_axis: int, data: st.DataObject) -> None:
    """a mapped along its axis 0 or 1, b along 0, 1 or not at all (every device gets all of it), the
    result stacked along out_axes 0 or 1 (each in every run: a few examples may all draw one)."""
    n = data.draw(st.sampled_from([2, 4]), label="devices")
    a_axis, b_axis = data.draw(st.sampled_from([0, 1]), label="a's axis"), data.draw(st.sampled_from([0, 1, None]))
    a = data.draw(grid(F32, (n, 3) if a_axis == 0 else (3, n)), label="a")
    b = data.draw(grid(F32, (3,) if b_axis is None else (n, 3) if b_axis == 0 else (3, n)), label="b")
    got = run(impl, f"out = jax.pmap(lambda u, w: jnp.sin(u) * 2.0 + lax.psum(w, 'i'), axis_name='i', "
                    f"in_axes=({a_axis}, {b_axis}), out_axes={out_axis})(a, b)", a=a, b=b)  # fmt: skip
    rows_a = np.moveaxis(a.astype(F64), a_axis, 0)
    total = n * b.astype(F64) if b_axis is None else np.moveaxis(b.astype(F64), b_axis, 0).sum(0)
    want = np.moveaxis(np.sin(rows_a) * 2.0 + total, 0, out_axis)
    assert_dtype(got, F32, weak=False)
    assert_values(got, want, F32, atol=1e-6)


# --- shard_map: the same program on blocks as on the whole array ------------------------------------------------

MESHES = {"line": ((4,), ("i",)), "grid": ((2, 4), ("i", "j")), "square": ((2, 2), ("a", "b"))}
UNARY = ["jnp.sin(v)", "v * v", "jnp.tanh(v) * 2.0", "v + 1.5", "jnp.exp(-v * v)", "jnp.cos(v) * v"]


@dataclass(frozen=True)
class Program:
    """A shard_map over a mesh of the first devices: its text (``f``, a function of the whole x),
    the spec of x (entries: None, a name or a tuple of names), and its result on the whole x."""

    source: str
    spec: tuple
    shape: Shape
    whole: Callable[[np.ndarray], tuple[np.ndarray, float]]


def _names(entry: Any) -> tuple[str, ...]:
    return () if entry is None else entry if isinstance(entry, tuple) else (entry,)


def _spec_text(spec: tuple) -> str:
    return "P(" + ", ".join(repr(e) for e in spec) + ")"


def _unary_numpy(op: str) -> Callable[[np.ndarray], np.ndarray]:
    return lambda v: eval(op, {"jnp": np, "v": v})  # the suite's own text, on NumPy


@st.composite
def programs(draw: st.DrawFn, mesh: str, derivatives: bool = False) -> Program:
    """x of rank 2 split by a drawn spec (each mesh axis on dimension 0, 1, or neither: replicated),
    an elementwise chain ``g``, then one finish: the blocks as they are (out_specs = in_specs), the
    total (psum: over every mesh axis unchecked, where each replica counts; checked, over the axes
    that split x), the maximum (pmax), the mean of the rows (pmean over the axes that split them),
    or the rows gathered back (all_gather, tiled)."""
    sizes, names = MESHES[mesh]
    size = dict(zip(names, sizes))
    where = [draw(st.sampled_from([0, 1, None]), label=f"dimension of {a}") for a in names]
    order = draw(st.permutations(names), label="order in a tuple")
    spec = []
    for d in (0, 1):
        on = tuple(a for a in order if where[names.index(a)] == d)
        spec.append(None if not on else on[0] if len(on) == 1 and draw(st.booleans(), label="bare") else on)
    spec = tuple(spec)
    shape = tuple(math.prod(size[a] for a in _names(spec[d])) * draw(st.integers(1, 2), label="block")
                  for d in (0, 1))  # fmt: skip
    ops = draw(st.lists(st.sampled_from(UNARY), min_size=1, max_size=2), label="ops")
    g = "v"
    for op in ops:
        g = op.replace("v", f"({g})")
    finishes = ["blocks", "total", "mean_rows"] + ([] if derivatives else ["max", "gather"])
    finish = draw(st.sampled_from(finishes), label="finish")
    rows, cols = _names(spec[0]), _names(spec[1])
    mentioned = rows + cols
    replicas = math.prod(size[a] for a in names if a not in mentioned)
    check = draw(st.booleans(), label="check_vma") if finish != "gather" else False
    # Checked, a reduction names only the axes the value varies along (JAX refuses the others: the
    # total counts each replica once); unchecked, every axis (the total counts every replica).
    over = tuple(a for a in names if a in mentioned) if check else names
    copies = 1 if check else replicas
    out_spec, body = spec, g
    if finish == "total":
        out_spec, body = (), f"lax.psum(jnp.sum({g}), {over!r})" if over else f"jnp.sum({g})"
    elif finish == "max":
        out_spec, body = (), f"lax.pmax(jnp.max({g}), {over!r})" if over else f"jnp.max({g})"
    elif finish == "mean_rows":
        mean = f"jnp.mean({g}, axis=0)"
        out_spec, body = (spec[1],), f"lax.pmean({mean}, {rows!r})" if rows else mean
    elif finish == "gather" and rows:
        out_spec, body = (None, spec[1]), f"lax.all_gather({g}, {rows!r}, axis=0, tiled=True)"

    def whole(x: np.ndarray) -> tuple[np.ndarray, float]:
        """The result, and the size of the terms summed into it (what rounding errors scale with)."""
        value = x
        for op in ops:
            value = _unary_numpy(op)(value)
        result = {"total": lambda: value.sum() * copies, "max": lambda: value.max(),
                  "mean_rows": lambda: value.mean(0)}.get(finish, lambda: value)()  # fmt: skip
        return result, float(np.abs(value).sum() * copies)

    mesh_text = f"Mesh(np.array(devices[:{math.prod(sizes)}]).reshape({sizes}), {names!r})"
    source = (f"mesh = {mesh_text}\n"
              f"f = jax.shard_map(lambda v: {body}, mesh=mesh, in_specs={_spec_text(spec)}, "
              f"out_specs={_spec_text(out_spec)}, check_vma={check})\n")  # fmt: skip
    return Program(source, spec, shape, whole)


@pytest.mark.parametrize("mesh", MESHES)
@SETTINGS
@given(data=st.data())
def test_shard_map_equals_the_program_on_the_whole_array(impl: Impl, mesh: str, data: st.DataObject) -> None:
    program = data.draw(programs(mesh), label="program")
    x = data.draw(grid(F32, program.shape), label="x")
    got = run(impl, program.source + "out = f(x)", x=x)
    want, magnitude = program.whole(x.astype(F64))
    assert_dtype(got, F32, weak=False)
    assert_values(got, want, F32, atol=1e-6 * magnitude)


@pytest.mark.parametrize("mesh", MESHES)
@SETTINGS
@given(data=st.data())
def test_jit_of_shard_map_equals_shard_map(impl: Impl, mesh: str, data: st.DataObject) -> None:
    program = data.draw(programs(mesh), label="program")
    x = data.draw(grid(F32, program.shape), label="x")
    eager = run(impl, program.source + "out = f(x)", x=x)
    jitted = run(impl, program.source + "out = jax.jit(f)(x)", x=x)
    assert_dtype(jitted, F32, weak=False)
    assert_values(jitted, np.asarray(eager), F32, atol=1e-6 * program.whole(x.astype(F64))[1])


# --- reverse mode: pmap and shard_map against jvp and finite differences ---------------------------------------

# One device's computation on its value v (a vector of 4) and a value w every device shares; each
# linear collective and a nonlinear function around it (pmax and pmin have no derivative in JAX).
BODIES = {
    "psum": "jnp.sin(v) * lax.psum(v * w, 'i')",
    "pmean": "lax.pmean(jnp.tanh(v * w), 'i') * v",
    "all_gather": "jnp.sum(lax.all_gather(jnp.sin(v), 'i', axis=1) * w, axis=0) * v",
    "all_gather_tiled": "lax.all_gather(jnp.sin(v) * w, 'i', tiled=True)[::4] * v",
    "psum_scatter": "lax.psum_scatter(jnp.cos(v) * w, 'i', tiled=True) * v[:1]",
    "psum_scatter_dimension_1": "lax.psum_scatter(jnp.outer(jnp.cos(v), w), 'i', scatter_dimension=1, tiled=True) "
                                "* v[:, None]",
    "ppermute": "lax.ppermute(jnp.sin(v) * w, 'i', [(0, 2), (1, 0), (2, 3), (3, 1)]) * v",
    "all_to_all": "lax.all_to_all(jnp.outer(v, w), 'i', 0, 1, tiled=True) ** 2",
    "axis_index": "jnp.sin(v * w) * (lax.axis_index('i') + 1)",
    "pcast": "lax.pcast(w, 'i', to='varying') * jnp.sin(v)",
}
# How each wraps the body: pmap maps the rows of x (4 devices) and shares w; shard_map gives each
# device a block of one row (its v is row 0 of the block) and w whole, under either replication check.
WRAPPERS = {
    "pmap": "f = jax.pmap(body, axis_name='i', in_axes=(0, None))",
    "shard_map_checked": "f = jax.shard_map(lambda v, w: body(v[0], w)[None], mesh=Mesh(np.array(devices[:4]), "
                         "('i',)), in_specs=(P('i'), P()), out_specs=P('i'), check_vma=True)",
    "shard_map_unchecked": "f = jax.shard_map(lambda v, w: body(v[0], w)[None], mesh=Mesh(np.array(devices[:4]), "
                           "('i',)), in_specs=(P('i'), P()), out_specs=P('i'), check_vma=False)",
}  # fmt: skip


def _compiled(impl: Impl, source: str) -> Callable[..., Any]:
    env = scope(impl)
    exec(compile(source, "<sharding case>", "exec"), env)
    return env["f"]


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("body", BODIES)
@FEW
@given(data=st.data())
def test_reverse_mode_through_collectives(impl: Impl, flags, body: str, wrapper: str, data: st.DataObject) -> None:
    flags("jax_enable_x64", True)
    x = data.draw(grid(F64, (4, 4)), label="x") / 2
    w = data.draw(grid(F64, (4,)), label="w") / 4
    # jit: finite differences call f a dozen times, and an eager shard_map is traced at every call.
    source = f"body = lambda v, w: {BODIES[body]}\n{WRAPPERS[wrapper]}\nf = jax.jit(f)"
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="direction seed"))
    check_reverse(namespace(impl)["jax"], _compiled(impl, source), (x, w), rng, source=source,
                  values={"x": x, "w": w}, order=1)  # fmt: skip


@pytest.mark.parametrize("mesh", MESHES)
@FEW
@given(data=st.data())
def test_reverse_mode_of_drawn_shard_maps(impl: Impl, flags, mesh: str, data: st.DataObject) -> None:
    """The programs of test_shard_map_equals_the_program_on_the_whole_array (not their pmax and
    all_gather finishes), differentiated in float64."""
    flags("jax_enable_x64", True)
    program = data.draw(programs(mesh, derivatives=True), label="program")
    x = data.draw(grid(F64, program.shape), label="x") / 4
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="direction seed"))
    source = program.source + "f = jax.jit(f)"
    check_reverse(namespace(impl)["jax"], _compiled(impl, source), (x,), rng, source=source, values={"x": x},
                  order=1)  # fmt: skip


def test_the_gradient_with_psum_depends_on_where_it_is_taken(impl: Impl) -> None:
    """Inside pmap, each device's output has its own cotangent, so psum's transpose sums 4 ones:
    2·4·x. Outside a checked shard_map whose output is replicated, the one output counts once: 2x."""
    x = np.array([1, 2, 3, 4], F32)
    inside = run(impl, "out = jax.pmap(jax.grad(lambda v: lax.psum(v ** 2, 'i')), axis_name='i')(x)", x=x)
    assert_values(inside, 8 * x, F32)
    outside = run(impl, "mesh = Mesh(np.array(devices[:4]), ('i',))\n"
                        "f = jax.shard_map(lambda v: lax.psum(v ** 2, 'i'), mesh=mesh, in_specs=P('i'), out_specs=P())\n"
                        "out = jax.grad(lambda v: f(v).sum())(x)", x=x)  # fmt: skip
    assert_values(outside, 2 * x, F32)


# A collective inside a function that jit, checkpoint, custom_jvp, custom_vjp or cond holds: the
# named axis must reach it when the call is compiled (not only when it is traced), and the
# replication check must see that the psum inside makes the output the same on every device.
CALLS = {
    "jit": "h = jax.jit(g)",
    "checkpoint": "h = jax.checkpoint(g)",
    "custom_jvp": "h = jax.custom_jvp(g)\n"
                  "h.defjvp(lambda p, t: (g(*p), lax.psum(jnp.cos(p[0]) * t[0], 'i')))",
    "custom_vjp": "h = jax.custom_vjp(g)\n"
                  "h.defvjp(lambda v: (g(v), v), lambda v, c: (jnp.cos(v) * c,))",
    "cond": "h = lambda v: lax.cond(lax.psum(v.sum(), 'i') > -100.0, g, lambda u: lax.psum(u * 2.0, 'i'), v)",
}  # fmt: skip


@pytest.mark.parametrize("check", [True, False], ids=["checked", "unchecked"])
@pytest.mark.parametrize("call", CALLS)
def test_a_collective_inside_a_function_call(impl: Impl, call: str, check: bool) -> None:
    """psum(sin(v)) over 4 devices, inside ``call``, with a replicated out_spec: eager, under jit,
    and its gradient (each device's cos, the one output counted once). A custom_vjp's bwd, which
    does not psum, sees what the check decides: without it, pmap's cotangent (the output's, divided
    among its 4 copies); with it, JAX's types (not asked here: stage 07 refuses, having none)."""
    x = np.arange(8, dtype=F32) / 4
    source = (f"g = lambda v: lax.psum(jnp.sin(v), 'i')\n{CALLS[call]}\n"
              "f = jax.shard_map(h, mesh=Mesh(np.array(devices[:4]), ('i',)), in_specs=P('i'), out_specs=P(), "
              f"check_vma={check})\nout = (f(x), jax.jit(f)(x))")  # fmt: skip
    eager, jitted = run(impl, source, x=x)
    expected = np.sin(x.astype(F64)).reshape(4, 2).sum(0)
    assert_values(eager, expected, F32, atol=1e-6)
    assert_values(jitted, expected, F32, atol=1e-6)
    if call == "custom_vjp" and check:
        return
    grad = run(impl, source.replace("out = (f(x), jax.jit(f)(x))", "out = jax.grad(lambda x: f(x).sum())(x)"), x=x)
    assert_values(grad, np.cos(x.astype(F64)) / (4 if call == "custom_vjp" else 1), F32, atol=1e-6)


@pytest.mark.parametrize("order", [("i", "j"), ("j", "i")], ids=["mesh_order", "reversed"])
def test_collectives_over_two_axes_count_in_the_order_named(impl: Impl, order: tuple[str, str]) -> None:
    """On a 2x4 mesh, x's rows split over both axes in ``order`` (the first name major), then gathered
    back over the same names in the same order: x again; and the index over those names of the
    device holding row r is r. (A collective over several axes that followed the mesh's order
    instead would shuffle the rows when the order is reversed.)"""
    x = np.arange(8 * 3, dtype=F32).reshape(8, 3)
    gathered, index = run(impl, "mesh = Mesh(np.array(devices[:8]).reshape(2, 4), ('i', 'j'))\n"
                                f"f = lambda v: (lax.all_gather(v, {order!r}, axis=0, tiled=True), "
                                f"lax.axis_index({order!r})[None])\n"
                                f"out = jax.shard_map(f, mesh=mesh, in_specs=P({order!r}), "
                                f"out_specs=(P(), P({order!r})), check_vma=False)(x)", x=x)  # fmt: skip
    assert_values(gathered, x, F32)
    assert_values(index, np.arange(8, dtype=np.int32), np.dtype(np.int32))


@pytest.mark.parametrize("op", ["x * 2.0", "jnp.sin(x) + x"])
def test_an_eager_elementwise_operation_keeps_its_operands_sharding(impl: Impl, op: str) -> None:
    """Outside jit, an elementwise operation on an Array split over 4 devices is split the same
    way (JAX compiles eager operations for their operands' devices); a sum of it is whole, on
    those 4 devices."""
    x = np.arange(8, dtype=F32)
    out, total = run(impl, "mesh = Mesh(np.array(devices[:4]), ('i',))\n"
                           "x = jax.device_put(x, jax.sharding.NamedSharding(mesh, P('i')))\n"
                           f"out = ({op}, x.sum())", x=x)  # fmt: skip
    assert_values(out, eval(op, {"x": x.astype(F64), "jnp": np}), F32, atol=1e-6)
    assert tuple(out.sharding.spec) == ("i",) and len(out.sharding.device_set) == 4
    assert_values(total, np.float64(x.sum()), F32)
    assert tuple(total.sharding.spec) == () and len(total.sharding.device_set) == 4


def test_device_put_takes_a_tree_of_shardings_prefix_of_its_values(impl: Impl) -> None:
    """``device_put(x, shardings)`` with a tree of shardings, a prefix of ``x``'s tree: each subtree
    goes where the sharding at its place says (JAX's tutorial on sharded computation puts a pair
    this way)."""
    x = np.arange(8, dtype=F32)
    (a, b), c = run(impl, "mesh = Mesh(np.array(devices[:4]), ('i',))\n"
                          "split, whole = (jax.sharding.NamedSharding(mesh, P(*s)) for s in (('i',), ()))\n"
                          "out = jax.device_put(((x, 2 * x), x), ((split, whole), split))", x=x)  # fmt: skip
    for got, want, spec in ((a, x, ("i",)), (b, 2 * x, ()), (c, x, ("i",))):
        assert_values(got, want.astype(F64), F32)
        assert tuple(got.sharding.spec) == spec and len(got.sharding.device_set) == 4


def test_named_sharding_is_at_the_top_level_too(impl: Impl) -> None:
    assert run(impl, "out = jax.NamedSharding is jax.sharding.NamedSharding")


# --- errors -------------------------------------------------------------------------------------------------

X8 = np.arange(8, dtype=F32)
ERRORS = {
    # shapes that do not divide
    "pmap_more_rows_than_devices": (ValueError, "out = jax.pmap(lambda v: v + 1)(np.zeros((9, 2), np.float32))"),
    "shard_map_indivisible": (ValueError, "f = jax.shard_map(lambda v: v, mesh=Mesh(np.array(devices[:4]), ('i',)), "
                                          "in_specs=P('i'), out_specs=P('i'))\nout = f(np.zeros(10, np.float32))"),
    "psum_scatter_tiled_indivisible": (ValueError, "out = jax.pmap(lambda v: lax.psum_scatter(v, 'i', tiled=True), "
                                                   "axis_name='i')(np.zeros((4, 6), np.float32))"),
    "psum_scatter_size_not_the_axis_size": (ValueError, "out = jax.pmap(lambda v: lax.psum_scatter(v, 'i'), "
                                                        "axis_name='i')(np.zeros((4, 8), np.float32))"),
    "all_to_all_size_not_the_axis_size": (ValueError, "out = jax.pmap(lambda v: lax.all_to_all(v, 'i', 0, 0), "
                                                      "axis_name='i')(np.zeros((4, 6), np.float32))"),
    "all_to_all_tiled_indivisible": (ValueError, "out = jax.pmap(lambda v: lax.all_to_all(v, 'i', 0, 0, tiled=True), "
                                                 "axis_name='i')(np.zeros((4, 6), np.float32))"),
    "spec_longer_than_the_rank": (ValueError, "f = jax.shard_map(lambda v: v, mesh=Mesh(np.array(devices[:4]), ('i',)), "
                                              "in_specs=P('i', None), out_specs=P('i'))\nout = f(np.zeros(8, np.float32))"),
    # replication that cannot be proved
    "replicated_out_spec_of_a_varying_value": (
        ValueError, "f = jax.shard_map(lambda v: v * 2, mesh=Mesh(np.array(devices[:4]), ('i',)), in_specs=P('i'), "
                    "out_specs=P())\nout = f(x)"),
    "replicated_out_spec_of_a_gathered_value": (
        ValueError, "f = jax.shard_map(lambda v: lax.all_gather(v, 'i', tiled=True), mesh=Mesh(np.array(devices[:4]), "
                    "('i',)), in_specs=P('i'), out_specs=P())\nout = f(x)"),
    "replicated_out_spec_of_a_replicated_value_gathered": (
        ValueError, "f = jax.shard_map(lambda v: lax.all_gather(v, 'i', tiled=True), mesh=Mesh(np.array(devices[:4]), "
                    "('i',)), in_specs=P(), out_specs=P())\nout = f(x)"),
    "replicated_out_spec_of_the_axis_index": (
        ValueError, "f = jax.shard_map(lambda v: v + lax.axis_index('i'), mesh=Mesh(np.array(devices[:4]), ('i',)), "
                    "in_specs=P(), out_specs=P())\nout = f(x)"),
    "replicated_over_one_axis_of_two": (
        ValueError, "f = jax.shard_map(lambda v: lax.psum(v, 'i'), mesh=Mesh(np.array(devices[:8]).reshape(2, 4), "
                    "('i', 'j')), in_specs=P(('i', 'j')), out_specs=P())\nout = f(x)"),
    "psum_over_varying_and_invariant_axes_at_once": (
        ValueError, "f = jax.shard_map(lambda v: lax.psum(v, ('i', 'j')), mesh=Mesh(np.array(devices[:8]).reshape(2, 4), "
                    "('i', 'j')), in_specs=P('i'), out_specs=P())\nout = f(x)"),
    "pcast_of_a_value_already_varying": (
        ValueError, "f = jax.shard_map(lambda v: lax.pcast(v, 'i', to='varying'), mesh=Mesh(np.array(devices[:4]), "
                    "('i',)), in_specs=P('i'), out_specs=P('i'))\nout = f(x)"),
    "pcast_to_an_unknown_type": (
        ValueError, "f = jax.shard_map(lambda v: lax.pcast(v, 'i', to='variable'), mesh=Mesh(np.array(devices[:4]), "
                    "('i',)), in_specs=P(), out_specs=P())\nout = f(x)"),
    # unknown axis names
    "psum_over_an_unbound_name_in_pmap": (NameError, "out = jax.pmap(lambda v: lax.psum(v, 'k'), axis_name='i')(x)"),
    "psum_over_an_unbound_name_in_vmap": (NameError, "out = jax.vmap(lambda v: lax.psum(v, 'k'), axis_name='i')(x)"),
    "all_gather_outside_any_map": (NameError, "out = lax.all_gather(x, 'i')"),
    "axis_index_outside_any_map": (NameError, "out = jax.jit(lambda: lax.axis_index('i'))()"),
    "spec_naming_an_axis_not_in_the_mesh": (
        ValueError, "f = jax.shard_map(lambda v: v, mesh=Mesh(np.array(devices[:4]), ('i',)), in_specs=P('z'), "
                    "out_specs=P('i'))\nout = f(x)"),
    # a permutation that is not one
    "ppermute_with_a_repeated_destination": (
        ValueError, "out = jax.pmap(lambda v: lax.ppermute(v, 'i', [(0, 1), (2, 1)]), axis_name='i')(x[:4])"),
}  # fmt: skip
# What JAX accepts and an implementation might refuse: the same calls made right.
ACCEPTED = {
    "replicated_out_spec_of_a_sum": "f = jax.shard_map(lambda v: lax.psum(v, 'i'), mesh=Mesh(np.array(devices[:4]), "
                                    "('i',)), in_specs=P('i'), out_specs=P())\nout = f(x)",
    "replicated_out_spec_unchecked": "f = jax.shard_map(lambda v: v * 2, mesh=Mesh(np.array(devices[:4]), ('i',)), "
                                     "in_specs=P('i'), out_specs=P(), check_vma=False)\nout = f(x)",
    "replicated_over_both_axes": "f = jax.shard_map(lambda v: lax.psum(v, ('i', 'j')), mesh=Mesh(np.array(devices[:8])"
                                 ".reshape(2, 4), ('i', 'j')), in_specs=P(('i', 'j')), out_specs=P())\nout = f(x)",
    "replicated_input_to_a_varying_output": "f = jax.shard_map(lambda v: v + lax.axis_index('i'), mesh=Mesh(np.array("
                                            "devices[:4]), ('i',)), in_specs=P(), out_specs=P('i'))\nout = f(x)",
    "psum_of_a_constant": "out = jax.pmap(lambda v: v + lax.psum(2.5, 'i'), axis_name='i')(x[:4])",
    "axis_index_on_a_grid": "f = jax.shard_map(lambda v: v + lax.axis_index('i') * 10 + lax.axis_index('j'), "
                            "mesh=Mesh(np.array(devices[:8]).reshape(2, 4), ('i', 'j')), in_specs=P(), "
                            "out_specs=P(('i', 'j')))\nout = f(x)",
    "psum_over_an_axis_the_value_is_the_same_along": "f = jax.shard_map(lambda v: lax.psum(v, 'j'), mesh=Mesh("
                                                     "np.array(devices[:8]).reshape(2, 4), ('i', 'j')), "
                                                     "in_specs=P('i'), out_specs=P('i'))\nout = f(x)",
    "scan_carry_made_varying_by_pcast": "f = jax.shard_map(lambda v: lax.scan(lambda c, r: (c + r, None), lax.pcast("
                                        "0.0, 'i', to='varying'), v)[0][None], mesh=Mesh(np.array(devices[:4]), "
                                        "('i',)), in_specs=P('i'), out_specs=P('i'))\nout = f(x)",
    "scan_carry_adding_a_psum": "f = jax.shard_map(lambda v: lax.scan(lambda c, r: (c + lax.psum(r, 'i'), None), 0.0, "
                                "v)[0][None], mesh=Mesh(np.array(devices[:4]), ('i',)), in_specs=P('i'), "
                                "out_specs=P())\nout = f(x)",
    "while_loop_carry_adding_a_psum": "f = jax.shard_map(lambda v: lax.while_loop(lambda c: c[1] < 3, lambda c: (c[0] "
                                      "+ lax.psum(v, 'i'), c[1] + 1), (jnp.zeros(2), 0))[0], mesh=Mesh(np.array("
                                      "devices[:4]), ('i',)), in_specs=P('i'), out_specs=P())\nout = f(x)",
    "jvp_of_a_scan_inside_a_checked_body": "f = jax.shard_map(lambda v: jax.jvp(lambda w: lax.scan(lambda c, r: (c "
                                           "* r, None), w[0], w)[0][None], (v,), (jnp.ones_like(v),))[1], mesh=Mesh("
                                           "np.array(devices[:4]), ('i',)), in_specs=P('i'), out_specs=P('i'))\n"
                                           "out = f(x + 1)",
    "vmap_of_a_shard_map_with_pcast": "f = jax.shard_map(lambda v: v * lax.pcast(lax.psum(v.sum(), 'i'), 'i', "
                                      "to='varying'), mesh=Mesh(np.array(devices[:4]), ('i',)), in_specs=P('i'), "
                                      "out_specs=P('i'))\nout = jax.vmap(f)(x.reshape(2, 4))",
}  # fmt: skip
ACCEPTED_VALUES = {
    "replicated_out_spec_of_a_sum": X8.reshape(4, 2).sum(0),
    "replicated_out_spec_unchecked": X8[:2] * 2,
    "replicated_over_both_axes": np.array([X8.sum()]),
    "replicated_input_to_a_varying_output": np.concatenate([X8 + k for k in range(4)]),
    "psum_of_a_constant": X8[:4] + 10,
    "axis_index_on_a_grid": np.concatenate([X8 + 10 * i + j for i in range(2) for j in range(4)]),
    "psum_over_an_axis_the_value_is_the_same_along": X8 * 4,  # the 4 copies along j
    "scan_carry_made_varying_by_pcast": X8.reshape(4, 2).sum(1),
    "scan_carry_adding_a_psum": np.array([X8.sum()]),
    "while_loop_carry_adding_a_psum": 3 * X8.reshape(4, 2).sum(0),
    "vmap_of_a_shard_map_with_pcast": X8.reshape(2, 4) * X8.reshape(2, 4).sum(1, keepdims=True),
    # d/dt of a·a·b at (a, b) + t: 2ab + a², for each device's block (a, b) of x + 1
    "jvp_of_a_scan_inside_a_checked_body": 2 * (X8 + 1)[::2] * (X8 + 1)[1::2] + (X8 + 1)[::2] ** 2,
}


@pytest.mark.parametrize("case", ERRORS)
def test_misuse_raises_jaxs_exception_class(impl: Impl, case: str) -> None:
    error, source = ERRORS[case]
    with pytest.raises(error):
        run(impl, source, x=X8)
    after = run(impl, "out = jax.pmap(lambda v: lax.psum(v, 'i'), axis_name='i')(x)", x=X8)
    assert_values(after, np.full(8, X8.sum()), F32)  # a call after the misuse still works


def test_a_loop_cannot_carry_a_varying_value_into_a_replicated_output(impl: Impl) -> None:
    """Three carries rotate each step, the first the block, the others its psum: after two steps
    the second holds the block, which varies (one pass of the body shows only the third taking
    it). JAX refuses the loop itself (a carry's type changes: TypeError); a check of the outputs
    alone must still see that the second carry varies (the replication ValueError)."""
    with pytest.raises((TypeError, ValueError)):
        run(impl, "s = lambda v: lax.psum(v, 'i')\n"
                  "f = jax.shard_map(lambda v: lax.scan(lambda c, _: ((c[1], c[2], c[0]), None), (v, s(v), s(v)), None, "
                  "length=2)[0][1], mesh=Mesh(np.array(devices[:4]), ('i',)), in_specs=P('i'), out_specs=P())\n"
                  "out = f(x)", x=X8)  # fmt: skip


@pytest.mark.parametrize("case", ACCEPTED)
def test_what_jax_accepts(impl: Impl, case: str) -> None:
    got = run(impl, ACCEPTED[case], x=X8)
    assert_dtype(got, F32, weak=False)
    assert_values(got, ACCEPTED_VALUES[case], F32)
