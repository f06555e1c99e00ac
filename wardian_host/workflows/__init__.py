"""Workflow runs while the host runs: the graph driver (`runner`), what one node does
(`node_runs`), who plays a role (`roles`)."""
