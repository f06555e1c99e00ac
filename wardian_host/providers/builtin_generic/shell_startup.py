"""Shell integration for bash and zsh agents: their start-up runs the user's files, then
adds the marks (OSC 133) that tell the parser exactly when a command runs and ends.

bash gets a per-agent `--rcfile` (it sources ~/.bashrc); zsh a per-agent ZDOTDIR whose
files source the user's. A shell given arguments that change what it reads at start-up
(`-c`, a script, `--norc`, `--login` for bash, ...) runs untouched, as does any shell of
an agent with the provider setting `shell_integration=false`.
"""

import os
from pathlib import Path
from typing import Literal

from wardian_core import hookimpl
from wardian_core.atomic_files import make_folders, replace_file
from wardian_core.provider_models import HomePlan, SpawnContext
from wardian_host.providers.builtin_generic.shell_scripts import BASHRC, ZSH_FILES

ShellName = Literal["bash", "zsh"]

# Arguments with which the shell is still interactive and reads the start-up files extended here.
_PLAIN_ARGUMENTS: dict[str, frozenset[str]] = {
    "bash": frozenset({"-i", "--noprofile", "--noediting"}),
    "zsh": frozenset({"-i", "--interactive", "-l", "--login"}),
}


def integrated_shell(ctx: SpawnContext) -> ShellName | None:
    """The shell whose start-up this launch extends, if any."""
    if ctx.mode != "interactive" or ctx.launch.settings.get("shell_integration") is False:
        return None
    if not ctx.launch.extra_args:
        return None
    command, *arguments = ctx.launch.extra_args
    name = Path(command).name
    if name == "bash" and set(arguments) <= _PLAIN_ARGUMENTS["bash"]:
        return "bash"
    if name == "zsh" and set(arguments) <= _PLAIN_ARGUMENTS["zsh"]:
        return "zsh"
    return None


def _startup_dir(ctx: SpawnContext, shell: ShellName) -> Path:
    return ctx.agent_dir / "shell" / shell


@hookimpl(specname="prepare_home")
def write_startup(ctx: SpawnContext) -> HomePlan:
    """Write this launch's start-up files; the environment that makes the shell read them."""
    shell = integrated_shell(ctx)
    if shell is None:
        return HomePlan()
    # Replaced, never written through: a link planted in the agent's folder must not aim the write.
    directory = make_folders(ctx.agent_dir, "shell", shell)
    if shell == "bash":
        replace_file(directory / "bashrc", BASHRC)
        return HomePlan()
    for name, text in ZSH_FILES.items():
        replace_file(directory / name, text)
    env = {"ZDOTDIR": str(directory)}
    # Agents inherit the host's environment: a ZDOTDIR the user set there is theirs to keep.
    user_zdotdir = os.environ.get("ZDOTDIR")
    if user_zdotdir:
        env["WARDIAN_USER_ZDOTDIR"] = user_zdotdir
    return HomePlan(env=env)


def startup_argv(ctx: SpawnContext) -> list[str]:
    """The command given after `--`, with what makes bash read its per-agent rcfile."""
    command = list(ctx.launch.extra_args)
    if integrated_shell(ctx) == "bash":
        # Long options must come before bash's single-letter ones.
        return [command[0], "--rcfile", str(_startup_dir(ctx, "bash") / "bashrc"), *command[1:]]
    return command
