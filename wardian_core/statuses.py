"""The agent statuses, spelled once (docs/architecture.md, "Events and statuses").

`Status` types the pydantic models (AgentRecord, the control wire); `STATUSES` is
the same list as plain data for the CLI's choices and the status rules.
"""

from typing import Literal, get_args

Status = Literal["starting", "idle", "processing", "action_required", "error", "off", "headless"]
STATUSES: tuple[Status, ...] = get_args(Status)
