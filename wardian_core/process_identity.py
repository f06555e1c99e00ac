"""What tells an agent's own processes from a process that merely carries its WARDIAN_SESSION_ID.

Anyone can start a process with `WARDIAN_SESSION_ID=<uuid>`, so that variable alone
adopts, kills and vouches for nothing. What a launch records instead, kept in state.db
(`agents.process_identity`) so a later host can tell the agent's processes apart too:

- the agent's own process: its pid with its start time (a reused pid started later);
- its session: an agent starts as the leader of a new session, and the kernel reuses
  no session id while any member of the session lives;
- a launch token, a random value put into the environment as WARDIAN_LAUNCH_TOKEN, which
  only the launch's descendants inherit: it finds a double-forked, setsid'd grandchild
  that left both the tree and the session. It marks processes to end with the agent;
  it never proves who a caller is (any process may print its own environment).
"""

import json
import secrets

from pydantic import BaseModel, ConfigDict

TOKEN_VARIABLE = "WARDIAN_LAUNCH_TOKEN"
# psutil's start time adds the boot time, which a clock step moves a little; a pid that
# was reused started much later than the process it once named.
START_TIME_TOLERANCE_SECONDS = 1.0


class ProcessIdentity(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    pid: int  # the process the agent was launched as
    started: float  # its start time, seconds since the epoch (psutil's create_time)
    session: int  # the session it leads
    token: str | None = None  # WARDIAN_LAUNCH_TOKEN of the launch (None: recovered from an older Wardian)

    def stored(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_stored(cls, text: str | None) -> "ProcessIdentity | None":
        return cls.model_validate(json.loads(text)) if text else None


def new_token() -> str:
    return secrets.token_hex(16)
