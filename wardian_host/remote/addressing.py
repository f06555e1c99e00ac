"""Which machine a command line is for: `--remote NAME` first, WARDIAN_REMOTE, or `name@remote`.

Agent names cannot hold `@`, so `bob@devbox` is unambiguous where an agent is named: the
`--to` of send and ask, the agent of `ask AGENT`, and the agent of an `agent` subcommand.
A message's text is never read as an address.
"""

import re
from typing import NamedTuple

from wardian_core.errors import WardianError

ADDRESS = re.compile(r"^(?P<agent>[A-Za-z0-9_][A-Za-z0-9_-]*)@(?P<remote>[A-Za-z0-9_][A-Za-z0-9_.-]*)$")
GLOBAL_FLAG = "--remote"


class Target(NamedTuple):
    remote: str
    args: list[str]  # the command line for the remote machine, addresses made bare names


def target_of(args: list[str], environment_remote: str | None) -> Target | None:
    """The remote `args` are for and the command line to run there, or None: this machine."""
    remote, rest = _global_remote(args)
    remote = remote or (environment_remote or None)
    addressed = _addressed(rest)
    for position, address in addressed:
        if remote is not None and address.group("remote") != remote:
            raise WardianError(
                "usage",
                f"{rest[position]} names another machine than {remote}",
                "Address agents of one machine per command.",
                {"remote": remote, "address": rest[position]},
            )
        remote = address.group("remote")
        rest[position] = _bare(rest[position], address.group("agent"))
    return Target(remote, rest) if remote is not None else None


def _global_remote(args: list[str]) -> tuple[str | None, list[str]]:
    if args and args[0] == GLOBAL_FLAG:
        if len(args) < 2:
            raise WardianError("usage", "--remote needs a NAME", "Run `wardian --remote NAME COMMAND ...`.")
        return args[1], list(args[2:])
    if args and args[0].startswith(GLOBAL_FLAG + "="):
        return args[0].partition("=")[2], list(args[1:])
    return None, list(args)


def _addressed(args: list[str]) -> list[tuple[int, re.Match[str]]]:
    found = []
    for position in _agent_positions(args):
        text = args[position].partition("=")[2] if args[position].startswith("--to=") else args[position]
        match = ADDRESS.match(text)
        if match:
            found.append((position, match))
    return found


def _agent_positions(args: list[str]) -> list[int]:
    """Where an agent may be named in `args`: never after `--` (a spawned command's own words)."""
    words = args[: args.index("--")] if "--" in args else args
    positions = [i + 1 for i, arg in enumerate(words[:-1]) if arg == "--to"]
    positions += [i for i, arg in enumerate(words) if arg.startswith("--to=")]
    noun = words[0] if words else None
    if noun == "ask" and len(words) > 1:
        positions.append(2 if words[1] == "question" and len(words) > 2 else 1)
    if noun == "agent" and words[1:2] not in (["spawn"], ["run"]):
        positions += [i for i in range(1, len(words)) if not words[i].startswith("-")]
    return positions


def _bare(argument: str, agent: str) -> str:
    return f"--to={agent}" if argument.startswith("--to=") else agent
