"""Remotes without ssh: which machine a command line names, the claim a forwarded ask carries,
and how a workflow role on another machine is checked and asked."""

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from wardian_core.control.models import AskParams
from wardian_core.durations import parse_duration
from wardian_core.errors import WardianError
from wardian_core.workflows.model import AgentNode
from wardian_core.workflows.validation import validate_workflow
from wardian_host.agents.asking import _asker_columns
from wardian_host.remote import asker_claims
from wardian_host.remote.addressing import target_of
from wardian_host.remote.settings import configured_remotes
from wardian_host.workflows.remote_roles import RemotePlayer, ask_args


@pytest.mark.parametrize(
    ("args", "remote", "forwarded"),
    [
        (["--remote", "devbox", "agent", "list"], "devbox", ["agent", "list"]),
        (["--remote=devbox", "agent", "list"], "devbox", ["agent", "list"]),
        (["agent", "show", "bob@devbox"], "devbox", ["agent", "show", "bob"]),
        (["agent", "bob@devbox", "--fields", "name"], "devbox", ["agent", "bob", "--fields", "name"]),
        (["agent", "wait", "bob@dev.box", "--until", "idle"], "dev.box", ["agent", "wait", "bob", "--until", "idle"]),
        (["send", "hi", "--to", "bob@devbox"], "devbox", ["send", "hi", "--to", "bob"]),
        (["send", "hi", "--to=bob@devbox"], "devbox", ["send", "hi", "--to=bob"]),
        (["ask", "bob@devbox", "why?"], "devbox", ["ask", "bob", "why?"]),
    ],
)
def test_an_address_names_the_machine_and_becomes_a_bare_name(
    args: list[str], remote: str, forwarded: list[str]
) -> None:
    assert target_of(args, None) == (remote, forwarded)


@pytest.mark.parametrize(
    "args",
    [
        ["send", "mail bob@devbox", "--to", "bob"],  # a message's text is never an address
        ["send", "bob@devbox", "--to", "bob"],
        ["agent", "spawn", "--name", "s", "--", "ssh", "me@devbox"],  # a spawned command's own words
        ["ask", "bob", "is me@devbox up?"],
        ["agent", "list"],
    ],
)
def test_words_that_are_not_agent_names_stay_on_this_machine(args: list[str]) -> None:
    assert target_of(args, None) is None


def test_the_environment_names_the_machine_and_a_conflicting_address_is_refused() -> None:
    assert target_of(["agent", "list"], "devbox") == ("devbox", ["agent", "list"])
    with pytest.raises(WardianError) as raised:
        target_of(["--remote", "devbox", "agent", "show", "bob@other"], None)
    assert raised.value.code == "usage"


def test_a_bad_remote_table_names_the_key(wardian_home: Path) -> None:
    (wardian_home / "settings.toml").write_text('[remotes.devbox]\nssh = "me@devbox"\nport = "22"\n')
    with pytest.raises(WardianError) as raised:
        configured_remotes(wardian_home)
    assert raised.value.code == "validation_failed" and "remotes.devbox.port" in raised.value.message


def test_a_local_command_does_not_import_the_remote_package() -> None:
    probe = (
        "import sys\nfrom wardian_host.cli import _run\ntry:\n    _run(['--version'])\nexcept SystemExit:\n    pass\n"
        "print('wardian_host.remote' in sys.modules)"
    )
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert shown.stdout.strip().endswith("False")


@pytest.mark.parametrize(
    ("args", "claimed"),
    [
        (["ask", "bob", "why?"], ["ask", "--asker-machine", "here", "--asker-name", "me", "bob", "why?"]),
        (["ask", "question", "bob", "why?"], ["ask", "question", "--asker-machine", "here", "--asker-name", "me"]),
        (["ask", "show", "ask_0123456789abcdef"], ["ask", "show", "ask_0123456789abcdef"]),
        (["send", "hi", "--to", "bob"], ["send", "hi", "--to", "bob"]),
    ],
)
def test_only_an_ask_carries_the_asking_machine_and_its_claim(
    args: list[str], claimed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(asker_claims, "this_machine", lambda: "here")
    assert asker_claims.with_asker_claim(args, "me")[: len(claimed)] == claimed


def test_a_claim_is_kept_unverified_and_an_agent_here_is_itself_whatever_it_claims() -> None:
    params = AskParams(target="bob", message="why?", asker_machine="laptop", asker_name="alice")
    here = SimpleNamespace(name="carol", uuid="c-uuid")

    from_afar = _asker_columns(params, None, False)
    from_an_agent_here = _asker_columns(params, here, True)

    assert from_afar == {"asker": "alice", "asker_verified": False, "asker_machine": "laptop"}
    assert from_an_agent_here == {"asker": "carol", "asker_verified": True, "asker_machine": None}
    assert _asker_columns(AskParams(target="bob", message="why?"), None, False)["asker_verified"] is None


@pytest.mark.parametrize(("field", "value"), [("run_mode", "inherit_fresh"), ("worktree", True)])
def test_a_role_on_another_machine_runs_ephemeral_without_a_worktree(field: str, value: object) -> None:
    node = {"id": "n", "kind": "agent", "role": "far", "prompt": "p", field: value}
    workflow = {"id": "w", "roles": {"far": {"agent": "sage@devbox"}}, "nodes": [node]}

    problems = [error["problem"] for error in validate_workflow(workflow)[1]]

    assert problems == ["remote_role_mode"]


def test_the_claimed_asker_is_the_local_agent_the_session_variable_names(
    seed_agent: Any, wardian_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = seed_agent(name="planner")
    monkeypatch.setenv("WARDIAN_SESSION_ID", agent["uuid"])
    assert asker_claims.local_asker(wardian_home) == "planner"
    monkeypatch.setenv("WARDIAN_SESSION_ID", "no-such-agent")
    assert asker_claims.local_asker(wardian_home) is None
    monkeypatch.delenv("WARDIAN_SESSION_ID")
    assert asker_claims.local_asker(wardian_home) is None


@pytest.mark.parametrize("timeout", [0.5, 600.0, 1e6])
def test_a_remote_role_asks_with_the_node_timeout_in_a_duration_the_remote_reads(timeout: float) -> None:
    node = AgentNode(id="n", kind="agent", role="far", prompt="p", timeout=timeout)

    args = ask_args(RemotePlayer("sage", "devbox"), node, "w/n")

    assert args[:6] == ["ask", "--asker-machine", asker_claims.this_machine(), "--asker-name", "w/n", "sage"]
    assert parse_duration(args[args.index("--timeout") + 1]) == timeout
