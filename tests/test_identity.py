import multiprocessing
import re
import sqlite3
from pathlib import Path

import pytest

from wardian_core import identity
from wardian_core.db import agents as agent_rows
from wardian_core.db import open_writer
from wardian_core.errors import WardianError


@pytest.mark.parametrize("name", ["has space", "semi;colon", "dot.name", "", "x" * 65, "ünï"])
def test_names_outside_the_pattern_are_invalid(name: str) -> None:
    with pytest.raises(WardianError) as caught:
        identity.validate_name(name)
    assert caught.value.code == "invalid_name"


@pytest.mark.parametrize("name", ["all", "self", "list", "show", "ALL"])
def test_words_the_cli_gives_meaning_to_are_invalid(name: str) -> None:
    with pytest.raises(WardianError) as caught:
        identity.validate_name(name)
    assert caught.value.code == "invalid_name"


def test_generated_name_is_class_plus_short_suffix(wardian_home: Path) -> None:
    conn = open_writer(wardian_home)
    created = identity.create_agent(conn, class_name="Coder", provider="generic", workspace=None)
    assert re.fullmatch(r"coder-[0-9a-f]{4}", created["name"])
    assert identity.generate_name("Code Reviewer!").startswith("code-reviewer-")


def test_taken_name_is_an_error_with_a_free_name_in_the_hint(wardian_home: Path, tmp_path: Path) -> None:
    conn = open_writer(wardian_home)
    identity.create_agent(conn, class_name="Coder", provider="generic", workspace=tmp_path, name="bob")
    identity.create_agent(conn, class_name="Coder", provider="generic", workspace=tmp_path, name="bob-2")
    with pytest.raises(WardianError) as caught:
        identity.create_agent(conn, class_name="Coder", provider="generic", workspace=tmp_path, name="bob")
    assert caught.value.code == "duplicate_name"
    assert caught.value.details["suggestion"] == "bob-3"
    assert "bob-3" in (caught.value.hint or "")
    assert [a["name"] for a in agent_rows.list_agents(conn)] == ["bob", "bob-2"]


def test_workspace_is_stored_resolved_and_absolute(wardian_home: Path, tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.chdir(tmp_path)
    conn = open_writer(wardian_home)
    created = identity.create_agent(conn, class_name="C", provider="generic", workspace="link/../link")
    assert created["workspace"] == str((tmp_path / "real").resolve())


def test_resolution_prefers_exact_uuid_then_exact_name(wardian_home: Path) -> None:
    conn = open_writer(wardian_home)
    first = identity.create_agent(conn, class_name="C", provider="generic", workspace=None, name="first")
    # An agent whose *name* is the other agent's uuid cannot shadow it (uuid wins).
    conn.execute("UPDATE agents SET name = ? WHERE uuid = ?", ("placeholder", first["uuid"]))
    identity.create_agent(conn, class_name="C", provider="generic", workspace=None, name="second")
    conn.execute("UPDATE agents SET name = ? WHERE name = 'second'", (first["uuid"],))
    assert identity.resolve_agent(conn, first["uuid"])["name"] == "placeholder"
    with pytest.raises(WardianError) as caught:
        identity.resolve_agent(conn, "nobody")
    assert caught.value.code == "not_found"


def _create_named(home: str, barrier: "multiprocessing.synchronize.Barrier", results: "multiprocessing.Queue") -> None:
    conn = open_writer(Path(home))
    barrier.wait()
    try:
        created = identity.create_agent(conn, class_name="Coder", provider="generic", workspace=None, name="racer")
        results.put(("created", created["uuid"]))
    except WardianError as error:
        results.put((error.code, error.details.get("suggestion")))


def test_two_concurrent_creators_of_one_name_cannot_both_win(wardian_home: Path) -> None:
    open_writer(wardian_home).close()
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(2), context.Queue()
    workers = [context.Process(target=_create_named, args=(str(wardian_home), barrier, results)) for _ in range(2)]
    for worker in workers:
        worker.start()
    outcomes = sorted(results.get(timeout=60)[0] for _ in workers)
    for worker in workers:
        worker.join(timeout=60)
    assert outcomes == ["created", "duplicate_name"]
    conn = sqlite3.connect(wardian_home / "state.db")
    assert conn.execute("SELECT count(*) FROM agents WHERE name = 'racer'").fetchone()[0] == 1


def test_self_needs_wardian_session_id() -> None:
    with pytest.raises(WardianError) as caught:
        identity.session_id_from_env({"WARDIAN_SESSION_ID": "  "})
    assert caught.value.code == "not_in_session"
    assert identity.session_id_from_env({"WARDIAN_SESSION_ID": " abc "}) == "abc"


@pytest.mark.parametrize("class_name", ["../../x", "a/b", "..", ".", "Night Shift", "-rf", "x" * 65, ""])
def test_a_class_outside_the_name_rules_is_refused_and_no_agent_made(wardian_home: Path, class_name: str) -> None:
    conn = open_writer(wardian_home)
    with pytest.raises(WardianError) as caught:
        identity.create_agent(conn, class_name=class_name, provider="generic", workspace=None, name="bob")
    assert caught.value.code == "invalid_name" and caught.value.details["class"] == class_name
    assert identity.validate_class(caught.value.details["suggestion"])  # the hint's class is valid
    assert agent_rows.list_agents(conn) == []


def test_a_class_may_be_a_word_names_reserve(wardian_home: Path) -> None:
    assert identity.validate_class("Review") == "Review" and identity.validate_class("all") == "all"
