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


# ----------------------------------------------------------------------------------------------
# Stage 07: where an array's blocks live.


def visualize_array_sharding(arr: Any, **kwargs: Any) -> None:
    """Draw which devices hold each block of ``arr`` (see ``visualize_sharding``)."""
    visualize_sharding(arr.shape, arr.sharding, **kwargs)


def visualize_sharding(shape: tuple[int, ...], sharding: Any, *, use_color: bool = True, scale: float = 1.0,
                       min_width: int = 9, max_width: int = 80, color_map: Any = None) -> None:  # fmt: skip
    """Print a grid of boxes, one per block of an array of ``shape`` spread as ``sharding`` says,
    each naming the devices that hold it: rows split axis 0, columns axis 1 (a 1-d array is one
    row). JAX draws it with the ``rich`` library, in colour and to scale; didax prints plain text
    with every box one line high, so ``use_color``, ``scale`` and ``color_map`` change nothing."""
    if not 1 <= len(shape) <= 2:
        raise ValueError("`visualize_sharding` only works for shapes with 1 and 2 dimensions.")
    holders: dict[tuple[int, int], list[int]] = {}
    for device, index in sharding.devices_indices_map(tuple(shape)).items():
        starts = [s.start or 0 for s in index]
        block = (0, starts[0]) if len(shape) == 1 else (starts[0], starts[1])
        holders.setdefault(block, []).append(device)
    rows, cols = sorted({r for r, _ in holders}), sorted({c for _, c in holders})
    labels = {b: f"{ds[0].platform.upper()} {','.join(str(d.id) for d in sorted(ds, key=lambda d: d.id))}"
              for b, ds in holders.items()}  # fmt: skip
    width = min(max(min_width, max(map(len, labels.values())) + 2), max_width // len(cols) - 1)
    line = lambda left, mid, right: left + mid.join("─" * width for _ in cols) + right  # noqa: E731
    out = [line("┌", "┬", "┐")]
    for i, r in enumerate(rows):
        out.append("│" + "│".join(labels[r, c].center(width) for c in cols) + "│")
        out.append(line("├", "┼", "┤") if i < len(rows) - 1 else line("└", "┴", "┘"))
    builtins.print("\n".join(out))
