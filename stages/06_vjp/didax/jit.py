"""``didax.jit``: stage a function once per type signature, compile it with XLA, run it (stage 05).

The pipeline has four steps, and each has been built by an earlier part of the course but one:

1. trace: ``make_jaxpr``'s staging (stage 04) records the function as a jaxpr, on the *types* of
   the arguments (shape, dtype, weak type), not their values;
2. lower: didax/lowering writes the jaxpr as a StableHLO module;
3. compile: XLA turns the module into an executable for a device (didax/xla.py);
4. run: the arguments' device buffers go in, the outputs' buffers come back as Arrays.

Steps 1-3 happen once per signature, and their result is cached on the jitted function, so a
second call with new values of the same types only runs step 4.

``jit`` is also a primitive, ``jit_p``, holding the staged jaxpr as a parameter, like ``cond``
holds its branches. That is how it composes: under ``jvp`` the rule differentiates the jaxpr
and binds ``jit_p`` on the result (so the derivative is compiled too); under ``vmap`` it batches
the jaxpr; under ``make_jaxpr`` it is one equation, ``jit[name=f jaxpr={...}]``; and evaluating
it (the eval interpreter's ``impl``) compiles and runs.
"""

from __future__ import annotations

import functools
import inspect
import logging
import operator
import time
import weakref
from collections.abc import Callable, Sequence
from itertools import repeat
from typing import Any, NamedTuple

import numpy as np

from . import ad, array, batching, dtypes, partial_eval, transpose, xla
from .array import Array, PRNGKeyArray, buffer_of, to_array
from .config import config, disable_jit
from .core import Primitive, ShapedArray, Tracer, is_staging, trace_state
from .jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, eval_jaxpr, new_eqn
from .lowering import lower_module
from .lowering.core import ModuleBuilder, lowering_rules, physical
from .staging import ShapeDtypeStruct, _check_hashable, hoist_consts, shaped_abstractify, trace_flat
from .tree_util import PyTreeDef, tree_flatten, tree_structure, tree_unflatten

logger = logging.getLogger("didax")
_LEAF = tree_structure(0)  # the tree of a single array
_TYPE_OF = operator.attrgetter("_type")  # an Array's ShapedArray, once it is on a device

# Array's device half (its buffer read back, put, deleted): array.py does not import xla, so that
# eager use never loads jaxlib; jit, where Arrays first go to a device, gives it the module.
array.xla = xla

# ----------------------------------------------------------------------------------------------
# The primitive: jit_p.bind(*args, jaxpr=closed_jaxpr, name="f", donated_invars=(False, ...)).
# The jaxpr has no constants: what the function closed over is passed as leading arguments
# (``hoist_consts``, as control flow does), so that a tracer it captured (from an enclosing jvp,
# say) is an operand its interpreter sees.

jit_p = Primitive("jit")
jit_p.multiple_results = True


@jit_p.def_abstract_eval
def _jit_abstract_eval(*avals: ShapedArray, jaxpr: ClosedJaxpr, name: str, donated_invars: tuple) -> list[Any]:
    """The jaxpr's output types, once the operands are checked to have its input types."""
    if len(avals) != len(jaxpr.in_avals) or any(
        (a.shape, a.dtype) != (b.shape, b.dtype) for a, b in zip(avals, jaxpr.in_avals)
    ):
        got, want = [a.str_short() for a in avals], [a.str_short() for a in jaxpr.in_avals]
        raise TypeError(f"jit({name}) takes operands of types {want}, got {got}")
    return list(jaxpr.out_avals)


@jit_p.def_impl
def _jit_impl(*args: Any, jaxpr: ClosedJaxpr, name: str, donated_invars: tuple) -> list[Any]:
    """Evaluating a jit equation: compile its jaxpr (once) and run it, on operands of the shapes it
    was compiled for (XLA, handed a buffer of another shape, says less clearly what went wrong, and
    on several devices jaxlib 0.10.2 crashes)."""
    if any(np.shape(x) != a.shape for x, a in zip(args, jaxpr.in_avals)):
        got, want = [str(np.shape(x)) for x in args], [str(a.shape) for a in jaxpr.in_avals]
        raise xla.XlaRuntimeError(f"INVALID_ARGUMENT: jit({name}) was compiled for operands of shapes {want}, "
                                  f"got {got}")  # JAX's class: its XLA says so when it runs
    outs = _compile_remembered(jaxpr, name, xla.default_device(), donated_invars).call(args)
    if config.jax_debug_nans:
        _check_nans(name, outs, lambda: eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args))
    return outs


