"""Launch configuration, relaunch rules, `agent update`, `agent restart` and `agent clear`,
through the real `wardian` command, a real host and real PTYs.

Two providers: `generic` (session ids assigned by Wardian) and the example provider
(session ids discovered from output) run as `wardian-recording-cli`, a fake that writes
the argv it was started with to its home before it shows its prompt, so the argv
proves whether a launch resumed (`--resume <id>`) or started fresh.
"""

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from wardian_core import identity
from wardian_core.control.client import request as control_request
from wardian_core.db import agents as agent_rows
from wardian_core.db import open_writer
from wardian_core.errors import WardianError

sys.path.insert(0, str(Path(__file__).parents[1] / "example_provider"))
pytest_plugins = ["wardian_test_packages"]

FAKE_CLIS = Path(__file__).parent / "fake_clis"
RECORDER = FAKE_CLIS / "wardian-recording-cli"
COMBINATIONS = [(p, g) for p in ("default", "fresh", "resume") for g in ("fresh", "resume")]


def resumes(persistence: str, global_regular: str) -> bool:
    """The rule as a user reads it in docs/cli.md, written out independently of the host's code."""
    return persistence == "resume" or (persistence == "default" and global_regular == "resume")


@pytest.fixture
def example_env(provider_packages) -> dict[str, str]:
    """The environment the host starts with: the example provider enabled, run as the recorder."""
    return {
        "PATH": f"{FAKE_CLIS}{os.pathsep}{os.environ['PATH']}",
        "WARDIAN_PLUGINS": "generic,example",
        "WARDIAN_EXAMPLE_EXECUTABLE": str(RECORDER),
    }


@pytest.fixture
def wardian(run_wardian, example_env) -> Callable[..., object]:
    """`wardian ARGS` with the example provider available, whichever command starts the host."""

    def run(*args: str):
        return run_wardian(*args, env=example_env)

    return run


@pytest.fixture
def argv_of(wardian_home: Path) -> Callable[[str], list[list[str]]]:
    """Every argv the recorder was launched with for an agent, oldest first."""

    def read(agent_uuid: str) -> list[list[str]]:
        log = wardian_home / "agents" / agent_uuid / "example" / "argv.jsonl"
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    return read


@pytest.fixture
def seed_example(wardian_home: Path, workspace: Path) -> Callable[..., str]:
    """An example agent, not running, whose provider reported a session id in an earlier run."""

    def seed(name: str, launch_config: dict, session_id: str | None = "sess-earlier") -> str:
        conn = open_writer(wardian_home)
        try:
            row = identity.create_agent(conn, class_name="Coder", provider="example", workspace=workspace, name=name)
            agent_rows.update_columns(
                conn, row["uuid"], launch_config=json.dumps(launch_config), provider_session_id=session_id
            )
            return row["uuid"]
        finally:
            conn.close()

    return seed


def ok(result) -> dict:
    assert result.returncode == 0, result.stderr
    return result.json()


def launch_config(wardian, name: str) -> dict:
    return ok(wardian("agent", name, "--fields", "launch_config"))["agent"]["launch_config"]


def session_id(wardian, name: str) -> str | None:
    return ok(wardian("agent", name, "--fields", "provider_session_id"))["agent"]["provider_session_id"]


def wait_idle(wardian, name: str) -> None:
    ok(wardian("agent", "wait", name, "--until", "idle", "--timeout", "20s"))


# -- configuration round trip ----------------------------------------------------------


