"""The size limits (`limits.*`), checked where every surface's request meets the engine.

A request over one is refused with the size, the limit's name and the way out; nothing
is cut behind the caller's back. Turns that arrive through the spool are the exception:
they were acknowledged to an agent already, so one over `capture_chars` is trimmed to
its start and its end (where the request and the conclusion usually are) and captured.
"""

from __future__ import annotations

from cortex_tui.errors import TooLargeError

TYPE_CHECKING = False  # a member's post hook trims turns it sends (`agent_turn/team_delivery.py`)
if TYPE_CHECKING:
    from cortex_tui.config import LimitsConfig

CUT_MARK = "\n\n[… {count} characters left out …]\n\n"


def check_content(content: str, limits: LimitsConfig) -> None:
    size = len(content.strip())
    if size > limits.content_chars:
        raise TooLargeError(
            f"memory content is {size} characters, over limits.content_chars "
            f"({limits.content_chars}); split it into smaller memories or raise the limit"
        )


def check_query(query: str, limits: LimitsConfig) -> None:
    size = len(query.strip())
    if size > limits.query_chars:
        raise TooLargeError(
            f"the query is {size} characters, over limits.query_chars ({limits.query_chars}); "
            "ask with fewer words or raise the limit"
        )


def check_turn(text: str, limits: LimitsConfig) -> None:
    size = len(text)
    if size > limits.capture_chars:
        raise TooLargeError(
            f"the conversation text is {size} characters, over limits.capture_chars "
            f"({limits.capture_chars}); capture it in parts or raise the limit"
        )


def fit_turn(text: str, limit: int) -> str:
    """`text` within `limit` characters: its start and its end, with a mark between
    saying how much was left out."""
    if len(text) <= limit:
        return text
    mark = CUT_MARK.format(count=len(text))  # the longest count it can need
    keep = max(0, limit - len(mark))
    head, tail = text[: keep - keep // 2], text[len(text) - keep // 2 :]
    return head + CUT_MARK.format(count=len(text) - len(head) - len(tail)) + tail
