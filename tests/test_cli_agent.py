"""The read surface of `wardian agent`, driven through the installed command."""

import contextlib
import json
import os
import sqlite3
from pathlib import Path

import pytest

from wardian_core.db.migrations import CURRENT_VERSION
from wardian_core.fields import DEFAULT_FIELDS, VERBOSE_FIELDS
from wardian_core.models import AgentRecord


@pytest.fixture
def workspaces(tmp_path: Path) -> tuple[Path, Path]:
    first, second = tmp_path / "ws-one", tmp_path / "ws-two"
    first.mkdir()
    second.mkdir()
    return first.resolve(), second.resolve()


@pytest.fixture
def roster(seed_agent, workspaces) -> dict[str, dict]:
    one, two = workspaces
    return {
        "alice": seed_agent(
            "Coder", name="alice", workspace=one, status="idle", pid=4242, started_at="2026-11-01T10:00:00.000Z"
        ),
        "bob": seed_agent("Reviewer", name="bob", workspace=one, status="processing"),
        "carol": seed_agent("Coder", name="carol", workspace=two, status="error"),
    }


def test_peer_lookup_by_name_gives_the_default_fields(run_wardian, roster, workspaces) -> None:
    result = run_wardian("agent", "alice")
    assert result.returncode == 0, result.stderr
    envelope = result.json()
    assert envelope["schema"] == 1
    assert tuple(envelope["agent"]) == DEFAULT_FIELDS
    assert envelope["agent"] == {
        "name": "alice",
        "uuid": roster["alice"]["uuid"],
        "class": "Coder",
        "provider": "generic",
        "workspace": str(workspaces[0]),
        "status": "idle",
    }
    assert result.stdout.startswith('{\n  "schema": 1')  # indented


def test_show_by_uuid_and_explicit_show_form_agree(run_wardian, roster) -> None:
    by_uuid = run_wardian("agent", "show", roster["bob"]["uuid"])
    by_name = run_wardian("agent", "bob")
    assert by_uuid.returncode == 0 and by_uuid.json() == by_name.json()
    assert by_uuid.json()["agent"]["status"] == "processing"


def test_self_lookup_uses_wardian_session_id(run_wardian, roster) -> None:
    result = run_wardian("agent", env={"WARDIAN_SESSION_ID": roster["carol"]["uuid"]})
    assert result.returncode == 0, result.stderr
    assert result.json()["agent"]["name"] == "carol"


def test_a_stale_session_id_is_named_in_the_refusal(run_wardian, roster) -> None:
    stale = "0b6f1e2a-3d2f-4e51-9c1d-7f3e0c6ac19d"
    result = run_wardian("agent", env={"WARDIAN_SESSION_ID": stale})
    assert result.returncode == 2
    error = result.error()
    assert error["code"] == "not_found" and "WARDIAN_SESSION_ID names no agent" in error["message"]
    assert "Unset WARDIAN_SESSION_ID" in error["hint"] and error["details"]["session_id"] == stale


def test_self_lookup_outside_an_agent_is_not_in_session_exit_3(run_wardian, roster) -> None:
    result = run_wardian("agent")
    assert result.returncode == 3
    error = result.error()
    assert error["code"] == "not_in_session" and "wardian agent <name>" in error["hint"]


def test_unknown_agent_is_not_found_exit_2(run_wardian, roster) -> None:
    result = run_wardian("agent", "show", "nobody")
    assert result.returncode == 2
    assert result.error()["code"] == "not_found"


def test_verbose_adds_process_fields(run_wardian, roster) -> None:
    agent = run_wardian("agent", "alice", "--verbose").json()["agent"]
    assert tuple(agent) == VERBOSE_FIELDS
    assert agent["pid"] == 4242 and agent["started_at"] == "2026-11-01T10:00:00.000Z"
    assert agent["last_status_at"].endswith("Z")


def test_fields_selects_and_orders_including_status_source(run_wardian, roster) -> None:
    agent = run_wardian("agent", "alice", "--fields", "status_source,name").json()["agent"]
    assert list(agent.items()) == [("status_source", "persisted"), ("name", "alice")]


def test_unknown_field_is_invalid_field_exit_1(run_wardian, roster) -> None:
    for args in (("agent", "alice", "--fields", "name,env"), ("agent", "list", "--field", "env")):
        result = run_wardian(*args)
        assert result.returncode == 1
        assert result.error()["code"] == "invalid_field"