def test_configuration_round_trips_through_spawn_update_and_show(wardian, generic_spawn_args, tmp_path: Path) -> None:
    notes, skills = tmp_path / "notes", tmp_path / "skills"
    notes.mkdir()
    skills.mkdir()
    spawned = wardian(
        *generic_spawn_args(
            "cfg",
            *("--model", "model-a", "--arg", "--norc", "--include-dir", str(notes)),
            *("--session-persistence", "fresh", "--description", "keeps notes", "--", "bash"),
        )
    )
    ok(spawned)
    shown = ok(wardian("agent", "cfg", "--verbose"))["agent"]
    assert shown["launch_config"] == {
        "model": "model-a",
        "extra_args": ["bash", "--norc"],  # the command after `--`, then each --arg
        "include_dirs": [str(notes)],
        "session_persistence": "fresh",
    }
    assert wardian("agent", "cfg", "--field", "description").stdout.strip() == "keeps notes"

    updated = ok(
        wardian(
            "agent",
            "update",
            "cfg",
            "--model",
            "model-b",
            "--include-dir",
            str(skills),
            "--session-persistence",
            "resume",
            "--description",
            "reviews",
        )
    )
    expected = {
        "model": "model-b",
        "extra_args": ["bash", "--norc"],
        "include_dirs": [str(notes), str(skills)],
        "session_persistence": "resume",
    }
    assert updated["agent"]["launch_config"] == expected and updated["agent"]["description"] == "reviews"
    assert launch_config(wardian, "cfg") == expected

    replaced = ok(
        wardian("agent", "update", "cfg", "--clear-args", "--arg", "sh", "--clear-include-dirs", "--model", "")
    )
    assert replaced["agent"]["launch_config"] == {
        "model": None,
        "extra_args": ["sh"],
        "include_dirs": [],
        "session_persistence": "resume",
    }

    # Stored, not only held by the host: the same answer once no host runs.
    ok(wardian("host", "stop"))
    persisted = ok(wardian("agent", "cfg", "--verbose", "--fields", "status_source,launch_config"))["agent"]
    assert persisted == {"status_source": "persisted", "launch_config": replaced["agent"]["launch_config"]}


def test_update_answers_restart_required_and_restart_applies_the_change(
    wardian, seed_example, argv_of, tmp_path: Path
) -> None:
    uuid = seed_example("upd", {"model": "model-a"}, session_id=None)
    ok(wardian("host", "start"))
    ok(wardian("agent", "resume", "upd"))
    wait_idle(wardian, "upd")
    description_only = ok(wardian("agent", "update", "upd", "--description", "just words"))
    assert description_only["restart_required"] is False
    model_change = ok(wardian("agent", "update", "upd", "--model", "model-b"))
    assert model_change["restart_required"] is True
    assert argv_of(uuid)[-1][argv_of(uuid)[-1].index("--model") + 1] == "model-a"  # the process kept its own

    restarted = ok(wardian("agent", "restart", "upd"))
    assert restarted["agent"]["uuid"] == uuid
    wait_idle(wardian, "upd")
    last = argv_of(uuid)[-1]
    assert last[last.index("--model") + 1] == "model-b"
    assert ok(wardian("agent", "upd", "--fields", "status_evidence"))["agent"]["status_evidence"]["event"] == "ready"

    ok(wardian("agent", "kill", "upd"))
    extra = tmp_path / "extra"
    extra.mkdir()
    stopped = ok(wardian("agent", "update", "upd", "--include-dir", str(extra)))
    assert stopped["restart_required"] is False  # nothing runs: the next launch uses it anyway
    unchanged = ok(wardian("agent", "update", "upd", "--model", "model-b"))
    assert unchanged["restart_required"] is False


