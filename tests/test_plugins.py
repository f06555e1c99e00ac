"""Plugin discovery through real entry points, the allow-list, validation, dispatch
to exactly one provider, and isolation of faulty plugins."""

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from stand_in_provider import StandIn
from stand_in_provider import registered as registered_stand_in

from wardian_core import hookimpl
from wardian_core.errors import WardianError
from wardian_core.parsing.screen import ScreenModel
from wardian_core.provider_models import PTY_SOURCE, LaunchConfig, ParseResult, SpawnContext
from wardian_host.providers.manager import PluginFailure, Plugins, load_plugins
from wardian_host.providers.source_parser import SourceParser

sys.path.insert(0, str(Path(__file__).parent / "example_provider"))
pytest_plugins = ["wardian_test_packages"]


def context(tmp_path: Path, provider: str, extra_args: list[str] | None = None) -> SpawnContext:
    return SpawnContext(
        agent_uuid="11111111-1111-4111-8111-111111111111",
        agent_name="coder",
        class_name="Coder",
        provider=provider,
        workspace=tmp_path,
        wardian_home=tmp_path / "home",
        agent_dir=tmp_path / "home" / "agents" / "11111111-1111-4111-8111-111111111111",
        launch=LaunchConfig(extra_args=extra_args or []),
    )


def failure_of(plugins, name: str) -> PluginFailure:
    matches = [failure for failure in plugins.failures if failure.name == name]
    assert len(matches) == 1, plugins.failures
    return matches[0]


def test_generic_is_found_through_the_wardian_entry_point_group() -> None:
    plugins = load_plugins({})
    assert "generic" in plugins.provider_names()  # beside the repo's own provider packages
    assert plugins.failures == []
    record = plugins.record("generic")
    assert (record.package, record.entry_point) == ("wardian", "wardian_host.providers.builtin_generic.plugin")
    assert record.hooks == (
        "build_argv",
        "parse_output",
        "prepare_home",
        "provider_info",
        "resume_args",
    )


@pytest.mark.parametrize("allowed", [{}, {"WARDIAN_PLUGINS": "generic,example,broken-import"}])
def test_a_package_pip_installed_adds_its_providers_by_entry_point(
    install_provider_packages: Callable[[], Path], allowed: dict[str, str]
) -> None:
    running = load_plugins(allowed)  # before the install: a host started earlier
    assert "example" not in running.provider_names()
    installed = install_provider_packages()  # while it runs
    # The running host finds it when it is named; a new process finds it at once.
    assert running.info("example").display_name == "Example CLI"
    assert "example" in running.provider_names() and running.failure("example") is None
    plugins = load_plugins(allowed)
    record = plugins.record("example")
    assert (record.name, record.entry_point) == ("example", "wardian_example.plugin")
    assert (record.package, record.package_version) == ("wardian-example", "0.3.0")
    assert str(installed) in str(sys.modules["wardian_example.plugin"].__file__)
    assert plugins.info("example").tested_versions is not None  # its provider.toml was installed
    failure = failure_of(plugins, "broken-import")
    assert (failure.stage, failure.package, failure.package_version) == ("import", "wardian-broken-providers", "0.0.1")
    assert failure.error == "ImportError: wardian_broken needs the library frobnicate, which is not installed"


def test_unset_allow_list_loads_every_installed_plugin() -> None:
    plugins = load_plugins({})
    repo_providers = set(plugins.plugin_names()) - {"generic"}  # providers/*, installed beside
    assert {"claude", "codex", "gemini", "opencode"} <= repo_providers
    assert all(plugins.record(name).package == f"wardian-{name}" for name in repo_providers)
    assert set(plugins.provider_names()) == {"generic"} | repo_providers
    assert plugins.failures == []


def test_allow_list_loads_only_the_named_plugins() -> None:
    plugins = load_plugins({"WARDIAN_PLUGINS": " codex , generic "})
    assert plugins.provider_names() == ["codex", "generic"]
    assert plugins.failures == []


@pytest.mark.parametrize("value", ["", " ", ","])
def test_empty_allow_list_loads_nothing(value: str) -> None:
    plugins = load_plugins({"WARDIAN_PLUGINS": value})
    assert plugins.provider_names() == []
    assert plugins.failures == []


