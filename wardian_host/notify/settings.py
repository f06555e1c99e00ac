"""The `notify.*` settings as the running host uses them: read from settings.toml at each use,
as the host reads every other setting when it acts on it (a read costs about 60 µs). So
`wardian settings set notify.urls …`, or an edit by hand, applies to the next notice without a
restart; a file that no longer validates leaves the last good values in force."""

import logging
from pathlib import Path

from wardian_core.errors import WardianError
from wardian_core.settings import load_settings
from wardian_core.settings.model import NotifySettings

log = logging.getLogger(__name__)


class NotifySettingsReader:
    def __init__(self, home: Path, at_start: NotifySettings) -> None:
        self._home = home
        self._last_good = at_start
        self._last_problem: str | None = None

    def __call__(self) -> NotifySettings:
        try:
            self._last_good = load_settings(self._home).notify
        except WardianError as error:
            if error.message != self._last_problem:  # once per problem, not once per status change
                log.warning("notify settings kept as they were: %s", error.message)
            self._last_problem = error.message
        else:
            self._last_problem = None
        return self._last_good
