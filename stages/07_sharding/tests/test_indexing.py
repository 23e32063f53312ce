"""Advanced indexing and ``x.at[...]``: the gathers and scatters they become (JAX's dimension
numbers and modes), what they do out of bounds, and their errors."""

import warnings

import numpy as np
import pytest

import didax.numpy as jnp
from didax import core, errors, lax
from didax.lax import GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers


class _RecordingTracer(core.Tracer):
    def __init__(self, trace, val):
        self._trace, self.val = trace, val

    @property
    def aval(self):
        return core.get_aval(self.val)


class _RecordingTrace(core.Trace):
    """Records (primitive name, params) of every primitive it sees, then evaluates it."""

    def pure(self, val):
        return _RecordingTracer(self, val)

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        self.main.global_data.append((primitive.name, params))
        return _RecordingTracer(self, primitive.bind(*[t.val for t in tracers], **params))


class _ShapeTracer(core.Tracer):
    def __init__(self, trace, aval):
        self._trace, self._aval = trace, aval

    @property
    def aval(self):
        return self._aval


class _ShapeTrace(core.Trace):
    """Knows shapes and dtypes only, as stage 04's tracing will."""

    def pure(self, val):
        aval = core.get_aval(val)
        return _ShapeTracer(self, core.ShapedArray(aval.shape, aval.dtype, aval.weak_type))

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        return _ShapeTracer(self, primitive.abstract_eval(*[t.aval for t in tracers], **params))


def _record(fn, *args):
    """The (name, params) of each primitive ``fn`` applies to its traced arguments, and its value."""
    seen = []
    with core.new_main(_RecordingTrace, seen) as main:
        out = fn(*[_RecordingTrace(main).pure(a) for a in args])
    return seen, out.val


def _params(seen, name):
    found = [params for prim, params in seen if prim == name]
    assert len(found) == 1, [prim for prim, _ in seen]
    return found[0]


X = np.arange(12.0, dtype=np.float32).reshape(3, 4)
IDX = np.array([0, 2], np.int32)


# --- the primitives an index becomes -----------------------------------------------------------


def test_an_integer_array_index_is_one_gather_with_jax_dimension_numbers():
    seen, out = _record(lambda x, i: x[:, i], X, IDX)
    params = _params(seen, "gather")
    assert params["dimension_numbers"] == GatherDimensionNumbers(
        offset_dims=(0,), collapsed_slice_dims=(1,), start_index_map=(1,)
    )
    assert params["slice_sizes"] == (3, 1)
    assert params["mode"] is GatherScatterMode.PROMISE_IN_BOUNDS and params["fill_value"] is None
    np.testing.assert_array_equal(np.asarray(out), X[:, IDX])


def test_a_slice_beside_an_array_index_is_a_window_with_a_start():
    seen, out = _record(lambda x, i: x[i, 1:3], X, IDX)
    params = _params(seen, "gather")
    assert params["dimension_numbers"] == GatherDimensionNumbers((1,), (0,), (0, 1))
    assert params["slice_sizes"] == (1, 2)
    np.testing.assert_array_equal(np.asarray(out), X[IDX, 1:3])


def test_basic_indexing_keeps_the_slicing_fast_path():
    seen, _ = _record(lambda x: x[1:, ::-1][0], X)
    # JAX's steps and order: slice, rev for the negative step; slice and squeeze for the integer
    assert [name for name, _ in seen] == ["slice", "rev", "slice", "squeeze"]


def test_at_add_is_one_scatter_add_that_drops_out_of_range_updates():
    seen, out = _record(lambda x, i: x.at[i].add(1.0), X, np.array([0, 7], np.int32))
    params = _params(seen, "scatter-add")
    assert params["dimension_numbers"] == ScatterDimensionNumbers(
        update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    assert params["mode"] is GatherScatterMode.FILL_OR_DROP
    want = X.copy()
    want[0] += 1
    np.testing.assert_array_equal(np.asarray(out), want)


@pytest.mark.parametrize(
    ("method", "primitive"),
    [("set", "scatter"), ("add", "scatter-add"), ("subtract", "scatter-sub"), ("multiply", "scatter-mul"),
     ("divide", "scatter-mul"), ("power", "scatter-mul"), ("min", "scatter-min"), ("max", "scatter-max")],
)
def test_each_at_method_binds_jax_scatter_primitive(method, primitive):
    seen, _ = _record(lambda x, i: getattr(x.at[i], method)(2.0), X, IDX)
    assert _params(seen, primitive)["mode"] is GatherScatterMode.FILL_OR_DROP


def test_take_fills_out_of_range_by_default():
    seen, out = _record(lambda x, i: jnp.take(x, i, axis=1), X, np.array([1, 9], np.int32))
    params = _params(seen, "gather")
    assert params["mode"] is GatherScatterMode.FILL_OR_DROP and np.isnan(params["fill_value"])
    np.testing.assert_array_equal(np.asarray(out), np.stack([X[:, 1], np.full(3, np.nan, np.float32)], 1))


# --- out of bounds --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dtype", "fill"),
    [(np.float32, np.nan), (np.complex64, complex(np.nan, 0)), (np.int8, -128), (np.uint8, 255), (np.bool_, True)],
)
def test_gather_fill_mode_reads_a_fill_value_that_stands_out(dtype, fill):
    out = lax.gather(np.zeros(3, dtype), np.array([[1], [3]], np.int32), GatherDimensionNumbers((), (0,), (0,)),
                     (1,), mode="fill")
    np.testing.assert_array_equal(np.asarray(out), np.array([0, fill], dtype))


