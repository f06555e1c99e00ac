"""`wardian settings` through the installed command: values, types, and the user's file kept intact."""

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from wardian_core.settings import SETTING_KEYS

WARDIAN = str(Path(sys.executable).parent / "wardian")

DEFAULTS = {
    "sessions.regular": "resume",
    "providers.claude.executable": None,
    "providers.codex.executable": None,
    "providers.codex.sandbox_mode": None,
    "providers.codex.approval_policy": None,
    "providers.codex.trust_workspace": False,
    "providers.gemini.executable": None,
    "providers.opencode.executable": None,
    "providers.generic.executable": None,
    "providers.generic.idle_quiet_seconds": 1.5,
    "host.output_buffer_bytes": 1048576,
    "mcp.enabled": True,
    "mcp.disabled_for": "",
    "mcp.allowed_tools": "",
    "worktrees.setup": None,
    "worktrees.teardown": None,
    "worktrees.timeout_seconds": 300.0,
    "worktrees.root": None,
    "notify.urls": None,
    "notify.unseen_turn_seconds": 60.0,
    "web.session_idle": 43200.0,
    "recording.enabled": True,
    "recording.max_bytes": 64 * 1024 * 1024,
    "limits.resume": "auto",
    "limits.resume_delay_min_seconds": 5.0,
    "limits.resume_delay_max_seconds": 30.0,
    "limits.unknown_reset_seconds": 3600.0,
    "limits.resume_concurrency": 4,
    "limits.turn_wait_seconds": 300.0,
    "budgets.tokens": None,
    "budgets.usd": None,
    "budgets.minutes": None,
    "budgets.hard": False,
    "budgets.count_cache_reads": False,
}

USER_FILE = """\
# Wardian settings, tuned by hand.

[sessions]
regular = "resume"  # resume is what I want on weekdays

[providers.codex]
# sandbox picked after the incident
sandbox_mode = "read-only"

[my-notes]   # not Wardian's
colour = "teal"
"""


@pytest.fixture
def settings_path(wardian_home: Path) -> Path:
    return wardian_home / "settings.toml"


def files_beside(settings_path: Path) -> list[str]:
    """Every file in the settings file's directory: a leftover temporary file would show here."""
    return sorted(p.name for p in settings_path.parent.iterdir() if not p.is_dir())


def ok(result):
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.json()


def test_list_shows_every_key_with_its_default(run_wardian) -> None:
    envelope = ok(run_wardian("settings", "list"))
    assert envelope == {"schema": 1, "settings": DEFAULTS}
    assert set(DEFAULTS) == set(SETTING_KEYS)


def test_list_verbose_says_which_values_come_from_the_file(run_wardian, settings_path) -> None:
    settings_path.write_text("[host]\noutput_buffer_bytes = 65536\n")
    envelope = ok(run_wardian("settings", "list", "--verbose"))
    assert envelope["settings"]["host.output_buffer_bytes"] == 65536
    assert envelope["sources"] == {key: "file" if key == "host.output_buffer_bytes" else "default" for key in DEFAULTS}


def test_list_pretty_prints_aligned_lines(run_wardian) -> None:
    result = run_wardian("settings", "list", "--pretty", "--verbose")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(DEFAULTS)
    assert lines[0].split() == ["sessions.regular", "resume", "(default)"]
    assert "providers.codex.trust_workspace" in result.stdout and "false" in result.stdout
    assert [line.split() for line in lines if line.startswith("mcp.disabled_for ")] == [
        ["mcp.disabled_for", '""', "(default)"]
    ]
    assert len({line.index(line.split()[1], len(line.split()[0])) for line in lines}) == 1


