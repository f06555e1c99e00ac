"""Agent lifecycle: spawn, kill, pause, resume, restart, clear, update, clone, rename, delete.

Operations on one agent are serialized by its lock; different agents proceed in
parallel. An operation that was queued behind a delete finds the agent gone (`not_found`)
instead of acting on a forgotten agent (a restart would launch a process no record names).
A stopping host launches nothing more (`host_stopping`). A spawn that fails after
creating the agent's row removes it again, so a missing executable or a raising plugin
leaves nothing half-made. Relaunches use the launch configuration stored with the agent;
whether they continue the provider session is decided by `wardian_host.agents.relaunch`,
nowhere else.
"""

import asyncio
import contextlib
import functools
import json
import logging
import shutil
import sqlite3
import uuid as uuid_module
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from wardian_core import identity, paths
from wardian_core.clock import now_iso
from wardian_core.control.answers import AgentSnapshot, DeleteAnswer, SpawnAnswer, UpdateAnswer
from wardian_core.control.models import SpawnParams, UpdateParams, WorktreeRequest
from wardian_core.db import agents as agent_rows
from wardian_core.errors import WardianError
from wardian_core.mcp_registration import mcp_registration
from wardian_core.process_identity import ProcessIdentity
from wardian_core.provider_models import HEADLESS_SOURCE, HomePlan, LaunchConfig, LaunchPlan, ProviderInfo, SpawnContext
from wardian_core.settings import load_settings
from wardian_core.terminal_wire import TerminalState
from wardian_host.agents.adoption import ParsedOffset, Replay, take_size
from wardian_host.agents.agent_env import agent_environment
from wardian_host.agents.headless import HeadlessRun, check_capability
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.recording import recording_target
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.relaunch import session_mode_for
from wardian_host.agents.spawn_context import build_context, launch_config_of, stored_launch_config
from wardian_host.agents.state_catch_up import StateCatchUp
from wardian_host.agents.status_tracker import StatusTracker
from wardian_host.agents.telemetry_positions import LaunchPositions
from wardian_host.agents.worktrees import AgentWorktrees, check_present
from wardian_host.output.feed import OutputFeed, ParserSession
from wardian_host.providers.executables import (
    MissingCommand,
    missing_executable_hint,
    native_on_path,
    override_variable,
)
from wardian_host.providers.manager import Plugins
from wardian_host.providers.provider_settings import checked_provider_settings
from wardian_host.providers.source_parser import SourceParser
from wardian_host.terminal import process_tree
from wardian_host.terminal.supervisor import SERVER_ENDED, TerminalSupervisor

log = logging.getLogger(__name__)

KILL_GRACE_SECONDS = 5.0
EXIT_CODE_UNKNOWN = "exit, code unknown: not the terminal server's child"


