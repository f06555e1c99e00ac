"""What `wardian providers list/show` report: each provider, its package, its
executable and a readiness verdict with a hint when it is not ready."""

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wardian_core.provider_models import ProviderInfo, TestedVersions
from wardian_host.providers.executables import executable_version, locate
from wardian_host.providers.manager import PluginFailure, Plugins

READINESS = ("ready", "missing_executable", "broken_plugin")
SUMMARY_FIELDS = (
    "name",
    "display_name",
    "package",
    "package_version",
    "hooks",
    "capabilities",
    "executable",
    "executable_path",
    "executable_source",
    "executable_version",
    "version_tested",
    "readiness",
    "error",
    "hint",
)


def _configured_executable(home: Path, provider: str) -> str | None:
    from wardian_core.errors import WardianError
    from wardian_core.settings import load_settings

    try:
        section = getattr(load_settings(home).providers, provider, None)
    except WardianError:
        return None  # a broken settings.toml is reported by `wardian settings list`
    return getattr(section, "executable", None)


def version_tested(version_text: str | None, tested: TestedVersions | None) -> str | None:
    """Where the installed CLI's version lies against the range the provider was proven on:
    `inside`, `newer`, `older`, `unknown` (no version read), or None (no range declared)."""
    if tested is None:
        return None
    found = _VERSION.search(version_text or "")
    if found is None:
        return "unknown"
    installed = _numbers(found.group(0))
    if installed > _numbers(tested.newest):
        return "newer"
    return "older" if installed < _numbers(tested.oldest) else "inside"


_VERSION = re.compile(r"\d+(?:\.\d+)+")


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version))


def _provider_record(plugins: Plugins, name: str, home: Path, environ: Mapping[str, str]) -> dict[str, Any]:
    info = plugins.info(name)
    plugin = plugins.record(name)
    location = locate(info, environ, _configured_executable(home, name))
    needs_executable = info.executable is not None or location.override_value is not None
    version = executable_version(location.path, info.version_args, home) if location.path else None
    readiness, hint = "ready", None
    if needs_executable and location.path is None:
        readiness = "missing_executable"
        if location.override_value is not None:
            hint = f"{location.override_variable}={location.override_value} is not an executable file; fix or unset it."
        else:
            install = info.install_hint or f"Install `{info.executable}`"
            hint = (
                f"{install.rstrip('.')}, then make sure it is on PATH, or set {location.override_variable} to its path."
            )
    return {
        "name": name,
        "display_name": info.display_name,
        "package": plugin.package,
        "package_version": plugin.package_version,
        "entry_point": plugin.entry_point,
        "hooks": list(plugin.hooks),
        "capabilities": list(info.capabilities),
        "contract_version": info.contract_version,
        "executable": info.executable,
        "executable_path": location.path,
        "executable_source": location.source,
        "executable_override_variable": location.override_variable,
        "executable_version": version.version if version else None,
        "executable_version_error": version.error if version else None,
        "tested_versions": info.tested_versions.model_dump() if info.tested_versions else None,
        "version_tested": version_tested(version.version if version else None, info.tested_versions)
        if location.path
        else None,
        "settings": [setting.model_dump(mode="json") for setting in info.settings],
        "instruction_file": info.instruction_file,
        "session_id_mode": info.session_id_mode,
        "input_profile": info.input_profile.model_dump(mode="json"),
        "install_hint": info.install_hint,
        "mcp": _mcp(home, info),
        "readiness": readiness,
        "error": None,
        "failure_stage": None,
        "hint": hint,
    }


def _mcp(home: Path, info: ProviderInfo) -> dict[str, Any]:
    """Whether this provider's agents get `wardian mcp` in their CLI's configuration, and why."""
    from wardian_core.mcp_registration import registered_or_why_not
    from wardian_core.settings import load_settings

    registered, why = registered_or_why_not(load_settings(home).mcp, info)
    return {"registered": registered, "why": why}


def _contract_hint(failure: PluginFailure) -> str:
    """Both versions, and the two ways to make them meet."""
    from wardian_core.provider_models import CONTRACT_VERSION

    package = failure.package or f"the package that provides {failure.name!r}"
    return (
        f"{package} is built for provider contract version {failure.contract_version}; this wardian "
        f"implements version {CONTRACT_VERSION}. Install a release of {package} built for contract "
        f"{CONTRACT_VERSION}, or a wardian that implements contract {failure.contract_version}, "
        f"or leave it out with WARDIAN_PLUGINS."
    )


def _broken_record(failure: PluginFailure) -> dict[str, Any]:
    if failure.stage == "contract":
        hint = _contract_hint(failure)
    elif failure.stage == "missing":
        hint = f"Install the package that provides {failure.name!r}, or take it out of WARDIAN_PLUGINS."
    elif failure.package:
        hint = (
            f"Upgrade or reinstall {failure.package} (`pip install -U {failure.package}`), "
            f"or leave it out with WARDIAN_PLUGINS."
        )
    else:
        hint = "Upgrade or reinstall the package that provides it, or leave it out with WARDIAN_PLUGINS."
    return {
        "name": failure.name,
        "display_name": None,
        "package": failure.package,
        "package_version": failure.package_version,
        "entry_point": None,
        "hooks": [],
        "capabilities": [],
        "contract_version": failure.contract_version,
        "executable": None,
        "executable_path": None,
        "executable_source": None,
        "executable_override_variable": None,
        "executable_version": None,
        "executable_version_error": None,
        "tested_versions": None,
        "version_tested": None,
        "settings": [],
        "instruction_file": None,
        "session_id_mode": None,
        "input_profile": None,
        "install_hint": None,
        "mcp": None,
        "readiness": "broken_plugin",
        "error": f"{failure.stage}: {failure.error}",
        "failure_stage": failure.stage,
        "hint": hint,
    }


def provider_records(plugins: Plugins, home: Path, environ: Mapping[str, str]) -> list[dict[str, Any]]:
    """Every provider that loaded, then every plugin that failed to load."""
    records = [_provider_record(plugins, name, home, environ) for name in plugins.provider_names()]
    loaded = set(plugins.plugin_names())
    broken = {}
    for failure in plugins.failures:
        if failure.name not in loaded and failure.name not in broken:
            broken[failure.name] = _broken_record(failure)
    return records + [broken[name] for name in sorted(broken)]


def provider_record(plugins: Plugins, name: str, home: Path, environ: Mapping[str, str]) -> dict[str, Any]:
    if name in plugins.provider_names():
        return _provider_record(plugins, name, home, environ)
    failure = plugins.failure(name)
    if failure is not None and name not in plugins.plugin_names():
        return _broken_record(failure)
    plugins.info(name)  # raises not_found, listing the known providers
    raise AssertionError("unreachable: info() raises for a name that is not a provider")


def summary(record: dict[str, Any]) -> dict[str, Any]:
    return {field: record.get(field) for field in SUMMARY_FIELDS}
