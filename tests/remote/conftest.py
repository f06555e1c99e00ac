"""One ssh-reachable "remote machine" per test module (another local user, a real sshd), and a
local home whose settings.toml names it `devbox`."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from ssh_machine import Machine, require_root, start_machine, stop_machine

from wardian_host.testing.reaping import reap_home


@pytest.fixture(scope="module")
def machine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Machine]:
    require_root()
    started = start_machine(tmp_path_factory.mktemp("sshd"))
    yield started
    stop_machine(started)


@pytest.fixture
def devbox(machine: Machine, wardian_home: Path) -> Machine:
    (wardian_home / "settings.toml").write_text(machine.settings_table("devbox"))
    return machine


@pytest.fixture(autouse=True)
def reaped_home(wardian_home: Path) -> Iterator[None]:
    """A host a test started in the local home (a workflow run starts one) ends with the test."""
    yield
    reap_home(wardian_home)
