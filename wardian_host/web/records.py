"""`run/web.json`: where the host serves the view. Read at every host start, so it stays light
(no aiohttp): a home that never used the view pays nothing for it."""

import os
from pathlib import Path

from pydantic import ValidationError

from wardian_core import paths
from wardian_core.atomic_files import replace_file
from wardian_host.web.models import WebRecord

RECORD_NAME = "web.json"
LOOPBACK = "127.0.0.1"


def record_path(home: Path) -> Path:
    return paths.run_dir(home) / RECORD_NAME


def read_record(home: Path) -> WebRecord | None:
    try:
        return WebRecord.model_validate_json(record_path(home).read_text(encoding="utf-8"))
    except (OSError, ValidationError):
        return None


def write_record(home: Path, listen: str, port: int) -> None:
    replace_file(record_path(home), WebRecord(pid=os.getpid(), listen=listen, port=port).model_dump_json())