def test_field_prints_bare_values_one_line_per_agent(run_wardian, roster) -> None:
    assert run_wardian("agent", "alice", "--field", "uuid").stdout == roster["alice"]["uuid"] + "\n"
    assert run_wardian("agent", "list", "--field", "name").stdout == "alice\nbob\ncarol\n"
    assert run_wardian("agent", "bob", "--field", "pid").stdout == "\n"


def test_pretty_is_aligned_and_uncoloured_when_piped(run_wardian, roster) -> None:
    block = run_wardian("agent", "alice", "--pretty").stdout
    assert "\x1b[" not in block
    assert block.splitlines()[0].split() == ["name", "alice"]
    # "workspace" is the widest key: every value starts in column 11
    assert all(line[9:11] == "  " and line[11] != " " for line in block.splitlines())
    table = run_wardian("agent", "list", "--pretty").stdout.splitlines()
    assert table[0].split() == ["NAME", "UUID", "CLASS", "PROVIDER", "WORKSPACE", "STATUS"]
    assert [row.split()[0] for row in table[1:]] == ["alice", "bob", "carol"]
    assert table[1].index("idle") == table[0].index("STATUS")


def test_list_outside_an_agent_defaults_to_all(run_wardian, roster) -> None:
    names = [a["name"] for a in run_wardian("agent", "list").json()["agents"]]
    assert names == ["alice", "bob", "carol"]


def test_list_inside_an_agent_defaults_to_its_workspace(run_wardian, roster) -> None:
    inside = {"WARDIAN_SESSION_ID": roster["carol"]["uuid"]}
    assert [a["name"] for a in run_wardian("agent", "list", env=inside).json()["agents"]] == ["carol"]
    inside = {"WARDIAN_SESSION_ID": roster["alice"]["uuid"]}
    assert [a["name"] for a in run_wardian("agent", "list", env=inside).json()["agents"]] == ["alice", "bob"]
    everyone = run_wardian("agent", "list", "--scope", "all", env=inside).json()["agents"]
    assert len(everyone) == 3


def test_scope_workspace_with_path_argument(run_wardian, roster, workspaces) -> None:
    result = run_wardian("agent", "list", "--scope", f"workspace:{workspaces[1]}")
    assert [a["name"] for a in result.json()["agents"]] == ["carol"]
    from_cwd = run_wardian("agent", "list", "--scope", "workspace", cwd=workspaces[0])
    assert [a["name"] for a in from_cwd.json()["agents"]] == ["alice", "bob"]


def test_a_reserved_scope_kind_is_not_supported_yet(run_wardian, roster) -> None:
    result = run_wardian("agent", "list", "--scope", "team:red")
    assert result.returncode == 1
    error = result.error()
    assert error["code"] == "not_supported" and error["details"]["supported"] == ["workspace", "all"]


def test_an_unknown_scope_kind_is_a_usage_error_not_a_promise(run_wardian, roster) -> None:
    result = run_wardian("agent", "list", "--scope", "bogus")
    assert result.returncode == 1
    error = result.error()
    assert error["code"] == "usage" and error["message"] == "unknown scope 'bogus'"
    assert "not supported yet" not in error["message"] and "--scope all" in error["hint"]


def test_filters_by_status_class_and_workspace(run_wardian, roster, workspaces) -> None:
    def names(*args: str, env: dict | None = None) -> list[str]:
        result = run_wardian("agent", "list", *args, env=env)
        assert result.returncode == 0, result.stderr
        return [a["name"] for a in result.json()["agents"]]

    assert names("--status", "error") == ["carol"]
    assert names("--class", "Coder") == ["alice", "carol"]
    assert names("--class", "Coder", "--status", "idle") == ["alice"]
    # --workspace implies --scope all, even inside an agent of another workspace
    inside = {"WARDIAN_SESSION_ID": roster["carol"]["uuid"]}
    assert names("--workspace", str(workspaces[0]), env=inside) == ["alice", "bob"]
    assert names("--status", "headless") == []


def test_bad_status_value_is_a_usage_error_envelope(run_wardian, roster) -> None:
    result = run_wardian("agent", "list", "--status", "sleeping")
    assert result.returncode == 1
    error = result.error()
    assert error["code"] == "usage" and "sleeping" in error["message"]


