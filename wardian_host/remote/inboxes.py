"""Each configured remote's `wardian inbox --local`, read at once over ssh: its entries name
their machine and answer with `wardian --remote NAME ...`. A remote that fails is one machine
line with its error, never a failure of the whole inbox."""

import json
from concurrent.futures import ThreadPoolExecutor

from wardian_core import paths
from wardian_core.errors import WardianError
from wardian_core.inbox import Inbox, MachineInbox, on_machine
from wardian_host.remote.options import Remote
from wardian_host.remote.roster import ROSTER_SECONDS
from wardian_host.remote.settings import configured_remotes
from wardian_host.remote.ssh import answer_of, run_captured


def remote_inboxes(unseen: bool) -> list[Inbox]:
    """Every remote of the home's settings.toml, in name order (none configured: none)."""
    try:
        configured = configured_remotes(paths.wardian_home())
    except WardianError as error:  # a bad [remotes.*] table: this machine's entries still count
        return [Inbox(machines=[MachineInbox(machine="remotes", reachable=False, error=error.envelope()["error"])])]
    remotes = [Remote(name, configured[name]) for name in sorted(configured)]
    if not remotes:
        return []
    with ThreadPoolExecutor(max_workers=len(remotes)) as pool:
        return list(pool.map(lambda remote: _inbox_of(remote, unseen), remotes))


def _inbox_of(remote: Remote, unseen: bool) -> Inbox:
    args = ["inbox", "--local", *(["--unseen"] if unseen else [])]
    try:
        answer = answer_of(remote, run_captured(remote, args, timeout=ROSTER_SECONDS))
        theirs = Inbox.model_validate({key: answer.get(key, []) for key in ("entries", "machines")})
    except WardianError as error:
        reachable = error.code != "remote_unreachable"  # any other error is the remote's answer
        return Inbox(machines=[MachineInbox(machine=remote.name, reachable=reachable, error=error.envelope()["error"])])
    except (ValueError, json.JSONDecodeError) as exc:
        failure = {"code": "request_failed", "message": f"remote {remote.name} answered no inbox: {exc}"}
        return Inbox(machines=[MachineInbox(machine=remote.name, reachable=True, error=failure)])
    entries = [on_machine(entry, remote.name) for entry in theirs.entries]
    return Inbox(entries=entries, machines=[MachineInbox(machine=remote.name, entries=len(entries))])
