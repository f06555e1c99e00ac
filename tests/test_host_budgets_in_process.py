"""Budgets on the in-process host (`running_host`): a turn's figures that reach an agent's budget
hold it, every prompt path refuses it with `budget_reached`, and a raise lets it take prompts
again. The figures are reported as a provider's parser reports them (`usage_reported` handed to
the status tracker): a fake provider's plumbing, proven against Claude Code in its real-CLI suite."""

from pathlib import Path
from typing import Any

import pytest
from in_process_agents import WAIT_SECONDS, ask, spawn, wait_until

from wardian_core.control.models import AskParams, SendParams
from wardian_core.errors import WardianError
from wardian_core.notices import Notice
from wardian_core.provider_models import Evidence, ProviderEvent, UsageReport
from wardian_core.settings.model import BudgetLimits
from wardian_host.agents.status_waits import wait_for_status
from wardian_host.agents.watching import output_appears
from wardian_host.daemon.inbox_handlers import inbox_of
from wardian_host.testing.in_process import InProcessHost


def report_usage(host: InProcessHost, name: str, turn: str, tokens: int) -> None:
    """What a provider's parser hands the host when the CLI records a turn's figures."""
    agent = host.host.registry.resolve(name)
    usage = UsageReport(turn_key=turn, input_tokens=tokens - tokens // 4, output_tokens=tokens // 4)
    event = ProviderEvent(kind="usage_reported", evidence=Evidence(source="test", rule="usage"), usage=usage)

    async def reported() -> None:  # on the host's loop, as a parser's events are
        host.host.tracker.apply_event(agent, event)

    host.call(reported())


def send(host: InProcessHost, name: str, text: str) -> dict[str, Any]:
    params = SendParams(to=name, text=text, wait_until="idle", timeout=20)
    return host.call(host.host.sender.send_message(params, None)).wire()


def test_a_turn_past_the_budget_holds_the_agent_until_its_budget_is_raised(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    notices: list[Notice] = []
    running_host.host.notices.subscribe(notices.append)
    spawned = spawn(running_host, tmp_path, "spender", "bash")
    running_host.host.budgets.set_own(spawned["uuid"], BudgetLimits(tokens=1000))
    wait_until(running_host, "spender", "idle")

    report_usage(running_host, "spender", "turn-1", 600)
    assert send(running_host, "spender", "echo first-$((1+1))")["results"][0]["result"] == "delivered"
    report_usage(running_host, "spender", "turn-2", 600)  # 1200 of 1000 tokens

    with pytest.raises(WardianError) as refused:
        send(running_host, "spender", "echo second")
    assert refused.value.code == "budget_reached"
    assert refused.value.hint is not None and "wardian agent budget spender --raise tokens=+" in refused.value.hint
    assert refused.value.details["results"][0]["result"] == "budget_reached"
    with pytest.raises(WardianError) as not_asked:
        ask(running_host, AskParams(target="spender", message="are you there?", timeout=5))
    assert not_asked.value.code == "budget_reached"

    shown = running_host.host.budgets.report(running_host.host.registry.resolve("spender"))
    assert (shown["used"]["tokens"], shown["budget"]["tokens"], shown["left"]["tokens"]) == (1200, 1000, 0)
    assert shown["reached"] == ["tokens"] and shown["held"]["reached"] == ["tokens"]
    assert [notice.kind for notice in notices if notice.kind == "budget"] == ["budget"]
    queue = inbox_of(running_host.host.registry, running_host.host._conn, running_host.host.notices, False)
    entry = next(entry for entry in queue.entries if entry.kind == "budget")
    assert entry.command == "wardian agent budget spender --raise tokens=+20000"

    agent = running_host.host.registry.resolve("spender")
    raised = running_host.host.budgets.change(agent, "tokens=+5000", clear=False)
    assert raised["held"] is None and raised["budget"]["tokens"] == 6000 and raised["left"]["tokens"] == 4800
    assert send(running_host, "spender", "echo third")["results"][0]["result"] == "delivered"
    assert not [
        entry
        for entry in inbox_of(
            running_host.host.registry, running_host.host._conn, running_host.host.notices, False
        ).entries
        if entry.kind == "budget"
    ]
    kinds = [entry["kind"] for entry in agent.event_log if entry["kind"].startswith("budget")]
    assert kinds == ["budget_reached", "budget_lifted"]


def test_clear_lifts_a_hold_a_home_budget_made(running_host: InProcessHost, tmp_path: Path) -> None:
    (running_host.host.home / "settings.toml").write_text("[budgets]\ntokens = 500\n")
    spawn(running_host, tmp_path, "capped", "bash")
    wait_until(running_host, "capped", "idle")
    report_usage(running_host, "capped", "turn-1", 800)
    with pytest.raises(WardianError) as refused:
        send(running_host, "capped", "echo no")
    assert refused.value.code == "budget_reached"

    agent = running_host.host.registry.resolve("capped")
    cleared = running_host.host.budgets.change(agent, None, clear=True)
    assert cleared["held"] is None and cleared["budget"]["tokens"] is None and cleared["sources"]["tokens"] == "none"
    assert send(running_host, "capped", "echo yes")["results"][0]["result"] == "delivered"


def test_a_hard_budget_interrupts_the_turn_that_reaches_it(running_host: InProcessHost, tmp_path: Path) -> None:
    (running_host.host.home / "settings.toml").write_text("[budgets]\ntokens = 100\nhard = true\n")
    spawn(running_host, tmp_path, "runner", "bash")
    wait_until(running_host, "runner", "idle")
    agent = running_host.host.registry.resolve("runner")
    # A turn of over three minutes unless interrupted: its ticks keep the agent processing. One
    # process, not a shell loop of `sleep`s: a ^C landing between two of them (one exited, the
    # next not yet the terminal's foreground) reached no process, and the loop went on.
    ticks = (
        "import signal, time; signal.signal(signal.SIGINT, signal.SIG_DFL); "  # dies of ^C, no traceback
        "[print(f'tick-{i}') or time.sleep(0.2) for i in range(1000)]"
    )
    loop = f'python3 -uc "{ticks}" && echo loop-ended'
    cursor = agent.buffer.end_cursor
    running_host.call(running_host.host.sender.send_message(SendParams(to="runner", text=loop), None))
    running_host.call(output_appears(agent, "tick-2", WAIT_SECONDS, since=cursor))
    assert agent.status == "processing"

    report_usage(running_host, "runner", "turn-1", 150)

    running_host.call(wait_for_status(agent, "idle", WAIT_SECONDS, True))
    assert running_host.host.budgets.report(agent)["held"] is not None
    # 128 + SIGINT: the interrupt reached the process, and bash's mark D says so.
    assert (agent.status_evidence or {}).get("message") == "exit code 130", agent.status_evidence
    output = (agent.buffer.read_from(agent.buffer.start_cursor) or b"").decode(errors="replace")
    # The terminal's echo of the interrupt key, wherever it fell (cc34: "tick-7^C", between a
    # tick and its newline); the command line's own echo names loop-ended, a line of its own would not.
    assert "^C" in output
    assert "loop-ended" not in {line.strip() for line in output.splitlines()}


def test_an_interrupt_key_typed_twice_reaches_the_terminal_as_two_presses(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    """OpenCode interrupts at its second Esc, and reads two in one write as Alt+Esc: each press
    must reach the CLI in a write of its own."""
    spawn(running_host, tmp_path, "twice", "bash")
    wait_until(running_host, "twice", "idle")
    agent = running_host.host.registry.resolve("twice")
    provider = agent.row["provider"]
    info = running_host.host.plugins.info(provider)
    profile = info.input_profile.model_copy(update={"interrupt_key": "\x1b", "interrupt_presses": 2})
    running_host.host.plugins._infos[provider] = info.model_copy(update={"input_profile": profile})
    # A raw terminal's reads, each told with how many bytes it got: one press a read. (Its words
    # are not in the command, whose echo would show them before the terminal is raw.)
    reader = (
        'python3 -c \'import os, tty; tty.setraw(0); os.write(1, b"raw-%d\\r\\n" % 0); '
        '[os.write(1, b"read-%d\\r\\n" % len(os.read(0, 64))) for _ in range(2)]\''
    )
    cursor = agent.buffer.end_cursor
    running_host.call(running_host.host.sender.send_message(SendParams(to="twice", text=reader), None))
    running_host.call(output_appears(agent, "raw-0", WAIT_SECONDS, since=cursor))

    async def interrupt() -> bool:  # on the host's loop, as a budget check calls it
        return running_host.host._interrupt(agent)

    assert running_host.call(interrupt())
    running_host.call(output_appears(agent, "read-1\r\nread-1", WAIT_SECONDS, since=cursor))
