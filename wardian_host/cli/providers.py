"""`wardian providers`: which providers are installed, are they ready, and how do their
parsers read a recording."""

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from wardian_core import paths
from wardian_core.errors import SCHEMA_VERSION
from wardian_host.answers.key_values import setting_pairs


@click.group()
def providers() -> None:
    """Installed providers, their readiness, and parser replays."""


def _pretty_list(records: list[dict[str, Any]]) -> str:
    if not records:
        return "no providers (check WARDIAN_PLUGINS)"
    columns = ("name", "readiness", "package", "executable_path", "executable_version", "version_tested")
    headers = ("NAME", "READINESS", "PACKAGE", "EXECUTABLE", "VERSION", "TESTED")
    cells = []
    for record in records:
        package = f"{record['package'] or '-'} {record['package_version'] or ''}".strip()
        executable = record["executable_path"] or record["executable"] or "-"
        values = {**record, "package": package, "executable_path": executable}
        cells.append([str(values[column] or "-") for column in columns])
    widths = [max(len(header), *(len(row[i]) for row in cells)) for i, header in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    for record, row in zip(records, cells, strict=True):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        if record["error"]:
            lines.append(f"    error: {record['error']}")
        if record["hint"]:
            lines.append(f"    hint: {record['hint']}")
    return "\n".join(lines)


def _pretty_record(record: dict[str, Any]) -> str:
    width = max(len(key) for key in record)
    lines = []
    for key, value in record.items():
        text = json.dumps(value) if isinstance(value, dict | list) else ("-" if value is None else str(value))
        lines.append(f"{key.ljust(width)}  {text}")
    return "\n".join(lines)


def _write(envelope: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(envelope, indent=2) + "\n")


@providers.command("list")
@click.option("--pretty", is_flag=True, help="A table for people, with a hint under each row that is not ready.")
def list_command(pretty: bool) -> None:
    """Every installed provider: package, executable, version and readiness."""
    from wardian_host.providers.inventory import provider_records, summary
    from wardian_host.providers.manager import load_plugins

    records = [summary(r) for r in provider_records(load_plugins(), paths.wardian_home(), os.environ)]
    if pretty:
        sys.stdout.write(_pretty_list(records) + "\n")
    else:
        _write({"schema": SCHEMA_VERSION, "providers": records})


@providers.command("show")
@click.argument("name")
@click.option("--pretty", is_flag=True, help="Aligned text for people.")
def show(name: str, pretty: bool) -> None:
    """The full record of one provider, including its input profile."""
    from wardian_host.providers.inventory import provider_record
    from wardian_host.providers.manager import load_plugins

    record = provider_record(load_plugins(), name, paths.wardian_home(), os.environ)
    if pretty:
        sys.stdout.write(_pretty_record(record) + "\n")
    else:
        _write({"schema": SCHEMA_VERSION, "provider": record})


@providers.command("replay")
@click.argument("name")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--source",
    default="pty",
    show_default=True,
    metavar="pty|headless|SOURCE",
    help="How the file was recorded: raw PTY bytes, headless JSON lines, or a telemetry source's lines.",
)
@click.option(
    "--setting",
    "pairs",
    multiple=True,
    metavar="KEY=VALUE",
    help="A provider setting for the replayed launch (VALUE read as JSON when it parses).",
)
@click.option("--chunk-size", default=4096, show_default=True, type=click.IntRange(min=1), help="Bytes per PTY read.")
@click.option(
    "--gap",
    default=0.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Simulated seconds between chunks or lines (lets quiet-time rules fire mid-file).",
)
def replay_command(name: str, file: Path, source: str, pairs: tuple[str, ...], chunk_size: int, gap: float) -> None:
    """Feed FILE through provider NAME's parser; print events and status changes as JSON lines."""
    from wardian_host.providers.manager import load_plugins
    from wardian_host.providers.replay import replay

    plugins = load_plugins()
    plugins.info(name)
    lines = replay(
        plugins,
        name,
        file,
        source=source,
        home=paths.wardian_home(),
        settings=setting_pairs(pairs, "--setting", values_as_json=True),
        chunk_size=chunk_size,
        gap=gap,
    )
    for line in lines:
        sys.stdout.write(json.dumps(line) + "\n")


@providers.command("new")
@click.argument("name")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to write the package (default: ./wardian-NAME); a new or empty folder.",
)
def new_command(name: str, directory: Path | None) -> None:
    """Write provider package NAME from Wardian's template: it installs, checks and tests as written."""
    from wardian_host.providers.scaffold import write_provider_package

    written = write_provider_package(name, directory)
    _write({"schema": SCHEMA_VERSION, "provider": written.model_dump()})


@providers.command("check")
@click.argument("name")
def check_command(name: str) -> None:
    """Run Wardian's conformance checks on installed provider NAME, as its `pytest` does."""
    from wardian_host.testing.checking import check_provider

    _write({"schema": SCHEMA_VERSION, "check": check_provider(name)})
