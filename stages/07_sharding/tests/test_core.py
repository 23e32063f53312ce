"""The trace stack, bind and abstract values: the machinery later stages extend."""

import operator

import numpy as np
import pytest

import didax.numpy as jnp
from didax import core, errors, lax
from didax.array import Array


def test_bind_dispatches_to_the_eval_interpreter_at_the_bottom_of_the_stack():
    assert len(core.trace_state.trace_stack) == 1
    main = core.trace_state.trace_stack[0]
    assert main.level == 0 and main.trace_type is core.EvalTrace
    out = lax.sin_p.bind(np.float32(0.5))
    assert isinstance(out, Array)
    assert float(out) == pytest.approx(np.sin(np.float32(0.5)))


def test_eval_rule_result_has_the_abstract_evaluation_dtype():
    # NumPy sums int8 into int64; the primitive's abstract evaluation says int8, as XLA does.
    x = np.array([100, 100], np.int8)
    out = lax.reduce_sum(x, (0,))
    assert out.dtype == np.int8
    assert int(out) == np.int8(np.int64(200) - 256)


class _RecordingTracer(core.Tracer):
    def __init__(self, trace, val):
        self._trace, self.val = trace, val

    @property
    def aval(self):
        return core.get_aval(self.val)


class _RecordingTrace(core.Trace):
    """A minimal interpreter: it records each primitive it sees, then evaluates it."""

    def pure(self, val):
        return _RecordingTracer(self, val)

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        self.main.global_data.append(primitive.name)
        return _RecordingTracer(self, primitive.bind(*[t.val for t in tracers], **params))


def test_a_new_interpreter_sees_the_primitives_applied_to_its_tracers():
    seen = []
    with core.new_main(_RecordingTrace, seen) as main:
        trace = _RecordingTrace(main)
        x = trace.pure(3.0)
        y = jnp.sin(x) * 2.0  # operators on tracers go through didax.numpy and bind
        assert isinstance(y, _RecordingTracer)
    assert seen == ["sin", "mul"]
    assert float(y.val) == pytest.approx(2 * np.sin(3.0), rel=1e-6)
    assert len(core.trace_state.trace_stack) == 1


def test_new_main_pops_its_level_even_when_the_body_raises():
    with pytest.raises(RuntimeError), core.new_main(_RecordingTrace, []):
        assert len(core.trace_state.trace_stack) == 2
        raise RuntimeError("boom")
    assert len(core.trace_state.trace_stack) == 1
    assert float(jnp.sin(0.0)) == 0.0  # evaluation still works


def test_full_raise_refuses_a_tracer_from_a_higher_level():
    with core.new_main(_RecordingTrace, []) as low:
        with core.new_main(_RecordingTrace, []) as high:
            high_tracer = _RecordingTrace(high).pure(1.0)
        with pytest.raises(AssertionError, match="Can't lift level 2 to 1"):
            core.full_raise(_RecordingTrace(low), high_tracer)


def test_find_top_trace_picks_the_highest_level_tracer():
    with core.new_main(_RecordingTrace, []) as low, core.new_main(_RecordingTrace, []) as high:
        a, b = _RecordingTrace(low).pure(1.0), _RecordingTrace(high).pure(2.0)
        assert core.find_top_trace([a, 3.0, b]).main is high
        assert core.find_top_trace([3.0]).main.level == 0


def test_shaped_array_is_hashable_and_prints_short():
    a = core.ShapedArray((3,), np.float32)
    assert a == core.ShapedArray((3,), np.float32) and hash(a) == hash(core.ShapedArray((3,), "float32"))
    assert a != core.ShapedArray((3,), np.float32, weak_type=True)
    assert a.str_short() == "float32[3]"


def test_concrete_array_knows_its_truth_value():
    assert bool(jnp.asarray(2.0) > 1)
    assert not bool(jnp.asarray(2.0) < 1)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(jnp.ones(3) > 0)


def test_a_primitive_without_rules_names_itself():
    prim = core.Primitive("mystery")
    with pytest.raises(NotImplementedError, match="Evaluation rule for 'mystery' not implemented"):
        prim.bind(1.0)
    with pytest.raises(NotImplementedError, match="Abstract evaluation for 'mystery'"):
        prim.abstract_eval(core.ShapedArray((), np.float32))


