"""`wardian web --open`'s login page: an owner-only file in the home's run folder that posts
the one-time login to the view, so the browser is opened on a path, never on a secret.

A browser's command line is readable by every local user (`/proc/PID/cmdline`): another user
once polled it and redeemed the login before the browser did. The file is made by mkstemp
(0600, never through a link) and removed when its login is used or expires.
"""

import html
import os
import tempfile
from pathlib import Path

from wardian_core import paths

PREFIX = "web-login-"

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Wardian: logging in</title></head>
<body>
<form method="post" action="{action}">
<input type="hidden" name="login" value="{login}">
<noscript><button type="submit">Log in to the Wardian web view</button></noscript>
</form>
<script>document.forms[0].submit();</script>
</body></html>
"""


def write_login_page(home: Path, address: str, login: str) -> Path:
    """The page that logs the browser in at `address` (the view's root, e.g. http://127.0.0.1:PORT)."""
    folder = paths.run_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    descriptor, name = tempfile.mkstemp(prefix=PREFIX, suffix=".html", dir=folder)
    with os.fdopen(descriptor, "w", encoding="utf-8") as page:
        page.write(PAGE.format(action=html.escape(f"{address}/login"), login=html.escape(login)))
    return Path(name)


def remove_login_pages(home: Path) -> None:
    """Pages a previous host left: their logins died with it."""
    for page in paths.run_dir(home).glob(f"{PREFIX}*.html"):
        page.unlink(missing_ok=True)