def test_allow_list_is_read_from_the_process_environment_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARDIAN_PLUGINS", "")
    assert load_plugins().provider_names() == []
    monkeypatch.delenv("WARDIAN_PLUGINS")
    assert "generic" in load_plugins().provider_names()


def test_allow_listed_plugin_that_is_not_installed_is_reported() -> None:
    plugins = load_plugins({"WARDIAN_PLUGINS": "generic,nosuchprovider"})
    assert plugins.provider_names() == ["generic"]
    failure = failure_of(plugins, "nosuchprovider")
    assert failure.stage == "missing"
    assert "no plugin named 'nosuchprovider' is installed" in failure.error


def test_misspelled_hook_is_refused_with_a_suggestion(register_test_plugins: Callable[..., Plugins]) -> None:
    plugins = register_test_plugins("broken-hook", "generic")
    failure = failure_of(plugins, "broken-hook")
    assert failure.stage == "validate"
    assert "unknown hook 'parse_outputs'; did you mean 'parse_output'?" in failure.error
    assert plugins.provider_names() == ["generic"]
    assert plugins.plugin_names() == ["generic"]


def test_provider_declaring_another_contract_version_is_refused(register_test_plugins: Callable[..., Plugins]) -> None:
    plugins = register_test_plugins("old-contract", "generic")
    failure = failure_of(plugins, "old-contract")
    assert (failure.stage, failure.contract_version) == ("contract", 2)
    assert failure.error == "built for contract version 2; this wardian implements version 3"
    assert plugins.provider_names() == ["generic"]


def test_info_of_a_broken_plugin_explains_why_it_is_unavailable(register_test_plugins: Callable[..., Plugins]) -> None:
    plugins = register_test_plugins("old-contract")
    with pytest.raises(WardianError) as caught:
        plugins.info("old-contract")
    assert caught.value.code == "request_failed"
    assert "could not be loaded (contract): built for contract version 2" in caught.value.message


def test_unknown_provider_is_not_found_and_the_hint_lists_known_ones() -> None:
    plugins = load_plugins({"WARDIAN_PLUGINS": "codex,generic"})
    with pytest.raises(WardianError) as caught:
        plugins.build_argv("nope", ctx=context(Path("/tmp"), "nope"))
    assert (caught.value.code, caught.value.exit_code) == ("not_found", 2)
    assert caught.value.hint == "Known providers: codex, generic. WARDIAN_PLUGINS does not name it."


def test_call_dispatches_to_the_named_provider_only(
    register_test_plugins: Callable[..., Plugins], tmp_path: Path
) -> None:
    plugins = register_test_plugins("example", "generic")
    ctx = context(tmp_path, "generic", ["bash", "-l"])
    assert plugins.build_argv("generic", ctx=ctx).argv == ["bash", "-l"]
    assert plugins.build_argv("example", ctx=ctx).argv == [
        "wardian-example-cli",
        "--tone",
        "plain",
        "bash",
        "-l",
    ]
    assert plugins.resume_args("generic", ctx=ctx, session_id="s-1") == []
    assert plugins.resume_args("example", ctx=ctx, session_id="s-1") == ["--resume", "s-1"]


def test_hook_a_provider_does_not_implement_gets_the_neutral_answer(tmp_path: Path) -> None:
    plugins = load_plugins({"WARDIAN_PLUGINS": "generic"})
    ctx = context(tmp_path, "generic", ["bash"])
    assert plugins.prepare_home("generic", ctx=ctx).env == {}
    assert plugins.approval_source("generic", ctx=ctx) == []
    # generic's parser has no `screen`: the optional method answers nothing.
    assert SourceParser(plugins, "generic", PTY_SOURCE).screen(ctx, ScreenModel().snapshot()) == ParseResult()


def test_raising_provider_becomes_request_failed_and_is_recorded(
    register_test_plugins: Callable[..., Plugins], tmp_path: Path
) -> None:
    plugins = register_test_plugins("raising", "generic")
    ctx = context(tmp_path, "raising")
    with pytest.raises(WardianError) as caught:
        SourceParser(plugins, "raising", PTY_SOURCE).parse(ctx, b"x")
    assert caught.value.code == "request_failed"
    assert caught.value.message == (
        "provider 'raising' failed in its parser's feed: RuntimeError: raising chokes on output"
    )
    assert failure_of(plugins, "raising").stage == "parse_output"
    # The others are untouched.
    assert plugins.build_argv("generic", ctx=context(tmp_path, "generic", ["sh"])).argv == ["sh"]


