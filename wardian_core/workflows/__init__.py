"""Workflows: the definition format (`model`), its checks (`validation`), prompt templates
(`templates`), the files under `<home>/workflows/` (`files`) and a run's state rebuilt from
its event log (`run_state`)."""
