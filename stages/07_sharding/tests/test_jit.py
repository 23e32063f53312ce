"""didax.jit: the seeds' values, tracing once per signature, composition with jvp, vmap and
make_jaxpr, static arguments, the flags, and the device-resident Array."""

import functools
import logging

import ml_dtypes
import numpy as np
import pytest

import didax
import didax.numpy as jnp
from didax import lax, xla
from didax.errors import TracerBoolConversionError


@pytest.fixture
def x64():
    with didax.enable_x64():
        yield


def test_seed_trace_once_and_cache_hit(x64, capsys):
    @didax.jit
    def f(x, y):
        print("tracing!")
        return jnp.sin(x) * jnp.cos(y)

    z = f(3.0, 4.0)
    assert capsys.readouterr().out == "tracing!\n"
    assert float(z) == pytest.approx(-0.09224219304455371, rel=1e-15)  # the seed's value
    z = f(4.0, 5.0)
    assert capsys.readouterr().out == ""  # a cache hit: no tracing
    assert float(z) == pytest.approx(-0.21467624978306993, rel=1e-15)


def test_seed_reduce_and_second_derivative(x64):
    assert float(didax.jit(lambda x: jnp.sum(x, axis=0))(np.array([1.0, 2.0, 3.0]))) == 6.0

    def f(x):
        return -(jnp.sin(x) * 2.0) + x

    def deriv(f):
        return lambda x: didax.jvp(f, (x,), (1.0,))[1]

    eager, compiled = deriv(deriv(f))(3.0), didax.jit(deriv(deriv(f)))(3.0)
    assert float(eager) == pytest.approx(0.2822400161197344, rel=1e-15)
    assert float(compiled) == pytest.approx(0.2822400161197344, rel=1e-15)


def test_seed_jvp_and_vmap_of_jit(x64, capsys):
    @didax.jit
    def f(x):
        print("tracing!")
        return -(jnp.sin(x) * 2.0) + x

    y, ydot = didax.jvp(f, (3.0,), (1.0,))
    assert capsys.readouterr().out == "tracing!\n"
    assert (float(y), float(ydot)) == pytest.approx((2.7177599838802657, 2.979984993200891), rel=1e-15)
    didax.jvp(f, (3.0,), (1.0,))
    assert capsys.readouterr().out == ""  # 'tracing!' not printed
    ys = didax.vmap(f, (0,))(np.arange(3.0))
    np.testing.assert_allclose(np.asarray(ys), [0.0, -0.68294197, 0.18140515], rtol=1e-7)


def test_seed_jit_of_cond():
    assert int(didax.jit(lambda: lax.cond(False, lambda: 1, lambda: 2))()) == 2  # the seed's value
    f = didax.jit(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x))
    assert float(f(True, 0.5)) == pytest.approx(np.sin(0.5), rel=1e-6)
    assert float(f(False, 0.5)) == pytest.approx(np.cos(0.5), rel=1e-6)


def test_retraces_once_per_new_type():
    calls = []

    @didax.jit
    def f(x):
        calls.append(1)
        return x * 2

    f(jnp.ones(3))
    f(jnp.zeros(3))  # a new value: no retrace
    assert len(calls) == 1
    f(jnp.ones(4))  # a new shape
    f(jnp.ones(3, jnp.int32))  # a new dtype
    f(1.0)  # a weak float scalar
    f(jnp.float32(1.0))  # a strong one: a new weak type
    assert len(calls) == 5
    f(jnp.ones(4)), f(2.0)
    assert len(calls) == 5


def test_static_arguments():
    calls = []

    def f(x, n):
        calls.append(n)
        return x * n if n > 1 else x  # Python control flow on a static argument works

    g = didax.jit(f, static_argnums=1)
    np.testing.assert_array_equal(np.asarray(g(jnp.arange(3.0), 3)), [0.0, 3.0, 6.0])
    g(jnp.arange(3.0), 3)
    g(jnp.arange(3.0), 1)
    assert calls == [3, 1]
    h = didax.jit(f, static_argnames="n")
    np.testing.assert_array_equal(np.asarray(h(jnp.arange(3.0), n=2)), [0.0, 2.0, 4.0])
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
        didax.jit(lambda x, s: x, static_argnums=1)(1.0, [1, 2])