class AgentLifecycle:
    def __init__(
        self,
        home: Path,
        conn: sqlite3.Connection,
        plugins: Plugins,
        registry: AgentRegistry,
        tracker: StatusTracker,
        terminals: TerminalSupervisor,
        feed: OutputFeed,
        base_env: dict[str, str],
    ) -> None:
        self.home = home
        self._conn = conn
        self._plugins = plugins
        self._registry = registry
        self._tracker = tracker
        self._terminals = terminals
        self._feed = feed
        self._base_env = base_env
        self._catch_up = StateCatchUp(conn)
        self.worktrees = AgentWorktrees(home, conn, registry)
        self._stopping = False

    # -- launching -----------------------------------------------------------------

    def plan_launch(
        self,
        agent: LiveAgent,
        session_mode: Literal["fresh", "resume"],
        mode: Literal["interactive", "headless"] = "interactive",
        prompt: str | None = None,
    ) -> tuple[SpawnContext, LaunchPlan, dict[str, str]]:
        """What to start for one launch: the provider's context, argv and environment.

        A resume launch carries what the provider's `resume_args` answers for the agent's
        session (nothing, for a provider that cannot resume: it keeps its session id and
        starts as it would fresh).
        """
        self._refuse_when_stopping(agent.name)
        check_present(agent.row)
        provider = agent.row["provider"]
        info = self._plugins.info(provider)
        ctx = build_context(
            self.home,
            agent.row,
            mode=mode,
            session_mode=session_mode,
            provider_session_id=self._session_id_for(agent, info, session_mode),
            provider_settings=self.provider_settings(provider),
            prompt=prompt,
        )
        if ctx.session_mode == "resume":
            ctx = self._with_resume_args(ctx, info)
        self._record_settings_in_force(agent, ctx.launch.settings)
        return self.plan_for(ctx, agent.uuid)

    def provider_settings(self, provider: str) -> dict[str, Any]:
        """What a launch of `provider` runs with before an agent's own settings: the declared
        defaults, then settings.toml's section."""
        info = self._plugins.info(provider)
        section = getattr(load_settings(self.home).providers, provider, None)
        declared = {setting.name: setting.default for setting in info.settings if setting.default is not None}
        return declared | (section.model_dump(exclude_none=True) if section else {})

    def plan_for(self, ctx: SpawnContext, session_id: str) -> tuple[SpawnContext, LaunchPlan, dict[str, str]]:
        """The provider's home, argv and environment for `ctx`, run as WARDIAN_SESSION_ID `session_id`
        (an agent's uuid, or a workflow node run's own id), with `ctx` as the provider saw it: its
        MCP registration is what tells the host to hold the first `idle` for Wardian's tools."""
        self._refuse_when_stopping(ctx.agent_name)  # a workflow node's launch comes here directly
        info = self._plugins.info(ctx.provider)
        registration = mcp_registration(self.home, session_id, load_settings(self.home).mcp, info)
        ctx = ctx.model_copy(update={"mcp": registration})
        ctx.agent_dir.mkdir(parents=True, exist_ok=True)
        home_plan = self._plugins.prepare_home(ctx.provider, ctx=ctx) or HomePlan()
        plan = self._with_executable_override(info, self._plugins.build_argv(ctx.provider, ctx=ctx), ctx)
        return ctx, plan, agent_environment(self._base_env, self.home, session_id, home_plan.env, plan.env)

    def new_session_id(self, provider: str) -> str | None:
        """A provider session id for a fresh launch, where the provider takes one assigned."""
        return str(uuid_module.uuid4()) if self._plugins.info(provider).session_id_mode == "assigned" else None

    def _with_resume_args(self, ctx: SpawnContext, info: ProviderInfo) -> SpawnContext:
        if not ctx.provider_session_id:
            return ctx
        args = self._plugins.resume_args(info.name, ctx=ctx, session_id=ctx.provider_session_id)
        return ctx.model_copy(update={"resume_args": args})

    def _record_settings_in_force(self, agent: LiveAgent, settings: dict[str, Any]) -> None:
        """What this launch runs with, for `agent show --verbose`."""
        text = json.dumps(settings)
        agent_rows.update_columns(self._conn, agent.uuid, provider_settings=text)
        agent.row = agent.row | {"provider_settings": text}

    def _session_id_for(self, agent: LiveAgent, info: ProviderInfo, session_mode: str) -> str | None:
        if session_mode == "resume":
            return agent.row.get("provider_session_id")
        return self.new_session_id(info.name)

    async def _launch(self, agent: LiveAgent, session_mode: Literal["fresh", "resume"], action: str) -> None:
        agent.launching = True
        try:
            await self._launch_marked(agent, session_mode, action)
        finally:
            agent.launching = False

    async def _launch_marked(self, agent: LiveAgent, session_mode: Literal["fresh", "resume"], action: str) -> None:
        info = self._plugins.info(agent.row["provider"])
        ctx, plan, env = self.plan_launch(agent, session_mode)
        self._tracker.mcp_readiness.launched(agent, registered=ctx.mcp is not None)
        parsing = self._feed.new_session(
            ctx, functools.partial(self._tracker.apply_event, agent), agent.screen.snapshot
        )
        first_offset = agent.buffer.end_cursor
        parsing.on_parsed = ParsedOffset(first_offset, functools.partial(self._terminals.parsed, agent.uuid)).add
        try:
            launched = await self._terminals.launch(
                agent.uuid,
                plan.argv,
                env,
                plan.cwd,
                on_output=functools.partial(self._output, agent, parsing),
                on_exit=functools.partial(self._exited, agent, parsing),
                first_offset=first_offset,
                recording=recording_target(self.home, agent.row),
            )
        except WardianError as error:
            if error.details.get("executable") == plan.argv[0]:
                error.hint = missing_executable_hint(info, self._missing(plan.argv[0], agent, ctx, action))
            raise
        agent.is_running = True
        agent.screen.restart()
        recorded = agent_rows.update_columns(
            self._conn,
            agent.uuid,
            pid=launched.pid,
            process_identity=launched.stored(),
            started_at=now_iso(),
            is_off=0,
            provider_session_id=ctx.provider_session_id,
        )
        self._registry.refresh(agent)
        if not recorded:
            await self._end_unrecorded(agent, launched)
        evidence = {"source": "host", "event": "launch", "rule": ctx.session_mode, "action": action}
        self._tracker.set_status(agent, "starting", evidence)
        parsing.positions = LaunchPositions.fresh(self._conn, agent.uuid, launched.pid)
        self._feed.start(parsing)
        self._plugins.notify("agent_spawned", ctx=ctx, plan=plan, pid=launched.pid)

    async def _end_unrecorded(self, agent: LiveAgent, launched: ProcessIdentity) -> None:
        """A launch state.db could not record (a full disk) is ended at once: a host that died
        before the write landed would leave it running where no later host finds it."""
        survivors = await self._terminals.stop(agent.uuid, "launch not recorded", KILL_GRACE_SECONDS, launched)
        raise WardianError(
            "write_failed",
            f"agent {agent.name} was not launched: state.db could not record its process",
            "Free space on the disk of the home (see `wardian host logs` for SQLite's reason), "
            "then run the command again.",
            {"agent": agent.name, "survivors": survivors},
        )

    # The run's --timeout: headless runs end their process group on it, not at a cancellation.
    async def run_headless(self, target: str, prompt: str, resume: bool, timeout: float) -> dict[str, Any]:  # noqa: ASYNC109
        """Run the agent's provider headless once; its provider session is kept for later resumes."""
        agent = self._registry.resolve(target)
        info = self._plugins.info(agent.row["provider"])
        check_capability(info.name, info.capabilities)
        if resume and not agent.row.get("provider_session_id"):
            raise WardianError(
                "request_failed",
                f"agent {agent.name} has no provider session to resume",
                "Run without --resume to start one.",
                {"agent": agent.name},
            )
        ctx, plan, env = self.plan_launch(agent, "resume" if resume else "fresh", mode="headless", prompt=prompt)
        run = HeadlessRun(SourceParser(self._plugins, ctx.provider, HEADLESS_SOURCE))
        result = await run.run(ctx, plan, env, timeout)
        adopted = result["session_id"] or ctx.provider_session_id
        if adopted:
            self.adopt_session(agent, adopted)
        return {"agent": agent.name, "uuid": agent.uuid, "session_mode": ctx.session_mode} | result

    def adopt_session(self, agent: LiveAgent, session_id: str) -> None:
        """A headless run continued (or began) the agent's provider session: later resumes use it."""
        if session_id != agent.row.get("provider_session_id"):
            agent_rows.update_columns(self._conn, agent.uuid, provider_session_id=session_id)
            self._registry.refresh(agent)

    @property
    def plugins(self) -> Plugins:
        return self._plugins

    @property
    def base_env(self) -> dict[str, str]:
        """The environment the host started with, which every agent's is built from."""
        return self._base_env

    def capabilities(self, provider: str) -> list[str]:
        return list(self._plugins.info(provider).capabilities)

    def _missing(self, command: str, agent: LiveAgent, ctx: SpawnContext, action: str) -> MissingCommand:
        variable = self._base_env.get(override_variable(ctx.provider), "").strip() or None
        configured = ctx.launch.settings.get("executable")
        return MissingCommand(command, agent.name, action, configured, variable)

    def _with_executable_override(self, info: ProviderInfo, plan: LaunchPlan, ctx: SpawnContext) -> LaunchPlan:
        """settings.toml `providers.<name>.executable`, else WARDIAN_<NAME>_EXECUTABLE, replaces the CLI."""
        override = ctx.launch.settings.get("executable") or self._base_env.get(override_variable(info.name), "").strip()
        if not info.executable or plan.argv[0] != info.executable:
            return plan
        if not override and info.prefer_native_executable:
            override = native_on_path(info.executable, {**self._base_env, **plan.env}) or ""
        return plan.model_copy(update={"argv": [override, *plan.argv[1:]]}) if override else plan

    def adopt_all(self, terminals: list[TerminalState]) -> None:
        """Take on the terminals a previous host launched in the terminal server (a host restart,
        or a crash): each agent is live again, its status and evidence kept until new evidence."""
        for state in terminals:
            agent = self._registry.get(state.key)
            if agent is not None:
                self._adopt(agent, state)

    def _adopt(self, agent: LiveAgent, state: TerminalState) -> None:
        provider = agent.row["provider"]
        ctx = build_context(
            self.home,
            agent.row,
            session_mode="resume",
            provider_session_id=agent.row.get("provider_session_id"),
            provider_settings=self.provider_settings(provider),
        )
        parsed = ParsedOffset(state.acked_offset, functools.partial(self._terminals.parsed, agent.uuid))
        parsing = self._feed.new_session(
            ctx, functools.partial(self._tracker.apply_event, agent), agent.screen.snapshot
        )
        replay = Replay(state.acked_offset - state.start_offset, functools.partial(self._feed.caught_up, parsing))
        parsing.on_parsed = parsed.add
        parsing.positions = LaunchPositions.adopted(self._conn, agent.uuid, state.pid)
        # The ring rebuilds the buffer, the screen and the parser's state at the same cursors;
        # what the parser makes of the part the previous host acknowledged, that host reported,
        # so it is not reported again; the rest (unread when it died, or printed while no host
        # listened) is parsed as new.
        agent.buffer.skip_to(state.start_offset, state.end_offset)
        agent.screen.restart()
        take_size(agent, state)
        on_output = functools.partial(self._adopted_output, agent, parsing, replay)
        on_exit = functools.partial(self._exited, agent, parsing)
        self._terminals.adopt(agent.uuid, state.pid, state.start_offset, on_output, on_exit)
        agent.is_running = not state.exited
        self._feed.start(parsing)
        replay.check()  # nothing to replay: caught up at once
        log.info("agent %s: terminal adopted at offset %d", agent.name, state.end_offset)

    def _adopted_output(self, agent: LiveAgent, parsing: ParserSession, replay: Replay, data: bytes) -> None:
        agent.record_output(data)
        old, new = replay.split(data)
        if old:
            self._feed.replay(parsing, old)
        replay.check()
        if new:
            self._feed.pty_output(parsing, new)

    def _output(self, agent: LiveAgent, parsing: ParserSession, data: bytes) -> None:
        agent.record_output(data)
        self._feed.pty_output(parsing, data)

    def _exited(self, agent: LiveAgent, parsing: ParserSession, exit_code: int | None, stop_reason: str | None) -> None:
        self._feed.close(parsing)
        agent.is_running = False
        if stop_reason == SERVER_ENDED and process_tree.agent_processes(agent.process_identity):
            # Its PTY closed with the server, yet its processes go on: alive, but not ours to type into.
            self._tracker.set_status(agent, "headless", {"source": "host", "event": "exit", "rule": SERVER_ENDED})
            return
        agent_rows.update_columns(self._conn, agent.uuid, pid=None)
        self._registry.refresh(agent)
        evidence: dict[str, Any] = {"source": "host", "event": "exit", "exit_code": exit_code}
        if stop_reason is not None or exit_code in (0, None):
            # No code: the process is not the terminal server's child (an older server handed it
            # over on an upgrade), so it ended with a code nobody can read; not a failure seen.
            evidence["rule"] = stop_reason or ("clean exit" if exit_code == 0 else EXIT_CODE_UNKNOWN)
            self._tracker.set_status(agent, "off", evidence)
        else:
            tail = agent.buffer.read_from(max(agent.buffer.start_cursor, agent.buffer.end_cursor - 2000)) or b""
            evidence |= {"rule": "unexpected exit", "output_tail": tail.decode(errors="replace")}
            self._tracker.set_status(agent, "error", evidence)
        ctx = build_context(self.home, agent.row)
        self._plugins.notify("agent_exited", ctx=ctx, exit_code=exit_code, caused_by_host=stop_reason is not None)

    # -- operations ----------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _locked(self, target: str) -> AsyncIterator[LiveAgent]:
        """The agent `target` names, its lock held; still registered, or `not_found`
        (a delete that held the lock first has forgotten it)."""
        agent = self._registry.resolve(target)
        async with agent.lock:
            if self._registry.get(agent.uuid) is not agent:
                raise identity.not_found(target)
            yield agent

    def _refuse_when_stopping(self, agent_name: str) -> None:
        if self._stopping:
            raise WardianError(
                "host_stopping",
                f"the host is stopping: agent {agent_name} is not launched",
                "Wait for `wardian host stop` to finish, then run the command again (it starts a new host).",
                {"agent": agent_name},
            )

    async def spawn(self, params: SpawnParams) -> SpawnAnswer:
        config = self._checked_launch_config(params.launch_config, new_include_dirs=None)
        return await self._create_and_launch(params, config, "spawn")

    async def _create_and_launch(self, params: SpawnParams, config: LaunchConfig, action: str) -> SpawnAnswer:
        info = self._plugins.info(params.provider)
        config = config.model_copy(update={"settings": checked_provider_settings(info, config.settings)})
        workspace = Path(params.workspace)
        # One stat of the folder the caller named, as the checks after it read the disk too.
        if not workspace.is_dir():  # noqa: ASYNC240
            raise WardianError(
                "usage",
                f"workspace {workspace} does not exist or is not a directory",
                "Create it first, or pass an existing directory with --workspace.",
                {"workspace": str(workspace)},
            )
        row = identity.create_agent(
            self._conn,
            class_name=params.class_name,
            provider=params.provider,
            workspace=workspace,
            name=params.name,
            description=params.description,
        )
        agent = self._registry.add(row)
        # Resolvable from here on (a web form's spawn, then `agent wait`): off only until launched.
        agent.launching = True
        made: dict[str, Any] = {}
        async with agent.lock:
            try:
                agent_rows.update_columns(self._conn, agent.uuid, launch_config=stored_launch_config(config))
                self._registry.refresh(agent)
                if params.worktree is not None:
                    made = await self.worktrees.create_for(agent, params.worktree)
                await self._launch(agent, "fresh", action)
            except BaseException:
                agent.launching = False
                self._forget(agent)
                if made:  # fresh, so removed unless set-up left files there: then kept and listed
                    await self.worktrees.remove_released_id(made["worktree"]["id"])
                raise
        return SpawnAnswer.model_validate(agent.snapshot() | {"worktree_made": made or None})

    @staticmethod
    def _checked_launch_config(raw: dict[str, Any], new_include_dirs: list[Path] | None) -> LaunchConfig:
        """`raw` as a LaunchConfig, its include directories (or only `new_include_dirs`) existing."""
        try:
            config = LaunchConfig.model_validate(raw)
        except ValidationError as exc:
            errors = [{"field": ".".join(map(str, e["loc"])), "message": e["msg"]} for e in exc.errors()]
            raise WardianError(
                "validation_failed",
                "invalid launch configuration: " + "; ".join(f"{e['field']}: {e['message']}" for e in errors),
                "session_persistence is default, fresh or resume; include_dirs are directories.",
                {"errors": errors},
            ) from None
        for directory in config.include_dirs if new_include_dirs is None else new_include_dirs:
            if not directory.is_absolute() or not directory.is_dir():
                raise WardianError(
                    "usage",
                    f"include directory {directory} does not exist or is not a directory",
                    "Create it first, or pass an existing directory with --include-dir.",
                    {"include_dir": str(directory)},
                )
        unique = list(dict.fromkeys(config.include_dirs))  # the same root twice is one root
        return config.model_copy(update={"include_dirs": unique})

    def _forget(self, agent: LiveAgent) -> None:
        agent_rows.delete_agent(self._conn, agent.uuid)
        self._registry.remove(agent)
        shutil.rmtree(paths.agent_dir(self.home, agent.uuid), ignore_errors=True)

    async def stop(self, target: str, reason: str) -> AgentSnapshot:
        async with self._locked(target) as agent:
            await self._stop_locked(agent, reason)
        return agent.answer()

    async def _stop_locked(self, agent: LiveAgent, reason: str) -> None:
        survivors = await self._terminals.stop(agent.uuid, reason, KILL_GRACE_SECONDS, agent.process_identity)
        if agent.status != "off":  # not running (e.g. headless, or already gone)
            agent_rows.update_columns(self._conn, agent.uuid, pid=None)
            self._registry.refresh(agent)
            self._tracker.set_status(agent, "off", {"source": "host", "event": reason, "rule": reason})
        if survivors:
            raise WardianError(
                "request_failed",
                f"agent {agent.name} is off, but {len(survivors)} of its processes outlived SIGKILL: "
                + ", ".join(map(str, survivors)),
                "A process that survives SIGKILL is stuck in the kernel (state D, e.g. on a hung mount): "
                f"see `ps -o pid,stat,wchan,cmd -p {','.join(map(str, survivors))}`.",
                {"agent": agent.name, "status": agent.status, "survivors": survivors},
            )

    async def resume(self, target: str) -> AgentSnapshot:
        async with self._locked(target) as agent:
            self._refuse_running(agent, "resume")
            await self._launch(agent, self._relaunch_mode(agent), "resume")
        return agent.answer()

    async def restart(self, target: str) -> AgentSnapshot:
        """Stop the agent if it runs, then launch it again with its stored configuration."""
        async with self._locked(target) as agent:
            if agent.is_alive:
                await self._stop_locked(agent, "restart")
            await self._launch(agent, self._relaunch_mode(agent), "restart")
        return agent.answer()

    async def clear(self, target: str) -> AgentSnapshot:
        """A fresh provider session under the same Wardian id, with nothing of the old one shown.

        The old process is gone before its output is forgotten, and the new one gets a
        new parser session, so nothing the old one writes late reaches the buffer or a parser.
        """
        async with self._locked(target) as agent:
            if agent.is_alive:
                await self._stop_locked(agent, "clear")
            agent.buffer.clear()
            agent.event_log.clear()
            await self._launch(agent, "fresh", "clear")
        return agent.answer()

    def _relaunch_mode(self, agent: LiveAgent) -> Literal["fresh", "resume"]:
        persistence = launch_config_of(agent.row).session_persistence
        regular = load_settings(self.home).sessions.regular
        return session_mode_for(persistence, regular, bool(agent.row.get("provider_session_id")))

    async def update(self, params: UpdateParams) -> UpdateAnswer:
        """Change the stored launch configuration and description; the running process keeps its own."""
        async with self._locked(params.target) as agent:
            current = launch_config_of(agent.row)
            changes: dict[str, Any] = {}
            if params.model is not None:
                changes["model"] = params.model or None
            if params.clear_args or params.args:
                changes["extra_args"] = [*([] if params.clear_args else current.extra_args), *params.args]
            new_dirs = [Path(directory) for directory in params.include_dirs]
            if params.clear_include_dirs or new_dirs:
                kept = [] if params.clear_include_dirs else current.include_dirs
                changes["include_dirs"] = [*kept, *new_dirs]
            if params.session_persistence is not None:
                changes["session_persistence"] = params.session_persistence
            if params.clear_settings or params.settings:
                kept_settings = {} if params.clear_settings else current.settings
                info = self._plugins.info(agent.row["provider"])
                changes["settings"] = checked_provider_settings(info, kept_settings | params.settings)
            if not changes and params.description is None:
                raise WardianError(
                    "usage",
                    "nothing to update",
                    "Give --model, --arg, --clear-args, --include-dir, --clear-include-dirs, "
                    "--session-persistence, --provider-setting, --clear-provider-settings or --description.",
                    {"agent": agent.name},
                )
            updated = self._checked_launch_config(current.model_dump() | changes, new_include_dirs=new_dirs)
            launch_changed = updated != current
            columns: dict[str, Any] = {}
            if launch_changed:
                columns["launch_config"] = stored_launch_config(updated)
            if params.description is not None:
                columns["description"] = params.description or None
            if columns:
                agent_rows.update_columns(self._conn, agent.uuid, **columns)
                self._registry.refresh(agent)
            running = agent.is_alive
        return UpdateAnswer(agent=agent.answer(), restart_required=running and launch_changed)

    def _refuse_running(self, agent: LiveAgent, action: str) -> None:
        if agent.is_alive:
            raise WardianError(
                "request_failed",
                f"agent {agent.name} is already running",
                f"Pause or kill it before you {action} it, or relaunch it at once: "
                f"`wardian agent restart {agent.name}`.",
                {"agent": agent.name, "status": agent.status},
            )

    async def clone(self, target: str, name: str | None, worktree: WorktreeRequest | None = None) -> SpawnAnswer:
        """A new agent launched like `target` (configuration copied), in a fresh provider session."""
        source = self._registry.resolve(target)
        params = SpawnParams(
            provider=source.row["provider"],
            class_name=source.row["class"],
            workspace=source.row["workspace"] or "",  # none stored: refused as before, request_failed
            name=name or identity.free_name_like(self._conn, source.name, "-copy"),
            description=source.row.get("description"),
            worktree=worktree,
        )
        return await self._create_and_launch(params, launch_config_of(source.row), "clone")

    async def move(
        self, target: str, place: Callable[[LiveAgent], dict[str, Any] | Awaitable[dict[str, Any]]]
    ) -> dict[str, Any]:
        """Stop the agent, let `place` change where it works (awaited when a coroutine), forget its
        provider session (it belongs to the old folder), and relaunch it fresh if it was running."""
        async with self._locked(target) as agent:
            running = agent.is_alive
            if running:
                await self._stop_locked(agent, "move")
            placed = place(agent)
            report = await placed if isinstance(placed, Awaitable) else placed
            agent_rows.update_columns(self._conn, agent.uuid, provider_session_id=None)
            self._registry.refresh(agent)
            if running:
                await self._launch(agent, "fresh", "move")
        return {"agent": agent.snapshot(), "cleared_session": True, "relaunched": running} | report

    async def rename(self, target: str, new_name: str) -> AgentSnapshot:
        identity.validate_name(new_name)
        async with self._locked(target) as agent:
            try:
                agent_rows.update_columns(self._conn, agent.uuid, name=new_name)
            except sqlite3.IntegrityError:
                raise identity.duplicate_name(self._conn, new_name) from None
            self._registry.refresh(agent)
        return agent.answer()

    async def delete(self, target: str, confirm: str, force: bool, keep_worktree: bool = False) -> DeleteAnswer:
        async with self._locked(target) as agent:
            if confirm != agent.name:
                raise WardianError(
                    "usage",
                    f"--confirm must repeat the agent's exact name ({agent.name!r})",
                    f"Run `wardian agent delete {agent.name} --confirm {agent.name}`.",
                    {"agent": agent.name, "confirm": confirm},
                )
            if agent.is_alive and not force:
                raise WardianError(
                    "request_failed",
                    f"agent {agent.name} is running",
                    "Stop it first (`wardian agent kill`) or add --force.",
                    {"agent": agent.name, "status": agent.status},
                )
            released = await self.worktrees.check_release(agent, keep_worktree)
            if agent.is_alive:
                await self._stop_locked(agent, "delete")
            snapshot = agent.snapshot()
            self._forget(agent)
        removed = await self.worktrees.remove_released(released) if released else None
        return DeleteAnswer.model_validate(snapshot | {"worktree_removed": removed or None})

    def stop_launching(self) -> None:
        """The host is stopping: every launch from now on is refused with `host_stopping`."""
        self._stopping = True

    async def _stop_if_alive(self, agent: LiveAgent) -> None:
        async with agent.lock:
            if self._registry.get(agent.uuid) is agent and agent.is_alive:
                await self._stop_locked(agent, "host stop")

    async def stop_all(self) -> None:
        """Stop every live agent, `headless` ones too; a stop that fails is logged, the others go on.

        Nothing is launched from here on, so no agent starts after its stop was decided; an
        operation already holding an agent's lock finishes first (the stop waits for the lock).
        Every agent is looked at under its lock, not only those alive now: a launch under way
        holds the lock and its agent is alive only once it returns (one launched 53 ms after
        "host stopping" once outlived the host)."""
        self.stop_launching()
        agents = self._registry.all()
        stopped = await asyncio.gather(*(self._stop_if_alive(agent) for agent in agents), return_exceptions=True)
        for agent, outcome in zip(agents, stopped, strict=True):
            if isinstance(outcome, BaseException):
                log.error("host stop: agent %s: %s", agent.name, outcome)
        if not self._catch_up.flush():
            log.error("state.db still cannot be written; the next host recovers the agents' state from their processes")
