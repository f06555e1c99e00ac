"""Find, validate and call Wardian plugins.

Plugins are found through the entry-point group `wardian` only, and each is
registered under its entry-point name; built-ins (`generic`) come the same way.
`WARDIAN_PLUGINS=a,b` limits what loads (empty: nothing; unset: everything).
`WARDIAN_TRACE_PLUGINS=1` writes a line for every hook and parser call: the provider,
the call, its duration and whether it raised, to the host's log in the host and to
stderr in a command.
A plugin that fails to import, fails validation or raises is recorded in
`Plugins.failures` and never breaks a command that does not need it.

Imported only by commands and host code that need providers: pluggy and
importlib.metadata stay off the CLI's read path.
"""

import difflib
import inspect
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import Any, get_origin

import pluggy
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from wardian_core import hookspecs
from wardian_core.errors import WardianError
from wardian_core.hookspecs import SourceParser
from wardian_core.provider_models import (
    CONTRACT_VERSION,
    HomePlan,
    LaunchPlan,
    LimitReport,
    LimitResume,
    OutputSource,
    ParseResult,
    ProviderInfo,
    SpawnContext,
)

GROUP = "wardian"
ALLOW_LIST_VARIABLE = "WARDIAN_PLUGINS"
TRACE_VARIABLE = "WARDIAN_TRACE_PLUGINS"

log = logging.getLogger("wardian.plugins")
trace_log = logging.getLogger("wardian.plugins.trace")
_UNTRACED = nullcontext()


def _write_trace(line: str) -> None:
    # The host configures logging (its log file); a command does not, and says it on stderr.
    if logging.getLogger().handlers:
        trace_log.info("%s", line)
    else:
        sys.stderr.write(f"wardian: {line}\n")


def _answer_type(hook: str) -> Any:
    """What `hook` answers: its spec's return annotation."""
    return inspect.signature(getattr(hookspecs, hook)).return_annotation


def _default_answer(hook: str) -> Any:
    """What the host assumes when a provider leaves an optional hook out (or answers None):
    an empty list, a model's defaults, or None where None is an answer."""
    answer_type = _answer_type(hook)
    if get_origin(answer_type) is list:
        return []
    if isinstance(answer_type, type) and issubclass(answer_type, BaseModel):
        return answer_type()
    return None


def _adapter_for(answer_type: Any) -> TypeAdapter[Any]:
    if isinstance(answer_type, type) and issubclass(answer_type, BaseModel):
        return TypeAdapter(answer_type)
    # A parser object is checked against its Protocol (it has a `feed`), not converted.
    return TypeAdapter(answer_type, config=ConfigDict(arbitrary_types_allowed=True))


@dataclass(frozen=True)
class PluginFailure:
    """A plugin that could not be used, or a hook that raised.

    `stage`: `missing` (allow-listed, not installed), `import`, `register` (pluggy
    refused a hook's signature), `validate` (a hook with no spec, e.g. misspelled, or
    provider hooks without `provider_info`), `info` (`provider_info` raised or answered
    badly), `contract` (built for another contract version: `contract_version` says which),
    or the name of the hook that raised when called.
    """

    name: str
    stage: str
    error: str
    package: str | None = None
    package_version: str | None = None
    # A hook that raises again is counted, with its latest error, not recorded anew:
    # a host that runs for weeks keeps one record per plugin and hook.
    count: int = 1
    # For `contract`: the contract version the provider declares it was built for.
    contract_version: int | None = None


@dataclass(frozen=True)
class PluginRecord:
    """A registered plugin: its entry point, its distribution and the hooks it implements."""

    name: str
    entry_point: str
    package: str | None
    package_version: str | None
    hooks: tuple[str, ...]


@dataclass(frozen=True)
class _Problem:
    """Why a plugin is refused at registration: its failure's stage, error and extra fields."""

    stage: str
    error: str
    extra: dict[str, Any] = field(default_factory=dict)


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _allow_list(value: str | None) -> set[str] | None:
    if value is None:
        return None
    return {name.strip() for name in value.split(",") if name.strip()}


