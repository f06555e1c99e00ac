"""`wardian tui`: the terminal dashboard. Textual is imported only here, once the command runs."""

import sys

import click

from wardian_core.errors import WardianError


@click.command("tui")
def tui() -> None:
    """A dashboard of every agent in this terminal: the queue, the roster, a live preview; keys act."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise WardianError(
            "usage",
            "wardian tui draws in a terminal, and standard input or output is not one",
            "Run it in a terminal (over SSH too); for scripts use `wardian agent list` and `wardian agent watch`.",
            {"stdin_tty": sys.stdin.isatty(), "stdout_tty": sys.stdout.isatty()},
        )
    from concurrent.futures import ThreadPoolExecutor

    from wardian_host.tui.roster import local_rows

    with ThreadPoolExecutor(max_workers=1) as pool:
        first_rows = pool.submit(local_rows)  # read while Textual is imported
        from wardian_host.tui.app import WardianApp
        from wardian_host.tui.sources import HostSources

        WardianApp(HostSources(first_rows)).run()
