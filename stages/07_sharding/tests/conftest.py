"""Put this stage's folder first on sys.path, so ``import didax`` finds this stage's package.

Stage 07's tests need several devices in one process, for didax and for the real JAX they are
compared with (each makes its own CPU client, and both read XLA_FLAGS when they make it): 8 CPU
devices, set before either is imported."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

_COUNT = "--xla_force_host_platform_device_count"
if _COUNT not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_COUNT}=8".strip()
