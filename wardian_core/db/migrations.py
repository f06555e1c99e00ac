"""Forward-only schema migrations, versioned with `PRAGMA user_version`.

Append a new step to MIGRATIONS; never edit a released one. A database whose
version is above `CURRENT_VERSION` was written by a newer Wardian and is refused.
"""

import sqlite3

MIGRATIONS: list[str] = [
    # 1: agents and their status events
    """
    CREATE TABLE agents (
        uuid TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        class TEXT NOT NULL,
        provider TEXT NOT NULL,
        workspace TEXT,
        description TEXT,
        status TEXT NOT NULL DEFAULT 'off',
        pid INTEGER,
        started_at TEXT,
        last_status_at TEXT,
        provider_session_id TEXT,
        is_off INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL
    );
    CREATE INDEX agents_by_workspace ON agents (workspace);
    CREATE INDEX agents_by_class ON agents (class);
    CREATE INDEX agents_by_status ON agents (status);
    CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        agent TEXT NOT NULL REFERENCES agents (uuid) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL DEFAULT '{}',
        timestamp TEXT NOT NULL
    );
    CREATE INDEX events_by_agent ON events (agent, id);
    CREATE INDEX events_by_time ON events (timestamp);
    """,
    # 2: why the status is what it is, and the launch configuration relaunches reuse
    """
    ALTER TABLE agents ADD COLUMN status_evidence TEXT;
    ALTER TABLE agents ADD COLUMN launch_config TEXT NOT NULL DEFAULT '{}'
    """,
    # 3: the provider settings in force at the latest launch (declared defaults, settings.toml,
    # the agent's own), so `agent show --verbose` can say e.g. which permission mode runs
    """
    ALTER TABLE agents ADD COLUMN provider_settings TEXT
    """,
    # 4: what identifies the agent's processes (pid with start time, session, launch token),
    # so recovery and kill tell them from a process that merely carries WARDIAN_SESSION_ID
    """
    ALTER TABLE agents ADD COLUMN process_identity TEXT
    """,
    # 5: `wardian ask` requests and their replies, kept past the asking CLI and host restarts;
    # an agent's requests go with it (`agent delete`)
    """
    CREATE TABLE requests (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL REFERENCES agents (uuid) ON DELETE CASCADE,
        agent_name TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending',
        message TEXT NOT NULL,
        until TEXT,
        asker TEXT,
        asker_verified INTEGER,
        created_at TEXT NOT NULL,
        delivery TEXT,
        reply TEXT
    );
    CREATE INDEX requests_by_agent ON requests (agent, created_at);
    CREATE INDEX requests_by_status ON requests (status, created_at)
    """,
    # 6: workflow runs and their append-only event log, from which a run's state is rebuilt
    """
    CREATE TABLE workflow_runs (
        id TEXT PRIMARY KEY,
        workflow_id TEXT NOT NULL,
        definition TEXT NOT NULL,
        inputs TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE INDEX workflow_runs_by_workflow ON workflow_runs (workflow_id, created_at);
    CREATE TABLE workflow_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL REFERENCES workflow_runs (id) ON DELETE CASCADE,
        node TEXT,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL DEFAULT '{}',
        at TEXT NOT NULL
    );
    CREATE INDEX workflow_events_by_run ON workflow_events (run_id, id)
    """,
    # 7: names are unique whatever their case (`shell` and `SHELL` were two agents no one could
    # tell apart by ear). Of names an older Wardian let differ only in case, the oldest keeps its
    # own and each other gets its uuid's first 8 characters appended, so nothing is lost.
    """
    UPDATE agents SET name = name || '-' || substr(uuid, 1, 8)
    WHERE rowid NOT IN (SELECT min(rowid) FROM agents GROUP BY name COLLATE NOCASE);
    CREATE UNIQUE INDEX agents_name_any_case ON agents (name COLLATE NOCASE)
    """,
    # 8: git worktrees Wardian made (one per agent or workflow node), kept until removed; an agent
    # carries the worktree it works in and its branch, so relaunches start there
    """
    CREATE TABLE worktrees (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        source_folder TEXT NOT NULL,
        worktree_folder TEXT NOT NULL UNIQUE,
        branch TEXT NOT NULL,
        base TEXT NOT NULL,
        base_ref TEXT NOT NULL,
        port_base INTEGER NOT NULL UNIQUE,
        owner TEXT NOT NULL DEFAULT 'agent',
        created_at TEXT NOT NULL
    );
    CREATE INDEX worktrees_by_source ON worktrees (source_folder);
    ALTER TABLE agents ADD COLUMN worktree TEXT;
    ALTER TABLE agents ADD COLUMN worktree_folder TEXT;
    ALTER TABLE agents ADD COLUMN branch TEXT
    """,
    # 9: what each turn cost, as the CLI recorded it (`usage_reported`); NULL where it said
    # nothing. (agent, turn_key) is unique: a record read again after a restart counts once.
    """
    CREATE TABLE usage (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        agent TEXT NOT NULL REFERENCES agents (uuid) ON DELETE CASCADE,
        turn_key TEXT NOT NULL,
        model TEXT,
        input_tokens INTEGER,
        output_tokens INTEGER,
        cache_read_tokens INTEGER,
        cache_write_tokens INTEGER,
        reasoning_tokens INTEGER,
        cost_usd REAL,
        context_used INTEGER,
        context_window INTEGER,
        rate_limits TEXT,
        evidence TEXT NOT NULL DEFAULT '{}',
        at TEXT NOT NULL,
        UNIQUE (agent, turn_key)
    );
    CREATE INDEX usage_by_time ON usage (at);
    CREATE INDEX usage_by_agent ON usage (agent, id)
    """,
    # 10: the machine an ask came from over ssh (`wardian ask name@remote`): its asker is a
    # claim this host cannot verify, recorded as such and given no identity
    """
    ALTER TABLE requests ADD COLUMN asker_machine TEXT
    """,
    # 11: how far the host read each telemetry source of an agent's launch (its pid), so a host
    # that adopts the terminal after a restart or a crash follows on from there
    """
    CREATE TABLE telemetry_positions (
        agent TEXT NOT NULL REFERENCES agents (uuid) ON DELETE CASCADE,
        launch_pid INTEGER NOT NULL,
        source TEXT NOT NULL,
        position TEXT NOT NULL,
        PRIMARY KEY (agent, source)
    )
    """,
    # 12: an agent's own budget (spawn's --budget, `agent budget --raise/--clear`: JSON of tokens,
    # usd, minutes, a key present overriding settings.toml's) and its hold once its use reached it,
    # stored so a held agent stays held across a host restart and a crash
    """
    CREATE TABLE budgets (
        agent TEXT PRIMARY KEY REFERENCES agents (uuid) ON DELETE CASCADE,
        limits TEXT NOT NULL DEFAULT '{}',
        held TEXT,
        updated_at TEXT NOT NULL
    )
    """,
    # 13: the usage limit an agent waits out (`limit_reached`, `limit_retrying`): JSON of its kind,
    # reset, source and the resume Wardian scheduled, so the schedule outlives a restart and a crash
    """
    ALTER TABLE agents ADD COLUMN "limit" TEXT
    """,
]

CURRENT_VERSION = len(MIGRATIONS)


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection) -> None:
    """Bring the schema to CURRENT_VERSION; safe when several writers race."""
    if schema_version(conn) == CURRENT_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = schema_version(conn)  # re-read under the write lock
        for step in range(version, CURRENT_VERSION):
            for statement in MIGRATIONS[step].split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {step + 1}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
