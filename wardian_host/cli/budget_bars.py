"""Use against budget as bars of text, for `agent budget --pretty` and `usage --pretty`."""

from typing import Any

BAR_WIDTH = 20
FIGURES = ("tokens", "usd", "minutes")


def bar(used: float, limit: float, width: int = BAR_WIDTH) -> str:
    """`[########------------]  42%`: the share of `limit` that `used` is, full past 100 %."""
    share = used / limit if limit else 1.0
    filled = min(width, round(share * width))
    return f"[{'#' * filled}{'-' * (width - filled)}] {round(share * 100):>3}%"


def amount(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".") or "0"
    return str(value)


def budget_lines(answer: dict[str, Any]) -> list[str]:
    """One line per figure with a limit: its bar, used of budget, what is left."""
    lines = []
    for figure in FIGURES:
        limit = answer["budget"].get(figure)
        if limit is None:
            continue
        used = answer["used"].get(figure) or 0
        left = amount(answer["left"].get(figure))
        lines.append(f"{figure:<8} {bar(used, limit)}  {amount(used)} of {amount(limit)}, {left} left")
    return lines or ["no budget"]


def pretty_budget(answer: dict[str, Any]) -> str:
    held = answer.get("held")
    state = f"held since {held.get('at')}: takes no prompts" if held else "takes prompts"
    return "\n".join([f"{answer['agent']}  {state}", *(f"  {line}" for line in budget_lines(answer))])
