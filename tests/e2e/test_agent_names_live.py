"""Names through the real `wardian`: refused with a valid suggestion, or generated within the limit."""

import json


def test_a_name_that_is_another_agents_uuid_is_refused_at_spawn_and_rename(
    spawn, run_wardian, generic_spawn_args
) -> None:
    first = spawn("first", "sleep", "60")
    spawn("second", "sleep", "60")
    as_spawn = run_wardian(*generic_spawn_args(first["uuid"], "--", "sleep", "60"))
    as_rename = run_wardian("agent", "rename", "second", first["uuid"])
    for refused in (as_spawn, as_rename):
        assert refused.returncode == 1
        error = refused.error()
        assert error["code"] == "invalid_name" and "uuid" in error["message"]
        assert error["details"]["suggestion"] in error["hint"]
    # Lookups by that uuid still find the agent that owns it.
    assert run_wardian("agent", first["uuid"]).json()["agent"]["name"] == "first"
    assert run_wardian("agent", "second").json()["agent"]["name"] == "second"


def test_names_that_could_not_be_typed_back_are_refused(run_wardian, generic_spawn_args) -> None:
    for name in ("-dash", "run"):
        refused = run_wardian(*generic_spawn_args(name, "--", "sleep", "60"))
        assert refused.returncode == 1, refused.stdout
        error = refused.error()
        assert error["code"] == "invalid_name"
        # The suggestion works as typed.
        suggested = run_wardian(*generic_spawn_args(error["details"]["suggestion"], "--", "sleep", "60"))
        assert suggested.returncode == 0, suggested.stderr
    names = run_wardian("agent", "list", "--field", "name").stdout.split()
    assert sorted(names) == ["dash", "run-1"]
    assert run_wardian("agent", "run-1", "--field", "name").stdout == "run-1\n"


def test_generated_names_fit_the_limit_for_a_long_class_and_a_long_clone(run_wardian, spawn, workspace) -> None:
    long_class = "Reviewer" * 8  # 64 characters, the longest class
    spawned = run_wardian(
        "agent",
        "spawn",
        "--provider",
        "generic",
        "--class",
        long_class,
        "--workspace",
        str(workspace),
        "--",
        "sleep",
        "60",
    )
    assert spawned.returncode == 0, spawned.stderr
    generated = json.loads(spawned.stdout)["agent"]["name"]
    assert len(generated) == 64 and generated.startswith("reviewerreviewer")

    source = "s" * 62
    spawn(source, "sleep", "60")
    copies = [run_wardian("agent", "clone", source) for _ in range(2)]
    for copy in copies:
        assert copy.returncode == 0, copy.stderr
    assert [copy.json()["agent"]["name"] for copy in copies] == ["s" * 59 + "-copy", "s" * 57 + "-copy-2"]
