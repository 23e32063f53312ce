"""jax.numpy as an array API namespace (the standard's version 2024.12): its version, the
introspection of ``__array_namespace_info__``, ``x.__array_namespace__()``, and the ``device=``
keyword of the functions that make arrays. The values follow from the standard and from JAX's
dtype rules (no 64-bit types while x64 is off), not from any one implementation."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from conformance import dtype_rules as dr
from conformance.impl import Impl, _submodule

pytestmark = [pytest.mark.area("numpy"), pytest.mark.requires("eval")]

KINDS = {
    "bool": {"bool"},
    "signed integer": {"int8", "int16", "int32", "int64"},
    "unsigned integer": {"uint8", "uint16", "uint32", "uint64"},
    "real floating": {"float32", "float64"},
    "complex floating": {"complex64", "complex128"},
}
WIDE = {"int64", "uint64", "float64", "complex128"}
# The functions that make an array take device= (keyword-only), as the standard says.
MAKERS = ["arange", "asarray", "astype", "empty", "empty_like", "eye", "full", "full_like", "linspace", "ones",
          "ones_like", "zeros", "zeros_like", "from_dlpack"]  # fmt: skip


@pytest.mark.parametrize("x64", [False, True])
def test_namespace_info_lists_the_standards_dtypes_and_defaults(impl: Impl, flags, x64: bool) -> None:
    flags("jax_enable_x64", x64)
    jnp = impl.numpy
    assert jnp.__array_api_version__ == "2024.12"
    info = jnp.__array_namespace_info__()
    assert info.capabilities()["boolean indexing"] is False  # shapes never depend on values
    assert info.capabilities()["data-dependent shapes"] is False
    assert info.default_device() is None
    assert None in info.devices()
    present = {name for names in KINDS.values() for name in names if x64 or name not in WIDE}
    assert set(info.dtypes()) == present
    for kind, names in KINDS.items():
        got = info.dtypes(kind=kind)
        assert set(got) == names & present
        assert all(np.dtype(v) == np.dtype(k) for k, v in got.items())
    both = info.dtypes(kind=("bool", "complex floating"))
    assert set(both) == (KINDS["bool"] | KINDS["complex floating"]) & present
    defaults = info.default_dtypes()
    assert defaults["real floating"] == dr.default_float(x64)
    assert defaults["integral"] == defaults["indexing"] == dr.default_int(x64)
    assert defaults["complex floating"] == np.dtype("complex128" if x64 else "complex64")


def test_an_array_names_its_namespace(impl: Impl) -> None:
    x = impl.numpy.ones(3)
    # The implementation's numpy module, by name: the suite may hand out its modules through a
    # proxy (the coverage recorder of CI's run on stage 01), which `is` would not see through.
    name = _submodule(impl.module, "numpy").__name__
    assert x.__array_namespace__().__name__ == name
    assert x.__array_namespace__(api_version="2024.12").__name__ == name
    assert hasattr(x.__array_namespace__(), "asarray")
    with pytest.raises(ValueError):
        x.__array_namespace__(api_version="2019.01")


@pytest.mark.parametrize("name", MAKERS)
def test_array_makers_take_a_keyword_only_device(impl: Impl, name: str) -> None:
    parameter = inspect.signature(getattr(impl.numpy, name)).parameters.get("device")
    assert parameter is not None, f"jnp.{name} has no device= parameter"
    assert parameter.kind == inspect.Parameter.KEYWORD_ONLY and parameter.default is None
    assert np.asarray(impl.numpy.zeros(2, device=None)).tolist() == [0.0, 0.0]


def test_scalar_types_equal_their_numpy_types_and_dtypes_not_their_names(impl: Impl) -> None:
    """Libraries written for the standard key dicts by dtypes: jnp.float32 must equal (and hash as)
    np.float32 and np.dtype('float32'), and comparing it with any other object must answer False."""
    f32 = impl.numpy.float32
    assert f32 == np.float32 and f32 == np.dtype("float32") and np.dtype("float32") == f32
    assert f32 != "float32" and f32 != "not a dtype" and f32 != impl.numpy.int32
    assert {np.float32: "found"}.get(f32) == "found"


def test_the_standards_array_members(impl: Impl) -> None:
    """``x.mT`` (the last two axes swapped), ``x.to_device(device, /, *, stream=None)``, and
    ``reshape``'s keyword-only ``copy``, as the standard names them."""
    x = impl.numpy.arange(24).reshape(2, 3, 4)
    assert np.array_equal(np.asarray(x.mT), np.arange(24).reshape(2, 3, 4).swapaxes(-1, -2))
    with pytest.raises(ValueError):
        impl.numpy.ones(3).mT  # noqa: B018 - a vector has no matrix transpose
    parameters = inspect.signature(type(x).to_device).parameters
    device = parameters["device"]  # positional (the standard makes it positional-only)
    assert device.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    assert device.default is inspect.Parameter.empty
    assert parameters["stream"].kind == inspect.Parameter.KEYWORD_ONLY
    assert np.array_equal(np.asarray(x.to_device(None)), np.arange(24).reshape(2, 3, 4))
    copy = inspect.signature(impl.numpy.reshape).parameters["copy"]
    assert copy.kind == inspect.Parameter.KEYWORD_ONLY and copy.default is None
    assert impl.numpy.reshape(x, (4, 6), copy=True).shape == (4, 6)