def test_promise_in_bounds_broken_does_what_xla_on_cpu_does():
    dnums = GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(), start_index_map=(0,))
    starts = np.array([[3], [4], [-1]], np.int32)
    got = lax.gather(np.arange(5.0, dtype=np.float32), starts, dnums, (2,))  # the default mode
    np.testing.assert_array_equal(np.asarray(got), [[3, 4], [3, 4], [0, 1]])  # clamped windows
    scatter_dnums = ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(), scatter_dims_to_operand_dims=(0,))
    got = lax.scatter_add(np.zeros(5, np.float32), starts, np.ones((3, 2), np.float32), scatter_dnums,
                          mode="promise_in_bounds")
    np.testing.assert_array_equal(np.asarray(got), [0, 0, 0, 1, 1])  # windows that do not fit are skipped
    got = lax.scatter_add(np.zeros(5, np.float32), starts, np.ones((3, 2), np.float32), scatter_dnums, mode="clip")
    np.testing.assert_array_equal(np.asarray(got), [1, 1, 0, 2, 2])


def test_apply_applies_its_function_once_per_occurrence_of_an_index():
    # Stage 01 applied it once per distinct position: it had no jaxpr to give the scatter.
    out = jnp.zeros(3).at[jnp.asarray([0, 0, 2, 0])].apply(lambda v: v * 2 + 1)
    assert out.tolist() == [7.0, 0.0, 1.0]


def test_apply_stages_its_function_once_into_the_scatters_update_jaxpr():
    import didax
    from didax.jaxpr import check_jaxpr

    calls = []

    def f(v):
        calls.append(v)
        return jnp.sin(v) * 2.0

    closed = didax.make_jaxpr(lambda x: x.at[jnp.asarray([1, 1, 1])].apply(f))(jnp.zeros(4))
    assert len(calls) == 1 and calls[0].shape == ()  # staged on one scalar, whatever the index
    (eqn,) = [e for e in closed.eqns if e.primitive is lax.scatter_p]
    assert [e.primitive.name for e in eqn.params["update_jaxpr"].eqns] == ["sin", "mul"]
    assert len(eqn.params["update_jaxpr"].invars) == 2 and eqn.params["update_consts"] == ()
    assert "update_jaxpr={ lambda ; " in str(closed)
    check_jaxpr(closed.jaxpr)
    x = np.array([0.0, 0.5, 1.0, 1.5], np.float32)
    want = x.copy()
    for _ in range(3):
        want[1] = np.sin(want[1]) * np.float32(2)
    np.testing.assert_allclose(np.asarray(jnp.asarray(x).at[jnp.asarray([1, 1, 1])].apply(f)), want, rtol=1e-6)


def test_apply_has_no_jvp_rule_as_in_jax():
    import didax

    with pytest.raises(NotImplementedError, match="scatter_apply JVP not implemented"):
        didax.jvp(lambda x: x.at[jnp.asarray([0, 0])].apply(jnp.sin), (jnp.ones(2),), (jnp.ones(2),))


def test_scatter_apply_on_windows_with_lax_dimension_numbers():
    """lax.scatter_apply with window updates: the windows at 0 and 1 overlap at position 1."""
    dnums = ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(), scatter_dims_to_operand_dims=(0,))
    out = lax.scatter_apply(np.ones(5, np.float32), np.array([[0], [1]]), lambda v: v * 3, dnums, update_shape=(2, 2))
    np.testing.assert_array_equal(np.asarray(out), [3, 9, 3, 1, 1])


def test_scatter_apply_refuses_a_function_that_changes_the_type():
    dnums = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
    with pytest.raises(ValueError, match="must map a float32\\[\\] to a float32\\[\\], but it returns bool\\[\\]"):
        lax.scatter_apply(np.ones(3, np.float32), np.array([[0]]), lambda v: v > 0, dnums, update_shape=(1,))