def test_provider_settings_in_force_are_shown_and_update_changes_them(wardian, seed_example, argv_of) -> None:
    uuid = seed_example("tuned", {})
    ok(wardian("host", "start"))
    ok(wardian("agent", "resume", "tuned"))
    wait_idle(wardian, "tuned")
    # Nobody set it: the declared default is what runs, and verbose says so.
    shown = ok(wardian("agent", "tuned", "--verbose"))["agent"]
    # Every setting the provider declares, in force: tone as spawned, the rest at their defaults.
    assert shown["provider_settings"] == {"tone": "plain", "limit_resume": "text"}
    assert "settings" not in shown["launch_config"]
    assert argv_of(uuid)[-1][argv_of(uuid)[-1].index("--tone") + 1] == "plain"

    changed = ok(wardian("agent", "update", "tuned", "--provider-setting", "tone=friendly"))
    assert changed["restart_required"] is True
    assert changed["agent"]["launch_config"]["settings"] == {"tone": "friendly"}
    for bad in ("tone=loud", "volume=11", "tone"):
        refused = wardian("agent", "update", "tuned", "--provider-setting", bad)
        assert refused.returncode == 1, bad
        assert refused.error()["code"] == ("usage" if "=" not in bad else "validation_failed"), bad
    ok(wardian("agent", "restart", "tuned"))
    wait_idle(wardian, "tuned")

    assert argv_of(uuid)[-1][argv_of(uuid)[-1].index("--tone") + 1] == "friendly"
    assert ok(wardian("agent", "tuned", "--verbose"))["agent"]["provider_settings"] == {
        "tone": "friendly",
        "limit_resume": "text",
    }
    cleared = ok(wardian("agent", "update", "tuned", "--clear-provider-settings"))
    assert "settings" not in cleared["agent"]["launch_config"]


def test_bad_values_get_the_error_envelope_and_leave_the_stored_configuration_untouched(
    wardian, spawn, generic_spawn_args, workspace: Path, wardian_home: Path, tmp_path: Path
) -> None:
    spawn("steady", "sleep", "600")
    before = launch_config(wardian, "steady")

    missing = wardian("agent", "update", "steady", "--model", "other", "--include-dir", str(tmp_path / "nowhere"))
    assert missing.returncode == 1 and missing.error()["code"] == "usage"
    assert missing.error()["details"]["include_dir"] == str(tmp_path / "nowhere")
    bad = wardian("agent", "update", "steady", "--session-persistence", "sometimes")
    assert bad.returncode == 1 and bad.error()["code"] == "usage"
    nothing = wardian("agent", "update", "steady")
    assert nothing.returncode == 1 and nothing.error()["code"] == "usage"
    assert launch_config(wardian, "steady") == before

    # The host checks for itself what another client might send.
    with pytest.raises(WardianError) as raw:
        control_request(wardian_home, "agent.update", {"target": "steady", "session_persistence": "always"})
    assert raw.value.code == "bad_request"
    with pytest.raises(WardianError) as raw_spawn:
        control_request(
            wardian_home,
            "agent.spawn",
            {
                "provider": "generic",
                "class": "Coder",
                "workspace": str(workspace),
                "name": "invalid",
                "launch_config": {"extra_args": ["sleep", "600"], "session_persistence": "always"},
            },
        )
    assert raw_spawn.value.code == "validation_failed"
    assert raw_spawn.value.details["errors"][0]["field"] == "session_persistence"
    assert launch_config(wardian, "steady") == before

    at_spawn = wardian(*generic_spawn_args("never", "--include-dir", str(tmp_path / "nowhere"), "--", "sleep", "600"))
    assert at_spawn.returncode == 1 and at_spawn.error()["code"] == "usage"
    assert wardian("agent", "never").returncode == 2
    assert wardian("agent", "invalid").returncode == 2


# -- relaunch rules --------------------------------------------------------------------


@pytest.mark.parametrize(("persistence", "global_regular"), COMBINATIONS)
def test_resume_and_restart_of_a_discovered_session_follow_the_relaunch_rule(
    persistence: str, global_regular: str, wardian, seed_example, argv_of
) -> None:
    ok(wardian("settings", "set", "sessions.regular", global_regular))
    uuid = seed_example("disc", {"session_persistence": persistence}, session_id="sess-earlier")
    ok(wardian("host", "start"))

    ok(wardian("agent", "resume", "disc"))
    wait_idle(wardian, "disc")
    if resumes(persistence, global_regular):
        assert argv_of(uuid)[-1][-2:] == ["--resume", "sess-earlier"]
        assert session_id(wardian, "disc") == "sess-earlier"
    else:
        assert "--resume" not in argv_of(uuid)[-1]
        assert session_id(wardian, "disc") is None  # cleared until the provider reports a new one

    ok(wardian("agent", "restart", "disc"))
    wait_idle(wardian, "disc")
    assert len(argv_of(uuid)) == 2
    if resumes(persistence, global_regular):
        assert argv_of(uuid)[-1][-2:] == ["--resume", "sess-earlier"]
    else:
        assert "--resume" not in argv_of(uuid)[-1]


