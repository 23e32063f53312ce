"""`pytest conformance ...` loads the suite's plugin (conformance/plugin.py) through this file,
unless it is already loaded (by its `pytest11` entry point, or `-p conformance.plugin`)."""

from __future__ import annotations

import pytest

from conformance import plugin


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    if not pluginmanager.is_registered(plugin):
        pluginmanager.register(plugin, "didax_conformance")