def test_tracer_repr_and_array_priority_make_numpy_defer():
    seen = []
    with core.new_main(_RecordingTrace, seen) as main:
        x = _RecordingTrace(main).pure(np.float32(2.0))
        out = np.ones(3, np.float32) + x  # NumPy defers to the tracer's __radd__
        assert isinstance(out, _RecordingTracer)
        assert repr(x) == str(x) == f"{x}" == "_RecordingTracer<float32[]>"  # JAX's default form
    assert seen == ["add"]


def test_a_weak_type_prints_with_a_tilde_as_in_jax():
    # JAX 0.10.2: str(ShapedArray((), float32, weak_type=True)) == "~float32[]"; repr spells it out.
    weak, strong = core.ShapedArray((), np.float32, weak_type=True), core.ShapedArray((2, 3), np.int32)
    assert (str(weak), repr(weak)) == ("~float32[]", "ShapedArray(float32[], weak_type=True)")
    assert (str(strong), repr(strong), strong.str_short()) == ("int32[2,3]", "ShapedArray(int32[2,3])", "int32[2,3]")
    assert str(core.get_aval(1.0)) == "~float32[]" and weak.str_short() == "float32[]"


# ----------------------------------------------------------------------------------------------
# Tracers that know only shapes and dtypes, as stage 04's tracing will: Python cannot get a
# value out of them, and each attempt raises JAX's error for it.


class _ShapeTracer(core.Tracer):
    def __init__(self, trace, aval):
        self._trace, self._aval = trace, aval

    @property
    def aval(self):
        return self._aval


class _ShapeTrace(core.Trace):
    """An interpreter that runs abstract evaluation only: it knows no numbers."""

    def pure(self, val):
        aval = core.get_aval(val)
        return _ShapeTracer(self, core.ShapedArray(aval.shape, aval.dtype, aval.weak_type))

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        return _ShapeTracer(self, primitive.abstract_eval(*[t.aval for t in tracers], **params))


@pytest.mark.parametrize(
    ("use", "error"),
    [
        (bool, errors.TracerBoolConversionError),
        (int, errors.ConcretizationTypeError),
        (float, errors.ConcretizationTypeError),
        (complex, errors.ConcretizationTypeError),
        (lambda x: x.item(), errors.ConcretizationTypeError),
        (lambda x: x.tolist(), errors.ConcretizationTypeError),
        (operator.index, errors.TracerIntegerConversionError),
        (np.asarray, errors.TracerArrayConversionError),
    ],
)
def test_python_values_of_abstract_tracers_raise_jax_errors(use, error):
    with core.new_main(_ShapeTrace) as main:
        x = _ShapeTrace(main).pure(np.int32(3)) + 1
        assert isinstance(x, _ShapeTracer) and x.aval.str_short() == "int32[]"
        with pytest.raises(error, match="traced array with shape int32"):
            use(x)
    assert issubclass(error, TypeError)  # as in JAX, `except TypeError` catches every one
    assert int(jnp.asarray(3) + 1) == 4  # and nothing is left behind


# What JAX 0.10.2 says for each (seen with jax.make_jaxpr): the error names the conversion and,
# for int/float/complex, the fix.
@pytest.mark.parametrize(
    ("use", "says"),
    [
        (int, "The problem arose with the `int` function. If trying to convert the data type of a value, "
              "try using `x.astype(int)` or `jnp.array(x, int)` instead."),
        (float, "The problem arose with the `float` function."),
        (complex, "try using `x.astype(complex)`"),
        (lambda x: x.item(), "This occurred in the item() method"),
        (lambda x: x.tolist(), "The tolist() method was called on traced array with shape int32[]."),
    ],
    ids=["int", "float", "complex", "item", "tolist"],
)
def test_scalar_conversions_of_abstract_tracers_name_the_conversion(use, says):
    with core.new_main(_ShapeTrace) as main:
        x = _ShapeTrace(main).pure(np.int32(3)) + 1
        with pytest.raises(errors.ConcretizationTypeError) as info:
            use(x)
    message = str(info.value)
    assert message.startswith("Abstract tracer value encountered where concrete value is expected: "
                              "traced array with shape int32[]")  # fmt: skip
    assert says in message and type(info.value) is errors.ConcretizationTypeError
    assert len(core.trace_state.trace_stack) == 1 and jnp.asarray(3).item() == 3


