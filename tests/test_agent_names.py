"""Agent names: every refusal says why and offers a valid name; generated names always fit."""

import re
import sqlite3

import click
import pytest

from wardian_core import identity
from wardian_core.db import open_writer
from wardian_core.db.migrations import MIGRATIONS
from wardian_core.errors import WardianError
from wardian_host.cli.agent import agent


def test_every_agent_subcommand_is_a_reserved_name() -> None:
    # `wardian agent <x>` runs subcommand x, so an agent named x could never be shown.
    with click.Context(agent) as context:
        subcommands = set(agent.list_commands(context))
    assert {"run", "show", "list", "spawn", "watch"} <= subcommands
    assert subcommands <= identity.RESERVED_NAMES


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("run", "reserves"),
        ("-dash", "option"),
        ("--help", "option"),
        ("0cda292d-7fa2-4db3-9a51-44a810ee3ee6", "uuid"),
        ("0CDA292D-7FA2-4DB3-9A51-44A810EE3EE6", "uuid"),
        ("x" * 65, "1-64"),
        ("bad name", "1-64"),
    ],
)
def test_a_refused_name_says_why_and_suggests_a_valid_one(name: str, why: str) -> None:
    with pytest.raises(WardianError) as caught:
        identity.validate_name(name)
    error = caught.value
    assert error.code == "invalid_name" and why in error.message
    suggestion = error.details["suggestion"]
    assert f"`{suggestion}`" in (error.hint or "")
    assert identity.validate_name(suggestion) == suggestion


@pytest.mark.parametrize("name", ["a-dash-inside", "_underscore", "x" * 64, "0cda292d-7fa2-4db3-9a51-44a810ee3ee6-2"])
def test_names_near_the_limits_are_accepted(name: str) -> None:
    assert identity.validate_name(name) == name


def test_a_generated_name_from_a_long_class_fits_the_limit() -> None:
    name = identity.generate_name("Architect" * 23)  # 207 characters
    assert len(name) == identity.MAX_NAME_LENGTH
    assert re.fullmatch(r"(architect)+a?r?c?h?i?t?e?c?t?-[0-9a-f]{4}", name)
    assert identity.validate_name(name) == name


def test_free_names_keep_their_suffix_within_the_limit(wardian_home) -> None:
    conn = open_writer(wardian_home)
    long_name = "n" * 62
    first = identity.free_name_like(conn, long_name, "-copy")
    assert first == "n" * 59 + "-copy"
    identity.create_agent(conn, class_name="C", provider="generic", workspace=None, name=first)
    assert identity.free_name_like(conn, long_name, "-copy") == "n" * 57 + "-copy-2"
    identity.create_agent(conn, class_name="C", provider="generic", workspace=None, name="m" * 64)
    with pytest.raises(WardianError) as caught:
        identity.create_agent(conn, class_name="C", provider="generic", workspace=None, name="m" * 64)
    assert caught.value.details["suggestion"] == "m" * 62 + "-2"


def test_names_are_unique_whatever_their_case_and_found_in_any_case(wardian_home) -> None:
    conn = open_writer(wardian_home)
    shell = identity.create_agent(conn, class_name="Sh", provider="generic", workspace=None, name="shell")
    with pytest.raises(WardianError) as caught:
        identity.create_agent(conn, class_name="Sh", provider="generic", workspace=None, name="SHELL")
    assert (caught.value.code, caught.value.details["suggestion"]) == ("duplicate_name", "SHELL-2")
    assert identity.resolve_agent(conn, "SHELL")["uuid"] == shell["uuid"]
    assert identity.find_in([shell], "Shell")["name"] == "shell"  # kept as typed


def test_names_an_older_wardian_let_differ_in_case_are_kept_apart_on_upgrade(wardian_home) -> None:
    db = wardian_home / "state.db"
    wardian_home.mkdir(parents=True, exist_ok=True)
    old = sqlite3.connect(db, isolation_level=None)
    for step in MIGRATIONS[:6]:  # the schema before names were unique in any case
        old.executescript(step)
    for uuid, name in (("a" * 8 + "-1", "shell"), ("b" * 8 + "-2", "SHELL"), ("c" * 8 + "-3", "Shell")):
        old.execute(
            "INSERT INTO agents (uuid, name, class, provider, created_at) VALUES (?, ?, 'Sh', 'generic', 'now')",
            (uuid, name),
        )
    old.execute("PRAGMA user_version = 6")
    old.close()

    conn = open_writer(wardian_home)
    names = [row["name"] for row in conn.execute("SELECT name FROM agents ORDER BY rowid")]
    assert names == ["shell", "SHELL-bbbbbbbb", "Shell-cccccccc"]  # the oldest keeps its name, no row lost
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("UPDATE agents SET name = 'SHELL' WHERE name = 'Shell-cccccccc'")