def _check_nans(name: str, outs: Sequence[Array], rerun: Callable[[], Any]) -> None:
    """With ``jax_debug_nans`` on, a NaN in a compiled function's outputs is an error, as in JAX.
    XLA cannot say which operation made it, so the function runs again one operation at a time
    (``rerun``, jit disabled), and eager evaluation raises FloatingPointError naming it."""
    if not any(dtypes.is_inexact(x.dtype) and np.isnan(x._value).any() for x in outs):
        return
    logger.warning("Invalid nan value encountered in the output of jit(%s). Calling the de-optimized version.", name)
    with disable_jit():
        rerun()
    raise FloatingPointError(f"invalid value (nan) encountered in jit({name}); the de-optimized function "
                             "(without jit) made none, so the NaN comes from XLA's fused code or an input.")


class CompiledJaxpr(NamedTuple):
    """A jaxpr compiled for a device (``compile_jaxpr``): XLA's executable and what calling it on
    didax values needs, the types of its inputs and outputs and which inputs it may take."""

    executable: xla.Executable
    in_avals: list[ShapedArray]
    out_avals: list[ShapedArray]
    device: Any
    donated: tuple[bool, ...]

    def call(self, args: Sequence[Any]) -> list[Array]:
        buffers = [_device_buffer(x, self.device) for x in args]
        if any(self.donated):
            _release_host_copies(args, self.donated)
        outs = self.executable.run(buffers)
        return [_output(b, a) for b, a in zip(outs, self.out_avals)]


def _release_host_copies(args: Sequence[Any], donated: Sequence[bool]) -> None:
    """Before a call that donates: forget each donated Array's NumPy copy. On the CPU that copy is
    a view of the device buffer, and XLA takes no buffer that something else still reads. After
    the call, an Array whose buffer XLA took has no copy left: it is deleted, as in JAX, and using
    it is an error. (A donation XLA could not use leaves the buffer, and the copy is read again
    from it when it is needed.)"""
    for x, d in zip(args, donated):
        if d and type(x) is Array and x._buffer is not None:
            x._host = None


def compile_jaxpr(jaxpr: ClosedJaxpr, name: str, device: Any, donated: tuple[bool, ...] = ()) -> CompiledJaxpr:
    """Lower and compile ``jaxpr`` (which has no constants) for ``device``; the inputs marked in
    ``donated`` may have their buffers reused for outputs."""
    start = time.perf_counter()
    callbacks: list[Any] = []
    text = lower_module(name, jaxpr, donated, xla.platform_of(device), callbacks)
    try:
        executable = xla.compile(text, device, [physical(a) for a in jaxpr.out_avals], callbacks)
    except xla.XlaRuntimeError as e:  # XLA names the operation by its loc: jit_f/primitive
        raise xla.XlaRuntimeError(f"XLA could not compile jit({name}): {e}") from None
    if config.jax_log_compiles:
        logger.warning("Finished XLA compilation of jit(%s) in %.3f s", name, time.perf_counter() - start)
    return CompiledJaxpr(executable, list(jaxpr.in_avals), list(jaxpr.out_avals), device, tuple(donated))


# For jit equations run by eval_jaxpr, and the jaxprs transformations make: compile_jaxpr for the
# last few jaxprs, remembered by the jaxpr object itself. (A jitted function keeps the executables
# of its own signatures in its caches, which die with the function.)
_compile_remembered = functools.lru_cache(maxsize=64)(compile_jaxpr)


def _device_buffer(x: Any, device: Any) -> Any:
    """``x``'s data on ``device``: an Array's own device copy, or a new one for other values."""
    if type(x) is not Array:
        if isinstance(x, PRNGKeyArray):
            return xla.put(np.asarray(x._value), device)  # the keys' words
        if _is_float0(x):
            return xla.put(np.zeros(x.shape, bool), device)  # float0's memory (see physical)
        x = to_array(x)
    return x.device_buffer(device)


def _is_float0(x: Any) -> bool:
    """Whether ``x`` is an integer's tangent: NumPy zeros of dtype float0, which no Array holds."""
    return isinstance(x, np.ndarray) and x.dtype == dtypes.float0