@pytest.mark.parametrize(
    ("use", "error", "says"),
    [
        (int, TypeError, "Only scalar arrays can be converted to Python scalars"),
        (float, TypeError, "Only scalar arrays can be converted to Python scalars"),
        (bool, ValueError, "The truth value of an array with more than one element is ambiguous"),
        (operator.index, TypeError, "Only integer scalar arrays can be converted to a scalar index"),
    ],
)
def test_conversions_of_abstract_arrays_check_the_shape_first(use, error, says):
    # As in JAX: NumPy's error for an array of many elements, before asking whether it is known.
    with core.new_main(_ShapeTrace) as main:
        x = _ShapeTrace(main).pure(np.arange(3, dtype=np.int32))
        with pytest.raises(error, match=says) as info:
            use(x)
    assert type(info.value) is error
    assert len(core.trace_state.trace_stack) == 1 and int(jnp.asarray(3)) == 3


def test_a_float_used_as_an_index_is_a_plain_type_error():
    # JAX: "Only integer scalar arrays can be converted to a scalar index.", not a tracer error.
    with core.new_main(_ShapeTrace) as main:
        x = _ShapeTrace(main).pure(np.float32(1.0))
        with pytest.raises(TypeError, match="Only integer scalar arrays") as info:
            operator.index(x)
    assert type(info.value) is TypeError


def test_a_tracer_over_a_known_value_answers_what_jax_answers():
    # jax.jvp(lambda x: x.item(), ...) and int(x) work in JAX 0.10.2; float, complex and tolist()
    # raise even for a known value.
    with core.new_main(_RecordingTrace, []) as main:
        x = _RecordingTrace(main).pure(np.float32(2.5))
        assert x.item() == 2.5 and type(x.item()) is float and int(x) == 2
        for use in (float, complex, lambda x: x.tolist()):
            with pytest.raises(errors.ConcretizationTypeError, match="traced array with shape float32"):
                use(x)
    assert len(core.trace_state.trace_stack) == 1


def test_a_tracer_over_a_known_value_still_converts():
    # Concreteness is read from the abstract value, not from the tracer's class.
    with core.new_main(_RecordingTrace, []) as main:
        x = _RecordingTrace(main).pure(np.int32(3)) * 2
        assert core.to_concrete_value(x) == 6
        assert int(x) == 6 and operator.index(x) == 6 and bool(x)
        assert list(range(10))[x] == 6
        with pytest.raises(errors.TracerArrayConversionError):
            np.asarray(x)  # NumPy never sees a tracer, known or not


def test_to_concrete_value_is_none_when_unknown():
    assert core.to_concrete_value(2.0) == 2.0
    assert core.to_concrete_value(jnp.arange(3)).tolist() == [0, 1, 2]
    with core.new_main(_ShapeTrace) as main:
        assert core.to_concrete_value(_ShapeTrace(main).pure(1.0)) is None


def test_a_tracer_used_after_its_transformation_ended_raises_unexpected_tracer_error():
    leaked = []
    with core.new_main(_RecordingTrace, []) as main:
        leaked.append(jnp.sin(_RecordingTrace(main).pure(1.0)))
    with pytest.raises(errors.UnexpectedTracerError, match="transformation that has already ended"):
        jnp.cos(leaked[0])
    # A new level 1 is not the old one.
    with core.new_main(_RecordingTrace, []) as other, pytest.raises(errors.UnexpectedTracerError):
        jnp.cos(leaked[0]) + _RecordingTrace(other).pure(1.0)
    assert len(core.trace_state.trace_stack) == 1
    assert float(jnp.cos(0.0)) == 1.0


def test_a_primitive_can_take_over_its_own_dispatch():
    calls = []

    class Logged(core.Primitive):
        def bind_with_trace(self, trace, args, params):
            calls.append((type(trace).__name__, len(args), params))
            return super().bind_with_trace(trace, args, params)

    logged = Logged("logged")
    logged.def_impl(lambda x, *, k: x * k)
    assert logged.bind(3, k=2) == 6
    assert calls == [("EvalTrace", 1, {"k": 2})]


# ----------------------------------------------------------------------------------------------
# Arrays are values: nothing done to NumPy memory changes them.


