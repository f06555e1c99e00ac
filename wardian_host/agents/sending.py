"""`wardian send`: typing a message into agents, answering approvals, waiting for the result."""

import asyncio
import functools
from typing import Any

from wardian_core.control.answers import AgentSnapshot, ApprovalAnswer, ApprovalTyped, SendAnswer
from wardian_core.control.models import Approval, SendParams
from wardian_core.errors import WardianError
from wardian_core.provider_models import InputProfile
from wardian_host.agents.client_stream import ClientStream
from wardian_host.agents.confirming import DeliveryFailed, confirm_taken, turn_start_watch
from wardian_host.agents.dialog_answers import APPROVAL_TIMEOUT, answer_dialog
from wardian_host.agents.live_agent import LiveAgent, Speaker
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.status_waits import wait_for_change, wait_for_status
from wardian_host.agents.typing_input import drawn_tail, drawn_watch, type_body
from wardian_host.providers.manager import Plugins
from wardian_host.terminal.supervisor import TerminalSupervisor

# How long a send waits for a starting agent to take input.
STARTING_WAIT_SECONDS = 120.0


def _not_received(missed: list[dict[str, Any]], answer: dict[str, Any]) -> WardianError:
    """A send fails when a matched target could not take the text; every target's result stays."""
    names = ", ".join(result["agent"] for result in missed)
    others = any(result["result"] == "delivered" for result in answer["results"])
    and_others = "; the others received the text (see details.results)." if others else "."
    answer = answer | {"delivered": False}
    not_live = [result for result in missed if result["result"] == "not_live"]
    held = [result for result in missed if result["result"] == "budget_reached"]
    if held and not not_live:
        return WardianError(
            "budget_reached",
            f"not every target takes prompts: {held[0]['reason']}",
            held[0]["hint"].rstrip(".") + and_others,
            answer,
        )
    if not_live:
        return WardianError(
            "not_live",
            f"not every target can receive input: {names} ({missed[0].get('reason', missed[0]['result'])})",
            _not_live_hint(not_live) + and_others,
            answer,
        )
    return WardianError(
        "request_failed",
        f"typing into {names} failed: {missed[0].get('reason', missed[0]['result'])}",
        f"Look at it with `wardian agent screen {missed[0]['agent']}` before sending again: the text was not "
        "taken" + and_others,
        answer,
    )


def _not_live_hint(not_live: list[dict[str, Any]]) -> str:
    """Resume brings back an agent that is off; a headless one still runs outside any terminal of
    this host (resume refuses it), so it has to end first."""
    headless = [result["agent"] for result in not_live if result["status"] == "headless"]
    if headless:
        return (
            f"{headless[0]} runs headless, outside any terminal Wardian can type into: end it with "
            f"`wardian agent kill {headless[0]}`, then `wardian agent resume {headless[0]}`"
        )
    return f"Resume it with `wardian agent resume {not_live[0]['agent']}`"


def _skipped(agent: LiveAgent) -> dict[str, Any]:
    reason = f"agent is {agent.status}: `all` means every live agent"
    return {"agent": agent.name, "uuid": agent.uuid, "status": agent.status, "result": "skipped", "reason": reason}


def _none_live(answer: dict[str, Any]) -> WardianError:
    return WardianError(
        "not_live",
        "no agent is live: `all` reached nobody",
        "See the agents with `wardian agent list`; resume one with `wardian agent resume <name>`.",
        answer | {"delivered": False},
    )


async def _delivered_then(waiter: "asyncio.Future[AgentSnapshot]", result: dict[str, Any]) -> AgentSnapshot:
    """The wait after a confirmed delivery: its failure still says the text was taken, so a
    retrying script does not type it twice."""
    try:
        return await waiter
    except WardianError as error:
        error.details = error.details | {"delivered": True, "delivery": result["delivery"]}
        raise


