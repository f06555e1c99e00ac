"""`generic`: runs any interactive command; status from shell marks (bash and zsh), a
prompt pattern or output activity. The embedded default, and a small example of a provider."""
