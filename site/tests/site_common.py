"""Paths and the build helper shared by the site's tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SITE = Path(__file__).resolve().parents[1]
ROOT = SITE.parent
if str(SITE) not in sys.path:
    sys.path.insert(0, str(SITE))  # sitegen and exercises


def build_site(config: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of `config` into `out`, run from the repository root."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(config), "-d", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