def _output(buffer: Any, aval: ShapedArray) -> Any:
    """The value of an output buffer: an Array, or for the types XLA knows by another name, keys
    (their words, wrapped as keys) and float0 (NumPy zeros, as JAX gives them)."""
    if dtypes.is_key_dtype(aval.dtype):
        words = xla.fetch(buffer, np.dtype(np.uint32))
        return PRNGKeyArray(aval.dtype._impl, words)
    if aval.dtype == dtypes.float0:
        return np.zeros(aval.shape, dtypes.float0)
    return Array.from_buffer(buffer, aval)


def _jit_lowering(ctx: Any, *args: str, jaxpr: ClosedJaxpr, name: str, donated_invars: tuple) -> list[str]:
    """A nested jit is a call of a private function of the module, written once per jaxpr."""
    module: ModuleBuilder = ctx.module
    return module.call(ctx.fb, name, jaxpr, args)


lowering_rules[jit_p] = _jit_lowering


@functools.lru_cache(maxsize=1024)  # a jitted function differentiated again: no new jaxpr, no recompile
def _jvp_of(jaxpr: ClosedJaxpr, nonzeros: tuple[bool, ...]) -> tuple[ClosedJaxpr, list[Any], list[bool]]:
    jvp_closed, out_nonzeros = ad.jvp_jaxpr(jaxpr, nonzeros, False)
    return (*hoist_consts(jvp_closed), out_nonzeros)


def _jit_jvp(
    primals: list[Any], tangents: list[Any], *, jaxpr: ClosedJaxpr, name: str, donated_invars: tuple
) -> tuple[Any, Any]:
    """The JVP of a jitted function is jitted too: differentiate its jaxpr, bind jit_p on that."""
    nonzeros = tuple(type(t) is not ad.Zero for t in tangents)
    jvp_closed, consts, out_nonzeros = _jvp_of(jaxpr, nonzeros)
    nonzero_dots = [t for t in tangents if type(t) is not ad.Zero]
    n_in = len(consts) + len(primals) + len(nonzero_dots)
    outs = jit_p.bind(*consts, *primals, *nonzero_dots, jaxpr=jvp_closed, name=name,
                      donated_invars=(False,) * n_in)  # fmt: skip
    n = len(out_nonzeros)
    primals_out, nonzero_out = outs[:n], iter(outs[n:])
    tangents_out = [next(nonzero_out) if nz else ad.Zero.like(p) for p, nz in zip(primals_out, out_nonzeros)]
    return primals_out, tangents_out


ad.jvp_rules[jit_p] = _jit_jvp


@functools.lru_cache(maxsize=1024)
def _batched(jaxpr: ClosedJaxpr, size: int, in_batched: tuple[bool, ...]) -> tuple[ClosedJaxpr, list[Any], list[bool]]:
    batched, out_batched = batching.batch_jaxpr(jaxpr, size, in_batched, False)
    return (*hoist_consts(batched), out_batched)


def _jit_batch(
    vals: list[Any], dims: list[Any], *, jaxpr: ClosedJaxpr, name: str, donated_invars: tuple
) -> tuple[Any, Any]:
    """vmap of a jitted function: batch its jaxpr (batch axes moved to the front), bind jit_p."""
    size = batching.batch_size(vals, dims)
    in_batched = [d is not batching.not_mapped for d in dims]
    vals = [batching.moveaxis(x, d, 0) if b else x for x, d, b in zip(vals, dims, in_batched)]
    batched, consts, out_batched = _batched(jaxpr, size, tuple(in_batched))
    donated = (False,) * (len(consts) + len(vals))  # the batched jaxpr is new: it takes no caller's buffer
    outs = jit_p.bind(*consts, *vals, jaxpr=batched, name=name, donated_invars=donated)
    return outs, [0 if b else batching.not_mapped for b in out_batched]


batching.batching_rules[jit_p] = _jit_batch


