"""Products beyond dot and matmul: einsum (with a pairwise contraction order), tensordot, inner,
outer, kron, vdot, vecdot, matvec, vecmat, cross and trace, all through lax.dot_general.
Stage 01 introduced it.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import lax
from ..core import get_aval
from .reductions import sum
from .shapes import matmul, moveaxis, ravel
from .ufuncs import conjugate, multiply, subtract
from .util import ArrayLike, as_array, broadcast_to, canonicalize_axis, check_arraylike, promote_dtypes


def tensordot(a: ArrayLike, b: ArrayLike, axes: int | Sequence[Any] = 2, *, precision: Any = None,
              preferred_element_type: Any = None) -> ArrayLike:  # fmt: skip
    """Contract a's last ``axes`` axes with b's first ones (or the two given lists of axes)."""
    check_arraylike("tensordot", a, b)
    a, b = promote_dtypes(as_array(a), as_array(b))
    a_ndim, b_ndim = get_aval(a).ndim, get_aval(b).ndim
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or n > min(a_ndim, b_ndim):
            raise TypeError(f"tensordot: axes={n} does not fit operands of rank {a_ndim} and {b_ndim}.")
        a_axes, b_axes = tuple(range(a_ndim - n, a_ndim)), tuple(range(n))
    else:
        a_axes, b_axes = axes
        a_axes = (a_axes,) if np.ndim(a_axes) == 0 else tuple(a_axes)
        b_axes = (b_axes,) if np.ndim(b_axes) == 0 else tuple(b_axes)
        if len(a_axes) != len(b_axes):
            raise TypeError("tensordot: the two lists of axes must have the same length.")
        a_axes = tuple(canonicalize_axis(i, a_ndim) for i in a_axes)
        b_axes = tuple(canonicalize_axis(i, b_ndim) for i in b_axes)
    return lax.dot_general(a, b, ((a_axes, b_axes), ((), ())))


def inner(
    a: ArrayLike, b: ArrayLike, *, precision: Any = None, preferred_element_type: Any = None
) -> ArrayLike:
    """The sum product over the last axes of a and b."""
    check_arraylike("inner", a, b)
    if (
        np.ndim(a) == 0
        or np.ndim(b) == 0
        or get_aval(as_array(a)).ndim == 0
        or get_aval(as_array(b)).ndim == 0
    ):
        return multiply(a, b)
    return tensordot(a, b, (-1, -1))


def outer(a: ArrayLike, b: ArrayLike, out: None = None) -> ArrayLike:
    """Every product a[i] * b[j] of the flattened arrays, as a matrix."""
    check_arraylike("outer", a, b)
    a, b = ravel(as_array(a)), ravel(as_array(b))
    return multiply(lax.reshape(a, (get_aval(a).size, 1)), b)


def kron(a: ArrayLike, b: ArrayLike) -> ArrayLike:
    """The Kronecker product: b scaled by every element of a, laid out in a's pattern."""
    check_arraylike("kron", a, b)
    a, b = promote_dtypes(as_array(a), as_array(b))
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    ndim = max(len(a_shape), len(b_shape))
    a_shape = (1,) * (ndim - len(a_shape)) + a_shape
    b_shape = (1,) * (ndim - len(b_shape)) + b_shape
    a = lax.reshape(a, tuple(s for n in a_shape for s in (n, 1)))
    b = lax.reshape(b, tuple(s for n in b_shape for s in (1, n)))
    return lax.reshape(multiply(a, b), tuple(m * n for m, n in zip(a_shape, b_shape)))


def vdot(
    a: ArrayLike, b: ArrayLike, *, precision: Any = None, preferred_element_type: Any = None
) -> ArrayLike:
    """The dot product of the flattened arrays, conjugating a."""
    check_arraylike("vdot", a, b)
    a = ravel(as_array(a))
    if get_aval(a).dtype.kind == "c":
        a = conjugate(a)
    return tensordot(a, ravel(as_array(b)), 1)


