"""didax.numpy: NumPy's interface (broadcasting, JAX's type promotion) on top of didax.lax.
Stage 01 introduced it.
"""

import numpy as _np

from .. import dtypes as _dtypes
from ..array import Array as ndarray
from . import array_methods as _array_methods  # noqa: F401  (installs the operators)
from .creation import (
    arange,
    array,
    asarray,
    astype,
    empty,
    eye,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from .indexing import take, take_along_axis
from .reductions import amax, amin, argmax, argmin, max, mean, min, prod, sum
from .scalar_types import (
    bfloat16,
    bool_,
    complex64,
    complex128,
    complex_,
    float16,
    float32,
    float64,
    float_,
    int8,
    int16,
    int32,
    int64,
    int_,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .shapes import (
    concatenate,
    dot,
    expand_dims,
    matmul,
    moveaxis,
    ravel,
    reshape,
    squeeze,
    stack,
    swapaxes,
    transpose,
)
from .ufuncs import (
    abs,
    absolute,
    add,
    bitwise_and,
    bitwise_count,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    cos,
    divide,
    equal,
    exp,
    expm1,
    floor_divide,
    greater,
    greater_equal,
    invert,
    left_shift,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    positive,
    power,
    reciprocal,
    remainder,
    right_shift,
    sign,
    sin,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    true_divide,
    where,
)
from .util import broadcast_to

bool = bool_  # noqa: A001 - jax.numpy.bool is its bool scalar type
dtype = _np.dtype
promote_types = _dtypes.promote_types
result_type = _dtypes.result_type
iinfo = _dtypes.iinfo
finfo = _dtypes.finfo
issubdtype = _dtypes.issubdtype
pi, e, inf, nan = _np.pi, _np.e, _np.inf, _np.nan
newaxis = None

# ----------------------------------------------------------------------------------------------
# Array manipulation, creation helpers, sorting and set operations (the nparrays branch).
from .manipulation import (  # noqa: E402
    append,
    array_split,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block,
    broadcast_arrays,
    broadcast_shapes,
    column_stack,
    concat,
    delete,
    dsplit,
    dstack,
    flip,
    fliplr,
    flipud,
    hsplit,
    hstack,
    insert,
    isscalar,
    iterable,
    matrix_transpose,
    ndim,
    pad,
    permute_dims,
    ravel_multi_index,
    repeat,
    resize,
    roll,
    rollaxis,
    rot90,
    shape,
    size,
    split,
    tile,
    unravel_index,
    unstack,
    vsplit,
    vstack,
)
