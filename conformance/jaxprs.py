"""The jaxpr area's tools: the implementation's staging API under JAX's names, and the round trip
that every staged function must survive.

A staged function is checked against itself run eagerly, by the same implementation (whose eager
values the other areas check against NumPy): ``make_jaxpr(f)(*args)`` must give a jaxpr that

- type-checks (``jax.extend.core.check_jaxpr``), its constants typed as its constvars;
- declares the outputs' types: each out aval has the shape, dtype and weak type of ``f``'s value;
- evaluates to ``f(*args)`` (``jax.core.eval_jaxpr`` on the flattened arguments, and
  ``jax.extend.core.jaxpr_as_fun``);
- stages again: ``make_jaxpr`` of its ``eval_jaxpr`` type-checks, has the same equations (by
  primitive) and evaluates to the same values;

and ``eval_shape(f, *args)`` must give ``f``'s output tree with its leaves' shapes, dtypes and weak
types. Jaxprs are compared by what they mean, never by their printed text.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from conformance.checks import RTOL, assert_same_type, assert_values, show_call, wide
from conformance.derivatives import leaves, structure
from conformance.impl import Impl
from conformance.missing import Namespace

# How a reproducing program reaches what JAX keeps in submodules that `import jax` does not load.
PROGRAM_HEADER = "import importlib\nimportlib.import_module(jax.__name__ + '.extend.core')\n"


@dataclass(frozen=True)
class Staging:
    """The implementation's modules as a staging test uses them: ``jax`` (make_jaxpr, eval_shape,
    ShapeDtypeStruct, errors, jvp, vmap), ``core`` (jax.core: eval_jaxpr), ``ext``
    (jax.extend.core: Jaxpr, Literal, check_jaxpr, jaxpr_as_fun, JaxprTypeError), ``jnp``, ``lax``."""

    jax: Any
    core: Any
    ext: Any
    jnp: Any
    lax: Any

    @property
    def namespace(self) -> dict[str, Any]:
        """What the suite's program text sees: jax, jnp, lax, np."""
        return {"jax": self.jax, "jnp": self.jnp, "lax": self.lax, "np": np}


def staging(impl: Impl) -> Staging:
    """The staging API of ``impl``; a submodule it lacks makes the test "missing" it."""
    return Staging(
        jax=Namespace(impl.module, "jax"),
        core=Namespace(_submodule(impl, "core"), "jax.core"),
        ext=Namespace(_submodule(impl, "extend.core"), "jax.extend.core"),
        jnp=impl.numpy,
        lax=impl.lax,
    )


def _submodule(impl: Impl, name: str) -> Any:
    """``impl.module.<name>`` (``extend.core``): an attribute if it is one (a module standing for
    jax may hold jax's own), else imported. A ModuleNotFoundError for the implementation's own
    submodule is reported as missing (missing.missing_name), like a name its Namespace lacks."""
    found: Any = impl.module
    for part in name.split("."):
        found = getattr(found, part, None)
    return found if found is not None else importlib.import_module(f"{impl.module.__name__}.{name}")


def flat_args(args: tuple, kwargs: dict[str, Any] | None = None) -> list[Any]:
    """The leaves of ``(args, kwargs)`` in JAX's order (dict entries by sorted key): the inputs of
    ``make_jaxpr(f)(*args, **kwargs)``'s jaxpr."""
    return leaves((tuple(args), dict(kwargs or {})))


def as_arrays(s: Staging, tree: Any) -> list[Any]:
    """The leaves of ``tree``, a Python scalar or NumPy value among them made an array of the
    implementation (``jnp.asarray``): what a staged function gives for it."""
    return [x if hasattr(x, "aval") or hasattr(x, "weak_type") else s.jnp.asarray(x) for x in leaves(tree)]


def assert_like(got: Any, want: Any, what: str) -> None:
    """``got`` has ``want``'s shape, dtype and weak type, and its values: within the dtype's
    tolerance relative to the largest magnitude (a staged program may round differently where the
    two orders of operations differ), exactly for integers and booleans."""
    assert_same_type(got, want, what)
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, f"{what}: shape {g.shape}, expected {w.shape}"
    if w.dtype.kind in "biu":
        assert_values(got, w, w.dtype)
        return
    scale = float(np.max(np.abs(wide(w)), initial=0.0, where=np.isfinite(w)))
    try:
        assert_values(got, wide(w), w.dtype, atol=RTOL[w.dtype.name] * scale)
    except AssertionError as err:
        raise AssertionError(f"{what}: {err}") from None


def assert_all_like(got: list[Any], want: list[Any], what: str, s: Staging | None = None) -> None:
    """Each of ``got`` like (assert_like) its entry of ``want``; with ``s``, a Python scalar or
    NumPy value in ``got`` as the implementation's array (JAX's eval_jaxpr gives a literal output
    as the literal's own value)."""
    assert len(got) == len(want), f"{what}: {len(got)} values, expected {len(want)}"
    if s is not None:
        got = as_arrays(s, list(got))
    for k, (g, w) in enumerate(zip(got, want)):
        assert_like(g, w, f"{what} {k}")