def test_python_if_on_a_traced_value_is_an_error():
    def f(x):
        return x if x > 0 else -x

    with pytest.raises(TracerBoolConversionError):
        didax.jit(f)(1.0)
    assert float(didax.jit(f, static_argnums=0)(-2.0)) == 2.0


def test_make_jaxpr_of_jit_is_one_equation_with_the_jaxpr_inside():
    def f(x):
        return jnp.sin(x) * 2.0

    closed = didax.make_jaxpr(didax.jit(f))(1.0)
    (eqn,) = closed.jaxpr.eqns
    assert eqn.primitive.name == "jit" and eqn.params["name"] == "f"
    assert [e.primitive.name for e in eqn.params["jaxpr"].eqns] == ["sin", "mul"]
    assert str(closed).splitlines()[1].strip() == "b:f32[] = jit["
    assert str(closed).splitlines()[2].strip() == "name=f"


# The texts JAX 0.10.2 prints for the same functions (make_jaxpr, print inside jit).


def test_a_jit_equation_names_its_jaxprs_variables_after_its_own():
    text = str(didax.make_jaxpr(lambda x: didax.jit(lambda y: y * 2.0)(x) + 1.0)(np.float32(1.0)))
    assert text == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = jit[\n"
        "      name=<lambda>\n"
        "      jaxpr={ lambda ; a:f32[]. let b:f32[] = mul a 2.0:f32[] in (b,) }\n"
        "    ] a\n"
        "    c:f32[] = add b 1.0:f32[]\n"
        "  in (c,) }"
    )
    # Each outer name once, and only for a variable not named yet; a literal takes none.
    text = str(didax.make_jaxpr(lambda x: didax.jit(lambda a: (a, a * 2, 3.0))(x))(1.0))
    assert text.splitlines()[1] == "    c:f32[] b:f32[] d:f32[] = jit["
    assert text.splitlines()[-3:] == ["        in (a, b, 3.0:f32[]) }", "    ] a", "  in (c, b, d) }"]


def test_a_jaxpr_jit_calls_twice_is_printed_once_in_front_under_its_name():
    def inner(y):
        return jnp.sin(y)

    text = str(didax.make_jaxpr(lambda x: didax.jit(inner)(x) + didax.jit(inner)(x))(np.ones(3, np.float32)))
    assert text == (
        "let inner = { lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) } in\n"
        "{ lambda ; c:f32[3]. let\n"
        "    d:f32[3] = jit[name=inner jaxpr=inner] c\n"
        "    e:f32[3] = jit[name=inner jaxpr=inner] c\n"
        "    f:f32[3] = add d e\n"
        "  in (f,) }"
    )


def test_donated_invars_print_only_when_something_is_donated():
    text = str(didax.make_jaxpr(lambda x, y: didax.jit(lambda a, b: a * b, donate_argnums=0)(x, y))(1.0, 2.0))
    assert text.splitlines()[2:5] == [
        "      name=<lambda>",
        "      donated_invars=(True, False)",
        "      jaxpr={ lambda ; a:f32[] b:f32[]. let c:f32[] = mul a b in (c,) }",
    ]
    assert "donated_invars" not in str(didax.make_jaxpr(lambda x, y: didax.jit(lambda a, b: a * b)(x, y))(1.0, 2.0))


def test_a_value_traced_by_jit_prints_as_jaxs_jit_tracer():
    seen = []

    def spy(x):
        seen.append(repr(x))
        return x

    didax.jit(spy)(1.0)
    didax.jit(spy)(np.ones(3, np.float32))
    didax.jit(lambda x: didax.jvp(spy, (x,), (x,)))(np.float32(1.0))
    didax.jit(didax.vmap(spy))(np.ones(3, np.float32))
    assert seen == [
        "JitTracer(~float32[])",
        "JitTracer(float32[3])",
        "JVPTracer(primal=JitTracer(float32[]), tangent=JitTracer(float32[]))",
        "VmapTracer(aval=float32[], batched=float32[3])",
    ]


