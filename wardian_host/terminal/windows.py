"""What the Windows path needs, kept here so the rest of the host stays free of it.

Not built yet (docs/platforms.md says what is missing and how it would be tested): a
ConPTY terminal through pywinpty behind `Terminal`, and a named-pipe control endpoint.
What is settled already:
- npm installs provider CLIs on Windows as `.cmd` shims, which CreateProcess cannot
  start by themselves: they run through `cmd /d /c` (`/d`: no AutoRun commands from the
  registry, which would type into the agent's terminal).
- every entry point that would need the host refuses with `not_supported`
  (`wardian_core.pty_backend.check_host_platform`).
"""

SHIM_SUFFIXES = (".cmd", ".bat")


def shim_argv(executable: str, args: list[str]) -> list[str]:
    """The argv that starts `executable` on Windows: a batch shim through cmd, anything else as is."""
    if executable.lower().endswith(SHIM_SUFFIXES):
        return ["cmd", "/d", "/c", executable, *args]
    return [executable, *args]