class Plugins:
    """The loaded plugins and the one way the host calls them."""

    def __init__(self, allowed: set[str] | None = None, trace: bool = False) -> None:
        self._allowed = allowed
        self._trace = trace
        self._manager = pluggy.PluginManager(GROUP)
        self._manager.add_hookspecs(hookspecs)
        self._records: dict[str, PluginRecord] = {}
        self._infos: dict[str, ProviderInfo] = {}
        self._adapters: dict[Any, TypeAdapter[Any]] = {}
        self._load_failures: list[PluginFailure] = []
        self._hook_failures: dict[tuple[str, str], PluginFailure] = {}
        self._callers: dict[tuple[str, str], Any] = {}

    # -- what is there -------------------------------------------------------------

    def provider_names(self) -> list[str]:
        """Plugins that loaded, validated and declared a provider of this contract."""
        return sorted(self._infos)

    def plugin_names(self) -> list[str]:
        """Every registered plugin, providers and observers."""
        return sorted(self._records)

    def record(self, name: str) -> PluginRecord:
        if name not in self._records:
            raise self._unknown(name)
        return self._records[name]

    def failure(self, name: str) -> PluginFailure | None:
        """The load failure of plugin `name`, if it failed to load."""
        return next((f for f in self._load_failures if f.name == name), None)

    def info(self, name: str) -> ProviderInfo:
        if name not in self._infos:
            self._look_again(name)
        if name in self._infos:
            return self._infos[name]
        failure = self.failure(name)
        if failure is not None:
            raise WardianError(
                "request_failed",
                f"provider {name!r} could not be loaded ({failure.stage}): {failure.error}",
                f"Run `wardian providers show {name}` for details; reinstall or upgrade its package. One "
                "installed while the host runs needs a new host: `wardian host restart` (its agents go on).",
                {"provider": name, "stage": failure.stage, "error": failure.error},
            )
        raise self._unknown(name)

    # -- calling -------------------------------------------------------------------

    def prepare_home(self, provider: str, ctx: SpawnContext) -> HomePlan:
        plan: HomePlan = self._call(provider, "prepare_home", ctx=ctx)
        return plan

    def build_argv(self, provider: str, ctx: SpawnContext) -> LaunchPlan:
        plan: LaunchPlan = self._call(provider, "build_argv", ctx=ctx)
        return plan

    def resume_args(self, provider: str, ctx: SpawnContext, session_id: str) -> list[str]:
        args: list[str] = self._call(provider, "resume_args", ctx=ctx, session_id=session_id)
        return args

    def limit_resume(self, provider: str, ctx: SpawnContext, limit: LimitReport) -> LimitResume:
        resume: LimitResume = self._call(provider, "limit_resume", ctx=ctx, limit=limit)
        return resume

    def approval_source(self, provider: str, ctx: SpawnContext) -> list[OutputSource]:
        sources: list[OutputSource] = self._call(provider, "approval_source", ctx=ctx)
        return sources

    def parse_output(self, provider: str, ctx: SpawnContext, source: OutputSource) -> SourceParser | None:
        parser: SourceParser | None = self._call(provider, "parse_output", ctx=ctx, source=source)
        return parser

    def _call(self, provider: str, hook: str, **kwargs: Any) -> Any:
        """Call `hook` of `provider` only, with keywords, and return its validated answer.

        A `WardianError` the provider raises passes through; any other exception
        becomes `request_failed` carrying the plugin's error.
        """
        if hook not in hookspecs.PROVIDER_HOOKS:
            raise ValueError(f"{hook!r} is not a provider hook; observers go through notify()")
        self._check_arguments(hook, kwargs)
        self.info(provider)
        caller = self._provider_caller(provider, hook)
        answers = self._guarded(provider, hook, hook, hook, lambda: caller(**kwargs))
        return self._validated(provider, hook, answers[0] if answers else None)

    def parser_call(self, provider: str, method: str, call: Callable[[], Any]) -> ParseResult:
        """Call `method` of a parser `provider` answered from `parse_output`, guarded as a hook is:
        what it raises is counted against `parse_output` and becomes `request_failed`."""
        answer = self._guarded(provider, "parse_output", f"parser.{method}", f"its parser's {method}", call)
        if answer is None:
            return ParseResult()
        result: ParseResult = self._checked(provider, "parse_output", answer, ParseResult)
        return result

    def _guarded(self, provider: str, hook: str, traced: str, what: str, call: Callable[[], Any]) -> Any:
        """`call()`, traced as `traced`; a `WardianError` passes through, any other exception is
        recorded and becomes `request_failed` carrying the plugin's error."""
        try:
            with self._traced(provider, traced):
                return call()
        except WardianError:
            raise
        except Exception as exc:
            self._record_failure(provider, hook, exc)
            raise WardianError(
                "request_failed",
                f"provider {provider!r} failed in {what}: {_describe(exc)}",
                f"This is a bug in the provider plugin; report it to the authors of its package "
                f"(`wardian providers show {provider}`).",
                {"provider": provider, "hook": hook, "error": _describe(exc)},
            ) from exc

    def _traced(self, provider: str, call: str) -> AbstractContextManager[None]:
        """With WARDIAN_TRACE_PLUGINS=1: one line per call, after it, saying how long it took.
        Off, one shared do-nothing context: parsers are called for every output batch."""
        return self._timed(provider, call) if self._trace else _UNTRACED

    @contextmanager
    def _timed(self, provider: str, call: str) -> Iterator[None]:
        started = time.perf_counter()
        outcome = "ok"
        try:
            yield
        except BaseException as exc:
            outcome = f"raised {type(exc).__name__}"
            raise
        finally:
            elapsed = (time.perf_counter() - started) * 1000
            _write_trace(f"plugin call: provider={provider} call={call} ms={elapsed:.3f} {outcome}")

    def _provider_caller(self, provider: str, hook: str) -> Any:
        """A hook caller that reaches `provider` only; built once, as parsers are called per output batch."""
        key = (provider, hook)
        if key not in self._callers:
            others = [plugin for name, plugin in self._manager.list_name_plugin() if name != provider]
            self._callers[key] = self._manager.subset_hook_caller(hook, remove_plugins=others)
        return self._callers[key]

    def notify(self, hook: str, **kwargs: Any) -> None:
        """Call an observer hook on every plugin implementing it; a raising one is recorded."""
        if hook not in hookspecs.OBSERVER_HOOKS:
            raise ValueError(f"{hook!r} is not an observer hook")
        self._check_arguments(hook, kwargs)
        implementers = [impl.plugin_name for impl in getattr(self._manager.hook, hook).get_hookimpls()]
        for name in dict.fromkeys(implementers):
            others = [plugin for other, plugin in self._manager.list_name_plugin() if other != name]
            try:
                with self._traced(name, hook):
                    self._manager.subset_hook_caller(hook, remove_plugins=others)(**kwargs)
            except Exception as exc:  # noqa: BLE001 - an observer plugin's failure is reported, not fatal
                log.warning("plugin %s failed in %s: %s", name, hook, _describe(exc))
                self._record_failure(name, hook, exc)

    # -- loading -------------------------------------------------------------------

    def _look_again(self, name: str) -> None:
        """Load `name` if its package was installed after the others were loaded: `providers list`,
        a new process, shows it, so a long-running host must find it too when asked for it."""
        failure = self.failure(name)
        if name in self._records or (failure is not None and failure.stage != "missing"):
            return
        if self._allowed is not None and name not in self._allowed:
            return
        import importlib

        importlib.invalidate_caches()  # the import system's cached listings predate the install
        found = entry_points(group=GROUP, name=name)
        if found:
            if failure is not None:
                self._load_failures.remove(failure)
            self._load(next(iter(found)))

    def _load(self, entry_point: EntryPoint) -> None:
        name = entry_point.name
        dist = entry_point.dist
        package = (dist.name if dist else None, dist.version if dist else None)
        try:
            plugin = entry_point.load()
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - a plugin that fails to import is listed, not fatal
            self._load_failures.append(PluginFailure(name, "import", _describe(exc), *package))
            return
        self.register(plugin, name, entry_point.value, package)

    def register(
        self,
        plugin: object,
        name: str,
        origin: str = "registered in-process",
        package: tuple[str | None, str | None] = (None, None),
    ) -> None:
        """Register `plugin` (a module or an object with hook implementations) under `name`,
        with every check an installed plugin passes; a refused one is in `failures`. The
        entry-point loader ends here, and tests hand their stand-in providers in here."""
        try:
            self._manager.register(plugin, name=name)
        except Exception as exc:  # noqa: BLE001 - a plugin that fails to register is listed, not fatal
            self._load_failures.append(PluginFailure(name, "register", _describe(exc), *package))
            return
        problem = self._validation_problem(plugin) or self._provider_problem(name, plugin)
        if problem is not None:
            self._manager.unregister(plugin)
            self._infos.pop(name, None)
            self._load_failures.append(PluginFailure(name, problem.stage, problem.error, *package, **problem.extra))
            return
        hooks = tuple(sorted(caller.name for caller in self._manager.get_hookcallers(plugin) or []))
        self._records[name] = PluginRecord(name, origin, *package, hooks)

    def _validation_problem(self, plugin: object) -> _Problem | None:
        """What pluggy's `check_pending` would say about this plugin alone."""
        for caller in self._manager.get_hookcallers(plugin) or []:
            if caller.has_spec():
                continue
            if any(impl.plugin is plugin and not impl.optionalhook for impl in caller.get_hookimpls()):
                known = hookspecs.PROVIDER_HOOKS + hookspecs.OBSERVER_HOOKS
                close = difflib.get_close_matches(caller.name, known, n=1)
                suggestion = f"; did you mean {close[0]!r}?" if close else ""
                listed = ", ".join(known)
                return _Problem("validate", f"unknown hook {caller.name!r}{suggestion} (known hooks: {listed})")
        return None

    def _provider_problem(self, name: str, plugin: object) -> _Problem | None:
        implemented = {caller.name for caller in self._manager.get_hookcallers(plugin) or []}
        if "provider_info" not in implemented:
            provider_hooks = sorted(implemented & set(hookspecs.PROVIDER_HOOKS))
            if provider_hooks:
                return _Problem("validate", f"implements {', '.join(provider_hooks)} but not provider_info")
            return None  # an observer-only plugin
        missing = sorted(hookspecs.REQUIRED_HOOKS - implemented)
        if missing:
            return _Problem("validate", f"a provider must implement {', '.join(missing)}")
        try:
            with self._traced(name, "provider_info"):
                answers = self._manager.subset_hook_caller(
                    "provider_info",
                    remove_plugins=[p for other, p in self._manager.list_name_plugin() if other != name],
                )()
            info = _adapter_for(ProviderInfo).validate_python(answers[0] if answers else None)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - a raising provider_info marks the plugin broken
            return _Problem("info", _describe(exc))
        if info.contract_version != CONTRACT_VERSION:
            error = (
                f"built for contract version {info.contract_version}; this wardian implements "
                f"version {CONTRACT_VERSION}"
            )
            return _Problem("contract", error, {"contract_version": info.contract_version})
        if info.name != name:
            return _Problem("info", f"provider_info names it {info.name!r} but its entry point is {name!r}")
        self._infos[name] = info
        return None

    # -- helpers -------------------------------------------------------------------

    def _validated(self, provider: str, hook: str, answer: Any) -> Any:
        if answer is None and hook not in hookspecs.REQUIRED_HOOKS:
            return _default_answer(hook)
        return self._checked(provider, hook, answer, _answer_type(hook))

    def _checked(self, provider: str, hook: str, answer: Any, answer_type: Any) -> Any:
        adapter = self._adapters.get(answer_type)
        if adapter is None:
            adapter = self._adapters[answer_type] = _adapter_for(answer_type)
        try:
            return adapter.validate_python(answer)
        except ValidationError as exc:
            self._record_failure(provider, hook, exc)
            raise WardianError(
                "validation_failed",
                f"provider {provider!r} answered {hook} with something that is not a "
                f"{getattr(answer_type, '__name__', str(answer_type))}: {exc}",
                "This is a bug in the provider plugin; report it to the authors of its package.",
                {"provider": provider, "hook": hook},
            ) from exc

    def _check_arguments(self, hook: str, kwargs: Mapping[str, Any]) -> None:
        spec = getattr(self._manager.hook, hook).spec
        expected = set(spec.argnames) if spec else set()
        if set(kwargs) != expected:
            raise TypeError(f"{hook} takes exactly {sorted(expected)}, got {sorted(kwargs)}")

    @property
    def failures(self) -> list[PluginFailure]:
        """Plugins that failed to load, then one record per plugin and hook that raised."""
        return [*self._load_failures, *self._hook_failures.values()]

    def _record_failure(self, name: str, stage: str, exc: BaseException) -> None:
        record = self._records.get(name)
        package = (record.package, record.package_version) if record else (None, None)
        previous = self._hook_failures.get((name, stage))
        count = previous.count + 1 if previous else 1
        self._hook_failures[(name, stage)] = PluginFailure(name, stage, _describe(exc), *package, count=count)

    def _unknown(self, name: str) -> WardianError:
        known = self.provider_names()
        listed = f"Known providers: {', '.join(known)}." if known else "No provider is loaded."
        barred = self._allowed is not None and name not in self._allowed
        return WardianError(
            "not_found",
            f"no provider named {name!r}",
            f"{listed} WARDIAN_PLUGINS does not name it." if barred else listed,
            {"provider": name, "known": known},
        )