def test_a_hook_that_keeps_raising_is_counted_not_recorded_again(
    register_test_plugins: Callable[..., Plugins], tmp_path: Path
) -> None:
    plugins = register_test_plugins("raising")
    ctx = context(tmp_path, "raising")
    parser = SourceParser(plugins, "raising", PTY_SOURCE)
    for _ in range(1000):
        with pytest.raises(WardianError):
            parser.parse(ctx, b"x")
        plugins.notify("status_changed", ctx=ctx, previous="idle", current="processing", event=None)
    by_stage = {failure.stage: failure for failure in plugins.failures if failure.name == "raising"}
    assert set(by_stage) == {"parse_output", "status_changed"}
    assert by_stage["parse_output"].count == 1000 and by_stage["status_changed"].count == 1000
    assert by_stage["status_changed"].error == "RuntimeError: raising cannot observe"


def test_answer_of_the_wrong_type_is_validation_failed(
    register_test_plugins: Callable[..., Plugins], tmp_path: Path
) -> None:
    plugins = register_test_plugins("raising")
    with pytest.raises(WardianError) as caught:
        plugins.resume_args("raising", ctx=context(tmp_path, "raising"), session_id="s")
    assert caught.value.code == "validation_failed"


def test_wardian_error_raised_by_a_provider_passes_through(tmp_path: Path) -> None:
    plugins = load_plugins({"WARDIAN_PLUGINS": "generic"})
    with pytest.raises(WardianError) as caught:
        plugins.build_argv("generic", ctx=context(tmp_path, "generic", []))
    assert caught.value.code == "usage"
    assert plugins.failures == []


def test_hooks_are_called_with_exactly_their_keywords(tmp_path: Path) -> None:
    plugins = load_plugins({"WARDIAN_PLUGINS": "generic"})
    with pytest.raises(TypeError, match="build_argv takes exactly"):
        plugins._call("generic", "build_argv")
    with pytest.raises(ValueError, match="not a provider hook"):
        plugins._call("generic", "status_changed", ctx=None, previous="a", current="b", event=None)


def test_notify_reaches_every_observer_and_survives_a_raising_one(
    register_test_plugins: Callable[..., Plugins], tmp_path: Path
) -> None:
    plugins = register_test_plugins("raising", "recorder", "generic")
    recorder = sys.modules["wardian_broken.recorder"]
    recorder.SEEN.clear()
    plugins.notify(
        "status_changed", ctx=context(tmp_path, "generic", ["sh"]), previous="starting", current="idle", event=None
    )
    assert recorder.SEEN == [("starting", "idle")]
    failure = failure_of(plugins, "raising")
    assert (failure.stage, failure.error) == ("status_changed", "RuntimeError: raising cannot observe")


def test_agent_read_path_imports_neither_pluggy_nor_the_plugin_manager(seed_agent, wardian_home: Path) -> None:
    seed_agent(name="reader")
    probe = (
        "import sys\n"
        "from wardian_host.cli import cli\n"
        "cli.main(args=['agent', 'list', '--scope', 'all'], standalone_mode=False)\n"
        "loaded = [m for m in ('pluggy', 'wardian_host.providers.manager', 'wardian_core.hookspecs',"
        " 'wardian_core.provider_models') if m in sys.modules]\n"
        "sys.stderr.write(repr(loaded))\n"
    )
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr
    assert '"reader"' in completed.stdout
    assert completed.stderr == "[]"


class MisspelledStandIn(StandIn):
    name = "misspelled"

    @hookimpl
    def parse_outputs(self) -> None:  # the hook is parse_output
        return None


def test_a_registered_plugin_object_is_checked_as_an_installed_one(tmp_path: Path) -> None:
    plugins = Plugins()
    plugins.register(MisspelledStandIn(), "misspelled")
    failure = failure_of(plugins, "misspelled")
    assert (failure.stage, failure.package) == ("validate", None)
    assert "unknown hook 'parse_outputs'; did you mean 'parse_output'?" in failure.error
    assert plugins.provider_names() == []
    # A sound one is a provider like any other, reached by name only.
    sound = registered_stand_in(StandIn())
    assert sound.build_argv("standin", context(tmp_path, "standin")).argv == ["standin"]
