"""`wardian ask` and `wardian reply`: a question typed into an agent, its answer taken by the host.

A request is stored in state.db before anything is typed, so an answer that arrives after
the asking CLI gave up, or after a host restart, still lands. Who may answer is decided by
the caller's class (the daemon classifies it): the asked agent verified, or a person.
"""

import asyncio
import contextlib
import sqlite3
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from wardian_core.asks import new_request_id, prompt_with_instruction
from wardian_core.clock import now_iso
from wardian_core.control.answers import AskAnswer, ReplyAnswer
from wardian_core.control.models import AskParams, AskWaitParams, ReplyParams
from wardian_core.db import requests as request_rows
from wardian_core.db.kept_writes import cannot_write_now
from wardian_core.errors import WardianError, not_live
from wardian_host.agents.client_stream import ClientStream
from wardian_host.agents.live_agent import LiveAgent, Speaker
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.sending import Sender
from wardian_host.agents.watching import output_appears, output_page

T = TypeVar("T")


class AskDesk:
    """Keeps the requests: asks them, takes their replies, wakes whoever waits on one."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        registry: AgentRegistry,
        sender: Sender,
        mcp_server_of: Callable[[LiveAgent], str | None] = lambda _: None,
    ) -> None:
        """`mcp_server_of`: the MCP server an agent's CLI has (the reply instruction names its tool)."""
        self._conn = conn
        self._registry = registry
        self._sender = sender
        self._mcp_server_of = mcp_server_of
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}

    def _write(self, change: Callable[[], T]) -> T:
        """A request write state.db cannot take now fails the command: nothing typed, nothing half-kept."""
        try:
            return change()
        except sqlite3.OperationalError as exc:
            if not cannot_write_now(exc):
                raise
            raise WardianError(
                "write_failed",
                f"state.db cannot record the request now: {exc}",
                "Free disk space (see `wardian host logs`) and try again.",
            ) from None

    async def ask(
        self, params: AskParams, asker: Speaker | None, asker_verified: bool, client: ClientStream
    ) -> AskAnswer:
        agent = self._registry.resolve(params.target)
        if not agent.is_running:
            raise not_live(agent.name, agent.status, "there is no terminal to ask in")
        request_id = new_request_id()
        token = params.until_output
        who = _asker_columns(params, asker, asker_verified)
        self._write(
            lambda: request_rows.insert_request(
                self._conn,
                request_id=request_id,
                agent_uuid=agent.uuid,
                agent_name=agent.name,
                message=params.message,
                until=f"output:{token}" if token else None,
                **who,
            )
        )
        logged = {"request_id": request_id, "asker": who["asker"], "asker_machine": who["asker_machine"]}
        since = agent.log_event("request", logged)["cursor"]
        asker, asker_verified = _tagged_as(who) if asker is None else (asker, asker_verified)
        # An agent that cannot run `wardian reply` gets the question alone; its output answers.
        typed = (
            params.message if token else prompt_with_instruction(params.message, request_id, self._mcp_server_of(agent))
        )
        listening: list[int] = []
        # A call that waits for the reply has the turn's answer: that turn needs no other notice.
        turn_wait = agent.turn_waits.waiting() if params.wait else contextlib.nullcontext()
        with turn_wait, self._awaiting(agent, request_id, token, typed, None, listening) as (answered, seen):
            await asyncio.sleep(0)  # listening for the token before the first keystroke
            await self._deliver(agent, request_id, typed, asker, asker_verified)
            if not params.wait:
                return self._answer(request_id, agent, since)
            # Told the request, a CLI that a host restart cut off asks the next host for the rest
            # of this wait (`ask.wait`) instead of asking again.
            output_from = listening[0] if listening else since
            await client.emit({"asked": {"request_id": request_id, "since": since, "output_from": output_from}})
            await self._await_reply(agent, request_id, answered, seen, client, params.timeout)
            return self._answer(request_id, agent, since)

    async def wait_for_reply(self, params: AskWaitParams, client: ClientStream) -> AskAnswer:
        """The rest of a wait that a host restart cut short, for the same request: a reply taken
        meanwhile (by the old host after its last word) answers at once."""
        record = request_rows.get_request(self._conn, params.request_id)
        if record is None:
            raise _unknown_request(params.request_id)
        agent = self._registry.resolve(record["agent_uuid"])
        if record["status"] == "pending":
            token = _until_token(record["until"])
            with (
                agent.turn_waits.waiting(),
                self._awaiting(agent, params.request_id, token, record["message"], params.output_from) as waits,
            ):
                await self._await_reply(agent, params.request_id, *waits, client, params.timeout)
        return self._answer(params.request_id, agent, params.since)

    @contextlib.contextmanager
    def _awaiting(
        self,
        agent: LiveAgent,
        request_id: str,
        token: str | None,
        typed: str,
        output_from: int | None,
        listening: list[int] | None = None,
    ) -> Iterator[tuple[asyncio.Future[dict[str, Any]], asyncio.Future[None] | None]]:
        """While a request's reply is awaited: the future its reply sets, and (with a token) the
        watch for it in the output from `output_from` on (None: from now), whose start is put
        in `listening`."""
        answered = self._waiting[request_id] = asyncio.get_running_loop().create_future()
        seen = None
        if token is not None:
            noted = None if listening is None else _noting(listening)
            seen = asyncio.ensure_future(output_appears(agent, token, None, typed, output_from, noted))
        try:
            yield answered, seen
        finally:
            self._waiting.pop(request_id, None)
            if seen is not None:
                seen.cancel()

    async def _deliver(
        self, agent: LiveAgent, request_id: str, typed: str, asker: Speaker | None, verified: bool
    ) -> dict[str, Any]:
        result = await self._sender.deliver(agent, typed, asker, verified)
        # `status` there is the agent's at delivery; a request's own status is another thing.
        delivery = _without(result, "status") | {"agent_status": result["status"]}
        delivery |= {"at": now_iso(), "cursor": agent.buffer.end_cursor}
        delivered = delivery["result"] == "delivered"
        self._write(lambda: request_rows.record_delivery(self._conn, request_id, delivery, delivered))
        agent.log_event("delivery", {"request_id": request_id} | _without(delivery, "at", "cursor", "agent", "uuid"))
        if not delivered:
            code = delivery["result"] if delivery["result"] in ("not_live", "budget_reached") else "request_failed"
            raise WardianError(
                code,
                f"the question did not reach {agent.name}: {delivery.get('reason', delivery['result'])}",
                f"The request is kept as undelivered (`wardian ask show {request_id}`); ask again once "
                f"{agent.name} takes input." + (f" {delivery['hint']}" if delivery.get("hint") else ""),
                {"request_id": request_id, "delivery": delivery},
            )
        return delivery

    async def _await_reply(
        self,
        agent: LiveAgent,
        request_id: str,
        answered: asyncio.Future[dict[str, Any]],
        seen: asyncio.Future[None] | None,
        client: ClientStream,
        # The ask's --timeout, whose expiry is answered as a watch_timeout naming it.
        timeout: float | None,  # noqa: ASYNC109
    ) -> None:
        """Until the reply (or the token) comes, the timeout passes, or the asking client leaves."""
        client_gone = asyncio.ensure_future(client.reader.read(1))
        waits: set[asyncio.Future[Any]] = {answered, client_gone}
        if seen is not None:
            waits.add(seen)
        try:
            done, _ = await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            client_gone.cancel()
        if seen is not None and seen in done and not answered.done() and seen.exception() is None:
            self._take(request_id, {"status": "done", "body": None, "source": "output"})
        elif not done:
            raise _no_reply(agent, request_id, timeout)

    def reply(self, params: ReplyParams, caller: Speaker | None, verified: bool, caller_pid: int) -> ReplyAnswer:
        """Take a reply from process `caller_pid`: `caller` is the agent it is tied to (`verified`)
        or only claims to be; None for a person."""
        record = request_rows.get_request(self._conn, params.request_id)
        if record is None:
            raise _unknown_request(params.request_id)
        _refuse_foreign(record, caller, verified)
        source = "agent" if caller is not None else "human"
        reply: dict[str, Any] = {"status": params.status, "body": params.body, "source": source}
        reply |= {"caller_pid": caller_pid, "caller_agent": caller.name if caller else None}
        taken = self._take(params.request_id, reply)
        return ReplyAnswer.model_validate({"request_id": params.request_id, "agent": record["agent"], "reply": taken})

    def _take(self, request_id: str, reply: dict[str, Any]) -> dict[str, Any]:
        reply = {"caller_pid": None, "caller_agent": None} | reply | {"at": now_iso()}
        if not self._write(lambda: request_rows.record_reply(self._conn, request_id, reply)):
            raise _already_answered(request_rows.get_request(self._conn, request_id) or {})
        record = request_rows.get_request(self._conn, request_id) or {}
        agent = self._registry.get(record.get("agent_uuid", ""))
        if agent is not None:
            agent.log_event("reply", {"request_id": request_id, "status": reply["status"], "source": reply["source"]})
        waiter = self._waiting.get(request_id)
        if waiter is not None and not waiter.done():
            waiter.set_result(reply)
        return reply

    def _answer(self, request_id: str, agent: LiveAgent, since: int) -> AskAnswer:
        """The request as stored, with the agent's events and output since it was asked."""
        record = request_rows.get_request(self._conn, request_id) or {}
        page = output_page(agent, max(since, agent.buffer.start_cursor), raw=False)
        shown = {key: record[key] for key in ("request_id", "agent", "status", "reply", "delivery")}
        events = _events_from_request(page["events"], request_id)
        return AskAnswer.model_validate(
            shown | {"events": events} | {key: page[key] for key in ("output", "cursor", "more")}
        )


