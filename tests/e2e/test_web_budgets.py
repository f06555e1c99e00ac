"""Budgets and spend in the web view, in a real browser (Debian's chromium) against a real host:
a budgeted agent's tile shows a bar per budgeted figure at the share its turns used, a held
agent is marked held and one tap raises its budget, an agent without a budget shows no bar, and
the spend chart draws the hour's tokens from state.db's usage table.

The turns are the example provider's: its fake CLI's hook log, which the host follows, gets a
completed turn with its output tokens (as the CLI's hooks write it), so the figures travel the
path a real CLI's do: parser, usage table, budget check, page state. Proves the plumbing only;
the real CLIs' figures are proven in their real-CLI suites.
"""

import http.client
import json
import os
import re
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from browser import chromium_page, open_view, web_address

from wardian_core import paths

sys.path.insert(0, str(Path(__file__).parents[1] / "example_provider"))
pytest_plugins = ["wardian_test_packages"]

FAKE_CLIS = Path(__file__).parent / "fake_clis"
EXAMPLE_ENV = {"PATH": f"{FAKE_CLIS}{os.pathsep}{os.environ['PATH']}", "WARDIAN_PLUGINS": "generic,example"}
RunWardian = Callable[..., Any]
BUDGET_ROWS = """(uuid) => [...document.querySelectorAll(`#agent-${uuid} .budget-figure`)].map((row) => ({
  figure: row.dataset.figure,
  share: Number(row.querySelector('.budget-bar').dataset.share),
  width: row.querySelector('.budget-fill').style.width,
  words: row.querySelector('.budget-words').textContent,
}))"""
SPEND_BARS = """() => [...document.querySelectorAll('#spend rect.spend-tokens')].map((bar) => ({
  hour: bar.dataset.hour, tokens: Number(bar.dataset.value), title: bar.querySelector('title').textContent,
}))"""


def spawn_example(run_wardian: RunWardian, workspace: Path, name: str, budget: str) -> dict[str, Any]:
    spawned = run_wardian(
        "agent", "spawn", "--provider", "example", "--class", "Coder", "--name", name,
        "--workspace", str(workspace), "--budget", budget, env=EXAMPLE_ENV,
    )  # fmt: skip
    assert spawned.returncode == 0, spawned.stderr
    agent: dict[str, Any] = spawned.json()["agent"]
    return agent


def complete_turn(home: Path, agent: dict[str, Any], output_tokens: int) -> None:
    """What the example CLI's hooks log as a turn completes, with the turn's output tokens."""
    log = paths.agent_dir(home, agent["uuid"]) / "example" / "hooks.jsonl"
    with log.open("a", encoding="utf-8") as lines:
        lines.write(json.dumps({"event": "turn_completed", "output_tokens": output_tokens}) + "\n")


def this_hour() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:00:00.000Z")


def test_a_tile_shows_its_use_against_its_budget_a_held_one_is_raised_and_the_chart_draws_the_hour(
    provider_packages: Path,
    spawn: Callable[..., dict[str, Any]],
    wait_status: Callable[..., dict[str, Any]],
    run_wardian: RunWardian,
    workspace: Path,
    wardian_home: Path,
) -> None:
    spender = spawn_example(run_wardian, workspace, "spender", "tokens=1000,minutes=600")
    capped = spawn_example(run_wardian, workspace, "capped", "tokens=500")
    free = spawn("free", "bash", "--norc")
    for name in ("spender", "capped", "free"):
        wait_status(name, "idle")
    hours = {this_hour()}

    with chromium_page(1400, 900) as page:
        url = open_view(page, lambda: web_address(run_wardian))
        page.wait_for_selector(f"#agent-{spender['uuid']} .budget-figure[data-figure=tokens]")
        # A turn's figures alone (no status change comes with them) move its bar.
        complete_turn(wardian_home, spender, 400)
        page.wait_for_function(
            "(uuid) => document.querySelector(`#agent-${uuid} .budget-words`).textContent.startsWith('400 ')",
            arg=spender["uuid"],
        )
        rows = page.evaluate(BUDGET_ROWS, spender["uuid"])
        assert [(row["figure"], row["share"], row["width"]) for row in rows] == [
            ("tokens", 0.4, "40%"),
            ("minutes", rows[1]["share"], rows[1]["width"]),  # wall time since its spawn: a sliver
        ]
        assert rows[0]["words"] == "400 of 1,000 tokens, 600 left"
        # Its minutes so far are rounded for the words: past half a minute (a loaded run took 32 s
        # from the spawn to here) they say "1 of 600 minutes, 599 left".
        minutes = re.fullmatch(r"(\d+) of 600 minutes, (\d+) left", rows[1]["words"])
        assert minutes is not None, rows[1]["words"]
        used, left = map(int, minutes.groups())
        assert rows[1]["share"] < 0.01 and used <= 6 and used + left == 600
        # No budget, no bar: nothing drawn for it, not an empty bar nor "null".
        assert page.eval_on_selector(f"#agent-{free['uuid']} .budget", "box => box.hidden && !box.childElementCount")
        assert "null" not in page.inner_text(f"#agent-{free['uuid']}")

        complete_turn(wardian_home, capped, 600)  # past its 500: the host holds it
        held = f"#agent-{capped['uuid']}"
        page.wait_for_selector(f"{held} .budget-held")
        assert page.inner_text(f"{held} .held-badge") == "held"
        assert page.evaluate(BUDGET_ROWS, capped["uuid"])[0]["words"] == "600 of 500 tokens, reached"
        assert page.eval_on_selector(f"{held} .budget-figure", "row => row.classList.contains('reached')")
        assert page.inner_text(f"{held} .budget-command") == "wardian agent budget capped --raise tokens=+20000"
        assert run_wardian("send", "hello", "--to", "capped").error()["code"] == "budget_reached"

        page.wait_for_function("() => document.querySelector('#spend').dataset.tokens === '1000'")
        hours.add(this_hour())  # the turns' hour, should the hour have turned meanwhile
        bars = page.evaluate(SPEND_BARS)
        assert len(bars) == 24 and bars[-1]["hour"] in hours
        spent = [(bar["hour"], bar["tokens"]) for bar in bars if bar["tokens"]]
        assert sum(tokens for _, tokens in spent) == 1000 and {hour for hour, _ in spent} <= hours
        assert "capped 600" in next(bar["title"] for bar in bars if bar["tokens"])
        assert page.inner_text("#spend .spend-total") == "1,000 tokens · cost not stated · 2 turns"

        with page.expect_response(lambda response: response.url.endswith("/api/action")) as answered:
            page.click(f"{held} button.budget-raise")  # one tap: `agent budget capped --raise tokens=+20000`
        assert answered.value.ok and answered.value.json()["result"]["held"] is None
        page.wait_for_selector(f"{held} .budget-held", state="detached")
        assert page.evaluate(BUDGET_ROWS, capped["uuid"])[0]["words"] == "600 of 20,500 tokens, 19,900 left"
        assert page.query_selector(f"{held} .held-badge") is None

    assert run_wardian("send", "hello", "--to", "capped").returncode == 0
    # The chart's source is behind the view's gate: no session, no spend.
    port = int(url.split(":")[2].split("/")[0])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/api/spend", headers={"Host": f"127.0.0.1:{port}"})
    assert connection.getresponse().status == 401