@pytest.mark.parametrize(("persistence", "global_regular"), COMBINATIONS)
def test_resume_and_restart_of_an_assigned_session_follow_the_relaunch_rule(
    persistence: str, global_regular: str, wardian, generic_spawn_args
) -> None:
    ok(wardian("settings", "set", "sessions.regular", global_regular))
    ok(wardian(*generic_spawn_args("asg", "--session-persistence", persistence, "--", "sleep", "600")))
    first = session_id(wardian, "asg")
    assert first  # assigned up front, whatever the persistence
    ok(wardian("agent", "pause", "asg"))
    resumed = ok(wardian("agent", "resume", "asg"))["agent"]
    second = session_id(wardian, "asg")
    restarted = ok(wardian("agent", "restart", "asg"))["agent"]
    third = session_id(wardian, "asg")
    assert resumed["uuid"] == restarted["uuid"]
    launches = [
        (event["evidence"]["action"], event["evidence"]["rule"])
        for event in ok(wardian("agent", "watch", "asg"))["watch"]["events"]
        if event["to"] == "starting"
    ]
    mode = "resume" if resumes(persistence, global_regular) else "fresh"
    assert launches == [("spawn", "fresh"), ("resume", mode), ("restart", mode)]
    if mode == "resume":
        assert first == second == third
    else:
        assert len({first, second, third}) == 3  # a new assigned id at every fresh launch


def test_a_global_setting_change_applies_to_the_next_relaunch(wardian, seed_example, argv_of) -> None:
    uuid = seed_example("follower", {"session_persistence": "default"}, session_id="sess-earlier")
    ok(wardian("settings", "set", "sessions.regular", "fresh"))
    ok(wardian("host", "start"))
    ok(wardian("settings", "set", "sessions.regular", "resume"))  # while the host runs
    ok(wardian("agent", "resume", "follower"))
    wait_idle(wardian, "follower")
    assert argv_of(uuid)[-1][-2:] == ["--resume", "sess-earlier"]


def test_restart_of_a_stopped_agent_launches_it(spawn, wardian) -> None:
    spawn("sleeper", "sleep", "600")
    ok(wardian("agent", "kill", "sleeper"))
    restarted = ok(wardian("agent", "restart", "sleeper"))["agent"]
    assert restarted["status"] == "starting"
    assert wardian("agent", "restart", "nobody").returncode == 2


# -- clone -----------------------------------------------------------------------------


