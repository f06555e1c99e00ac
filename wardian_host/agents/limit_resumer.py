"""When Wardian resumes each limited agent, and how many at once.

The schedule is part of the stored limit (`resume_at`): a host builds its timers from the rows it
finds at start, so a restart or a crash keeps it. A limit that resets for twenty agents at once
is resumed at twenty random moments after the reset, at most `limits.resume_concurrency` under
way together. With `limits.resume = "ask"` nothing is scheduled: the agent waits in the person's
queue for `wardian agent resume-limit`.
"""

import asyncio
import logging
import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from wardian_core.clock import format_timestamp
from wardian_core.control.answers import AgentSnapshot
from wardian_core.errors import WardianError
from wardian_core.limits import AgentLimit
from wardian_core.provider_models import LimitResume, SpawnContext
from wardian_core.settings.model import LimitsSettings
from wardian_host.agents.limit_continuing import Continuing, ResumeFailed, report_of
from wardian_host.agents.limits import LimitRecord, limit_of
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.registry import AgentRegistry

log = logging.getLogger(__name__)

PlanOf = Callable[[LiveAgent, AgentLimit], LimitResume]


def _parsed(moment: str) -> datetime:
    return datetime.fromisoformat(moment.replace("Z", "+00:00"))


def resume_time(limit: AgentLimit, settings: LimitsSettings, pick: Callable[[float, float], float]) -> tuple[str, str]:
    """When to resume `limit` and why then: its reset plus a random delay (`pick(low, high)`); with
    no reset, `unknown_reset_seconds` after it hit; for a CLI retrying by itself, when to stop
    waiting for its retry (its next attempt, or the reset, plus `turn_wait_seconds`)."""
    if limit.state == "retrying":
        basis = limit.retry_at or limit.resets_at or limit.reached_at
        return format_timestamp(_parsed(basis) + timedelta(seconds=settings.turn_wait_seconds)), "cli_retry"
    if limit.resets_at is None:
        at = _parsed(limit.reached_at) + timedelta(seconds=settings.unknown_reset_seconds)
        return format_timestamp(at), "unknown_reset"
    delay = pick(settings.resume_delay_min_seconds, settings.resume_delay_max_seconds)
    return format_timestamp(_parsed(limit.resets_at) + timedelta(seconds=delay)), "reset"


