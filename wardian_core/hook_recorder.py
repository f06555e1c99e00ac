"""The command a CLI's hooks run to hand Wardian their payloads: one JSON line per call.

Claude Code and Codex both run a command per hook event with the event's JSON on stdin.
Wardian installs the same small script for both, in the agent's folder, and points every
hook at it with the JSONL file the host follows (the provider's `approval_source`).
"""

import shlex
import sys
from pathlib import Path
from typing import NamedTuple

SCRIPT_NAME = "record_hook.py"
# How the recorder writes a SessionStart: compact JSON, so a byte search finds it.
SESSION_START = b'"hook_event_name":"SessionStart"'
# The recorder adds the pid of the process that ran the hook: the CLI itself, since its shell
# (`bash -c <command>`) execs a lone command. It tells the starts of a CLI that relaunches
# itself in the same terminal apart (Gemini CLI 0.61.0 after a trust answer), where the
# payloads (same session id, source `startup`) cannot. A recorder whose CLI exited before it
# looked names the process that adopted it (init or a subreaper, seen live as pid 1): one
# that started before the CLI.
CLI_PID_FIELD = "wardian_cli_pid"

# Appends the payload the CLI writes to stdin as one JSON line, in one write, so hooks that
# run at the same time cannot interleave their lines. A payload already on one line (Claude
# Code, Codex and Gemini CLI write them so) goes as it came: importing json (and re with it)
# was most of the recorder's start-up, paid by every hook. Only another shape is parsed. The
# CLI's pid (CLI_PID_FIELD) goes in before the closing brace.
RECORDER_SCRIPT = '''\
"""Written by Wardian: appends one hook payload (stdin) to the JSONL file in argv[1]."""
import os, sys
cli_pid = os.getppid()  # before the read: the CLI may exit once it wrote the payload
data = sys.stdin.buffer.read().strip()
if b"\\n" in data or not (data.startswith(b"{") and data.endswith(b"}")):
    import json
    try:
        record = json.loads(data)
    except ValueError:
        record = None
    if not isinstance(record, dict):
        record = {"hook_event_name": "unreadable", "raw": data.decode("utf-8", "replace")[:2000]}
    data = json.dumps(record, separators=(",", ":")).encode()
data = data.replace(b'"hook_event_name": "', b'"hook_event_name":"')
pid = b'"wardian_cli_pid":%d}' % cli_pid
data = data[:-1] + (pid if data == b"{}" else b"," + pid)
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
try:
    os.write(fd, data + b"\\n")
finally:
    os.close(fd)
'''


def hook_line(data: bytes) -> bytes:
    """A hook payload as one compact JSON line, as the recorder appends it (RECORDER_SCRIPT, which
    cannot import this: its start-up is every hook's cost)."""
    import json

    try:
        record = json.loads(data)
    except ValueError:
        record = {"hook_event_name": "unreadable", "raw": data.decode("utf-8", "replace")[:2000]}
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def write_if_changed(path: Path, text: str) -> None:
    """Rewrite `path` only when its text differs, so an unchanged file keeps its time stamp."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def install_recorder(directory: Path, log_file: Path, *, fresh_log: bool) -> str:
    """Write the script into `directory`; the shell command a hook runs to append to `log_file`.

    `fresh_log` (an interactive launch): empty the log first, since the host reads it from its start."""
    directory.mkdir(parents=True, exist_ok=True)
    if fresh_log:
        _start_log(log_file)
    script = directory / SCRIPT_NAME
    write_if_changed(script, RECORDER_SCRIPT)
    # -I -S: no site packages or user environment to load, so each hook costs a bare interpreter.
    return " ".join(shlex.quote(part) for part in (sys.executable, "-I", "-S", str(script), str(log_file)))


def _start_log(log_file: Path) -> None:
    """An empty log, readable by its owner only: a new launch must not replay the last one's events."""
    log_file.write_bytes(b"")
    log_file.chmod(0o600)


def session_starts(log_file: Path | None) -> int | None:
    """How many SessionStart records the hook log holds (a CLI that restarts itself in the same
    terminal fires one per start); None when there is no log (a replay of recorded bytes, where
    the screen alone decides)."""
    try:
        return log_file.read_bytes().count(SESSION_START) if log_file is not None else None
    except FileNotFoundError:
        return None
    except OSError:
        return 0


def session_started(log_file: Path | None) -> bool | None:
    """Whether the hook log holds a SessionStart; None when there is no log."""
    starts = session_starts(log_file)
    return None if starts is None else starts > 0


def ready_rule(log_file: Path | None, hookless_expired: bool, hookless_seconds: float) -> str | None:
    """The rule that makes a prompt on screen `ready`, or None while SessionStart is awaited.

    With a hook log, the prompt counts once the CLI's SessionStart hook fired, or alone once
    `hookless_seconds` passed without it (the user's settings can turn hooks off); without a
    log (a replay of recorded bytes) the screen alone decides."""
    started = session_started(log_file)
    if started is None:
        return "ready prompt"
    if started:
        return "ready prompt after hook SessionStart"
    if hookless_expired:
        return f"ready prompt, no SessionStart hook within {hookless_seconds:g} s"
    return None  # the hook's arrival asks for another look


class SessionRecord(NamedTuple):
    """A SessionStart or SessionEnd in a hook log."""

    event: str
    # The CLI process that fired it (CLI_PID_FIELD); None from a writer that cannot know it (the
    # host's HTTP endpoint) or a log of another Wardian.
    cli_pid: int | None


def session_records(log_file: Path | None) -> list[SessionRecord] | None:
    """The log's SessionStart and SessionEnd records in the order written; None when there is no
    log (a replay of recorded bytes)."""
    from wardian_core.parsing.jsonl import json_object

    if log_file is None:
        return None
    try:
        lines = log_file.read_bytes().splitlines()
    except FileNotFoundError:
        return None
    except OSError:
        return []
    records = []
    for record in filter(None, map(json_object, lines)):
        event, pid = record.get("hook_event_name"), record.get(CLI_PID_FIELD)
        if event in ("SessionStart", "SessionEnd"):
            records.append(SessionRecord(event, pid if type(pid) is int else None))
    return records