def _unknown_request(request_id: str) -> WardianError:
    return WardianError(
        "not_found",
        f"no request {request_id}",
        "Copy the id from the question (`ask_` and 16 hex digits); `wardian ask list` shows them.",
        {"request_id": request_id},
    )


def _until_token(until: str | None) -> str | None:
    """The token of a stored `until` (`output:TOKEN`), as `ask` stores it."""
    return until.partition(":")[2] if until else None


def _noting(into: list[int]) -> Callable[[int], Awaitable[None]]:
    async def note(cursor: int) -> None:
        into.append(cursor)

    return note


def _events_from_request(events: list[dict[str, Any]], request_id: str) -> list[dict[str, Any]]:
    """The events from the request's own on (others logged at the same cursor came before it)."""
    for index, entry in enumerate(events):
        if entry["kind"] == "request" and entry.get("request_id") == request_id:
            return events[index:]
    return events


@dataclass(frozen=True)
class RemoteAsker:
    """An asker on another machine as it names itself (`name@machine`): a label for the typed
    question, never an identity of this host."""

    name: str
    uuid: str = ""


def _asker_columns(params: AskParams, asker: Speaker | None, verified: bool) -> dict[str, Any]:
    """Who asks, as the request keeps it: an agent of this host (verified or only claimed), a
    person, or another machine's claim. A caller tied to an agent here is that agent, whatever
    machine its parameters name."""
    if asker is not None:
        return {"asker": asker.name, "asker_verified": verified, "asker_machine": None}
    if params.asker_machine is not None:
        return {"asker": params.asker_name, "asker_verified": False, "asker_machine": params.asker_machine}
    return {"asker": None, "asker_verified": None, "asker_machine": None}


