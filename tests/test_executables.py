"""Where a provider's executable is found on PATH: a native binary before a script shim, for a
provider that asks for it (OpenCode: npm puts shims and launchers in front of its binary)."""

import shutil
from pathlib import Path

from wardian_core.provider_models import CONTRACT_VERSION, ProviderInfo
from wardian_host.providers.executables import is_native, locate, native_on_path


def info(prefer_native: bool) -> ProviderInfo:
    return ProviderInfo(
        name="tool",
        display_name="Tool",
        contract_version=CONTRACT_VERSION,
        executable="tool",
        session_id_mode="discovered",
        prefer_native_executable=prefer_native,
    )


def path_with_a_shim_before_the_binary(tmp_path: Path) -> tuple[dict[str, str], Path, Path]:
    shims, binaries = tmp_path / "shims", tmp_path / "bin"
    shims.mkdir()
    binaries.mkdir()
    shim = shims / "tool"
    shim.write_text("#!/usr/bin/env node\nrequire('./launch')\n")
    shim.chmod(0o755)
    binary = binaries / "tool"
    shutil.copy(shutil.which("true") or "/bin/true", binary)
    return {"PATH": f"{shims}:{binaries}"}, shim, binary


def test_a_native_binary_later_on_path_wins_over_a_shim_for_a_provider_that_asks(tmp_path: Path) -> None:
    environ, shim, binary = path_with_a_shim_before_the_binary(tmp_path)
    assert is_native(binary) and not is_native(shim)
    assert native_on_path("tool", environ) == str(binary)
    assert locate(info(prefer_native=True), environ).path == str(binary)


def test_other_providers_keep_the_first_on_path(tmp_path: Path) -> None:
    environ, shim, _ = path_with_a_shim_before_the_binary(tmp_path)
    assert locate(info(prefer_native=False), environ).path == str(shim)


def test_only_a_shim_is_still_found(tmp_path: Path) -> None:
    environ, shim, binary = path_with_a_shim_before_the_binary(tmp_path)
    binary.unlink()
    assert native_on_path("tool", environ) is None
    assert locate(info(prefer_native=True), environ).path == str(shim)


def test_an_override_is_taken_as_given(tmp_path: Path) -> None:
    environ, shim, _ = path_with_a_shim_before_the_binary(tmp_path)
    location = locate(info(prefer_native=True), {**environ, "WARDIAN_TOOL_EXECUTABLE": str(shim)})
    assert (location.path, location.source) == (str(shim), "override")
