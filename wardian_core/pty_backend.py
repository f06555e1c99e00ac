"""Which means the host uses to run agents: Linux's own, or only what every POSIX system has.

- `linux`: exits learned through a pidfd, files followed through inotify, a caller's
  process held by a pidfd, agents started through util-linux `setsid --ctty` when present.
- `ptyprocess`: the portable POSIX backend (macOS, the BSDs): exits learned from SIGCHLD,
  files followed by bounded polling, a caller's process checked by its start time, agents
  started through a small Python trampoline. The name stays that of the package it was
  planned on, a value users already set; docs/platforms.md says why it does not fork
  through the ptyprocess package.

`WARDIAN_PTY_BACKEND=linux|ptyprocess` forces one (the test suite runs its end-to-end
suites under both); unset, the host takes `linux` wherever its means exist.
Plain standard library: the host reads it once at start.
"""

import functools
import os
import sys
from collections.abc import Mapping
from typing import Literal

from wardian_core.errors import WardianError

BACKEND_VARIABLE = "WARDIAN_PTY_BACKEND"
Backend = Literal["linux", "ptyprocess"]
BACKENDS: tuple[Backend, ...] = ("linux", "ptyprocess")


@functools.cache
def linux_means_missing() -> str | None:
    """Why the Linux backend cannot run here, or None when it can."""
    if not sys.platform.startswith("linux"):
        return f"this is {sys.platform}, not Linux"
    if not hasattr(os, "pidfd_open"):
        return "this Python has no os.pidfd_open"
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError as exc:  # a kernel older than 5.3, or a seccomp filter
        return f"pidfd_open is refused: {exc.strerror}"
    return None


def check_host_platform() -> None:
    """Refuse, with `not_supported`, to run a host where no backend exists (Windows, for now)."""
    if sys.platform == "win32":
        raise WardianError(
            "not_supported",
            "the Wardian host does not run on Windows yet: it needs a POSIX system",
            "Run Wardian inside WSL 2 (a Linux system: everything works there); "
            "docs/platforms.md says what Windows lacks.",
            {"platform": sys.platform},
        )


def chosen_backend(environ: Mapping[str, str] = os.environ) -> Backend:
    """The backend `environ` forces, else `linux` where it can run, else `ptyprocess`."""
    check_host_platform()
    forced = environ.get(BACKEND_VARIABLE, "").strip()
    if not forced:
        return "ptyprocess" if linux_means_missing() else "linux"
    if forced not in BACKENDS:
        raise WardianError(
            "usage",
            f"{BACKEND_VARIABLE}={forced!r} names no terminal backend",
            f"Set {BACKEND_VARIABLE} to one of {', '.join(BACKENDS)}, or unset it to let the host choose.",
            {"variable": BACKEND_VARIABLE, "value": forced, "allowed": list(BACKENDS)},
        )
    if forced == "linux" and (missing := linux_means_missing()):
        raise WardianError(
            "not_supported",
            f"{BACKEND_VARIABLE}=linux, but the Linux backend cannot run here: {missing}",
            f"Unset {BACKEND_VARIABLE} (or set it to ptyprocess) to use the portable POSIX backend.",
            {"variable": BACKEND_VARIABLE, "value": forced, "reason": missing},
        )
    return forced


def portable(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the host keeps to what every POSIX system has (no pidfd, no inotify)."""
    return chosen_backend(environ) == "ptyprocess"
