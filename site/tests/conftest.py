"""Shared fixtures of the site's tests: the site built once per session, with --strict."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_common import SITE, build_site


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("built") / "site"
    result = build_site(SITE / "mkdocs.yml", out)
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}"
    return out
