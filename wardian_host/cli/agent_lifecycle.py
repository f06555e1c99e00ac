"""`wardian agent spawn|kill|pause|resume|restart|clear|update|clone|rename|delete|wait`:
lifecycle through the host."""

import click

from wardian_core.durations import parse_duration
from wardian_core.errors import SCHEMA_VERSION, WardianError
from wardian_core.fields import DEFAULT_FIELDS, live_agent, select, to_record
from wardian_core.identity import resolve_workspace
from wardian_core.statuses import STATUSES
from wardian_host.answers.connection import after_waiting, lifecycle_timeout
from wardian_host.answers.key_values import setting_pairs
from wardian_host.answers.lifecycle import (
    SpawnOrder,
    made_envelope,
    spawn_request,
    spawned,
    target_answer,
    wait_answer,
    worktree_request,
)
from wardian_host.cli.live import emit, emit_live_agent, ensure_host, request
from wardian_host.cli.option_checks import class_option, not_empty
from wardian_host.cli.render import write_json
from wardian_host.cli.worktree_options import settle_trust, trust_repo_flag, worktree_options

PERSISTENCES = ("default", "fresh", "resume")


@click.command("spawn", context_settings={"ignore_unknown_options": False})
@click.option("--provider", required=True, callback=not_empty, help="Provider plugin (see `wardian providers list`).")
@click.option(
    "--class", "class_name", required=True, callback=class_option, help="The agent's class, e.g. Coder or Reviewer."
)
@click.option("--name", help="A unique name; generated as <class>-<hex> when omitted.")
@click.option("--workspace", type=click.Path(file_okay=False), help="Working directory (default: here).")
@click.option("--description", help="Free text shown with the agent.")
@click.option("--model", help="The model the provider launches with (default: the provider's own).")
@click.option("--arg", "args", multiple=True, metavar="ARG", help="An extra provider argument (repeatable).")
@click.option(
    "--include-dir",
    "include_dirs",
    multiple=True,
    metavar="DIR",
    help="A directory the provider may read instructions and skills from (repeatable).",
)
@click.option(
    "--session-persistence",
    type=click.Choice(PERSISTENCES),
    help="Relaunches resume the provider session or start fresh; default: sessions.regular.",
)
@click.option(
    "--provider-setting",
    "provider_settings",
    multiple=True,
    metavar="NAME=VALUE",
    help="A setting the provider declares (see `wardian providers show`), for this agent (repeatable).",
)
@click.option("--no-recording", is_flag=True, help="Do not record its terminal output (docs/recordings.md).")
@click.option("--budget", metavar="tokens=N,usd=X,minutes=M", help="Its own budget, before settings.toml's [budgets].")
@worktree_options
@click.argument("extra_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- EXTRA ARGS]")
def spawn(
    provider: str,
    class_name: str,
    name: str | None,
    workspace: str | None,
    description: str | None,
    model: str | None,
    args: tuple[str, ...],
    include_dirs: tuple[str, ...],
    session_persistence: str | None,
    provider_settings: tuple[str, ...],
    worktree: str | None,
    base: str | None,
    no_recording: bool,
    budget: str | None,
    extra_args: tuple[str, ...],
) -> None:
    """Start a new agent (and the host, if none runs)."""
    # After `--` first: for `generic` that is the command, and --arg adds to it.
    given = (name, workspace, description, model, (*extra_args, *args), include_dirs, session_persistence)
    chosen = (provider_settings, worktree, base, trust_repo_flag())
    params = spawn_request(SpawnOrder(provider, class_name, *given, *chosen, recording=not no_recording, budget=budget))
    settle_trust(worktree)
    ensure_host()  # only the CLI starts a host: an MCP tool is answered inside one
    write_json(spawned(params))


def _target_command(name: str, kind: str, summary: str) -> click.Command:
    @click.command(name, help=summary)
    @click.argument("target", metavar="NAME-OR-UUID")
    def command(target: str) -> None:
        write_json(target_answer(kind, target))

    return command


kill = _target_command("kill", "agent.kill", "End an agent's whole process tree (SIGTERM, then SIGKILL).")
pause = _target_command("pause", "agent.pause", "Stop an agent's provider, keeping its provider session.")
resume = _target_command(
    "resume", "agent.resume", "Relaunch a stopped agent; its session persistence decides resume or fresh."
)
restart = _target_command(
    "restart", "agent.restart", "Stop an agent if it runs and launch it again with its stored configuration."
)
clear = _target_command(
    "clear", "agent.clear", "Relaunch an agent in a new provider session, its output emptied (same id and name)."
)


