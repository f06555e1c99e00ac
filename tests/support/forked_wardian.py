"""`wardian` commands for the tests that run thousands: each in a process of its own, forked
from one that already holds what every command imports first (the interpreter, click,
`wardian_host.cli` and the modules most commands load next), so none pays that start-up again.
Measured on the end-to-end tests (2 cores, process accounting): 377 s of CPU with the installed
command, 328 s forked; 239 s of wall time, 223 s.

After the fork it is the installed command: `wardian_host.cli.main` with the test's arguments,
environment, working directory, umask and standard streams, in a process of its own that talks to
the real host, and leaves with its own exit code. What the fork skips, the console script and an
interpreter's start, is proven by the tests that run the installed `wardian` itself: the import
probes of tests/test_cli_agent.py, every provider's real-CLI tests, every agent's own calls.

One server per pytest worker (`ForkServer`), single-threaded: a request is a SOCK_SEQPACKET
message with the child's three standard streams attached; the server answers the child's pid,
then its exit code once a pidfd says it ended.
"""

import contextlib
import json
import os
import re
import select
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

READ_BYTES = 65536
# What only a process's start reads: the interpreter's own variables (PYTHONPATH's folders and
# their sitecustomize, ...), and the claim to be an agent, which the host reads from
# /proc/PID/environ (it keeps the environment a process was started with, not one set after a
# fork). A command whose values of these differ from the server's runs as the installed command.
READ_AT_START = re.compile(r"PYTHON.*|WARDIAN_SESSION_ID")