def test_set_get_unset_round_trip_with_typed_values(run_wardian, settings_path) -> None:
    cases = [
        ("sessions.regular", "fresh", "fresh"),
        ("providers.codex.trust_workspace", "true", True),
        ("providers.generic.idle_quiet_seconds", "2", 2.0),
        ("host.output_buffer_bytes", "2097152", 2097152),
        ("providers.claude.executable", "/opt/claude/bin/claude", "/opt/claude/bin/claude"),
        ("providers.codex.approval_policy", "on-request", "on-request"),
    ]
    for key, text, value in cases:
        answer = ok(run_wardian("settings", "set", key, text))
        assert answer == {"schema": 1, "key": key, "value": value, "file": str(settings_path)}
        assert ok(run_wardian("settings", "get", key)) == {"schema": 1, "key": key, "value": value, "source": "file"}

    on_disk = tomllib.loads(settings_path.read_text())
    assert on_disk["providers"]["codex"]["trust_workspace"] is True
    assert type(on_disk["providers"]["generic"]["idle_quiet_seconds"]) is float
    assert type(on_disk["host"]["output_buffer_bytes"]) is int
    assert ok(run_wardian("settings", "list"))["settings"] == {**DEFAULTS, **{key: value for key, _, value in cases}}

    for key, _, _ in cases:
        answer = ok(run_wardian("settings", "unset", key))
        assert answer == {"schema": 1, "key": key, "value": DEFAULTS[key], "removed": True, "file": str(settings_path)}
        assert ok(run_wardian("settings", "get", key))["source"] == "default"
    assert ok(run_wardian("settings", "list"))["settings"] == DEFAULTS


def test_set_keeps_comments_and_the_users_own_tables(run_wardian, settings_path) -> None:
    settings_path.write_text(USER_FILE)
    ok(run_wardian("settings", "set", "sessions.regular", "fresh"))
    ok(run_wardian("settings", "set", "providers.codex.approval_policy", "never"))
    ok(run_wardian("settings", "set", "host.output_buffer_bytes", "65536"))
    assert (
        settings_path.read_text()
        == USER_FILE.replace('regular = "resume"  # resume', 'regular = "fresh"  # resume').replace(
            'sandbox_mode = "read-only"\n', 'sandbox_mode = "read-only"\napproval_policy = "never"\n'
        )
        + "\n[host]\noutput_buffer_bytes = 65536\n"
    )


def test_unset_keeps_comments_and_the_users_own_tables(run_wardian, settings_path) -> None:
    settings_path.write_text(USER_FILE)
    answer = ok(run_wardian("settings", "unset", "providers.codex.sandbox_mode"))
    assert answer["removed"] is True and answer["value"] is None
    assert settings_path.read_text() == USER_FILE.replace('sandbox_mode = "read-only"\n', "")
    assert "# sandbox picked after the incident" in settings_path.read_text()
    assert tomllib.loads(settings_path.read_text())["my-notes"] == {"colour": "teal"}


def test_unset_of_a_key_the_file_does_not_set_changes_nothing(run_wardian, settings_path) -> None:
    assert ok(run_wardian("settings", "unset", "host.output_buffer_bytes"))["removed"] is False
    assert not settings_path.exists()
    settings_path.write_text(USER_FILE)
    before = os.stat(settings_path).st_mtime_ns
    assert ok(run_wardian("settings", "unset", "host.output_buffer_bytes"))["removed"] is False
    assert settings_path.read_text() == USER_FILE
    assert os.stat(settings_path).st_mtime_ns == before


@pytest.mark.parametrize(
    ("args", "code", "key"),
    [
        (("set", "sessions.regulr", "fresh"), "invalid_field", "sessions.regulr"),
        (("set", "providers.aider.executable", "aider"), "invalid_field", "providers.aider.executable"),
        (("set", "providers.claude.sandbox_mode", "read-only"), "invalid_field", "providers.claude.sandbox_mode"),
        (("unset", "my-notes.colour"), "invalid_field", "my-notes.colour"),
        (("get", "host"), "invalid_field", "host"),
        (("set", "sessions.regular", "sometimes"), "validation_failed", "sessions.regular"),
        (("set", "providers.codex.trust_workspace", "yes"), "validation_failed", "providers.codex.trust_workspace"),
        (("set", "host.output_buffer_bytes", "1024"), "validation_failed", "host.output_buffer_bytes"),
        (("set", "host.output_buffer_bytes", "1.5"), "validation_failed", "host.output_buffer_bytes"),
        (
            ("set", "providers.generic.idle_quiet_seconds", "0"),
            "validation_failed",
            "providers.generic.idle_quiet_seconds",
        ),
        (
            ("set", "providers.generic.idle_quiet_seconds", "inf"),
            "validation_failed",
            "providers.generic.idle_quiet_seconds",
        ),
        (("set", "providers.codex.sandbox_mode", "yolo"), "validation_failed", "providers.codex.sandbox_mode"),
        (("set", "providers.gemini.executable", ""), "validation_failed", "providers.gemini.executable"),
    ],
)
def test_a_bad_key_or_value_is_an_error_and_the_file_is_untouched(run_wardian, settings_path, args, code, key) -> None:
    settings_path.write_bytes(USER_FILE.encode())
    result = run_wardian("settings", *args)
    assert result.returncode == 1
    error = result.error()
    assert error["code"] == code
    assert error["details"]["key"] == key
    assert key in error["message"]
    assert settings_path.read_bytes() == USER_FILE.encode()
    assert files_beside(settings_path) == ["settings.toml"]


