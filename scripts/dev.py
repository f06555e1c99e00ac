"""Set up a development environment and run Wardian's main job or its tests.

    python3 scripts/dev.py demo   # set up, then show agents in a demo home
    python3 scripts/dev.py test   # set up, then run every test suite in the repo

Needs only python3 (3.11+): it makes `.venv/` beside the repo, installs `wardian`
and every provider package under `providers/` into it (editable), and runs there.
"""

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"


def run(*argv: str | Path, env: dict[str, str] | None = None, check: bool = True) -> int:
    print("+", " ".join(str(a) for a in argv), flush=True)
    return subprocess.run([str(a) for a in argv], cwd=ROOT, env=env, check=check).returncode


def provider_packages() -> list[Path]:
    return sorted(p.parent for p in (ROOT / "providers").glob("*/pyproject.toml"))


def set_up() -> None:
    if sys.version_info < (3, 11):
        raise SystemExit(f"Wardian needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    if not PYTHON.exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    editable = [arg for package in [ROOT, *provider_packages()] for arg in ("-e", str(package))]
    run(PYTHON, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-e", f"{ROOT}[test]", *editable)


def demo() -> int:
    set_up()
    return run(PYTHON, ROOT / "scripts" / "demo.py", check=False)


def install_real_clis() -> None:
    installer = ROOT / "scripts" / "install_clis.py"
    if os.environ.get("WARDIAN_SKIP_REAL_CLI") == "1" or not installer.exists():
        return
    run(PYTHON, installer)


def test(pytest_args: list[str]) -> int:
    set_up()
    install_real_clis()
    code = run(PYTHON, "-m", "pytest", *pytest_args, check=False)
    if code == 5:  # pytest found no test: a hollow run is a failure here
        print("pytest collected no tests: failing the run", file=sys.stderr)
        return 1
    return code


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in ("demo", "test"):
        print(__doc__, file=sys.stderr)
        return 2
    return demo() if sys.argv[1] == "demo" else test(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
