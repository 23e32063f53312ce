"""Put this stage's folder first on sys.path, so ``import didax`` finds stage 01's package."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
