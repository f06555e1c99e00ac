"""Python loads this at start-up when the directory is on PYTHONPATH: see tests/support/full_disk.py."""

import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))

import full_disk  # found through the line above

full_disk.install_from_environment()
