"""The record of a prompt the hook gave nothing because it gave up: it timed out, or no
service answered (not running, still starting, or refusing to start).

The service records every context it gives; a prompt it never answered would leave no
trace, and `cortex-tui given` could not tell "nothing bore on it" from "the hook gave
up". So the hook process writes that record itself, in the same files, on its failure
path only. Standard library only (the records' models would cost the hook the time it
no longer has); a record that cannot be written costs a log line. It keeps no word of
the prompt: the privacy step runs in the service, which never saw it.
"""

from __future__ import annotations

import json
import time
import uuid

from cortex_tui.agent_turn.events import parse_event
from cortex_tui.agent_turn.plan import plan_pre
from cortex_tui.given.segments import FOLDER, append_line, current_segment, locked
from cortex_tui.quick_settings import prompt_limits, records_kept

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    from cortex_tui.log_protocol import Log

    Missed = Literal["timed out", "no service"]
    """Why the hook gave up: the outcomes of `given.record.Outcome` it records."""


_recorded: list[str] = []
"""What this process recorded: a hook process answers one event, and the thread that
gave up and the one that timed it out may both say so."""


def record_missed(home: str, raw_event: str, outcome: Missed, log: Log) -> None:
    """Record that the event's prompt was given nothing, and why (once a process);
    nothing for an event that would get no context anyway."""
    from pathlib import Path

    if _recorded:
        return
    _recorded.append(outcome)
    try:
        if not records_kept(home):
            return
        minimum, query_chars = prompt_limits(home)
        plan = plan_pre(parse_event(raw_event), minimum, query_chars, log)
        if plan is None:
            return
        record = {
            "id": str(uuid.uuid4()),
            "at": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + "Z",
            "agent": plan.agent,
            "trigger": plan.trigger,
            "session": plan.session or None,
            "project": plan.project,
            "context": "",
            "used_tokens": 0,
            "outcome": outcome,
        }
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode()
        folder = Path(home) / FOLDER
        with locked(folder):
            append_line(current_segment(folder), line)
    except Exception as exc:
        log.warning("the record of a prompt given nothing (%s) was not kept: %s", outcome, exc)
