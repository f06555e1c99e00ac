"""A provider's identity read from the provider.toml beside its plugin module."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

from stand_in_provider import StandIn

from wardian_core.provider_declaration import declared_provider_info
from wardian_core.provider_models import CONTRACT_VERSION, InputProfile, ProviderInfo, ProviderSetting
from wardian_host.providers.manager import Plugins

DECLARATION = """
name = "declared"
contract_version = 3
display_name = "Declared CLI"
session_id_mode = "discovered"
capabilities = ["interactive", "resume"]
tested_versions = { oldest = "1.0", newest = "1.2" }

[[settings]]
name = "tone"
choices = ["plain", "friendly"]
default = "plain"
"""


class Declared(StandIn):
    def __init__(self, provider_info: Callable[[], ProviderInfo]) -> None:
        self.provider_info = provider_info  # type: ignore[method-assign]  # in place of StandIn's own


def plugin_beside(folder: Path, declaration: str | None, **given: Any) -> Declared:
    """A plugin object whose `provider_info` reads `declaration` from `folder`, with a launch."""
    if declaration is not None:
        (folder / "provider.toml").write_text(declaration, encoding="utf-8")
    beside = str(folder / "plugin.py")
    return Declared(declared_provider_info(beside, executable="declared-cli", **given))


def test_the_declaration_and_the_objects_the_module_gives_make_the_info(tmp_path: Path) -> None:
    profile = InputProfile(submit_key="\n", input_marker=">")
    info = plugin_beside(tmp_path, DECLARATION, input_profile=profile).provider_info()
    assert info.contract_version == CONTRACT_VERSION
    assert (info.name, info.display_name, info.executable) == ("declared", "Declared CLI", "declared-cli")
    assert info.capabilities == ["interactive", "resume"]
    assert info.tested_versions is not None
    assert info.tested_versions.model_dump() == {"oldest": "1.0", "newest": "1.2"}
    assert info.input_profile == profile
    assert [(setting.name, setting.default) for setting in info.settings] == [("tone", "plain")]


def test_settings_the_module_gives_stand_beside_none_declared(tmp_path: Path) -> None:
    declaration = DECLARATION.split("[[settings]]")[0]
    setting = ProviderSetting(name="mode", choices=["a", "b"], default="a")
    info = plugin_beside(tmp_path, declaration, settings=[setting]).provider_info()
    assert info.settings == [setting]


def test_a_fact_declared_twice_marks_the_provider_broken_naming_it(tmp_path: Path) -> None:
    plugins = Plugins()
    setting = ProviderSetting(name="mode")
    plugins.register(plugin_beside(tmp_path, 'executable = "other"\n' + DECLARATION, settings=[setting]), "declared")
    [failure] = plugins.failures
    assert failure.stage == "info"
    assert "declares executable, settings, which its plugin module gives" in failure.error
    assert plugins.provider_names() == []


def test_a_missing_or_malformed_declaration_breaks_that_provider_only_when_asked(tmp_path: Path) -> None:
    missing = plugin_beside(tmp_path / "nowhere", None)  # built without reading: importing never fails
    (tmp_path / "bad").mkdir()
    malformed = plugin_beside(tmp_path / "bad", DECLARATION.replace('"discovered"', '"sometimes"'))
    plugins = Plugins()
    plugins.register(missing, "declared")
    plugins.register(malformed, "malformed")
    stages = {failure.name: (failure.stage, failure.error.split(":")[0]) for failure in plugins.failures}
    assert stages == {"declared": ("info", "FileNotFoundError"), "malformed": ("info", "ValidationError")}


def test_the_contract_version_is_the_one_the_provider_declares(tmp_path: Path) -> None:
    # A field contract 2 had and 3 has not: the gate names the versions, not a schema error.
    declaration = DECLARATION.replace("contract_version = 3", 'contract_version = 2\nparser_state = "dict"')
    plugins = Plugins()
    plugins.register(plugin_beside(tmp_path, declaration), "declared")
    [failure] = plugins.failures
    assert (failure.stage, failure.contract_version) == ("contract", 2)
    assert failure.error == f"built for contract version 2; this wardian implements version {CONTRACT_VERSION}"


def test_a_declaration_without_a_contract_version_says_which_to_declare(tmp_path: Path) -> None:
    plugins = Plugins()
    plugins.register(plugin_beside(tmp_path, DECLARATION.replace("contract_version = 3\n", "")), "declared")
    [failure] = plugins.failures
    assert failure.stage == "info"
    assert f"declares no contract_version; add `contract_version = {CONTRACT_VERSION}`" in failure.error
