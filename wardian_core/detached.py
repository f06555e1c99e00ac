"""Starting a process detached (the host, the terminal server) and waiting for its first word.

The process gets a session of its own (a hangup or Ctrl-C of the starter's terminal never
reaches it), none of the caller's descriptors but a ready pipe (`--ready-fd N`), and
answers on that pipe one line: "ready", or the error envelope of a failed start.
"""

import os
import select
import subprocess
import time

from wardian_core.errors import WardianError


def start_detached(argv: list[str], what: str, timeout: float, output_fd: int | None = None) -> str:
    """Start `argv --ready-fd N` detached; its answer line ("" when it exited without one).
    `output_fd` takes its stdout and stderr (else /dev/null)."""
    read_end, write_end = os.pipe()
    output = subprocess.DEVNULL if output_fd is None else output_fd
    try:
        subprocess.Popen(
            [*argv, "--ready-fd", str(write_end)],
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            pass_fds=(write_end,),
            start_new_session=True,
            cwd="/",
        )
    finally:
        os.close(write_end)
    try:
        return _read_answer(read_end, what, timeout)
    finally:
        os.close(read_end)


def _read_answer(fd: int, what: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    data = b""
    while not data.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            raise WardianError(
                "control_endpoint_timeout",
                f"the {what} did not report ready within {timeout:.0f} s",
                "See `wardian host logs`.",
            )
        chunk = os.read(fd, 4096)
        if not chunk:
            break  # it exited without a word
        data += chunk
    return data.decode(errors="replace").strip()


def report(ready_fd: int | None, message: str) -> None:
    """The started process's one line on its ready pipe ("ready", or an error envelope on one line)."""
    if ready_fd is None:
        return
    try:
        os.write(ready_fd, message.replace("\n", " ").encode() + b"\n")
        os.close(ready_fd)
    except OSError:
        pass  # the starter gave up waiting; the log has the story
