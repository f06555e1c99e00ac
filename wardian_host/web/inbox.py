"""The person's queue at the top of the page (`GET /api/inbox`): what `wardian inbox --unseen`
lists for this machine, answered by the host's own `inbox.list` route, and the dialogs and
errors of the other machines' agents the view already reads (their rosters: no ssh per look).
A page asks again after each state the host pushes; its answers go through `/api/action`."""

from collections.abc import Awaitable, Callable

from aiohttp import web

from wardian_core.errors import WardianError
from wardian_core.inbox import Inbox, machine_entries, on_machine, ordered
from wardian_host.remote.roster import MachineRoster
from wardian_host.web.terminals import Answer

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


async def page_inbox(answer: Answer, rosters: list[MachineRoster]) -> Inbox:
    local = Inbox.model_validate(await answer("inbox.list", {"unseen": True}))
    remote = [
        on_machine(entry, roster.machine) for roster in rosters for entry in machine_entries(roster.agents, [], [])
    ]
    return Inbox(entries=ordered([*local.entries, *remote]), machines=local.machines)


def inbox_route(answer: Answer, rosters: Callable[[], list[MachineRoster]]) -> Handler:
    async def inbox(_: web.Request) -> web.StreamResponse:
        try:
            shown = await page_inbox(answer, rosters())
        except WardianError as error:
            return web.json_response(error.envelope(), status=500)
        return web.json_response(shown.model_dump(), headers={"Cache-Control": "no-store"})

    return inbox
