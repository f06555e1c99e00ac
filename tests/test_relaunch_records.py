"""The launch configuration as stored in state.db and as `agent show --verbose` reports it."""

import json

from stand_in_rows import stand_in_row

from wardian_core.control.models import REQUEST_PARAMS, UpdateParams
from wardian_core.fields import LAUNCH_CONFIG_DEFAULTS, launch_config_record, to_record
from wardian_core.models import AgentRecord
from wardian_core.provider_models import LaunchConfig
from wardian_host.agents.spawn_context import launch_config_of, stored_launch_config


def test_the_plain_defaults_are_the_models_defaults() -> None:
    defaults = LaunchConfig().model_dump(mode="json")
    assert defaults.pop("settings") == {}
    assert defaults.pop("recording") is True  # stored, and shown, only when turned off
    assert defaults == LAUNCH_CONFIG_DEFAULTS


def test_a_row_written_before_any_configuration_shows_every_key_with_its_default() -> None:
    assert launch_config_record("{}") == LAUNCH_CONFIG_DEFAULTS
    assert launch_config_record(None) == LAUNCH_CONFIG_DEFAULTS
    shown = launch_config_record('{"model": "m"}')
    shown["extra_args"].append("x")  # a caller's change never leaks into the defaults
    assert LAUNCH_CONFIG_DEFAULTS["extra_args"] == []


def test_stored_form_round_trips_and_keeps_provider_settings_only_when_the_agent_has_its_own() -> None:
    config = LaunchConfig(model="m", extra_args=["bash"], include_dirs=["/srv/notes"], session_persistence="fresh")
    stored = stored_launch_config(config)
    assert json.loads(stored) == {
        "model": "m",
        "extra_args": ["bash"],
        "include_dirs": ["/srv/notes"],
        "session_persistence": "fresh",
    }
    assert launch_config_of(stand_in_row(launch_config=stored)) == config
    own = config.model_copy(update={"settings": {"prompt_pattern": "$ "}})
    assert json.loads(stored_launch_config(own))["settings"] == {"prompt_pattern": "$ "}


def test_a_record_with_its_launch_config_validates_against_the_agent_record_model() -> None:
    row = {
        "name": "a",
        "uuid": "u",
        "class": "Coder",
        "provider": "generic",
        "workspace": "/w",
        "status": "off",
        "created_at": "2026-01-01T00:00:00.000Z",
        "is_off": 1,
        "launch_config": stored_launch_config(LaunchConfig(extra_args=["bash"])),
    }
    record = AgentRecord.model_validate(to_record(row, "persisted"))
    assert LaunchConfig.model_validate(record.launch_config).extra_args == ["bash"]


def test_the_new_request_kinds_have_parameter_models() -> None:
    for kind in ("agent.restart", "agent.clear", "agent.update"):
        assert kind in REQUEST_PARAMS
    untouched = UpdateParams.model_validate({"target": "a"})
    assert (untouched.model, untouched.session_persistence, untouched.description) == (None, None, None)
    assert untouched.args == [] and untouched.include_dirs == []
