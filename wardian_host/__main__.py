"""`python -m wardian_host` is the `wardian` command (used by `<home>/bin/wardian`)."""

from wardian_host.cli import main

main()