def test_a_bad_value_never_creates_the_file(run_wardian, settings_path) -> None:
    result = run_wardian("settings", "set", "sessions.regular", "sometimes")
    assert result.error()["details"]["choices"] == ["fresh", "resume"]
    assert not settings_path.exists()


def test_a_hand_broken_file_is_reported_with_its_line_and_never_rewritten(run_wardian, settings_path) -> None:
    broken = '[sessions]\nregular = "fresh"\n\n[host]\noutput_buffer_bytes = = 65536\n'
    settings_path.write_bytes(broken.encode())
    for args in (
        ("list",),
        ("get", "sessions.regular"),
        ("set", "sessions.regular", "resume"),
        ("unset", "sessions.regular"),
    ):
        result = run_wardian("settings", *args)
        assert result.returncode == 1, args
        error = result.error()
        assert error["code"] == "validation_failed"
        assert "line 5" in error["message"]
        assert error["details"]["line"] == 5
        assert error["details"]["path"] == str(settings_path)
        assert settings_path.read_bytes() == broken.encode()


def test_a_wrong_value_in_the_file_is_reported_by_key(run_wardian, settings_path) -> None:
    settings_path.write_text('[providers.codex]\ntrust_workspace = "yes"\n[sessions]\nregulr = "fresh"\n')
    error = run_wardian("settings", "list").error()
    assert error["code"] == "validation_failed"
    assert "providers.codex.trust_workspace" in error["message"]
    assert {problem["key"] for problem in error["details"]["errors"]} == {
        "providers.codex.trust_workspace",
        "sessions.regulr",
    }


def test_set_can_repair_the_bad_key_but_not_write_around_it(run_wardian, settings_path) -> None:
    bad = "[host]\noutput_buffer_bytes = 12  # too small\n"
    settings_path.write_text(bad)
    error = run_wardian("settings", "set", "sessions.regular", "fresh").error()
    assert error["code"] == "validation_failed" and "host.output_buffer_bytes" in error["message"]
    assert settings_path.read_text() == bad
    ok(run_wardian("settings", "set", "host.output_buffer_bytes", "65536"))
    assert settings_path.read_text() == "[host]\noutput_buffer_bytes = 65536  # too small\n"


def test_an_inline_table_is_refused_rather_than_rewritten(run_wardian, settings_path) -> None:
    text = '[providers]\ncodex = { sandbox_mode = "read-only" }  # compact\n'
    settings_path.write_text(text)
    error = run_wardian("settings", "set", "providers.codex.sandbox_mode", "workspace-write").error()
    assert error["code"] == "not_supported"
    assert "providers.codex" in error["message"]
    assert settings_path.read_text() == text
    assert ok(run_wardian("settings", "get", "providers.codex.sandbox_mode"))["value"] == "read-only"


def test_writes_leave_no_temporary_files_and_keep_the_mode(run_wardian, settings_path) -> None:
    settings_path.write_text(USER_FILE)
    settings_path.chmod(0o640)
    ok(run_wardian("settings", "set", "sessions.regular", "fresh"))
    ok(run_wardian("settings", "unset", "sessions.regular"))
    assert files_beside(settings_path) == ["settings.toml"]
    assert settings_path.stat().st_mode & 0o777 == 0o640


def test_a_symlinked_settings_file_stays_a_symlink(run_wardian, settings_path, tmp_path) -> None:
    real = tmp_path / "dotfiles" / "wardian.toml"
    real.parent.mkdir()
    real.write_text(USER_FILE)
    settings_path.symlink_to(real)
    ok(run_wardian("settings", "set", "sessions.regular", "fresh"))
    assert settings_path.is_symlink()
    assert 'regular = "fresh"' in real.read_text()
    assert sorted(p.name for p in real.parent.iterdir()) == ["wardian.toml"]