class LimitResumer:
    def __init__(
        self,
        registry: AgentRegistry,
        limits: LimitRecord,
        continuing: Continuing,
        plan_of: PlanOf,
        settings: Callable[[], LimitsSettings],
    ) -> None:
        self._registry = registry
        self._limits = limits
        self._continuing = continuing
        self._plan_of = plan_of
        self._settings = settings
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._slots = asyncio.Condition()
        self._under_way = 0
        self.pick: Callable[[float, float], float] = random.uniform
        limits.listeners.append(self._on_step)

    def start(self) -> None:
        """Timers for every limited agent a previous host left (its stored schedule)."""
        for agent in self._registry.all():
            limit = limit_of(agent)
            if limit is not None:
                self._schedule(agent, limit)

    def close(self) -> None:
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        for task in self._tasks:
            task.cancel()

    async def resume_now(self, agent: LiveAgent) -> AgentSnapshot:
        """`agent resume-limit`: resume at once (within the concurrency), whatever the schedule."""
        limit = limit_of(agent)
        if limit is None:
            raise WardianError(
                "not_limited",
                f"agent {agent.name} waits out no usage limit",
                f"See its status with `wardian agent {agent.name} --fields status,limit`; send it work with "
                "`wardian send`.",
                {"agent": agent.name, "status": agent.status},
            )
        self._cancel_timer(agent)
        failure = await self._resume(agent, limit.reached_at, asked=True)
        if failure is not None:
            raise WardianError(
                "limit_resume_failed",
                f"resuming agent {agent.name} started no turn: {failure}",
                f"Look at it with `wardian agent screen {agent.name}`; it stays limited and in `wardian inbox`.",
                {"agent": agent.name, "failure": failure, "limit": (limit_of(agent) or limit).model_dump()},
            )
        return agent.answer()

    def _on_step(self, agent: LiveAgent, kind: str, _: dict[str, Any], limit: AgentLimit | None) -> None:
        if kind in ("limit_reached", "limit_retrying") and limit is not None:
            self._schedule(agent, limit)
        elif limit is None:
            self._cancel_timer(agent)

    def _schedule(self, agent: LiveAgent, limit: AgentLimit) -> None:
        if limit.resume != "auto":
            return  # asked of a person, or failed: the inbox shows it
        if limit.resume_at is None:
            settings = self._settings()
            if settings.resume == "ask" and limit.state == "cut":
                self._ask(agent, limit)
                return
            at, basis = resume_time(limit, settings, self.pick)
            limit = limit.model_copy(update={"resume_at": at})
            self._limits.store(agent, limit)
            self._limits.step(agent, "limit_resume_scheduled", {"resume_at": at, "basis": basis}, limit)
        assert limit.resume_at is not None
        delay = max(0.0, (_parsed(limit.resume_at) - datetime.now(UTC)).total_seconds())
        self._cancel_timer(agent)
        loop = asyncio.get_running_loop()
        self._timers[agent.uuid] = loop.call_later(delay, self._fire, agent.uuid, limit.reached_at)

    def _ask(self, agent: LiveAgent, limit: AgentLimit) -> None:
        asked = limit.model_copy(update={"resume": "ask"})
        self._limits.store(agent, asked)
        self._limits.step(agent, "limit_resume_asked", {"command": f"wardian agent resume-limit {agent.name}"}, asked)

    def _cancel_timer(self, agent: LiveAgent) -> None:
        handle = self._timers.pop(agent.uuid, None)
        if handle is not None:
            handle.cancel()

    def _fire(self, uuid: str, reached_at: str) -> None:
        self._timers.pop(uuid, None)
        agent = self._registry.get(uuid)
        if agent is None:
            return
        task = asyncio.ensure_future(self._resume(agent, reached_at))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _resume(self, agent: LiveAgent, reached_at: str, asked: bool = False) -> str | None:
        """One resume of the limit that hit at `reached_at`, in a slot; why it failed, or None.
        `asked`: a person's `resume-limit`, which continues even a CLI that retries by itself."""
        async with self._slots:
            await self._slots.wait_for(lambda: self._under_way < self._settings().resume_concurrency)
            self._under_way += 1
        try:
            limit = limit_of(agent)
            if limit is None or limit.reached_at != reached_at:
                return None  # resumed meanwhile (by the CLI, a person), or another limit hit since
            if limit.state == "retrying" and not asked:
                # Its time is the bound on the CLI's own retry, already waited out.
                return self._failed(agent, f"the CLI's own retry started no turn by {limit.resume_at}")
            return await self._attempt(agent, limit)
        finally:
            async with self._slots:
                self._under_way -= 1
                self._slots.notify_all()

    async def _attempt(self, agent: LiveAgent, limit: AgentLimit) -> str | None:
        limit = limit.model_copy(update={"attempts": limit.attempts + 1})
        self._limits.store(agent, limit)
        settings = self._settings()
        try:
            plan = self._plan_of(agent, limit)
            self._limits.step(agent, "limit_resume_started", {"attempt": limit.attempts, "how": plan.how}, limit)
            await self._continuing.resume(agent, limit, plan, settings.turn_wait_seconds)
        except ResumeFailed as failed:
            return self._failed(agent, failed.reason)
        except Exception as error:  # a provider's hook that raised, a terminal gone: the resume failed
            log.warning("agent %s: resuming after its limit failed", agent.name, exc_info=True)
            return self._failed(agent, f"{type(error).__name__}: {error}")
        return None

    def _failed(self, agent: LiveAgent, reason: str) -> str | None:
        limit = limit_of(agent)
        if limit is None:
            return None  # a turn started after all: resumed, nothing stays to ask about
        failed = limit.model_copy(update={"resume": "failed", "failure": reason})
        self._limits.store(agent, failed)
        self._limits.step(agent, "limit_resume_failed", {"reason": reason, "attempt": limit.attempts}, failed)
        return reason


def plan_for(context: Callable[[LiveAgent], SpawnContext], limit_resume: Callable[..., LimitResume]) -> PlanOf:
    """The provider's answer for one agent's limit (`ProviderManager.limit_resume`)."""

    def plan(agent: LiveAgent, limit: AgentLimit) -> LimitResume:
        return limit_resume(agent.row["provider"], context(agent), report_of(limit))

    return plan
