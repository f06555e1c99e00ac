"""The main job before the host exists: a demo home with agents, shown as people see it."""

import os
import subprocess
import sys
from pathlib import Path

from wardian_core import identity
from wardian_core.db import agents as agent_rows
from wardian_core.db import open_writer

ROOT = Path(__file__).resolve().parents[1]
HOME = ROOT / ".cache" / "demo-home"
WARDIAN = str(Path(sys.executable).parent / "wardian")


def seed(home: Path) -> None:
    conn = open_writer(home)
    if agent_rows.list_agents(conn):
        return
    for class_name, status in (("Architect", "idle"), ("Coder", "processing"), ("Reviewer", "action_required")):
        created = identity.create_agent(conn, class_name=class_name, provider="generic", workspace=ROOT)
        agent_rows.record_status(conn, created["uuid"], status, evidence={"source": "demo"})
    conn.close()


def main() -> int:
    seed(HOME)
    env = dict(os.environ, WARDIAN_HOME=str(HOME))
    print(f"WARDIAN_HOME={HOME}\n$ wardian agent list --pretty", flush=True)
    return subprocess.run([WARDIAN, "agent", "list", "--pretty"], env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
