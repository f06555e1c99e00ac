"""`python -m wardian_host.daemon`: the host process (see `process`)."""

import gc

# Until the host serves, it only builds what it keeps (modules, classes, pydantic models, its
# agents): collections then find next to no garbage and cost ~10 % of its start-up CPU.
# `FullCollections.start` collects once, freezes what start-up built and turns them back on.
gc.disable()

from wardian_host.daemon.process import main  # noqa: E402  # after the collector is off

main()
