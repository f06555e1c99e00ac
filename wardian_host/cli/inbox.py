"""`wardian inbox`: what needs a person, most urgent first, each with the command that answers it."""

import json
import sys
import time
from typing import Any

import click

from wardian_core.errors import WardianError
from wardian_core.inbox import Inbox, InboxEntry
from wardian_host.answers.inbox import RemoteInboxes, changes, inbox_answer, inbox_envelope
from wardian_host.cli.render import write_json

# How often --follow asks again: a person's queue, not a stream of output.
FOLLOW_SECONDS = 1.0


@click.command("inbox")
@click.option("--unseen", is_flag=True, help="Also the finished turns nobody has looked at yet.")
@click.option("--local", "local_only", is_flag=True, help="Only this machine: no remote is asked.")
@click.option("--pretty", is_flag=True, help="Aligned text for people.")
@click.option("--follow", is_flag=True, help="Stream one JSON line per change until interrupted.")
@click.option("--seen", "seen", metavar="NAME-OR-UUID", help="Mark the agent's finished turn as looked at.")
def inbox(unseen: bool, local_only: bool, pretty: bool, follow: bool, seen: str | None) -> None:
    """Agents at a dialog, approvals and asks waiting for a person, agents in error (and with
    --unseen finished turns), across every configured remote unless --local."""
    if seen is not None:
        from wardian_host.answers.connection import request

        write_json({"schema": _schema()} | request("inbox.seen", {"target": seen}))
        return
    if pretty and follow:
        raise WardianError("usage", "--pretty cannot be combined with --follow", "Follow JSON lines, or drop --follow.")
    remotes = None if local_only else _remote_reader()
    if follow:
        _follow(unseen, remotes)
        return
    answer = inbox_answer(unseen, remotes)
    if pretty:
        sys.stdout.write(pretty_inbox(answer) + "\n")
    else:
        write_json(inbox_envelope(answer))


def _schema() -> int:
    from wardian_core.errors import SCHEMA_VERSION

    return SCHEMA_VERSION


def _remote_reader() -> RemoteInboxes:
    from wardian_host.remote.inboxes import remote_inboxes

    return remote_inboxes


def _follow(unseen: bool, remotes: RemoteInboxes | None) -> None:
    """Every entry at first as `added`, then each change as it is seen; a round that fails
    (the host restarting) is told once and asked again."""
    before: Inbox | None = None
    failed: str | None = None
    while True:
        try:
            after = inbox_answer(unseen, remotes)
        except WardianError as error:
            if error.code != failed:
                _print({"change": "failed", "error": error.envelope()["error"]})
            failed = error.code
        else:
            failed = None
            for item in changes(before, after):
                _print(item)
            before = after
        time.sleep(FOLLOW_SECONDS)


def _print(item: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"schema": _schema()} | item) + "\n")
    sys.stdout.flush()


def pretty_inbox(answer: Inbox) -> str:
    lines = [line for entry in answer.entries for line in _pretty_entry(entry)] or ["nothing needs you"]
    for machine in answer.machines:
        if not machine.reachable or machine.error:
            why = (machine.error or {}).get("message", "")
            lines.append(f"machine {machine.machine}: {'unreachable' if not machine.reachable else 'failed'}: {why}")
    if answer.notice:
        lines.append(f"note: {answer.notice.get('message', '')}")
    return "\n".join(lines)


def _pretty_entry(entry: InboxEntry) -> list[str]:
    where = f" [{entry.machine}]" if entry.machine != "local" else ""
    head = f"{entry.kind.upper():<12} {entry.summary}{where}"
    shown = [head, *(f"{'':<12}   | {line}" for line in entry.last_lines)]
    shown += [f"{'':<12} {choice.label:>8}: {choice.command}" for choice in entry.choices]
    return shown