def vecdot(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: Any = None) -> ArrayLike:  # fmt: skip
    """The (conjugated) dot product of vectors along an axis, broadcasting the others."""
    check_arraylike("vecdot", x1, x2)
    x1, x2 = promote_dtypes(as_array(x1), as_array(x2))
    x1 = moveaxis(x1, axis, -1)
    x2 = moveaxis(x2, axis, -1)
    if get_aval(x1).dtype.kind == "c":
        x1 = conjugate(x1)
    return matmul(lax.expand_dims(x1, (get_aval(x1).ndim - 1,)), lax.expand_dims(x2, (get_aval(x2).ndim,)))[
        ..., 0, 0
    ]


def matvec(x1: ArrayLike, x2: ArrayLike, /) -> ArrayLike:
    """Matrix times vector, broadcasting the leading axes."""
    check_arraylike("matvec", x1, x2)
    x2 = as_array(x2)
    return matmul(x1, lax.expand_dims(x2, (get_aval(x2).ndim,)))[..., 0]


def vecmat(x1: ArrayLike, x2: ArrayLike, /) -> ArrayLike:
    """(Conjugated) vector times matrix, broadcasting the leading axes."""
    check_arraylike("vecmat", x1, x2)
    x1 = as_array(x1)
    if get_aval(x1).dtype.kind == "c":
        x1 = conjugate(x1)
    return matmul(lax.expand_dims(x1, (get_aval(x1).ndim - 1,)), x2)[..., 0, :]


def cross(a: ArrayLike, b: ArrayLike, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> ArrayLike:  # fmt: skip
    """The cross product of 3-vectors (or the z component for 2-vectors) along an axis."""
    check_arraylike("cross", a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = promote_dtypes(as_array(a), as_array(b))
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    na, nb = get_aval(a).shape[-1], get_aval(b).shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")

    def part(x: ArrayLike, i: int, n: int) -> ArrayLike:
        if i >= n:
            return lax.broadcast_in_dim(
                np.zeros((), get_aval(x).dtype)[()], get_aval(x).shape[:-1], ()
            )  # z = 0
        return lax.index_in_dim(x, i, axis=get_aval(x).ndim - 1, keepdims=False)

    a0, a1, a2 = (part(a, i, na) for i in range(3))
    b0, b1, b2 = (part(b, i, nb) for i in range(3))
    c2 = subtract(multiply(a0, b1), multiply(a1, b0))
    if na == 2 and nb == 2:
        return c2
    c0 = subtract(multiply(a1, b2), multiply(a2, b1))
    c1 = subtract(multiply(a2, b0), multiply(a0, b2))
    shape = np.broadcast_shapes(get_aval(c0).shape, get_aval(c1).shape, get_aval(c2).shape)
    parts = [lax.expand_dims(broadcast_to(c, shape), (len(shape),)) for c in (c0, c1, c2)]
    return moveaxis(lax.concatenate(parts, len(shape)), -1, axisc)


def trace(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
          out: None = None) -> ArrayLike:  # fmt: skip
    """The sum along a diagonal (offset from the main one) of the axis1/axis2 planes."""
    check_arraylike("trace", a)
    a = as_array(a)
    shape = get_aval(a).shape
    axis1, axis2 = canonicalize_axis(axis1, len(shape)), canonicalize_axis(axis2, len(shape))
    n, m = shape[axis1], shape[axis2]
    rows = lax.broadcasted_iota(np.dtype(np.int32), (n, m), 0)
    cols = lax.broadcasted_iota(np.dtype(np.int32), (n, m), 1)
    on_diagonal = lax.eq(lax.add(rows, lax.full((), offset, np.dtype(np.int32))), cols)
    mask = lax.broadcast_in_dim(on_diagonal, shape, (axis1, axis2))
    return sum(a, axis=(axis1, axis2), dtype=dtype, where=mask)


# ----------------------------------------------------------------------------------------------
# einsum


def _parse(subscripts: str, shapes: list[tuple[int, ...]]) -> tuple[list[str], str]:
    """Input label strings (an ellipsis spelled out as fresh capital letters) and the output."""
    subscripts = subscripts.replace(" ", "")
    inputs, arrow, output = subscripts.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum: {len(terms)} input subscripts for {len(shapes)} operands.")
    used = set(subscripts) - set(".,->")
    fresh = [c for c in string.ascii_uppercase + string.ascii_lowercase if c not in used]
    ellipsis_rank = max(
        (len(s) - len(t.replace("...", "")) for t, s in zip(terms, shapes) if "..." in t), default=0
    )
    ellipsis = "".join(fresh[:ellipsis_rank])
    labels = []
    for term, shape in zip(terms, shapes):
        if "..." in term:
            rank = len(shape) - len(term.replace("...", ""))
            term = term.replace("...", ellipsis[ellipsis_rank - rank :] if rank else "")
        if len(term) != len(shape):
            raise ValueError(f"einsum: subscripts {term!r} do not match an operand of rank {len(shape)}.")
        labels.append(term)
    if arrow:
        output = output.replace("...", ellipsis)
    else:
        counts = {c: "".join(labels).count(c) for c in set("".join(labels))}
        output = ellipsis + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ellipsis))
    return labels, output