@click.command("update")
@click.argument("target", metavar="NAME-OR-UUID")
@click.option("--model", help='Launch with this model from now on; "" goes back to the provider\'s default.')
@click.option("--arg", "args", multiple=True, metavar="ARG", help="Append an extra provider argument (repeatable).")
@click.option("--clear-args", is_flag=True, help="Drop the stored extra arguments (before any --arg).")
@click.option("--include-dir", "include_dirs", multiple=True, metavar="DIR", help="Add an include directory.")
@click.option("--clear-include-dirs", is_flag=True, help="Drop the stored include dirs (before any --include-dir).")
@click.option("--session-persistence", type=click.Choice(PERSISTENCES), help="default, fresh or resume.")
@click.option(
    "--provider-setting",
    "provider_settings",
    multiple=True,
    metavar="NAME=VALUE",
    help="Set a provider setting for this agent (repeatable; see `wardian providers show`).",
)
@click.option("--clear-provider-settings", is_flag=True, help="Drop the agent's own provider settings first.")
@click.option("--description", help='New description ("" removes it); needs no restart.')
def update(
    target: str,
    model: str | None,
    args: tuple[str, ...],
    clear_args: bool,
    include_dirs: tuple[str, ...],
    clear_include_dirs: bool,
    session_persistence: str | None,
    provider_settings: tuple[str, ...],
    clear_provider_settings: bool,
    description: str | None,
) -> None:
    """Change an agent's stored launch configuration; says whether a restart is needed to apply it."""
    params = {
        "target": target,
        "model": model,
        "args": list(args),
        "clear_args": clear_args,
        "include_dirs": [resolve_workspace(directory) for directory in include_dirs],
        "clear_include_dirs": clear_include_dirs,
        "session_persistence": session_persistence,
        "settings": setting_pairs(provider_settings, "--provider-setting"),
        "clear_settings": clear_provider_settings,
        "description": description,
    }
    answer = request("agent.update", params, timeout=lifecycle_timeout())
    record = select(to_record(answer["agent"], "live"), (*DEFAULT_FIELDS, "description", "launch_config"))
    write_json({"schema": SCHEMA_VERSION, "agent": record, "restart_required": answer["restart_required"]})


@click.command("clone")
@click.argument("target", metavar="NAME-OR-UUID")
@click.option("--name", help="Name of the copy (default: <source>-copy, -copy-2, ...).")
@worktree_options
def clone(target: str, name: str | None, worktree: str | None, base: str | None) -> None:
    """Start a new agent with the same provider, class, workspace and settings (in a new worktree
    with --worktree; else in the source's workspace)."""
    params = {"target": target, "name": name, "worktree": worktree_request(worktree, base, trust_repo_flag())}
    settle_trust(worktree)
    timeout = None if worktree is not None else lifecycle_timeout()
    write_json(made_envelope(request("agent.clone", params, timeout=timeout)))


@click.command("rename")
@click.argument("target", metavar="NAME-OR-UUID")
@click.argument("new_name", metavar="NEW-NAME")
def rename(target: str, new_name: str) -> None:
    """Give an agent a new unique name (its uuid and folder stay)."""
    emit_live_agent(request("agent.rename", {"target": target, "new_name": new_name}))


@click.command("delete")
@click.argument("target", metavar="NAME-OR-UUID")
@click.option("--confirm", required=True, metavar="EXACT-NAME", help="Repeat the agent's exact name.")
@click.option("--force", is_flag=True, help="Stop the agent first if it runs.")
@click.option("--keep-worktree", is_flag=True, help="Leave its worktree in place even when it is the last agent.")
def delete(target: str, confirm: str, force: bool, keep_worktree: bool) -> None:
    """Remove an agent, its folder and its events (never its workspace); its worktree too when it
    is the last agent there and nothing would be lost (else refused: see docs/worktrees.md)."""
    params = {"target": target, "confirm": confirm, "force": force, "keep_worktree": keep_worktree}
    deleted = request("agent.delete", params, timeout=None if not keep_worktree else lifecycle_timeout())
    removed = {"worktree_removed": deleted["worktree_removed"]} if "worktree_removed" in deleted else {}
    write_json({"schema": SCHEMA_VERSION, "agent": live_agent(deleted), "deleted": True} | removed)


@click.command("wait")
@click.argument("target", metavar="NAME-OR-UUID")
@click.option("--until", "until", required=True, type=click.Choice(STATUSES), help="The status to wait for.")
@click.option("--timeout", "timeout_text", metavar="DUR", help="Give up after DUR (500ms, 30s, 10m; bare = seconds).")
@click.option("--next", "next_change", is_flag=True, help="Wait for the next arrival even if it has the status now.")
def wait(target: str, until: str, timeout_text: str | None, next_change: bool) -> None:
    """Block until an agent has a status (woken by the host, no polling)."""
    timeout = parse_duration(timeout_text) if timeout_text is not None else None
    write_json(wait_answer(target, until, timeout, next_change))


@click.command("run")
@click.argument("target", metavar="NAME-OR-UUID")
@click.argument("prompt")
@click.option("--resume", is_flag=True, help="Continue the agent's provider session.")
@click.option(
    "--timeout", "timeout_text", default="10m", show_default=True, metavar="DUR", help="End the run after DUR."
)
def run(target: str, prompt: str, resume: bool, timeout_text: str) -> None:
    """Run the agent's provider once, headless, with PROMPT; print its events and final status."""
    timeout = parse_duration(timeout_text)
    params = {"target": target, "prompt": prompt, "resume": resume, "timeout": timeout}
    result = request("agent.run", params, timeout=after_waiting(timeout))
    if result["status"] == "error":
        raise WardianError(
            "request_failed",
            f"the headless run of {target} ended in error",
            "See details.timeline and details.events for what the provider reported.",
            result,
        )
    emit("run", result)