def _jit_partial_eval(unks_in: list[bool], eqn: JaxprEqn) -> tuple[Any, Any, list[bool], list[Var]]:
    """Reverse mode of a jitted function: split its jaxpr into a known jit (run now, compiled) and
    a staged one, joined by the residuals the first outputs for the second."""
    params = eqn.params
    known_jaxpr, unknown_jaxpr, out_unknowns, forwarded = _split(params["jaxpr"], tuple(unks_in))
    known_in = [x for x, uk in zip(eqn.invars, unks_in) if not uk]
    # A residual that is a known input is not sent through the known jit: the staged one reads it.
    residuals = [known_in[i] if i is not None else Var(a) for i, a in forwarded]
    unknown_in = [x for x, uk in zip(eqn.invars, unks_in) if uk]
    known_out = [v for v, uk in zip(eqn.outvars, out_unknowns) if not uk]
    unknown_out = [v for v, uk in zip(eqn.outvars, out_unknowns) if uk]
    # A known input the staged jit reads must outlive the known one: it is not donated.
    read_later = {id(x) for x in residuals}
    donated = tuple(d and id(x) not in read_later
                    for x, d, uk in zip(eqn.invars, params["donated_invars"], unks_in) if not uk)  # fmt: skip
    made = [r for r, (i, _) in zip(residuals, forwarded) if i is None]
    eqn_known = new_eqn((jit_p, tuple(known_in), (*known_out, *made),
                         dict(params, jaxpr=known_jaxpr, donated_invars=donated)))  # fmt: skip
    n_staged_in = len(residuals) + len(unknown_in)
    eqn_unknown = new_eqn((jit_p, (*residuals, *unknown_in), tuple(unknown_out),
                           dict(params, jaxpr=unknown_jaxpr, donated_invars=(False,) * n_staged_in)))  # fmt: skip
    return eqn_known, eqn_unknown, out_unknowns, made


@functools.lru_cache(maxsize=1024)
def _split(jaxpr: ClosedJaxpr, unks_in: tuple[bool, ...]) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], list[Any]]:
    """The known and staged jaxprs of a jit, and per residual (the index of the known input it is,
    or None, and its type); the known jaxpr outputs only the residuals it computes. Made once per
    jaxpr: the same jaxprs each time find their compilations."""
    split = partial_eval.partial_eval_jaxpr(jaxpr, unks_in)
    known = split.known.jaxpr
    n_known_out = len(known.outvars) - split.num_res
    position = {v: i for i, v in enumerate(known.invars)}
    residuals = known.outvars[n_known_out:]
    forwarded = [(position.get(v), v.aval) for v in residuals]
    outvars = [*known.outvars[:n_known_out], *(v for v in residuals if v not in position)]
    known_jaxpr = ClosedJaxpr(Jaxpr(known.constvars, known.invars, outvars, known.eqns), split.known.consts)
    return known_jaxpr, split.unknown, split.out_unknowns, forwarded


partial_eval.partial_eval_jaxpr_rules[jit_p] = _jit_partial_eval


def _jit_transpose(cts: list[Any], *args: Any, jaxpr: ClosedJaxpr, name: str, donated_invars: tuple) -> list[Any]:
    """The transpose of a jitted linear function is jitted too: transpose its jaxpr, bind jit_p."""
    linear = [transpose.is_undefined_primal(x) for x in args]
    transposed, consts = _transposed(jaxpr, tuple(linear))
    res = [x for x in args if not transpose.is_undefined_primal(x)]
    cts = [ad.instantiate(ct) for ct in cts]
    n_in = len(consts) + len(res) + len(cts)
    outs = iter(jit_p.bind(*consts, *res, *cts, jaxpr=transposed, name=name,
                           donated_invars=(False,) * n_in))  # fmt: skip
    return [next(outs) if lin else None for lin in linear]


transpose.transpose_rules[jit_p] = _jit_transpose


@functools.lru_cache(maxsize=1024)
def _transposed(jaxpr: ClosedJaxpr, linear: tuple[bool, ...]) -> tuple[ClosedJaxpr, list[Any]]:
    """The transposed jaxpr, made once per jaxpr: the same object each time finds its compilation."""
    return hoist_consts(transpose.transpose_jaxpr(jaxpr, linear))


# ----------------------------------------------------------------------------------------------
# The API.


class _Staged(NamedTuple):
    """What tracing a function once gave: its jaxpr (constants hoisted), the constants, the tree
    of its outputs, and, once compiled, its executables (one per device, kept here: they live as
    long as the jitted function does)."""

    jaxpr: ClosedJaxpr
    consts: list[Any]
    out_tree: PyTreeDef
    donated: tuple[bool, ...]  # per input of the jaxpr (constants first, never donated)
    ready: dict[Any, _Ready]


