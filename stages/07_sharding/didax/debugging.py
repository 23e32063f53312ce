"""``didax.debug.print``: print values from inside transformed and compiled code. Stage 06
introduced it.

A Python ``print`` inside a jitted function runs once, at tracing, and shows tracers. ``debug.print``
is a primitive, ``debug_print``, that prints when its values are computed: eagerly at once, under
``vmap`` once per batch member, under ``grad`` the primal values (tangents are not printed), and
under ``jit`` from the compiled program, which calls back into Python through XLA's host callback
(the lowering rule writes a custom call to jaxlib's ``xla_ffi_python_cpu_callback``, and the
compiled executable is given the Python function to call). It has a side effect and no result, so
dead-code elimination keeps it (``has_side_effect``).
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from . import ad, batching, lax
from .core import Primitive
from .lowering.core import LoweringContext, lowering_rules
from .tree_util import PyTreeDef, tree_flatten, tree_unflatten

debug_print_p = Primitive("debug_print")
debug_print_p.multiple_results = True
debug_print_p.has_side_effect = True  # type: ignore[attr-defined]


def print(fmt: str, *args: Any, ordered: bool = False, **kwargs: Any) -> None:  # noqa: A001 - JAX's name
    """Print ``fmt.format(*args, **kwargs)`` with the arguments' values, when they are computed.
    ``ordered`` is accepted for JAX's signature: didax's prints come in program order anyway."""
    leaves, in_tree = tree_flatten((args, kwargs))
    debug_print_p.bind(*leaves, fmt=fmt, in_tree=in_tree, ordered=bool(ordered))


def _format(values: list[Any], fmt: str, in_tree: PyTreeDef) -> str:
    args, kwargs = tree_unflatten(in_tree, [np.asarray(v) for v in values])
    return fmt.format(*args, **kwargs)


@debug_print_p.def_impl
def _debug_print_impl(*values: Any, fmt: str, in_tree: PyTreeDef, ordered: bool) -> list[Any]:
    builtins.print(_format(list(values), fmt, in_tree))
    return []


debug_print_p.def_abstract_eval(lambda *avals, **params: [])


def _debug_print_jvp(primals: list[Any], tangents: list[Any], **params: Any) -> tuple[list[Any], list[Any]]:
    """The primal values are printed; tangents are not."""
    debug_print_p.bind(*primals, **params)
    return [], []


def _debug_print_batch(vals: list[Any], dims: list[Any], **params: Any) -> tuple[list[Any], list[Any]]:
    """One print per batch member, in order, as JAX prints them."""
    size = batching.batch_size(vals, dims)
    for i in range(size):
        members = [x if d is batching.not_mapped else lax.index_in_dim(x, i, d, keepdims=False)
                   for x, d in zip(vals, dims)]  # fmt: skip
        debug_print_p.bind(*members, **params)
    return [], []


def _debug_print_lowering(ctx: LoweringContext, *args: str, fmt: str, in_tree: PyTreeDef, ordered: bool) -> list[str]:
    """A custom call into Python: the compiled program hands the values to the callback."""

    def callback(*values: np.ndarray) -> tuple:
        _debug_print_impl(*values, fmt=fmt, in_tree=in_tree, ordered=ordered)
        return ()

    index = ctx.module.add_host_callback(callback)
    target = f"xla_ffi_python_{'gpu' if ctx.module.platform == 'cuda' else 'cpu'}_callback"
    attrs = {"call_target_name": f'"{target}"', "api_version": "4 : i32",
             "backend_config": f"{{index = {index} : ui64}}", "has_side_effect": "true"}  # fmt: skip
    ctx.fb.op("stablehlo.custom_call", list(args), [], attrs)
    return []


ad.jvp_rules[debug_print_p] = _debug_print_jvp
batching.batching_rules[debug_print_p] = _debug_print_batch
lowering_rules[debug_print_p] = _debug_print_lowering
