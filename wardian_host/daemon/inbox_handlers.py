"""The control endpoint's inbox kinds: `inbox.list`, what needs a person on this machine, built
from the live agents, state.db's pending asks and approvals, and the notice rules' finished
turns nobody looked at; `inbox.seen`, a person's look at an agent (its finished turn leaves)."""

import sqlite3
from collections.abc import Callable

from wardian_core.control.answers import InboxSeenAnswer
from wardian_core.control.models import InboxParams, TargetParams
from wardian_core.db.budgets import held_agents
from wardian_core.inbox import Inbox, MachineInbox, machine_entries, stored_parts
from wardian_host.agents.registry import AgentRegistry
from wardian_host.daemon.control_server import RequestContext, Route, Routes
from wardian_host.notify.rules import NoticeRules


def build_inbox_handlers(
    registry: AgentRegistry, conn: sqlite3.Connection, notices: NoticeRules, changed: Callable[[], None]
) -> Routes:
    """`changed`: tells the web view's pages (their queue) that an entry left."""

    async def inbox_list(params: InboxParams, _: RequestContext) -> Inbox:
        return inbox_of(registry, conn, notices, params.unseen)

    async def inbox_seen(params: TargetParams, _: RequestContext) -> InboxSeenAnswer:
        agent = registry.resolve(params.target)
        notices.looked_at(agent.uuid)
        changed()
        return InboxSeenAnswer(agent=agent.name, uuid=agent.uuid)

    return {"inbox.list": Route(InboxParams, inbox_list), "inbox.seen": Route(TargetParams, inbox_seen)}


def inbox_of(registry: AgentRegistry, conn: sqlite3.Connection, notices: NoticeRules, unseen: bool) -> Inbox:
    agents = [agent.snapshot() for agent in registry.all()]
    requests, runs = stored_parts(conn)
    held = held_agents(conn)
    entries = machine_entries(agents, requests, runs, notices.unseen_turns() if unseen else None, held)
    return Inbox(entries=entries, machines=[MachineInbox(machine="local", entries=len(entries))])