def _sizes(labels: list[str], shapes: list[tuple[int, ...]]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for term, shape in zip(labels, shapes):
        for c, n in zip(term, shape):
            if n != 1 and sizes.get(c, 1) not in (1, n):
                raise ValueError(
                    f"einsum: size of label {c!r} is {sizes[c]} in one operand and {n} in another."
                )
            sizes[c] = n if n != 1 else sizes.get(c, 1)
    return sizes


def _pair_result(a: str, b: str, keep: set[str]) -> str:
    """The labels a contraction of terms a and b keeps: those still needed later."""
    return "".join(dict.fromkeys(c for c in a + b if c in keep))


def _greedy_path(labels: list[str], output: str, sizes: dict[str, int]) -> list[tuple[int, int]]:
    """Pairs to contract, as NumPy lists them: positions in the current list of operands, the two
    removed and their result appended. Each step picks the pair whose result is smallest."""
    terms = list(labels)
    path = []
    while len(terms) > 1:
        best = None
        for i in range(len(terms)):
            for j in range(i + 1, len(terms)):
                rest = set(output).union(*(terms[k] for k in range(len(terms)) if k not in (i, j)))
                result = _pair_result(terms[i], terms[j], rest)
                cost = int(np.prod([sizes[c] for c in result], dtype=np.int64))
                if best is None or cost < best[0]:
                    best = (cost, i, j, result)
        _, i, j, result = best
        path.append((i, j))
        terms = [t for k, t in enumerate(terms) if k not in (i, j)] + [result]
    return path


def _add_up(x: ArrayLike, axes: tuple[int, ...]) -> ArrayLike:
    """The sum over ``axes``; for bools, as in JAX's einsum, an or."""
    return lax.reduce_or(x, axes) if get_aval(x).dtype == np.bool_ else lax.reduce_sum(x, axes)


def _take_diagonals(x: ArrayLike, term: str) -> tuple[ArrayLike, str]:
    """A label repeated within one operand ('ii->i') reads its diagonal. As JAX does: zero what is
    off the diagonal (a select, so an inf or a nan there does no harm), then sum the repeated axes
    away but one: the sum adds only zeros."""
    for c in dict.fromkeys(term):
        axes = [i for i, d in enumerate(term) if d == c]
        if len(axes) < 2:
            continue
        shape = get_aval(x).shape
        index = [lax.broadcasted_iota(np.dtype(np.int32), shape, i) for i in axes]
        on_diagonal = lax.eq(index[0], index[1])
        for other in index[2:]:
            on_diagonal = lax.bitwise_and(on_diagonal, lax.eq(index[0], other))
        x = _add_up(lax.select_n(on_diagonal, lax.full_like(x, 0), x), tuple(axes[1:]))
        term = "".join(d for i, d in enumerate(term) if i not in axes[1:])
    return x, term


def _sum_out(x: ArrayLike, term: str, keep: set[str]) -> tuple[ArrayLike, str]:
    """Sum over the labels nobody else needs."""
    gone = tuple(i for i, c in enumerate(term) if c not in keep)
    if gone:
        x = _add_up(x, gone)
        term = "".join(c for c in term if c in keep)
    return x, term


def _contract(a: ArrayLike, ta: str, b: ArrayLike, tb: str, keep: set[str]) -> tuple[ArrayLike, str]:
    a, ta = _sum_out(a, ta, keep | set(tb))
    b, tb = _sum_out(b, tb, keep | set(ta))
    # Size-1 axes broadcast against a matching label of the other side.
    shared = [c for c in ta if c in tb]
    batch = [c for c in shared if c in keep]
    contract = [c for c in shared if c not in keep]
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    for c in shared:
        na, nb = a_shape[ta.index(c)], b_shape[tb.index(c)]
        if na != nb:
            target = max(na, nb)
            if na == 1:
                a = broadcast_to(a, tuple(target if d == c else s for d, s in zip(ta, a_shape)))
            else:
                b = broadcast_to(b, tuple(target if d == c else s for d, s in zip(tb, b_shape)))
            a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    dims = (
        (tuple(ta.index(c) for c in contract), tuple(tb.index(c) for c in contract)),
        (tuple(ta.index(c) for c in batch), tuple(tb.index(c) for c in batch)),
    )
    out = lax.dot_general(a, b, dims)
    term = (
        "".join(batch) + "".join(c for c in ta if c not in shared) + "".join(c for c in tb if c not in shared)
    )
    return out, term


def einsum_path(subscripts: str, *operands: ArrayLike, optimize: Any = "greedy") -> tuple[list[Any], str]:
    """The order einsum contracts its operands in, and a short description of it."""
    shapes = [tuple(np.shape(o)) if not hasattr(o, "shape") else tuple(o.shape) for o in operands]
    labels, output = _parse(subscripts, shapes)
    sizes = _sizes(labels, shapes)
    if optimize is False or optimize == "none":
        path = [(0, 1)] * (len(labels) - 1) if len(labels) > 1 else []
    else:
        path = _greedy_path(labels, output, sizes)
    path_list: list[Any] = (
        list(path) if len(labels) > 1 else [(0,)]
    )  # JAX leaves out NumPy's leading "einsum_path"
    lines = [f"  Complete contraction:  {','.join(labels)}->{output}"]
    terms = list(labels)
    for i, j in path:
        rest = set(output).union(*(terms[k] for k in range(len(terms)) if k not in (i, j)))
        result = _pair_result(terms[i], terms[j], rest)
        lines.append(f"  {terms[i]},{terms[j]}->{result}")
        terms = [t for k, t in enumerate(terms) if k not in (i, j)] + [result]
    return path_list, "\n".join(lines)


def einsum(subscripts: str, /, *operands: ArrayLike, out: None = None, optimize: Any = "auto",
           precision: Any = None, preferred_element_type: Any = None, _dot_general: Any = None,
           out_sharding: Any = None) -> ArrayLike:  # fmt: skip
    """Einstein summation: products and sums of operands named by subscript labels ('ij,jk->ik')."""
    if not isinstance(subscripts, str):
        raise NotImplementedError("didax.numpy.einsum takes its subscripts as a string.")
    check_arraylike("einsum", *operands)
    arrays = (
        promote_dtypes(*(as_array(o) for o in operands)) if len(operands) > 1 else [as_array(operands[0])]
    )
    shapes = [get_aval(x).shape for x in arrays]
    labels, output = _parse(subscripts, shapes)
    sizes = _sizes(labels, shapes)
    for c in output:
        if c not in sizes:
            raise ValueError(f"einsum: output label {c!r} appears in no input.")
        if output.count(c) > 1:
            raise ValueError(f"einsum: output label {c!r} appears more than once in the output.")
    terms = [_take_diagonals(x, term) for x, term in zip(arrays, labels)]
    labels = [term for _, term in terms]
    if optimize is False or optimize == "none" or len(arrays) < 3:
        path = [(0, 1)] * (len(arrays) - 1)
    else:
        path = _greedy_path(labels, output, sizes)
    for i, j in path:
        (a, ta), (b, tb) = terms[i], terms[j]
        rest = set(output).union(*(t for k, (_, t) in enumerate(terms) if k not in (i, j)))
        result = _contract(a, ta, b, tb, rest)
        terms = [t for k, t in enumerate(terms) if k not in (i, j)] + [result]
    ((x, term),) = terms
    x, term = _sum_out(x, term, set(output))
    x = lax.transpose(x, tuple(term.index(c) for c in output))
    return broadcast_to(x, tuple(sizes[c] for c in output))