class Sender:
    """Types into agents' terminals what `wardian send` asks, with each provider's input profile."""

    def __init__(self, registry: AgentRegistry, plugins: Plugins, terminals: TerminalSupervisor) -> None:
        self._registry = registry
        self._plugins = plugins
        self._terminals = terminals

    def resolve_targets(self, to: str) -> list[LiveAgent]:
        agents = self._registry.all()
        if to == "all":
            return agents
        if to.startswith("class:"):
            class_name = to.removeprefix("class:")
            members = [agent for agent in agents if agent.row["class"] == class_name]
            if not members:
                raise WardianError(
                    "not_found",
                    f"no agent of class {class_name!r}",
                    "See the classes with `wardian agent list --scope all`.",
                    {"to": to},
                )
            return members
        return [self._registry.resolve(to)]

    def _input_profile(self, agent: LiveAgent) -> InputProfile:
        return self._plugins.info(agent.row["provider"]).input_profile

    def _from(self, sender: Speaker | None, verified: bool, target: LiveAgent, text: str) -> str:
        """The text as typed into `target`: tagged with the sending agent where its provider wants that
        (and as unverified when only the caller's variable names that agent)."""
        if sender is None or not self._input_profile(target).sender_tag:
            return text
        return f"[from {sender.name}{'' if verified else ', unverified'}] {text}"

    @staticmethod
    async def _past_start(agent: LiveAgent) -> None:
        """A CLI that is still starting drops what is typed before it takes input: wait for that."""
        if agent.status == "starting" and agent.is_running:
            await wait_for_change(agent, lambda status: status != "starting", STARTING_WAIT_SECONDS)

    async def _deliver(self, agent: LiveAgent, text: str) -> dict[str, Any]:
        result: dict[str, Any] = {"agent": agent.name, "uuid": agent.uuid, "status": agent.status}
        if not agent.is_running:
            return result | {"result": "not_live", "reason": f"agent is {agent.status}: nothing to type into"}
        refused = self._registry.prompt_refusal(agent)
        if refused is not None:
            return result | {"result": "budget_reached", "reason": refused.message, "hint": refused.hint}
        if agent.status in ("starting", "action_required"):
            # Text typed into a dialog would answer it; typed before the prompt, it is lost.
            dialog = (agent.status_evidence or {}).get("dialog")
            why = (
                f"still starting after {STARTING_WAIT_SECONDS:g} s"
                if agent.status == "starting"
                else f"its {dialog} dialog is open: answer it with `wardian send --approval accept|reject`"
            )
            return result | {"result": "failed", "reason": f"agent is {agent.status}: {why}"}
        busy = agent.status == "processing"
        profile = self._input_profile(agent)

        def write(data: bytes) -> None:
            self._terminals.write(agent.uuid, data)

        try:
            with drawn_watch(agent, drawn_tail(text, profile)) as drawn:
                submit = await type_body(write, text, profile, drawn)
            # Listening from the submit key on: a turn that starts before it is not this prompt's.
            with turn_start_watch(agent) as started:
                write(submit)
                delivery = await confirm_taken(agent, profile, text, started, lambda: write(submit))
        except DeliveryFailed as failed:
            return result | {"result": "failed", "delivered": False, "reason": failed.reason}
        except (WardianError, OSError, RuntimeError) as exc:
            return result | {"result": "failed", "reason": str(getattr(exc, "message", exc))}
        # A busy provider queues typed input as it would a person's.
        return result | {"result": "delivered", "queued": busy, "delivery": delivery}

    async def deliver(self, agent: LiveAgent, text: str, sender: Speaker | None, verified: bool) -> dict[str, Any]:
        """Type `text` into one agent once it takes input, as `send` does; the delivery's result."""
        await self._past_start(agent)
        return await self._deliver(agent, self._from(sender, verified, agent, text))

    async def send_message(
        self, params: SendParams, sender: Speaker | None, verified: bool = True, stream: ClientStream | None = None
    ) -> SendAnswer:
        """Type `params.text` into every target; `sender` is the calling agent, if any, and
        `verified` says whether its process tree confirms it (else the caller only claims it).
        With `--wait-until`, `stream` is told of the delivery before the wait (`delivered`, and
        the status mark the wait counts arrivals after), so a CLI that a host restart cut off
        waits on with the next host and never sends again."""
        text = params.text
        if text is None:
            raise WardianError("usage", "nothing to send", "Give a message, --stdin, --file, or --approval.")
        targets = self.resolve_targets(params.to)
        if params.wait_until and (len(targets) != 1 or params.to == "all" or params.to.startswith("class:")):
            raise WardianError(
                "usage",
                "--wait-until needs exactly one target",
                "Send to one agent by name or uuid.",
                {"to": params.to, "targets": len(targets)},
            )
        # `all` is every live agent: the others are named as skipped, not failed.
        skipped = [_skipped(agent) for agent in targets if params.to == "all" and not agent.is_running]
        targets = [agent for agent in targets if params.to != "all" or agent.is_running]
        await asyncio.gather(*(self._past_start(agent) for agent in targets))
        waiter, mark = None, 0
        if params.wait_until and targets[0].is_running:
            mark = self._registry.status_mark(targets[0])
            waiter = asyncio.ensure_future(wait_for_status(targets[0], params.wait_until, params.timeout, True))
            await asyncio.sleep(0)  # let the waiter register before the first keystroke
        sender_tag = None if params.raw else sender
        results = list(
            await asyncio.gather(
                *(self._deliver(agent, self._from(sender_tag, verified, agent, text)) for agent in targets)
            )
        )
        # `sender` stays the name it always was; whether the process tree confirmed it is beside it.
        answer: dict[str, Any] = {
            "results": results + skipped,
            "sender": sender.name if sender else None,
            "sender_verified": verified if sender else None,
        }
        missed = [result for result in results if result["result"] != "delivered"]
        if missed or not targets:
            if waiter is not None:
                waiter.cancel()
            raise _not_received(missed, answer) if missed else _none_live(answer)
        if len(results) == 1:
            answer["delivery"] = results[0]["delivery"]
        if waiter is not None:
            if stream is not None:
                try:
                    await stream.emit({"delivered": answer, "waiting_after": mark})
                except BaseException:  # the client left: its wait goes with it
                    waiter.cancel()
                    raise
            answer["agent"] = await _delivered_then(waiter, results[0])
        return SendAnswer.model_validate(answer)

    # The send's --timeout, whose expiry is answered with the dialog still open.
    async def answer_approval(self, to: str, approval: Approval, timeout: float | None) -> ApprovalAnswer:  # noqa: ASYNC109
        targets = self.resolve_targets(to)
        if len(targets) != 1:
            raise WardianError("usage", "--approval needs exactly one target", "Name one agent with --to.")
        agent = targets[0]
        if agent.status != "action_required" or not agent.is_running:
            raise WardianError(
                "request_failed",
                f"agent {agent.name} is not waiting for an approval (it is {agent.status})",
                f"Check with `wardian agent {agent.name} --fields status,status_evidence`.",
                {"agent": agent.name, "status": agent.status},
            )
        write = functools.partial(self._terminals.write, agent.uuid)
        await answer_dialog(agent, self._input_profile(agent), approval, timeout or APPROVAL_TIMEOUT, write)
        return ApprovalAnswer(
            results=[ApprovalTyped(agent=agent.name, uuid=agent.uuid, result="delivered", approval=approval)],
            left_action_required=agent.status != "action_required",
            agent=agent.answer(),
        )
