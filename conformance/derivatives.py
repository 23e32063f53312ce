"""The oracle of the jvp area: derivatives checked against central finite differences.

The design is JAX's ``check_jvp``/``check_grads`` (jax._src.public_test_util), written anew here:
evaluate the function at ``x + eps * v`` and ``x - eps * v`` for one random direction ``v`` (eps =
1e-4), divide the difference by ``2 * eps``, and compare with the JVP along ``v``, within a tolerance
per dtype that grows with the number of elements compared. Second order checks the JVP of
``(x, v) -> jvp(f, x, v)`` the same way. The function is evaluated by the implementation under test:
its values are checked against NumPy by the other areas, its derivatives here.

Where the central difference and the JVP disagree, the difference is refined once before the check
fails: Richardson extrapolation, ``(4 D(eps/2) - D(eps)) / 3``, cancels its error term of order
eps**2, which is large where the function curves fast (the sine of a product of six numbers). A
correct JVP then agrees; a wrong rule, off by a term of order one, still does not.

Inputs are NumPy arrays in float64 (x64 on): in 64 bits the finite difference is good to about 1e-8
for the smooth functions tested, so a tolerance of 1e-5 leaves no room for a wrong rule, which is
off by a term of order one. Integer and boolean inputs get float0 tangents, and so do integer and
boolean outputs: their tangent is compared by dtype and shape only.

Pytrees here are what the suite builds: tuples, lists and dicts (sorted keys) of arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from conformance.checks import RTOL, assert_dtype, assert_values, is_weak, result_dtype, show_call, wide
from conformance.dtype_rules import is_weak_input

EPS = 1e-4

# Fraction allowed, absolutely and relatively, per element compared, by the dtype of the result (the
# magnitudes of JAX's default gradient tolerances). The suite computes derivatives in float64 and
# complex128; the others are here for implementations tested in lower precision.
GRAD_TOL = {
    "bfloat16": 1e-1,
    "float16": 1e-2,
    "float32": 2e-3,
    "float64": 1e-5,
    "complex64": 2e-3,
    "complex128": 1e-5,
}

# --- pytrees of the suite's own making -------------------------------------------------------------


def leaves(tree: Any) -> list[Any]:
    """The leaves of a tree of tuples, lists, dicts (entries in sorted key order) and Nones."""
    if isinstance(tree, (tuple, list)):
        return [leaf for child in tree for leaf in leaves(child)]
    if isinstance(tree, dict):
        return [leaf for key in sorted(tree) for leaf in leaves(tree[key])]
    return [] if tree is None else [tree]  # None is an empty node, as in JAX


def structure(tree: Any) -> str:
    """The tree's shape as text, ``(*, [*], {'a': *})``: containers and keys, leaves as ``*``."""
    if isinstance(tree, tuple):
        return "(" + ", ".join(map(structure, tree)) + (",)" if len(tree) == 1 else ")")
    if isinstance(tree, list):
        return "[" + ", ".join(map(structure, tree)) + "]"
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{key!r}: {structure(tree[key])}" for key in sorted(tree)) + "}"
    return "None" if tree is None else "*"


