"""`<home>/bin/wardian`: the command agents find first on PATH, running this installation."""

import os
import shlex
import sys
from pathlib import Path

from wardian_core import paths


def write_launcher(home: Path) -> Path:
    bin_dir = paths.bin_dir(home)
    bin_dir.mkdir(parents=True, exist_ok=True)
    target = bin_dir / "wardian"
    script = f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m wardian_host "$@"\n'
    if not target.exists() or target.read_text() != script:
        temporary = target.with_suffix(".tmp")
        temporary.write_text(script)
        temporary.chmod(0o755)
        os.replace(temporary, target)
    return target