class Jitted:
    """The function ``jit`` returns: call it, or ``lower`` / ``trace`` it for a look inside."""

    def __init__(self, fun: Callable[..., Any], static_argnums: tuple[int, ...], static_argnames: tuple[str, ...],
                 donate_argnums: tuple[int, ...], donate_argnames: tuple[str, ...]) -> None:  # fmt: skip
        # fun's name, docstring and attributes first, so that none of them can replace ours: a
        # function wrapped around a jitted one carries that one's `fun` and caches in its __dict__.
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.static_argnums, self.static_argnames = static_argnums, static_argnames
        self.donate_argnums, self.donate_argnames = donate_argnums, donate_argnames
        self.name = getattr(fun, "__name__", type(fun).__name__)
        # signature of the arguments -> the staged function; the fast path's: types -> executable
        self._cache, self._ready = _caches_of(fun, (static_argnums, static_argnames, donate_argnums, donate_argnames))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # The fast path, for a call like the last ones: positional Arrays already on the device,
        # no static arguments, nothing being staged (is_staging(), inlined: every call asks).
        # Their types alone find the executable.
        if not kwargs and trace_state.dynamic_trace is trace_state.eval_trace and not config.jax_disable_jit:
            try:
                ready = self._ready[_key(*map(_TYPE_OF, args))]
            except (AttributeError, KeyError):  # not all device Arrays, or a new signature
                pass
            else:
                return ready.run(args)
        return self._call(args, kwargs)

    def _call(self, args: tuple, kwargs: dict) -> Any:
        """Any call: trace if the signature is new, then run (or stage, or transform) jit_p."""
        if config.jax_disable_jit:
            return self.fun(*args, **kwargs)
        if self._ready and not is_staging():  # the fast path's second try: arguments in containers
            flat: list[Array] = []
            try:
                ready = self._ready[_key(_shape_of((args, kwargs), flat))]
            except (_NotFast, RecursionError, KeyError):
                pass
            else:
                return ready.run(flat)
        leaves, staged = self._trace(args, kwargs)
        if is_staging() or any(isinstance(x, Tracer) for x in (*leaves, *staged.consts)):
            outs = jit_p.bind(*staged.consts, *leaves, jaxpr=staged.jaxpr, name=self.name,
                              donated_invars=staged.donated)  # fmt: skip
            return tree_unflatten(staged.out_tree, outs)
        device = xla.default_device()
        ready = staged.ready.get(device)
        if ready is None:
            executable = compile_jaxpr(staged.jaxpr, self.name, device, staged.donated)
            ready = staged.ready[device] = _Ready(executable, staged)
        outs = ready.compiled.call([*staged.consts, *leaves])
        if config.jax_debug_nans:  # checked on this path only: such calls never take the fast path
            _check_nans(self.name, outs, lambda: self.fun(*args, **kwargs))
        elif not self.static_argnums and not self.static_argnames:  # next time, the fast path
            self._remember(args, kwargs, ready)
        return tree_unflatten(staged.out_tree, outs)

    def _remember(self, args: tuple, kwargs: dict, ready: _Ready) -> None:
        """Store ``ready`` under the fast path's key for these arguments, if they have one."""
        try:
            if not kwargs and all(type(x) is Array for x in args):
                self._ready[_key(*map(_device_type, args))] = ready
            else:
                self._ready[_key(_shape_of((args, kwargs), []))] = ready
        except (_NotFast, RecursionError):  # a leaf that is not a device Array, a container of another
            pass  # kind, or nesting deeper than Python's recursion goes (tree_flatten walks it with a stack)

    def clear_cache(self) -> None:
        """Forget every trace and executable of this function (and of every jit of it)."""
        self._cache.clear()
        self._ready.clear()

    def _trace(self, args: tuple, kwargs: dict) -> tuple[list[Any], _Staged]:
        """The arguments' leaves, and the staged function for their signature (traced now if it
        is new: the cache key is everything tracing depends on)."""
        statics, dyn_args, dyn_kwargs = self._split(args, kwargs)
        leaves, in_tree = tree_flatten((dyn_args, dyn_kwargs))
        avals = tuple(map(shaped_abstractify, leaves))  # types, never values
        key = _key(in_tree, avals, statics)
        staged = self._cache.get(key)
        if staged is None:
            staged = self._trace_new(in_tree, avals, statics, self._donated(args, kwargs, statics))
            if not any(isinstance(c, Tracer) for c in staged.consts):  # a captured tracer dies with its
                self._cache[key] = staged  # transformation: such a trace is good for this call only
        return leaves, staged

    def _donated(self, args: tuple, kwargs: dict, statics: tuple) -> tuple[bool, ...]:
        """Whether each leaf of the dynamic arguments is donated, in the order they are flattened."""
        if not self.donate_argnums and not self.donate_argnames:
            return ()
        static_pos = {i for i, _ in statics[0]}
        flags = [i in self.donate_argnums for i, a in enumerate(args) if i not in static_pos
                 for _ in tree_flatten(a)[0]]  # fmt: skip
        flags += [k in self.donate_argnames for k, v in sorted(kwargs.items()) if k not in self.static_argnames
                  for _ in tree_flatten(v)[0]]  # fmt: skip
        return tuple(flags)

    def _trace_new(self, in_tree: PyTreeDef, avals: tuple, statics: tuple, donated: tuple) -> _Staged:
        static_pos = {i: s.value for i, s in statics[0]}
        static_kw = {k: s.value for k, s in statics[1]}

        def with_statics(*dyn: Any, **kw: Any) -> Any:
            it = iter(dyn)
            n = len(dyn) + len(static_pos)
            full = [static_pos[i] if i in static_pos else next(it) for i in range(n)]
            return self.fun(*full, **kw, **static_kw)

        if config.jax_log_compiles:
            logger.warning("Compiling %s with global shapes and types %s.", self.name, [a.str_short() for a in avals])
        closed, out_tree = trace_flat(with_statics, in_tree, list(avals), self.fun)
        jaxpr, consts = hoist_consts(closed)
        consts = [c if isinstance(c, (Array, Tracer)) or _is_float0(c) else to_array(c) for c in consts]
        donated_invars = (False,) * len(consts) + (donated or (False,) * len(avals))
        return _Staged(jaxpr, consts, out_tree, donated_invars, {})

    def _split(self, args: tuple, kwargs: dict) -> tuple[tuple, tuple, dict]:
        """The static arguments (a hashable key), and the others."""
        n = len(args)
        # A static position not given positionally may come by name (static_argnames has it).
        static_pos = sorted({i % n for i in self.static_argnums if -n <= i < n})
        for i in static_pos:
            _check_hashable(args[i])
        static_kw = sorted((k, v) for k, v in kwargs.items() if k in self.static_argnames)
        for _, v in static_kw:
            _check_hashable(v)
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static_pos)
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        statics = (tuple((i, _Static(args[i])) for i in static_pos), tuple((k, _Static(v)) for k, v in static_kw))
        return statics, dyn_args, dyn_kwargs

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Stage and lower, without compiling: ``.as_text()`` is the StableHLO module."""
        _, staged = self._trace(args, kwargs)
        return Lowered(self.name, staged)

    def trace(self, *args: Any, **kwargs: Any) -> Traced:
        """Stage only: ``.jaxpr`` is the jaxpr the function is compiled from."""
        _, staged = self._trace(args, kwargs)
        return Traced(self.name, staged)

    def eval_shape(self, *args: Any, **kwargs: Any) -> Any:
        _, staged = self._trace(args, kwargs)
        shapes = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in staged.jaxpr.out_avals]
        return tree_unflatten(staged.out_tree, shapes)

    def __repr__(self) -> str:
        return f"<didax.jit of {self.fun!r}>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        """A jitted method: bind ``self`` as the first argument, as a function would."""
        return self if obj is None else functools.partial(self, obj)


def _key(*signature: Any) -> tuple:
    """The key of every cache of a jitted function: the flags that change what tracing produces
    (``config.trace_context``: 64-bit types, the promotion mode, the NaN check, the platform, the
    matmul precision), then what the call's arguments are. Three signatures use it:

    - the fast path's, for positional device Arrays: each one's type (``_type``, set when it was
      put on the device; a value that is not an Array has none, and AttributeError sends the call
      to the slow path);
    - the fast path's for arguments in containers: ``_shape_of`` the arguments;
    - the slow path's: the arguments' tree, their types, and the static arguments' values.
    """
    return (config.trace_context, *signature)


# A function's caches, shared by every jit of it with the same options, as in JAX: ``jit(f)(x)`` in
# a loop traces once. Held weakly: they go when the function goes.
_CACHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _caches_of(fun: Callable[..., Any], options: tuple) -> tuple[dict[Any, _Staged], dict[Any, _Ready]]:
    """The trace cache and the fast path's executables of ``fun`` jitted with ``options``."""
    try:
        per_options = _CACHES.setdefault(fun, {})
    except TypeError:  # a callable that cannot be hashed or weakly referenced: caches of its own
        return {}, {}
    return per_options.setdefault(options, ({}, {}))


