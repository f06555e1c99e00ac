"""What projecting a provider home takes: skill links, the hook recorder and endpoint, the MCP
server entry, atomic writes, Wardian's own folders and the arguments naming them. Part of the
provider contract (see `wardian_core.provider`)."""

from wardian_core.atomic_files import write_atomically
from wardian_core.hook_endpoint import HookTarget, hook_target
from wardian_core.hook_recorder import (
    CLI_PID_FIELD,
    SessionRecord,
    install_recorder,
    ready_rule,
    session_records,
    write_if_changed,
)
from wardian_core.mcp_tools import SERVER_NAME, stdio_server
from wardian_core.paths import bin_dir, include_root_folders
from wardian_core.provider_homes import SKILLS_FOLDER, assigned_skills, include_args, link, link_skills
from wardian_core.worktrees.checkout import linked_worktree

__all__ = [
    "CLI_PID_FIELD",
    "SERVER_NAME",
    "SKILLS_FOLDER",
    "HookTarget",
    "SessionRecord",
    "assigned_skills",
    "bin_dir",
    "hook_target",
    "include_args",
    "include_root_folders",
    "install_recorder",
    "link",
    "link_skills",
    "linked_worktree",
    "ready_rule",
    "session_records",
    "stdio_server",
    "write_atomically",
    "write_if_changed",
]