def test_clone_gets_the_configuration_but_never_the_session(wardian, seed_example, argv_of, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    config = {
        "model": "model-c",
        "extra_args": ["--verbose"],
        "include_dirs": [str(notes)],
        "session_persistence": "resume",
    }
    source_uuid = seed_example("source", config, session_id="sess-source")
    ok(wardian("host", "start"))
    ok(wardian("agent", "resume", "source"))
    wait_idle(wardian, "source")
    assert argv_of(source_uuid)[-1][-3:] == ["--resume", "sess-source", "--verbose"]

    copy = ok(wardian("agent", "clone", "source", "--name", "copy"))["agent"]
    wait_idle(wardian, "copy")
    assert launch_config(wardian, "copy") == launch_config(wardian, "source") == config
    copy_argv = argv_of(copy["uuid"])[-1]
    assert "--resume" not in copy_argv and "sess-source" not in copy_argv
    assert copy_argv[copy_argv.index("--model") + 1] == "model-c"
    assert str(notes) in copy_argv and copy_argv[-1] == "--verbose"
    assert session_id(wardian, "copy") is None
    assert session_id(wardian, "source") == "sess-source"

    # The copy's own relaunch has nothing to resume either.
    ok(wardian("agent", "restart", "copy"))
    wait_idle(wardian, "copy")
    assert "--resume" not in argv_of(copy["uuid"])[-1]


def test_clone_of_an_assigned_session_gets_its_own_id(spawn, wardian) -> None:
    spawn("orig", "sleep", "600")
    ok(wardian("agent", "update", "orig", "--session-persistence", "resume", "--model", "m"))
    copy = ok(wardian("agent", "clone", "orig"))["agent"]
    assert launch_config(wardian, copy["name"]) == launch_config(wardian, "orig")
    assert session_id(wardian, copy["name"]) not in (None, session_id(wardian, "orig"))


# -- clear -----------------------------------------------------------------------------


def test_clear_gives_a_new_session_with_the_same_id_and_the_old_processes_output_never_appears(
    run_wardian, generic_spawn_args, wait_status, wardian, workspace: Path
) -> None:
    # The root writes as it is stopped; its child ignores the hangup and answers SIGTERM by
    # writing a second later, while the clear waits for it. late.txt proves both wrote. Its
    # prompt, once its traps are set, makes each launch idle: no quiet time waited.
    script = (
        '( trap "" HUP; trap "sleep 1; echo OLD-CHILD-MARKER; echo child >> late.txt; exit 0" TERM; '
        "while :; do sleep 0.2; done ) & "
        'trap "echo OLD-ROOT-MARKER; echo root >> late.txt; exit 0" HUP; '
        "printf 'life-started> '; sleep 600 & wait"
    )
    prompt = ["--provider-setting", "prompt_pattern=^life-started> $"]
    spawned = run_wardian(*generic_spawn_args("clearme", *prompt, "--", "bash", "-c", script))
    assert spawned.returncode == 0, spawned.stderr
    agent = spawned.json()["agent"]
    ok(wardian("agent", "update", "clearme", "--session-persistence", "resume"))
    wait_status("clearme", "idle")
    before = session_id(wardian, "clearme")
    assert "life-started" in ok(wardian("agent", "watch", "clearme"))["watch"]["output"]

    cleared = ok(wardian("agent", "clear", "clearme"))["agent"]
    assert sorted((workspace / "late.txt").read_text().split()) == ["child", "root"]
    assert (cleared["uuid"], cleared["name"], cleared["status"]) == (agent["uuid"], "clearme", "starting")
    after = session_id(wardian, "clearme")
    assert after and after != before  # fresh although persistence says resume

    wait_status("clearme", "idle")
    watched = ok(wardian("agent", "watch", "clearme"))["watch"]
    assert "OLD-ROOT-MARKER" not in watched["output"] and "OLD-CHILD-MARKER" not in watched["output"]
    assert watched["output"].count("life-started") == 1  # the new process's, and only it
    assert [event["to"] for event in watched["events"]] == ["starting", "idle"]
    assert watched["events"][0]["evidence"]["action"] == "clear"
    assert launch_config(wardian, "clearme")["session_persistence"] == "resume"


def test_clear_of_a_discovered_session_forgets_the_id_and_launches_fresh(wardian, seed_example, argv_of) -> None:
    uuid = seed_example("forget", {"session_persistence": "resume"}, session_id="sess-old")
    ok(wardian("host", "start"))
    ok(wardian("agent", "resume", "forget"))
    wait_idle(wardian, "forget")
    assert argv_of(uuid)[-1][-2:] == ["--resume", "sess-old"]
    assert "--resume sess-old" in ok(wardian("agent", "watch", "forget"))["watch"]["output"]

    cleared = ok(wardian("agent", "clear", "forget"))["agent"]
    assert cleared["uuid"] == uuid
    wait_idle(wardian, "forget")
    assert "--resume" not in argv_of(uuid)[-1]
    assert session_id(wardian, "forget") is None
    output = ok(wardian("agent", "watch", "forget"))["watch"]["output"]
    assert "sess-old" not in output and output.count("started with") == 1
