"""`wardian providers new` and `providers check`: what they write, and every refusal's envelope.
That the written package works (installed, listed, checked, tested, an agent idle) is proven in
tests/e2e/test_provider_template.py."""

import tomllib
from pathlib import Path

import pytest
from provider_imports import NAMESPACE, in_namespace, wardian_imports

from wardian_core.errors import WardianError
from wardian_core.provider_models import CONTRACT_VERSION
from wardian_host.providers.scaffold import write_provider_package


def test_new_writes_the_package_named_for_the_provider_beside_the_caller(run_wardian, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    written = run_wardian("providers", "new", "my-cli", cwd=work)
    assert written.returncode == 0, written.stderr
    package = work / "wardian-my-cli"
    assert written.json()["provider"]["path"] == str(package)
    project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
    assert (project["name"], project["entry-points"]["wardian"]) == (
        "wardian-my-cli",
        {"my-cli": "wardian_my_cli.plugin"},
    )
    declared = tomllib.loads((package / "src" / "wardian_my_cli" / "provider.toml").read_text())
    assert (declared["name"], declared["contract_version"]) == ("my-cli", CONTRACT_VERSION)
    texts = [path.read_text() for path in package.rglob("*") if path.is_file()]
    assert len(texts) == len(written.json()["provider"]["files"]) and not any("{{" in text for text in texts)
    assert [path.name for path in work.iterdir()] == ["wardian-my-cli"]  # nothing left beside it


def test_the_package_imports_only_the_provider_namespace(tmp_path: Path) -> None:
    """A package written as the template was, importing Wardian's private modules, broke the
    namespace rule from its first line: it would break on any release."""
    write_provider_package("my-cli", tmp_path / "package")
    sources = sorted((tmp_path / "package").rglob("*.py"))
    imports = {path.relative_to(tmp_path / "package").as_posix(): wardian_imports(path) for path in sources}
    stray = [f"{path}: {module}" for path, modules in imports.items() for module in modules if not in_namespace(module)]
    assert stray == []
    at_run_time = [module for path, modules in imports.items() if path.startswith("src/") for module in modules]
    assert f"{NAMESPACE}.testing" not in at_run_time
    assert f"{NAMESPACE}.parsing" in imports["src/wardian_my_cli/parser.py"]


@pytest.mark.parametrize("name", ["Bad_Name", "9lives", "my--cli", "my cli", "-x", "x" * 41, ""])
def test_a_name_that_cannot_be_a_provider_is_invalid_name(name: str, tmp_path: Path) -> None:
    with pytest.raises(WardianError) as refused:
        write_provider_package(name, tmp_path / "package")
    assert refused.value.code == "invalid_name"
    assert not (tmp_path / "package").exists()


def test_a_refusal_is_the_error_envelope_with_a_suggested_name(run_wardian, tmp_path: Path) -> None:
    refused = run_wardian("providers", "new", "My_CLI", "--dir", str(tmp_path / "package"))
    assert refused.returncode == 1
    error = refused.error()
    assert (error["code"], error["details"]["suggestion"]) == ("invalid_name", "my-cli")
    assert error["hint"] == "Try `wardian providers new my-cli`."


def test_the_name_of_an_installed_provider_is_duplicate_name(tmp_path: Path) -> None:
    with pytest.raises(WardianError) as refused:
        write_provider_package("generic", tmp_path / "package")
    assert refused.value.code == "duplicate_name"
    assert refused.value.hint is not None and "wardian providers show generic" in refused.value.hint


def test_a_folder_that_is_not_empty_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    work = tmp_path / "work"
    folder = work / "mine"
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("keep me")
    for target in (folder, folder / "notes.txt"):
        with pytest.raises(WardianError) as refused:
            write_provider_package("my-cli", target)
        assert refused.value.code == "would_lose_work"
    assert [path.name for path in folder.iterdir()] == ["notes.txt"]
    assert (folder / "notes.txt").read_text() == "keep me"
    assert [path.name for path in work.iterdir()] == ["mine"]


def test_an_empty_folder_is_filled(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    written = write_provider_package("my-cli", tmp_path / "empty")
    assert (tmp_path / "empty" / "src" / "wardian_my_cli" / "plugin.py").is_file()
    assert sorted(written.files) == sorted(
        path.relative_to(tmp_path / "empty").as_posix() for path in (tmp_path / "empty").rglob("*") if path.is_file()
    )


def test_check_of_a_provider_that_is_not_installed_is_not_found(run_wardian) -> None:
    error = run_wardian("providers", "check", "nosuch", env={"WARDIAN_PLUGINS": "generic"}).error()
    assert error["code"] == "not_found"


def test_check_lists_every_problem_in_one_envelope(run_wardian) -> None:
    # generic has no command of its own: a launch without one is refused, which the checks report.
    refused = run_wardian("providers", "check", "generic")
    assert refused.returncode == 1
    error = refused.error()
    assert error["code"] == "validation_failed"
    assert error["details"]["problems"][0].startswith("check_build_argv: build_argv for a fresh interactive launch")