class _NotFast(Exception):
    """What ``_shape_of`` raises for arguments the fast path does not take."""


def _device_type(x: Array) -> ShapedArray:
    """A device Array's type; _NotFast for an Array not on a device (its ``_type`` is None)."""
    if x._type is None:
        raise _NotFast
    return x._type


def _shape_of(tree: Any, leaves: list[Array]) -> Any:
    """The fast path's signature of arguments in containers (a list of (w, b) pairs, a dict): the
    tree's shape with each Array's type in its place; the Arrays are appended to ``leaves`` in
    tree_flatten's order. Only lists, tuples, dicts and None around device Arrays are taken, and
    only their exact types; anything else raises _NotFast, and tree_flatten, which knows every
    kind of node, takes over. It is faster because it builds no PyTreeDef, only nested tuples
    that Python hashes and compares by itself."""
    kind = type(tree)
    if kind is Array:
        leaves.append(tree)
        return _device_type(tree)  # never None, which stands for an argument None
    if kind is tuple or kind is list:  # map rather than a comprehension: no frame of its own
        return (kind, *map(_shape_of, tree, repeat(leaves)))
    if kind is dict:
        try:
            keys = sorted(tree)  # tree_flatten's order
        except TypeError:  # keys that do not sort: tree_flatten says so
            raise _NotFast from None
        return (dict, tuple(keys), *[_shape_of(tree[k], leaves) for k in keys])
    if tree is None:
        return None
    raise _NotFast


