"""`python -m wardian_host.terminal.server`: the terminal server process (see `process`)."""

import sys

# asyncio imports ssl when it can, and nothing here speaks TLS: a None entry makes that import
# fail (asyncio runs without ssl then, as on a Python built without it), which keeps OpenSSL's
# libraries and the ssl module out of a process that lives as long as any agent.
sys.modules["ssl"] = None  # type: ignore[assignment]

from wardian_host.terminal.server.process import main  # noqa: E402  (after the line above)

main()