def _tagged_as(who: dict[str, Any]) -> tuple[Speaker | None, bool]:
    """How a question is tagged when typed: a remote asker's claimed name, marked unverified."""
    if who["asker_machine"] is None or who["asker"] is None:
        return None, False
    return RemoteAsker(f"{who['asker']}@{who['asker_machine']}"), False


def _without(values: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in values.items() if key not in keys}


def _refuse_foreign(record: dict[str, Any], caller: Speaker | None, verified: bool) -> None:
    """Only the asked agent, verified by its process tree, or a person may answer."""
    if caller is None or (verified and caller.uuid == record["agent_uuid"]):
        return
    why = (
        f"the replying process belongs to agent {caller.name}"
        if verified
        else f"the replying process claims agent {caller.name} (WARDIAN_SESSION_ID) but is not in its process tree"
    )
    raise WardianError(
        "unauthorized",
        f"only {record['agent']}, the asked agent, may answer {record['request_id']}: {why}",
        f"Run `wardian reply` from {record['agent']}'s own terminal or tools, or from a person's terminal "
        "without WARDIAN_SESSION_ID.",
        {
            "request_id": record["request_id"],
            "agent": record["agent"],
            "caller_agent": caller.name,
            "verified": verified,
        },
    )


def _already_answered(record: dict[str, Any]) -> WardianError:
    reply = record.get("reply") or {}
    if record.get("status") == "undelivered":
        return WardianError(
            "request_failed",
            f"request {record.get('request_id')} never reached its agent: there is nothing to answer",
            "Ask again with `wardian ask`.",
            {"request_id": record.get("request_id"), "status": "undelivered"},
        )
    return WardianError(
        "duplicate_reply",
        f"request {record.get('request_id')} was already answered ({reply.get('status')}, by {reply.get('source')} "
        f"at {reply.get('at')})",
        f"Read the reply with `wardian ask show {record.get('request_id')}`; a request takes one reply.",
        {"request_id": record.get("request_id"), "reply": reply},
    )


def _no_reply(agent: LiveAgent, request_id: str, timeout: float | None) -> WardianError:
    return WardianError(
        "watch_timeout",
        f"{agent.name} did not reply to {request_id} within {timeout:g} s",
        f"The request stays open: its reply can still come, read it with `wardian ask show {request_id}`.",
        {"request_id": request_id, "agent": agent.name, "status": "pending", "timeout_seconds": timeout},
    )