def test_nested_jit_and_transformations_agree_with_eager():
    x = jnp.asarray(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))

    def f(x):
        return jnp.tanh(x) * jnp.exp(x) - jnp.sum(x, axis=0)

    g = didax.jit(f)
    np.testing.assert_allclose(np.asarray(didax.jit(lambda x: g(g(x)))(x)), np.asarray(f(f(x))), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(didax.jit(didax.vmap(f))(x)), np.asarray(didax.vmap(f)(x)), rtol=1e-6)
    p, t = didax.jit(lambda x: didax.jvp(f, (x,), (jnp.ones_like(x),)))(x)
    p0, t0 = didax.jvp(f, (x,), (jnp.ones_like(x),))
    np.testing.assert_allclose(np.asarray(p), np.asarray(p0), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(t), np.asarray(t0), rtol=1e-6)


def test_closed_over_tracer_inside_jvp():
    """A jitted function closing over a jvp tracer: the tracer is an operand of the jit equation,
    so the derivative flows through it."""

    def outer(y):
        return didax.jit(lambda x: x * y)(2.0)

    _, t = didax.jvp(outer, (3.0,), (1.0,))
    assert float(t) == 2.0


def test_lower_and_compile():
    g = didax.jit(lambda x: jnp.sin(x) * 2.0)
    text = g.lower(jnp.ones(3)).as_text()
    assert "func.func public @main(%arg0: tensor<3xf32>)" in text and "stablehlo.sine" in text
    compiled = g.lower(jnp.ones(3)).compile()
    np.testing.assert_allclose(np.asarray(compiled(jnp.ones(3))), 2 * np.sin(np.ones(3, np.float32)), rtol=1e-6)
    assert "HloModule" in compiled.as_text()
    assert compiled.cost_analysis()["transcendentals"] == 3.0
    assert [e.primitive.name for e in g.trace(jnp.ones(3)).jaxpr.eqns] == ["sin", "mul"]


