"""The remotes' agents on their own hosts' event streams: for each, `wardian agent watch NAME
--follow` run on its machine over ssh, as `wardian --remote MACHINE agent watch NAME --follow`
runs it, every one multiplexed over its machine's one master connection (`SharedMasters`).

A link that drops ends the stream as `remote_unreachable`: the feed follows the agent again
when the remotes' roster is next read.
"""

from typing import Protocol

from wardian_core import paths
from wardian_host.remote.host_calls import remote_of
from wardian_host.remote.options import Remote
from wardian_host.remote.shared_master import SharedMasters
from wardian_host.remote.ssh import Ran, answer_of, checked
from wardian_host.tui.feed import FROM_THE_END, Stream
from wardian_host.tui.line_stream import LineStream


class Masters(Protocol):
    """How a stream's ssh command is made (`SharedMasters`; a test's fake transport)."""

    def argv(self, remote: Remote, args: list[str]) -> list[str]: ...

    def close(self) -> None: ...


class RemoteStreams:
    """`open("NAME@MACHINE")`: that agent's stream; `close` ends the masters once the streams are closed."""

    def __init__(self, masters: Masters | None = None) -> None:
        self._masters: Masters = masters or SharedMasters()

    def open(self, key: str) -> Stream:
        name, _, machine = key.rpartition("@")
        args = ["agent", "watch", name, "--follow", "--since", str(FROM_THE_END)]

        def argv() -> list[str]:
            return self._masters.argv(_remote(machine), args)

        def end_checked(returncode: int, stderr: str) -> None:
            ran = checked(_remote(machine), Ran(returncode, "", stderr))  # ssh's own failures
            if ran.returncode != 0:
                answer_of(_remote(machine), ran)  # the remote's envelope, raised as its error

        return LineStream(argv, end_checked)

    def close(self) -> None:
        self._masters.close()


def _remote(machine: str) -> Remote:
    """Read from the settings each time a stream starts: a remote removed meanwhile is `not_found`."""
    return remote_of(paths.wardian_home(), machine)