def avals(atoms: Any) -> list[Any]:
    return [a.aval for a in atoms]


def primitives(closed: Any) -> list[str]:
    """The names of the jaxpr's primitives, equation by equation (not recursing into sub-jaxprs)."""
    return [eqn.primitive.name for eqn in closed.jaxpr.eqns]


def check_consts(closed: Any) -> None:
    """A closed jaxpr's constants have the shapes and dtypes of its constvars."""
    jaxpr = closed.jaxpr
    assert len(closed.consts) == len(jaxpr.constvars), (
        f"{len(jaxpr.constvars)} constvars but {len(closed.consts)} constants"
    )
    for k, (c, v) in enumerate(zip(closed.consts, jaxpr.constvars)):
        assert np.shape(c) == tuple(v.aval.shape), (
            f"constant {k} has shape {np.shape(c)}, its constvar {v.aval}"
        )
        assert np.dtype(c.dtype) == np.dtype(v.aval.dtype), (
            f"constant {k} has dtype {c.dtype}, its constvar {v.aval}"
        )


def check_round_trip(s: Staging, f: Callable[..., Any], args: tuple, *, source: str, values: dict[str, Any],
                     kwargs: dict[str, Any] | None = None) -> Any:  # fmt: skip
    """The module docstring's checks for ``f(*args, **kwargs)`` (``source`` defines ``f`` in terms of
    ``values``, for the reproducing program); returns the closed jaxpr."""
    kwargs = dict(kwargs or {})
    flat = flat_args(args, kwargs)
    call = ", ".join([*values, *(f"{k}={k}" for k in kwargs)])
    tree = f"({_tuple_text(list(values))}, {{{', '.join(f'{k!r}: {k}' for k in kwargs)}}})"
    show_call(f"{PROGRAM_HEADER}{source}\nclosed = jax.make_jaxpr(f)({call})\n"
              f"jax.extend.core.check_jaxpr(closed.jaxpr)\n"
              f"jax.core.eval_jaxpr(closed.jaxpr, closed.consts, *jax.tree_util.tree_leaves({tree}))",
              **values, **kwargs)  # fmt: skip
    want = f(*args, **kwargs)
    closed = s.jax.make_jaxpr(f)(*args, **kwargs)
    s.ext.check_jaxpr(closed.jaxpr)
    check_consts(closed)
    want_leaves = as_arrays(s, want)
    in_avals = avals(closed.jaxpr.invars)
    assert len(in_avals) == len(flat), f"{len(in_avals)} inputs for {len(flat)} argument leaves"
    for k, (aval, x) in enumerate(zip(in_avals, flat)):
        assert tuple(aval.shape) == np.shape(x), f"input {k} is {aval}, the argument has shape {np.shape(x)}"
    out_avals = avals(closed.jaxpr.outvars)
    assert len(out_avals) == len(want_leaves), f"{len(out_avals)} outputs, f gives {len(want_leaves)} leaves"
    for k, (aval, w) in enumerate(zip(out_avals, want_leaves)):
        assert_same_type(aval, w, f"output {k}'s aval")
        assert tuple(aval.shape) == np.shape(w), f"output {k}'s aval is {aval}, f gives shape {np.shape(w)}"
    got = s.core.eval_jaxpr(closed.jaxpr, closed.consts, *flat)
    assert_all_like(list(got), want_leaves, "eval_jaxpr output", s)
    assert_all_like(list(s.ext.jaxpr_as_fun(closed)(*flat)), want_leaves, "jaxpr_as_fun output", s)
    _check_restaged(s, closed, flat, want_leaves)
    _check_eval_shape(s, f, args, kwargs, want)
    return closed


def _tuple_text(names: list[str]) -> str:
    return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"  # () for none


def _check_restaged(s: Staging, closed: Any, flat: list[Any], want: list[Any]) -> None:
    """make_jaxpr of the jaxpr's own evaluation: a jaxpr again, with the same equations."""

    def run(*xs: Any) -> list[Any]:
        return s.core.eval_jaxpr(closed.jaxpr, closed.consts, *xs)

    again = s.jax.make_jaxpr(run)(*flat)
    s.ext.check_jaxpr(again.jaxpr)
    assert primitives(again) == primitives(closed), (
        f"staging eval_jaxpr gives the primitives {primitives(again)}, the jaxpr has {primitives(closed)}"
    )
    assert_all_like(list(s.core.eval_jaxpr(again.jaxpr, again.consts, *flat)), want, "restaged output", s)


def _check_eval_shape(
    s: Staging, f: Callable[..., Any], args: tuple, kwargs: dict[str, Any], want: Any
) -> None:
    shapes = s.jax.eval_shape(f, *args, **kwargs)
    assert structure(shapes) == structure(want), (
        f"eval_shape's tree {structure(shapes)}, f's {structure(want)}"
    )
    want_leaves = as_arrays(s, want)
    for k, (got, w) in enumerate(zip(leaves(shapes), want_leaves)):
        assert tuple(got.shape) == np.shape(w), (
            f"eval_shape leaf {k} has shape {got.shape}, f's {np.shape(w)}"
        )
        assert_same_type(got, w, f"eval_shape leaf {k}")