def test_disable_jit_and_log_compiles(caplog):
    calls = []

    @didax.jit
    def f(x):
        calls.append(1)
        return x + 1

    with didax.disable_jit():
        f(1.0), f(2.0)
    assert len(calls) == 2  # run eagerly: no cache
    didax.config.update("jax_log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="didax"):
            f(jnp.ones(7))
    finally:
        didax.config.update("jax_log_compiles", False)
    assert any("Compiling f" in r.message for r in caplog.records)


def test_device_array():
    y = didax.jit(lambda x: x * 2.0)(jnp.arange(3.0))
    assert repr(y) == "Array([0., 2., 4.], dtype=float32)"
    assert y.block_until_ready() is y
    assert y.device == didax.devices()[0] and y.devices() == {didax.devices()[0]}
    view = np.asarray(y)
    with pytest.raises(ValueError):
        view[0] = 7.0  # read-only: didax arrays are immutable
    host = np.arange(3.0, dtype=np.float32)
    z = didax.device_put(host)
    host[0] = 99.0
    assert np.asarray(didax.jit(lambda a: a * 1.0)(z)).tolist() == [0.0, 1.0, 2.0]  # the put copied
    got = didax.device_get({"y": y})
    assert isinstance(got["y"], np.ndarray) and got["y"].tolist() == [0.0, 2.0, 4.0]


def test_bfloat16_reads_back():
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    y = didax.jit(lambda x: (x * 1.5).astype(jnp.bfloat16))(x)
    want = (x * np.float32(1.5)).astype(ml_dtypes.bfloat16)
    assert np.asarray(y).dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(np.asarray(y).astype(np.float32), want.astype(np.float32))


def test_weak_type_survives_jit():
    y = didax.jit(lambda x: x * 2)(1.0)
    assert y.weak_type and y.dtype == np.float32
    assert (y + jnp.ones(2, jnp.float16)).dtype == jnp.float16


def test_donation_reuses_the_buffer_and_deletes_the_array():
    f = didax.jit(lambda x, y: (x + 1, y * 2), donate_argnums=0)
    x, y = jnp.ones(3), jnp.ones(2)
    a, b = f(x, y)
    assert np.asarray(a).tolist() == [2.0, 2.0, 2.0] and np.asarray(b).tolist() == [2.0, 2.0]
    assert x.is_deleted() and not y.is_deleted()
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
        x + 1
    assert "tf.aliasing_output = 0 : i32" in f.lower(jnp.ones(3), jnp.ones(2)).as_text()
    x2 = jnp.ones(3)
    f(x2, y)  # the fast path donates too
    assert x2.is_deleted()


def test_a_donation_no_output_can_use_is_a_warning():
    g = didax.jit(lambda x: x.sum(), donate_argnums=0)
    z = jnp.ones(3)
    with pytest.warns(UserWarning, match=r"Some donated buffers were not usable: float32\[3\]"):
        g(z)
    assert not z.is_deleted() and float(z.sum()) == 3.0


def test_errors_name_the_function_and_the_primitive(monkeypatch):
    from didax.lowering import lowering_rules
    from didax.xla import XlaRuntimeError

    def wrong_type(ctx, x):  # a rule writing an op whose result type does not match its operand
        return ctx.fb.op1("stablehlo.sine", [x], "tensor<7xf32>")

    def failing(ctx, x):
        raise ValueError("this rule fails")

    def f(x):
        return jnp.sin(x) * 2.0

    monkeypatch.setitem(lowering_rules, lax.sin_p, wrong_type)
    with pytest.raises(XlaRuntimeError, match=r"(?s)XLA could not compile jit\(f\).*jit_f/sin"):
        didax.jit(f)(jnp.ones(3))
    monkeypatch.setitem(lowering_rules, lax.sin_p, failing)
    with pytest.raises(ValueError, match="this rule fails") as info:
        didax.jit(f)(jnp.ones(3))
    assert "while lowering 'sin' on float32[3] in jit_f" in info.value.__notes__


def test_static_argnums_out_of_range_and_by_name():
    with pytest.raises(ValueError, match=r"static_argnums=\(3,\), but only accepts 1 positional arguments"):
        didax.jit(lambda x: x, static_argnums=3)
    f = didax.jit(lambda x, y=2: x * y, static_argnums=1)
    assert (float(f(1.0)), float(f(1.0, 3)), float(f(1.0, y=3))) == (2.0, 3.0, 3.0)
    assert float(didax.jit(lambda *a: a[0], static_argnums=2)(1.0)) == 1.0


def test_device_put_arrays_of_one_type_share_the_fast_path():
    """Arrays put on the device have a type equal to any other of that type (not their value's
    ConcreteArray, equal only to itself): the fast path keeps one executable for all of them."""
    calls = []

    @didax.jit
    def f(x):
        calls.append(1)
        return x + 1.0

    for k in range(5):
        x = didax.device_put(np.full(3, k, np.float32))
        np.testing.assert_array_equal(np.asarray(f(x)), np.full(3, k + 1.0, np.float32))
    assert len(calls) == 1 and len(f._ready) == 1


def test_an_eager_array_joins_the_fast_path_once_it_is_on_the_device():
    """An Array made eagerly lives in NumPy; its first jitted call puts it on the device, and
    from then on a call with it is a fast-path hit (no trace, no new entry)."""
    calls = []

    @didax.jit
    def f(x):
        calls.append(1)
        return x * 2.0

    x = jnp.arange(4.0)  # eager: a NumPy-backed Array
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(f(x)), np.arange(4.0, dtype=np.float32) * 2)
    assert len(calls) == 1 and len(f._ready) == 1
    f(jnp.arange(5.0))  # another shape: traced once more, a second entry
    assert len(calls) == 2 and len(f._ready) == 2


def test_the_fast_path_keys_by_weak_type_and_never_takes_other_values():
    """The fast path's key separates a weakly typed argument from a strong one of the same shape
    and dtype (their jaxprs differ), and a value that is not an Array goes the slow way."""
    f = didax.jit(lambda x: x + np.float16(1))  # a strong float16 scalar: x's weak type decides the result
    weak = didax.device_put(didax.Array(np.float32(1.0), weak_type=True))
    strong = didax.device_put(np.float32(1.0))
    assert f(weak).dtype == np.float16 and f(strong).dtype == np.float32
    assert f(weak).dtype == np.float16 and f(strong).dtype == np.float32  # and again, from the fast path
    assert len(f._ready) == 2
    assert float(f(np.float32(2.0))) == 3.0 and float(f(2.0)) == 3.0  # NumPy and Python values