class ForkServer:
    """The server's process, started once; `run` is `subprocess.run([WARDIAN, *args], ...)`."""

    def __init__(self, wardian: str) -> None:
        self.wardian = wardian
        self._environment = dict(os.environ)
        self._folder = tempfile.mkdtemp(prefix="wardian-forks-")
        self.address = str(Path(self._folder) / "socket")
        # The server leaves when its stdin closes: with this worker, however it ends.
        self._process = subprocess.Popen(
            [sys.executable, __file__, self.address], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        assert self._process.stdout is not None
        ready = self._process.stdout.readline()
        assert ready == b"ready\n", f"the fork server did not start: {ready!r}"

    def _installed(
        self, args: list[str], env: dict[str, str], cwd: Path | None, timeout: float, input: str | None
    ) -> subprocess.CompletedProcess[str]:
        stdin = subprocess.DEVNULL if input is None else None
        argv = [self.wardian, *args]
        return subprocess.run(
            argv, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout, input=input, stdin=stdin
        )

    @property
    def pid(self) -> int:
        """The server's: each command is a child of it."""
        return self._process.pid

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait(timeout=10)
        Path(self.address).unlink(missing_ok=True)
        os.rmdir(self._folder)

    def run(
        self, args: list[str], env: dict[str, str], cwd: Path | None, timeout: float, input: str | None
    ) -> subprocess.CompletedProcess[str]:
        if _read_at_start(env) != _read_at_start(self._environment):
            return self._installed(args, env, cwd, timeout, input)
        umask = os.umask(0)
        os.umask(umask)
        request = {"args": args, "env": env, "cwd": str(cwd or Path.cwd()), "umask": umask, "wardian": self.wardian}
        stdin_read, stdin_write = os.pipe() if input is not None else (os.open(os.devnull, os.O_RDONLY), -1)
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as conn:
            conn.connect(self.address)
            socket.send_fds(conn, [json.dumps(request).encode()], [stdin_read, out_write, err_write])
            for fd in (stdin_read, out_write, err_write):
                os.close(fd)
            pid = int(conn.recv(64))
            try:
                out, err = _communicate(stdin_write, (input or "").encode(), out_read, err_read, timeout)
            except subprocess.TimeoutExpired as expired:
                os.kill(pid, signal.SIGKILL)
                expired.cmd = [self.wardian, *args]
                raise
            code = int(conn.recv(64))
        return subprocess.CompletedProcess([self.wardian, *args], code, out.decode(), err.decode())


def _read_at_start(env: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in env.items() if READ_AT_START.fullmatch(name)}


def _communicate(stdin: int, data: bytes, out: int, err: int, timeout: float) -> tuple[bytes, bytes]:
    """`data` written to `stdin` (then closed), `out` and `err` read to their ends, as
    `subprocess.run(..., input=..., capture_output=True)` does; every descriptor closed."""
    deadline = time.monotonic() + timeout
    read: dict[int, bytearray] = {out: bytearray(), err: bytearray()}
    with selectors.DefaultSelector() as selector:
        for fd in read:
            selector.register(fd, selectors.EVENT_READ)
        if stdin >= 0:
            os.set_blocking(stdin, False)
            selector.register(stdin, selectors.EVENT_WRITE)
        try:
            while selector.get_map():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise subprocess.TimeoutExpired("wardian", timeout, bytes(read[out]), bytes(read[err]))
                for key, _ in selector.select(remaining):
                    if key.fd == stdin:
                        data = data[_write(stdin, data) :]
                        if not data:
                            selector.unregister(stdin)
                            os.close(stdin)
                            stdin = -1
                        continue
                    chunk = os.read(key.fd, READ_BYTES)
                    if chunk:
                        read[key.fd] += chunk
                    else:
                        selector.unregister(key.fd)
        finally:
            for fd in (stdin, out, err):
                if fd >= 0:
                    os.close(fd)
    return bytes(read[out]), bytes(read[err])


def _write(fd: int, data: bytes) -> int:
    try:
        return os.write(fd, data) if data else 0
    except BrokenPipeError:  # the command ended without reading all of it, as a real one may
        return len(data)


# The server's side: its own process.


# What every command imports first, and what the commands the tests run most import next: none
# reads the environment as it loads (each reads it when called), so a fork has them as a
# started command would.
FIRST_IMPORTS = (
    "wardian_host.cli",
    "wardian_host.cli.agent",
    "wardian_host.cli.send",
    "wardian_host.answers.agents",
    "wardian_host.answers.connection",
    "wardian_host.answers.lifecycle",
    "wardian_host.answers.records",
)


def serve(address: str) -> None:
    import importlib

    for module in FIRST_IMPORTS:
        importlib.import_module(module)

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(address)
    listener.listen(64)
    children: dict[int, tuple[socket.socket, int]] = {}  # pidfd -> (the request's connection, pid)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        readable, _, _ = select.select([listener, sys.stdin, *children], [], [])
        for ready in readable:
            if ready is sys.stdin:
                return  # the worker is gone: so is its server
            if ready is listener:
                conn, _ = listener.accept()
                _start(conn, listener, children)
            else:
                assert isinstance(ready, int)  # a child's pidfd
                _finished(ready, children)


def _start(conn: socket.socket, listener: socket.socket, children: dict[int, tuple[socket.socket, int]]) -> None:
    message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
    request = json.loads(message)
    pid = os.fork()
    if pid == 0:
        conn.close()
        listener.close()
        _be_the_command(request, fds)
    for fd in fds:
        os.close(fd)
    conn.send(str(pid).encode())
    children[os.pidfd_open(pid)] = (conn, pid)


def _finished(pidfd: int, children: dict[int, tuple[socket.socket, int]]) -> None:
    conn, pid = children.pop(pidfd)
    os.close(pidfd)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)  # killed by a signal: minus its number, as subprocess says
    with contextlib.suppress(OSError):  # the test stopped waiting for it (a timeout)
        conn.send(str(code).encode())
    conn.close()


def _be_the_command(request: dict[str, Any], fds: list[int]) -> None:
    """In the fork: the installed `wardian`, as its console script would run it. Never returns."""
    code = 1
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.umask(request["umask"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = [request["wardian"], *request["args"]]
        from wardian_host.cli import main

        main(request["args"])  # leaves through os._exit with the command's code
        code = 0
    except SystemExit as leaving:
        code = leaving.code if isinstance(leaving.code, int) else 1
    except BaseException:  # noqa: BLE001 - what the interpreter would print, then exit 1
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


if __name__ == "__main__":
    # This folder is not on a command's path: only the modules an installed `wardian` finds.
    here = Path(__file__).resolve().parent
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != here]
    serve(sys.argv[1])
