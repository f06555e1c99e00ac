"""A trust accepted in one agent's Codex reaches the user's config.toml, and so the next agent."""

import tomllib
from pathlib import Path

import pytest

from wardian_codex import home, plugin, trust, tui
from wardian_core.provider import PTY_SOURCE, ProviderEvent
from wardian_core.provider.parsing import event
from wardian_core.provider.testing import repository_and_worktree

USER_CONFIG = (
    '# my own settings\nmodel = "user-model"  # keep this comment\n[projects."/elsewhere"]\ntrust_level = "trusted"\n'
)


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    codex = tmp_path / "user" / ".codex"
    codex.mkdir(parents=True)
    (codex / "config.toml").write_text(USER_CONFIG)
    monkeypatch.setenv("CODEX_HOME", str(codex))
    return codex


def accepted(rule: str = tui.TRUST_ANSWERED) -> ProviderEvent:
    return event("approval_resolved", PTY_SOURCE, rule, "? for shortcuts", answer="accepted")


def codex_trusts(codex_home: Path, folder: Path) -> None:
    """What Codex 0.169 itself appends to its config.toml when its trust question is answered."""
    config = codex_home / "config.toml"
    config.write_text(config.read_text() + f'\n[projects."{folder}"]\ntrust_level = "trusted"\n')


def trust_level(codex_home: Path, folder: Path) -> object:
    projects = tomllib.loads((codex_home / "config.toml").read_text()).get("projects", {})
    return projects.get(str(folder), {}).get("trust_level")


def test_a_trust_accepted_in_one_agent_spares_the_next_agent_the_question(make_ctx, user_home, tmp_path) -> None:
    first = make_ctx()
    home.prepare(first)
    codex_trusts(home.agent_codex_home(first), first.workspace)

    plugin.status_changed(ctx=first, event=accepted())

    assert trust_level(user_home, first.workspace) == "trusted"
    # The user's own words are kept: the trust is appended.
    assert (user_home / "config.toml").read_text().startswith(USER_CONFIG)
    other = "0b6f1e2a-c19d-4e51-9c1d-7f3e0c6a3d2f"
    second = make_ctx(agent_uuid=other, agent_dir=tmp_path / "wardian" / "agents" / other)
    home.prepare(second)
    assert trust_level(home.agent_codex_home(second), second.workspace) == "trusted"


def test_the_repository_root_codex_trusted_is_carried_for_a_workspace_below_it(make_ctx, user_home, tmp_path) -> None:
    root = (tmp_path / "repo").resolve()
    ctx = make_ctx(workspace=root / "service")
    home.prepare(ctx)
    codex_trusts(home.agent_codex_home(ctx), root)

    assert trust.carry_to_user(ctx.workspace, home.agent_codex_home(ctx), user_home) == [str(root)]
    assert trust_level(user_home, root) == "trusted"


@pytest.mark.parametrize(
    "rule_and_answer",
    [
        (tui.TRUST_ANSWERED, "rejected"),  # not a trust
        ("approval dialog answered", "accepted"),  # a command approved, not the folder
    ],
)
def test_only_an_accepted_trust_question_is_carried(make_ctx, user_home, rule_and_answer) -> None:
    ctx = make_ctx()
    home.prepare(ctx)
    codex_trusts(home.agent_codex_home(ctx), ctx.workspace)
    rule, answer = rule_and_answer

    plugin.status_changed(ctx=ctx, event=event("approval_resolved", PTY_SOURCE, rule, "x", answer=answer))
    plugin.status_changed(ctx=ctx, event=None)

    assert (user_home / "config.toml").read_text() == USER_CONFIG


