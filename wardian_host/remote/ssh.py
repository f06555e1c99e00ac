"""Running one `wardian` command on a remote machine through the user's own `ssh`, and telling
ssh's own failures (exit 255) from the remote `wardian`'s answers."""

import json
import shlex
import subprocess
import sys
from typing import Any, NamedTuple

from wardian_core.errors import WardianError
from wardian_host.remote.master import check_master
from wardian_host.remote.options import Remote, ssh_options
from wardian_host.remote.protocol import PROTOCOL, RUNNER, mismatch_named
from wardian_host.remote.settings import RemoteSettings

SSH_FAILED = 255  # ssh's own exit status for a connection or protocol failure
NOT_FOUND_ON_REMOTE = 127  # the remote shell found no such command


class Ran(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def ssh_argv(remote: Remote, args: list[str], terminal: bool = False) -> list[str]:
    """The `ssh` command running `wardian remote-run … -- args` on `remote`."""
    tty = "-t" if terminal else "-T"
    return [*ssh_options(remote), tty, remote.settings.ssh, "--", remote_command(remote.settings, args)]


def remote_command(settings: RemoteSettings, args: list[str]) -> str:
    """The line the remote's login shell runs; `command` is the user's own shell text, the rest quoted."""
    home = f"WARDIAN_HOME={shlex.quote(settings.home)} " if settings.home else ""
    forwarded = shlex.join([RUNNER, "--protocol", str(PROTOCOL), "--", *args])
    return f"{home}exec {settings.command} {forwarded}"


def run_captured(remote: Remote, args: list[str], timeout: float | None = None) -> Ran:
    """Run and keep both streams (a roster read); ssh failures are raised, the remote's answer returned."""
    check_master(remote)
    try:
        done = subprocess.run(
            ssh_argv(remote, args), capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise unreachable(remote, f"no answer within {timeout:g} s", None) from None
    except FileNotFoundError:
        raise no_ssh() from None
    return checked(remote, Ran(done.returncode, done.stdout, done.stderr))


def run_passed_through(remote: Remote, args: list[str], terminal: bool) -> int:
    """Run with this process's stdin and stdout (a terminal for `attach`); stderr is read, so an
    ssh failure becomes an envelope, and the remote's own envelope is written as it came."""
    check_master(remote)
    try:
        if terminal:
            return checked(remote, Ran(subprocess.call(ssh_argv(remote, args, terminal=True)), "", "")).returncode
        done = subprocess.run(ssh_argv(remote, args), stderr=subprocess.PIPE, text=True)
    except FileNotFoundError:
        raise no_ssh() from None
    ran = checked(remote, Ran(done.returncode, "", done.stderr))
    sys.stderr.write(ran.stderr)
    return ran.returncode


def checked(remote: Remote, ran: Ran) -> Ran:
    """`ran` when the remote's `wardian` answered (success or its own error envelope), else the
    failure named for this remote."""
    if ran.returncode == SSH_FAILED or ran.returncode < 0:
        raise unreachable(remote, _last_line(ran.stderr) or f"ssh ended with {ran.returncode}", ran.returncode)
    if ran.returncode == NOT_FOUND_ON_REMOTE:
        raise WardianError(
            "remote_unreachable",
            f"remote {remote.name} has no `{remote.settings.command}`: {_last_line(ran.stderr)}",
            f"Install Wardian on {remote.name}, or set remotes.{remote.name}.command to its path in settings.toml.",
            {"remote": remote.name, "ssh": remote.settings.ssh},
        )
    envelope = _envelope(ran.stderr)
    if envelope is not None:
        _raise_on_mismatch(remote, envelope)
    return ran


def answer_of(remote: Remote, ran: Ran) -> dict[str, Any]:
    """The remote command's JSON answer (`ran` as `checked` returned it); its error envelope
    raised as the error it names."""
    if ran.returncode == 0:
        answer: dict[str, Any] = json.loads(ran.stdout) if ran.stdout.strip() else {}
        return answer
    envelope = _envelope(ran.stderr)
    if envelope is not None and isinstance(envelope.get("error"), dict):
        raise WardianError.from_envelope(envelope)
    raise WardianError(
        "request_failed",
        f"remote {remote.name}: `wardian` ended with {ran.returncode} and no answer: {_last_line(ran.stderr)}",
        f"Run the command by hand with `wardian --remote {remote.name} ...` to see what it says.",
        {"remote": remote.name, "exit_code": ran.returncode},
    )


def _raise_on_mismatch(remote: Remote, envelope: dict[str, Any]) -> None:
    error = envelope.get("error") or {}
    details = error.get("details") or {}
    if error.get("code") == "protocol_mismatch" and "remote_protocol" in details:
        raise mismatch_named(
            remote.name, remote.settings.ssh, details["remote_protocol"], str(details.get("remote_version"))
        )
    # A Wardian from before remote protocols knows no `remote-run` command: click names it.
    if error.get("code") == "usage" and RUNNER in str(error.get("message")):
        raise mismatch_named(remote.name, remote.settings.ssh, None, "without remote support")


def _envelope(stderr: str) -> dict[str, Any] | None:
    text = stderr.strip()
    if not text.startswith("{"):
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def unreachable(remote: Remote, why: str, returncode: int | None) -> WardianError:
    return WardianError(
        "remote_unreachable",
        f"remote {remote.name} ({remote.settings.ssh}) did not answer over ssh: {why}",
        f"Check the link with `ssh {remote.settings.ssh} true`; a stale ControlMaster is closed with "
        f"`ssh -O exit {remote.settings.ssh}`.",
        {"remote": remote.name, "ssh": remote.settings.ssh, "ssh_exit": returncode},
    )


def no_ssh() -> WardianError:
    return WardianError(
        "remote_unreachable",
        "no `ssh` command on this machine",
        "Install OpenSSH's client (Debian: `apt-get install openssh-client`).",
    )