def tree_map(fn: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    """``fn`` applied leaf by leaf to trees of the same structure, keeping the first one's containers."""
    if isinstance(tree, (tuple, list)):
        mapped = [tree_map(fn, *children) for children in zip(tree, *rest)]
        return type(tree)(mapped)
    if isinstance(tree, dict):
        return {key: tree_map(fn, tree[key], *(r[key] for r in rest)) for key in tree}
    return fn(tree, *rest)


# --- tangents --------------------------------------------------------------------------------------


def float0_dtype() -> np.dtype:
    """JAX's float0, the dtype of the tangents of integers and booleans: a zero-sized void field.
    The same NumPy dtype in every implementation (didax.dtypes.float0 == jax.dtypes.float0)."""
    return np.dtype([("float0", np.void, 0)])


def is_differentiable(dt: np.dtype) -> bool:
    return np.dtype(dt).kind in "fc"


def tangent_dtype(dt: np.dtype) -> np.dtype:
    """The dtype of a tangent of a value of dtype ``dt``."""
    return np.dtype(dt) if is_differentiable(dt) else float0_dtype()


def zero_tangent(x: Any) -> np.ndarray:
    """The zero tangent of ``x``: zeros of its dtype, or float0 zeros for integers and booleans."""
    dt = result_dtype(np.asarray(x) if not hasattr(x, "dtype") else x)
    return np.zeros(np.shape(x), tangent_dtype(dt))


def random_tangents(primals: Any, rng: np.random.Generator) -> Any:
    """A random direction: standard normal entries for every float and complex leaf (complex ones in
    both parts), float0 zeros for the others."""

    def draw(x: Any) -> np.ndarray:
        x = np.asarray(x)
        if not is_differentiable(x.dtype):
            return zero_tangent(x)
        v = rng.standard_normal(x.shape)
        if x.dtype.kind == "c":
            v = v + 1j * rng.standard_normal(x.shape)
        return v.astype(x.dtype)

    return tree_map(draw, primals)


def numerical_jvp(fun: Callable[..., Any], primals: tuple, tangents: tuple, eps: float = EPS) -> list[Any]:
    """Central differences of ``fun`` at ``primals`` along ``tangents``, one entry per output leaf
    (None for an integer or boolean output, whose tangent is float0)."""

    def shift(sign: float) -> tuple:
        def move(x: Any, t: Any) -> Any:
            x = np.asarray(x)
            return x + np.asarray(sign * eps, x.dtype) * t if is_differentiable(x.dtype) else x

        return tree_map(move, primals, tangents)

    ups, downs = leaves(fun(*shift(1.0))), leaves(fun(*shift(-1.0)))
    out = []
    for up, down in zip(ups, downs):
        up, down = np.asarray(up), np.asarray(down)
        if not is_differentiable(up.dtype):
            out.append(None)
            continue
        wide = np.complex128 if up.dtype.kind == "c" else np.float64
        with np.errstate(invalid="ignore"):  # inf - inf: both sides overflowed alike
            diff = np.where(up == down, 0, up.astype(wide) - down.astype(wide))
        out.append(diff / (2 * eps))
    return out


def richardson_jvp(fun: Callable[..., Any], primals: tuple, tangents: tuple, plain: list[Any]) -> list[Any]:
    """Central differences with the error term of order eps**2 cancelled: (4 D(eps/2) - D(eps)) / 3,
    from ``plain`` = D(eps) (what numerical_jvp gave) and one more evaluation pair at eps / 2."""
    halves = numerical_jvp(fun, primals, tangents, EPS / 2)
    return [None if d is None else (4 * h - d) / 3 for d, h in zip(plain, halves)]


# --- the checks ------------------------------------------------------------------------------------


def assert_derivative(got: Any, want: np.ndarray, dt: np.dtype, what: str) -> None:
    """``got`` within GRAD_TOL[dt] of ``want`` absolutely and relatively, per element compared."""
    tol = GRAD_TOL[np.dtype(dt).name] * max(1, np.size(want))
    try:
        assert_values(got, want, np.dtype(dt), atol=tol * (1 + np.abs(want)))
    except AssertionError as err:
        raise AssertionError(f"{what}: JVP and finite differences differ\n{err}") from None


def _weak(x: Any) -> bool:
    """Whether a plain result is weakly typed: an array's flag, or a Python scalar's kind."""
    if hasattr(x, "aval") or hasattr(x, "weak_type"):
        return is_weak(x)
    return is_weak_input(x)


def _dtype_of(x: Any) -> np.dtype:
    return result_dtype(np.asarray(x) if not hasattr(x, "dtype") else x)


def check_primal_outputs(primals_out: Any, plain: Any, primal_types: bool = True) -> None:
    """What a transformation gives as ``fun``'s outputs is the plain call's result: the same tree,
    values, dtypes and (with ``primal_types``) weak types."""
    assert structure(primals_out) == structure(plain), (
        f"primal output tree {structure(primals_out)}, expected {structure(plain)}"
    )
    for i, (p, want_p) in enumerate(zip(leaves(primals_out), leaves(plain))):
        dt = _dtype_of(want_p)
        assert_dtype(p, dt, f"primal output {i}", weak=_weak(want_p) if primal_types else None)
        if dt != float0_dtype():  # float0 primals (the inner tangents of a second-order check) hold no values
            assert_values(p, wide(np.asarray(want_p)), dt, atol=RTOL.get(dt.name, 0.0))


def check_jvp(
    jvp: Callable[..., Any],
    fun: Callable[..., Any],
    primals: tuple,
    tangents: tuple,
    *,
    primal_types: bool = True,
) -> None:
    """``jvp(fun, primals, tangents)`` against ``fun(*primals)`` and finite differences.

    Primal outputs: the same tree, values, dtypes and (with ``primal_types``) weak types as the plain
    call. Tangent outputs: the same tree, each leaf with its primal's shape and tangent dtype, and
    values matching central differences."""
    primals_out, tangents_out = jvp(fun, primals, tangents)
    plain = fun(*primals)
    check_primal_outputs(primals_out, plain, primal_types)
    assert structure(tangents_out) == structure(plain), (
        f"tangent output tree {structure(tangents_out)}, expected {structure(plain)}"
    )
    expected = numerical_jvp(fun, primals, tangents)
    refined: list[Any] = []
    for i, (want_p, t, want_t) in enumerate(zip(leaves(plain), leaves(tangents_out), expected)):
        dt = _dtype_of(want_p)
        # A tangent's weak type is not checked here: JAX's comes from however its rules build the
        # tangent (through its jitted jnp functions it follows the primal's; through bare lax
        # operations a strong tangent of a weak primal stays strong), and the random programs mix
        # both; test_jvp.py's test_tangents_are_typed_like_their_primals pins the common cases. Its
        # dtype is fixed: the primal's, float0 for integers and booleans.
        assert_dtype(t, tangent_dtype(dt), f"tangent output {i}", weak=None)
        assert np.shape(t) == np.shape(want_p), (
            f"tangent output {i} has shape {np.shape(t)}, expected {np.shape(want_p)}"
        )
        if want_t is None:
            continue
        try:
            assert_derivative(t, want_t, dt, f"tangent output {i}")
        except AssertionError:  # maybe the difference quotient is off: refine it before failing
            refined = refined or richardson_jvp(fun, primals, tangents, expected)
            assert_derivative(t, refined[i], dt, f"tangent output {i} (finite differences refined by Richardson "
                              f"extrapolation, as with eps={EPS} alone they differed too)")  # fmt: skip


def check_derivatives(
    jax: Any, fun: Callable[..., Any], primals: tuple, rng: np.random.Generator, *, source: str,
    values: dict[str, Any], order: int = 2,
) -> None:  # fmt: skip
    """First-order (and with ``order=2`` second-order) JVPs of ``fun`` at ``primals`` against finite
    differences, along random directions. ``source`` defines ``f`` in terms of ``values`` (the inputs,
    as they are named in ``primals``' text) for the reproducing program: ``primals`` is written
    ``(x, y)`` when ``values`` holds ``x`` and ``y``."""
    names = list(values)
    tangents = random_tangents(primals, rng)
    tnames = [f"t{n}" for n in names]
    call = f"{source}\njax.jvp(f, {_tuple(names)}, {_tuple(tnames)})"
    show_call(call, **values, **dict(zip(tnames, tangents)))
    check_jvp(jax.jvp, fun, primals, tangents)
    if order < 2:
        return

    # Second order: the JVP of (primals, tangents) -> jvp(fun, primals, tangents).
    def g(p: tuple, t: tuple) -> Any:
        return jax.jvp(fun, p, t)

    outer = (primals, tangents)
    outer_tangents = random_tangents(outer, rng)
    unames, snames = [f"u{n}" for n in names], [f"s{n}" for n in names]
    call = (f"{source}\ng = lambda primals, tangents: jax.jvp(f, primals, tangents)\n"
            f"jax.jvp(g, ({_tuple(names)}, {_tuple(tnames)}), ({_tuple(unames)}, {_tuple(snames)}))")  # fmt: skip
    shown = {**values, **dict(zip(tnames, tangents)), **dict(zip(unames, outer_tangents[0])),
             **dict(zip(snames, outer_tangents[1]))}  # fmt: skip
    show_call(call, **shown)
    # The inner tangents are outputs of g: their weak types are the implementation's (see above).
    check_jvp(jax.jvp, g, outer, outer_tangents, primal_types=False)


def _tuple(names: list[str]) -> str:
    return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"


# --- reverse mode: vjp by the dot-product test ----------------------------------------------------------
# A VJP is the transpose of the JVP: for every direction v and cotangent u, Re sum(v * vjp(u)) =
# Re sum(jvp(v) * u), summed over the leaves (JAX's convention for complex numbers: the transpose,
# not the conjugate transpose, of the Jacobian, a bilinear pairing). Both sides are scalars, so one
# random pair (u, v) checks the whole VJP; the right side comes once from central differences (vjp
# against finite differences) and once from the implementation's own jvp (the dot-product test).

# The dot-product test compares two exact computations: rounding alone separates them.
DOT_TOL = {"bfloat16": 5e-2, "float16": 5e-3, "float32": 1e-4, "float64": 1e-9, "complex64": 1e-4,
           "complex128": 1e-9}  # fmt: skip


def pairing(xs: list[Any], ys: list[Any]) -> tuple[float, float]:
    """Re sum(x * y) over pairs of leaves (a None or float0 leaf pairs to nothing), and sum(|x| |y|),
    the size of the terms, which rounding errors are measured against."""
    total = scale = 0.0
    for x, y in zip(xs, ys):
        if x is None or y is None:
            continue
        x, y = np.asarray(x), np.asarray(y)
        if not (is_differentiable(x.dtype) and is_differentiable(y.dtype)):
            continue
        x, y = wide(x).reshape(-1), wide(y).reshape(-1)
        total += float(np.real(np.sum(x * y)))
        scale += float(np.sum(np.abs(x) * np.abs(y)))
    return total, scale


def _least_precise(trees: list[Any]) -> np.dtype:
    """The least precise float or complex dtype among the leaves (float64 when there is none)."""
    found = [_dtype_of(x) for tree in trees for x in leaves(tree) if is_differentiable(_dtype_of(x))]
    return max(found, key=lambda d: np.finfo(d).eps, default=np.dtype("float64"))


def assert_paired(got: tuple[float, float], want: tuple[float, float], tol: float, what: str) -> None:
    (a, a_scale), (b, b_scale) = got, want
    bound = tol * (1 + max(a_scale, b_scale))
    assert abs(a - b) <= bound, (
        f"{what}: Re sum(v * vjp(u)) = {a!r} but Re sum(jvp(v) * u) = {b!r} (differ by {abs(a - b):.3g}, "
        f"allowed {bound:.3g})"
    )


def check_vjp(jax: Any, fun: Callable[..., Any], primals: tuple, rng: np.random.Generator, *,
              primal_types: bool = True) -> None:  # fmt: skip
    """``jax.vjp(fun, *primals)`` against ``fun(*primals)``, central differences and ``jax.jvp``.

    Primal outputs: as the plain call's (check_primal_outputs). Cotangents: a tuple shaped like
    ``primals``, each leaf with its primal's shape and tangent dtype (float0 for integers), paired
    with a random direction as the output's cotangent is with the JVP along it (see above)."""
    primals_out, f_vjp = jax.vjp(fun, *primals)
    plain = fun(*primals)
    check_primal_outputs(primals_out, plain, primal_types)
    u = random_tangents(plain, rng)
    cts = f_vjp(u)
    assert isinstance(cts, tuple), f"vjp's function returned a {type(cts).__name__}, not a tuple"
    assert structure(cts) == structure(primals), f"cotangent tree {structure(cts)}, expected {structure(primals)}"
    for i, (ct, x) in enumerate(zip(leaves(cts), leaves(primals))):
        assert_dtype(ct, tangent_dtype(_dtype_of(x)), f"cotangent {i}", weak=None)
        assert np.shape(ct) == np.shape(x), f"cotangent {i} has shape {np.shape(ct)}, expected {np.shape(x)}"
    v = random_tangents(primals, rng)
    left = pairing(leaves(v), leaves(cts))
    _, tangents_out = jax.jvp(fun, primals, v)
    dt = _least_precise([primals, plain])
    assert_paired(left, pairing(leaves(tangents_out), leaves(u)), DOT_TOL[dt.name], "vjp against jvp")
    numerical = numerical_jvp(fun, primals, v)
    try:
        assert_paired(left, pairing(numerical, leaves(u)), GRAD_TOL[dt.name], "vjp against finite differences")
    except AssertionError:  # maybe the difference quotient is off: refine it before failing
        refined = richardson_jvp(fun, primals, v, numerical)
        assert_paired(left, pairing(refined, leaves(u)), GRAD_TOL[dt.name],
                      "vjp against finite differences (refined by Richardson extrapolation)")  # fmt: skip


SECOND_ORDER = ("grad_of_vjp", "vjp_of_jvp")


def check_reverse(
    jax: Any, fun: Callable[..., Any], primals: tuple, rng: np.random.Generator, *, source: str,
    values: dict[str, Any], order: int = 2, second: str = "grad_of_vjp",
) -> None:  # fmt: skip
    """First-order (and with ``order=2`` second-order) VJPs of ``fun`` at ``primals`` (check_vjp).
    Second order is ``second``: the VJP of ``p -> vjp(fun, *p)[1](u)`` for a fixed cotangent ``u``
    (reverse over reverse: the gradient of a scalar projection), or of ``(p, t) -> jvp(fun, p, t)``
    (reverse over forward). ``source`` and ``values`` as for check_derivatives."""
    names = list(values)
    args = ", ".join(names)
    call = f"{source}\ny, f_vjp = jax.vjp(f, {args})\nf_vjp(cotangent), jax.jvp(f, {_tuple(names)}, direction)"
    state = rng.bit_generator.state  # check_vjp's draws, shown as the program's values
    u, v = random_tangents(fun(*primals), rng), random_tangents(primals, rng)
    rng.bit_generator.state = state
    show_call(call, **values, cotangent=u, direction=v)
    check_vjp(jax, fun, primals, rng)
    if order < 2:
        return
    if second == "grad_of_vjp":
        w = random_tangents(fun(*primals), rng)

        def g(*p: Any) -> Any:
            return jax.vjp(fun, *p)[1](w)

        call = f"{source}\ng = lambda {args}: jax.vjp(f, {args})[1](cotangent)\njax.vjp(g, {args})"
        show_call(call, **values, cotangent=w)
        check_vjp(jax, g, primals, rng, primal_types=False)
        return

    def h(p: tuple, t: tuple) -> Any:
        return jax.jvp(fun, p, t)

    t = random_tangents(primals, rng)
    tnames = [f"tangent_{n}" for n in names]
    call = (f"{source}\nh = lambda primals, tangents: jax.jvp(f, primals, tangents)\n"
            f"jax.vjp(h, {_tuple(names)}, {_tuple(tnames)})")  # fmt: skip
    show_call(call, **values, **dict(zip(tnames, t)))
    # The inner tangents are outputs of h: their weak types are the implementation's (see check_jvp).
    check_vjp(jax, h, (primals, t), rng, primal_types=False)


# --- Jacobians (jacfwd) -------------------------------------------------------------------------------


def map_leaves(fn: Callable[[int, Any], Any], tree: Any) -> Any:
    """``fn(k, leaf)`` for the k-th leaf in leaves() order (dict entries by sorted key), containers kept."""
    count = iter(range(1 << 62))

    def go(t: Any) -> Any:
        if isinstance(t, (tuple, list)):
            return type(t)(go(c) for c in t)
        if isinstance(t, dict):
            return {k: go(t[k]) for k in sorted(t)}
        return None if t is None else fn(next(count), t)

    return go(tree)


def numerical_jacobian(fun: Callable[..., Any], args: tuple, argnums: int | tuple[int, ...] = 0) -> Any:
    """What ``jacfwd(fun, argnums)(*args)`` must return, by central differences along each unit vector:
    the tree of ``fun``'s output with each leaf ``o`` replaced by the tree of ``args[argnums]`` (a tuple
    of such trees when ``argnums`` is a tuple) whose leaf ``x`` is the array of shape
    ``o.shape + x.shape`` of the derivatives of ``o`` by ``x``. Float inputs only (as jacfwd)."""
    nums = tuple(a % len(args) for a in ((argnums,) if isinstance(argnums, int) else argnums))
    out = fun(*args)
    shapes = [np.shape(o) for o in leaves(out)]
    blocks: dict[tuple[int, int], list[np.ndarray]] = {}
    for a in nums:
        for li, x in enumerate(leaves(args[a])):
            x = np.asarray(x)
            cols = [np.zeros(s + x.shape) for s in shapes]
            for idx in np.ndindex(x.shape):
                unit = np.zeros(x.shape, x.dtype)
                unit[idx] = 1
                tangents = tuple(
                    map_leaves(lambda k, leaf, here=(i == a), unit=unit, li=li: unit if here and k == li
                               else _zeros_like(leaf), arg)
                    for i, arg in enumerate(args)
                )  # fmt: skip
                for o, d in enumerate(numerical_jvp(fun, args, tangents)):
                    cols[o][(Ellipsis, *idx)] = d
            blocks[a, li] = cols

    def per_output(o: int, _: Any) -> Any:
        trees = [map_leaves(lambda li, _x, a=a: blocks[a, li][o], args[a]) for a in nums]
        return trees[0] if isinstance(argnums, int) else tuple(trees)

    return map_leaves(per_output, out)


def _zeros_like(x: Any) -> np.ndarray:
    return np.zeros(np.shape(x), np.asarray(x).dtype)