def test_block_until_ready_waits_for_every_array_in_a_tree():
    """``block_until_ready`` returns its argument, for one Array, a tuple of them (some only in
    NumPy), and a nested tree; afterwards every value can be read."""
    f = didax.jit(lambda x: (x + 1.0, [x * 2.0, {"a": x - 1.0}]))
    x = didax.device_put(np.arange(3, dtype=np.float32))
    one = f(x)[0]
    assert didax.block_until_ready(one) is one
    pair = (one, jnp.ones(3))  # a device Array beside a NumPy-backed one
    assert didax.block_until_ready(pair) is pair
    tree = f(x)
    assert didax.block_until_ready(tree) is tree
    np.testing.assert_array_equal(np.asarray(tree[1][1]["a"]), np.arange(3, dtype=np.float32) - 1)


def test_a_donated_array_read_before_the_call_is_deleted_too():
    """Reading a device Array keeps a NumPy copy, on the CPU a view of its buffer, and XLA takes
    no buffer something still reads: jit forgets the copy before a donating call, so the Array is
    deleted as JAX's is. Without that the donation would silently not happen."""
    f = didax.jit(lambda x: x * 2.0, donate_argnums=0)
    for _ in range(2):  # the first call and a cached one
        x = didax.device_put(np.arange(3, dtype=np.float32))
        np.testing.assert_array_equal(np.asarray(x), np.arange(3, dtype=np.float32))
        np.testing.assert_array_equal(np.asarray(f(x)), np.arange(3, dtype=np.float32) * 2)
        assert x.is_deleted()
        with pytest.raises(RuntimeError, match="deleted"):
            np.asarray(x)


@pytest.mark.parametrize("missing", ["jax_plugins", "xla_cuda12"])
def test_the_gpu_without_jaxlibs_cuda_plugin_is_a_clear_error(monkeypatch, missing):
    """Asking for the GPU where jaxlib's CUDA plugin is not installed raises RuntimeError naming
    what to install, whether the plugins' namespace package is missing or only the CUDA plugin."""
    import importlib.util

    def find_spec(name, *args):
        if missing == "jax_plugins":
            raise ModuleNotFoundError("No module named 'jax_plugins'")
        return None

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    # A fresh cache of clients: on a machine with the plugin, the test run may have made one already.
    monkeypatch.setattr(xla, "_client", functools.cache(xla._client.__wrapped__))
    didax.config.update("jax_platform_name", "gpu")
    try:
        with pytest.raises(RuntimeError, match=r"jax-cuda12-plugin\[with-cuda\]==0\.10\.2"):
            didax.devices()
    finally:
        didax.config.update("jax_platform_name", "")
    assert didax.devices()[0].platform == "cpu"


def test_arguments_in_containers_take_the_fast_path_when_all_their_leaves_are_device_arrays():
    """Lists, tuples, dicts and None around device Arrays (keyword arguments too) are found by
    their shape and types, without tree_flatten; a NumPy leaf or a namedtuple sends the call the
    slow way, which still gives the right value and stores nothing for the fast path."""
    import collections

    calls = []

    @didax.jit
    def step(params, *, lr):
        calls.append(1)
        return [(w - lr * w, b) for w, b in params]

    def params(k):
        w, b = np.full((2, 2), k, np.float32), np.full(3, k, np.float32)
        return [(didax.device_put(w), None), (didax.device_put(b), None)]

    lr = didax.device_put(np.float32(0.5))
    for k in range(1, 4):
        out = step(params(k), lr=lr)
        np.testing.assert_array_equal(np.asarray(out[1][0]), np.full(3, k / 2, np.float32))
        assert type(out) is list and type(out[0]) is tuple and out[0][1] is None
    assert len(calls) == 1 and len(step._ready) == 1
    mixed = [(np.full((2, 2), 4, np.float32), None), params(4)[1]]  # a NumPy leaf
    np.testing.assert_array_equal(np.asarray(step(mixed, lr=lr)[0][0]), np.full((2, 2), 2, np.float32))
    assert len(step._ready) == 1
    Pair = collections.namedtuple("Pair", "w b")
    g = didax.jit(lambda p: p.w + p.b)
    pair = Pair(didax.device_put(np.ones(2, np.float32)), didax.device_put(np.ones(2, np.float32)))
    assert float(g(pair)[0]) == 2.0 and float(g(pair)[1]) == 2.0 and len(g._ready) == 0


