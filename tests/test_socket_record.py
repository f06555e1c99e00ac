"""A long home's socket path, recorded by its host for every other process (issue 30, item 17)."""

from pathlib import Path

import pytest

from wardian_core import paths
from wardian_core.control import endpoint, socket_record
from wardian_core.errors import WardianError


@pytest.fixture
def long_home(tmp_path: Path) -> Path:
    home = tmp_path / ("h" * 60) / ("i" * 60)
    paths.run_dir(home).mkdir(parents=True)
    return home


def test_every_process_finds_the_recorded_socket_whatever_its_runtime_folder(
    long_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hosts = tmp_path / "host-runtime" / "wardian"
    hosts.mkdir(parents=True, mode=0o700)
    socket_record.write(long_home, hosts / "abc.sock")
    mine = tmp_path / "cli-runtime"
    mine.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(mine))
    assert endpoint.socket_path(long_home) == hosts / "abc.sock"
    socket_record.forget(long_home)
    assert endpoint.socket_path(long_home).parent == mine / "wardian"


@pytest.mark.parametrize("text", ["", "not json", '{"socket": "relative.sock"}', '{"socket": "/a", "more": 1}'])
def test_an_unusable_record_is_as_if_none_was_made(long_home: Path, text: str) -> None:
    socket_record.record_path(long_home).write_text(text)
    assert socket_record.read(long_home) is None


def test_a_record_that_is_a_link_is_refused_not_followed(long_home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text('{"socket": "/tmp/planted.sock"}')
    socket_record.record_path(long_home).symlink_to(elsewhere)
    with pytest.raises(WardianError) as refused:
        socket_record.read(long_home)
    assert refused.value.code == "unauthorized"
