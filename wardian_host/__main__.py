"""`python -m wardian_host` is the `wardian` command (used by `<home>/bin/wardian`)."""

import sys

if sys.argv[1:] == ["mcp"]:
    # Each agent's CLI starts this relay, often fifty at once: it skips click and the command
    # table, which it does not need, to start in the least time and memory.
    from wardian_host.mcp.relay import main as relay

    relay()
else:
    from wardian_host.cli import main

    main()
