"""`wardian providers list|show|replay` as a user runs them."""

import json
import os
import sys
from pathlib import Path

import pytest

from wardian_core import provider_models
from wardian_host.providers.inventory import version_tested

sys.path.insert(0, str(Path(__file__).parent / "example_provider"))
pytest_plugins = ["wardian_test_packages"]

FIXTURES = Path(__file__).parent / "example_provider" / "tests" / "fixtures"


def installed_provider_names() -> set[str]:
    """The plugins this environment installs besides the test packages (the repo's own providers)."""
    from importlib.metadata import entry_points

    return {point.name for point in entry_points(group="wardian")}


def rows(result) -> dict[str, dict]:
    assert result.returncode == 0, result.stderr
    envelope = result.json()
    assert envelope["schema"] == 1
    return {row["name"]: row for row in envelope["providers"]}


def fake_cli(directory: Path, name: str = "wardian-example-cli", version: str = "4.5.6") -> Path:
    """An executable that answers --version and counts how often it was run."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / name
    script.write_text(f'#!/bin/sh\necho run >> "{directory}/runs"\necho "wardian-example-cli {version}"\n')
    script.chmod(0o755)
    return script


def runs(directory: Path) -> int:
    path = directory / "runs"
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_clean_install_lists_generic_ready(run_wardian) -> None:
    listed = rows(run_wardian("providers", "list"))
    assert "generic" in listed and set(listed) == installed_provider_names()
    generic = listed["generic"]
    assert (generic["readiness"], generic["package"], generic["executable"], generic["hint"]) == (
        "ready",
        "wardian",
        None,
        None,
    )
    assert generic["capabilities"] == ["interactive"]
    assert "parse_output" in generic["hooks"]


def test_installed_provider_without_its_cli_is_missing_executable_with_a_hint(run_wardian, provider_packages) -> None:
    example = rows(run_wardian("providers", "list"))["example"]
    assert (example["package"], example["package_version"]) == ("wardian-example", "0.3.0")
    assert example["readiness"] == "missing_executable"
    assert example["executable"] == "wardian-example-cli"
    assert example["executable_path"] is None
    assert example["hint"] == (
        "Install it with `pip install wardian-example-cli`, then make sure it is on PATH, "
        "or set WARDIAN_EXAMPLE_EXECUTABLE to its path."
    )


def test_broken_plugins_are_reported_and_agent_list_still_works(run_wardian, provider_packages, seed_agent) -> None:
    listed = rows(run_wardian("providers", "list"))
    expected = {
        "example": "missing_executable",
        "generic": "ready",
        "raising": "ready",
        "broken-hook": "broken_plugin",
        "broken-import": "broken_plugin",
        "old-contract": "broken_plugin",
    }
    assert {name: listed[name]["readiness"] for name in expected} == expected
    # Beside these, the repo's own providers; `recorder` is an observer, not a provider.
    assert installed_provider_names() - set(listed) == {"recorder"}
    assert listed["broken-import"]["error"] == (
        "import: ImportError: wardian_broken needs the library frobnicate, which is not installed"
    )
    assert "parse_outputs" in listed["broken-hook"]["error"]
    assert listed["old-contract"]["hint"] == (
        "wardian-broken-providers is built for provider contract version 2; this wardian implements version 3. "
        "Install a release of wardian-broken-providers built for contract 3, or a wardian that implements "
        "contract 2, or leave it out with WARDIAN_PLUGINS."
    )

    seed_agent(name="survivor")
    agents = run_wardian("agent", "list", "--scope", "all")
    assert agents.returncode == 0, agents.stderr
    assert [agent["name"] for agent in agents.json()["agents"]] == ["survivor"]


def test_allow_list_limits_what_is_listed(run_wardian, provider_packages) -> None:
    assert list(rows(run_wardian("providers", "list", env={"WARDIAN_PLUGINS": "example"}))) == ["example"]
    assert rows(run_wardian("providers", "list", env={"WARDIAN_PLUGINS": ""})) == {}


def test_executable_on_path_is_found_and_its_version_cached(
    run_wardian, provider_packages, tmp_path, wardian_home
) -> None:
    bin_dir = tmp_path / "bin"
    script = fake_cli(bin_dir)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    example = rows(run_wardian("providers", "list", env=env))["example"]
    assert (example["readiness"], example["executable_path"], example["executable_source"]) == (
        "ready",
        str(script),
        "path",
    )
    assert example["executable_version"] == "wardian-example-cli 4.5.6"
    assert example["hint"] is None
    assert runs(bin_dir) == 1

    assert (
        rows(run_wardian("providers", "list", env=env))["example"]["executable_version"] == "wardian-example-cli 4.5.6"
    )
    assert runs(bin_dir) == 1, "the cached version must be reused while the file is unchanged"
    cache = json.loads((wardian_home / "cache" / "provider-versions.json").read_text())
    assert [entry["version"] for entry in cache["entries"].values()] == ["wardian-example-cli 4.5.6"]

    fake_cli(bin_dir, version="4.6.0")  # an upgrade rewrites the file
    os.utime(script, ns=(0, os.stat(script).st_mtime_ns + 1_000_000_000))
    assert (
        rows(run_wardian("providers", "list", env=env))["example"]["executable_version"] == "wardian-example-cli 4.6.0"
    )
    assert runs(bin_dir) == 2


def test_override_variable_wins_over_path(run_wardian, provider_packages, tmp_path) -> None:
    script = fake_cli(tmp_path / "elsewhere", name="my-example")
    example = rows(run_wardian("providers", "list", env={"WARDIAN_EXAMPLE_EXECUTABLE": str(script)}))["example"]
    assert (example["readiness"], example["executable_path"], example["executable_source"]) == (
        "ready",
        str(script),
        "override",
    )


def test_override_pointing_nowhere_is_missing_executable(run_wardian, provider_packages, tmp_path) -> None:
    missing = str(tmp_path / "nope")
    example = rows(run_wardian("providers", "list", env={"WARDIAN_EXAMPLE_EXECUTABLE": missing}))["example"]
    assert example["readiness"] == "missing_executable"
    assert example["hint"] == f"WARDIAN_EXAMPLE_EXECUTABLE={missing} is not an executable file; fix or unset it."


def test_pretty_list_puts_a_hint_under_each_row_that_is_not_ready(run_wardian, provider_packages) -> None:
    result = run_wardian("providers", "list", "--pretty", env={"WARDIAN_PLUGINS": "example,generic,broken-import"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "READINESS", "PACKAGE", "EXECUTABLE", "VERSION", "TESTED"]
    assert lines[1].split()[:2] == ["example", "missing_executable"]
    assert lines[2].strip().startswith("hint: Install it with")
    assert lines[3].split()[:2] == ["generic", "ready"]
    assert lines[4].split()[:2] == ["broken-import", "broken_plugin"]
    assert lines[5].strip().startswith("error: import: ImportError")
    assert lines[6].strip().startswith("hint: Upgrade or reinstall wardian-broken-providers")


def test_show_gives_the_full_record(run_wardian, provider_packages) -> None:
    result = run_wardian("providers", "show", "example")
    assert result.returncode == 0, result.stderr
    provider = result.json()["provider"]
    assert provider["input_profile"] == {
        "submit_key": "\r",
        "bracketed_paste": True,
        "paste_threshold": 120,
        "settle_seconds": 0.1,
        "submit_once_drawn": False,  # the example waits the full settle before its submit key
        "dialogs": {"allow": {"accept": "y", "reject": "n", "settle_seconds": 0.0, "drawn": None}},
        "sender_tag": True,
        "turn_start_seconds": None,  # the example declares no turn-start signal: sends unconfirmed
        "input_marker": None,
        "paste_placeholder": None,
        "interrupt_key": None,
        "interrupt_presses": 1,
    }
    assert (provider["session_id_mode"], provider["instruction_file"], provider["contract_version"]) == (
        "discovered",
        "AGENTS.md",
        3,
    )
    assert provider["entry_point"] == "wardian_example.plugin"
    assert provider["executable_override_variable"] == "WARDIAN_EXAMPLE_EXECUTABLE"


def test_show_of_an_installed_provider_built_for_another_contract_names_both_versions(
    run_wardian, provider_packages
) -> None:
    # Its provider.toml, installed with its package, says `contract_version = 2`.
    provider = run_wardian("providers", "show", "old-contract").json()["provider"]
    assert (provider["readiness"], provider["failure_stage"], provider["contract_version"]) == (
        "broken_plugin",
        "contract",
        2,
    )
    assert provider["error"] == "contract: built for contract version 2; this wardian implements version 3"
    assert "contract version 2; this wardian implements version 3" in provider["hint"]


def test_show_of_an_unknown_provider_is_not_found(run_wardian) -> None:
    result = run_wardian("providers", "show", "nosuch", env={"WARDIAN_PLUGINS": "generic"})
    assert result.returncode == 2
    error = result.error()
    assert (error["code"], error["hint"]) == (
        "not_found",
        "Known providers: generic. WARDIAN_PLUGINS does not name it.",
    )


def replay_lines(run_wardian, *args: str, env: dict[str, str] | None = None) -> list[dict]:
    result = run_wardian("providers", "replay", *args, env=env)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_replay_of_a_headless_transcript_prints_events_and_the_status_timeline(run_wardian, provider_packages) -> None:
    lines = replay_lines(run_wardian, "example", str(FIXTURES / "headless-turn.jsonl"), "--source", "headless")
    events = [line["event"]["kind"] for line in lines if line["type"] == "event"]
    assert events == [
        "session_started",
        "turn_started",
        "generating",
        "approval_requested",
        "generating",
        "turn_started",
        "turn_completed",
    ]
    assert lines[1]["event"]["session_id"] == "ex-7f3a"
    timeline = [line["to"] for line in lines if line["type"] == "status"]
    # The second `generating` does not clear action_required; the next turn_started does.
    assert timeline == ["starting", "processing", "action_required", "processing", "idle"]
    approval = next(line for line in lines if line["type"] == "status" and line["to"] == "action_required")
    assert approval["evidence"]["rule"] == "type=approval.requested"
    assert approval["evidence"]["source"] == "headless"


def test_replay_of_a_pty_recording_in_small_reads(run_wardian, provider_packages) -> None:
    lines = replay_lines(run_wardian, "example", str(FIXTURES / "tui.raw"), "--chunk-size", "5")
    timeline = [(line["from"], line["to"]) for line in lines if line["type"] == "status"]
    assert timeline == [
        (None, "starting"),
        ("starting", "idle"),
        ("idle", "action_required"),
        ("action_required", "idle"),
    ]


def test_replay_of_a_telemetry_source_uses_the_source_the_provider_announces(run_wardian, provider_packages) -> None:
    lines = replay_lines(run_wardian, "example", str(FIXTURES / "approvals.jsonl"), "--source", "approvals")
    events = [line for line in lines if line["type"] == "event"]
    assert [(e["source"], e["event"]["kind"]) for e in events] == [("approvals", "approval_requested")]


def test_replay_with_generic_settings_and_simulated_time(run_wardian, tmp_path) -> None:
    recording = tmp_path / "shell.raw"
    recording.write_bytes(b"motd\r\n$ " + b"make\r\nok" + b"\r\n$ ")  # three 8-byte reads
    lines = replay_lines(
        run_wardian, "generic", str(recording), "--setting", r"prompt_pattern=\$ $", "--chunk-size", "8", "--gap", "0.5"
    )
    statuses = [(line["at"], line["to"], line["event"]) for line in lines if line["type"] == "status"]
    assert statuses == [
        (0.0, "starting", None),
        (0.0, "idle", "ready"),
        (0.5, "processing", "turn_started"),
        (1.0, "idle", "turn_completed"),
    ]


def test_replay_with_an_unknown_provider_is_not_found(run_wardian, tmp_path) -> None:
    recording = tmp_path / "x.raw"
    recording.write_bytes(b"x")
    result = run_wardian("providers", "replay", "nope", str(recording))
    assert (result.returncode, result.error()["code"]) == (2, "not_found")


def test_replay_of_a_raising_parser_fails_with_the_plugins_error(run_wardian, provider_packages, tmp_path) -> None:
    recording = tmp_path / "x.raw"
    recording.write_bytes(b"x")
    result = run_wardian("providers", "replay", "raising", str(recording))
    assert result.returncode == 1
    error = json.loads(result.stderr)["error"]
    assert error["code"] == "request_failed"
    assert "raising chokes on output" in error["message"]


def test_executable_set_in_settings_is_where_providers_list_looks(run_wardian, tmp_path) -> None:
    program = tmp_path / "my-generic-cli"
    program.write_text("#!/bin/sh\necho 'my-generic-cli 1.2.3'\n")
    program.chmod(0o755)
    assert run_wardian("settings", "set", "providers.generic.executable", str(program)).returncode == 0
    found = rows(run_wardian("providers", "list", env={"WARDIAN_PLUGINS": "generic"}))["generic"]
    assert (found["executable_path"], found["executable_source"], found["readiness"]) == (
        str(program),
        "settings",
        "ready",
    )
    assert run_wardian("settings", "set", "providers.generic.executable", str(tmp_path / "gone")).returncode == 0
    missing = rows(run_wardian("providers", "list", env={"WARDIAN_PLUGINS": "generic"}))["generic"]
    assert missing["readiness"] == "missing_executable"
    assert "providers.generic.executable" in missing["hint"]


@pytest.mark.parametrize(
    ("version_text", "expected"),
    [
        ("2.1.330 (Claude Code)", "inside"),
        ("2.1.197 (Claude Code)", "inside"),
        ("2.1.250", "inside"),
        ("2.1.331 (Claude Code)", "newer"),
        ("2.2.0", "newer"),
        ("2.1.99", "older"),
        ("codex-cli 2.1.200", "inside"),
        ("no version here", "unknown"),
        (None, "unknown"),
    ],
)
def test_the_installed_version_is_placed_against_the_tested_range(version_text: str | None, expected: str) -> None:
    tested = provider_models.TestedVersions(oldest="2.1.197", newest="2.1.330")
    assert version_tested(version_text, tested) == expected
    assert version_tested(version_text, None) is None
