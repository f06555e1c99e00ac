"""What lets a command the agent runs through its shell tool call `wardian` (the host's socket).

Two things stand in the way in Codex 0.169 on Linux, and the projection answers each:

- PATH. Codex runs each command after sourcing a snapshot of the user's login shell, and a
  login profile may reset PATH (Debian's /etc/profile does), dropping `<home>/bin` that
  the host put first. A PATH in `shell_environment_policy.set` is restored after the
  snapshot, so Wardian sets it there: its own bin folder before the PATH the command
  would have had (the user's own `set.PATH`, else the environment's).
- The sandbox. `workspace-write` and `read-only` deny `connect()` to every socket, Unix
  ones too (seccomp), whatever the writable roots; only full network access lifts that,
  for every command. Instead an exec-policy rule allows the `wardian` command itself, so
  Codex runs that one program outside its sandbox, without asking. Everything else stays
  sandboxed: a pipeline such as `echo x | wardian reply ...` is sandboxed as a whole
  (its `echo` is not allowed by a rule), fails to connect, and Codex asks the user
  whether to run it again outside the sandbox. A `forbidden` or `prompt` rule for
  `wardian` from the administrator's requirements still wins over this `allow`.
"""

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wardian_core.provider import SpawnContext
from wardian_core.provider.home import bin_dir

RULES_FILE = Path("rules") / "wardian.rules"
RULES = (
    "# Written by Wardian at each launch: the agent's own `wardian` command (its launcher\n"
    "# under WARDIAN_HOME/bin) runs outside Codex's sandbox, so it can reach the host's socket.\n"
    'prefix_rule(pattern = ["wardian"], decision = "allow", justification = "Wardian\'s own CLI")\n'
)


def shell_path(ctx: SpawnContext, user_config: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """Wardian's bin folder first, then the PATH the user's config or environment gives."""
    policy = user_config.get("shell_environment_policy")
    user_set = policy.get("set") if isinstance(policy, dict) else None
    base = user_set.get("PATH") if isinstance(user_set, dict) else None
    base = base if isinstance(base, str) else env.get("PATH", os.defpath)
    wardian_bin = str(bin_dir(ctx.wardian_home))
    rest = [folder for folder in base.split(os.pathsep) if folder and folder != wardian_bin]
    return os.pathsep.join([wardian_bin, *rest])


def config_entries(ctx: SpawnContext, user_config: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    """Also the variables that name the agent's home and session: a user's stricter
    `shell_environment_policy.inherit` ("core", "none") would drop them, and the CLI
    would then talk to another home's host."""
    variables = {
        "PATH": shell_path(ctx, user_config, env),
        "WARDIAN_HOME": str(ctx.wardian_home),
        "WARDIAN_SESSION_ID": ctx.agent_uuid,
    }
    return {"shell_environment_policy": {"set": variables}}


def write_rules(codex_home: Path) -> None:
    """`rules/` is read per Codex home; the user's own rules files are not projected here."""
    target = codex_home / RULES_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.is_file() or target.read_text(encoding="utf-8") != RULES:
        target.write_text(RULES, encoding="utf-8")
