"""What a person's one tap (the web view's tile, the queue) or a hint's command adds to a budget's
figure. Its own module, with no imports: the inbox and the dashboard read it without loading the
settings' models that `wardian_core.budgets` needs."""

RAISE_STEPS = {"tokens": "tokens=+20000", "usd": "usd=+1", "minutes": "minutes=+60"}


def raise_step(hit: list[str] | None = None) -> str:
    """`--raise`'s text for the first figure that ran out (tokens when none is named)."""
    return RAISE_STEPS.get((hit or ["tokens"])[0], RAISE_STEPS["tokens"])
