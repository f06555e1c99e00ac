"""`wardian`: the one command for agents and the people watching them.

Start-up stays fast: this module imports click and the error table only; each
noun's module is imported when its command runs.
"""

import os
import sys

import click

from wardian_core.errors import WardianError
from wardian_core.version import __version__
from wardian_host.cli.lazy_group import LazyGroup

COMMANDS = {
    "agent": "wardian_host.cli.agent:agent",
    "host": "wardian_host.cli.host:host",
    "send": "wardian_host.cli.send:send",
    "ask": "wardian_host.cli.ask:ask",
    "reply": "wardian_host.cli.reply:reply",
    "inbox": "wardian_host.cli.inbox:inbox",
    "settings": "wardian_host.cli.settings:settings",
    "providers": "wardian_host.cli.providers:providers",
    "workflow": "wardian_host.cli.workflow:workflow",
    "usage": "wardian_host.cli.usage:usage",
    "web": "wardian_host.cli.web:web",
    "notify": "wardian_host.cli.notify:notify",
    "mcp": "wardian_host.cli.mcp:mcp",
    "remote-run": "wardian_host.cli.remote_run:remote_run",
    "tui": "wardian_host.tui.command:tui",
}


@click.group(cls=LazyGroup, lazy_commands=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="wardian")
def cli() -> None:
    """Run AI coding CLIs as agents and talk to them. JSON on stdout, errors as JSON on stderr."""
    from wardian_core import paths

    # Before any command reads or writes the home: one of another user is refused, not used.
    paths.check_owner(paths.wardian_home())


def _usage_error(exc: click.UsageError) -> WardianError:
    command_path = exc.ctx.command_path if exc.ctx else "wardian"
    return WardianError(
        "usage",
        exc.format_message(),
        f"Run `{command_path} --help` for the accepted arguments.",
        {"command": command_path},
    )


def _exit(code: int) -> None:
    """Leave without interpreter teardown: its ~10 ms would land on every command,
    and on the latency of a waiting `agent wait`. Nothing needs finalising by then."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        code = code or 1
    os._exit(code)


def _permission_denied(exc: PermissionError) -> WardianError:
    """What a command met that this user may not read or write, as an envelope, not a traceback."""
    return WardianError(
        "unauthorized",
        f"this user may not use {exc.filename or 'a file of the home'}: {exc.strerror or exc}",
        "Point WARDIAN_HOME at a home of yours, or fix the permissions of that file.",
        {"path": exc.filename, "uid": os.getuid()},
    )


def _fail(error: WardianError) -> None:
    sys.stderr.write(error.to_json() + "\n")
    _exit(error.exit_code)


def _names_a_remote(args: list[str]) -> bool:
    """A cheap look at the words: only a command that may name another machine imports that code."""
    leading_flag = bool(args) and args[0].startswith("--remote")
    return leading_flag or bool(os.environ.get("WARDIAN_REMOTE")) or any("@" in arg for arg in args)


def _run_here(args: list[str]) -> object:
    return cli.main(args=args, prog_name="wardian", standalone_mode=False)


def _run(args: list[str]) -> object:
    if not _names_a_remote(args):
        return _run_here(args)
    from wardian_host.remote.dispatch import dispatch

    return dispatch(args, _run_here)


def main(argv: list[str] | None = None) -> None:
    try:
        result = _run(sys.argv[1:] if argv is None else list(argv))
    except WardianError as error:
        _fail(error)
    except click.UsageError as exc:
        _fail(_usage_error(exc))
    except click.ClickException as exc:
        _fail(WardianError("generic", exc.format_message()))
    except click.Abort:
        sys.stderr.write("\n")
        _exit(130)
    except BrokenPipeError:
        _exit(1)
    except PermissionError as exc:
        _fail(_permission_denied(exc))
    _exit(result if isinstance(result, int) else 0)
