"""The settings model: defaults, strict types, the provider key table and the dotted-key catalogue."""

import pytest

from wardian_core.errors import WardianError
from wardian_core.settings import SETTING_KEYS, Settings, load_settings
from wardian_core.settings.keys import lookup, parse_value


def test_defaults_match_the_documented_values() -> None:
    settings = Settings()
    assert settings.sessions.regular == "resume"
    assert settings.providers.claude.executable is None
    assert settings.providers.codex.sandbox_mode is None
    assert settings.providers.codex.approval_policy is None
    assert settings.providers.codex.trust_workspace is False
    assert settings.providers.generic.idle_quiet_seconds == 1.5
    assert settings.host.output_buffer_bytes == 1024 * 1024


def test_a_missing_file_loads_as_the_defaults(wardian_home) -> None:
    assert load_settings(wardian_home) == Settings()
    assert not (wardian_home / "settings.toml").exists()


def test_every_provider_accepts_executable_and_only_codex_has_policy_keys() -> None:
    providers = {key.split(".")[1] for key in SETTING_KEYS if key.startswith("providers.")}
    assert providers == {"claude", "codex", "gemini", "opencode", "generic"}
    for provider in providers:
        assert f"providers.{provider}.executable" in SETTING_KEYS
    policy = {key for key in SETTING_KEYS if key.endswith(("sandbox_mode", "approval_policy", "trust_workspace"))}
    assert policy == {
        "providers.codex.sandbox_mode",
        "providers.codex.approval_policy",
        "providers.codex.trust_workspace",
    }
    idle_keys = [key for key in SETTING_KEYS if key.endswith("idle_quiet_seconds")]
    assert idle_keys == ["providers.generic.idle_quiet_seconds"]


def test_the_catalogue_knows_each_kind_and_default() -> None:
    def shape(key):
        setting = SETTING_KEYS[key]
        return setting.kind, setting.default, setting.choices

    assert shape("sessions.regular") == ("string", "resume", ("fresh", "resume"))
    assert shape("providers.codex.trust_workspace") == ("bool", False, None)
    assert shape("providers.codex.sandbox_mode") == (
        "string",
        None,
        ("read-only", "workspace-write", "danger-full-access"),
    )
    assert shape("providers.generic.idle_quiet_seconds") == ("float", 1.5, None)
    assert shape("host.output_buffer_bytes") == ("int", 1048576, None)
    assert all(setting.description for setting in SETTING_KEYS.values())


def test_unknown_top_level_tables_are_kept_but_unknown_keys_in_known_tables_are_rejected() -> None:
    kept = Settings.model_validate({"mine": {"colour": "teal"}, "sessions": {"regular": "fresh"}})
    assert kept.model_extra == {"mine": {"colour": "teal"}}
    with pytest.raises(ValueError, match="regulr"):
        Settings.model_validate({"sessions": {"regulr": "fresh"}})
    with pytest.raises(ValueError, match="aider"):
        Settings.model_validate({"providers": {"aider": {"executable": "aider"}}})


@pytest.mark.parametrize(
    "document",
    [
        {"providers": {"codex": {"trust_workspace": "yes"}}},
        {"providers": {"codex": {"trust_workspace": 1}}},
        {"host": {"output_buffer_bytes": 1048576.0}},
        {"host": {"output_buffer_bytes": 1024}},
        {"host": {"output_buffer_bytes": 512 * 1024 * 1024}},
        {"providers": {"generic": {"idle_quiet_seconds": 0}}},
        {"providers": {"generic": {"idle_quiet_seconds": "2"}}},
        {"providers": {"generic": {"idle_quiet_seconds": float("inf")}}},
        {"providers": {"codex": {"sandbox_mode": "yolo"}}},
        {"providers": {"claude": {"executable": ""}}},
        {"sessions": {"regular": "default"}},
    ],
)
def test_wrong_types_and_out_of_range_values_are_rejected(document) -> None:
    with pytest.raises(ValueError):
        Settings.model_validate(document)


def test_a_whole_number_is_a_valid_float() -> None:
    settings = Settings.model_validate({"providers": {"generic": {"idle_quiet_seconds": 2}}})
    assert settings.providers.generic.idle_quiet_seconds == 2.0


@pytest.mark.parametrize(
    ("key", "text", "value"),
    [
        ("providers.codex.trust_workspace", "true", True),
        ("providers.codex.trust_workspace", "FALSE", False),
        ("host.output_buffer_bytes", "2097152", 2097152),
        ("providers.generic.idle_quiet_seconds", "2", 2.0),
        ("providers.generic.idle_quiet_seconds", "0.25", 0.25),
        ("sessions.regular", "fresh", "fresh"),
        ("providers.claude.executable", "/opt/claude/bin/claude", "/opt/claude/bin/claude"),
    ],
)
def test_command_line_values_are_read_as_the_key_type(key, text, value) -> None:
    parsed = parse_value(lookup(key), text)
    assert parsed == value
    assert type(parsed) is type(value)


@pytest.mark.parametrize(
    ("key", "text"),
    [
        ("providers.codex.trust_workspace", "yes"),
        ("host.output_buffer_bytes", "1.5"),
        ("host.output_buffer_bytes", "lots"),
        ("providers.generic.idle_quiet_seconds", "nan"),
        ("providers.generic.idle_quiet_seconds", "soon"),
    ],
)
def test_unreadable_command_line_values_are_validation_errors(key, text) -> None:
    with pytest.raises(WardianError) as caught:
        parse_value(lookup(key), text)
    assert caught.value.code == "validation_failed"
    assert caught.value.details["key"] == key


def test_an_unknown_key_is_invalid_field() -> None:
    with pytest.raises(WardianError) as caught:
        lookup("sessions.regulr")
    assert caught.value.code == "invalid_field"
    assert "sessions.regular" in caught.value.details["known"]