def test_an_update_cast_that_loses_information_warns():
    with pytest.warns(FutureWarning, match="cannot safely cast value from dtype=float32 to dtype=int32"):
        assert jnp.zeros(2, jnp.int32).at[0].set(1.5).tolist() == [1, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jnp.zeros(2, jnp.float32).at[0].set(np.float64(1.5))  # float64 is float32 with x64 off


# --- masks and abstract values ----------------------------------------------------------------------


def test_a_mask_whose_values_are_unknown_raises_non_concrete_boolean_index_error():
    with core.new_main(_ShapeTrace) as main:
        x = _ShapeTrace(main).pure(np.arange(3.0))
        with pytest.raises(errors.NonConcreteBooleanIndexError, match=r"(?s)must be concrete; got bool\[3\].*where"):
            x[x > 0]
        with pytest.raises(IndexError, match="must be concrete"):
            x.at[x > 0].set(0.0)
    assert len(core.trace_state.trace_stack) == 1
    assert jnp.arange(3)[jnp.arange(3) > 0].tolist() == [1, 2]  # known masks work


def test_integer_array_indices_need_no_values():
    with core.new_main(_ShapeTrace) as main:
        trace = _ShapeTrace(main)
        x, i = trace.pure(np.zeros((3, 4, 5), np.float32)), trace.pure(np.zeros((2, 6), np.int32))
        assert x[i, :, i].shape == (2, 6, 4)
        assert x[:, i, 0].shape == (3, 2, 6)
        assert x.at[i].add(1.0).shape == (3, 4, 5)
        assert jnp.take(x, i, axis=2).shape == (3, 4, 2, 6)
        assert jnp.take_along_axis(x, trace.pure(np.zeros((3, 1, 5), np.int32)), axis=1).shape == (3, 1, 5)


# --- errors -----------------------------------------------------------------------------------------


def test_item_assignment_points_to_at():
    x = jnp.zeros(3)
    with pytest.raises(TypeError, match=r"immutable.*x = x\.at\[idx\]\.set\(y\)"):
        x[0] = 1.0


@pytest.mark.parametrize(
    ("index", "error", "match"),
    [
        ([0, 1], TypeError, "non-tuple sequence"),
        (([0.5],), TypeError, "integer or boolean type, got indexer with type float32"),
        ("a", TypeError, "string indexing"),
        ((np.array([True, False]),), IndexError, r"did not match shape.*got \(2,\), expected \(3,\)"),
        ((np.array([0, 1]), np.array([0, 1, 2])), ValueError, "Incompatible shapes for broadcasting"),
        ((np.array([0]), 0, 0), IndexError, "Too many indices: array is 2-dimensional, but 3 were indexed"),
    ],
    ids=["list", "float-list", "string", "mask-shape", "broadcast", "too-many"],
)
def test_bad_indices_name_the_problem(index, error, match):
    with pytest.raises(error, match=match):
        jnp.zeros((3, 4))[index]


def test_lax_gather_checks_its_dimension_numbers():
    dnums = GatherDimensionNumbers((), (0,), (0,))
    with pytest.raises(ValueError, match="indices must have an integer type"):
        lax.gather(np.zeros(3), np.zeros((1, 1)), dnums, (1,))
    with pytest.raises(TypeError, match="can only collapse slice dims with bound 1"):
        lax.gather(np.zeros(3), np.zeros((1, 1), np.int32), dnums, (2,))
    with pytest.raises(TypeError, match="1 elements in start_index_map.*is 2"):
        lax.gather(np.zeros(3), np.zeros((1, 2), np.int32), dnums, (1,))
    with pytest.raises(TypeError, match="offset_dims"):
        lax.gather(np.zeros((3, 2)), np.zeros((1, 1), np.int32), dnums, (1, 2))


def test_lax_scatter_checks_dtypes():
    dnums = ScatterDimensionNumbers((), (0,), (0,))
    with pytest.raises(TypeError, match="lax.scatter_add requires arguments to have the same dtypes"):
        lax.scatter_add(np.zeros(3, np.float32), np.zeros((1, 1), np.int32), np.ones(1, np.int32), dnums)
    with pytest.raises(TypeError, match="scatter-add does not accept dtype bool"):
        lax.scatter_add(np.zeros(3, bool), np.zeros((1, 1), np.int32), np.ones(1, bool), dnums)


def test_take_errors():
    with pytest.raises(NotImplementedError, match="'raise' mode"):
        jnp.take(jnp.zeros(3), jnp.asarray([0]), mode="raise")
    with pytest.raises(ValueError, match="Invalid mode 'nearest'"):
        jnp.take(jnp.zeros(3), jnp.asarray([0]), mode="nearest")
    with pytest.raises(IndexError, match="non-empty jnp.take"):
        jnp.take(jnp.zeros(0), jnp.asarray([0]))
    with pytest.raises(ValueError, match="same number of dimensions; 1 vs. 2"):
        jnp.take_along_axis(jnp.zeros((2, 3)), jnp.asarray([0]), axis=1)
