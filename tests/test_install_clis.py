"""The pinned CLIs are installed once per machine and each clone links to them."""

import json
from pathlib import Path
from types import ModuleType

import pytest
from script_modules import load_script


@pytest.fixture
def installer(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[ModuleType, list[Path]]:
    """install_clis with npm replaced by a stand-in that writes what npm would (executables, stamp)."""
    module = load_script("install_clis")
    monkeypatch.setattr(module, "SHARED_ROOT", tmp_path / "machine-cache")
    installs: list[Path] = []

    def npm_install(install_dir: Path, packages: dict[str, str]) -> int:
        installs.append(install_dir)
        for cli, pin in module.PINS.items():
            if pin["package"] in packages:
                module.executable_path(cli, install_dir).parent.mkdir(parents=True, exist_ok=True)
                module.executable_path(cli, install_dir).write_text("#!/bin/sh\n")
        (install_dir / module.STAMP_NAME).write_text(json.dumps(packages))
        return 0

    monkeypatch.setattr(module, "npm_install", npm_install)
    return module, installs


def _clone(module: ModuleType, monkeypatch: pytest.MonkeyPatch, folder: Path) -> Path:
    install_dir = folder / ".cache" / "provider-clis"
    monkeypatch.setattr(module, "INSTALL_DIR", install_dir)
    return install_dir


def test_a_second_clone_links_to_the_pins_the_first_installed(
    installer: tuple[ModuleType, list[Path]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    module, installs = installer
    first = _clone(module, monkeypatch, tmp_path / "first")
    assert module.install(first) == 0
    shared = module.shared_dir()
    assert first.is_symlink() and first.resolve() == shared.resolve() and module.isinstalled(first)
    every_pin = 1 + len(module.older_versions())
    assert len(installs) == every_pin and all(path.is_relative_to(shared) for path in installs)

    second = _clone(module, monkeypatch, tmp_path / "second")
    assert module.install(second) == 0
    assert second.resolve() == shared.resolve() and len(installs) == every_pin, "npm ran again"


def test_a_clone_holding_an_install_of_other_pins_is_relinked(
    installer: tuple[ModuleType, list[Path]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    module, _ = installer
    clone = _clone(module, monkeypatch, tmp_path / "clone")
    clone.mkdir(parents=True)
    (clone / module.STAMP_NAME).write_text(json.dumps({"opencode-ai": "0.0.1"}))
    assert module.install(clone) == 0
    assert clone.is_symlink() and module.isinstalled(clone)


def test_pins_that_move_install_into_a_folder_of_their_own(
    installer: tuple[ModuleType, list[Path]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    module, _ = installer
    before = module.shared_dir()
    pins = tmp_path / "provider_cli_pins.json"
    pins.write_text(module.PINS_FILE.read_text().replace('"versions": [', '"versions": ["9.9.9", ', 1))
    monkeypatch.setattr(module, "PINS_FILE", pins)
    assert module.shared_dir() != before and module.shared_dir().parent == before.parent


def test_without_a_writable_machine_cache_the_clone_keeps_its_own_copy(
    installer: tuple[ModuleType, list[Path]], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    module, installs = installer
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    monkeypatch.setattr(module, "SHARED_ROOT", blocked / "provider-clis")
    clone = _clone(module, monkeypatch, tmp_path / "clone")
    assert module.install(clone) == 0
    assert not clone.is_symlink() and module.isinstalled(clone) and installs[0] == clone
