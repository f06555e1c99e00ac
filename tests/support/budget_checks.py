"""A hard budget proven against a real CLI through `wardian` (docs/limits.md#budgets): the turn
whose figures reach it is interrupted with the provider's interrupt key, the agent is held,
`send` is refused with `budget_reached`, and a raise lets the next prompt through.

The turn is kept open by the model server: the prompt's tool prints `MOCK_HOLD:cut`, so the
model call after the tool (which carries its output) is held, and only an interrupt ends the
turn. The prompt itself spells the directive with `""` inside, which the shell drops: its own
first call is answered, and reports the usage that reaches the budget.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from typing import Any

from usage_checks import usage_after
from wardian_cli import WARDIAN, WardianCli

HOLD = "cut"
CUT_PROMPT = f'spend MOCK_TOOL:echo MOCK""_HOLD:{HOLD} ECHO:cut1'
# Below one model call's figures (1270 counted tokens: model_server.usage), so the cut turn's
# first call passes the budget.
HEADROOM_TOKENS = 1000


def budget_above_its_use(wardian: WardianCli, name: str, session_calls: Callable[[], int], hard: bool) -> str:
    """Give the idle agent a budget its next model call passes. `session_calls` counts the model
    calls its usage records (the earlier turns' figures are waited for first). Answers where the
    figure went: settings.toml's table of the agent, or the agent's own layer where an earlier
    raise put a figure (nearer than settings)."""
    usage_after(lambda: wardian("agent", "show", name, "--fields", "usage")["agent"]["usage"], session_calls())
    shown = wardian("agent", "budget", name)
    tokens = shown["used"]["tokens"] + HEADROOM_TOKENS
    own = shown["sources"].get("tokens") == "agent"
    settings = wardian.home / "settings.toml"
    table = f"\n[budgets.agents.{name}]\n"
    # An earlier budget of this agent's (the table is written last) is replaced, not repeated.
    kept = settings.read_text().split(table)[0] if settings.exists() else ""
    figure = "" if own else f"tokens = {tokens}\n"
    settings.write_text(f"{kept}{table}{figure}hard = {str(hard).lower()}\n")
    if own:
        wardian("agent", "budget", name, "--raise", f"tokens={tokens}")
    return "agent" if own else "agent_settings"


def held_after_its_turn(wardian: WardianCli, name: str, session_calls: Callable[[], int]) -> None:
    """A soft budget: the turn that passes it finishes, then the agent is held."""
    source = budget_above_its_use(wardian, name, session_calls, hard=False)
    wardian("send", "spend ECHO:passed", "--to", name, "--wait-until", "idle", "--timeout", "60s")
    wardian.output_shows(name, "MOCK-REPLY passed")
    shown = wardian("agent", "budget", name)
    assert shown["held"] is not None and shown["reached"] == ["tokens"], shown
    assert shown["sources"]["tokens"] == source, shown


def cut_by_a_hard_budget(wardian: WardianCli, name: str, session_calls: Callable[[], int]) -> dict[str, Any]:
    """Give the idle agent a hard budget its next call passes, send it a turn that outlasts it,
    and answer the agent once that turn was interrupted and it is idle and held."""
    source = budget_above_its_use(wardian, name, session_calls, hard=True)

    # Idle only once interrupted: the call after the tool is held until the test releases it.
    wardian("send", CUT_PROMPT, "--to", name, "--wait-until", "idle", "--timeout", "90s", timeout=120)
    # Its call after the tool is never answered (the interrupt may come before it is even made).
    after_tool = [r for r in wardian.cli.server.model_requests() if f"MOCK_HOLD:{HOLD}" in r.body_text()]
    assert not [call for call in after_tool if call.answered_at], "the call after the tool was answered"
    shown = wardian("agent", "budget", name)
    assert shown["held"] is not None and shown["reached"] == ["tokens"], shown
    assert shown["sources"]["tokens"] == source and shown["budget"]["hard"] is True, shown
    return wardian("agent", name, "--fields", "status,status_evidence")["agent"]


def assert_held_until_raised(wardian: WardianCli, name: str) -> None:
    """`send` is refused with `budget_reached` and reaches no model; a raise lets the next one in."""
    server = wardian.cli.server
    refused = subprocess.run(
        [WARDIAN, "send", "after ECHO:refused", "--to", name],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    error = json.loads(refused.stderr)["error"]
    assert refused.returncode == 1 and error["code"] == "budget_reached", refused.stderr
    assert f"wardian agent budget {name} --raise tokens=+" in error["hint"], error

    # A cut call's history carries the tool's output, so every later call would be held too.
    server.release(HOLD)
    raised = wardian("agent", "budget", name, "--raise", "tokens=+20000")
    assert raised["held"] is None and raised["left"]["tokens"] > 0, raised
    wardian("send", "raised ECHO:delivered", "--to", name, "--wait-until", "idle", "--timeout", "60s")
    texts = [request.body_text() for request in server.model_requests()]
    assert not any("ECHO:refused" in text for text in texts)
    assert any("ECHO:delivered" in text for text in texts)
    wardian.output_shows(name, "MOCK-REPLY delivered")
