"""The remote protocol: what one machine's `wardian` expects of another's.

It is the number of the argument and answer shapes `remote-run` carries, raised when
they change; the package version alone does not say whether two machines agree.
"""

from wardian_core.errors import WardianError
from wardian_core.version import __version__

# 2: a forwarded `ask` carries the asking machine and the asker it claims (hidden options).
PROTOCOL = 2
RUNNER = "remote-run"  # the hidden command a remote machine's `wardian` runs the forwarded command with


def mismatch_here(asked: int) -> WardianError:
    """The remote side's refusal: the caller speaks another protocol."""
    return WardianError(
        "protocol_mismatch",
        f"this machine's Wardian speaks remote protocol {PROTOCOL}, the caller {asked}",
        "Install the same Wardian version on both machines.",
        {"remote_protocol": PROTOCOL, "remote_version": __version__, "local_protocol": asked},
    )


def mismatch_named(remote: str, destination: str, remote_protocol: int | None, remote_version: str) -> WardianError:
    """The caller's account of a refusal: which machine is behind, and the command that fixes it."""
    remote_is_older = remote_protocol is None or remote_protocol < PROTOCOL
    if remote_is_older:
        fix = f"ssh {destination} python3 -m pip install --upgrade 'wardian>={__version__}'"
        which = f"remote {remote} runs an older Wardian ({remote_version})"
    else:
        fix = f"python3 -m pip install --upgrade 'wardian>={remote_version}'"
        which = f"remote {remote} runs a newer Wardian ({remote_version}) than this machine ({__version__})"
    return WardianError(
        "protocol_mismatch",
        f"{which}: remote protocol {remote_protocol if remote_protocol is not None else 'none'}, here {PROTOCOL}",
        f"Upgrade the older side: `{fix}`",
        {
            "remote": remote,
            "remote_protocol": remote_protocol,
            "remote_version": remote_version,
            "local_protocol": PROTOCOL,
        },
    )
