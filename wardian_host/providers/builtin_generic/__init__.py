"""`generic`: runs any interactive command; status from output activity and an optional
prompt pattern. The embedded default, and a small example of a provider."""