def test_unknown_option_and_unknown_command_are_usage_envelopes(run_wardian, roster) -> None:
    for args in (("agent", "list", "--bogus"), ("frobnicate",), ("agent", "show", "a", "b")):
        result = run_wardian(*args)
        assert result.returncode == 1, args
        assert result.error()["code"] == "usage"


def test_help_and_version_stay_plain_text(run_wardian) -> None:
    help_result = run_wardian("agent", "--help")
    assert help_result.returncode == 0 and "list" in help_result.stdout and help_result.stderr == ""
    version = run_wardian("--version")
    assert version.returncode == 0 and version.stdout.startswith("wardian, version ")


def test_missing_state_db_is_db_unavailable_exit_4(run_wardian, wardian_home) -> None:
    result = run_wardian("agent", "list")
    assert result.returncode == 4
    assert result.error()["code"] == "db_unavailable"
    assert not (wardian_home / "state.db").exists()


def test_too_new_state_db_is_db_unavailable_and_untouched(run_wardian, wardian_home) -> None:
    db = wardian_home / "state.db"
    raw = sqlite3.connect(db)
    raw.execute(f"PRAGMA user_version = {CURRENT_VERSION + 1}")
    raw.close()
    before = db.read_bytes()
    result = run_wardian("agent", "list")
    assert result.returncode == 4
    assert result.error()["code"] == "db_unavailable"
    assert db.read_bytes() == before


def test_every_field_validates_against_the_agent_record_model(run_wardian, roster) -> None:
    from wardian_core.fields import ALL_FIELDS

    agents = run_wardian("agent", "list", "--fields", ",".join(ALL_FIELDS)).json()["agents"]
    records = [AgentRecord.model_validate(agent) for agent in agents]
    assert [r.name for r in records] == ["alice", "bob", "carol"]
    assert "env" not in agents[0] and "environment" not in agents[0]


def test_plain_field_tuples_match_the_model() -> None:
    from wardian_core.fields import ALL_FIELDS

    model_fields = {field.alias or name for name, field in AgentRecord.model_fields.items()}
    assert set(ALL_FIELDS) == model_fields


# What `agent <name>`, `agent list` and a `send` the host answers at once may import beyond the
# floor (click, sqlite3, json, socket: the floor of benchmarks/cli_startup.py). A module added
# here costs every `wardian` call its import: add one only when the read path needs it.
READ_PATH_MODULES = frozenset(
    {
        # click's gettext looks up the locale for its help texts
        "locale",
        "_locale",
        # the host's peer credentials (endpoint.peer_uid)
        "struct",
        "_struct",
        # the host lock's pid probe (a host that runs but did not answer)
        "fcntl",
        "wardian_core.process_locks",
        "wardian_core.atomic_files",
        "wardian_host",
        "wardian_host.cli",
        "wardian_host.cli.lazy_group",
        "wardian_host.cli.agent",
        "wardian_host.cli.send",
        "wardian_host.cli.message_source",
        "wardian_host.cli.option_checks",
        "wardian_host.cli.render",
        # what each verb answers, below the CLI and the host's MCP tools
        "wardian_host.answers",
        "wardian_host.answers.agents",
        "wardian_host.answers.records",
        "wardian_host.answers.send",
        "wardian_host.answers.messages",
        # send --wait-until: its wait carried to the next host after a restart (small, no imports of its own)
        "wardian_host.answers.host_return",
        # how an answer reaches the host: the socket, or the host's own routes for an MCP tool
        # (a context variable says which; `_contextvars` is built into the interpreter)
        "wardian_host.answers.connection",
        "contextvars",
        "_contextvars",
        "wardian_core",
        "wardian_core.version",
        "wardian_core.errors",
        "wardian_core.paths",
        "wardian_core.statuses",
        "wardian_core.stored_text",
        "wardian_core.fields",
        "wardian_core.durations",
        "wardian_core.message_reading",
        "wardian_core.scope",
        "wardian_core.clock",
        "wardian_core.identity",
        "wardian_core.roster",
        "wardian_core.db",
        "wardian_core.db.connection",
        "wardian_core.db.migrations",
        "wardian_core.db.agents",
        "wardian_core.db.events",
        "wardian_core.control",
        "wardian_core.control.endpoint",
        "wardian_core.control.protocol",
        "wardian_core.control.client",
    }
)


