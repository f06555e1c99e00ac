"""`wardian providers new`: the package it writes installs, lists, checks, tests and runs an agent
as written, in a fresh virtual environment beside wardian (offline)."""

import json
import os
import site
import subprocess
import sys
from pathlib import Path

NAME = "tinycli"
# The CLI the new provider launches: it shows the prompt the template's parser waits for.
TINY_CLI = f"""#!/bin/sh
printf 'tiny cli 0.1.0\\n{NAME}> '
while read -r line; do printf 'you said %s\\n{NAME}> ' "$line"; done
"""


def fresh_venv(folder: Path) -> Path:
    """A new virtual environment that sees this one's packages (wardian, setuptools, pytest) after its
    own, as `--system-site-packages` would see a system's: no index, no download."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    own = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    beside = "".join(f"import site; site.addsitedir({path!r})\n" for path in site.getsitepackages())
    (Path(own) / "wardian_beside.pth").write_text(beside, encoding="utf-8")
    return python


def run(*argv: str | Path, env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(part) for part in argv], capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
    assert done.returncode == 0, f"{argv} failed:\n{done.stdout}\n{done.stderr}"
    return done


def test_a_new_provider_package_installs_checks_tests_and_runs_an_agent(run_wardian, tmp_path: Path) -> None:
    package = tmp_path / "wardian-tinycli"
    written = run_wardian("providers", "new", NAME, "--dir", str(package))
    assert written.returncode == 0, written.stderr
    assert written.json()["provider"]["path"] == str(package)

    python = fresh_venv(tmp_path / "venv")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / NAME).write_text(TINY_CLI, encoding="utf-8")
    (bin_dir / NAME).chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    pip: list[str | Path] = [
        python,
        "-m",
        "pip",
        "--disable-pip-version-check",
        "install",
        "--no-index",
        "--no-build-isolation",
    ]
    run(*pip, "--no-deps", "--quiet", "-e", package, env=env)
    wardian: list[str | Path] = [python, "-m", "wardian_host"]

    listed = json.loads(run(*wardian, "providers", "list", env=env).stdout)["providers"]
    [row] = [row for row in listed if row["name"] == NAME]
    assert (row["readiness"], row["package"], row["executable_path"]) == (
        "ready",
        "wardian-tinycli",
        str(bin_dir / NAME),
    )
    checked = json.loads(run(*wardian, "providers", "check", NAME, env=env).stdout)["check"]
    assert checked["passed"] is True
    tested = run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", env=env, cwd=package)
    assert " passed" in tested.stdout and "failed" not in tested.stdout

    spawn = ["agent", "spawn", "--provider", NAME, "--class", "Coder", "--name", "tiny", "--workspace", str(tmp_path)]
    run(*wardian, *spawn, env=env)
    idle = json.loads(run(*wardian, "agent", "wait", "tiny", "--until", "idle", "--timeout", "30s", env=env).stdout)
    assert idle["agent"]["status"] == "idle"
    run(*wardian, "host", "stop", env=env)