def test_a_device_arrays_type_and_aval_never_read_it_back():
    """shape, dtype, ndim, size, nbytes, weak_type and aval of a jitted function's result come from its
    type: the NumPy copy (``_host``) is made only when the value is read, once; tracing a function
    that closes over the array does not read it either."""
    y = didax.jit(lambda x: x * 2)(np.ones((2, 3), np.float32))
    aval = y.aval
    assert (y.shape, y.dtype, y.ndim, y.size, y.nbytes, y.weak_type) == ((2, 3), np.float32, 2, 6, 24, False)
    assert (aval.shape, aval.dtype, aval.weak_type) == ((2, 3), np.float32, False)
    didax.make_jaxpr(lambda z: z + y)(np.ones((2, 3), np.float32))
    didax.jit(lambda z: z + y)(np.ones((2, 3), np.float32))
    assert y._host is None, "describing or closing over the array read it back"
    np.testing.assert_array_equal(np.asarray(y), np.full((2, 3), 2.0))
    host = y._host
    assert host is not None and np.asarray(y) is not None and y._host is host  # read once, kept


def test_jit_of_the_same_function_anywhere_shares_one_cache_that_dies_with_it():
    """The caches are keyed by the function, held weakly: a function that goes takes its executables
    along (nothing keeps it alive), and a callable that cannot be weakly referenced gets its own."""
    import gc
    import weakref

    def f(x):
        return x + 1

    didax.jit(f)(1.0)
    assert didax.jit(f)._cache is didax.jit(f)._cache
    gone = weakref.ref(f)
    del f
    gc.collect()
    assert gone() is None, "the jit caches keep the function alive"
    assert float(didax.jit(abs)(-2.0)) == 2.0  # a builtin: hashable, not weakly referenceable


def test_debug_nans_checks_a_call_cached_while_it_was_off():
    """A jitted function called (and cached, fast path included) with jax_debug_nans off, then
    called again with it on: the NaN raises FloatingPointError. The flag is in every cache key.
    (JAX 0.10.2's fast path sometimes skips this check, so the conformance suite cannot ask it.)"""
    g = didax.jit(lambda x: jnp.log(x) * 2.0)
    x = didax.device_put(np.array([1.0, -1.0], np.float32))
    for _ in range(3):
        assert np.isnan(np.asarray(g(x))[1])
    didax.config.update("jax_debug_nans", True)
    try:
        with pytest.raises(FloatingPointError, match="log"):
            g(x)
    finally:
        didax.config.update("jax_debug_nans", False)
    assert np.isnan(np.asarray(g(x))[1])


def test_jit_of_a_wrapper_around_a_jitted_function_runs_the_wrapper():
    # functools.wraps copies the jitted function's attributes (its `fun`, its caches) into the
    # wrapper, as JAX's own wrappers (grad) do: jit of the wrapper must still run the wrapper.
    inner = didax.jit(lambda x: x * 3.0)

    @functools.wraps(inner)
    def outer(x):
        return inner(x) + 1.0

    assert didax.jit(outer).fun is outer
    np.testing.assert_allclose(didax.jit(outer)(2.0), outer(2.0))
    np.testing.assert_allclose(didax.jit(outer)(2.0), 7.0)


def test_a_jit_equation_run_on_operands_of_other_shapes_is_refused() -> None:
    """eval_jaxpr of a jaxpr holding a jit, on a value of another shape than the one traced: an
    XlaRuntimeError (JAX's class, raised by its XLA) naming both shapes, before XLA sees the buffer
    (on a mesh, jaxlib 0.10.2 crashes on one of the wrong size)."""
    from didax.core import eval_jaxpr

    closed = didax.make_jaxpr(didax.jit(lambda x: x * 2.0))(np.ones(3, np.float32))
    assert eval_jaxpr(closed.jaxpr, closed.consts, np.arange(3, dtype=np.float32))[0].tolist() == [0.0, 2.0, 4.0]
    shapes = r"jit\(<lambda>\) was compiled for operands of shapes \['\(3,\)'\], got \['\(4,\)'\]"
    with pytest.raises(xla.XlaRuntimeError, match=shapes):
        eval_jaxpr(closed.jaxpr, closed.consts, np.ones(4, np.float32))