def load_plugins(environ: Mapping[str, str] | None = None) -> Plugins:
    """Load the plugins of the entry-point group `wardian` that the allow-list admits."""
    env = os.environ if environ is None else environ
    allowed = _allow_list(env.get(ALLOW_LIST_VARIABLE))
    plugins = Plugins(allowed, trace=env.get(TRACE_VARIABLE, "") not in ("", "0"))
    found: dict[str, EntryPoint] = {}
    for entry_point in entry_points(group=GROUP):
        first = found.setdefault(entry_point.name, entry_point)
        if first.value != entry_point.value:
            dist = entry_point.dist
            plugins._load_failures.append(
                PluginFailure(
                    entry_point.name,
                    "register",
                    f"two plugins are named {entry_point.name!r} ({first.value} and {entry_point.value}); "
                    f"the first found was loaded",
                    dist.name if dist else None,
                    dist.version if dist else None,
                )
            )
    for name in sorted(found):
        if allowed is None or name in allowed:
            plugins._load(found[name])
    for name in sorted((allowed or set()) - set(found)):
        plugins._load_failures.append(
            PluginFailure(name, "missing", f"no plugin named {name!r} is installed (entry-point group {GROUP!r})")
        )
    # Every plugin with an unknown hook was refused above, so this only guards our own checks.
    plugins._manager.check_pending()
    return plugins
