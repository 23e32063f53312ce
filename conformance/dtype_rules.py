"""The dtype oracle: JAX's promotion table (data/promotion_table.txt) and its per-function rules.

Written independently of any implementation, so expected dtypes never come from the code under test
(nor from NumPy, whose promotion differs from JAX's).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import ml_dtypes
import numpy as np

TABLE_FILE = Path(__file__).parent / "data" / "promotion_table.txt"

# The table's codes count bytes (u1 = uint8, c8 = complex64); the weak codes have no fixed width.
CODE_TO_NAME = {
    "b1": "bool", "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
    "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
    "bf": "bfloat16", "f2": "float16", "f4": "float32", "f8": "float64",
    "c8": "complex64", "c16": "complex128",
}  # fmt: skip
NAME_TO_CODE = {name: code for code, name in CODE_TO_NAME.items()}
WEAK_CODES = ("i*", "f*", "c*")
# A weak value has the default type of its kind: int64/float64/complex128, 32-bit while x64 is off.
WEAK_DEFAULT = {"i*": "int64", "f*": "float64", "c*": "complex128"}
ALL_CODES = tuple(CODE_TO_NAME) + WEAK_CODES

# x64 off: JAX stores every 64-bit type as its 32-bit sibling.
_CANONICAL_32 = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}


def dtype(name: str) -> np.dtype:
    """np.dtype by name, bfloat16 included."""
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


@cache
def table() -> dict[tuple[str, str], str]:
    """The 18x18 table as {(row code, column code): result code}."""
    rows = [
        line.split()
        for line in TABLE_FILE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    header, body = rows[0], rows[1:]
    assert tuple(header) == ALL_CODES, f"unexpected header in {TABLE_FILE}: {header}"
    return {(row[0], col): cell for row in body for col, cell in zip(header, row[1:])}


def join(*codes: str) -> str:
    """Promote several codes; the table is a lattice join, so the order does not matter."""
    result = codes[0]
    for code in codes[1:]:
        result = table()[result, code]
    return result


def canonicalize(dt: np.dtype | str, x64: bool) -> np.dtype:
    """The dtype JAX stores for `dt`: 64-bit types become 32-bit ones while x64 is off."""
    name = np.dtype(dt).name if not isinstance(dt, str) else dt
    if name == "bfloat16" or x64:
        return dtype(name)
    return dtype(_CANONICAL_32.get(name, name))


def code_of(dt: np.dtype | str) -> str:
    return NAME_TO_CODE[np.dtype(dt).name if not isinstance(dt, str) else dt]


def dtype_of(code: str, x64: bool) -> np.dtype:
    """The (canonical) dtype of a code; weak codes take the default type of their kind."""
    return canonicalize(WEAK_DEFAULT.get(code) or CODE_TO_NAME[code], x64)


def is_weak_code(code: str) -> bool:
    return code in WEAK_CODES


def promote(*dtypes: np.dtype, x64: bool) -> np.dtype:
    """Result dtype of an n-ary jnp function on strongly typed arrays of these dtypes.

    The arrays are canonicalized when they enter the implementation, and so is the result.
    """
    return dtype_of(join(*(code_of(canonicalize(d, x64)) for d in dtypes)), x64)


# --- JAX's per-function rules (jax.numpy documentation and jax/_src/dtypes.py) ---------------------


def default_int(x64: bool) -> np.dtype:
    return canonicalize("int64", x64)


def default_float(x64: bool) -> np.dtype:
    return canonicalize("float64", x64)


def index_dtype(x64: bool) -> np.dtype:
    """argmax/argmin return the default int."""
    return default_int(x64)


def inexact(dt: np.dtype, x64: bool) -> np.dtype:
    """Transcendental functions and true division: bool and ints of up to 32 bits give float32,
    64-bit ints give float64 (then canonicalized); inexact types stay as they are."""
    if dt.kind in "biu":
        return canonicalize("float64" if dt.itemsize == 8 else "float32", x64)
    return dt


def numeric(dt: np.dtype) -> np.dtype:
    """Functions that need arithmetic on bool (square, floor_divide, power...) use int32."""
    return np.dtype("int32") if dt.kind == "b" else dt


def sum_dtype(dt: np.dtype, x64: bool) -> np.dtype:
    """sum/prod accumulate bool and signed ints in the default int, unsigned ints in the default uint."""
    if dt.kind in "bi":
        return default_int(x64)
    if dt.kind == "u":
        return canonicalize("uint64", x64)
    return dt


def real_dtype(dt: np.dtype) -> np.dtype:
    """abs of a complex number is real of the same precision."""
    return {"complex64": np.dtype("float32"), "complex128": np.dtype("float64")}.get(dt.name, dt)


# --- weak types (probed on jax 0.10.2; the rules, never the implementation's answer) ---------------
#
# A Python int, float or complex is weak (a Python bool is not); NumPy arrays and scalars are strong.
# Families:
# - "elementwise": jnp elementwise functions (comparisons and predicates included: jnp.equal of two
#   weak arrays is a *weak* bool), shape and movement functions (reshape, transpose, concatenate,
#   where, clip, take, sort, indexing, .at[] keeps the operand's), and every lax primitive on
#   values (lax.add, lax.eq, lax.reduce_sum, lax.cumsum, lax.pad, lax.sort, lax.dot_general...):
#   the result is weak iff every operand is, i.e. iff the promoted code of the table is weak.
# - "reduction": jnp reductions and scans (sum, prod, max, mean, var, cumsum, any, argmax,
#   argsort...): always strong, even of an all-weak input.
# - "index": index-valued results (lax.argmax, lax.iota, jnp.nonzero, sort permutations): strong.
# - "convert": anything given an explicit dtype (lax.convert_element_type, astype, dtype=...),
#   lax.bitcast_convert_type, lax.dynamic_update_slice, jnp.round with decimals != 0: strong.
# - "creation": jnp.zeros/ones/empty/eye/identity/tri/arange/linspace/logspace: strong.
# - "fill": jnp.full, jnp.*_like, jnp.asarray without a dtype: weak iff the fill value / the
#   prototype is (the operands passed are exactly those).
# - "constant": functions JAX writes with a constant made from their promoted operands
#   (`lax._const(x, 0)`), which is weakly typed only when x is a weak 0-d value: jnp.logical_and,
#   logical_or, logical_xor (each operand != 0), hypot (its final inf), logaddexp2 (1 / log 2),
#   gcd and lcm (their zeros): weak iff the join is weak and every operand is 0-d. So
#   logical_and(jnp.full(2, 1.0), 2.0) is strong, logical_and(1.0, 2.0) and
#   logical_and(np.array(True), 2.0) weak.
# - "constant_first": heaviside, whose constants come from its first operand: weak iff the join is
#   weak and the first operand is 0-d.
WEAK_FAMILIES = ("elementwise", "reduction", "index", "convert", "creation", "fill", "constant",
                 "constant_first")


def is_weak_input(value: object) -> bool:
    """Whether a value the suite passes in is weak: a Python int/float/complex, not a bool."""
    return isinstance(value, (int, float, complex)) and not isinstance(value, (bool, np.generic))


def operand_code(operand: object, x64: bool) -> str:
    """The table code of an operand: a weak code for a Python int/float/complex, else its dtype's
    (a NumPy array, a NumPy scalar, a Python bool, a list, or a dtype itself), canonicalized."""
    if is_weak_input(operand):
        return {int: "i*", float: "f*", complex: "c*"}[type(operand)]
    if isinstance(operand, (np.dtype, str, type)):
        return code_of(canonicalize(operand, x64))
    return code_of(canonicalize(np.asarray(operand).dtype, x64))


def weak_result(
    family: str, *operands: object, x64: bool = False, shapes: list[tuple] | None = None
) -> bool:
    """Whether a result of `family` (above) is weakly typed, given its operands (values or dtypes;
    `shapes`, the operands' shapes, for the "constant" families: by default an array's own, () for
    anything else).

    "elementwise" and "fill": weak iff the join of the operands' codes is a weak code. That is
    "every operand is weak" but for the table's weak corners: uint64 with a signed int gives f*
    (a weak float, while x64 is on), an int array with a Python complex gives c*."""
    assert family in WEAK_FAMILIES, f"unknown weak-type family {family!r}"
    if family in ("elementwise", "fill", "constant", "constant_first") and operands:
        weak = is_weak_code(join(*(operand_code(op, x64) for op in operands)))
        if shapes is None:
            shapes = [np.shape(op) if isinstance(op, np.ndarray | np.generic) else () for op in operands]
        if family == "constant":
            return weak and all(shape == () for shape in shapes)
        if family == "constant_first":
            return weak and shapes[0] == ()
        return weak
    return False


def power_weak_result(base: object, exponent: object, x64: bool, integer_pow: bool) -> bool:
    """jnp.power's weak type. A known integer scalar exponent means lax.integer_pow: the base's
    weak type. Otherwise an integer (or bool) power is binary exponentiation from strong constants:
    strong; an inexact base with integer exponents is lax.pow without promotion: weak iff both are;
    anything else promotes first: the join's."""
    base_code, exponent_code = operand_code(base, x64), operand_code(exponent, x64)
    if integer_pow:
        return is_weak_code(base_code)
    joined = join(base_code, exponent_code)
    if joined == "b1" or joined[0] in "iu":
        return False
    if (base_code == "bf" or base_code[0] in "fc") and exponent_code[0] in "iu":
        return is_weak_code(base_code) and is_weak_code(exponent_code)
    return is_weak_code(joined)