class _Ready:
    """What the fast path runs: an executable, the device buffers of the constants, how to wrap
    each output buffer, and how to build the result's tree. Every choice that does not depend on
    the call's values is made once, here, so that ``run`` makes none: even which ``run``."""

    __slots__ = ("compiled", "execute", "const_buffers", "out_avals", "wrap", "build", "donated", "run")

    def __init__(self, compiled: CompiledJaxpr, staged: _Staged) -> None:
        self.compiled = compiled
        self.execute = compiled.executable.run
        self.const_buffers = [_device_buffer(c, compiled.device) for c in staged.consts]
        self.out_avals = compiled.out_avals
        special = any(dtypes.is_key_dtype(a.dtype) or a.dtype == dtypes.float0 for a in self.out_avals)
        self.wrap = _output if special else Array.from_buffer
        self.build = _builder(staged.out_tree, len(self.out_avals))
        self.donated = staged.donated[len(staged.consts) :] if any(staged.donated) else None
        # The commonest call, one array in and out and nothing else to do, gets a shorter run.
        single = staged.out_tree == _LEAF and not self.const_buffers and not self.donated
        self.run = self._run_single if single else self._run_any

    def _run_any(self, args: Sequence[Array]) -> Any:
        if self.donated:
            _release_host_copies(args, self.donated)
        buffers = self.execute([*self.const_buffers, *map(buffer_of, args)])  # map: no frame per argument
        return self.build(list(map(self.wrap, buffers, self.out_avals)))

    def _run_single(self, args: Sequence[Array]) -> Any:
        return self.wrap(self.execute(list(map(buffer_of, args)))[0], self.out_avals[0])


def _builder(tree: PyTreeDef, n: int) -> Callable[[list[Any]], Any]:
    """What makes a result of tree ``tree`` from the list of its ``n`` leaves. The commonest
    trees are built by a C function (``tuple``, an item getter), the others by tree_unflatten."""
    if tree == _LEAF:
        return operator.itemgetter(0)
    if tree == tree_structure((0,) * n):
        return tuple
    if tree == tree_structure([0] * n):
        return list
    return functools.partial(tree_unflatten, tree)


class _Static:
    """A static argument in a cache key: equal when the values are equal and of one type, as JAX
    compares them (so 1 and 1.0 and True are three signatures, not one)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Static) and type(self.value) is type(other.value) and self.value == other.value

    def __hash__(self) -> int:
        return hash((type(self.value), self.value))

    def __repr__(self) -> str:
        return repr(self.value)


class Lowered:
    """A staged and lowered function, JAX's ``jax.stages.Lowered`` (``jit(f).lower(*args)``)."""

    def __init__(self, name: str, staged: _Staged) -> None:
        self._name, self._staged = name, staged

    def as_text(self) -> str:
        return xla.pretty(lower_module(self._name, self._staged.jaxpr, self._staged.donated, xla.platform()))

    @property
    def out_info(self) -> Any:
        """The outputs' shapes and dtypes, in the outputs' tree (JAX's ``Lowered.out_info``)."""
        avals = self._staged.jaxpr.out_avals
        return tree_unflatten(self._staged.out_tree, [ShapeDtypeStruct(a.shape, a.dtype) for a in avals])

    def compile(self) -> Compiled:
        return Compiled(self._name, self._staged)


