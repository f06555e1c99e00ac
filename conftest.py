"""Root conftest: every suite in the repository gets a hermetic environment and the real-CLI harness."""

import sys
from pathlib import Path

# The real-CLI harness (tests/support) is imported by top-level name: real_cli_plugin, model_server.
sys.path.insert(0, str(Path(__file__).resolve().parent / "tests" / "support"))

pytest_plugins = ["wardian_host.testing.hermetic", "real_cli_plugin", "duration_order"]
