"""The trace stack, bind and abstract values: the machinery later stages extend."""

import numpy as np
import pytest

import didax.numpy as jnp
from didax import core, lax
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
        with pytest.raises(Exception, match="Can't lift level 2 to 1"):
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
    with pytest.raises(TypeError, match="can't be unambiguously converted to bool"):
        a._bool(None)


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
        assert repr(x).startswith("Traced<float32[]")
    assert seen == ["add"]