def test_asarray_copies_the_numpy_buffer():
    buf = np.zeros(3, np.float32)
    kept = []
    for i in range(3):
        buf[:] = i
        kept.append(jnp.asarray(buf))
    assert [a.tolist() for a in kept] == [[0, 0, 0], [1, 1, 1], [2, 2, 2]]


@pytest.mark.parametrize(
    "view",
    [
        lambda x: x.reshape(2, 3),
        lambda x: x.reshape(2, 3).T,
        lambda x: x[1:4],
        lambda x: jnp.squeeze(x.reshape(1, 6)),
        lambda x: jnp.broadcast_to(x, (2, 6)),
        lambda x: lax.convert_element_type(x, np.float32),
        lambda x: x,
    ],
)
def test_results_do_not_change_when_the_source_buffer_does(view):
    buf = np.arange(6, dtype=np.float32)
    y = view(jnp.asarray(buf))
    before = np.array(y)
    buf[:] = -1
    np.testing.assert_array_equal(np.asarray(y), before)


def test_numpy_views_of_arrays_are_read_only():
    x = jnp.arange(4)
    view = np.asarray(x)
    assert not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 7
    copy = np.array(x)  # an explicit copy is the user's to change
    copy[0] = 7
    assert x.tolist() == [0, 1, 2, 3]
    assert np.asarray(x, dtype=np.float32).dtype == np.float32


def test_arange_with_unknown_bounds_raises_concretization_error():
    with core.new_main(_ShapeTrace) as main:
        n = _ShapeTrace(main).pure(np.int32(3))
        with pytest.raises(errors.ConcretizationTypeError, match="bounds of didax.numpy.arange"):
            jnp.arange(n)
    with core.new_main(_RecordingTrace, []) as main:  # a tracer that knows its value is fine
        assert jnp.arange(_RecordingTrace(main).pure(np.int32(3))).tolist() == [0, 1, 2]


@pytest.mark.parametrize(
    ("index", "position"),
    [
        (lambda n: (slice(None, n),), 0),
        (lambda n: (slice(n, None),), 0),
        (lambda n: (slice(None, None, n),), 0),
        (lambda n: (None, slice(1, n)), 1),
        (lambda n: (Ellipsis, slice(None, n)), 1),
        (lambda n: (jnp.asarray([0, 1]), slice(None, n)), 1),
    ],
)
def test_a_slice_bound_that_is_not_known_is_jaxs_index_error(index, position):
    # JAX 0.10.2: IndexError("Slice entries must be static integers. Got slice(...) at position k"),
    # k counting the entries of the index as written (None and Ellipsis count).
    x = jnp.ones((2, 3))
    with core.new_main(_ShapeTrace) as main:
        n = _ShapeTrace(main).pure(np.int32(2))
        for use in (lambda i: x[i], lambda i: x.at[i].set(0.0)):
            with pytest.raises(IndexError, match=rf"^Slice entries must be static integers\. Got slice\(.*"
                                                 rf"_ShapeTracer<int32\[\]>.*\) at position {position}$"):  # fmt: skip
                use(index(n))
    assert len(core.trace_state.trace_stack) == 1 and x[:, : jnp.asarray(2)].shape == (2, 2)


def test_a_slice_bound_whose_value_is_known_is_static():
    x = jnp.arange(6)
    assert x[: jnp.asarray(2)].tolist() == [0, 1]
    assert x[np.int32(1) : np.array(5) : jnp.asarray(2)].tolist() == [1, 3]
    assert x.reshape(2, 3)[jnp.asarray([1]), : jnp.asarray(2)].tolist() == [[3, 4]]
    with core.new_main(_RecordingTrace, []) as main:  # a tracer that knows its value
        assert x[: _RecordingTrace(main).pure(np.int32(4)) - 1].tolist() == [0, 1, 2]
    for bad in (2.0, jnp.asarray(2.0), jnp.asarray([2]), "2"):  # JAX: TypeError for each
        with pytest.raises(TypeError):
            x[:bad]


def test_a_known_integer_exponent_uses_integer_pow_even_through_a_tracer():
    seen = []
    with core.new_main(_RecordingTrace, seen) as main:
        x, n = _RecordingTrace(main).pure(np.float32(2.0)), _RecordingTrace(main).pure(np.int32(3))
        out = x**n  # n's value becomes integer_pow's static parameter
    assert seen == ["integer_pow"] and float(out.val) == 8.0
