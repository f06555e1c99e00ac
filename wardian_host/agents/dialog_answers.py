"""`wardian send --approval`: typing the keys a provider declares for an agent's open dialog,
once the dialog is on the screen and settled, and verifying the agent left it.

A hook or an event stream often tells of a dialog before the CLI paints it: Gemini runs its
ToolPermission hook before it draws the tool box, Claude its PermissionRequest hook before its
dialog. Keys that arrive first go to what was on screen before, and are lost. On a loaded
machine Gemini's box came more than its 0.5 s settle after the hook, so the settle counts from
the paint, not the report.
"""

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wardian_core.control.models import Approval
from wardian_core.errors import WardianError
from wardian_core.provider_models import DialogKeys, InputProfile
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.status_waits import wait_for_change

APPROVAL_TIMEOUT = 10.0
# The most of an answer's timeout spent waiting for the dialog's paint. A CLI whose dialog no
# longer shows the text its provider declares (a new version) still gets the keys, with the
# rest of the timeout to leave the dialog.
DRAW_WAIT_SHARE = 0.5


@dataclass(frozen=True)
class Drawn:
    """Whether the dialog was seen painted, and from when its settle counts (None: at once)."""

    seen: bool
    since: float | None


async def answer_dialog(
    agent: LiveAgent,
    profile: InputProfile,
    approval: Approval,
    # The send's --timeout, whose expiry is answered with the dialog still open.
    timeout: float,  # noqa: ASYNC109
    write: Callable[[bytes], None],
) -> None:
    """Answer the agent's open dialog; raise unless it left the dialog within `timeout`."""
    opened = agent.status_evidence
    keys, typed = _dialog_keys(agent, profile, approval)
    started = time.monotonic()
    drawn = await _until_drawn(agent, keys.drawn, timeout * DRAW_WAIT_SHARE)
    if drawn.since is not None:
        await asyncio.sleep(max(0.0, drawn.since + keys.settle_seconds - time.monotonic()))
    if agent.status != "action_required" or agent.status_evidence is not opened:
        raise _left_before_the_keys(agent)
    remaining = max(0.0, timeout - (time.monotonic() - started))
    if not await _type_and_await_leaving(agent, typed.encode(), remaining, write):
        raise _not_answered(agent, approval, remaining, drawn.seen, keys.drawn)


def _dialog_keys(agent: LiveAgent, profile: InputProfile, approval: Approval) -> tuple[DialogKeys, str]:
    """The provider's keys for the open dialog, and those that give this answer."""
    dialog = (agent.status_evidence or {}).get("dialog")
    keys = profile.dialogs.get(dialog) if isinstance(dialog, str) else None
    typed = keys.for_answer(approval) if keys else None
    if keys is None or not typed:
        raise WardianError(
            "not_supported",
            f"provider {agent.row['provider']} declares no keys to {approval} its {dialog or 'open'} dialog",
            "Answer it in the agent's terminal: `wardian agent attach`.",
            {
                "provider": agent.row["provider"],
                "dialog": dialog,
                "reason": (agent.status_evidence or {}).get("reason"),
            },
        )
    return keys, typed


async def _until_drawn(agent: LiveAgent, text: str | None, timeout: float) -> Drawn:  # noqa: ASYNC109
    """Wait (up to `timeout`) for `text` on the agent's screen. Seen at the first look, the
    settle counts from the dialog's report; seen later, from that look."""
    if text is None:
        return Drawn(True, agent.dialog_opened_at)
    output = asyncio.Event()

    def on_output(_cursor: int, _data: bytes) -> None:
        output.set()

    agent.output_listeners.add(on_output)
    try:
        deadline = time.monotonic() + timeout
        first = True
        while True:
            output.clear()  # before the look: output drawn during it wakes the next one
            if text in "\n".join((await agent.screen.snapshot()).rows):
                return Drawn(True, agent.dialog_opened_at if first else time.monotonic())
            first = False
            try:
                await asyncio.wait_for(output.wait(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                return Drawn(False, agent.dialog_opened_at)
    finally:
        agent.output_listeners.discard(on_output)


async def _type_and_await_leaving(
    agent: LiveAgent,
    keys: bytes,
    timeout: float,  # noqa: ASYNC109  # its expiry is an answer (False): not answered
    write: Callable[[bytes], None],
) -> bool:
    """Type `keys`; True once the agent left the dialog: another status, or another dialog."""
    opened = agent.status_evidence
    left = asyncio.ensure_future(
        wait_for_change(
            agent, lambda status: status != "action_required" or agent.status_evidence is not opened, timeout
        )
    )
    await asyncio.sleep(0)  # listening before the first key
    write(keys)
    return await left


def _details(agent: LiveAgent) -> dict[str, Any]:
    return {"agent": agent.name, "status": agent.status, "status_evidence": agent.status_evidence}


def _left_before_the_keys(agent: LiveAgent) -> WardianError:
    return WardianError(
        "request_failed",
        f"agent {agent.name} left its dialog before Wardian typed the answer (it is {agent.status})",
        f"Nothing was typed; see what answered it with `wardian agent watch {agent.name}`.",
        _details(agent),
    )


def _not_answered(
    agent: LiveAgent, approval: Approval, waited: float, drawn: bool, drawn_text: str | None
) -> WardianError:
    dialog = (agent.status_evidence or {}).get("dialog") or "open"
    unseen = "" if drawn else f" (its screen never showed {drawn_text!r} before the keys)"
    return WardianError(
        "approval_not_answered",
        f"agent {agent.name} still shows its {dialog} dialog {waited:.3g} s after the keys to {approval} it{unseen}",
        f"Look at it with `wardian agent screen {agent.name}` and answer it in its terminal (`wardian agent attach`).",
        _details(agent) | {"dialog": dialog, "answer": approval, "waited_seconds": round(waited, 1), "drawn": drawn},
    )
