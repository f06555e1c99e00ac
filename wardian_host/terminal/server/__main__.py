"""`python -m wardian_host.terminal.server`: the terminal server process (see `process`)."""

from wardian_host.terminal.server.process import main

main()