def _modules_after(source: str) -> set[str]:
    """The modules a fresh interpreter holds once `source` ran and left with exit code 0 (main()
    included: it leaves through os._exit, which the probe wraps to list them on the way out)."""
    import subprocess
    import sys

    probe = (
        "import os, sys\n"
        "leave = os._exit\n"
        "def listed(code):\n"
        "    sys.stderr.write(f'\\nMODULES {code} ' + ' '.join(sys.modules) + '\\n')\n"
        "    leave(code)\n"
        "os._exit = listed\n"
        f"{source}\n"
        "listed(0)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=os.environ, timeout=60)
    exit_code, *listing = done.stderr.rsplit("\nMODULES ", 1)[-1].split()
    assert exit_code == "0", done.stderr
    return set(listing)


@pytest.mark.parametrize(
    "argv",
    [["agent", "alice"], ["agent", "list", "--scope", "all"], ["send", "--to", "alice", "--wait-until", "idle", "hi"]],
    ids=["agent-name", "agent-list", "send-answered-at-once"],
)
def test_the_read_path_imports_only_the_allowed_modules(roster, wardian_home: Path, argv: list[str]) -> None:
    from answering_host import answering_host

    floor = _modules_after("import click, sqlite3, json, socket")
    with answering_host(wardian_home, {"results": []}) if argv[0] == "send" else contextlib.nullcontext():
        imported = _modules_after(f"from wardian_host.cli import main\nmain({argv!r})")
    assert "wardian_host.answers.connection" in imported  # the probe saw the command run
    assert sorted(imported - floor - READ_PATH_MODULES) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["agent", "spawn", "--provider", "generic", "--class", "Coder", "--name", "a1", "--", "sleep", "9"],
        ["agent", "wait", "a1", "--until", "idle"],
        ["agent", "kill", "a1"],
        ["agent", "pause", "a1"],
        ["agent", "clone", "a1", "--name", "a2"],
    ],
    ids=["spawn", "wait", "kill", "pause", "clone"],
)
def test_the_lifecycle_verbs_load_no_models(wardian_home: Path, argv: list[str]) -> None:
    """Agents and scripts call these all day, each a new interpreter: pydantic alone would
    triple their start-up (benchmarks/cli_startup.py), so models stay with the host."""
    from answering_host import answering_host
    from stand_in_rows import stand_in_row

    with answering_host(wardian_home, dict(stand_in_row(name="a1"))):
        imported = _modules_after(f"from wardian_host.cli import main\nmain({argv!r})")
    assert "wardian_host.answers.lifecycle" in imported  # the probe saw the command run
    assert sorted(name for name in imported if name.split(".")[0] in {"pydantic", "pydantic_core"}) == []


def _pretty_on_a_terminal(env: dict[str, str]) -> str:
    import sys

    from ptyprocess import PtyProcessUnicode

    wardian = str(Path(sys.executable).parent / "wardian")
    terminal = PtyProcessUnicode.spawn([wardian, "agent", "alice", "--pretty"], env=env)
    screen = ""
    while True:
        try:
            screen += terminal.read(4096)
        except EOFError:
            break
    terminal.wait()
    assert terminal.exitstatus == 0
    return screen


def test_pretty_colours_the_status_on_a_terminal(roster) -> None:
    env = {name: value for name, value in os.environ.items() if name != "NO_COLOR"}
    assert "\x1b[32midle" in _pretty_on_a_terminal(env)  # green, the palette's emerald


def test_pretty_on_a_terminal_has_no_colour_while_no_color_is_set(roster) -> None:
    screen = _pretty_on_a_terminal(dict(os.environ) | {"NO_COLOR": "1"})
    assert "idle" in screen and "\x1b[" not in screen


def test_structured_fields_print_as_one_line_of_json(run_wardian, roster) -> None:
    bare = run_wardian("agent", "alice", "--field", "status_evidence").stdout
    assert json.loads(bare) == {"source": "test-seed"} and bare.count("\n") == 1
    block = run_wardian("agent", "alice", "--pretty", "--fields", "name,status_evidence").stdout
    assert block.splitlines()[1].split(None, 1) == ["status_evidence", '{"source":"test-seed"}']
