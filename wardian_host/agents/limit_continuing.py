"""One resume of a turn a usage limit cut, the way the agent's provider says (`limit_resume`):
its keys, then its text, typed and confirmed as `send` confirms a prompt; a relaunch with the
session resumed, then the text; or a wait for the CLI's own retry.

Nothing but the provider's keys is typed while the CLI's own offer (upgrade, switch the model)
may hold the keyboard: the text follows only once the agent is out of any dialog.
"""

import asyncio
from collections.abc import Awaitable, Callable

from wardian_core.limits import AgentLimit
from wardian_core.named_keys import key_bytes
from wardian_core.provider_models import LimitReport, LimitResume
from wardian_host.agents.confirming import turn_start_watch
from wardian_host.agents.limits import LimitRecord, limit_of
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.sending import Sender
from wardian_host.agents.status_waits import wait_for_change, wait_for_status

# A TUI reads an escape followed at once by another byte as one key (Alt+key, an arrow): each
# named key goes alone, and the text only once the last one was taken.
KEY_GAP_SECONDS = 0.3
# How long a menu the keys should close may take to go: its CLI redraws at once.
MENU_LEAVE_SECONDS = 10.0


class ResumeFailed(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Continuing:
    """Performs one resume; the schedule and its concurrency are the `LimitResumer`'s."""

    def __init__(
        self,
        limits: LimitRecord,
        sender: Sender,
        write: Callable[[str, bytes], None],
        submit_key: Callable[[LiveAgent], str],
        relaunch: Callable[[LiveAgent], Awaitable[object]],
    ) -> None:
        self._limits = limits
        self._sender = sender
        self._write = write
        self._submit_key = submit_key
        self._relaunch = relaunch

    async def resume(self, agent: LiveAgent, limit: AgentLimit, plan: LimitResume, turn_wait: float) -> None:
        """Continue the turn; ResumeFailed when no turn started (the limit then stays on the record)."""
        if plan.how == "wait":
            with self._limits.resuming(agent, "cli"):
                await self._turn_again(agent, turn_wait, "the CLI's own retry started no turn")
            return
        with self._limits.resuming(agent, "wardian"):
            if plan.how == "resume":
                # A fresh process shows no menu of the old one's: its keys would be typed as text.
                await self._relaunched(agent, turn_wait)
            elif not agent.is_running:
                raise ResumeFailed(f"agent is {agent.status}: nothing to type into")
            else:
                await self._type_keys(agent, plan.keys)
            await self._type_text(agent, plan.text or "continue", turn_wait)

    async def _relaunched(self, agent: LiveAgent, turn_wait: float) -> None:
        await self._relaunch(agent)
        try:
            await wait_for_status(agent, "idle", turn_wait, False)
        except Exception as error:  # a WardianError (exited, timed out): the resume failed
            raise ResumeFailed(f"the relaunched CLI did not come back idle: {error}") from error

    async def _type_keys(self, agent: LiveAgent, keys: list[str]) -> None:
        for key in keys:
            self._write(agent.uuid, key_bytes(key, self._submit_key(agent)))
            await asyncio.sleep(KEY_GAP_SECONDS)
        if agent.status == "action_required":
            left = await wait_for_change(agent, lambda status: status != "action_required", MENU_LEAVE_SECONDS)
            if not left:
                # Text typed now would answer the CLI's own offer: type none.
                raise ResumeFailed(f"its {agent.status_evidence or {}} dialog stays open after the provider's keys")

    async def _type_text(self, agent: LiveAgent, text: str, turn_wait: float) -> None:
        with turn_start_watch(agent) as started:
            result = await self._sender.deliver(agent, text, None, True)
            if result["result"] != "delivered":
                raise ResumeFailed(f"the text was not taken: {result.get('reason', result['result'])}")
            if limit_of(agent) is None:
                return  # the turn started (the provider's turn_started cleared the limit)
            try:
                await asyncio.wait_for(asyncio.shield(started), turn_wait)
            except TimeoutError:
                raise ResumeFailed(f"no turn started within {turn_wait:g} s of the text") from None

    async def _turn_again(self, agent: LiveAgent, turn_wait: float, why: str) -> None:
        """Until the limit is cleared (a turn started), at most `turn_wait` seconds."""
        if limit_of(agent) is None:
            return
        cleared = await wait_for_event(agent, lambda: limit_of(agent) is None, turn_wait)
        if not cleared:
            raise ResumeFailed(f"{why} within {turn_wait:g} s")


async def wait_for_event(agent: LiveAgent, done: Callable[[], bool], timeout: float) -> bool:  # noqa: ASYNC109
    """Until `done()` holds after one of the agent's logged events; False when `timeout` passes first."""
    reached: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    def on_event(_: dict[str, object]) -> None:
        if done() and not reached.done():
            reached.set_result(True)

    agent.event_listeners.add(on_event)
    try:
        return await asyncio.wait_for(reached, timeout)
    except TimeoutError:
        return False
    finally:
        agent.event_listeners.discard(on_event)


def report_of(limit: AgentLimit) -> LimitReport:
    """The limit as the provider reported it, for its `limit_resume` hook."""
    return LimitReport(kind=limit.kind, resets_at=limit.resets_at, retry_at=limit.retry_at, message=limit.message)
