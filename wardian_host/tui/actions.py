"""What a key does to an agent, through the same answers the `wardian` commands print: no
logic of the host's own here. Each function blocks (the app runs it in a worker thread) and
returns a line for the person; a refusal comes back as the command's WardianError.

An agent on another machine is acted on as `wardian … NAME@MACHINE` would act on it: the
command itself runs, and its remote dispatch carries it there.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

from wardian_core.errors import WardianError
from wardian_host.tui.roster import RosterRow

# An approval's wait for the dialog to close, as `send --approval … --timeout 20s` would.
APPROVAL_SECONDS = 20.0
LIFECYCLE_VERBS = ("pause", "resume", "restart", "kill")


def wardian_argv() -> list[str]:
    """The `wardian` this dashboard runs as (its venv's), else the one on PATH."""
    beside = shutil.which("wardian", path=str(Path(sys.executable).parent))
    return [beside or shutil.which("wardian") or "wardian"]


def attach_argv(row: RosterRow) -> list[str]:
    """What Enter runs in the terminal the dashboard steps out of."""
    return [*wardian_argv(), "agent", "attach", row.key]


def _remote(args: list[str]) -> dict[str, Any]:
    """A command for an agent of another machine, run as typed; its JSON, or its error."""
    ran = subprocess.run([*wardian_argv(), *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if ran.returncode != 0:
        try:
            raise WardianError.from_envelope(json.loads(ran.stderr))
        except ValueError:
            raise WardianError("generic", ran.stderr.strip() or f"exit {ran.returncode}") from None
    answer: dict[str, Any] = json.loads(ran.stdout or "{}")
    return answer


def lifecycle(verb: str, row: RosterRow) -> str:
    """`wardian agent pause|resume|restart|kill NAME`."""
    if verb not in LIFECYCLE_VERBS:
        raise ValueError(verb)
    if row.machine != "local":
        answer = _remote(["agent", verb, row.key])
    else:
        from wardian_host.answers.lifecycle import target_answer

        answer = target_answer(f"agent.{verb}", row.name)
    return f"{verb}: {row.key} is {answer['agent']['status']}"


def send_line(row: RosterRow, text: str) -> str:
    """`wardian send TEXT --to NAME`."""
    if row.machine != "local":
        _remote(["send", text, "--to", row.key])
    else:
        from wardian_host.answers.send import SendOrder, send_answer

        send_answer(SendOrder(to=row.name, text=text))
    return f"sent to {row.key}"


def approve(row: RosterRow, answer: str) -> str:
    """`wardian send --approval accept|reject --to NAME --timeout 20s`: the provider's own keys."""
    if row.machine != "local":
        _remote(["send", "--approval", answer, "--to", row.key, "--timeout", f"{APPROVAL_SECONDS:g}s"])
    else:
        from wardian_host.answers.send import SendOrder, send_answer

        send_answer(SendOrder(to=row.name, text=None, approval=answer, timeout=APPROVAL_SECONDS))
    return f"{answer}ed {row.key}'s dialog"


def reply(request_id: str, body: str, status: str = "done") -> str:
    """`wardian reply ID --status done` with `body`."""
    from wardian_host.answers.reply import reply_answer

    reply_answer(request_id, body, status)
    return f"replied to {request_id}"


class SpawnForm(NamedTuple):
    """The short form's fields: what `agent spawn` needs, and a command for `generic`."""

    provider: str
    class_name: str
    name: str = ""
    workspace: str = ""
    command: str = ""


def spawn(form: SpawnForm) -> str:
    """`wardian agent spawn --provider P --class C [--name N] [--workspace W] [-- COMMAND]`,
    starting a host first as the command does."""
    import shlex

    from wardian_host.answers.lifecycle import SpawnOrder, spawn_request, spawned
    from wardian_host.cli.live import ensure_host

    if not form.provider.strip() or not form.class_name.strip():
        raise WardianError("usage", "a new agent needs a provider and a class", "Fill in both fields.")
    order = SpawnOrder(
        provider=form.provider.strip(),
        class_name=form.class_name.strip(),
        name=form.name.strip() or None,
        workspace=form.workspace.strip() or None,
        args=tuple(shlex.split(form.command)),
    )
    params = spawn_request(order)
    ensure_host()
    answer = spawned(params)
    return f"spawned {answer['agent']['name']}"


def run_command(command: str) -> str:
    """An inbox entry's own answer (a workflow approval's), run as the person would type it."""
    import shlex

    words = shlex.split(command)
    if not words or words[0] != "wardian":
        raise WardianError("usage", f"not a wardian command: {command}", "Run it yourself in a shell.")
    _remote(words[1:])
    return f"ran {command}"
