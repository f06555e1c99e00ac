"""The portable backend's own pass: for each seam where `ptyprocess` differs from `linux`, the
tests that exercise it, run again by `scripts/dev.py test` under WARDIAN_PTY_BACKEND=ptyprocess.

The first pass runs every test on the default backend; this pass proves what only the portable
backend does (docs/platforms.md): the rest of the code is the same on both. docs/testing.md
lists the seams and their tests; `tests/test_portable_pass.py` checks that every test named here
exists and that every seam has a generic (plumbing) test and a real CLI's test.
"""

CLAUDE = "providers/wardian-claude/tests/test_real_cli.py"
CODEX = "providers/wardian-codex/tests/test_real_cli.py"
GEMINI = "providers/wardian-gemini/tests/test_real_cli.py"
OPENCODE = "providers/wardian-opencode/tests/test_real_cli.py"

SEAMS: dict[str, dict[str, list[str]]] = {
    "exits by SIGCHLD (terminal/child_exits: waitpid per watched child, never -1)": {
        "plumbing": [
            "tests/e2e/test_host_lifecycle.py",
            "tests/e2e/test_agent_processes.py",
            "tests/e2e/test_lifecycle_races.py",
            "tests/e2e/test_host_restart.py",
            # the new server takes PTYs whose processes are not its children
            "tests/e2e/test_server_upgrade.py",
        ],
        "real CLI": [
            f"{CODEX}::test_a_turn_and_an_approval_outlive_a_host_restart_and_a_crash_and_kill_leaves_no_codex_process"
        ],
    },
    "the trampoline (setsid and TIOCSCTTY in a fresh interpreter, then exec)": {
        "plumbing": [
            "tests/e2e/test_pty_backends.py",
            "tests/e2e/test_generic_shells.py",
            "tests/e2e/test_attach_sizes.py",
            "tests/e2e/test_screen.py",
        ],
        # Every real CLI's test here launches through the trampoline; this one also attaches a
        # terminal to the most demanding TUI. (tests/real_cli/ drives the CLIs in the harness's
        # own pseudo-terminal, never Wardian's backend: nothing of it belongs in this pass.)
        "real CLI": [f"{OPENCODE}::test_pause_and_resume_continue_the_session_and_attach_shows_the_tui"],
    },
    "callers held by their start time (no pidfd)": {
        "plumbing": ["tests/e2e/test_callers.py", "tests/e2e/test_ask_reply.py", "tests/e2e/test_whoami_shape.py"],
        "real CLI": [
            f"{CLAUDE}::test_one_agent_takes_an_early_send_skills_multi_line_tools_an_ask_and_approvals",
            f"{GEMINI}::test_a_turn_and_the_session_outlive_a_crash_of_the_host_and_an_ask_is_answered_by_the_agents_reply",
        ],
    },
    "polling followers (output/polling: no inotify)": {
        "plumbing": ["tests/e2e/test_restart_continuity.py", "tests/e2e/test_host_endpoint.py"],
        # One test per CLI whose status is read from a followed file (Claude's transcript and
        # hook log, Codex's rollout, Gemini's hook log): a turn, an approval or a restart each
        # read through the polling follower. OpenCode's status is an HTTP event stream.
        "real CLI": [
            f"{CLAUDE}::test_turn_then_pause_and_resume_continue_the_same_session",
            f"{CODEX}::test_a_turn_and_an_approval_outlive_a_host_restart_and_a_crash_and_kill_leaves_no_codex_process",
            f"{GEMINI}::test_a_turn_and_the_session_outlive_a_crash_of_the_host_and_an_ask_is_answered_by_the_agents_reply",
        ],
    },
}


def selection() -> list[str]:
    """Every test id or file the pass runs, each once, in the order named."""
    named = [test for tests in SEAMS.values() for kind in tests.values() for test in kind]
    return list(dict.fromkeys(named))