def test_set_creates_a_missing_home(run_wardian, tmp_path) -> None:
    home = tmp_path / "fresh-home"
    answer = ok(run_wardian("settings", "set", "sessions.regular", "fresh", env={"WARDIAN_HOME": str(home)}))
    assert answer["file"] == str(home / "settings.toml")
    assert (home / "settings.toml").read_text() == '[sessions]\nregular = "fresh"\n'


def test_dotted_key_files_are_edited_in_place(run_wardian, settings_path) -> None:
    text = '# compact style\nproviders.codex.executable = "/opt/codex"  # pinned\nsessions.regular = "fresh"\n'
    settings_path.write_text(text)
    ok(run_wardian("settings", "set", "providers.codex.sandbox_mode", "read-only"))
    ok(run_wardian("settings", "unset", "sessions.regular"))
    assert settings_path.read_text() == (
        '# compact style\nproviders.codex.executable = "/opt/codex"  # pinned\n'
        'providers.codex.sandbox_mode = "read-only"\n'
    )


def test_concurrent_sets_of_different_keys_all_land(settings_path) -> None:
    settings_path.write_text(USER_FILE)
    changes = {
        "sessions.regular": ("fresh", "fresh"),
        "providers.codex.approval_policy": ("never", "never"),
        "providers.codex.trust_workspace": ("true", True),
        "providers.claude.executable": ("/opt/claude", "/opt/claude"),
        "providers.gemini.executable": ("/opt/gemini", "/opt/gemini"),
        "providers.opencode.executable": ("/opt/opencode", "/opt/opencode"),
        "providers.generic.idle_quiet_seconds": ("3.5", 3.5),
        "host.output_buffer_bytes": ("131072", 131072),
    }
    processes = [
        subprocess.Popen([WARDIAN, "settings", "set", key, text], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for key, (text, _) in changes.items()
    ]
    for process in processes:
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 0, stderr
    on_disk = tomllib.loads(settings_path.read_text())
    assert on_disk["my-notes"] == {"colour": "teal"}
    for key, (_, value) in changes.items():
        table = on_disk
        for part in key.split("."):
            table = table[part]
        assert table == value, key
    assert "# sandbox picked after the incident" in settings_path.read_text()
    assert files_beside(settings_path) == ["settings.toml"]


@pytest.mark.parametrize(
    "deep",
    [
        "a = " + "[" * 900 + "]" * 900 + "\n",  # raised a raw RecursionError in tomllib
        "a = " + "{b = " * 900 + "1" + "}" * 900 + "\n",
        "[" + ".".join(["x"] * 900) + "]\nk = 1\n",  # tomllib reads it; later readers recurse
    ],
    ids=["arrays", "inline tables", "dotted table"],
)
def test_a_deeply_nested_file_is_reported_and_never_rewritten(run_wardian, settings_path, deep: str) -> None:
    settings_path.write_text(deep)
    for args in (("list",), ("set", "sessions.regular", "fresh")):
        result = run_wardian("settings", *args)
        assert result.returncode == 1, args
        error = result.error()
        assert error["code"] == "validation_failed" and "nests deeper than 32 levels" in error["message"]
        assert error["hint"] and "Traceback" not in result.stderr
        assert settings_path.read_text() == deep


def test_a_rule_between_two_keys_is_judged_against_the_files_values_not_the_defaults(
    run_wardian, settings_path
) -> None:
    ok(run_wardian("settings", "set", "limits.resume_delay_min_seconds", "1"))
    # 2 is below the least delay's default (5) but above the file's (1): a valid pair.
    assert ok(run_wardian("settings", "set", "limits.resume_delay_max_seconds", "2"))["value"] == 2.0
    kept = settings_path.read_bytes()

    refused = run_wardian("settings", "set", "limits.resume_delay_max_seconds", "0.5")
    assert refused.error()["code"] == "validation_failed"
    assert "resume_delay_min_seconds is above resume_delay_max_seconds" in refused.error()["message"]
    assert settings_path.read_bytes() == kept
