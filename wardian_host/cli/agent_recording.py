"""`wardian agent recording`: an agent's terminal output with its timing, as asciicast v2."""

import sys
from pathlib import Path

import click

from wardian_host.answers.recording import RecordingOrder, recording_lines


@click.command("recording")
@click.argument("target", metavar="NAME-OR-UUID")
@click.option("--since", help="From this moment (2026-11-25T08:00:00Z) or span back (30m, 2h).")
@click.option("--until", help="Up to this moment or span back.")
@click.option("--format", "format_", default="asciicast", show_default=True, help="asciicast (v2).")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Write here, not to stdout.")
def recording(target: str, since: str | None, until: str | None, format_: str, output: Path | None) -> None:
    """Export the agent's recording; `asciinema play FILE` replays it."""
    lines = recording_lines(RecordingOrder(target, format_, since, until))
    if output is None:
        for line in lines:
            sys.stdout.write(line + "\n")
        return
    from wardian_core.atomic_files import write_atomically
    from wardian_core.errors import write_failed

    try:  # whole or not at all: a cut export would replay as if the agent stopped there
        write_atomically(output, "".join(line + "\n" for line in lines))
    except OSError as error:
        raise write_failed(output, error) from error
