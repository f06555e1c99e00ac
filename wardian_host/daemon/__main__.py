"""`python -m wardian_host.daemon`: the host process (see `process`)."""

from wardian_host.daemon.process import main

main()
