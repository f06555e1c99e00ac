"""The free text stored with an agent is bounded: a description over 4 KiB, or a launch
configuration over 64 KiB, is `invalid_field` at spawn, update and clone, and nothing is
written. An agent's record goes with every list and every web update to every page."""

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from in_process_agents import read_state, spawn, spawn_params

from wardian_core.control.models import UpdateParams
from wardian_core.db import agents as agent_rows
from wardian_core.db import open_writer
from wardian_core.errors import WardianError
from wardian_core.stored_text import DESCRIPTION_MAX_CHARS, LAUNCH_CONFIG_MAX_BYTES, check_stored_fields
from wardian_host.testing.in_process import InProcessHost

FIVE_MB = "d" * (5 * 1024 * 1024)


def names(host: InProcessHost) -> list[str]:
    rows: list[dict[str, Any]] = read_state(host.host.home, agent_rows.list_agents)
    return sorted(row["name"] for row in rows)


def refused(host: InProcessHost, call: Any) -> WardianError:
    with pytest.raises(WardianError) as raised:
        host.call(call)
    assert raised.value.code == "invalid_field" and raised.value.hint
    return raised.value


def test_a_description_at_the_limit_is_kept_and_one_over_it_is_invalid_field() -> None:
    check_stored_fields({"description": "d" * DESCRIPTION_MAX_CHARS, "status": "idle"})

    with pytest.raises(WardianError) as raised:
        check_stored_fields({"description": "d" * (DESCRIPTION_MAX_CHARS + 1)})

    assert raised.value.code == "invalid_field"
    assert raised.value.details == {"field": "description", "size": 4097, "limit": 4096, "unit": "characters"}


def test_a_spawn_with_a_long_description_is_refused_and_leaves_no_agent(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    params = spawn_params(tmp_path, "wordy", "sleep", "600").model_copy(update={"description": FIVE_MB})

    error = refused(running_host, running_host.host.lifecycle.spawn(params))

    assert error.details["field"] == "description" and error.details["size"] == len(FIVE_MB)
    assert names(running_host) == []


def test_a_spawn_with_a_huge_launch_configuration_is_refused_and_leaves_no_agent(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    params = spawn_params(tmp_path, "bulky", "echo", "a" * LAUNCH_CONFIG_MAX_BYTES)

    error = refused(running_host, running_host.host.lifecycle.spawn(params))

    assert error.details["field"] == "launch_config"
    assert names(running_host) == [] and running_host.host.registry.all() == []


def test_an_update_to_a_long_description_is_refused_and_keeps_the_old_one(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    spawn(running_host, tmp_path, "plain", "sleep", "600")
    update = running_host.host.lifecycle.update
    running_host.call(update(UpdateParams(target="plain", description="short and kept")))

    refused(running_host, update(UpdateParams(target="plain", description=FIVE_MB)))

    (row,) = read_state(running_host.host.home, agent_rows.list_agents)
    assert row["description"] == "short and kept"


def test_a_clone_of_an_agent_stored_with_a_long_description_is_refused(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    spawn(running_host, tmp_path, "old", "sleep", "600")
    # A row written before the bound: the host's own check would refuse writing it now.
    conn: sqlite3.Connection = open_writer(running_host.host.home)
    conn.execute("UPDATE agents SET description = ? WHERE name = 'old'", (FIVE_MB,))
    conn.close()
    running_host.host.registry.refresh(running_host.host.registry.resolve("old"))

    error = refused(running_host, running_host.host.lifecycle.clone("old", "copy"))

    assert error.hint is not None and "agent update" in error.hint
    assert names(running_host) == ["old"]
