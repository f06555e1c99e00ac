"""`<home>/bin/wardian`: the command agents find first on PATH, running this installation."""

import shlex
import sys
from pathlib import Path

from wardian_core import paths
from wardian_core.atomic_files import make_folders, replace_file


def write_launcher(home: Path) -> Path:
    target = make_folders(home, paths.bin_dir(home).name) / "wardian"
    script = f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m wardian_host "$@"\n'
    if target.is_symlink() or not target.exists() or target.read_text() != script:
        replace_file(target, script, 0o755)  # a link in its place is replaced, never written through
    return target
