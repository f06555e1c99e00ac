"""`wardian agent watch`: what an agent printed and how its status moved, since a cursor."""

import json
import sys
from collections.abc import Generator, Iterator
from typing import Any

import click

from wardian_core.durations import parse_duration
from wardian_core.errors import WardianError
from wardian_host.answers.connection import connect
from wardian_host.answers.watching import until_params, watch_answer
from wardian_host.cli.render import write_json


@click.command("watch")
@click.argument("target", metavar="NAME-OR-UUID")
@click.option("--since", type=click.IntRange(min=0), metavar="CURSOR", help="Output after this cursor.")
@click.option("--until", "until_text", metavar="output:TEXT|status:S", help="Wait for new output or a status.")
@click.option("--timeout", "timeout_text", metavar="DUR", help="Give up waiting after DUR.")
@click.option("--follow", is_flag=True, help="Stream JSON lines until interrupted.")
@click.option("--raw", is_flag=True, help="Keep terminal escape sequences.")
def watch(
    target: str, since: int | None, until_text: str | None, timeout_text: str | None, follow: bool, raw: bool
) -> None:
    """Output (ANSI stripped) and status events since CURSOR, and the next cursor."""
    timeout = parse_duration(timeout_text) if timeout_text is not None else None
    params = {"target": target, "since": since, "timeout": timeout, "follow": follow, "raw": raw} | until_params(
        until_text
    )
    if not follow:
        write_json(watch_answer(params))
        return
    follow_across_restarts(params)


def follow_across_restarts(params: dict[str, Any]) -> None:
    """`--follow`: stream until the host ends it. A host that goes away is waited for and the
    stream asked again from the last cursor printed (absolute: the same in the next host), so
    no output is lost or printed twice; events of the time no host ran are not replayed."""
    from wardian_core.control.client import lost_host
    from wardian_host.answers.host_return import await_next_host

    lost = False
    while True:
        try:
            with connect() as client:
                for item in _streamed(client.exchange("agent.watch", params, None)):
                    _print(item)
                    params = params | {"since": _reached(item, params["since"])}
                return
        except WardianError as error:
            if lost and error.code == "cursor_expired":
                # What the agent printed while no host ran outgrew the next host's buffer: told
                # as a stream that fell behind is, and followed on from the oldest byte kept.
                params = params | {"since": _skipped(error)}
                continue
            # Once a host went away, none answering is the next one still to come (host_return).
            if not (lost_host(error) or (lost and error.code == "app_not_running")):
                raise
        lost = True
        await_next_host(None)


def _print(item: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(item) + "\n")
    sys.stdout.flush()


def _skipped(expired: WardianError) -> int:
    """Print the `lagged` item a follower gets for output dropped before it read it; its new cursor."""
    missed_from, oldest = int(expired.details["since"]), int(expired.details["oldest_cursor"])
    lagged = {"cursor": oldest, "missed_from": missed_from, "dropped_bytes": oldest - missed_from, "dropped_events": 0}
    _print({"lagged": lagged})
    return oldest


def _reached(item: dict[str, Any], cursor: int | None) -> int | None:
    """The cursor the client has read up to once it printed `item`."""
    if "cursor" in item:
        return int(item["cursor"])
    return int(item["lagged"]["cursor"]) if "lagged" in item else cursor


def _streamed(exchange: Generator[dict[str, Any], None, Any]) -> Iterator[dict[str, Any]]:
    while True:
        try:
            yield next(exchange)
        except StopIteration:
            return