class Compiled:
    """A compiled function, JAX's ``jax.stages.Compiled`` (``jit(f).lower(*args).compile()``):
    call it on arguments of the types it was lowered for."""

    def __init__(self, name: str, staged: _Staged) -> None:
        self._name, self._staged = name, staged
        self._compiled = compile_jaxpr(staged.jaxpr, name, xla.default_device(), staged.donated)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves, in_tree = tree_flatten((args, kwargs))
        n = len(self._staged.consts)
        want = self._staged.jaxpr.in_avals[n:]
        got = [shaped_abstractify(x) for x in leaves]
        if [(a.shape, a.dtype) for a in got] != [(a.shape, a.dtype) for a in want]:
            raise TypeError(
                f"Argument types differ from the types for which this computation was compiled: "
                f"{[a.str_short() for a in got]} vs {[a.str_short() for a in want]}."
            )
        outs = self._compiled.call([*self._staged.consts, *leaves])
        return tree_unflatten(self._staged.out_tree, outs)

    def as_text(self) -> str:
        """The HLO XLA compiled, after its optimizations."""
        return self._compiled.executable.as_text()

    def cost_analysis(self) -> dict[str, float]:
        return self._compiled.executable.cost_analysis()


class Traced:
    """A staged function, JAX's ``jax.stages.Traced`` (``jit(f).trace(*args)``)."""

    def __init__(self, name: str, staged: _Staged) -> None:
        self._name, self._staged = name, staged

    @property
    def jaxpr(self) -> ClosedJaxpr:
        return self._staged.jaxpr

    def lower(self) -> Lowered:
        return Lowered(self._name, self._staged)


def jit(
    fun: Callable[..., Any] | None = None,
    *,
    static_argnums: int | Sequence[int] | None = None,
    static_argnames: str | Sequence[str] | None = None,
    donate_argnums: int | Sequence[int] | None = None,
    donate_argnames: str | Sequence[str] | None = None,
    keep_unused: bool = False,
) -> Any:
    """``fun`` compiled with XLA: traced once per signature of argument types (and values of
    the static arguments), then run as one executable. Usable as ``@jit`` or ``@jit(...)``."""
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums, static_argnames=static_argnames,
                                 donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                                 keep_unused=keep_unused)  # fmt: skip
    # keep_unused is JAX's, and accepted: didax never drops an unused argument from an executable.
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun!r}")
    nums, names = _static_args(fun, _as_tuple(static_argnums), _as_tuple(static_argnames), "static", check_range=True)
    donate, donate_names = _static_args(fun, _as_tuple(donate_argnums), _as_tuple(donate_argnames), "donate")
    if set(donate) & set(nums):
        raise ValueError(f"static_argnums {nums} and donate_argnums {donate} cannot overlap")
    return Jitted(fun, nums, names, donate, donate_names)


def _as_tuple(x: Any) -> tuple:
    if x is None:
        return ()
    return (x,) if isinstance(x, (int, str)) else tuple(x)


def _static_args(
    fun: Callable[..., Any], nums: tuple, names: tuple, what: str, check_range: bool = False
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Static (or donated: ``what``) positions and names, each completed from the other through
    ``fun``'s signature, as JAX does (``static_argnames=('n',)`` also makes n's position static)."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return tuple(int(i) for i in nums), tuple(names)
    if not any(p.kind == p.VAR_KEYWORD for p in params):
        unknown = set(names) - {p.name for p in params if p.kind != p.VAR_POSITIONAL}
        if unknown:
            raise ValueError(f"Jitted function has invalid argnames {unknown} in {what}_argnames. Function does "
                             "not take these args.")  # fmt: skip
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    nums = {int(i) for i in nums}
    if check_range and not any(p.kind == p.VAR_POSITIONAL for p in params):
        if any(not -len(positional) <= i < len(positional) for i in nums):
            raise ValueError(f"Jitted function has static_argnums={tuple(sorted(nums))}, but only accepts "
                             f"{len(positional)} positional arguments.")  # fmt: skip
    names = set(names)
    for i in list(nums):
        if -len(positional) <= i < len(positional):
            names.add(positional[i])
    for name in list(names):
        if name in positional:
            nums.add(positional.index(name))
    return tuple(sorted(nums)), tuple(sorted(names))