def test_a_refusal_is_never_turned_into_a_trust(make_ctx, user_home) -> None:
    ctx = make_ctx()
    (user_home / "config.toml").write_text(f'[projects."{ctx.workspace}"]\ntrust_level = "untrusted"\n')
    home.prepare(ctx)
    codex_trusts(home.agent_codex_home(ctx), ctx.workspace.parent)  # a trust the agent's copy holds
    config = home.agent_codex_home(ctx) / "config.toml"
    config.write_text(config.read_text().replace('"untrusted"', '"trusted"'))

    assert trust.carry_to_user(ctx.workspace, home.agent_codex_home(ctx), user_home) == [str(ctx.workspace.parent)]
    # The user's own word on the workspace stands; only the folder they had not decided is added.
    assert trust_level(user_home, ctx.workspace) == "untrusted"


def test_nothing_is_carried_when_codex_trusted_nothing(make_ctx, user_home) -> None:
    ctx = make_ctx()
    home.prepare(ctx)

    assert trust.carry_to_user(ctx.workspace, home.agent_codex_home(ctx), user_home) == []
    assert (user_home / "config.toml").read_text() == USER_CONFIG


def test_a_user_config_that_does_not_parse_is_left_alone(make_ctx, user_home) -> None:
    ctx = make_ctx()
    home.prepare(ctx)
    codex_trusts(home.agent_codex_home(ctx), ctx.workspace)
    (user_home / "config.toml").write_text("model = [broken\n")

    assert trust.carry_to_user(ctx.workspace, home.agent_codex_home(ctx), user_home) == []
    assert (user_home / "config.toml").read_text() == "model = [broken\n"


def test_a_missing_user_config_is_created_with_the_trust(make_ctx, user_home) -> None:
    ctx = make_ctx()
    home.prepare(ctx)
    codex_trusts(home.agent_codex_home(ctx), ctx.workspace)
    (user_home / "config.toml").unlink()

    trust.carry_to_user(ctx.workspace, home.agent_codex_home(ctx), user_home)

    assert tomllib.loads((user_home / "config.toml").read_text()) == {
        "projects": {str(ctx.workspace): {"trust_level": "trusted"}}
    }


def test_projects_written_inline_are_kept_when_the_file_is_written_anew(make_ctx, user_home) -> None:
    ctx = make_ctx()
    home.prepare(ctx)
    codex_trusts(home.agent_codex_home(ctx), ctx.workspace)
    (user_home / "config.toml").write_text('projects = { "/elsewhere" = { trust_level = "trusted" } }\n')

    trust.carry_to_user(ctx.workspace, home.agent_codex_home(ctx), user_home)

    projects = tomllib.loads((user_home / "config.toml").read_text())["projects"]
    assert projects == {"/elsewhere": {"trust_level": "trusted"}, str(ctx.workspace): {"trust_level": "trusted"}}


def test_a_worktree_follows_its_repository_as_codex_keys_it(make_ctx, user_home, tmp_path) -> None:
    """Codex 0.169 answers the question in a worktree with a trust of the repository's main
    checkout, and reads that for every worktree of it: that is what is carried. A folder above
    the repository counts for its worktrees; one above the worktree's folder (the Wardian home)
    does not."""
    repository, linked = repository_and_worktree(tmp_path)
    ctx = make_ctx(workspace=linked)
    home.prepare(ctx)
    codex_trusts(home.agent_codex_home(ctx), repository)
    assert trust.carry_to_user(linked, home.agent_codex_home(ctx), user_home) == [str(repository)]

    def trusted_in_the_agents_config(user_trusted: Path) -> bool:
        """For a new agent in the worktree (an agent's own config keeps what it had)."""
        (user_home / "config.toml").write_text(f'[projects."{user_trusted}"]\ntrust_level = "trusted"\n')
        fresh = make_ctx(workspace=linked, agent_uuid=user_trusted.name, agent_dir=tmp_path / user_trusted.name)
        home.prepare(fresh)
        return trust_level(home.agent_codex_home(fresh), linked) == "trusted"

    assert trusted_in_the_agents_config(repository.parent)
    assert not trusted_in_the_agents_config(tmp_path / "wardian")
